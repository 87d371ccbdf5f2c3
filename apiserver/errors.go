package apiserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/valyala/fasthttp"

	"github.com/ada-chat/ada/core"
)

// statusOf is the one mapping from domain error kinds to HTTP status codes.
func statusOf(err error) int {
	switch core.KindOf(err) {
	case core.KindInvalid:
		return fasthttp.StatusBadRequest
	case core.KindNotFound:
		return fasthttp.StatusNotFound
	case core.KindUnavailable:
		return fasthttp.StatusServiceUnavailable
	case core.KindTooLarge:
		return fasthttp.StatusRequestEntityTooLarge
	case core.KindUnauthorized:
		return fasthttp.StatusUnauthorized
	case core.KindCanceled:
		// The client is usually gone; when it is not, the request timed out.
		return fasthttp.StatusGatewayTimeout
	default:
		return fasthttp.StatusInternalServerError
	}
}

// errMethodNotAllowed is rendered as 405 by the router.
type methodError struct{ allow []string }

func (e *methodError) Error() string {
	return "method not allowed; use " + strings.Join(e.allow, ", ")
}

// writeError renders err as {"detail": ...} with its status. Internal errors
// get a generic detail; their cause is logged by the middleware.
func writeError(c *fasthttp.RequestCtx, err error) int {
	status := statusOf(err)
	detail := core.SafeMessage(err)
	var me *methodError
	if errors.As(err, &me) {
		status, detail = fasthttp.StatusMethodNotAllowed, me.Error()
		c.Response.Header.Set("Allow", strings.Join(me.allow, ", "))
	}
	writeJSON(c, status, map[string]string{"detail": detail})
	return status
}

func writeJSON(c *fasthttp.RequestCtx, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		status, body = fasthttp.StatusInternalServerError, []byte(`{"detail":"internal error"}`)
	}
	c.SetStatusCode(status)
	c.SetContentType("application/json")
	c.SetBody(body)
}

// decodeJSON decodes a request body and turns decoder errors into 400s that
// name the field.
func decodeJSON(body []byte, v any) error {
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
