package client

import (
	"context"
	"net/http"

	"github.com/ada-chat/ada/core"
)

// Specialists fetches GET /v1/specialists: the built-in specialists and
// the MCP servers' tools.
func (c *Client) Specialists(ctx context.Context) ([]core.SpecialistInfo, error) {
	var out struct {
		Specialists []core.SpecialistInfo `json:"specialists"`
	}
	if err := c.call(ctx, http.MethodGet, "/v1/specialists", nil, &out); err != nil {
		return nil, err
	}
	return out.Specialists, nil
}
