// Package embed holds the built-in embedder. The remote embedders (Ollama,
// OpenAI-compatible) live beside their LLM clients in core/llm.
package embed

import (
	"context"
	"hash/fnv"
	"math"
	"strings"
	"unicode"

	"github.com/ada-chat/ada/core"
)

// Hash is an offline, deterministic embedder. It hashes word unigrams, word
// bigrams and character trigrams into core.Dim signed buckets and
// L2-normalises the result. It is lexical, not semantic: texts are close when
// they share words or word pieces, not when they mean the same thing.
type Hash struct{}

var _ core.Embedder = Hash{}

// HashName is recorded in the store next to the vectors this embedder wrote.
const HashName = "hash:v1"

func (Hash) Name() string { return HashName }

// Embed never fails; ctx is honoured between texts.
func (h Hash) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		out[i] = HashVector(t)
	}
	return out, nil
}

// Feature weights: whole words carry most of the meaning; trigrams let
// "coffee" match "coffees"; bigrams reward shared phrases.
const (
	wordWeight    = 1.0
	bigramWeight  = 0.5
	trigramWeight = 0.35
)

// HashVector embeds one text.
func HashVector(text string) []float32 {
	v := make([]float64, core.Dim)
	words := tokenize(text)
	for i, w := range words {
		add(v, "w:"+w, wordWeight)
		if i > 0 {
			add(v, "b:"+words[i-1]+" "+w, bigramWeight)
		}
		r := []rune("^" + w + "$")
		for j := 0; j+3 <= len(r); j++ {
			add(v, "t:"+string(r[j:j+3]), trigramWeight)
		}
	}
	var norm float64
	for _, x := range v {
		norm += x * x
	}
	out := make([]float32, core.Dim)
	if norm == 0 {
		return out
	}
	norm = math.Sqrt(norm)
	for i, x := range v {
		out[i] = float32(x / norm)
	}
	return out
}

// add hashes a feature to a bucket and a sign. The sign keeps unrelated
// features from piling up in the same direction, so unrelated texts end up
// near-orthogonal rather than all similar.
func add(v []float64, feature string, weight float64) {
	h := fnv.New64a()
	h.Write([]byte(feature))
	s := h.Sum64()
	idx := s % core.Dim
	if s>>63 == 1 {
		weight = -weight
	}
	v[idx] += weight
}

func tokenize(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}
