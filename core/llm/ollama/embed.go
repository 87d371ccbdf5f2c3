package ollama

import (
	"context"
	"net/http"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/internal/remote"
)

// maxEmbedBody bounds an /api/embed answer: 768 floats as JSON take about
// 16 KiB per text, so this allows batches of a few thousand texts.
const maxEmbedBody = 64 << 20

// Embedder is a core.Embedder using Ollama's POST /api/embed. It is safe
// for concurrent use.
type Embedder struct {
	model string
	ep    *remote.Endpoint
}

var _ core.Embedder = (*Embedder)(nil)

// NewEmbedder returns an Embedder; o.Model is e.g. "nomic-embed-text".
func NewEmbedder(o Options) *Embedder {
	return &Embedder{
		model: o.Model,
		ep:    remote.NewEndpoint("embedder "+Backend, o.BaseURL, o.APIKey, o.HTTPClient),
	}
}

// Name identifies backend and model, e.g. "ollama:nomic-embed-text"; the
// store records it to refuse mixing vectors of different embedders.
func (e *Embedder) Name() string { return Backend + ":" + e.model }

// Embed returns one L2-normalised core.Dim vector per text, in order.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	in := struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}{e.model, texts}
	var out struct {
		Embeddings [][]float32 `json:"embeddings"`
	}
	if err := e.ep.JSON(ctx, http.MethodPost, "/api/embed", in, &out, maxEmbedBody); err != nil {
		return nil, err
	}
	if err := e.ep.Normalize(out.Embeddings, len(texts), core.Dim, e.model); err != nil {
		return nil, err
	}
	return out.Embeddings, nil
}
