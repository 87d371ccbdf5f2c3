package core

import (
	"context"
	"log/slog"
)

// logKey is the context key of the request's logger.
type logKey struct{}

// WithLogger returns ctx carrying log. Adapters put a logger with their
// fields (request id, room, event) into the context of each request, so
// that what core logs for it carries them too.
func WithLogger(ctx context.Context, log *slog.Logger) context.Context {
	return context.WithValue(ctx, logKey{}, log)
}

// LoggerFrom returns the logger in ctx, or fallback.
func LoggerFrom(ctx context.Context, fallback *slog.Logger) *slog.Logger {
	if ctx != nil {
		if l, ok := ctx.Value(logKey{}).(*slog.Logger); ok && l != nil {
			return l
		}
	}
	return fallback
}

// logger is the request's logger, or the service's own.
func (s *Service) logger(ctx context.Context) *slog.Logger { return LoggerFrom(ctx, s.log) }
