package remote

import (
	"math"
)

// Normalize checks that the backend returned one vector of dim values per
// input text and scales each to unit length, in place. Ada compares vectors
// by cosine distance and the store expects unit vectors; some embedding
// models (nomic-embed-text among them) do not normalise their output.
func (e *Endpoint) Normalize(vecs [][]float32, texts, dim int, model string) error {
	if len(vecs) != texts {
		return e.Invalid("model %s returned %d vectors for %d texts", model, len(vecs), texts)
	}
	for i, v := range vecs {
		if len(v) != dim {
			return e.Invalid("model %s returned %d-dimensional vectors, Ada needs %d; choose a %d-dimension embedding model", model, len(v), dim, dim)
		}
		var sum float64
		for _, x := range v {
			sum += float64(x) * float64(x)
		}
		norm := math.Sqrt(sum)
		if norm == 0 || math.IsNaN(norm) || math.IsInf(norm, 0) {
			return e.Invalid("model %s returned a zero or non-finite vector for text %d", model, i)
		}
		for j := range v {
			v[j] = float32(float64(v[j]) / norm)
		}
	}
	return nil
}
