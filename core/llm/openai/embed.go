package openai

import (
	"context"
	"net/http"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/internal/remote"
)

// maxEmbedBody bounds a /v1/embeddings answer: 768 floats as JSON take about
// 16 KiB per text, so this allows batches of a few thousand texts.
const maxEmbedBody = 64 << 20

// EmbedderOptions configure an Embedder.
type EmbedderOptions struct {
	Options
	// SendDimensions adds "dimensions": 768 to each request, for models that
	// can shorten their output (OpenAI's text-embedding-3-*). Leave it off
	// for servers that reject the field and models that are 768 natively.
	SendDimensions bool
}

// Embedder is a core.Embedder using POST /v1/embeddings. It is safe for
// concurrent use.
type Embedder struct {
	model   string
	prefix  string
	sendDim bool
	ep      *remote.Endpoint
}

var _ core.Embedder = (*Embedder)(nil)

// NewEmbedder returns an Embedder.
func NewEmbedder(o EmbedderOptions) *Embedder {
	ep := remote.NewEndpoint("embedder "+Backend, o.BaseURL, o.APIKey, o.HTTPClient)
	return &Embedder{model: o.Model, prefix: apiPrefix(ep), sendDim: o.SendDimensions, ep: ep}
}

// Name identifies backend and model, e.g. "openai:text-embedding-3-small";
// the store records it to refuse mixing vectors of different embedders.
func (e *Embedder) Name() string { return Backend + ":" + e.model }

type embedRequest struct {
	Model      string   `json:"model"`
	Input      []string `json:"input"`
	Dimensions int      `json:"dimensions,omitempty"`
}

type embedResponse struct {
	Data []struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	} `json:"data"`
}

// Embed returns one L2-normalised core.Dim vector per text, in input order.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	in := embedRequest{Model: e.model, Input: texts}
	if e.sendDim {
		in.Dimensions = core.Dim
	}
	var out embedResponse
	if err := e.ep.JSON(ctx, http.MethodPost, e.prefix+"/embeddings", in, &out, maxEmbedBody); err != nil {
		return nil, err
	}
	// The API gives each vector its input index; do not trust the order.
	vecs := make([][]float32, len(texts))
	for _, d := range out.Data {
		if d.Index < 0 || d.Index >= len(texts) || vecs[d.Index] != nil {
			return nil, e.ep.Invalid("model %s returned a bad or repeated index %d", e.model, d.Index)
		}
		vecs[d.Index] = d.Embedding
	}
	if len(out.Data) != len(texts) {
		return nil, e.ep.Invalid("model %s returned %d vectors for %d texts", e.model, len(out.Data), len(texts))
	}
	if err := e.ep.Normalize(vecs, len(texts), core.Dim, e.model); err != nil {
		return nil, err
	}
	return vecs, nil
}
