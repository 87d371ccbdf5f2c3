package vecindex

// headKernel computes rows' head distances to a query: in C with AVX-512's
// popcount where the CPU has it (headdist_c.go), about four times as fast
// as the Go loop, which popcounts one word at a time.
type headKernel struct{ vpopcnt bool }

// dists sets d[i] to headDist(&hs[i], q) for every head of hs, and counts
// each in hist (unless nil).
func (k headKernel) dists(hs [][headWords]uint64, q *Code, d []uint16, hist *[headWords*64 + 1]int) {
	if k.vpopcnt {
		headDistsC(hs, q, d, hist)
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
