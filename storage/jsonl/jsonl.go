package jsonl

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/ada-chat/ada/core"
)

// Format is the header's "format"; Version the highest version this code
// reads and the one it writes.
const (
	Format  = "ada-export"
	Version = 1
)

// Line kinds ("kind" of every line).
const (
	KindHeader   = "header"
	KindDocument = "document"
	KindHistory  = "history"
)

// MaxLine bounds one line, so that a reader's memory stays bounded whatever
// the input (a document with its vector is about 10 KiB).
const MaxLine = 16 << 20

// Header is the first line of an export.
type Header struct {
	Kind       string    `json:"kind"`
	Format     string    `json:"format"`
	Version    int       `json:"version"`
	ExportedAt time.Time `json:"exported_at"`
	// Embedder wrote the vectors ("hash:v1", "ollama:nomic-embed-text").
	Embedder   string `json:"embedder"`
	Dimensions int    `json:"dimensions"`
	// Vectors says whether the document lines carry their embeddings.
	Vectors bool `json:"vectors"`
	// Documents and History count the lines that follow, for progress.
	Documents int `json:"documents"`
	History   int `json:"history"`
}

// line is any line but the header: a document or a history entry, told
// apart by Kind. Unknown fields are refused (a misspelt field must not
// silently drop data).
type line struct {
	Kind string `json:"kind"`
	// document
	ID string `json:"id,omitempty"`
	// history
	MemoryID string     `json:"memory_id,omitempty"`
	Event    string     `json:"event,omitempty"`
	Time     *time.Time `json:"timestamp,omitempty"`
	Reason   string     `json:"reason,omitempty"`
	// both
	Text     string        `json:"text"`
	Metadata core.Metadata `json:"metadata"`
	// Embedding (a document's) comes last: see splitEmbedding.
	Embedding vector `json:"embedding,omitempty"`
}

// Writer writes an export.
type Writer struct {
	w   *bufio.Writer
	enc *json.Encoder
}

// NewWriter writes h (its Kind, Format and Version set here) and returns a
// Writer for the lines that follow. Call Flush at the end.
func NewWriter(w io.Writer, h Header) (*Writer, error) {
	bw := bufio.NewWriterSize(w, 256<<10)
	wr := &Writer{w: bw, enc: json.NewEncoder(bw)}
	h.Kind, h.Format, h.Version = KindHeader, Format, Version
	return wr, wr.enc.Encode(h)
}

// WriteDocument writes d, with its embedding if it has one.
func (w *Writer) WriteDocument(d core.Document) error {
	return w.enc.Encode(line{Kind: KindDocument, ID: d.ID, Text: d.Text, Metadata: d.Meta, Embedding: d.Embedding})
}

// WriteHistory writes one history entry.
func (w *Writer) WriteHistory(h core.HistoryEntry) error {
	t := h.Time.UTC()
	return w.enc.Encode(line{Kind: KindHistory, MemoryID: h.MemoryID, Event: h.Event, Time: &t, Text: h.Text, Metadata: h.Meta, Reason: h.Reason})
}

// Flush writes out what is buffered.
func (w *Writer) Flush() error { return w.w.Flush() }

// LineError is a line that cannot be read; Line counts from 1.
type LineError struct {
	Line int
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

// Record is one line after the header: a document or a history entry.
type Record struct {
	Line     int
	Document *core.Document
	History  *core.HistoryEntry
}

// Reader reads an export line by line, in constant memory.
type Reader struct {
	sc     *bufio.Scanner
	line   int
	header Header
	// placeholder stands for the vector of a document exported without
	// one, so that every other field is checked as it is read.
	placeholder []float32
	// validated remembers the metadata that passed the schema check; the
	// store's own memo when it checks each document again as it writes it
	// (ShareSchemaMemo), so that an import checks each document once.
	validated *core.SchemaMemo
}

// ShareSchemaMemo has r remember the documents it checked in m, the memo
// of the store the documents go to: the store's check of a document the
// reader passed is then a lookup (core.SchemaMemo), not a second run of
// the JSON Schema check (5-10 µs of CPU a document; a turn, whose
// metadata differs from every other's, gets no help from the memo).
func (r *Reader) ShareSchemaMemo(m *core.SchemaMemo) { r.validated = m }

// NewReader reads and checks the header.
func NewReader(r io.Reader) (*Reader, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), MaxLine)
	rd := &Reader{sc: sc, placeholder: make([]float32, core.Dim), validated: new(core.SchemaMemo)}
	raw, err := rd.next()
	if err == io.EOF {
		return nil, &LineError{Line: 1, Err: errors.New("the input is empty: not an Ada export")}
	}
	if err != nil {
		return nil, err
	}
	if err := decodeStrict(raw, &rd.header); err != nil || rd.header.Kind != KindHeader || rd.header.Format != Format {
		return nil, &LineError{Line: rd.line, Err: fmt.Errorf("not an Ada export: the first line must be the header {\"kind\":\"header\",\"format\":%q,...}", Format)}
	}
	h := rd.header
	switch {
	case h.Version < 1 || h.Version > Version:
		return nil, &LineError{Line: rd.line, Err: fmt.Errorf("export format version %d: this ada reads versions 1 to %d (upgrade ada)", h.Version, Version)}
	case h.Vectors && h.Dimensions != core.Dim:
		return nil, &LineError{Line: rd.line, Err: fmt.Errorf("the export's vectors have %d dimensions, Ada stores %d", h.Dimensions, core.Dim)}
	}
	return rd, nil
}

// Header is the export's header.
func (r *Reader) Header() Header { return r.header }

// next returns the next non-blank line, or io.EOF.
func (r *Reader) next() ([]byte, error) {
	for r.sc.Scan() {
		r.line++
		if b := bytes.TrimSpace(r.sc.Bytes()); len(b) > 0 {
			return b, nil
		}
	}
	if err := r.sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			err = fmt.Errorf("longer than %d bytes", MaxLine)
		}
		return nil, &LineError{Line: r.line + 1, Err: err}
	}
	return nil, io.EOF
}

// Next returns the next record, checked: a document against its type's
// schema, with an embedding of core.Dim when the header says the export has
// vectors (without, Embedding is nil). It returns io.EOF at the end and a
// *LineError for a line that is not a valid record.
func (r *Reader) Next() (Record, error) {
	raw, err := r.next()
	if err != nil {
		return Record{}, err
	}
	rec, err := r.parse(raw)
	if err != nil {
		return Record{}, &LineError{Line: r.line, Err: err}
	}
	rec.Line = r.line
	return rec, nil
}

// NextKind reads the next line for its kind alone (KindDocument,
// KindHistory or whatever the line says), for a count of what an export
// holds: it decodes the line without its vector and applies no other
// rule, so a line Next refuses may pass, but a line Next reads is counted
// as the kind Next gives it. It returns io.EOF at the end and a
// *LineError for a line that is not a JSON object.
func (r *Reader) NextKind() (string, error) {
	raw, err := r.next()
	if err != nil {
		return "", err
	}
	rest, _, _ := splitEmbedding(raw)
	var k struct {
		Kind string `json:"kind"`
	}
	if err := json.Unmarshal(rest, &k); err != nil {
		return "", &LineError{Line: r.line, Err: fmt.Errorf("not a valid line: %w", err)}
	}
	return k.Kind, nil
}

func (r *Reader) parse(raw []byte) (Record, error) {
	var l line
	rest, nums, split := splitEmbedding(raw)
	if err := decodeStrict(rest, &l); err != nil {
		return Record{}, err
	}
	if split {
		if l.Embedding != nil {
			return Record{}, errors.New("not a valid line: two embeddings")
		}
		v, err := parseNumbers(nums)
		if err != nil {
			return Record{}, fmt.Errorf("not a valid line: %w", err)
		}
		l.Embedding = v
	}
	switch l.Kind {
	case KindDocument:
		return r.document(l)
	case KindHistory:
		return history(l)
	case KindHeader:
		return Record{}, errors.New("a second header")
	default:
		return Record{}, fmt.Errorf("unknown kind %q (want %q or %q)", l.Kind, KindDocument, KindHistory)
	}
}

func (r *Reader) document(l line) (Record, error) {
	if l.MemoryID != "" || l.Event != "" || l.Time != nil || l.Reason != "" {
		return Record{}, errors.New("a document has no memory_id, event, timestamp or reason (those are a history entry's)")
	}
	if !r.header.Vectors && l.Embedding != nil {
		return Record{}, errors.New("an embedding in an export whose header says it has no vectors")
	}
	if r.header.Vectors && l.Embedding == nil {
		return Record{}, fmt.Errorf("document %s has no embedding, and the header says the export has vectors", l.ID)
	}
	d := core.Document{ID: l.ID, Text: l.Text, Meta: l.Metadata, Embedding: []float32(l.Embedding)}
	if d.Embedding == nil {
		d.Embedding = r.placeholder
	}
	if err := r.validated.Validate(core.Schemas(), d); err != nil {
		return Record{}, err
	}
	if !r.header.Vectors {
		d.Embedding = nil
	}
	return Record{Document: &d}, nil
}

func history(l line) (Record, error) {
	switch {
	case l.ID != "" || l.Embedding != nil:
		return Record{}, errors.New("a history entry has no id or embedding (it names its memory in memory_id)")
	case !core.ValidDocID(l.MemoryID):
		return Record{}, fmt.Errorf("history entry: memory_id %q must have the form doc-<uuid>", l.MemoryID)
	case l.Event == "":
		return Record{}, fmt.Errorf("history entry of %s: no event", l.MemoryID)
	case l.Time == nil || l.Time.IsZero():
		return Record{}, fmt.Errorf("history entry of %s: no timestamp", l.MemoryID)
	}
	return Record{History: &core.HistoryEntry{MemoryID: l.MemoryID, Event: l.Event, Time: l.Time.UTC(),
		Text: l.Text, Meta: l.Metadata, Reason: core.ScrubRetireReason(l.Event, l.Reason)}}, nil
}

// decodeStrict decodes one JSON value, refusing unknown fields and
// anything after the value.
func decodeStrict(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("not a valid line: %w", err)
	}
	if dec.More() {
		return errors.New("not a valid line: more than one JSON value")
	}
	return nil
}

// splitEmbedding takes the embedding off the end of a line as Writer
// writes it (`...,"embedding":[n,n,...]}`), so that its numbers, most of
// the line, are read once by parseNumbers instead of three times by
// encoding/json (BenchmarkReadDocument: about half the time of a line).
// rest is the line without it; split is false, and rest the line, for any
// other shape. The quote before "embedding" cannot be inside a string
// (there it would be escaped), and the numbers hold no bracket, brace or
// quote, so the cut is the one encoding/json would have made.
func splitEmbedding(raw []byte) (rest, nums []byte, split bool) {
	const key = `,"embedding":[`
	i := bytes.LastIndex(raw, []byte(key))
	if i < 0 || !bytes.HasSuffix(raw, []byte("]}")) {
		return raw, nil, false
	}
	nums = raw[i+len(key) : len(raw)-2]
	if bytes.ContainsAny(nums, `[]{}"`) {
		return raw, nil, false
	}
	return append(raw[:i:i], '}'), nums, true
}

// vector is an embedding as a JSON array of numbers, read by
// parseNumbers when a line does not have the shape splitEmbedding takes.
type vector []float32

func (v *vector) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*v = nil
		return nil
	}
	inner, ok := bytes.CutPrefix(bytes.TrimSpace(b), []byte("["))
	if inner, ok = bytes.CutSuffix(inner, []byte("]")); !ok {
		return errors.New("embedding: want an array of numbers")
	}
	out, err := parseNumbers(inner)
	*v = out
	return err
}

// parseNumbers reads comma-separated float32s.
func parseNumbers(b []byte) ([]float32, error) {
	out := make([]float32, 0, core.Dim)
	for len(bytes.TrimSpace(b)) > 0 {
		num, rest, _ := bytes.Cut(b, []byte(","))
		x, err := strconv.ParseFloat(string(bytes.TrimSpace(num)), 32)
		if err != nil {
			return nil, fmt.Errorf("embedding[%d]: want a number, got %q", len(out), bytes.TrimSpace(num))
		}
		out = append(out, float32(x))
		b = rest
	}
	return out, nil
}
