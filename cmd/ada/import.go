package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/ada-chat/ada/config"
	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/storage"
	"github.com/ada-chat/ada/storage/jsonl"
)

const importUsage = `usage: ada import [--into-existing] [FILE]

Reads an export of ada export from FILE, or from standard input when FILE is
- or not given, into DATA_DIR/ada.db, keeping every id, timestamp, metadata,
history entry and vector. It writes the database, so Ada must be stopped (it
holds DATA_DIR like ada reindex).

Resumable: documents already stored (by id) and history entries already
there are skipped, so running it again after an interruption continues
without duplicating anything.

A FILE is read through once before anything is written. One that holds
fewer documents or history entries than its header counts was cut short:
it is refused, and nothing is imported. The store is compared with it
too: a store that holds anything the export does not hold as it is (a
memory deleted, expired, retired or changed since the store was copied,
or another store's documents) is refused, because the import would keep
it, a forgotten memory included.

  --into-existing  import into such a store all the same, and make it hold
                   exactly the export's state: what the export lacks or
                   holds otherwise is removed first (documents and history
                   entries; the bridge's own data in ada.db is kept)

From standard input the export cannot be read twice: it is imported into
an empty store (or one holding part of it) only, and a short input is
reported at its end, after what it held was imported.

When the export has no vectors, or they were written by another embedder
than the configured one (EMBED_BACKEND, EMBED_MODEL), the texts are embedded
again with the configured embedder, and the command says so.

A line that is not a valid record stops the import with an error naming it
and its field: the lines before it are imported, nothing of it is. Records
follow the rules Ada's own doors apply: a memory's text at most 10000
characters and at most 20 tags of at most 64 characters, a scope
entity:X only with entity X, history events Ada records, and vectors of
unit length.`

// importBatch is the number of documents written per transaction: large
// enough that commits cost little, small enough that memory stays bounded.
const importBatch = 256

// runImport reads an export into the store.
func runImport(ctx context.Context, cfg *config.Config, log *slog.Logger, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("ada import", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	into := fs.Bool(intoExistingFlag, false, "")
	rest, err := parseInterspersed(fs, args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprintln(stdout, importUsage)
		return nil
	case err != nil:
		return fmt.Errorf("import: %w (see ada import --help)", err)
	case len(rest) > 1:
		return fmt.Errorf("import takes one FILE, got %q (see ada import --help)", rest)
	}
	in, closeIn, err := importSource(rest, stdin)
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	defer closeIn()
	plan, err := planImport(in, *into)
	if err != nil {
		return err
	}
	return importInto(ctx, cfg, log, backendOf(cfg), in, plan, stdout, stderr)
}

// schemaMemoer is a store whose writes check the documents' schemas with a
// memo an export's reader can share (storage.DB).
type schemaMemoer interface{ SchemaMemo() *core.SchemaMemo }

// importInto reads an export from in into the store of backend.
func importInto(ctx context.Context, cfg *config.Config, log *slog.Logger, backend string, in io.Reader, plan importPlan, stdout, stderr io.Writer) error {
	rd, err := jsonl.NewReader(in)
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	db, emb, done, err := openImportTarget(ctx, cfg, backend)
	if err != nil {
		return err
	}
	defer done()
	if err := db.CheckEmbedder(ctx, emb.Name()); err != nil {
		return fmt.Errorf("import: %w", err)
	}
	if m, ok := db.(schemaMemoer); ok {
		rd.ShareSchemaMemo(m.SchemaMemo()) // each document's schema checked once
	}
	if err := plan.prepare(ctx, cfg, backend, db, stdout); err != nil {
		return err
	}
	im := &importer{db: db, emb: emb, header: rd.Header(), prog: newProgress(stderr, "import")}
	im.reembed = needsEmbedding(im.header, emb.Name(), stdout)
	start := time.Now()
	err = im.run(ctx, rd)
	if err == nil {
		err = checkReadCounts(im.header, im.read.docs, im.read.history)
	}
	im.prog.done()
	r := im.total
	fmt.Fprintf(stdout, "imported %d documents and %d history entries; %d documents and %d history entries were already stored (%s)\n",
		r.Documents, r.History, r.DocumentsSkipped, r.HistorySkipped, time.Since(start).Round(time.Millisecond))
	if err != nil {
		return err
	}
	log.Info("import complete", "documents", r.Documents, "history", r.History, "embedder", emb.Name(), "reembedded", im.reembed)
	return nil
}

// importSource opens what ada import reads: the file rest names, or stdin
// for "-" or no name, unless it is a terminal. close closes the file.
func importSource(rest []string, stdin io.Reader) (in io.Reader, close func(), err error) {
	if len(rest) == 1 && rest[0] != "-" {
		f, err := os.Open(rest[0])
		if err != nil {
			return nil, nil, err
		}
		return f, func() { f.Close() }, nil
	}
	if isTerminal(stdin) {
		return nil, nil, errors.New("standard input is a terminal: name a FILE, or pipe an export in (ada import < FILE)")
	}
	return stdin, func() {}, nil
}

// needsEmbedding reports whether the export's documents must be embedded
// with the configured embedder (named emb), and says so on out: when the
// export has no vectors, or another embedder's.
func needsEmbedding(h jsonl.Header, emb string, out io.Writer) bool {
	need := !h.Vectors || h.Embedder != emb
	switch {
	case !need || h.Documents == 0: // nothing to say (the count is only for progress)
	case !h.Vectors:
		fmt.Fprintf(out, "the export has no vectors: embedding every imported document with %s\n", emb)
	default:
		fmt.Fprintf(out, "the export's vectors were written by %s, this store uses %s: re-embedding every imported document with %s\n",
			cmp.Or(h.Embedder, "an unknown embedder"), emb, emb)
	}
	return need
}

// importer writes an export's records in batches, each in one transaction.
type importer struct {
	db      importTarget
	emb     core.Embedder
	header  jsonl.Header
	reembed bool
	prog    *progress

	docs    []core.Document
	history []core.HistoryEntry
	read    struct{ docs, history int }
	total   storage.ImportResult
}

// run reads every record. A bad line ends it after the lines before it
// are written.
func (im *importer) run(ctx context.Context, rd *jsonl.Reader) error {
	for {
		rec, err := nextChecked(rd)
		if err == io.EOF {
			break
		}
		if err != nil {
			if ferr := im.flush(ctx); ferr != nil {
				return ferr
			}
			return fmt.Errorf("import: %w; nothing of that line was written, every line before it was: fix it and run the import again to continue", err)
		}
		switch {
		case rec.Document != nil:
			im.docs = append(im.docs, *rec.Document)
			im.read.docs++
		case rec.History != nil:
			im.history = append(im.history, *rec.History)
			im.read.history++
		}
		if len(im.docs) >= importBatch || len(im.history) >= 4*importBatch {
			if err := im.flush(ctx); err != nil {
				return err
			}
		}
	}
	return im.flush(ctx)
}

// checkRecord applies Ada's own rules to a record the reader found well
// formed (core.CheckImported): an import stores nothing no door would.
func checkRecord(rec jsonl.Record) error {
	var err error
	switch {
	case rec.Document != nil:
		if err = core.CheckImported(*rec.Document); err != nil {
			err = fmt.Errorf("document %s: %w", rec.Document.ID, err)
		}
	case rec.History != nil:
		if err = core.CheckImportedHistory(*rec.History); err != nil {
			err = fmt.Errorf("history entry of %s: %w", rec.History.MemoryID, err)
		}
	}
	if err != nil {
		return &jsonl.LineError{Line: rec.Line, Err: err}
	}
	return nil
}

// flush writes the pending records, embedding them first if need be.
func (im *importer) flush(ctx context.Context) error {
	if len(im.docs) == 0 && len(im.history) == 0 {
		return nil
	}
	docs := im.docs
	if im.reembed {
		var err error
		if docs, err = im.embed(ctx, docs); err != nil {
			return fmt.Errorf("import stopped (run it again to resume): %w", err)
		}
	}
	res, err := im.db.Import(ctx, docs, im.history)
	if err != nil {
		return fmt.Errorf("import stopped (run it again to resume): %w", err)
	}
	res.DocumentsSkipped += len(im.docs) - len(docs) // already stored, not embedded again
	im.total.Add(res)
	im.docs, im.history = im.docs[:0], im.history[:0]
	im.prog.show(im.read.docs, im.header.Documents, im.read.history, im.header.History)
	return nil
}

// embed embeds the documents of docs not stored yet (a resumed import does
// not pay the embedder twice) and returns them.
func (im *importer) embed(ctx context.Context, docs []core.Document) ([]core.Document, error) {
	ids := make([]string, len(docs))
	for i, d := range docs {
		ids[i] = d.ID
	}
	stored, err := im.db.Stored(ctx, ids)
	if err != nil {
		return nil, err
	}
	todo := make([]core.Document, 0, len(docs))
	for _, d := range docs {
		if !stored[d.ID] {
			todo = append(todo, d)
		}
	}
	for start := 0; start < len(todo); start += reindexBatch {
		chunk := todo[start:min(start+reindexBatch, len(todo))]
		texts := make([]string, len(chunk))
		for i, d := range chunk {
			texts[i] = core.EmbeddedText(d) // a turn keeps its speaker
		}
		vecs, err := core.EmbedEach(ctx, im.emb, texts)
		if err != nil {
			return nil, err
		}
		for i := range chunk {
			chunk[i].Embedding = vecs[i]
		}
	}
	return todo, nil
}
