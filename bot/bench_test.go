package bot

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"maunium.net/go/mautrix"
	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/bot/bottest"
	"github.com/ada-chat/ada/core/llm/llmtest"
)

// BenchmarkBridgeLatency measures, on loopback with the scripted instant
// LLM and a real Dendrite, the time from a member's send to the bot's 🧠
// reaction and to its reply: 100 messages one after another in one room,
// then 20 rooms talking at once (5 messages each). Run it with
//
//	go test -tags goolm -run '^$' -bench BridgeLatency -benchtime 1x ./bot/
func BenchmarkBridgeLatency(b *testing.B) {
	hs := bottest.StartHomeserver(b)
	llm := llmtest.New(b)
	llm.Instant(true)
	llm.Default(llmtest.Reply{Tokens: []string{"a short ", "answer"}})
	acct := bottest.RegisterAccount(b, hs, "ada")
	startBot(b, botSettings(hs, llm, acct, b.TempDir(), map[string]string{"LOG_LEVEL": "INFO"}))

	const rooms, perRoom, sequential = 20, 5, 100
	solo := bottest.NewMember(b, hs, "solo", false)
	soloRoom := dmWithBot(b, solo, acct.UserID)
	talkers := make([]*bottest.Member, rooms)
	talkRooms := make([]id.RoomID, rooms)
	for i := range talkers {
		talkers[i] = bottest.NewMember(b, hs, fmt.Sprintf("talker%d", i), false)
		talkRooms[i] = dmWithBot(b, talkers[i], acct.UserID)
	}
	bottest.AskAndTime(solo, soloRoom, acct.UserID, "warm-up")
	// Baseline: one homeserver hop (a member's send reaching another member),
	// with no bot involved. A 🧠 costs two hops plus the bot's own work.
	listener := bottest.NewMember(b, hs, "listener", false)
	plain := solo.CreateRoom(&mautrix.ReqCreateRoom{Invite: []id.UserID{listener.Client.UserID}})
	listener.Join(plain)

	for b.Loop() {
		var hops []time.Duration
		for i := 0; i < 20; i++ {
			start := time.Now()
			sent := solo.Say(plain, fmt.Sprintf("ping %d", i))
			listener.Wait("ping", func(e *event.Event) bool { return e.ID == sent })
			hops = append(hops, listener.ArrivedAt(sent).Sub(start))
		}
		b.Logf("%-14s %s", "one-hop", bottest.Summarize(hops))
		var seq []bottest.Latency
		for i := 0; i < sequential; i++ {
			seq = append(seq, bottest.AskAndTime(solo, soloRoom, acct.UserID, fmt.Sprintf("question %d", i)))
		}
		var mu sync.Mutex
		var conc []bottest.Latency
		var wg sync.WaitGroup
		began := time.Now()
		for i := range talkers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := 0; j < perRoom; j++ {
					l := bottest.AskAndTime(talkers[i], talkRooms[i], acct.UserID, fmt.Sprintf("room %d question %d", i, j))
					mu.Lock()
					conc = append(conc, l)
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		wall := time.Since(began)

		sr, sp := bottest.Split(seq)
		cr, cp := bottest.Split(conc)
		report := map[string]bottest.Percentiles{
			"seq-react": bottest.Summarize(sr), "seq-reply": bottest.Summarize(sp),
			"20rooms-react": bottest.Summarize(cr), "20rooms-reply": bottest.Summarize(cp),
		}
		for _, k := range []string{"seq-react", "seq-reply", "20rooms-react", "20rooms-reply"} {
			b.Logf("%-14s %s", k, report[k])
			b.ReportMetric(float64(report[k].P50.Microseconds())/1000, k+"-p50-ms")
			b.ReportMetric(float64(report[k].P99.Microseconds())/1000, k+"-p99-ms")
		}
		b.Logf("20 rooms x %d messages: %d answers in %s (%.1f answers/s)", perRoom, len(conc), wall.Round(time.Millisecond),
			float64(len(conc))/wall.Seconds())
	}
}

// dmWithBot makes a direct chat with the bot, where every message is a question.
func dmWithBot(tb testing.TB, m *bottest.Member, bot id.UserID) id.RoomID {
	tb.Helper()
	room := m.CreateRoom(&mautrix.ReqCreateRoom{IsDirect: true, Preset: "trusted_private_chat", Invite: []id.UserID{bot}})
	m.Wait("bot joins", bottest.MembershipOf(room, bot, event.MembershipJoin))
	return room
}
