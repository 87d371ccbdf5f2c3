package vecindex

// The heads' distances in C, with AVX-512's popcount of eight words at once
// (VPOPCNTQ) where the CPU has it (a head is one 512-bit register), or
// AVX2's table lookups where it has that: a probe of a million rows'
// inverted file, half of a search's CPU in Go (pprof), reads 400k of them.

/*
#cgo CFLAGS: -O3
#include <stdint.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define ADA_SIMD 1

// ada_head_dists_from is ada_head_dists from row i on, one row at a time:
// the rows after the kernels' last group of several.
__attribute__((target("popcnt")))
static inline void ada_head_dists_from(int64_t i, const uint64_t *h, int64_t n, const uint64_t *q, uint16_t *d, int64_t *hist) {
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

// ada_head_dists_avx512 is ada_head_dists with AVX-512: eight rows at a
// time, their eight words' popcounts added across the registers in three
// levels of shuffles.
__attribute__((target("avx512f,avx512vpopcntdq,popcnt")))
static void ada_head_dists_avx512(const uint64_t *h, int64_t n, const uint64_t *q, uint16_t *d, int64_t *hist) {
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
	ada_head_dists_from(i, h, n, q, d, hist);
}

// ada_below_avx512 is ada_below with AVX-512: 32 distances compared at once.
__attribute__((target("avx512f,avx512bw")))
static int64_t ada_below_avx512(const uint16_t *d, int64_t n, uint16_t limit, int32_t *out) {
	const __m512i lim = _mm512_set1_epi16((short)limit);
	int64_t k = 0, i = 0;
	for (; i + 32 <= n; i += 32) {
		for (__mmask32 m = _mm512_cmple_epu16_mask(_mm512_loadu_si512(d + i), lim); m; m &= m - 1) {
			out[k++] = (int32_t)(i + __builtin_ctz(m));
		}
	}
	for (; i < n; i++) {
		if (d[i] <= limit) {
			out[k++] = (int32_t)i;
		}
	}
	return k;
}

// ada_below_avx2 is ada_below with AVX2: 16 distances compared at once.
__attribute__((target("avx2")))
static int64_t ada_below_avx2(const uint16_t *d, int64_t n, uint16_t limit, int32_t *out) {
	const __m256i lim = _mm256_set1_epi16((short)limit);
	int64_t k = 0, i = 0;
	for (; i + 16 <= n; i += 16) {
		// v ≤ limit (unsigned) where min(v, limit) = v; one mask bit a
		// distance (of the two its bytes give).
		__m256i v = _mm256_loadu_si256((const __m256i *)(d + i));
		uint32_t m = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi16(_mm256_min_epu16(v, lim), v)) & 0x55555555u;
		for (; m; m &= m - 1) {
			out[k++] = (int32_t)(i + __builtin_ctz(m) / 2);
		}
	}
	for (; i < n; i++) {
		if (d[i] <= limit) {
			out[k++] = (int32_t)i;
		}
	}
	return k;
}

// ada_head_dists_avx2 is ada_head_dists with AVX2, which has no popcount
// instruction: the bytes' counts are looked up a nibble at a time
// (VPSHUFB, after Mula, Kurz and Lemire) and added up (VPSADBW), four rows
// at a time.
__attribute__((target("avx2,popcnt")))
static void ada_head_dists_avx2(const uint64_t *h, int64_t n, const uint64_t *q, uint16_t *d, int64_t *hist) {
	const __m256i q0 = _mm256_loadu_si256((const __m256i *)q), q1 = _mm256_loadu_si256((const __m256i *)(q + 4));
	const __m256i table = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4,
		0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4);
	const __m256i low = _mm256_set1_epi8(0x0f), zero = _mm256_setzero_si256();
	int64_t i = 0;
	for (; i + 4 <= n; i += 4) {
		__m256i c[4];
		for (int k = 0; k < 4; k++) {
			const __m256i *r = (const __m256i *)(h + 8 * (i + k));
			__m256i x0 = _mm256_xor_si256(_mm256_loadu_si256(r), q0), x1 = _mm256_xor_si256(_mm256_loadu_si256(r + 1), q1);
			__m256i b0 = _mm256_add_epi8(_mm256_shuffle_epi8(table, _mm256_and_si256(x0, low)),
				_mm256_shuffle_epi8(table, _mm256_and_si256(_mm256_srli_epi16(x0, 4), low)));
			__m256i b1 = _mm256_add_epi8(_mm256_shuffle_epi8(table, _mm256_and_si256(x1, low)),
				_mm256_shuffle_epi8(table, _mm256_and_si256(_mm256_srli_epi16(x1, 4), low)));
			c[k] = _mm256_sad_epu8(_mm256_add_epi8(b0, b1), zero); // four partial sums
		}
		// Per 128-bit lane: rows (0, 1) and (2, 3)'s partial sums added.
		__m256i s01 = _mm256_add_epi64(_mm256_unpacklo_epi64(c[0], c[1]), _mm256_unpackhi_epi64(c[0], c[1]));
		__m256i s23 = _mm256_add_epi64(_mm256_unpacklo_epi64(c[2], c[3]), _mm256_unpackhi_epi64(c[2], c[3]));
		// Word k: row k's sum.
		__m256i s = _mm256_add_epi64(_mm256_permute2x128_si256(s01, s23, 0x20), _mm256_permute2x128_si256(s01, s23, 0x31));
		uint64_t out[4];
		_mm256_storeu_si256((__m256i *)out, s);
		for (int k = 0; k < 4; k++) {
			d[i + k] = (uint16_t)out[k];
			if (hist) {
				hist[out[k]]++;
			}
		}
	}
	ada_head_dists_from(i, h, n, q, d, hist);
}
#endif

// ada_level is the kernels this CPU runs: 2 AVX-512's (with its popcount
// and its instructions on 16-bit integers), 1 AVX2's, 0 none (the Go code's).
static int ada_level(void) {
#ifdef ADA_SIMD
	if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vpopcntdq")) {
		return 2;
	}
	if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt")) {
		return 1;
	}
#endif
	return 0;
}

// ada_head_dists sets d[i] to the Hamming distance between the i-th of the
// n 8-word heads at h and q's first 8 words, and counts it in hist (unless
// NULL), with level's kernel (level > 0, at most ada_level).
static void ada_head_dists(int level, const uint64_t *h, int64_t n, const uint64_t *q, uint16_t *d, int64_t *hist) {
#ifdef ADA_SIMD
	if (level == 2) {
		ada_head_dists_avx512(h, n, q, d, hist);
	} else {
		ada_head_dists_avx2(h, n, q, d, hist);
	}
#endif
}

// ada_below writes to out the indexes of the n distances at d that are at
// most limit, and returns how many, with level's kernel (as
// ada_head_dists).
static int64_t ada_below(int level, const uint16_t *d, int64_t n, uint16_t limit, int32_t *out) {
#ifdef ADA_SIMD
	if (level == 2) {
		return ada_below_avx512(d, n, limit, out);
	}
	return ada_below_avx2(d, n, limit, out);
#else
	return 0;
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

// simdLevel is ada_level: the kernels this CPU runs.
func simdLevel() int { return int(C.ada_level()) }

// headDistsC is headKernel.dists in C (level > 0).
func headDistsC(level int, hs [][headWords]uint64, q *Code, d []uint16, hist *[headWords*64 + 1]int) {
	if len(hs) == 0 {
		return
	}
	_ = d[len(hs)-1]
	var h *C.int64_t
	if hist != nil {
		h = (*C.int64_t)(unsafe.Pointer(&hist[0]))
	}
	C.ada_head_dists(C.int(level), (*C.uint64_t)(unsafe.Pointer(&hs[0][0])), C.int64_t(len(hs)), (*C.uint64_t)(unsafe.Pointer(&q[0])),
		(*C.uint16_t)(unsafe.Pointer(&d[0])), h)
}

// belowC is headKernel.below in C (level > 0).
func belowC(level int, d []uint16, limit uint16, out []int32) []int32 {
	if len(d) == 0 {
		return out[:0]
	}
	_ = out[len(d)-1]
	k := C.ada_below(C.int(level), (*C.uint16_t)(unsafe.Pointer(&d[0])), C.int64_t(len(d)), C.uint16_t(limit), (*C.int32_t)(unsafe.Pointer(&out[0])))
	return out[:k]
}
