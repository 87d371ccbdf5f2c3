package bot

import (
	"context"
	"log/slog"

	"maunium.net/go/mautrix/event"

	"github.com/ada-chat/ada/core"
)

// withLogger returns ctx carrying log, so everything below an event handler
// logs with that event's room_id and event_id: the bot's own lines and the
// core's (the same context key, core.WithLogger).
func withLogger(ctx context.Context, log *slog.Logger) context.Context {
	return core.WithLogger(ctx, log)
}

// logFrom returns the logger in ctx, or fallback.
func logFrom(ctx context.Context, fallback *slog.Logger) *slog.Logger {
	return core.LoggerFrom(ctx, fallback)
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
