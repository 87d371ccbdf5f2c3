package vecindex

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkTrainLists times the training of a segment's inverted file (the
// centroids and every row's assignment), which a restart's background load
// pays once per large segment and a growing segment each time it has grown
// retrainGrowth times.
func BenchmarkTrainLists(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	heads := make([][headWords]uint64, 100_000)
	for i := range heads {
		for w := range heads[i] {
			heads[i][w] = rng.Uint64()
		}
	}
	for b.Loop() {
		trainLists(heads)
	}
}
