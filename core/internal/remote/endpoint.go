package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/ada-chat/ada/core"
)

// Endpoint is one remote backend: where it lives, how to authenticate, and
// the name used for it in error messages.
type Endpoint struct {
	label  string // "LLM backend ollama", "embedder openai"
	base   *url.URL
	user   *url.Userinfo // from the base URL; sent as basic auth, never shown
	addr   string        // base URL without credentials, query or fragment
	apiKey string
	client *http.Client
	err    error // a bad base URL, reported by every call
}

// NewEndpoint prepares calls to rawBase. A bad URL is not fatal here, because
// the constructors of the clients return no error; every call reports it.
// A nil client gets a fresh http.Client without a Timeout: a stream may run
// for minutes, so the caller's ctx is what bounds a call.
func NewEndpoint(label, rawBase, apiKey string, client *http.Client) *Endpoint {
	if client == nil {
		client = &http.Client{}
	}
	e := &Endpoint{label: label, apiKey: apiKey, client: client}
	u, err := url.Parse(strings.TrimSpace(rawBase))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		// url.Parse's error repeats the URL, which may hold a password:
		// keep only a generic cause.
		e.addr = "(invalid URL)"
		e.err = core.Errorf(core.KindInvalid, "%s: base URL must look like http://host:port", label)
		return e
	}
	e.user = u.User
	u.User = nil
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	e.base = u
	shown := *u
	shown.RawQuery, shown.Fragment = "", ""
	e.addr = shown.String()
	return e
}

// Addr is the base URL as shown in messages: no userinfo, query or fragment.
func (e *Endpoint) Addr() string { return e.addr }

// BasePath is the path part of the base URL without a trailing slash.
func (e *Endpoint) BasePath() string {
	if e.base == nil {
		return ""
	}
	return e.base.Path
}

// Do sends a request with a JSON body (nil for none) to path below the base
// URL. On success the caller owns resp.Body. A non-2xx status is returned as
// a KindUpstream error carrying the status and a sanitised body excerpt, and
// the body is already closed.
func (e *Endpoint) Do(ctx context.Context, method, path string, in any, accept string) (*http.Response, error) {
	if e.err != nil {
		return nil, e.err
	}
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return nil, core.Wrap(core.KindInternal, err, "%s: encoding the request", e.label)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, e.base.JoinPath(path).String(), body)
	if err != nil {
		return nil, e.wrap(core.KindInternal, err, "building the request")
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	e.authorize(req)
	// Every call here may be sent again: an LLM answer, an embedding or a
	// lookup changes nothing on the backend. Saying so (a header key with
	// no value, which is never sent) lets net/http retry a POST on a fresh
	// connection when the pooled one it reused turns out to have been
	// closed by the backend or a proxy in between (idle timeouts shorter
	// than Go's 90 s), instead of failing the chat with "EOF".
	req.Header["Idempotency-Key"] = nil
	resp, err := e.client.Do(req)
	if err != nil {
		return nil, e.Fail(ctx, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		defer resp.Body.Close()
		return nil, e.statusError(resp)
	}
	return resp, nil
}

// authorize sets the API key as a bearer token, or else the userinfo of the
// base URL as basic auth. Setting it here rather than leaving it in the URL
// keeps credentials out of the *url.Error texts that net/http builds.
func (e *Endpoint) authorize(req *http.Request) {
	if e.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+e.apiKey)
		return
	}
	if e.user != nil {
		pass, _ := e.user.Password()
		req.SetBasicAuth(e.user.Username(), pass)
	}
}

// JSON sends in (nil for none) and decodes the response into out, reading at
// most limit bytes.
func (e *Endpoint) JSON(ctx context.Context, method, path string, in, out any, limit int64) error {
	resp, err := e.Do(ctx, method, path, in, "application/json")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return e.Fail(ctx, err)
	}
	if int64(len(raw)) > limit {
		return e.wrap(core.KindUpstream, nil, "response larger than %d bytes", limit)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return e.Malformed(err, raw)
	}
	return nil
}

// Finish drains what is left of a completed stream, so the keep-alive
// connection can be reused, and closes it. A server that keeps talking after
// its end marker is cut off after a few KiB.
func Finish(body io.ReadCloser) {
	_, _ = io.Copy(io.Discard, io.LimitReader(body, 64<<10))
	_ = body.Close()
}
