package vecindex

import "encoding/binary"

// codeWords is the length of a binary code in 64-bit words; headWords, of
// the prefix a search scans first.
const (
	codeWords = codeBits / 64
	headWords = 8
)

// Code is a document's binary code (see Quantize), as 64-bit words.
type Code [codeWords]uint64

// CodeOf reads a code from the CodeBytes bytes Quantize returned.
func CodeOf(b []byte) (c Code) {
	for i := range c {
		c[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	return c
}
