package vecindex

import (
	"math"
	"math/bits"
)

// A finer ranking of a search's shortlist than the codes' Hamming distance:
// the inner product of the query's rotations, kept at queryBits bits a
// component, with a row's signs (±1), an asymmetric estimate of the inner
// product of the two vectors (RaBitQ, Gao & Long, SIGMOD 2024, without its
// per-row correction, which would have to be stored: after three rounds of
// randomised Hadamard transforms a unit vector's rotated components are
// close to Gaussian, and the correction is nearly the same for every row).
// Hamming distance throws away the query's magnitudes, which the estimate
// keeps; it costs queryBits+1 popcounts a code word where Hamming costs
// one, so it ranks the few thousand rows the heads kept, not the segment.
//
// The query's components are quantised uniformly between their minimum
// and maximum, u = round((a−lo)/δ), and kept as bit planes, so that
// Σ u·s over a row's signs s is Σ_j 2^j·(2·popcount(plane_j & code) −
// popcount(plane_j)), and Σ a·s ≈ δ·Σ u·s + lo·(2·popcount(code) − codeBits).
const queryBits = 4

// estimator is a query prepared for estimate.
type estimator struct {
	planes [queryBits]Code
	// planeOnes are the planes' popcounts; lo and delta the
	// quantisation's offset and step.
	planeOnes, headOnes [queryBits]int
	lo, delta           float64
}

// newQuery rotates v as Quantize does and returns its code and estimator.
func newQuery(v []float32) (Code, *estimator) {
	var a [codeBits]float32
	rotateC(v, &a)
	var c Code
	lo, hi := float32(math.Inf(1)), float32(math.Inf(-1))
	for i, x := range a {
		if x > 0 {
			c[i/64] |= 1 << (i % 64)
		}
		lo, hi = min(lo, x), max(hi, x)
	}
	e := &estimator{lo: float64(lo), delta: float64(hi-lo) / (1<<queryBits - 1)}
	if e.delta == 0 {
		return c, e // every component equal: every row ties
	}
	for i, x := range a {
		u := uint64(math.Round(float64(x-lo) / e.delta))
		for j := range e.planes {
			e.planes[j][i/64] |= (u >> j & 1) << (i % 64)
		}
	}
	for j := range e.planes {
		for w, b := range e.planes[j] {
			e.planeOnes[j] += bits.OnesCount64(b)
			if w < headWords {
				e.headOnes[j] += bits.OnesCount64(b)
			}
		}
	}
	return c, e
}

// estimate is minus the estimated inner product of the query with the row
// of code c (up to a positive factor common to every row): lower is nearer,
// as a distance.
func (e *estimator) estimate(c *Code) float64 {
	return e.estimateWords(c[:], &e.planeOnes)
}

// estimateHead is estimate over a head's bits alone.
func (e *estimator) estimateHead(h *[headWords]uint64) float64 {
	return e.estimateWords(h[:], &e.headOnes)
}

// estimateWords is estimate over c, the first len(c) words of a code;
// ones are the planes' popcounts over those words.
func (e *estimator) estimateWords(c []uint64, ones *[queryBits]int) float64 {
	var su int
	for j := range e.planes {
		p := e.planes[j][:len(c)]
		n := 0
		for w := range p {
			n += bits.OnesCount64(p[w] & c[w])
		}
		su += (2*n - ones[j]) << j
	}
	set := 0
	for _, w := range c {
		set += bits.OnesCount64(w)
	}
	return -(e.delta*float64(su) + e.lo*float64(2*set-64*len(c)))
}
