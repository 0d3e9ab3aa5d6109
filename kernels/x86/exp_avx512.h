/* Vector exp on __m512 (AVX-512F), static inline so other families reuse the same core.
 * n = round(x log2 e) by the shifter trick in one FMA, r = x - n ln2 in two Cody-Waite steps
 * (the first exact), exp(r) = 1 + r + r^2 q(r) with q a degree-4 minimax fit (relative error
 * 0.09 * 2^-24 on |r| <= 0.35), then vscalefps multiplies by 2^n: it rounds once and gives inf on
 * overflow. Results below FLT_MIN are flushed to 0 (a zeroing mask) and subnormal inputs read as
 * 0: no instruction reads or writes a subnormal, whose microcode assists cost ~50-100x on Intel. */
#ifndef SK_EXP_AVX512_H
#define SK_EXP_AVX512_H

#include <immintrin.h>
#include "exp_consts.h"
#include "avx512_util.h"


/* exp(r) for |r| <= ~0.35 */
static inline __m512 sk_exp_p6_poly_avx512(__m512 r)
{
    __m512 p = _mm512_fmadd_ps(_mm512_set1_ps(SK_EXPF_C6), r, _mm512_set1_ps(SK_EXPF_C5));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(SK_EXPF_C4));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(SK_EXPF_C3));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(SK_EXPF_C2));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.f));
    return _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.f));
}

/* Full-range exp: <= 1 ulp where the result is normal, 0 below FLT_MIN; NaN -> NaN, +-inf -> inf
   / 0. */
static inline __m512 sk_exp_rr2_p6_avx512(__m512 x)
{
    x = sk_flush_subnormal_avx512(x);
    const __mmask16 keep = _mm512_cmp_ps_mask(x, _mm512_set1_ps(SK_EXPF_LNMIN), _CMP_NLT_UQ);
    /* max/min return the second operand when either is NaN: NaN passes through both clamps */
    x = _mm512_max_ps(_mm512_set1_ps(SK_EXPF_LNMIN), x);
    x = _mm512_min_ps(_mm512_set1_ps(SK_EXPF_HI), x);
    const __m512 shift = _mm512_set1_ps(SK_EXPF_SHIFT);
    const __m512 t = _mm512_fmadd_ps(x, _mm512_set1_ps(SK_EXPF_LOG2E), shift);
    const __m512 n = _mm512_sub_ps(t, shift);
    __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(SK_EXPF_LN2HI), x);
    r = _mm512_fnmadd_ps(n, _mm512_set1_ps(SK_EXPF_LN2LO), r);
    return _mm512_maskz_scalef_ps(keep, sk_exp_p6_poly_avx512(r), n);
}

/* The softmax exp polynomial: degree 5, relative error 1.7e-7 (~3 ulp): ample for the softmax
   bound (1e-5) and one FMA cheaper. q(r) = S2 + S3 r + S4 r^2 + S5 r^3. */

static inline __m512 sk_exp_p5_poly_avx512(__m512 r)
{
    __m512 p = _mm512_fmadd_ps(_mm512_set1_ps(SK_EXPF_S5), r, _mm512_set1_ps(SK_EXPF_S4));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(SK_EXPF_S3));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(SK_EXPF_S2));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.f));
    return _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.f));
}

/* The softmax and attention exp: x <= ~0 (x - rowmax), no overflow path; -inf -> 0, NaN -> NaN;
   relative error <= 2.5e-7 (not the <= 1 ulp of sk_exp). Lanes outside k are zero (free, in
   vscalefps). */
static inline __m512 sk_expneg_rr2_p5_maskz_avx512(__mmask16 k, __m512 x)
{
    /* below LNMIN (also -inf) the result would be subnormal: 0 */
    k = _mm512_mask_cmp_ps_mask(k, x, _mm512_set1_ps(SK_EXPF_LNMIN), _CMP_NLT_UQ);
    x = _mm512_max_ps(_mm512_set1_ps(SK_EXPF_LNMIN), x);
    const __m512 shift = _mm512_set1_ps(SK_EXPF_SHIFT);
    const __m512 t = _mm512_fmadd_ps(x, _mm512_set1_ps(SK_EXPF_LOG2E), shift);
    const __m512 n = _mm512_sub_ps(t, shift);
    __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(SK_EXPF_LN2HI), x);
    r = _mm512_fnmadd_ps(n, _mm512_set1_ps(SK_EXPF_LN2LO), r);
    return _mm512_maskz_scalef_ps(k, sk_exp_p5_poly_avx512(r), n);
}

static inline __m512 sk_expneg_rr2_p5_avx512(__m512 x)
{
    return sk_expneg_rr2_p5_maskz_avx512((__mmask16)0xffff, x);
}

#endif
