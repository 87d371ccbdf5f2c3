package ollama

import (
	"context"
	"net/http"
	"strings"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/internal/remote"
)

// Backend is the name this package reports to core and in messages.
const Backend = "ollama"

// Options configure a Client or an Embedder.
type Options struct {
	// BaseURL is the Ollama address, e.g. http://localhost:11434. A path
	// prefix (for a reverse proxy) is kept; userinfo is sent as basic auth.
	BaseURL string
	// Model is the model name, e.g. "llama3.2" or "nomic-embed-text".
	Model string
	// APIKey, if set, is sent as a bearer token (Ollama behind an
	// authenticating proxy, or ollama.com).
	APIKey string `json:"-"`
	// HTTPClient is used for every call; nil means a fresh client without a
	// Timeout, since ctx bounds each call.
	HTTPClient *http.Client
}

// Client is a core.LLM speaking Ollama's /api/chat. It is safe for
// concurrent use.
type Client struct {
	model string
	ep    *remote.Endpoint
}

var _ core.LLM = (*Client)(nil)

// New returns a Client. A malformed BaseURL is reported by every call.
func New(o Options) *Client {
	return &Client{
		model: o.Model,
		ep:    remote.NewEndpoint("LLM backend "+Backend, o.BaseURL, o.APIKey, o.HTTPClient),
	}
}

// Backend returns "ollama".
func (c *Client) Backend() string { return Backend }

// Model returns the configured model name.
func (c *Client) Model() string { return c.model }

// maxTagsBody bounds an /api/tags answer: a few hundred bytes per model.
const maxTagsBody = 4 << 20

// Ping checks that Ollama answers and has the model: /api/tags lists the
// installed ones. A missing model is the usual first-hour failure, and every
// chat fails with it until someone runs ollama pull.
func (c *Client) Ping(ctx context.Context) error {
	var tags struct {
		Models []struct {
			Name  string `json:"name"`
			Model string `json:"model"`
		} `json:"models"`
	}
	if err := c.ep.JSON(ctx, http.MethodGet, "/api/tags", nil, &tags, maxTagsBody); err != nil {
		return err
	}
	want := fullName(c.model)
	for _, m := range tags.Models {
		if fullName(m.Name) == want || fullName(m.Model) == want {
			return nil
		}
	}
	return c.ep.Invalid("model %s is not installed: run `ollama pull %s` on the Ollama host, or set LLM_MODEL to an installed model", c.model, c.model)
}

// fullName adds Ollama's default tag, so that "llama3.2" and
// "llama3.2:latest" name the same model.
func fullName(model string) string {
	if strings.Contains(model[strings.LastIndex(model, "/")+1:], ":") {
		return model
	}
	return model + ":latest"
}
