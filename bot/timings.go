package bot

import (
	"context"
	"log/slog"
	"time"

	"maunium.net/go/mautrix/event"

	"github.com/ada-chat/ada/core"
)

// answerTrace is when one message passed each step on its way to an answer.
// The "answered" log line carries it, so that a slow room can be told apart
// from a slow homeserver, a slow model or a full set of answer slots without
// a profiler (issue 16 was found this way). Fields are written by the
// message's job, and reacted by its 🧠 goroutine, which the job waits for
// before reading it.
type answerTrace struct {
	sent     time.Time     // origin_server_ts: the sender's homeserver took it
	received time.Time     // the sync loop handed it to onMessage, decrypted
	decrypt  time.Duration // mautrix's decryption time; 0 in unencrypted rooms
	started  time.Time     // the room's job began
	reacted  time.Time     // 🧠 sent
	slot     time.Time     // an answer slot was free and the backend was called
	chatDone time.Time     // the backend's answer was complete
	replied  time.Time     // the reply was sent
	done     time.Time     // ✅ sent
}

type traceKey struct{}

// withTrace starts the trace of a message the sync loop just delivered.
func withTrace(ctx context.Context, evt *event.Event) context.Context {
	return context.WithValue(ctx, traceKey{}, &answerTrace{
		sent: time.UnixMilli(evt.Timestamp), received: time.Now(), decrypt: evt.Mautrix.DecryptionDuration,
	})
}

// traceFrom returns the message's trace; a throw-away one when there is
// none, so that callers need no nil checks.
func traceFrom(ctx context.Context) *answerTrace {
	if tr, ok := ctx.Value(traceKey{}).(*answerTrace); ok {
		return tr
	}
	return &answerTrace{}
}

// attrs are the trace's steps as milliseconds since the sync loop received
// the message (wait_ms: from the sender's homeserver to the bot). A step
// that did not happen is left out.
func (t *answerTrace) attrs() []any {
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	out := []any{slog.Float64("wait_ms", ms(t.received.Sub(t.sent))), slog.Float64("decrypt_ms", ms(t.decrypt))}
	for _, s := range []struct {
		key string
		at  time.Time
	}{{"start_ms", t.started}, {"react_ms", t.reacted}, {"slot_ms", t.slot}, {"chat_ms", t.chatDone},
		{"reply_ms", t.replied}, {"done_ms", t.done}} {
		if !s.at.IsZero() && !t.received.IsZero() {
			out = append(out, slog.Float64(s.key, ms(s.at.Sub(t.received))))
		}
	}
	return out
}

// tracedBackend notes in the message's trace when the backend was called
// (which is when an answer slot was free) and when it answered.
type tracedBackend struct{ Backend }

func (t tracedBackend) Chat(ctx context.Context, req core.ChatRequest, emit func(core.Event) error) (core.ChatResult, error) {
	tr := traceFrom(ctx)
	tr.slot = time.Now()
	defer func() { tr.chatDone = time.Now() }()
	return t.Backend.Chat(ctx, req, emit)
}
