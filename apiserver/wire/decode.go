package wire

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/when"
)

// Decode decodes a JSON request body into v and turns decoder errors into
// KindInvalid errors that name the field.
func Decode(body []byte, v any) error {
	if len(strings.TrimSpace(string(body))) == 0 {
		return core.Errorf(core.KindInvalid, "request body must be a JSON object")
	}
	if err := json.Unmarshal(body, v); err != nil {
		var te *json.UnmarshalTypeError
		var se *json.SyntaxError
		switch {
		case errors.As(err, &te) && te.Field != "":
			return core.Errorf(core.KindInvalid, "%s: must be %s, got %s", te.Field, jsonTypeName(te.Type.Kind().String()), te.Value)
		case errors.As(err, &te):
			return core.Errorf(core.KindInvalid, "request body must be a JSON object, got %s", te.Value)
		case errors.As(err, &se):
			return core.Errorf(core.KindInvalid, "invalid JSON at byte %d: %s", se.Offset, se.Error())
		default:
			return core.Errorf(core.KindInvalid, "invalid JSON: %s", err.Error())
		}
	}
	return nil
}

func jsonTypeName(kind string) string {
	switch kind {
	case "int", "int64", "int32":
		return "an integer"
	case "float64":
		return "a number"
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "slice":
		return "an array"
	case "map", "struct":
		return "an object"
	default:
		return fmt.Sprintf("of type %s", kind)
	}
}

// parseTime parses an ISO 8601 timestamp field; the zone is required, so a
// time is never silently read as UTC or local.
func parseTime(name, raw string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(raw))
	if err != nil {
		return time.Time{}, core.Errorf(core.KindInvalid, "%s: must be ISO 8601 with a time zone, e.g. 2026-01-02T15:04:05Z; got %q", name, Truncate(raw, 40))
	}
	if !when.Storable(t) {
		return time.Time{}, core.Errorf(core.KindInvalid, "%s: the year must be between 1 and 9999 in UTC; got %q", name, Truncate(raw, 40))
	}
	return t, nil
}

// formatTime is the wire form of a time the client sends.
func formatTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// Truncate shortens s to n runes for an error message.
func Truncate(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// ref is nil for "", so that omitempty leaves the field out.
func ref(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
