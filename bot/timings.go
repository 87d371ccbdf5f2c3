package bot

import (
	"context"
	"log/slog"
	"time"

	"maunium.net/go/mautrix"
	"maunium.net/go/mautrix/event"

	"github.com/ada-chat/ada/core"
)

// answerTrace is when one message passed each step on its way to an answer.
// The "answered" log line carries it, so that a slow room can be told apart
// from a slow homeserver, a slow model or a full set of answer slots without
// a profiler. Fields are written by the
// message's job, and reacted by its 🧠 goroutine, which the job waits for
// before reading it.
type answerTrace struct {
	sent     time.Time // origin_server_ts: the sender's homeserver took it
	synced   time.Time // the /sync response that carried it reached the bot
	received time.Time // the sync loop handed it to onMessage, decrypted
	started  time.Time // the room's job began
	accepted time.Time // the message was found to be a question; 🧠 goes out
	reacted  time.Time // 🧠 sent
	slot     time.Time // an answer slot was free and the backend was called
	chatDone time.Time // the backend's answer was complete
	replied  time.Time // the reply was sent
	done     time.Time // ✅ sent
}

type traceKey struct{}

// noteSyncs records when each /sync response reaches the bot, before the
// crypto helper or any handler sees it. Register it first.
func (b *Bot) noteSyncs(syncer mautrix.ExtensibleSyncer) {
	syncer.OnSync(func(context.Context, *mautrix.RespSync, string) bool {
		b.syncAt.Store(time.Now().UnixNano())
		return true
	})
}

// withTrace starts the trace of a message the sync loop just delivered.
func (b *Bot) withTrace(ctx context.Context, evt *event.Event) context.Context {
	tr := &answerTrace{sent: time.UnixMilli(evt.Timestamp), received: time.Now()}
	if at := b.syncAt.Load(); at != 0 {
		tr.synced = time.Unix(0, at)
	}
	return context.WithValue(ctx, traceKey{}, tr)
}

// traceFrom returns the message's trace; a throw-away one when there is
// none, so that callers need no nil checks.
func traceFrom(ctx context.Context) *answerTrace {
	if tr, ok := ctx.Value(traceKey{}).(*answerTrace); ok {
		return tr
	}
	return &answerTrace{}
}

// attrs are the trace's steps as milliseconds since the sync loop handed
// the message to the bot's handler; before that, wait_ms is from the
// sender's homeserver to the bot's /sync response, and sync_ms the time in
// the bot's sync loop (decryption included). A step that did not happen is
// left out.
func (t *answerTrace) attrs() []any {
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	var out []any
	if !t.synced.IsZero() {
		out = append(out, slog.Float64("wait_ms", ms(t.synced.Sub(t.sent))), slog.Float64("sync_ms", ms(t.received.Sub(t.synced))))
	}
	for _, s := range []struct {
		key string
		at  time.Time
	}{{"start_ms", t.started}, {"accept_ms", t.accepted}, {"react_ms", t.reacted}, {"slot_ms", t.slot}, {"chat_ms", t.chatDone},
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
