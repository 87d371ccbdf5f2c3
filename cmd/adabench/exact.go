package main

import (
	"runtime"
	"sort"
	"sync"
)

// exactTopK is the ground truth: for each query, the cosine distances of
// its k nearest vectors among those accepted by keep, by a brute-force scan
// (the vectors are unit length, so cosine distance is 1 − dot product).
// It returns the k-th smallest distance of each query.
func exactTopK(vecs, queries [][]float32, k int, keep func(i int) bool) []float64 {
	kth := make([]float64, len(queries))
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.NumCPU() {
		wg.Go(func() {
			best := make([]float64, 0, k+1)
			for q := range next {
				best = best[:0]
				for i, v := range vecs {
					if !keep(i) {
						continue
					}
					d := 1 - dot(queries[q], v)
					if len(best) == k && d >= best[k-1] {
						continue
					}
					j := sort.SearchFloat64s(best, d)
					if len(best) < k {
						best = append(best, 0)
					}
					copy(best[j+1:], best[j:])
					best[j] = d
				}
				kth[q] = 2 // nothing within keep: no result counts
				if len(best) > 0 {
					kth[q] = best[len(best)-1]
				}
			}
		})
	}
	for q := range queries {
		next <- q
	}
	close(next)
	wg.Wait()
	return kth
}

func dot(a, b []float32) float64 {
	var s0, s1, s2, s3 float32
	b = b[:len(a)]
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return float64(s0 + s1 + s2 + s3)
}
