/* AVX-512 helpers of the AVX-512 kernels (static inline; include only from files compiled with the
 * AVX-512 flags): tail masks, the 16-, 8- and 4-vector reductions, the subnormal flush. */
#ifndef SK_AVX512_UTIL_H
#define SK_AVX512_UTIL_H

#include <stddef.h>
#include <immintrin.h>

/* Lanes [0, n) set, n clamped to 16. */
static inline __mmask16 sk_tail16_avx512(size_t n)
{
    return n >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << n) - 1);
}

/* 16 vectors -> one vector whose lane i is the horizontal sum of a[i]. */
static inline __m512 sk_reduce16_avx512(const __m512 a[16])
{
    __m512 t[8], u[4], w[2];
    for (int i = 0; i < 8; i++) /* per 128-bit lane: [a0+a2, b0+b2, a1+a3, b1+b3] */
        t[i] = _mm512_add_ps(_mm512_unpacklo_ps(a[2 * i], a[2 * i + 1]),
                             _mm512_unpackhi_ps(a[2 * i], a[2 * i + 1]));
    for (int i = 0; i < 4; i++) { /* per 128-bit lane: the 4 lane sums of vectors 4i..4i+3 */
        const __m512d x = _mm512_castps_pd(t[2 * i]), y = _mm512_castps_pd(t[2 * i + 1]);
        u[i] = _mm512_add_ps(_mm512_castpd_ps(_mm512_unpacklo_pd(x, y)),
                             _mm512_castpd_ps(_mm512_unpackhi_pd(x, y)));
    }
    for (int i = 0; i < 2; i++) /* lanes: [u0 L0+L1, u0 L2+L3, u1 L0+L1, u1 L2+L3] */
        w[i] = _mm512_add_ps(_mm512_shuffle_f32x4(u[2 * i], u[2 * i + 1], 0x88),
                             _mm512_shuffle_f32x4(u[2 * i], u[2 * i + 1], 0xdd));
    return _mm512_add_ps(_mm512_shuffle_f32x4(w[0], w[1], 0x88),
                         _mm512_shuffle_f32x4(w[0], w[1], 0xdd));
}

/* 8 vectors -> one 8-lane vector whose lane q is the horizontal sum of v[q]. */
static inline __m256 sk_reduce8_avx512(const __m512 v[8])
{
    __m256 y[8];
#pragma GCC unroll 8
    for (int q = 0; q < 8; q++)
        y[q] = _mm256_add_ps(_mm512_castps512_ps256(v[q]),
                             _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v[q]), 1)));
    const __m256 h01 = _mm256_hadd_ps(y[0], y[1]), h23 = _mm256_hadd_ps(y[2], y[3]);
    const __m256 h45 = _mm256_hadd_ps(y[4], y[5]), h67 = _mm256_hadd_ps(y[6], y[7]);
    const __m256 h03 = _mm256_hadd_ps(h01, h23), h47 = _mm256_hadd_ps(h45, h67);
    /* h03 = [0 1 2 3 | 0 1 2 3] partial sums per 128-bit lane, h47 likewise */
    return _mm256_add_ps(_mm256_permute2f128_ps(h03, h47, 0x20),
                         _mm256_permute2f128_ps(h03, h47, 0x31));
}

/* 4 vectors -> one 4-lane vector whose lane q is the horizontal sum of v[q]. */
static inline __m128 sk_reduce4_avx512(const __m512 v[4])
{
    __m256 y[4];
#pragma GCC unroll 4
    for (int q = 0; q < 4; q++)
        y[q] = _mm256_add_ps(_mm512_castps512_ps256(v[q]),
                             _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v[q]), 1)));
    const __m256 h = _mm256_hadd_ps(_mm256_hadd_ps(y[0], y[1]), _mm256_hadd_ps(y[2], y[3]));
    return _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
}

/* Subnormal lanes of v as 0, in integer instructions: a floating-point instruction that reads or
   writes a subnormal takes a microcode assist on many x86 cores (~50-100x slower), and the
   caller's MXCSR (FTZ / DAZ) is not ours to change. */
static inline __m512 sk_flush_subnormal_avx512(__m512 v)
{
    const __m512i a = _mm512_and_si512(_mm512_castps_si512(v), _mm512_set1_epi32(0x7fffffff));
    return _mm512_maskz_mov_ps(_mm512_cmpgt_epi32_mask(a, _mm512_set1_epi32(0x007fffff)), v);
}

#endif
