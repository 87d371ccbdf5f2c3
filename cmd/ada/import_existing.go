package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/ada-chat/ada/config"
	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/storage"
	"github.com/ada-chat/ada/storage/jsonl"
)

// intoExistingFlag is the flag of ada import and ada migrate-store that
// lets an import make a store that is not empty the export's exact state.
const intoExistingFlag = "into-existing"

// importPlan is how an import treats a store that already holds documents
// or history. An import keeps ids, so it would skip what the store holds
// and remove nothing: a memory forgotten in the source since the store was
// copied from it would be live again. So the store is compared with the
// export before anything is written. A store that holds only part of the
// export (an interrupted import, run again) is continued. A store that
// holds anything else is refused, unless the operator passed
// --into-existing: then what the export lacks or holds otherwise is
// removed first, and the store ends with exactly the export's state.
type importPlan struct {
	// state reads the export's state, only for a store that is not
	// empty; an unreadableError says why it cannot be.
	state func() (*exportState, error)
	into  bool
}

// importPruner is a store from which an import can remove what the export
// lacks.
type importPruner interface {
	PruneImported(ctx context.Context, docIDs []string, history []core.HistoryEntry) error
}

var (
	_ importPruner = (*storage.DB)(nil)
	_ exportSource = (*storage.Snapshot)(nil)
)

// prepare compares the store of backend, db, with the export, and removes
// from it what the export lacks or holds otherwise when the plan allows.
func (p importPlan) prepare(ctx context.Context, cfg *config.Config, backend string, db importStore, stdout io.Writer) error {
	stale, staleHistory, held, err := p.compare(ctx, cfg, backend, db)
	var unread unreadableError
	if errors.As(err, &unread) {
		return fmt.Errorf("import: the %s store already holds %s, and the export cannot be compared with it: %w; nothing was imported", backend, held, unread.error)
	}
	if err != nil {
		return fmt.Errorf("import: reading the %s store: %w", backend, err)
	}
	if len(stale) == 0 && len(staleHistory) == 0 {
		return nil
	}
	if !p.into {
		return fmt.Errorf("import: the %s store already holds %s, and %d of its documents and %d of its history entries are not in the export as they are (deleted, expired, retired or changed in the source since the store was copied, or another store's); an import would keep them, a forgotten memory included. Nothing was imported. Run it again with --%s to make the store hold exactly the export's state (they are removed), or import into an empty store",
			backend, held, len(stale), len(staleHistory), intoExistingFlag)
	}
	pr, ok := db.(importPruner)
	if !ok {
		return core.Errorf(core.KindInternal, "import: the %s store cannot remove documents", backend)
	}
	fmt.Fprintf(stdout, "removing %d documents and %d history entries of the %s store that the export does not hold as they are\n", len(stale), len(staleHistory), backend)
	if err := pr.PruneImported(ctx, stale, staleHistory); err != nil {
		return fmt.Errorf("import: removing what the export lacks from the %s store: %w", backend, err)
	}
	return nil
}

// compare returns the ids of the store's documents and the store's history
// entries that the export does not hold as they are, and how much the
// store holds (for messages, also with an unreadableError).
func (p importPlan) compare(ctx context.Context, cfg *config.Config, backend string, db importStore) (docs []string, history []core.HistoryEntry, held string, err error) {
	var tgt exportSource
	if backend == backendSQLite {
		snap, err := storage.OpenSnapshot(ctx, cfg.DBPath())
		if err != nil {
			return nil, nil, "", err
		}
		defer snap.Close()
		tgt = snap
	} else if tgt, _ = db.(exportSource); tgt == nil {
		return nil, nil, "", errors.New("the store cannot be read back")
	}
	_, nDocs, nHist, err := tgt.Counts(ctx)
	if err != nil || nDocs+nHist == 0 {
		return nil, nil, "", err
	}
	held = fmt.Sprintf("%d documents and %d history entries", nDocs, nHist)
	st, err := p.state()
	if err != nil {
		return nil, nil, held, err
	}
	err = tgt.EachDocument(ctx, false, func(d core.Document) error {
		sum, err := documentPrint(d)
		if !st.docs.has(sum) {
			docs = append(docs, d.ID)
		}
		return err
	})
	if err != nil {
		return nil, nil, "", err
	}
	err = tgt.EachHistory(ctx, func(h core.HistoryEntry) error {
		sum, err := historyPrint(h)
		if !st.history.has(sum) {
			history = append(history, h)
		}
		return err
	})
	return docs, history, held, err
}

// checkReadCounts refuses an import that read fewer records than its
// header counts: an export cut short on its way in (a file is checked
// before anything is written; standard input and migrate-store only now).
func checkReadCounts(h jsonl.Header, docs, history int) error {
	if docs >= h.Documents && history >= h.History {
		return nil
	}
	return fmt.Errorf("import: %w: %d of %d documents and %d of %d history entries were read, and imported; import the whole export again to complete it (it continues where this one stopped)",
		errCutShort, docs, h.Documents, history, h.History)
}
