/* AVX2 + FMA helpers of the AVX2 kernels (static inline; include only from files compiled with the
 * AVX2 flags, which the AVX-512 flags include): tail masks, horizontal reductions, the 8x8
 * transpose, the subnormal flush, the strided store of up to four results. */
#ifndef SK_AVX2_UTIL_H
#define SK_AVX2_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <immintrin.h>

static const int32_t sk_tail8_tbl_avx2[16] = { -1, -1, -1, -1, -1, -1, -1, -1,
                                               0, 0, 0, 0, 0, 0, 0, 0 };

/* Lanes [0, n) all-ones (n clamped to 8), as a maskload / maskstore mask. */
static inline __m256i sk_tail8_avx2(size_t n)
{
    return _mm256_loadu_si256((const __m256i *)(sk_tail8_tbl_avx2 + 8 - (n > 8 ? 8 : n)));
}

/* Largest lane of v (NaN lanes: whatever maxps keeps; callers track NaN apart). */
static inline float sk_hmax8_avx2(__m256 v)
{
    __m128 a = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    a = _mm_max_ps(a, _mm_movehl_ps(a, a));
    a = _mm_max_ss(a, _mm_movehdup_ps(a));
    return _mm_cvtss_f32(a);
}

/* Sum of the lanes of v: (v0 + v4 + v2 + v6) + (v1 + v5 + v3 + v7). */
static inline float sk_hsum8_avx2(__m256 v)
{
    __m128 a = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    a = _mm_add_ps(a, _mm_movehl_ps(a, a));
    a = _mm_add_ss(a, _mm_movehdup_ps(a));
    return _mm_cvtss_f32(a);
}

/* 8 vectors -> one vector whose lane i is the horizontal sum of a[i]. */
static inline __m256 sk_reduce8_avx2(const __m256 a[8])
{
    const __m256 h0 = _mm256_hadd_ps(a[0], a[1]), h1 = _mm256_hadd_ps(a[2], a[3]);
    const __m256 h2 = _mm256_hadd_ps(a[4], a[5]), h3 = _mm256_hadd_ps(a[6], a[7]);
    const __m256 g0 = _mm256_hadd_ps(h0, h1), g1 = _mm256_hadd_ps(h2, h3);
    /* g0 lanes: [s0 s1 s2 s3 | s0' s1' s2' s3'] (low / high 128-bit halves), g1 likewise */
    return _mm256_add_ps(_mm256_permute2f128_ps(g0, g1, 0x20),
                         _mm256_permute2f128_ps(g0, g1, 0x31));
}

/* dst[c * ldd + r] = src[r * lds + c] for an 8 x 8 block. */
static inline void sk_transpose8x8_avx2(const float *src, size_t lds, float *dst, size_t ldd)
{
    __m256 a[8], b[8], c[8];
    for (int i = 0; i < 8; i++) a[i] = _mm256_loadu_ps(src + i * lds);
    for (int i = 0; i < 4; i++) { /* per half: [r2i c0, r2i+1 c0, r2i c1, r2i+1 c1] / c2, c3 */
        b[2 * i] = _mm256_unpacklo_ps(a[2 * i], a[2 * i + 1]);
        b[2 * i + 1] = _mm256_unpackhi_ps(a[2 * i], a[2 * i + 1]);
    }
    for (int i = 0; i < 2; i++) { /* per half: the 4 rows of column c, for c = 0..3 (4..7 high) */
        c[4 * i + 0] = _mm256_shuffle_ps(b[4 * i], b[4 * i + 2], 0x44);
        c[4 * i + 1] = _mm256_shuffle_ps(b[4 * i], b[4 * i + 2], 0xee);
        c[4 * i + 2] = _mm256_shuffle_ps(b[4 * i + 1], b[4 * i + 3], 0x44);
        c[4 * i + 3] = _mm256_shuffle_ps(b[4 * i + 1], b[4 * i + 3], 0xee);
    }
    for (int i = 0; i < 4; i++) { /* rows 0..3 from c[i], rows 4..7 from c[4 + i] */
        _mm256_storeu_ps(dst + i * ldd, _mm256_permute2f128_ps(c[i], c[4 + i], 0x20));
        _mm256_storeu_ps(dst + (4 + i) * ldd, _mm256_permute2f128_ps(c[i], c[4 + i], 0x31));
    }
}

/* Subnormal lanes of v as +-0, in integer instructions: a floating-point instruction that reads or
   writes a subnormal takes a microcode assist on many x86 cores (~50-100x slower), and the
   caller's MXCSR (FTZ / DAZ) is not ours to change. */
static inline __m256 sk_flush_subnormal_avx2(__m256 v)
{
    const __m256i a = _mm256_and_si256(_mm256_castps_si256(v), _mm256_set1_epi32(0x7fffffff));
    const __m256i tiny = _mm256_cmpgt_epi32(_mm256_set1_epi32(0x00800000), a); /* 0 or subnormal */
    return _mm256_castsi256_ps(_mm256_andnot_si256(tiny, _mm256_castps_si256(v)));
}

/* c[i*cs] = alpha x_i + beta c[i*cs] for the R <= 4 lanes i of x (beta == 0: C not read), as
   alpha x_i first, then beta c + that in one FMA, lane by lane alike (a lane's result does not
   depend on R or on the other lanes). */
static inline __attribute__((always_inline)) void sk_put4_strided_avx2(const int R, __m128 x,
                                                                       float alpha, float beta,
                                                                       float *c, size_t cs)
{
    x = _mm_mul_ps(_mm_set1_ps(alpha), x);
    if (beta != 0.f)
        x = _mm_fmadd_ps(_mm_set1_ps(beta),
                         _mm_setr_ps(c[0], R > 1 ? c[cs] : 0.f, R > 2 ? c[2 * cs] : 0.f,
                                     R > 3 ? c[3 * cs] : 0.f),
                         x);
    _mm_store_ss(c, x);
    if (R > 1) _mm_store_ss(c + cs, _mm_movehdup_ps(x));
    if (R > 2) _mm_store_ss(c + 2 * cs, _mm_movehl_ps(x, x));
    if (R > 3) _mm_store_ss(c + 3 * cs, _mm_shuffle_ps(x, x, 3));
}

#endif
