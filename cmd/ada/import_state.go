package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/storage/jsonl"
)

// exportState is what an export holds, read before anything is written: a
// fingerprint of each document and history entry, which an import into a
// store that is not empty compares with the store's (importPlan). The
// lists are sorted once read and searched by halves: 32 MB for a million
// documents and a million history entries, where a map by id took some
// 240 MiB.
type exportState struct {
	docs, history fingerprints
}

// fingerprint is the first half of a SHA-256: a collision among a few
// million records is as unlikely as one of the whole.
type fingerprint [16]byte

func fingerprintOf(s string) fingerprint {
	sum := sha256.Sum256([]byte(s))
	return fingerprint(sum[:len(fingerprint{})])
}

// fingerprints is a list of fingerprints, sorted by seal.
type fingerprints []fingerprint

func compareFingerprints(a, b fingerprint) int { return bytes.Compare(a[:], b[:]) }

func (p fingerprints) has(x fingerprint) bool {
	_, ok := slices.BinarySearchFunc(p, x, compareFingerprints)
	return ok
}

// newExportState makes room for the counts a store gives (more or fewer
// are taken as they come).
func newExportState(docs, history int) *exportState {
	return &exportState{docs: make(fingerprints, 0, max(docs, 0)), history: make(fingerprints, 0, max(history, 0))}
}

func (s *exportState) addDocument(d core.Document) error {
	sum, err := documentPrint(d)
	s.docs = append(s.docs, sum)
	return err
}

func (s *exportState) addHistory(h core.HistoryEntry) error {
	sum, err := historyPrint(h)
	s.history = append(s.history, sum)
	return err
}

// seal sorts the fingerprints for has, once every one is added.
func (s *exportState) seal() *exportState {
	slices.SortFunc(s.docs, compareFingerprints)
	slices.SortFunc(s.history, compareFingerprints)
	return s
}

// documentPrint fingerprints what an import keeps of a document besides
// its vector: its id, text and metadata. The id is part of it: a store's
// document is in an export as it is when its fingerprint is.
func documentPrint(d core.Document) (fingerprint, error) {
	meta, err := json.Marshal(d.Meta)
	return fingerprintOf(d.ID + "\x00" + d.Text + "\x00" + string(meta)), err
}

// historyPrint fingerprints every field of a history entry: a forgotten
// memory's entries differ from their older copies by their blanked words.
func historyPrint(h core.HistoryEntry) (fingerprint, error) {
	meta, err := json.Marshal(h.Meta)
	return fingerprintOf(h.MemoryID + "\x00" + strconv.FormatInt(h.Time.UnixNano(), 10) + "\x00" + h.Event + "\x00" +
		h.Text + "\x00" + h.Reason + "\x00" + string(meta)), err
}

// unreadableError is why an export cannot be compared with a store (read
// from standard input, or holding a line that is not a valid record).
type unreadableError struct{ error }

// scanExportFile reads the export in f through once with every check the
// import makes, and rewinds it. A file with fewer documents or history
// entries than its header counts was cut short: it is refused, and
// nothing is imported. A line that is not a valid record ends the scan
// with an unreadableError: the import reports it where it meets it. The
// fingerprints are taken only with prints.
func scanExportFile(f io.ReadSeeker, prints bool) (*exportState, error) {
	rd, err := jsonl.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	h := rd.Header()
	st := newExportState(0, 0) // not the header's counts: a file's word is not trusted with memory
	var docs, hist int
	for {
		rec, err := nextChecked(rd)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, unreadableError{errors.New("the export has a line that is not a valid record (run the import into an empty store to have it named)")}
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
	if err := checkFileCounts(h, docs, hist); err != nil {
		return nil, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	return st.seal(), nil
}

func checkFileCounts(h jsonl.Header, docs, hist int) error {
	if docs < h.Documents || hist < h.History {
		return fmt.Errorf("import: the export is incomplete: its header counts %d documents and %d history entries, the file holds %d and %d (was it cut short in a copy?); nothing was imported", h.Documents, h.History, docs, hist)
	}
	return nil
}

// refuseShortFile refuses an export file cut short (scanExportFile)
// before anything is written, and rewinds it. It counts the lines by
// their kind alone (jsonl.Reader.NextKind: no vector is decoded, no rule
// applied), which gives the count the full check would for a file whose
// lines are all valid records. Only a file that falls short is read again
// with every check, since one holding a line that is not a valid record
// is not refused but imported up to that line, which the import names.
func refuseShortFile(f io.ReadSeeker) error {
	rd, err := jsonl.NewReader(f)
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	var docs, hist int
	for {
		kind, err := rd.NextKind()
		if err == io.EOF {
			break
		}
		if err != nil {
			docs, hist = rd.Header().Documents, rd.Header().History // the import names the line
			break
		}
		switch kind {
		case jsonl.KindDocument:
			docs++
		case jsonl.KindHistory:
			hist++
		}
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("import: %w", err)
	}
	if checkFileCounts(rd.Header(), docs, hist) == nil {
		return nil
	}
	if _, err := scanExportFile(f, false); err != nil && !errors.As(err, new(unreadableError)) {
		return err
	}
	_, err = f.Seek(0, io.SeekStart)
	return err
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
	_, docs, hist, err := src.Counts(ctx)
	if err != nil {
		return nil, err
	}
	st := newExportState(docs, hist)
	if err := src.EachDocument(ctx, false, st.addDocument); err != nil {
		return nil, err
	}
	if err := src.EachHistory(ctx, st.addHistory); err != nil {
		return nil, err
	}
	return st.seal(), nil
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
		plan.state = func() (*exportState, error) {
			return nil, unreadableError{errors.New("it is read from standard input: name the export FILE, so that it can be read before anything is written")}
		}
		return plan, nil
	}
	if err := refuseShortFile(f); err != nil {
		return plan, err
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
	if err != nil {
		return nil, err
	}
	_, err = f.Seek(pos, io.SeekStart)
	return st, err
}

// errCutShort is an import that read fewer records than the header counts.
var errCutShort = errors.New("the export ended before all the records its header counts")
