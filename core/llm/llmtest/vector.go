package llmtest

import (
	"hash/fnv"
	"math/rand/v2"

	"github.com/ada-chat/ada/core"
)

func (e Embed) dim() int {
	if e.Dim > 0 {
		return e.Dim
	}
	return core.Dim
}

// Vector is the embedding the fake serves for text: deterministic, so equal
// texts get equal vectors, and deliberately not unit length, so tests see
// that clients normalise. Values are uniform in [-1, 1).
func Vector(text string, dim int) []float32 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(text))
	rng := rand.New(rand.NewPCG(h.Sum64(), 0x9e3779b97f4a7c15))
	v := make([]float32, dim)
	for i := range v {
		v[i] = rng.Float32()*2 - 1
	}
	return v
}
