package vecindex

// The rotations of Quantize in C: GCC vectorises the transforms' additions
// (AVX2 where the CPU has it, chosen at run time on x86-64 with glibc),
// which Go does not; a
// code then costs about a fifth of the Go version's time. The operations
// are those of the Go version, component by component and in the same
// order, with no contraction into fused multiply-adds (which could not
// change a result anyway: the only products are by ±1, exact), so the codes
// are the same to the bit (TestQuantizeMatchesTheReference).

/*
#cgo CFLAGS: -O3
#pragma GCC optimize("fp-contract=off")
#include <stdint.h>
#include <string.h>

#define ADA_ROT_SIZE 1024
#define ADA_ROT_ROUNDS 3
#define ADA_CODE_BLOCKS 2

// The AVX2 clone is chosen at load time through an ifunc: only GCC on x86-64
// with glibc has both. Elsewhere (arm64, musl as in Alpine, clang) the one
// portable version is built, vectorised for the target's baseline.
#if defined(__x86_64__) && defined(__GLIBC__) && defined(__GNUC__) && !defined(__clang__)
#define ADA_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define ADA_CLONES
#endif

// ada_radix4 applies two levels of the Walsh–Hadamard transform to the
// 4h floats at x: four runs of h combined element by element.
static inline __attribute__((always_inline)) void ada_radix4(float *x, int h) {
	float *restrict x0 = x, *restrict x1 = x + h;
	float *restrict x2 = x + 2 * h, *restrict x3 = x + 3 * h;
	for (int j = 0; j < h; j++) {
		float s0 = x0[j] + x1[j], d0 = x0[j] - x1[j];
		float s1 = x2[j] + x3[j], d1 = x2[j] - x3[j];
		x0[j] = s0 + s1;
		x1[j] = d0 + d1;
		x2[j] = s0 - s1;
		x3[j] = d0 - d1;
	}
}

// ada_rotate writes the ADA_CODE_BLOCKS rotations of v to out, one after
// the other (ADA_CODE_BLOCKS * ADA_ROT_SIZE floats): the code's bits are
// their signs.
ADA_CLONES
void ada_rotate(const float *v, int dim, const float *signs, float *out) {
	for (int b = 0; b < ADA_CODE_BLOCKS; b++) {
		float *a = out + b * ADA_ROT_SIZE;
		memset(a, 0, ADA_ROT_SIZE * sizeof(float));
		if (dim > 0) {
			memcpy(a, v, (size_t)dim * sizeof(float));
		}
		for (int r = 0; r < ADA_ROT_ROUNDS; r++) {
			const float *s = signs + (b * ADA_ROT_ROUNDS + r) * ADA_ROT_SIZE;
			for (int i = 0; i < ADA_ROT_SIZE; i++) {
				a[i] *= s[i];
			}
			// The Walsh–Hadamard transform, two levels at a time (see
			// hadamard in quantize_go_test.go): 1024 = 4^5. The first two levels
			// work within groups of four neighbours: written out, GCC
			// vectorises them across the groups.
			for (int i = 0; i < ADA_ROT_SIZE; i += 4) {
				float s0 = a[i] + a[i + 1], d0 = a[i] - a[i + 1];
				float s1 = a[i + 2] + a[i + 3], d1 = a[i + 2] - a[i + 3];
				a[i] = s0 + s1;
				a[i + 1] = d0 + d1;
				a[i + 2] = s0 - s1;
				a[i + 3] = d0 - d1;
			}
			// The next levels two at a time, within groups of 4h. h = 4
			// gets its own call: with the count a constant GCC vectorises
			// it, where the loop's variable count left it to scalar code,
			// nearly half of a code's time (perf).
			for (int i = 0; i < ADA_ROT_SIZE; i += 16) {
				ada_radix4(a + i, 4);
			}
			for (int h = 16; 4 * h <= ADA_ROT_SIZE; h *= 4) {
				for (int i = 0; i < ADA_ROT_SIZE; i += 4 * h) {
					ada_radix4(a + i, h);
				}
			}
		}
	}
}

ADA_CLONES
void ada_quantize(const float *v, int dim, const float *signs, uint8_t *code) {
	float a[ADA_CODE_BLOCKS * ADA_ROT_SIZE] __attribute__((aligned(64)));
	ada_rotate(v, dim, signs, a);
	for (int i = 0; i < ADA_CODE_BLOCKS * ADA_ROT_SIZE / 8; i++) {
		uint32_t c = 0;
		for (int j = 0; j < 8; j++) {
			c |= (uint32_t)(a[8 * i + j] > 0) << j;
		}
		code[i] = (uint8_t)c;
	}
}
*/
import "C"

import "unsafe"

func init() {
	// The C code's sizes are the Go code's.
	if rotSize != 1024 || rotRounds != 3 || codeBlocks != 2 {
		panic("vecindex: quantize_c.go's sizes differ from quantize.go's")
	}
}

// quantizeC is Quantize, in C.
func quantizeC(v []float32) []byte {
	code := make([]byte, codeBits/8)
	n := min(len(v), rotSize)
	var p *C.float
	if n > 0 {
		p = (*C.float)(unsafe.Pointer(&v[0]))
	}
	C.ada_quantize(p, C.int(n), (*C.float)(unsafe.Pointer(&rotSigns[0][0][0])), (*C.uint8_t)(unsafe.Pointer(&code[0])))
	return code
}

// rotateC writes v's codeBlocks rotations to out, whose signs are
// Quantize's code.
func rotateC(v []float32, out *[codeBits]float32) {
	n := min(len(v), rotSize)
	var p *C.float
	if n > 0 {
		p = (*C.float)(unsafe.Pointer(&v[0]))
	}
	C.ada_rotate(p, C.int(n), (*C.float)(unsafe.Pointer(&rotSigns[0][0][0])), (*C.float)(unsafe.Pointer(&out[0])))
}
