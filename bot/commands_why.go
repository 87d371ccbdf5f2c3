package bot

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ada-chat/ada/core"
)

// cmdWhy shows what the room's last answer used, each item with its date,
// score and why it was chosen.
func (cs *commands) cmdWhy(ctx context.Context, c *commandEvent) (string, error) {
	rt := cs.rooms.get(c.evt.RoomID)
	if rt.lastAnswer == nil { // kept from before a restart?
		rt.lastAnswer = loadWhy(ctx, cs.bridge, cs.log, c.evt.RoomID)
	}
	last := rt.lastAnswer
	if last == nil {
		// Not "I have not answered": a redaction, an edit or a forget may
		// have taken the last answer back (issue 40 item 15).
		return "I have no answer here to explain: none yet, or my last one was taken back " +
			"(a redaction, an edit or a forget removed it, or something it used).", nil
	}
	return whyText(last), nil
}

// whyListed bounds the lines of each section of `!ada why`: a long
// recall reads as a wall of lines, one per turn (issue 40 item 15).
const whyListed = 8

// whyText is `!ada why`'s answer about the last answer.
func whyText(last *lastAnswer) string {
	u := last.used
	var out strings.Builder
	fmt.Fprintf(&out, "**What my last answer used** (to %s, %s: “%s”)\n", last.asker, last.at.UTC().Format("2006-01-02 15:04 UTC"), oneLine(last.question, 120))
	section := func(title string, items []core.ContextItem, line func(core.ContextItem) string) {
		if len(items) == 0 {
			return
		}
		fmt.Fprintf(&out, "\n%s (%d):\n", title, len(items))
		for i, it := range items[:min(len(items), whyListed)] {
			fmt.Fprintf(&out, "%d. %s\n", i+1, line(it))
		}
		if more := len(items) - whyListed; more > 0 {
			fmt.Fprintf(&out, "…and %d more.\n", more)
		}
	}
	section("Memories", u.Memories, func(it core.ContextItem) string {
		return fmt.Sprintf("“%s” — saved %s · score %s · %s", oneLine(it.Text, 200), dateOf(it.Timestamp), num(it.Score), whyChosen(it))
	})
	var recalled, recent []core.ContextItem
	for _, t := range u.Turns {
		if t.Reason == core.ReasonRecalled || t.Reason == core.ReasonNeighbour {
			recalled = append(recalled, t)
		} else {
			recent = append(recent, t)
		}
	}
	section("Recalled from earlier in the conversation", recalled, func(it core.ContextItem) string {
		if it.Reason == core.ReasonNeighbour {
			return fmt.Sprintf("%s, %s: “%s” · next to a recalled message", roleName(it.Role), dateOf(it.Timestamp), oneLine(it.Text, 160))
		}
		return fmt.Sprintf("%s, %s: “%s” · score %s · %s", roleName(it.Role), dateOf(it.Timestamp), oneLine(it.Text, 160), num(it.Score), whyChosen(it))
	})
	section("Summaries", u.Summaries, func(it core.ContextItem) string {
		return fmt.Sprintf("%s, written %s: “%s” · %s", turnsLabel(it.TurnRange), dateOf(it.Timestamp), oneLine(it.Text, 300), summaryWhy(it))
	})
	section("FAQ", u.FAQs, func(it core.ContextItem) string {
		return fmt.Sprintf("“%s” · similarity %s · %s", oneLine(it.Text, 120), num(it.Similarity), whyChosen(it))
	})
	if len(recent) > 0 {
		fmt.Fprintf(&out, "\nThe %d most recent turns of this conversation, as they were.\n", len(recent))
	}
	if len(u.Memories)+len(recalled)+len(u.Summaries)+len(u.FAQs) == 0 {
		out.WriteString("\nNo memory, recalled turn, summary or FAQ: only the recent conversation and this room's messages.\n")
	}
	return strings.TrimSpace(out.String())
}

// turnsLabel names the turns a summary covers as members count them, from
// one: the stored range "0-3" (from zero) is "turns 1–4".
func turnsLabel(turnRange string) string {
	first, last, ok := strings.Cut(turnRange, "-")
	a, errA := strconv.Atoi(first)
	b, errB := strconv.Atoi(last)
	switch {
	case !ok || errA != nil || errB != nil:
		if turnRange == "" {
			return "a summary"
		}
		return "turns " + turnRange
	case a == b:
		return fmt.Sprintf("turn %d", a+1)
	}
	return fmt.Sprintf("turns %d–%d", a+1, b+1)
}

func roleName(role string) string {
	if role == "assistant" {
		return "my answer"
	}
	return "a message"
}

func summaryWhy(it core.ContextItem) string {
	if it.Reason == core.ReasonRecalled {
		return fmt.Sprintf("score %s · %s", num(it.Score), whyChosen(it))
	}
	return "the latest summary of this conversation"
}

// whyChosen turns a search's explanation into words: by meaning, by the
// words it shares with the question, or both; and the time the question
// names that it is of, when that raised it.
func whyChosen(it core.ContextItem) string {
	ex := it.Explain
	if ex == nil {
		return "recent"
	}
	var why []string
	if ex.VectorRank != nil {
		why = append(why, fmt.Sprintf("close in meaning (similarity %.2f, rank %d)", ex.Similarity, *ex.VectorRank))
	}
	if ex.KeywordRank != nil {
		why = append(why, fmt.Sprintf("shares words with the question (keyword rank %d)", *ex.KeywordRank))
	}
	if len(why) == 0 {
		why = append(why, fmt.Sprintf("relevance %.2f", ex.Relevance))
	}
	s := strings.Join(why, " and ")
	if ex.ImportanceTerm != nil && it.Importance > 0 {
		s += fmt.Sprintf("; importance %d/5", it.Importance)
	}
	if ex.TimeMatch != "" {
		s += "; of the time asked: " + ex.TimeMatch
	}
	return s
}

func num(f *float64) string {
	if f == nil {
		return "–"
	}
	return strconv.FormatFloat(*f, 'f', 2, 64)
}

// dateOf shows the date of an ISO 8601 timestamp.
func dateOf(ts string) string {
	if t, err := time.Parse(time.RFC3339Nano, ts); err == nil {
		return t.UTC().Format("2006-01-02")
	}
	if len(ts) >= 10 {
		return ts[:10]
	}
	return "unknown date"
}
