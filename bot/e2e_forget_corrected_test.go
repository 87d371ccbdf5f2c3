package bot

import (
	"strings"
	"testing"

	"maunium.net/go/mautrix/event"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/llm/llmtest"
)

// testForgetMeTakesCorrectedWords (issue 36, item 5): bob tells a fact,
// alice corrects it (the correction is hers: it retires bob's memory);
// after bob's `!ada forget me` his words are in no history entry, reason,
// turn or stored message, and alice's correction stays.
func (f *roomsFixture) testForgetMeTakesCorrectedWords(t *testing.T) {
	room := f.groupRoom(t, "corrected words")
	f.llm.Handle(func(r llmtest.Request) (llmtest.Reply, bool) {
		if r.Format == nil || len(r.Messages) < 2 {
			return llmtest.Reply{}, false
		}
		_, shown, _ := strings.Cut(r.Messages[len(r.Messages)-1].Content, "The exchange:")
		switch {
		case strings.Contains(shown, "shed code is grubblefax"):
			return llmtest.Reply{Tokens: []string{`{"facts":[{"text":"The shed code is grubblefax","importance":4,"replaces":[]}]}`}}, true
		case strings.Contains(shown, "shed code changed"):
			return llmtest.Reply{Tokens: []string{`{"facts":[{"text":"The shed code is now snorklewump","importance":4,"replaces":["m1"]}]}`}}, true
		}
		return llmtest.Reply{Tokens: []string{`{"facts":[]}`}}, true
	})
	t.Cleanup(func() { f.llm.Handle(nil) })
	f.ask(t, f.bob, room, &event.MessageEventContent{MsgType: event.MsgText, Body: "Ada, the shed code is grubblefax"})
	f.bot.waitMemories(t, room, "bob's fact", holding("grubblefax"))
	f.ask(t, f.alice, room, &event.MessageEventContent{MsgType: event.MsgText, Body: "Ada, the shed code changed"})
	f.bot.waitMemories(t, room, "alice's correction retires bob's fact", func(m []core.Memory) bool {
		return holding("snorklewump")(m) && !holding("grubblefax")(m)
	})
	if n := f.bot.count(`SELECT count(*) FROM memory_history WHERE event = 'retire' AND text LIKE '%grubblefax%'`); n != 1 {
		t.Fatalf("the retired fact should be kept in its history until forgotten: %d", n)
	}

	f.command(t, f.bob, room, "!ada forget me")
	if !holding("snorklewump")(f.bot.roomMemories(t, room)) {
		t.Errorf("alice's correction should stay")
	}
	for _, q := range []string{
		`SELECT count(*) FROM memory_history WHERE text LIKE '%grubblefax%' OR reason LIKE '%grubblefax%' OR metadata LIKE '%grubblefax%'`,
		`SELECT count(*) FROM documents WHERE text LIKE '%grubblefax%'`,
		`SELECT count(*) FROM bridge_messages WHERE text LIKE '%grubblefax%'`,
	} {
		if n := f.bot.count(q); n != 0 {
			t.Errorf("bob's forgotten words are still stored: %s: %d", q, n)
		}
	}
}
