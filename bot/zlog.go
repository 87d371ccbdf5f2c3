package bot

import (
	"context"
	"encoding/json"
	"log/slog"
	"maps"
	"slices"

	"github.com/rs/zerolog"
)

// zerologToSlog routes mautrix's zerolog output (HTTP requests, crypto,
// state store) into Ada's slog logger, so the process has one log stream in
// one format. Each zerolog line is a JSON object; its level and message
// become the slog record's, every other field an attribute.
type zerologToSlog struct {
	log *slog.Logger
	// quiet writes every line at debug.
	quiet bool
}

// newZerolog returns a zerolog logger writing to log. Debug output is only
// produced when log wants debug, because mautrix logs every request at debug.
func newZerolog(log *slog.Logger) zerolog.Logger {
	lvl := zerolog.InfoLevel
	if log.Enabled(context.Background(), slog.LevelDebug) {
		lvl = zerolog.DebugLevel
	}
	return zerolog.New(zerologToSlog{log: log}).Level(lvl).With().Timestamp().Logger()
}

// newQuietZerolog is newZerolog with every line at debug. Its zerolog level
// is never Disabled: mautrix would fall back to the client's logger.
func newQuietZerolog(log *slog.Logger) zerolog.Logger {
	return zerolog.New(zerologToSlog{log: log, quiet: true}).Level(zerolog.DebugLevel).With().Timestamp().Logger()
}

func (w zerologToSlog) Write(p []byte) (int, error) {
	var fields map[string]any
	if err := json.Unmarshal(p, &fields); err != nil {
		w.log.Info(string(p))
		return len(p), nil
	}
	level := slogLevel(fields[zerolog.LevelFieldName])
	if w.quiet {
		level = slog.LevelDebug
	}
	msg, _ := fields[zerolog.MessageFieldName].(string)
	delete(fields, zerolog.LevelFieldName)
	delete(fields, zerolog.MessageFieldName)
	delete(fields, zerolog.TimestampFieldName) // slog adds its own time
	attrs := make([]any, 0, 2*len(fields))
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		attrs = append(attrs, k, fields[k])
	}
	w.log.Log(context.Background(), level, msg, attrs...)
	return len(p), nil
}

func slogLevel(v any) slog.Level {
	s, _ := v.(string)
	switch s {
	case "trace", "debug":
		return slog.LevelDebug
	case "warn":
		return slog.LevelWarn
	case "error", "fatal", "panic":
		return slog.LevelError
	default:
		return slog.LevelInfo
	}
}
