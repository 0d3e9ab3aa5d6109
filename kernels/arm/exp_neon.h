/* Vector exp on float32x4_t (AArch64 Advanced SIMD), static inline so other families reuse it.
 * Same reduction and polynomial as kernels/x86/exp_avx512.h: n = round(x log2 e) (shifter trick in
 * one FMA), r = x - n ln2 in two Cody-Waite steps, exp(r) = 1 + r + r^2 q(r) (degree-4 minimax q),
 * 2^n through the exponent bits. FMAX/FMIN propagate NaN, so NaN passes through the clamps. */
#ifndef SK_EXP_NEON_H
#define SK_EXP_NEON_H

#include <arm_neon.h>
#include "exp_consts.h"


static inline float32x4_t sk_exp_p6_poly_neon(float32x4_t r)
{
    float32x4_t p = vfmaq_f32(vdupq_n_f32(SK_EXPF_C5), vdupq_n_f32(SK_EXPF_C6), r);
    p = vfmaq_f32(vdupq_n_f32(SK_EXPF_C4), p, r);
    p = vfmaq_f32(vdupq_n_f32(SK_EXPF_C3), p, r);
    p = vfmaq_f32(vdupq_n_f32(SK_EXPF_C2), p, r);
    p = vfmaq_f32(vdupq_n_f32(1.f), p, r);
    return vfmaq_f32(vdupq_n_f32(1.f), p, r);
}

/* Full-range exp, branch-free: x clamped to [-104, 89], 2^n = 2^n1 * 2^n2 with both factors
   normal, so subnormal results are rounded once and overflow gives inf. */
static inline float32x4_t sk_exp_rr2_p6_neon(float32x4_t x)
{
    x = vmaxq_f32(x, vdupq_n_f32(-104.f));
    x = vminq_f32(x, vdupq_n_f32(89.f));
    const float32x4_t shift = vdupq_n_f32(SK_EXPF_SHIFT);
    const float32x4_t t = vfmaq_f32(shift, x, vdupq_n_f32(SK_EXPF_LOG2E));
    const float32x4_t n = vsubq_f32(t, shift);
    float32x4_t r = vfmsq_f32(x, n, vdupq_n_f32(SK_EXPF_LN2HI));
    r = vfmsq_f32(r, n, vdupq_n_f32(SK_EXPF_LN2LO));
    const int32x4_t ni = vsubq_s32(vreinterpretq_s32_f32(t), vreinterpretq_s32_f32(shift));
    const int32x4_t n1 = vshrq_n_s32(ni, 1), n2 = vsubq_s32(ni, n1);
    const int32x4_t b = vdupq_n_s32(127);
    const float32x4_t s1 = vreinterpretq_f32_s32(vshlq_n_s32(vaddq_s32(n1, b), 23));
    const float32x4_t s2 = vreinterpretq_f32_s32(vshlq_n_s32(vaddq_s32(n2, b), 23));
    return vmulq_f32(vmulq_f32(sk_exp_p6_poly_neon(r), s1), s2);
}

/* The softmax and attention exp: x <= ~0; clamp at -88 where n = -127 and 2^n becomes 0.0
   (flush); -inf -> 0. */
static inline float32x4_t sk_expneg_rr2_p6_neon(float32x4_t x)
{
    x = vmaxq_f32(x, vdupq_n_f32(-88.f));
    const float32x4_t shift = vdupq_n_f32(SK_EXPF_SHIFTB);
    const float32x4_t t = vfmaq_f32(shift, x, vdupq_n_f32(SK_EXPF_LOG2E));
    const float32x4_t n = vsubq_f32(t, shift);
    float32x4_t r = vfmsq_f32(x, n, vdupq_n_f32(SK_EXPF_LN2HI));
    r = vfmsq_f32(r, n, vdupq_n_f32(SK_EXPF_LN2LO));
    const float32x4_t s = vreinterpretq_f32_u32(vshlq_n_u32(vreinterpretq_u32_f32(t), 23));
    return vmulq_f32(sk_exp_p6_poly_neon(r), s);
}

#endif
