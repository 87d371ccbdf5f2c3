package bot

import (
	"context"
	"log/slog"

	"maunium.net/go/mautrix/event"
)

// logKey is the context key of the per-event logger.
type logKey struct{}

// withLogger returns ctx carrying log, so everything below an event handler
// logs with that event's room_id and event_id.
func withLogger(ctx context.Context, log *slog.Logger) context.Context {
	return context.WithValue(ctx, logKey{}, log)
}

// logFrom returns the logger in ctx, or fallback.
func logFrom(ctx context.Context, fallback *slog.Logger) *slog.Logger {
	if ctx == nil {
		return fallback
	}
	if l, ok := ctx.Value(logKey{}).(*slog.Logger); ok {
		return l
	}
	return fallback
}

// eventLogger is the bot's logger narrowed to one event.
func eventLogger(log *slog.Logger, evt *event.Event) *slog.Logger {
	attrs := []any{"room_id", evt.RoomID.String()}
	if evt.ID != "" {
		attrs = append(attrs, "event_id", evt.ID.String())
	}
	if evt.Sender != "" {
		attrs = append(attrs, "sender", evt.Sender.String())
	}
	return log.With(attrs...)
}
