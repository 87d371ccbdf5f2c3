package apiserver

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/ada-chat/ada/core"
)

// intParam parses an optional integer query parameter; its range is core's
// to check.
func intParam(r *request, name string, def int) (int, error) {
	raw := strings.TrimSpace(string(r.QueryArgs().Peek(name)))
	if raw == "" {
		return def, nil
	}
	v, err := strconv.Atoi(raw)
	if err != nil {
		return 0, core.Errorf(core.KindInvalid, "%s: must be an integer, got %q", name, truncate(raw, 40))
	}
	return v, nil
}

func strParam(r *request, name string) string {
	return strings.TrimSpace(string(r.QueryArgs().Peek(name)))
}

// boolParam parses an optional boolean query parameter.
func boolParam(r *request, name string) (*bool, error) {
	raw := strings.TrimSpace(string(r.QueryArgs().Peek(name)))
	if raw == "" {
		return nil, nil
	}
	v, err := strconv.ParseBool(raw)
	if err != nil {
		return nil, core.Errorf(core.KindInvalid, "%s: must be true or false, got %q", name, raw)
	}
	return &v, nil
}

// optionalInt decodes a JSON integer field that may be absent; floats,
// strings and booleans are a 400 naming the field. Its range is core's to
// check.
func optionalInt(raw json.RawMessage, name string) (*int, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	v, err := strconv.Atoi(string(raw))
	if err != nil {
		return nil, core.Errorf(core.KindInvalid, "%s: must be an integer, got %s", name, truncate(string(raw), 40))
	}
	return &v, nil
}

// parseTime parses an ISO 8601 timestamp field; the zone is required, so a
// time is never silently read as UTC or local.
func parseTime(name, raw string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(raw))
	if err != nil {
		return time.Time{}, core.Errorf(core.KindInvalid, "%s: must be ISO 8601 with a time zone, e.g. 2026-01-02T15:04:05Z; got %q", name, truncate(raw, 40))
	}
	return t, nil
}

func truncate(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
