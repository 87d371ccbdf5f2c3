package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

const evalTestFile = "testdata/eval/locomo_small.json"

// evalCounts are the questions per category of evalTestFile, checked by
// hand: category 5 rows and rows without evidence are not asked.
var evalCounts = map[string]int{"1": 2, "2": 3, "3": 2, "4": 5, "overall": 12}

// runEvalCmd runs `ada eval ...` through the real program.
func runEvalCmd(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	return runEvalCmdEnv(t, nil, args...)
}

// runEvalCmdEnv is runEvalCmd with more settings.
func runEvalCmdEnv(t *testing.T, extra map[string]string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	return runEvalWithin(t, 60*time.Second, extra, args...)
}

// runEvalWithin is runEvalCmdEnv with a time limit of its own (a bench's
// run on the LoCoMo file takes minutes on Chroma).
func runEvalWithin(t testing.TB, limit time.Duration, extra map[string]string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	env := testEnv(t, extra)
	var out, errOut bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	err = run(ctx, runEnv{args: append([]string{"eval"}, args...), lookupEnv: mapEnv(env),
		stdout: &out, stderr: &errOut})
	return out.String(), errOut.String(), err
}

func TestEvalRetrievalTable(t *testing.T) {
	out, stderr, err := runEvalCmd(t, "retrieval", evalTestFile)
	if err != nil {
		t.Fatalf("eval: %v\n%s", err, stderr)
	}
	t.Logf("\n%s", out)
	if !strings.Contains(out, "2 samples, 41 turns, 12 questions of categories 1-4 (skipped 2 of category 5, 2 without evidence)") {
		t.Errorf("the summary line is missing or wrong:\n%s", out)
	}
	lines := strings.Split(out, "\n")
	last := -1
	for _, mode := range []string{"vector", "keyword", "hybrid"} {
		at := slices.Index(lines, "mode "+mode)
		if at < 0 || at < last {
			t.Fatalf("no table for mode %s after the previous one:\n%s", mode, out)
		}
		last = at
		header := strings.Fields(lines[at+1])
		want := []string{"category", "questions", "recall@1", "recall@5", "recall@10", "recall@20", "recall@50"}
		if !slices.Equal(header, want) {
			t.Fatalf("mode %s: header %q, want %q", mode, header, want)
		}
		for i, cat := range []string{"1", "2", "3", "4", "overall"} {
			row := strings.Fields(lines[at+2+i])
			if len(row) != len(want) || row[0] != cat || row[1] != strconv.Itoa(evalCounts[cat]) {
				t.Fatalf("mode %s: row %q, want category %s with %d questions", mode, row, cat, evalCounts[cat])
			}
			prev := 0.0
			for _, cell := range row[2:] {
				r, err := strconv.ParseFloat(cell, 64)
				if err != nil || r < prev || r > 1 {
					t.Fatalf("mode %s category %s: recalls %q must be numbers in [0,1], growing with k", mode, cat, row[2:])
				}
				prev = r
			}
		}
		if !strings.HasPrefix(lines[at+7], "search latency per question (embedding it included): p50 ") {
			t.Fatalf("mode %s: no latency line, got %q", mode, lines[at+7])
		}
	}
	if !strings.Contains(stderr, "1 evidence ids match no turn and were ignored: D9:99\n") {
		t.Errorf("the unknown evidence id must be reported on stderr:\n%s", stderr)
	}
	if !strings.Contains(stderr, "1 session dates unreadable") {
		t.Errorf("the unreadable session date must be reported on stderr:\n%s", stderr)
	}
}

func TestEvalRetrievalJSON(t *testing.T) {
	out, stderr, err := runEvalCmd(t, "retrieval", "--json", evalTestFile)
	if err != nil {
		t.Fatalf("eval: %v\n%s", err, stderr)
	}
	var got map[string]map[string]map[string]float64
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("stdout must be one JSON object and nothing else: %v\n%s", err, out)
	}
	for _, mode := range []string{"vector", "keyword", "hybrid"} {
		m, ok := got[mode]
		if !ok || len(m) != len(evalCounts)+1 {
			t.Fatalf("mode %s: %v, want the categories, overall and latency_ms", mode, m)
		}
		for cat, n := range evalCounts {
			row := m[cat]
			if row["questions"] != float64(n) {
				t.Errorf("mode %s category %s: %v questions, want %d", mode, cat, row["questions"], n)
			}
			for _, k := range []string{"recall@1", "recall@5", "recall@10", "recall@20", "recall@50"} {
				if r, ok := row[k]; !ok || r < 0 || r > 1 {
					t.Errorf("mode %s category %s: %s = %v (present %v)", mode, cat, k, r, ok)
				}
			}
		}
		lat := m["latency_ms"]
		if _, ok := lat["p50"]; !ok || lat["p95"] < lat["p50"] {
			t.Errorf("mode %s: latency_ms %v, want p50 <= p95", mode, lat)
		}
	}
}

// A case small enough to check by hand: four turns, two questions whose
// evidence turns share their rare words.
const evalTinyFile = `[{"sample_id": "tiny", "conversation": {
  "speaker_a": "Anna", "speaker_b": "Ben",
  "session_1_date_time": "9:00 am on 3 March, 2024",
  "session_1": [
    {"speaker": "Anna", "dia_id": "D1:1", "text": "My sister Philippa moved to Reykjavik in March."},
    {"speaker": "Ben", "dia_id": "D1:2", "text": "The garage door is broken again."},
    {"speaker": "Anna", "dia_id": "D1:3", "text": "I baked sourdough bread with rosemary."},
    {"speaker": "Ben", "dia_id": "D1:4", "text": "I watched a documentary about octopuses."}]},
 "qa": [
  {"question": "Where did Anna's sister Philippa move to?", "answer": "Reykjavik", "evidence": ["D1:1"], "category": 4},
  {"question": "What did Anna bake with rosemary, and which documentary did Ben watch?", "answer": "sourdough; octopuses", "evidence": ["D1:03", "D1:4"], "category": 1}]}]`

func TestEvalRetrievalExactRecall(t *testing.T) {
	file := filepath.Join(t.TempDir(), "tiny.json")
	if err := os.WriteFile(file, []byte(evalTinyFile), 0o600); err != nil {
		t.Fatal(err)
	}
	// Flags before and after FILE.
	out, stderr, err := runEvalCmd(t, "retrieval", "--mode", "vector", file, "--k", "50,1,2", "--json")
	if err != nil {
		t.Fatalf("eval: %v\n%s", err, stderr)
	}
	var got map[string]map[string]map[string]float64
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(got) != 1 || got["vector"] == nil {
		t.Fatalf("--mode vector must run only vector: %s", out)
	}
	want := map[string]map[string]float64{
		// The one evidence turn shares the question's rare words: first.
		"4": {"questions": 1, "recall@1": 1, "recall@2": 1, "recall@50": 1},
		// Two evidence turns: one fits in the top 1; k = 50 covers every turn.
		"1":       {"questions": 1, "recall@1": 0.5, "recall@2": 1, "recall@50": 1},
		"overall": {"questions": 2, "recall@1": 0.75, "recall@2": 1, "recall@50": 1},
	}
	for cat, w := range want {
		for k, v := range w {
			if got["vector"][cat][k] != v {
				t.Errorf("category %s: %s = %v, want %v\n%s", cat, k, got["vector"][cat][k], v, out)
			}
		}
	}
	if _, ok := got["vector"]["2"]; ok {
		t.Errorf("a category without questions must be left out: %s", out)
	}
}

func TestEvalNormaliseDiaID(t *testing.T) {
	for in, want := range map[string]string{
		"D3:12": "D3:12", "D:11:26": "D11:26", "D30:05": "D30:5", " D8:6 ": "D8:6", "d2: 7": "D2:7",
	} {
		if got, ok := normaliseDiaID(in); !ok || got != want {
			t.Errorf("normaliseDiaID(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "D3", "S1:2", "D1:x", "D1:2:3"} {
		if got, ok := normaliseDiaID(in); ok {
			t.Errorf("normaliseDiaID(%q) = %q, want not a dialogue id", in, got)
		}
	}
}

func TestEvalLoadLoCoMo(t *testing.T) {
	samples, st, err := loadLoCoMo(evalTestFile)
	if err != nil {
		t.Fatal(err)
	}
	if len(samples) != 2 || samples[0].ID != "melanie-tomasz" || samples[1].ID != "sample-2" {
		t.Fatalf("samples %d, ids %q %q", len(samples), samples[0].ID, samples[1].ID)
	}
	s := samples[0]
	// Sessions by number (1, 2, 10), not by key order.
	wantOrder := []string{"D1:1", "D1:2", "D1:3", "D1:4", "D1:5", "D1:6", "D1:7", "D1:8",
		"D2:1", "D2:2", "D2:3", "D2:4", "D2:5", "D2:6", "D2:7", "D10:1", "D10:2", "D10:3", "D10:4", "D10:5", "D10:6"}
	if !slices.Equal(s.DiaIDs, wantOrder) {
		t.Fatalf("turn order %q", s.DiaIDs)
	}
	if tu := s.Turns[1]; tu.Role != "assistant" || tu.Speaker != "Tomasz" || tu.Text != "That's great! I spent the weekend fixing my old motorbike, a 1978 Jawa." ||
		!tu.Time.Equal(time.Date(2023, 5, 8, 13, 56, 1, 0, time.UTC)) {
		t.Errorf("second turn %+v", tu)
	}
	if tu := s.Turns[4]; tu.Role != "user" || !strings.HasSuffix(tu.Text, "in the garden yesterday. [shares a photo: a colorful mural of sunflowers on a garden wall]") {
		t.Errorf("a turn with a photo: %+v", tu)
	}
	// Session 10's date is unreadable: it follows session 2 by an hour.
	if got, want := s.Turns[15].Time, s.Turns[14].Time.Add(time.Hour); !got.Equal(want) {
		t.Errorf("session 10 starts at %v, want %v", got, want)
	}
	for i := 1; i < len(s.Turns); i++ {
		if !s.Turns[i].Time.After(s.Turns[i-1].Time) {
			t.Errorf("turn %d (%v) is not after turn %d (%v)", i, s.Turns[i].Time, i-1, s.Turns[i-1].Time)
		}
	}
	evidence := map[string][]string{}
	for _, sm := range samples {
		for _, q := range sm.Questions {
			evidence[q.Text] = q.Evidence
		}
	}
	for q, want := range map[string][]string{
		"What has Melanie made in her pottery class?":         {"D2:4", "D10:3"},
		"In which city did Tomasz's grandfather ride a Jawa?": {"D1:4"},
		"When did Melanie go camping at Lake Tahoe?":          {"D1:7", "D10:1"},
		"Why did Jon and Gina both start businesses?":         {"D1:1", "D1:2"},
		"When did the winter collection sell out?":            {"D3:1"},
	} {
		if !slices.Equal(evidence[q], want) {
			t.Errorf("%q: evidence %q, want %q", q, evidence[q], want)
		}
	}
	if st.Turns != 41 || st.SkippedCategory != 2 || st.SkippedNoEvid != 2 || !slices.Equal(st.UnknownIDs, []string{"D9:99"}) || st.BadDates != 1 {
		t.Errorf("load stats %+v", st)
	}
}

func TestEvalParseSessionTime(t *testing.T) {
	for in, want := range map[string]time.Time{
		"1:56 pm on 8 May, 2023":      time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC),
		"10:37 am on 27 June, 2023":   time.Date(2023, 6, 27, 10, 37, 0, 0, time.UTC),
		"2:32 PM on 29 January 2023":  time.Date(2023, 1, 29, 14, 32, 0, 0, time.UTC),
		" 7:05 pm  on 3 Sep, 2022 ":   time.Date(2022, 9, 3, 19, 5, 0, 0, time.UTC),
		"2023-02-12 18:00":            time.Date(2023, 2, 12, 18, 0, 0, 0, time.UTC),
		"2023-02-12T18:00:00+02:00":   time.Date(2023, 2, 12, 16, 0, 0, 0, time.UTC),
		"12 March 2021":               time.Date(2021, 3, 12, 0, 0, 0, 0, time.UTC),
		"8:00 am on October 11, 2023": time.Date(2023, 10, 11, 8, 0, 0, 0, time.UTC),
	} {
		if got, ok := parseSessionTime(in); !ok || !got.Equal(want) {
			t.Errorf("parseSessionTime(%q) = %v, %v; want %v", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "sometime in July", "yesterday"} {
		if got, ok := parseSessionTime(in); ok {
			t.Errorf("parseSessionTime(%q) = %v, want unreadable", in, got)
		}
	}
}

func TestEvalRetrievalErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	bad := write("bad.json", `{"not": "an array"`)
	empty := write("empty.json", `[]`)
	noQuestions := write("noq.json", `[{"conversation": {"speaker_a": "A", "speaker_b": "B",
		"session_1": [{"speaker": "A", "dia_id": "D1:1", "text": "hi"}]},
		"qa": [{"question": "?", "evidence": ["D7:7"], "category": 1}, {"question": "??", "evidence": ["D1:1"], "category": 5}]}]`)
	noSessions := write("nosess.json", `[{"conversation": {"speaker_a": "A"}, "qa": []}]`)
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "ada eval retrieval FILE"},
		{[]string{"recall"}, `unknown evaluation "recall"`},
		{[]string{"retrieval"}, "no FILE given"},
		{[]string{"retrieval", filepath.Join(dir, "missing.json")}, "no such file"},
		{[]string{"retrieval", bad}, "is not a LoCoMo benchmark"},
		{[]string{"retrieval", empty}, "holds no samples"},
		{[]string{"retrieval", noQuestions}, "no question of categories 1-4 with evidence"},
		{[]string{"retrieval", noSessions}, "sample 1: conversation has no session_N"},
		{[]string{"retrieval", evalTestFile, "--mode", "bm25"}, `--mode "bm25": must be vector, keyword, hybrid or all`},
		{[]string{"retrieval", evalTestFile, "--k", "1,0"}, `--k "1,0"`},
		{[]string{"retrieval", evalTestFile, "--frobnicate"}, "flag provided but not defined"},
		{[]string{"retrieval", evalTestFile, evalTestFile}, "one FILE, not 2"},
	} {
		out, _, err := runEvalCmd(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ada eval %q: error %v, want one containing %q", c.args, err, c.want)
		}
		if out != "" {
			t.Errorf("ada eval %q printed on stdout:\n%s", c.args, out)
		}
	}
}

func TestEvalRetrievalHelp(t *testing.T) {
	for _, args := range [][]string{{"retrieval", "--help"}, {"chat", "-h"}, {"--help"}} {
		out, _, err := runEvalCmd(t, args...)
		if err != nil || !strings.HasPrefix(out, "usage: ada eval chat FILE") || !strings.Contains(out, "ada eval retrieval FILE") {
			t.Errorf("ada eval %q: %v\n%s", args, err, out)
		}
	}
}
