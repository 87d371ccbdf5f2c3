package vecindex

// The binary code of a vector. The sign bits of the raw components would be
// a poor code for the vectors Ada stores: the hash embedder's are sparse
// (most components are zero, so most bits say nothing) and a semantic
// model's share a common offset (so most bits agree for unrelated texts).
// A random rotation first turns every bit into a test against a random
// hyperplane (SimHash), and the Hamming distance between two codes then
// estimates the angle between the vectors, whatever their distribution.
// The rotation is a randomised Hadamard transform, O(n log n): the vector,
// padded to rotSize components, is multiplied by random signs and
// Walsh–Hadamard transformed, rotRounds times. The code has codeBlocks
// independent rotations; more bits make the estimate finer, and fewer
// candidates are needed for the same recall (make bench measures this).
// The signs come from a fixed seed: changing any of this means changing
// re-quantising every stored code (the store's durable copy).
const (
	rotSize    = 1024 // core.Dim rounded up to a power of two
	rotRounds  = 3
	codeBlocks = 2
	codeBits   = codeBlocks * rotSize
	// CodeBytes is the length of a code as Quantize returns it (and as
	// the store keeps it).
	CodeBytes = codeBits / 8
)

var rotSigns = func() (s [codeBlocks][rotRounds][rotSize]float32) {
	x := uint64(0xada5eed)
	for b := range s {
		for r := range s[b] {
			for i := range s[b][r] {
				// splitmix64: a fixed, version-independent sequence.
				x += 0x9e3779b97f4a7c15
				z := (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
				z = (z ^ (z >> 27)) * 0x94d049bb133111eb
				s[b][r][i] = float32(1 - 2*int((z^(z>>31))&1))
			}
		}
	}
	return s
}()

// Quantize returns the codeBits-bit code of v (in C: quantize_c.go).
func Quantize(v []float32) []byte { return quantizeC(v) }
