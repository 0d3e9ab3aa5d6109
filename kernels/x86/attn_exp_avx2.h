/* Inline exp for the attention online softmax (AVX2 + FMA): exp(x) for x <= 0, -inf -> 0,
 * NaN -> NaN. Cody-Waite reduction x = n ln2 + r, degree-6 Taylor polynomial (relative error
 * < 2e-7), 2^n built in the exponent field; x < -87.3 (result below FLT_MIN) flushes to 0. */
#ifndef SK_ATTN_EXP_AVX2_H
#define SK_ATTN_EXP_AVX2_H

#include <immintrin.h>

static inline __m256 sk_attn_exp_neg_avx2(__m256 x)
{
    const __m256 lo = _mm256_set1_ps(-87.3f);                /* ~ ln(FLT_MIN) */
    const __m256 tiny = _mm256_cmp_ps(x, lo, _CMP_LT_OQ);    /* false for NaN: NaN flows through */
    x = _mm256_max_ps(lo, x);                                /* second operand: NaN passes through */
    const __m256 n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504f)),
                                     _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693145752f), x);   /* ln 2 high part */
    r = _mm256_fnmadd_ps(n, _mm256_set1_ps(1.42860677e-6f), r);       /* ln 2 low part */
    __m256 p = _mm256_set1_ps(1.f / 720.f);
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.f / 120.f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.f / 24.f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.f / 6.f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(0.5f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.f));
    /* 2^n, n in [-126, 0]: biased exponent n + 127 */
    const __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
    return _mm256_andnot_ps(tiny, _mm256_mul_ps(p, _mm256_castsi256_ps(e)));
}

/* lanes [0, n) set (n clamped to 8), as a maskload/maskstore mask */
static inline __m256i sk_attn_tail8_avx2(size_t n)
{
    const int k = n >= 8 ? 8 : (int)n;
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(k), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

#endif
