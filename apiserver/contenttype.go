package apiserver

import (
	"fmt"
	"mime"
	"strings"
)

// requireJSON refuses, with 415, a request to a JSON route whose body is
// not declared JSON. Why: a web page may POST a text/plain body to any
// address without the browser asking first (a CORS "simple request"), so a
// route that parsed such a body would let any site the user visits write
// memories and start chats. application/json is required; its parameters
// (charset) are fine. application/*+json is refused too: no client of Ada
// sends it, and nothing is lost by being strict.
func requireJSON(h handlerFunc) handlerFunc {
	return func(r *request) error {
		ct := string(r.Request.Header.ContentType())
		if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
			return &mediaTypeError{got: ct}
		}
		return h(r)
	}
}

// mediaTypeError is rendered as 415 in the route's error shape.
type mediaTypeError struct{ got string }

func (e *mediaTypeError) Error() string {
	got := "no Content-Type"
	if strings.TrimSpace(e.got) != "" {
		got = "Content-Type " + quoteShort(e.got)
	}
	return fmt.Sprintf("this route takes a JSON body: send Content-Type: application/json (got %s)", got)
}
