package storage

import (
	"encoding/binary"
	"math"
	"testing"
)

// The embedding column holds little-endian float32s, whatever the machine.
func TestEncodeFloatsIsLittleEndian(t *testing.T) {
	v := []float32{1, -2.5, float32(math.Inf(1)), 0, float32(math.Copysign(0, -1)), 3.4e38, 1e-45}
	b := encodeFloats(v)
	if len(b) != 4*len(v) {
		t.Fatalf("%d bytes for %d floats", len(b), len(v))
	}
	for i, x := range v {
		if got := binary.LittleEndian.Uint32(b[4*i:]); got != math.Float32bits(x) {
			t.Errorf("float %d: bytes %08x, want %08x", i, got, math.Float32bits(x))
		}
	}
	back := decodeFloats(b)
	for i := range v {
		if math.Float32bits(back[i]) != math.Float32bits(v[i]) {
			t.Errorf("float %d: decoded %v, want %v", i, back[i], v[i])
		}
	}
	if arg := floatsArg(v); string(arg) != string(b) {
		t.Errorf("floatsArg %x, want encodeFloats' %x", arg, b)
	}
	if len(encodeFloats(nil)) != 0 || len(decodeFloats(nil)) != 0 {
		t.Error("an empty vector must encode and decode as empty")
	}
}
