package client

import (
	"context"
	"encoding/json"
	"io"
	"net/http"

	"github.com/ada-chat/ada/apiserver/wire"
	"github.com/ada-chat/ada/core"
)

// Health fetches GET /v1/healthz. A 503 still carries a health body and is
// not an error; an unreachable API or an unreadable answer is.
func (c *Client) Health(ctx context.Context) (wire.Health, error) {
	req, err := c.newRequest(ctx, http.MethodGet, "/v1/healthz", nil)
	if err != nil {
		return wire.Health{}, err
	}
	resp, err := c.do(req)
	if err != nil {
		return wire.Health{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusServiceUnavailable {
		return wire.Health{}, c.statusError(resp)
	}
	var h wire.Health
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxErrorBody)).Decode(&h); err != nil {
		return wire.Health{}, core.Wrap(core.KindUpstream, err, "the Ada API at %s sent a health answer that is not valid", c.base)
	}
	return h, nil
}

// CheckAccess asks GET /v1/info, which needs the API key when the API has
// one: nil when the API answers and accepts the key; a KindUnauthorized
// error when it refuses the key; KindUpstream when it cannot be reached.
func (c *Client) CheckAccess(ctx context.Context) error {
	return c.call(ctx, http.MethodGet, "/v1/info", nil, nil)
}
