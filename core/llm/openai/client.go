package openai

import (
	"context"
	"net/http"
	"strings"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/llm/internal/remote"
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

// Ping lists the models, which every compatible server answers and which
// checks the API key too.
func (c *Client) Ping(ctx context.Context) error {
	return c.ep.Ping(ctx, c.prefix+"/models")
}
