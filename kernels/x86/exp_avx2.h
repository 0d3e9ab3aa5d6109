/* Vector exp on __m256 (AVX2 + FMA), static inline so other families reuse the same core.
 * Same reduction and polynomials as exp_avx512.h (constants in exp_consts.h). Without vscalefps,
 * 2^n is built in the exponent bits: the shifter is 1.5 * 2^23 + 127, so the low bits of
 * t = x log2e + shifter hold n + 127 and t << 23 is 2^n as a float. That is exact for
 * n in [-126, 127] and gives 0.0 for n = -127. sk_exp_fast_avx2 covers |x| <= 88; the full-range
 * sk_exp_slow_avx2 splits 2^n in two factors. sk_exp's loop (exp_avx2.c) runs the fast core under
 * MXCSR's FTZ and DAZ bits, which flush results below FLT_MIN and subnormal inputs to 0 (exp = 1
 * either way) with no microcode assist (~50-100x on Intel cores), and takes the slow one only for
 * vectors holding some x > 87. The slow core flushes the same in instructions, under any MXCSR. */
#ifndef SK_EXP_AVX2_H
#define SK_EXP_AVX2_H

#include <immintrin.h>
#include "exp_consts.h"
#include "avx2_util.h"


static inline __m256 sk_exp_p6_poly_avx2(__m256 r)
{
    __m256 p = _mm256_fmadd_ps(_mm256_set1_ps(SK_EXPF_C6), r, _mm256_set1_ps(SK_EXPF_C5));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(SK_EXPF_C4));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(SK_EXPF_C3));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(SK_EXPF_C2));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.f));
    return _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.f));
}

/* exp(x) for |x| <= 88 (n = -127 flushes to 0.0; NaN gives NaN). */
static inline __m256 sk_exp_fast_avx2(__m256 x)
{
    const __m256 shift = _mm256_set1_ps(SK_EXPF_SHIFTB);
    const __m256 t = _mm256_fmadd_ps(x, _mm256_set1_ps(SK_EXPF_LOG2E), shift);
    const __m256 n = _mm256_sub_ps(t, shift);
    __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(SK_EXPF_LN2HI), x);
    r = _mm256_fnmadd_ps(n, _mm256_set1_ps(SK_EXPF_LN2LO), r);
    const __m256 s = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_castps_si256(t), 23)); /* 2^n */
    return _mm256_mul_ps(sk_exp_p6_poly_avx2(r), s);
}

/* Any x: subnormal inputs read as 0, results below FLT_MIN flushed to 0 (x < LNMIN), x clamped
   to [LNMIN, 89] (NaN passes), 2^n = 2^n1 * 2^n2 with both factors normal: no instruction reads
   or writes a subnormal. */
static inline __m256 sk_exp_slow_avx2(__m256 x)
{
    x = sk_flush_subnormal_avx2(x);
    const __m256 keep = _mm256_cmp_ps(x, _mm256_set1_ps(SK_EXPF_LNMIN), _CMP_NLT_UQ); /* NaN too */
    x = _mm256_max_ps(_mm256_set1_ps(SK_EXPF_LNMIN), x);
    x = _mm256_min_ps(_mm256_set1_ps(89.f), x);
    const __m256 shift = _mm256_set1_ps(SK_EXPF_SHIFT);
    const __m256 t = _mm256_fmadd_ps(x, _mm256_set1_ps(SK_EXPF_LOG2E), shift);
    const __m256 n = _mm256_sub_ps(t, shift);
    __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(SK_EXPF_LN2HI), x);
    r = _mm256_fnmadd_ps(n, _mm256_set1_ps(SK_EXPF_LN2LO), r);
    const __m256i ni = _mm256_cvtps_epi32(n);
    const __m256i n1 = _mm256_srai_epi32(ni, 1), n2 = _mm256_sub_epi32(ni, n1);
    const __m256i b = _mm256_set1_epi32(127);
    const __m256 s1 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n1, b), 23));
    const __m256 s2 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n2, b), 23));
    return _mm256_and_ps(keep, _mm256_mul_ps(_mm256_mul_ps(sk_exp_p6_poly_avx2(r), s1), s2));
}

/* The softmax and attention exp: x <= ~0, no overflow path; -inf -> 0, NaN -> NaN (max returns
   x when NaN).
   Degree-5 polynomial (q = S2 + S3 r + S4 r^2 + S5 r^3): relative error <= 2.5e-7, ample for the
   softmax bound (1e-5), not the <= 1 ulp of sk_exp. */
static inline __m256 sk_expneg_rr2_p5_avx2(__m256 x)
{
    /* below LNMIN (also -inf) the result would be subnormal: NEGLO, which gives 0.0 */
    x = _mm256_blendv_ps(x, _mm256_set1_ps(SK_EXPF_NEGLO),
                         _mm256_cmp_ps(x, _mm256_set1_ps(SK_EXPF_LNMIN), _CMP_LT_OQ));
    const __m256 shift = _mm256_set1_ps(SK_EXPF_SHIFTB);
    const __m256 t = _mm256_fmadd_ps(x, _mm256_set1_ps(SK_EXPF_LOG2E), shift);
    const __m256 n = _mm256_sub_ps(t, shift);
    __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(SK_EXPF_LN2HI), x);
    r = _mm256_fnmadd_ps(n, _mm256_set1_ps(SK_EXPF_LN2LO), r);
    /* Estrin, latency 16 instead of 23 (the loops are latency bound at 8 floats a vector):
       exp(x) = 2^n (1 + v), v = r + r^2 (S2 + S3 r + r^2 (S4 + S5 r)), the last step one FMA */
    const __m256 r2 = _mm256_mul_ps(r, r);
    const __m256 a = _mm256_fmadd_ps(_mm256_set1_ps(SK_EXPF_S3), r, _mm256_set1_ps(SK_EXPF_S2));
    const __m256 b = _mm256_fmadd_ps(_mm256_set1_ps(SK_EXPF_S5), r, _mm256_set1_ps(SK_EXPF_S4));
    const __m256 v = _mm256_fmadd_ps(_mm256_fmadd_ps(b, r2, a), r2, r);
    const __m256 s = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_castps_si256(t), 23)); /* 2^n */
    return _mm256_fmadd_ps(v, s, s);
}

#endif
