package vecindex

// The heads' distances in C, with AVX-512's popcount of eight words at once
// (VPOPCNTQ) where the CPU has it: a head is one 512-bit register, and a
// probe of a million rows' inverted file, half of a search's CPU in Go
// (pprof), reads 400k of them.

/*
#cgo CFLAGS: -O3
#include <stdint.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define ADA_VPOPCNT 1

// ada_head_dists_vpopcnt is ada_head_dists with AVX-512: eight rows at a
// time, their eight words' popcounts added across the registers in three
// levels of shuffles.
__attribute__((target("avx512f,avx512vpopcntdq")))
static void ada_head_dists_vpopcnt(const uint64_t *h, int64_t n, const uint64_t *q, uint16_t *d, int64_t *hist) {
	const __m512i qv = _mm512_loadu_si512(q);
	int64_t i = 0;
	for (; i + 8 <= n; i += 8) {
		const uint64_t *r = h + 8 * i;
#define ADA_POP(k) _mm512_popcnt_epi64(_mm512_xor_si512(_mm512_loadu_si512(r + 8 * (k)), qv))
		__m512i a0 = ADA_POP(0), a1 = ADA_POP(1), a2 = ADA_POP(2), a3 = ADA_POP(3);
		__m512i a4 = ADA_POP(4), a5 = ADA_POP(5), a6 = ADA_POP(6), a7 = ADA_POP(7);
#undef ADA_POP
		// Per 128-bit lane k: rows (2m, 2m+1)'s words 2k and 2k+1 added.
		__m512i b0 = _mm512_add_epi64(_mm512_unpacklo_epi64(a0, a1), _mm512_unpackhi_epi64(a0, a1));
		__m512i b1 = _mm512_add_epi64(_mm512_unpacklo_epi64(a2, a3), _mm512_unpackhi_epi64(a2, a3));
		__m512i b2 = _mm512_add_epi64(_mm512_unpacklo_epi64(a4, a5), _mm512_unpackhi_epi64(a4, a5));
		__m512i b3 = _mm512_add_epi64(_mm512_unpacklo_epi64(a6, a7), _mm512_unpackhi_epi64(a6, a7));
		// Lanes (0+1, 2+3) of each pair of rows.
		__m512i c0 = _mm512_add_epi64(_mm512_shuffle_i64x2(b0, b1, 0x88), _mm512_shuffle_i64x2(b0, b1, 0xdd));
		__m512i c1 = _mm512_add_epi64(_mm512_shuffle_i64x2(b2, b3, 0x88), _mm512_shuffle_i64x2(b2, b3, 0xdd));
		// Word j: row j's sum.
		__m512i s = _mm512_add_epi64(_mm512_shuffle_i64x2(c0, c1, 0x88), _mm512_shuffle_i64x2(c0, c1, 0xdd));
		_mm_storeu_si128((__m128i *)(d + i), _mm512_cvtepi64_epi16(s));
		if (hist) {
			for (int j = 0; j < 8; j++) {
				hist[d[i + j]]++;
			}
		}
	}
	for (; i < n; i++) {
		const uint64_t *r = h + 8 * i;
		int s = 0;
		for (int w = 0; w < 8; w++) {
			s += (int)_mm_popcnt_u64(r[w] ^ q[w]);
		}
		d[i] = (uint16_t)s;
		if (hist) {
			hist[s]++;
		}
	}
}
#endif

// ada_vpopcnt is whether ada_head_dists can run: the CPU has AVX-512's
// popcount.
static int ada_vpopcnt(void) {
#ifdef ADA_VPOPCNT
	return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vpopcntdq");
#else
	return 0;
#endif
}

// ada_head_dists sets d[i] to the Hamming distance between the i-th of the
// n 8-word heads at h and q's first 8 words, and counts it in hist (unless
// NULL). Only where ada_vpopcnt: elsewhere it does nothing.
static void ada_head_dists(const uint64_t *h, int64_t n, const uint64_t *q, uint16_t *d, int64_t *hist) {
#ifdef ADA_VPOPCNT
	ada_head_dists_vpopcnt(h, n, q, d, hist);
#endif
}
*/
import "C"

import "unsafe"

func init() {
	// The C code's sizes are the Go code's.
	if headWords != 8 || unsafe.Sizeof(int(0)) != 8 {
		panic("vecindex: headdist_c.go's sizes differ from the Go code's")
	}
}

// hasVPOPCNT is whether this CPU runs headDistsC.
func hasVPOPCNT() bool { return C.ada_vpopcnt() != 0 }

// headDistsC is headKernel.dists in C (only where hasVPOPCNT).
func headDistsC(hs [][headWords]uint64, q *Code, d []uint16, hist *[headWords*64 + 1]int) {
	if len(hs) == 0 {
		return
	}
	_ = d[len(hs)-1]
	var h *C.int64_t
	if hist != nil {
		h = (*C.int64_t)(unsafe.Pointer(&hist[0]))
	}
	C.ada_head_dists((*C.uint64_t)(unsafe.Pointer(&hs[0][0])), C.int64_t(len(hs)), (*C.uint64_t)(unsafe.Pointer(&q[0])),
		(*C.uint16_t)(unsafe.Pointer(&d[0])), h)
}
