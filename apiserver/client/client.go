package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/ada-chat/ada/apiserver/wire"
	"github.com/ada-chat/ada/core"
)

// maxErrorBody bounds how much of an error response is read.
const maxErrorBody = 64 << 10

// Client calls one Ada API. It is safe for concurrent use.
type Client struct {
	base   string
	apiKey string
	hc     *http.Client
}

// New returns a client of the API at baseURL (e.g. http://127.0.0.1:7000),
// sending apiKey as a bearer token when it is not empty. hc may be nil; its
// timeouts should come from each call's context, because a chat stream can
// legitimately last minutes.
func New(baseURL, apiKey string, hc *http.Client) *Client {
	if hc == nil {
		hc = &http.Client{}
	}
	return &Client{base: strings.TrimRight(baseURL, "/"), apiKey: apiKey, hc: hc}
}

// BaseURL is the API's address, as given to New.
func (c *Client) BaseURL() string { return c.base }

func (c *Client) newRequest(ctx context.Context, method, path string, body io.Reader) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, body)
	if err != nil {
		return nil, core.Wrap(core.KindInternal, err, "build request")
	}
	if c.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.apiKey)
	}
	return req, nil
}

// do sends req and maps transport failures to core errors. The URL is named
// in the message; the API key never is (it travels in a header).
func (c *Client) do(req *http.Request) (*http.Response, error) {
	resp, err := c.hc.Do(req)
	if err == nil {
		return resp, nil
	}
	ctx := req.Context()
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return nil, core.Wrap(core.KindCanceled, ctx.Err(), "Ada API at %s did not answer in time", c.base)
	case ctx.Err() != nil:
		return nil, core.Wrap(core.KindCanceled, ctx.Err(), "request cancelled")
	}
	return nil, core.Wrap(core.KindUpstream, err, "Ada API at %s is not reachable", c.base)
}

// statusError turns a non-2xx answer with a {"detail": ...} body into a core
// error of the matching kind.
func (c *Client) statusError(resp *http.Response) error {
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	var body struct {
		Detail string `json:"detail"`
	}
	detail := resp.Status
	if json.Unmarshal(raw, &body) == nil && body.Detail != "" {
		detail = body.Detail
	}
	return &core.Error{Kind: wire.KindOfStatus(resp.StatusCode), Message: detail, Err: fmt.Errorf("Ada API answered %s", resp.Status)}
}
