package jsonl

import (
	"bytes"
	"io"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/storage/storagetest"
)

func testDoc(vec []float32) core.Document {
	return core.Document{ID: core.NewDocID(), Text: "Sam's bike is <red> & fast", Embedding: vec,
		Meta: core.Metadata{Type: core.DocMemory, Timestamp: time.Date(2025, 3, 1, 12, 0, 0, 123456789, time.UTC),
			Source: core.SourceChat, Scope: core.ScopeGlobal, Importance: 3, Tags: []string{"bike"}}}
}

// TestRoundTripIsBitExact: every float32, however small, large or
// negative, reads back with the same bits; metadata and history as written.
func TestRoundTripIsBitExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	vec := storagetest.EveryKindOfFloat32(rng)
	d := testDoc(vec)
	h := core.HistoryEntry{MemoryID: d.ID, Event: core.HistoryPatch, Time: d.Meta.Timestamp.Add(time.Nanosecond), Text: d.Text, Meta: d.Meta, Reason: "a patch"}
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Header{Embedder: "hash:v1", Dimensions: core.Dim, Vectors: true, Documents: 1, History: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteDocument(d); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteHistory(h); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	r, err := NewReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if r.Header().Embedder != "hash:v1" || r.Header().Documents != 1 {
		t.Fatalf("header %+v", r.Header())
	}
	rec, err := r.Next()
	if err != nil || rec.Document == nil || rec.Line != 2 {
		t.Fatalf("first record %+v: %v", rec, err)
	}
	for i, x := range rec.Document.Embedding {
		if math.Float32bits(x) != math.Float32bits(vec[i]) {
			t.Fatalf("embedding[%d] = %v, want %v", i, x, vec[i])
		}
	}
	if rec.Document.Text != d.Text || !rec.Document.Meta.Timestamp.Equal(d.Meta.Timestamp) || rec.Document.Meta.Tags[0] != "bike" {
		t.Fatalf("document %+v", rec.Document)
	}
	rec, err = r.Next()
	if err != nil || rec.History == nil || rec.History.Reason != "a patch" || !rec.History.Time.Equal(h.Time) {
		t.Fatalf("second record %+v: %v", rec, err)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("after the last line: %v, want io.EOF", err)
	}
}

func TestReaderNamesTheBadLine(t *testing.T) {
	header := `{"kind":"header","format":"ada-export","version":1,"embedder":"hash:v1","dimensions":768,"vectors":false}` + "\n"
	for name, tc := range map[string]struct{ input, want string }{
		"empty":          {"", "line 1: the input is empty"},
		"no header":      {`{"kind":"document"}` + "\n", "line 1: not an Ada export"},
		"newer version":  {strings.Replace(header, `"version":1`, `"version":2`, 1), "line 1: export format version 2"},
		"second header":  {header + "\n" + header, "line 3: not a valid line"},
		"bad embedding":  {strings.Replace(header, "false", "true", 1) + `{"kind":"document","id":"doc-00000000-0000-4000-8000-000000000000","text":"x","metadata":{},"embedding":["a"]}`, `line 2: not a valid line: embedding[0]: want a number, got "\"a\""`},
		"vector, none":   {header + `{"kind":"document","id":"doc-00000000-0000-4000-8000-000000000000","text":"x","metadata":{},"embedding":[1]}`, "line 2: an embedding in an export whose header says it has no vectors"},
		"history no id":  {header + `{"kind":"history","memory_id":"m1","event":"create","timestamp":"2025-01-01T00:00:00Z","text":"x","metadata":{}}`, `line 2: history entry: memory_id "m1"`},
		"history no ts":  {header + `{"kind":"history","memory_id":"doc-00000000-0000-4000-8000-000000000000","event":"create","text":"x","metadata":{}}`, "line 2: history entry of doc-00000000-0000-4000-8000-000000000000: no timestamp"},
		"two values":     {header + `{"kind":"history"} {}`, "line 2: not a valid line: more than one JSON value"},
		"bad doc schema": {header + `{"kind":"document","id":"doc-00000000-0000-4000-8000-000000000000","text":"x","metadata":{"type":"memory"}}`, "line 2: memory metadata is invalid"},
	} {
		t.Run(name, func(t *testing.T) {
			r, err := NewReader(strings.NewReader(tc.input))
			if err == nil {
				for err == nil {
					_, err = r.Next()
				}
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("%v, want an error with %q", err, tc.want)
			}
		})
	}
}

// TestNextKindCountsWhatNextReads: the kinds NextKind gives are those of
// the records Next reads, for lines as Writer writes them and as a person
// might (fields in another order, the key's case changed, a vector not
// last); a line that is not JSON is a *LineError naming it.
func TestNextKindCountsWhatNextReads(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Header{Embedder: "hash:v1", Dimensions: core.Dim, Vectors: true})
	if err != nil {
		t.Fatal(err)
	}
	d := testDoc(storagetest.EveryKindOfFloat32(rand.New(rand.NewPCG(1, 2))))
	w.WriteDocument(d)
	w.WriteHistory(core.HistoryEntry{MemoryID: d.ID, Event: core.HistoryCreate, Time: d.Meta.Timestamp, Text: d.Text, Meta: d.Meta})
	w.Flush()
	lines := strings.SplitAfter(buf.String(), "\n")
	vec := lines[1][strings.Index(lines[1], `"embedding":`):strings.LastIndex(lines[1], "}")]
	reordered := `{` + vec + `,"id":"` + d.ID + `","metadata":` + lines[1][strings.Index(lines[1], `"metadata":`)+len(`"metadata":`):strings.Index(lines[1], `,"embedding":`)] + `,"text":"x","KIND":"document"}` + "\n"
	input := lines[0] + lines[1] + "\n" + lines[2] + reordered
	full, err := NewReader(strings.NewReader(input))
	if err != nil {
		t.Fatal(err)
	}
	kinds, err := NewReader(strings.NewReader(input))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		rec, err := full.Next()
		kind, kerr := kinds.NextKind()
		if err == io.EOF {
			if kerr != io.EOF {
				t.Fatalf("NextKind after the last record: %q, %v, want io.EOF", kind, kerr)
			}
			break
		}
		if err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		want := KindHistory
		if rec.Document != nil {
			want = KindDocument
		}
		if kerr != nil || kind != want {
			t.Errorf("record %d (line %d): NextKind %q, %v, want %q", i, rec.Line, kind, kerr, want)
		}
	}

	cut, err := NewReader(strings.NewReader(lines[0] + lines[1][:len(lines[1])/2] + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cut.NextKind(); err == nil || !strings.Contains(err.Error(), "line 2: not a valid line") {
		t.Errorf("NextKind of a line cut in half: %v, want a line error", err)
	}
}
