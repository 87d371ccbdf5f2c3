package vecindex

// headKernel computes rows' head distances to a query: in C with AVX-512's
// popcount where the CPU has it (headdist_c.go; level 2), or with AVX2
// (level 1), several times as fast as the Go loop, which popcounts one word
// at a time (level 0) and runs elsewhere (make bench: BenchmarkHeadKernels,
// on heads in the caches; a probe at 1M streams its heads from memory,
// which bounds every kernel alike: docs/operators.md).
type headKernel struct{ level int }

// dists sets d[i] to headDist(&hs[i], q) for every head of hs, and counts
// each in hist (unless nil).
func (k headKernel) dists(hs [][headWords]uint64, q *Code, d []uint16, hist *[headWords*64 + 1]int) {
	if k.level > 0 {
		headDistsC(k.level, hs, q, d, hist)
		return
	}
	d = d[:len(hs)]
	if hist == nil {
		for j := range hs {
			d[j] = headDist(&hs[j], q)
		}
		return
	}
	for j := range hs {
		hd := headDist(&hs[j], q)
		d[j] = hd
		hist[hd]++
	}
}

// below returns, in out (with room for len(d)), the indexes of the
// distances of d that are at most limit: the few rows of a probe's
// hundreds of thousands that a search keeps.
func (k headKernel) below(d []uint16, limit uint16, out []int32) []int32 {
	if k.level > 0 {
		return belowC(k.level, d, limit, out)
	}
	out = out[:0]
	for j, hd := range d {
		if hd <= limit {
			out = append(out, int32(j))
		}
	}
	return out
}
