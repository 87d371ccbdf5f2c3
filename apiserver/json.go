package apiserver

import (
	"encoding/json"

	"github.com/valyala/fasthttp"
)

// writeJSON answers with v as JSON; a value that cannot be encoded is a
// 500 with the generic detail.
func writeJSON(c *fasthttp.RequestCtx, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		status, body = fasthttp.StatusInternalServerError, []byte(`{"detail":"internal error"}`)
	}
	c.SetStatusCode(status)
	c.SetContentType("application/json")
	c.SetBody(body)
}
