package apiserver

import (
	"strconv"
	"strings"

	"github.com/ada-chat/ada/apiserver/wire"
	"github.com/ada-chat/ada/core"
)

// intParam parses an optional integer query parameter; its range is core's
// to check.
func intParam(r *request, name string, def int) (int, error) {
	v, err := optionalIntParam(r, name)
	if err != nil || v == nil {
		return def, err
	}
	return *v, nil
}

// optionalIntParam is an integer query parameter, nil when absent.
func optionalIntParam(r *request, name string) (*int, error) {
	return wire.ParseInt(name, strParam(r, name))
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
