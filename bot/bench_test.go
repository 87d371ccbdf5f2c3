package bot

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
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
// reaction and to its reply, in plain and in encrypted rooms: 100 questions
// one after another in one room, then 20 rooms talking at once (5 questions
// each). Beside each case it measures one homeserver hop (a member's send
// reaching another member, no bot involved) under the same load, so that a
// slow homeserver can be told apart from a slow bridge, and it reads the
// bridge's own step times from its "answered" log lines. Run it with
//
//	go test -tags goolm,sqlite_fts5 -run '^$' -bench BridgeLatency -benchtime 1x ./bot/
func BenchmarkBridgeLatency(b *testing.B) {
	hs := bottest.StartHomeserver(b)
	llm := llmtest.New(b)
	llm.Instant(true)
	llm.Default(llmtest.Reply{Tokens: []string{"a short ", "answer"}})
	acct := bottest.RegisterAccount(b, hs, "ada")
	env := startBot(b, botSettings(hs, llm, acct, b.TempDir(), map[string]string{"LOG_LEVEL": "INFO"}))

	const rooms, perRoom, sequential = 20, 5, 100
	plain := benchRooms(b, hs, acct.UserID, "talker", rooms, false)
	encrypted := benchRooms(b, hs, acct.UserID, "secret", rooms, true)
	for _, r := range append(plain[:1], encrypted[:1]...) {
		bottest.AskAndTime(r.member, r.room, acct.UserID, "warm-up")
	}
	// One homeserver hop: pinger's send reaching listener.
	pinger := bottest.NewMember(b, hs, "pinger", false)
	listener := bottest.NewMember(b, hs, "listener", false)
	pingRoom := pinger.CreateRoom(&mautrix.ReqCreateRoom{Invite: []id.UserID{listener.Client.UserID}})
	listener.Join(pingRoom)
	hop := func(i int) time.Duration {
		start := time.Now()
		sent := pinger.Say(pingRoom, fmt.Sprintf("ping %d", i))
		listener.Wait("ping", func(e *event.Event) bool { return e.ID == sent })
		return listener.ArrivedAt(sent).Sub(start)
	}

	cases := []struct {
		name    string
		rooms   []benchRoom
		perRoom int
	}{
		{"one room, 100 in turn", plain[:1], sequential},
		{"20 rooms at once, 5 each", plain, perRoom},
		{"encrypted: one room, 100 in turn", encrypted[:1], sequential},
		{"encrypted: 20 rooms at once, 5 each", encrypted, perRoom},
	}
	for b.Loop() {
		var idle []time.Duration
		for i := range 20 {
			idle = append(idle, hop(i))
		}
		b.Logf("one homeserver hop, idle: %s", bottest.Summarize(idle))
		var results []benchResult
		for _, c := range cases {
			logStart := len(env.logs.String())
			r := runBenchCase(c.rooms, c.perRoom, acct.UserID, hop)
			r.name, r.steps = c.name, answeredSteps(env.logs.String()[logStart:])
			results = append(results, r)
		}
		printBenchTable(b, results)
	}
}

// benchRoom is a member's direct chat with the bot.
type benchRoom struct {
	member *bottest.Member
	room   id.RoomID
}

func benchRooms(tb testing.TB, hs *bottest.Homeserver, bot id.UserID, prefix string, n int, e2ee bool) []benchRoom {
	out := make([]benchRoom, n)
	for i := range out {
		m := bottest.NewMember(tb, hs, fmt.Sprintf("%s%d", prefix, i), e2ee)
		req := &mautrix.ReqCreateRoom{IsDirect: true, Preset: "trusted_private_chat", Invite: []id.UserID{bot}}
		if e2ee {
			req.InitialState = bottest.EncryptedRoom()
		}
		room := m.CreateRoom(req)
		m.Wait("bot joins", bottest.MembershipOf(room, bot, event.MembershipJoin))
		out[i] = benchRoom{member: m, room: room}
	}
	return out
}

// benchResult is one case's numbers as the members saw them, plus the
// bridge's own step times.
type benchResult struct {
	name            string
	reaction, reply bottest.Percentiles
	perSecond       float64
	hop             bottest.Percentiles
	steps           map[string]bottest.Percentiles
}

// runBenchCase asks perRoom questions in each room, one after another within
// a room and all rooms at once, while pinging one homeserver hop in the
// background.
func runBenchCase(rooms []benchRoom, perRoom int, bot id.UserID, hop func(int) time.Duration) benchResult {
	stop := make(chan struct{})
	hopsDone := make(chan []time.Duration)
	go func() {
		var hops []time.Duration
		for i := 0; ; i++ {
			select {
			case <-stop:
				hopsDone <- hops
				return
			default:
			}
			hops = append(hops, hop(1000+i))
			time.Sleep(100 * time.Millisecond) // a light probe: it must not become the load
		}
	}()
	var mu sync.Mutex
	var all []bottest.Latency
	var wg sync.WaitGroup
	began := time.Now()
	for i, r := range rooms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range perRoom {
				l := bottest.AskAndTime(r.member, r.room, bot, fmt.Sprintf("room %d question %d", i, j))
				mu.Lock()
				all = append(all, l)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	wall := time.Since(began)
	close(stop)
	react, reply := bottest.Split(all)
	return benchResult{reaction: bottest.Summarize(react), reply: bottest.Summarize(reply),
		perSecond: float64(len(all)) / wall.Seconds(), hop: bottest.Summarize(<-hopsDone)}
}

// benchSteps are the fields of the "answered" line (answerTrace), in order.
var benchSteps = []string{"wait_ms", "decrypt_ms", "start_ms", "react_ms", "slot_ms", "chat_ms", "reply_ms", "done_ms"}

var logField = regexp.MustCompile(`(\w+_ms)=([0-9.]+)`)

// answeredSteps summarises the step times of the "answered" lines in logs.
func answeredSteps(logs string) map[string]bottest.Percentiles {
	vals := map[string][]time.Duration{}
	for line := range strings.SplitSeq(logs, "\n") {
		if !strings.Contains(line, "msg=answered") {
			continue
		}
		for _, m := range logField.FindAllStringSubmatch(line, -1) {
			if ms, err := strconv.ParseFloat(m[2], 64); err == nil {
				vals[m[1]] = append(vals[m[1]], time.Duration(ms*float64(time.Millisecond)))
			}
		}
	}
	out := map[string]bottest.Percentiles{}
	for k, v := range vals {
		out[k] = bottest.Summarize(v)
	}
	return out
}

func printBenchTable(b *testing.B, results []benchResult) {
	ms := func(d time.Duration) string { return strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 0, 64) }
	var t strings.Builder
	t.WriteString("\n| case | 🧠 p50 | 🧠 p99 | reply p50 | reply p99 | answers/s | hop p50 | hop p99 |\n|---|---|---|---|---|---|---|---|\n")
	for _, r := range results {
		fmt.Fprintf(&t, "| %s | %s | %s | %s | %s | %.1f | %s | %s |\n", r.name, ms(r.reaction.P50), ms(r.reaction.P99),
			ms(r.reply.P50), ms(r.reply.P99), r.perSecond, ms(r.hop.P50), ms(r.hop.P99))
	}
	t.WriteString("\nThe bridge's own steps, ms after its sync loop received the message (p50 / p99); wait is from the sender's homeserver to the bridge:\n\n| case |")
	for _, s := range benchSteps {
		t.WriteString(" " + strings.TrimSuffix(s, "_ms") + " |")
	}
	t.WriteString("\n|---|" + strings.Repeat("---|", len(benchSteps)) + "\n")
	for _, r := range results {
		t.WriteString("| " + r.name + " |")
		for _, s := range benchSteps {
			p := r.steps[s]
			fmt.Fprintf(&t, " %s / %s |", ms(p.P50), ms(p.P99))
		}
		t.WriteString("\n")
	}
	// Printed, not logged: the testing package keeps only ten lines of a
	// benchmark's log.
	fmt.Println(t.String())
	for _, r := range results {
		key := strings.NewReplacer(" ", "", ",", "", ":", "-").Replace(r.name)
		b.ReportMetric(float64(r.reaction.P50.Microseconds())/1000, key+"-react-p50-ms")
		b.ReportMetric(float64(r.reply.P50.Microseconds())/1000, key+"-reply-p50-ms")
		b.ReportMetric(r.perSecond, key+"-answers/s")
	}
}
