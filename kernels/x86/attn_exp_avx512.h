/* Inline exp for the attention online softmax (AVX-512): exp(x) for x <= 0 (scores minus their
 * running max), -inf -> 0, NaN -> NaN. Cody-Waite reduction x = n ln2 + r, |r| <= ln2/2, a degree-6
 * Taylor polynomial (relative error < 2e-7 on the reduced range), 2^n applied with scalef, which
 * underflows cleanly to 0. Inputs below -150 are clamped there (result exactly 0). */
#ifndef SK_ATTN_EXP_AVX512_H
#define SK_ATTN_EXP_AVX512_H

#include <immintrin.h>

static inline __m512 sk_attn_exp_neg_avx512(__m512 x)
{
    const __m512 log2e = _mm512_set1_ps(1.44269504f);
    const __m512 ln2hi = _mm512_set1_ps(0.693145752f);     /* ln 2, high 16 bits of mantissa */
    const __m512 ln2lo = _mm512_set1_ps(1.42860677e-6f);   /* ln 2 - ln2hi */
    x = _mm512_max_ps(_mm512_set1_ps(-150.f), x);           /* second operand: NaN passes through */
    const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, log2e),
                                          _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 r = _mm512_fnmadd_ps(n, ln2hi, x);
    r = _mm512_fnmadd_ps(n, ln2lo, r);
    __m512 p = _mm512_set1_ps(1.f / 720.f);
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.f / 120.f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.f / 24.f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.f / 6.f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0.5f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.f));
    return _mm512_scalef_ps(p, n);
}

#endif
