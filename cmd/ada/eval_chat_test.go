package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
)

// TestEvalChatReplaysAndMeasuresThePrompt runs `ada eval chat` on the small
// file: with recall off, only the recent window (the last two exchanges)
// can hold evidence, which fixes the expected shares exactly; recall at the
// defaults must add evidence from earlier sessions.
func TestEvalChatReplaysAndMeasuresThePrompt(t *testing.T) {
	out, stderr, err := runEvalCmd(t, "chat", evalTestFile, "--recall-k", "0,default", "--json")
	if err != nil {
		t.Fatalf("eval: %v\n%s", err, stderr)
	}
	var got map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	type row struct {
		Questions int     `json:"questions"`
		Evidence  float64 `json:"evidence_in_prompt"`
	}
	read := func(setting string) map[string]row {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(got[setting], &m); err != nil {
			t.Fatalf("%s: %v\n%s", setting, err, out)
		}
		rows := map[string]row{}
		for _, c := range []string{"1", "2", "3", "4", "overall"} {
			var r row
			if err := json.Unmarshal(m[c], &r); err != nil {
				t.Fatalf("%s %s: %v\n%s", setting, c, err, out)
			}
			if r.Questions != evalCounts[c] {
				t.Errorf("%s: category %s has %d questions, want %d", setting, c, r.Questions, evalCounts[c])
			}
			rows[c] = r
		}
		return rows
	}
	off, def := read("recall_k=0"), read("defaults")
	// Category 1: "What has Melanie made in her pottery class?" has one of
	// its two lines (D10:3) in the last two exchanges; the other category-1
	// question's lines are in the first session.
	if off["1"].Evidence != 0.25 {
		t.Errorf("recall off: category 1 = %v, want 0.25 (one line of two, of two questions)\n%s", off["1"].Evidence, out)
	}
	for _, c := range []string{"2", "3", "4"} {
		if off[c].Evidence != 0 {
			t.Errorf("recall off: category %s = %v, want 0: no evidence is in the last two exchanges\n%s", c, off[c].Evidence, out)
		}
	}
	if def["overall"].Evidence <= off["overall"].Evidence {
		t.Errorf("recall at the defaults found no more evidence (%v) than without recall (%v)\n%s", def["overall"].Evidence, off["overall"].Evidence, out)
	}
	if !strings.Contains(stderr, "lines replayed as") {
		t.Errorf("no replay progress on stderr:\n%s", stderr)
	}
}

func TestEvalChatTable(t *testing.T) {
	out, stderr, err := runEvalCmd(t, "chat", evalTestFile)
	if err != nil {
		t.Fatalf("eval: %v\n%s", err, stderr)
	}
	for _, want := range []string{"setting defaults", "setting recall_k=10", "evidence in prompt", "prompt: median", "replayed in"} {
		if !strings.Contains(out, want) {
			t.Errorf("the table lacks %q:\n%s", want, out)
		}
	}
	if _, _, err := runEvalCmd(t, "chat", evalTestFile, "--recall-k", "99"); err == nil || !strings.Contains(err.Error(), "--recall-k") {
		t.Errorf("--recall-k 99: error %v, want one naming --recall-k", err)
	}
}

func TestExchangesOf(t *testing.T) {
	at := func(s int) time.Time { return time.Date(2023, 5, 1, 0, 0, s, 0, time.UTC) }
	turns := []core.ImportedTurn{
		{Role: "assistant", Text: "hi", Speaker: "B", Time: at(1)},
		{Role: "user", Text: "one", Speaker: "A", Time: at(2)},
		{Role: "user", Text: "two", Speaker: "A", Time: at(3)},
		{Role: "assistant", Text: "three", Speaker: "B", Time: at(4)},
		{Role: "user", Text: "last", Speaker: "A", Time: at(5)},
	}
	// The user's speaker is the request's; the assistant's lines name theirs.
	got := exchangesOf(turns)
	want := []exchange{
		{prompt: "Hello.", reply: "B: hi", userTime: at(1), replyTime: at(1)},
		{prompt: "one\ntwo", speaker: "A", reply: "B: three", userTime: at(2), replyTime: at(4)},
		{prompt: "last", speaker: "A", reply: "I see.", userTime: at(5), replyTime: at(6)},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d exchanges, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("exchange %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}
