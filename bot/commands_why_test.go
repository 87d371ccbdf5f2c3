package bot

import (
	"strings"
	"testing"

	"github.com/ada-chat/ada/core"
)

// TestWhyNamesTheTimeAsked: `!ada why` says when a memory was raised by the
// time the question names (the search's time_match), and says nothing of
// time for one that was not.
func TestWhyNamesTheTimeAsked(t *testing.T) {
	rank := 1
	match := `written then (2023-05-07), "yesterday"`
	timed := whyChosen(core.ContextItem{Explain: &core.Explanation{VectorRank: &rank, Similarity: 0.8, TimeMatch: match}})
	if !strings.Contains(timed, "of the time asked: "+match) {
		t.Errorf("a memory raised by the time asked: %q", timed)
	}
	if plain := whyChosen(core.ContextItem{Explain: &core.Explanation{VectorRank: &rank, Similarity: 0.8}}); strings.Contains(plain, "time asked") {
		t.Errorf("a memory the time did not raise: %q", plain)
	}
}
