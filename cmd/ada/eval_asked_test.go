package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// Three sessions a week apart in May 2023. The bread baked "last week" is
// the longer, less relevant line of the second session (8 May); the conversation
// ends on Monday 15 May, so last week is 8 to 14 May.
const evalLastWeekFile = `[{"sample_id": "last-week", "conversation": {
  "speaker_a": "Anna", "speaker_b": "Ben",
  "session_1_date_time": "9:00 am on 1 May, 2023",
  "session_1": [
    {"speaker": "Anna", "dia_id": "D1:1", "text": "I baked bread with my sister."},
    {"speaker": "Ben", "dia_id": "D1:2", "text": "Nice."}],
  "session_2_date_time": "9:00 am on 8 May, 2023",
  "session_2": [
    {"speaker": "Anna", "dia_id": "D2:1", "text": "I baked bread with my sister again, golden."},
    {"speaker": "Ben", "dia_id": "D2:2", "text": "Lovely."}],
  "session_3_date_time": "9:00 am on 15 May, 2023",
  "session_3": [
    {"speaker": "Anna", "dia_id": "D3:1", "text": "The weather is grey."},
    {"speaker": "Ben", "dia_id": "D3:2", "text": "It is."}]},
 "qa": [
  {"question": "What did Anna bake with her sister last week?", "answer": "bread", "evidence": ["D2:1"], "category": 2}]}]`

// TestEvalAsksAtTheEndOfTheConversation: `ada eval retrieval` resolves a
// question's "last week" against the end of the conversation, not against
// the day it runs, so the turn of that week ranks first.
func TestEvalAsksAtTheEndOfTheConversation(t *testing.T) {
	file := filepath.Join(t.TempDir(), "last-week.json")
	if err := os.WriteFile(file, []byte(evalLastWeekFile), 0o600); err != nil {
		t.Fatal(err)
	}
	out, stderr, err := runEvalCmd(t, "retrieval", "--mode", "hybrid", "--k", "1", "--json", file)
	if err != nil {
		t.Fatalf("eval: %v\n%s", err, stderr)
	}
	var got map[string]map[string]map[string]float64
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if r := got["hybrid"]["2"]["recall@1"]; r != 1 {
		t.Errorf("recall@1 of the last-week question = %v, want 1 (the turn of 8 May first)\n%s", r, out)
	}
}
