/* Inline exp for the attention online softmax (AVX-512): exp(x) for x <= 0 (scores minus their
 * running max), -inf -> 0, NaN -> NaN. x = n ln2 + r, |r| <= ln2/2, with one ln 2 constant, a
 * degree-5 minimax polynomial for exp(r) (1.9e-7 relative in float; the same as the AVX2 path, see
 * attn_exp_avx2.h for the error budget), 2^n applied with scalef, which underflows cleanly to 0.
 * Inputs below -150 are clamped there (result exactly 0). */
#ifndef SK_ATTN_EXP_AVX512_H
#define SK_ATTN_EXP_AVX512_H

#include <immintrin.h>

static inline __m512 sk_attn_exp_neg_avx512(__m512 x)
{
    const __m512 log2e = _mm512_set1_ps(1.44269504f);
    x = _mm512_max_ps(_mm512_set1_ps(-150.f), x);           /* second operand: NaN passes through */
    const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, log2e),
                                          _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    const __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693147182f), x);
    __m512 p = _mm512_set1_ps(8.297654800e-03f);
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.191538319e-02f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.666757464e-01f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.999889433e-01f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(9.999997020e-01f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.000000119e+00f));
    return _mm512_scalef_ps(p, n);
}

#endif
