package main

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/embed"
	"github.com/ada-chat/ada/storage/storagetest"
)

// dataset is a fixed corpus of unit vectors and the queries run against it.
// Smaller sizes use a prefix of the corpus, so it is generated once.
type dataset struct {
	name    string
	texts   []string // stored texts (sentences, or labels for synthetic vectors)
	vecs    [][]float32
	queries [][]float32
}

// sentences: the hash embedder over generated sentences. Words come from a
// vocabulary of vocabSize pseudo-words drawn with a Zipf law, as in real
// text; half the queries are stored sentences with words dropped and
// replaced, half are fresh sentences.
func sentences(n, nq int, seed uint64) dataset {
	rng := rand.New(rand.NewPCG(seed, 1))
	vocab := storagetest.NewWords(rng, nil, 4000)
	sentence := vocab.Sentence
	d := dataset{name: "sentences"}
	for range n {
		t := strings.Join(sentence(6, 18), " ")
		d.texts = append(d.texts, t)
		d.vecs = append(d.vecs, embed.HashVector(t))
	}
	for i := range nq {
		var words []string
		if i%2 == 0 { // a stored sentence, reworded
			words = strings.Fields(d.texts[rng.IntN(n)])
			for range 1 + len(words)/5 {
				j := rng.IntN(len(words))
				if rng.IntN(2) == 0 && len(words) > 3 {
					words = append(words[:j], words[j+1:]...)
				} else {
					words[j] = vocab.Word()
				}
			}
		} else {
			words = sentence(3, 10)
		}
		d.queries = append(d.queries, embed.HashVector(strings.Join(words, " ")))
	}
	return d
}

// clusters: normalised Gaussian vectors around topic centroids, sharing a
// common offset, as the embeddings of a semantic model do (they are
// anisotropic: unrelated items have a cosine of 0.31 ± 0.06 here). Half the
// queries are stored vectors plus noise, half fresh points of a topic.
func clusters(n, nq int, seed uint64) dataset {
	const (
		topics = 2000
		common = 0.55 // standard deviations of the shared offset,
		topic  = 0.55 // of a topic centroid,
		item   = 0.6  // and of an item around its centroid
		// spectrum is the exponent of the power law of the variances.
		spectrum = 0.7
	)
	rng := rand.New(rand.NewPCG(seed, 2))
	// The variance falls off as a power law over the dimensions, as the
	// PCA spectrum of real embeddings does (a few hundred directions carry
	// most of it); isotropic noise in 768 dimensions would put every
	// unrelated pair at the same cosine, which no real model does.
	scale := make([]float64, core.Dim)
	var sum float64
	for i := range scale {
		scale[i] = math.Pow(float64(i+1), -spectrum/2)
		sum += scale[i] * scale[i]
	}
	for i := range scale {
		scale[i] /= math.Sqrt(sum / core.Dim)
	}
	gauss := func(sd float64) []float64 {
		v := make([]float64, core.Dim)
		for i := range v {
			v[i] = rng.NormFloat64() * sd * scale[i]
		}
		return v
	}
	offset := gauss(common)
	centroids := make([][]float64, topics)
	for i := range centroids {
		centroids[i] = gauss(topic)
		for j := range offset {
			centroids[i][j] += offset[j]
		}
	}
	point := func(base []float64, sd float64) []float32 {
		v := gauss(sd)
		for j := range v {
			v[j] += base[j]
		}
		return normalise(v)
	}
	d := dataset{name: "clusters"}
	for i := range n {
		d.texts = append(d.texts, "synthetic item "+strconv.Itoa(i))
		d.vecs = append(d.vecs, point(centroids[rng.IntN(topics)], item))
	}
	for i := range nq {
		if i%2 == 0 {
			base := d.vecs[rng.IntN(n)]
			f := make([]float64, core.Dim)
			for j := range f {
				f[j] = float64(base[j])
			}
			d.queries = append(d.queries, point(f, item/math.Sqrt(core.Dim)))
		} else {
			d.queries = append(d.queries, point(centroids[rng.IntN(topics)], item))
		}
	}
	return d
}

func normalise(v []float64) []float32 {
	var s float64
	for _, x := range v {
		s += x * x
	}
	s = math.Sqrt(s)
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x / s)
	}
	return out
}
