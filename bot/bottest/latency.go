package bottest

import (
	"fmt"
	"slices"
	"time"

	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"
)

// Percentiles summarises a set of latencies.
type Percentiles struct {
	N             int
	P50, P99, Max time.Duration
}

// Summarize computes nearest-rank percentiles.
func Summarize(ds []time.Duration) Percentiles {
	if len(ds) == 0 {
		return Percentiles{}
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	rank := func(p float64) time.Duration {
		i := int(p*float64(len(s))+0.999999) - 1
		return s[max(0, min(i, len(s)-1))]
	}
	return Percentiles{N: len(s), P50: rank(0.50), P99: rank(0.99), Max: s[len(s)-1]}
}

func (p Percentiles) String() string {
	ms := func(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }
	return fmt.Sprintf("n=%d p50=%s p99=%s max=%s", p.N, ms(p.P50), ms(p.P99), ms(p.Max))
}

// Latency is one question's timings as the asking member saw them: from
// just before sending to the arrival (over the member's /sync) of the bot's
// 🧠 reaction and of its reply.
type Latency struct {
	Reaction, Reply time.Duration
}

// AskAndTime sends text as m into room and waits for bot's 🧠 reaction and
// its reply. The bot must answer every message it is sent (a DM, or text
// that activates it).
func AskAndTime(m *Member, room id.RoomID, bot id.UserID, text string) Latency {
	m.t.Helper()
	start := time.Now()
	asked := m.Say(room, text)
	reaction := m.Wait("🧠 on "+text, ReactionTo(asked, "🧠"))
	reply := m.Wait("reply to "+text, ReplyTo(bot, asked, event.MsgText))
	return Latency{Reaction: m.ArrivedAt(reaction.ID).Sub(start), Reply: m.ArrivedAt(reply.ID).Sub(start)}
}

// Split separates reaction and reply latencies for Summarize.
func Split(ls []Latency) (reaction, reply []time.Duration) {
	for _, l := range ls {
		reaction = append(reaction, l.Reaction)
		reply = append(reply, l.Reply)
	}
	return reaction, reply
}
