package bot

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
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
	env := startBot(b, botSettings(hs, llm, acct, b.TempDir(), func(s *botSetup) { s.LogLevel = slog.LevelInfo }))

	const rooms, perRoom, sequential = 20, 5, 100
	plain := benchRooms(b, hs, acct.UserID, "talker", rooms, false)
	encrypted := benchRooms(b, hs, acct.UserID, "secret", rooms, true)
	echo := startEchoBridge(b, hs)
	echoed := make([]benchRoom, rooms)
	for i, r := range plain { // the same members, in rooms with the echo bridge instead of Ada
		echoed[i] = benchRoom{member: r.member, room: dmWith(r.member, echo.UserID)}
	}
	for _, r := range append(plain[:1], encrypted[:1]...) {
		bottest.AskAndTime(r.member, r.room, acct.UserID, "warm-up")
	}
	bottest.AskAndTime(echoed[0].member, echoed[0].room, echo.UserID, "warm-up")
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
		bot     id.UserID
	}{
		{"one room, 100 in turn", plain[:1], sequential, acct.UserID},
		{"20 rooms at once, 5 each", plain, perRoom, acct.UserID},
		{"encrypted: one room, 100 in turn", encrypted[:1], sequential, acct.UserID},
		{"encrypted: 20 rooms at once, 5 each", encrypted, perRoom, acct.UserID},
		{"echo bridge: one room, 100 in turn", echoed[:1], sequential, echo.UserID},
		{"echo bridge: 20 rooms at once, 5 each", echoed, perRoom, echo.UserID},
	}
	for b.Loop() {
		var idle []time.Duration
		for i := range 20 {
			idle = append(idle, hop(i))
		}
		b.Logf("one homeserver hop, idle: %s", bottest.Summarize(idle))
		fmt.Printf("\nload average before: %s", loadAverage())
		defer func() { fmt.Printf("load average after: %s\n", loadAverage()) }()
		var results []benchResult
		for _, c := range cases {
			logStart := len(env.logs.String())
			hsCPU, ownCPU := childCPU("dendrite"), selfCPU()
			r := runBenchCase(c.rooms, c.perRoom, c.bot, hop)
			if c.bot == acct.UserID { // the last ✅ may still be on its way: its case's numbers include it
				waitAnswered(b, env, logStart, len(c.rooms)*c.perRoom)
			}
			r.name, r.steps = c.name, answeredSteps(env.logs.String()[logStart:])
			answers := time.Duration(len(c.rooms) * c.perRoom)
			r.hsCPU, r.ownCPU = (childCPU("dendrite")-hsCPU)/answers, (selfCPU()-ownCPU)/answers
			results = append(results, r)
		}
		printBenchTable(b, results)
	}
}

// childCPU is the CPU time used so far by this process's children called
// name (the homeserver), read from /proc; 0 where /proc is missing.
func childCPU(name string) time.Duration {
	lists, _ := filepath.Glob("/proc/self/task/*/children")
	var total time.Duration
	for _, list := range lists {
		raw, _ := os.ReadFile(list)
		for pid := range strings.FieldsSeq(string(raw)) {
			if comm, _ := os.ReadFile("/proc/" + pid + "/comm"); strings.TrimSpace(string(comm)) == name {
				total += procCPU("/proc/" + pid + "/stat")
			}
		}
	}
	return total
}

// selfCPU is this process's CPU time so far.
func selfCPU() time.Duration { return procCPU("/proc/self/stat") }

// procCPU reads utime + stime from a /proc stat file, in clock ticks of
// 10 ms (USER_HZ is 100 on Linux).
func procCPU(path string) time.Duration {
	raw, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	s := string(raw)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:]) // after the command name, from field 3 (state)
	if len(fields) < 13 {
		return 0
	}
	utime, _ := strconv.Atoi(fields[11])
	stime, _ := strconv.Atoi(fields[12])
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// loadAverage is the machine's load, printed beside the numbers: on a
// shared machine they say as much about the neighbours as about the bridge.
func loadAverage() string {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown\n"
	}
	return string(raw)
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

func dmWith(m *bottest.Member, bot id.UserID) id.RoomID {
	room := m.CreateRoom(&mautrix.ReqCreateRoom{IsDirect: true, Preset: "trusted_private_chat", Invite: []id.UserID{bot}})
	m.Wait("bot joins", bottest.MembershipOf(room, bot, event.MembershipJoin))
	return room
}

// startEchoBridge runs the least a bridge can do per question, with no Ada
// behind it: on each message from someone else, the same homeserver requests
// as the bot makes, in the same order and overlap (🧠 beside the typing
// notice, then the reply, then ✅ beside the end of typing), and nothing
// else. Its rate is what the homeserver allows, which the bot cannot beat.
func startEchoBridge(tb testing.TB, hs *bottest.Homeserver) *mautrix.Client {
	cli := hs.Client(tb, "echo")
	syncer := cli.Syncer.(*mautrix.DefaultSyncer)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	syncer.OnEventType(event.StateMember, func(_ context.Context, evt *event.Event) {
		if evt.GetStateKey() == cli.UserID.String() && evt.Content.AsMember().Membership == event.MembershipInvite {
			wg.Go(func() { _, _ = cli.JoinRoomByID(ctx, evt.RoomID) })
		}
	})
	syncer.OnEventType(event.EventMessage, func(_ context.Context, evt *event.Event) {
		if evt.Sender != cli.UserID {
			wg.Go(func() { echoAnswer(ctx, cli, evt) })
		}
	})
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = cli.SyncWithContext(ctx)
	}()
	tb.Cleanup(func() {
		cancel()
		<-done
		wg.Wait()
	})
	return cli
}

func echoAnswer(ctx context.Context, cli *mautrix.Client, evt *event.Event) {
	room := evt.RoomID
	both := func(a, b func()) {
		var wg sync.WaitGroup
		wg.Go(a)
		b()
		wg.Wait()
	}
	both(func() { _, _ = cli.SendReaction(ctx, room, evt.ID, "🧠") },
		func() { _, _ = cli.UserTyping(ctx, room, true, typingTimeout) })
	reply := &event.MessageEventContent{MsgType: event.MsgText, Body: "a short answer", RelatesTo: (&event.RelatesTo{}).SetReplyTo(evt.ID)}
	_, _ = cli.SendMessageEvent(ctx, room, event.EventMessage, reply)
	both(func() { _, _ = cli.SendReaction(ctx, room, evt.ID, "✅") },
		func() { _, _ = cli.UserTyping(ctx, room, false, 0) })
}

// benchResult is one case's numbers as the members saw them, plus the
// bridge's own step times.
type benchResult struct {
	name            string
	reaction, reply bottest.Percentiles
	perSecond       float64
	hop             bottest.Percentiles
	steps           map[string]bottest.Percentiles
	// CPU time per answer of the homeserver, and of this process (the
	// bridge, every member's client and the fake model).
	hsCPU, ownCPU time.Duration
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

// waitAnswered waits until the bot has logged n "answered" lines since
// logStart: an answer's line comes after its ✅, which may follow the reply.
func waitAnswered(tb testing.TB, env *botEnv, logStart, n int) {
	deadline := time.Now().Add(bottest.Timeout)
	for strings.Count(env.logs.String()[logStart:], "msg=answered") < n {
		if time.Now().After(deadline) {
			tb.Fatalf("the bot logged %d of %d answers", strings.Count(env.logs.String()[logStart:], "msg=answered"), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// benchSteps are the fields of the "answered" line (answerTrace), in order.
var benchSteps = []string{"wait_ms", "sync_ms", "start_ms", "accept_ms", "react_ms", "slot_ms", "chat_ms", "reply_ms", "done_ms", "own_ms"}

var logField = regexp.MustCompile(`(\w+_ms)=([0-9.]+)`)

// answeredSteps summarises the step times of the "answered" lines in logs.
func answeredSteps(logs string) map[string]bottest.Percentiles {
	vals := map[string][]time.Duration{}
	for line := range strings.SplitSeq(logs, "\n") {
		if !strings.Contains(line, "msg=answered") {
			continue
		}
		step := map[string]time.Duration{}
		for _, m := range logField.FindAllStringSubmatch(line, -1) {
			if ms, err := strconv.ParseFloat(m[2], 64); err == nil {
				step[m[1]] = time.Duration(ms * float64(time.Millisecond))
				vals[m[1]] = append(vals[m[1]], step[m[1]])
			}
		}
		// The bridge's own work: reading the message up to 🧠, and the
		// answer (slot to chat); the rest is waiting on the homeserver.
		vals["own_ms"] = append(vals["own_ms"], step["accept_ms"]+step["chat_ms"]-step["slot_ms"])
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
	t.WriteString("\n| case | 🧠 p50 | 🧠 p99 | reply p50 | reply p99 | answers/s | hop p50 | hop p99 | homeserver CPU/answer | test process CPU/answer |\n" +
		"|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range results {
		fmt.Fprintf(&t, "| %s | %s | %s | %s | %s | %.1f | %s | %s | %s | %s |\n", r.name, ms(r.reaction.P50), ms(r.reaction.P99),
			ms(r.reply.P50), ms(r.reply.P99), r.perSecond, ms(r.hop.P50), ms(r.hop.P99), ms(r.hsCPU), ms(r.ownCPU))
	}
	t.WriteString("(ms; hop: one homeserver hop, member to member, under the same load; CPU from /proc, 0 where it is missing)\n")
	t.WriteString("\nThe bridge's steps, ms after its sync loop handed it the message (p50 / p99). Before that: wait, from the " +
		"sender's homeserver to the bridge's /sync response; sync, in the bridge's sync loop (decryption included). " +
		"own: the bridge's own work (up to 🧠, and the answer), the rest being homeserver round trips:\n\n| case |")
	for _, s := range benchSteps {
		t.WriteString(" " + strings.TrimSuffix(s, "_ms") + " |")
	}
	t.WriteString("\n|---|" + strings.Repeat("---|", len(benchSteps)) + "\n")
	for _, r := range results {
		t.WriteString("| " + r.name + " |")
		for _, s := range benchSteps {
			if p, ok := r.steps[s]; ok {
				fmt.Fprintf(&t, " %s / %s |", ms(p.P50), ms(p.P99))
			} else {
				t.WriteString(" – |")
			}
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
