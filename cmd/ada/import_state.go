package main

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/storage/jsonl"
)

// exportState is what an export holds, read before anything is written:
// its counts, checked against its header (a short file is refused whole),
// and a fingerprint of each document and history entry, which an import
// into a store that is not empty compares with the store's (importPlan).
type exportState struct {
	docs    map[string][sha256.Size]byte
	history map[[sha256.Size]byte]bool
}

func newExportState() *exportState {
	return &exportState{docs: map[string][sha256.Size]byte{}, history: map[[sha256.Size]byte]bool{}}
}

func (s *exportState) addDocument(d core.Document) error {
	sum, err := documentPrint(d)
	s.docs[d.ID] = sum
	return err
}

func (s *exportState) addHistory(h core.HistoryEntry) error {
	sum, err := historyPrint(h)
	s.history[sum] = true
	return err
}

// documentPrint fingerprints what an import keeps of a document besides
// its vector: its id, text and metadata.
func documentPrint(d core.Document) ([sha256.Size]byte, error) {
	meta, err := json.Marshal(d.Meta)
	return sha256.Sum256([]byte(d.ID + "\x00" + d.Text + "\x00" + string(meta))), err
}

// historyPrint fingerprints every field of a history entry: a forgotten
// memory's entries differ from their older copies by their blanked words.
func historyPrint(h core.HistoryEntry) ([sha256.Size]byte, error) {
	meta, err := json.Marshal(h.Meta)
	return sha256.Sum256([]byte(h.MemoryID + "\x00" + strconv.FormatInt(h.Time.UnixNano(), 10) + "\x00" + h.Event + "\x00" +
		h.Text + "\x00" + h.Reason + "\x00" + string(meta))), err
}

// scanExportFile reads the export in f through once, and rewinds it for
// the import. A file with fewer documents or history entries than its
// header counts was cut short: it is refused, and nothing is imported. A
// line that is not a valid record ends the scan without an error: the
// import reports it where it meets it (state is then nil). The
// fingerprints are taken only with prints: they are needed only for a
// store that is not empty, and they take memory (some 240 MiB for a
// million documents and a million history entries).
func scanExportFile(f io.ReadSeeker, prints bool) (*exportState, error) {
	rd, err := jsonl.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	st := newExportState()
	var docs, hist int
	for {
		rec, err := nextChecked(rd)
		if err != nil {
			if err != io.EOF {
				st = nil
			}
			break
		}
		switch {
		case rec.Document != nil:
			docs++
			if prints {
				err = st.addDocument(*rec.Document)
			}
		case rec.History != nil:
			hist++
			if prints {
				err = st.addHistory(*rec.History)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("import: %w", err)
		}
	}
	if h := rd.Header(); st != nil && (docs < h.Documents || hist < h.History) {
		return nil, fmt.Errorf("import: the export is incomplete: its header counts %d documents and %d history entries, the file holds %d and %d (was it cut short in a copy?); nothing was imported", h.Documents, h.History, docs, hist)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	return st, nil
}

// nextChecked is the reader's next record, checked by Ada's rules as the
// import checks it (checkRecord), or io.EOF.
func nextChecked(rd *jsonl.Reader) (jsonl.Record, error) {
	rec, err := rd.Next()
	if err == nil {
		err = checkRecord(rec)
	}
	return rec, err
}

// scanSource reads the state of a store an export is about to be read
// from (migrate-store): its documents without vectors, and its history.
func scanSource(ctx context.Context, src exportSource) (*exportState, error) {
	st := newExportState()
	if err := src.EachDocument(ctx, false, st.addDocument); err != nil {
		return nil, err
	}
	if err := src.EachHistory(ctx, st.addHistory); err != nil {
		return nil, err
	}
	return st, nil
}

// seekableFile is in as a file that can be read twice, or nil (a pipe,
// a terminal, a test's reader).
func seekableFile(in io.Reader) *os.File {
	f, ok := in.(*os.File)
	if !ok {
		return nil
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	return f
}

// planImport reads the export in through once when it is a file, for
// importInto's checks; into is --into-existing.
func planImport(in io.Reader, into bool) (importPlan, error) {
	plan := importPlan{into: into}
	f := seekableFile(in)
	if f == nil {
		plan.unread = errors.New("it is read from standard input: name the export FILE, so that it can be read before anything is written")
		return plan, nil
	}
	st, err := scanExportFile(f, false)
	if err != nil {
		return plan, err
	}
	if st == nil {
		plan.unread = errors.New("the export has a line that is not a valid record (run the import into an empty store to have it named)")
		return plan, nil
	}
	plan.state = func() (*exportState, error) { return fingerprintExport(f) }
	return plan, nil
}

// fingerprintExport reads the file f again, for its fingerprints, and
// leaves it where the import's reader had it.
func fingerprintExport(f *os.File) (*exportState, error) {
	pos, err := f.Seek(0, io.SeekCurrent)
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err != nil {
		return nil, err
	}
	st, err := scanExportFile(f, true)
	if err == nil && st == nil {
		err = errors.New("the export changed while it was read")
	}
	if err != nil {
		return nil, err
	}
	_, err = f.Seek(pos, io.SeekStart)
	return st, err
}

// errCutShort is an import that read fewer records than the header counts.
var errCutShort = errors.New("the export ended before all the records its header counts")
