package bot

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"maunium.net/go/mautrix/event"

	"github.com/ada-chat/ada/bot/bottest"
	"github.com/ada-chat/ada/core/llm/llmtest"
)

// BenchmarkBridgeFirstText measures, on a real Dendrite, how long a member
// waits for the first visible text of an answer with STREAM_EDITS off and
// on, with a model that writes 20 tokens a second (a 60-token answer, its
// first sentence after 8 tokens), and how long until ✅. Run it with
//
//	go test -tags goolm,sqlite_fts5 -run '^$' -bench BridgeFirstText -benchtime 1x ./bot/
func BenchmarkBridgeFirstText(b *testing.B) {
	hs := bottest.StartHomeserver(b)
	llm := llmtest.New(b)
	tokens := []string{"Foxes", " are", " small", " wild", " dogs", " of", " the", " woods."}
	for len(tokens) < 60 {
		tokens = append(tokens, " They")
	}
	llm.Default(llmtest.Reply{Tokens: tokens, ChunkDelay: 50 * time.Millisecond})
	const questions = 5
	for _, on := range []bool{false, true} {
		acct := bottest.RegisterAccount(b, hs, fmt.Sprintf("ada%t", on))
		startBot(b, botSettings(hs, llm, acct, b.TempDir(), func(s *botSetup) {
			s.LogLevel = slog.LevelInfo
			s.Stream = StreamOptions{On: on, Interval: time.Second, MaxEdits: 30}
		}))
		m := bottest.NewMember(b, hs, fmt.Sprintf("reader%t", on), false)
		room := dmWith(m, acct.UserID)
		var first, done []time.Duration
		for i := 0; i < questions; i++ {
			l := bottest.AskAndTime(m, room, acct.UserID, fmt.Sprintf("question %d", i))
			first = append(first, l.Reply)
			asked := m.Find(func(e *event.Event) bool {
				return e.Sender == m.Client.UserID && e.Content.AsMessage().Body == fmt.Sprintf("question %d", i)
			})[0]
			ok := m.Wait("✅", bottest.ReactionTo(asked.ID, reactDone))
			done = append(done, m.ArrivedAt(ok.ID).Sub(m.ArrivedAt(asked.ID)))
		}
		b.Logf("STREAM_EDITS=%-5t first text %s | ✅ %s", on,
			strings.TrimSpace(bottest.Summarize(first).String()), strings.TrimSpace(bottest.Summarize(done).String()))
	}
}
