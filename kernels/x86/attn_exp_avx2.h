/* Inline exp for the attention online softmax (AVX2 + FMA): exp(x) for x <= 0, -inf -> 0,
 * NaN -> NaN. x = n ln2 + r with n = round(x log2e) read off the mantissa of x log2e + 1.5 * 2^23
 * (no round / convert instructions; the same bits shifted give the biased exponent of 2^n), one
 * ln 2 constant and a degree-5 minimax polynomial for exp(r) on |r| <= ln2/2 (1.9e-7 in float vs
 * 2.1e-7 for the degree-6 Taylor polynomial it replaces). Relative error: 2.3e-7 for x > -14, where
 * every term that matters to a softmax sum lies; up to 4.3e-7 below (n * the ln 2 constant's error).
 * x < -87.3 (result below FLT_MIN) flushes to 0. */
#ifndef SK_ATTN_EXP_AVX2_H
#define SK_ATTN_EXP_AVX2_H

#include <immintrin.h>

static inline __m256 sk_attn_exp_neg_avx2(__m256 x)
{
    const __m256 lo = _mm256_set1_ps(-87.3f);                /* ~ ln(FLT_MIN) */
    const __m256 magic = _mm256_set1_ps(12582912.f + 127.f);  /* 1.5 * 2^23 + exponent bias */
    const __m256 tiny = _mm256_cmp_ps(x, lo, _CMP_LT_OQ);    /* false for NaN: NaN flows through */
    x = _mm256_max_ps(lo, x);                                /* second operand: NaN passes through */
    /* t = n + 127 + 1.5 * 2^23 exactly (ulp 1): its low mantissa bits hold n + 127, n in [-126, 0] */
    const __m256 t = _mm256_fmadd_ps(x, _mm256_set1_ps(1.44269504f), magic);
    const __m256 n = _mm256_sub_ps(t, magic);
    const __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693147182f), x);
    __m256 p = _mm256_set1_ps(8.297654800e-03f);
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.191538319e-02f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.666757464e-01f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.999889433e-01f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(9.999997020e-01f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.000000119e+00f));
    /* 2^n: the mantissa bits of t moved into the exponent field (the bits above shift out) */
    const __m256i e = _mm256_slli_epi32(_mm256_castps_si256(t), 23);
    return _mm256_andnot_ps(tiny, _mm256_mul_ps(p, _mm256_castsi256_ps(e)));
}

#endif
