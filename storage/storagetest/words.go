// Package storagetest holds what the store's benchmarks share: text that
// looks like text to a keyword index and an embedder.
package storagetest

import (
	"math/rand/v2"
	"strings"
)

// Words draws words with a Zipf law from a vocabulary of common words
// followed by pseudo-words made of syllables, as real text does: a few words
// are everywhere, most are rare. The same rng state gives the same words.
type Words struct {
	rng   *rand.Rand
	vocab []string
	zipf  *rand.Zipf
}

var syllables = []string{"ka", "lo", "mi", "ren", "to", "sa", "vel", "du", "pra", "ne", "qui", "bor", "ti", "fa", "zen", "os", "gri", "mu", "an", "el"}

// NewWords is a vocabulary of size words, common ones first, drawn from rng.
func NewWords(rng *rand.Rand, common []string, size int) *Words {
	vocab := append(make([]string, 0, size), common...)
	for len(vocab) < size {
		var w strings.Builder
		for range 2 + rng.IntN(3) {
			w.WriteString(syllables[rng.IntN(len(syllables))])
		}
		vocab = append(vocab, w.String())
	}
	return &Words{rng: rng, vocab: vocab, zipf: rand.NewZipf(rng, 1.07, 2, uint64(len(vocab)-1))}
}

// Word is one word.
func (w *Words) Word() string { return w.vocab[w.zipf.Uint64()] }

// Sentence is between lo and hi words.
func (w *Words) Sentence(lo, hi int) []string {
	s := make([]string, lo+w.rng.IntN(hi-lo+1))
	for i := range s {
		s[i] = w.Word()
	}
	return s
}
