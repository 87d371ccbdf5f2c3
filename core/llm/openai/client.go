package openai

import (
	"context"
	"net/http"
	"strings"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/internal/remote"
)

// Backend is the name this package reports to core and in messages.
const Backend = "openai"

// Options configure a Client or an Embedder.
type Options struct {
	// BaseURL is the server address, e.g. http://localhost:8080. Both
	// "http://host" and "http://host/v1" work: /v1 is added only when the
	// URL does not already end with it, as OpenAI's own docs write it.
	BaseURL string
	// Model is the model name sent with every request.
	Model string
	// APIKey, if set, is sent as "Authorization: Bearer <key>". It never
	// appears in an error.
	APIKey string `json:"-"`
	// HTTPClient is used for every call; nil means a fresh client without a
	// Timeout, since ctx bounds each call.
	HTTPClient *http.Client
}

// Client is a core.LLM speaking /v1/chat/completions. It is safe for
// concurrent use.
type Client struct {
	model  string
	prefix string // "/v1", or "" when BaseURL already ends with /v1
	ep     *remote.Endpoint
}

var _ core.LLM = (*Client)(nil)

// New returns a Client. A malformed BaseURL is reported by every call.
func New(o Options) *Client {
	ep := remote.NewEndpoint("LLM backend "+Backend, o.BaseURL, o.APIKey, o.HTTPClient)
	return &Client{model: o.Model, prefix: apiPrefix(ep), ep: ep}
}

// apiPrefix avoids /v1/v1 for base URLs written with the version.
func apiPrefix(ep *remote.Endpoint) string {
	if strings.HasSuffix(ep.BasePath(), "/v1") {
		return ""
	}
	return "/v1"
}

// Backend returns "openai".
func (c *Client) Backend() string { return Backend }

// Model returns the configured model name.
func (c *Client) Model() string { return c.model }

// maxModelsBody bounds a /v1/models answer; OpenAI's own list is the longest.
const maxModelsBody = 4 << 20

// Ping lists the models, which every compatible server answers and which
// checks the API key too, and looks for the configured one: servers that
// serve one model under one id (vLLM) fail every chat that names another.
func (c *Client) Ping(ctx context.Context) error {
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := c.ep.JSON(ctx, http.MethodGet, c.prefix+"/models", nil, &list, maxModelsBody); err != nil {
		return err
	}
	ids := make([]string, 0, len(list.Data))
	for _, m := range list.Data {
		if m.ID == c.model {
			return nil
		}
		ids = append(ids, m.ID)
	}
	if len(ids) > 5 {
		ids = append(ids[:5], "…")
	}
	return c.ep.Invalid("model %s is not in the server's model list (%s): set LLM_MODEL to one of them, or load the model", c.model, strings.Join(ids, ", "))
}
