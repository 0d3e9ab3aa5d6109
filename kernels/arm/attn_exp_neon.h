/* Inline exp for the attention online softmax (NEON): exp(x) for x <= 0, -inf -> 0, NaN -> NaN.
 * Cody-Waite reduction x = n ln2 + r, degree-6 Taylor polynomial (relative error < 2e-7), 2^n built
 * in the exponent field; x < -87.3 (result below FLT_MIN) flushes to 0. */
#ifndef SK_ATTN_EXP_NEON_H
#define SK_ATTN_EXP_NEON_H

#include <arm_neon.h>

static inline float32x4_t sk_attn_exp_neg_neon(float32x4_t x)
{
    const float32x4_t lo = vdupq_n_f32(-87.3f);                /* ~ ln(FLT_MIN) */
    const uint32x4_t tiny = vcltq_f32(x, lo);                  /* false for NaN */
    x = vmaxq_f32(x, lo);                                      /* FMAX: NaN propagates */
    const float32x4_t n = vrndnq_f32(vmulq_n_f32(x, 1.44269504f));
    float32x4_t r = vfmsq_f32(x, n, vdupq_n_f32(0.693145752f));  /* ln 2 high part */
    r = vfmsq_f32(r, n, vdupq_n_f32(1.42860677e-6f));            /* ln 2 low part */
    float32x4_t p = vdupq_n_f32(1.f / 720.f);
    p = vfmaq_f32(vdupq_n_f32(1.f / 120.f), p, r);
    p = vfmaq_f32(vdupq_n_f32(1.f / 24.f), p, r);
    p = vfmaq_f32(vdupq_n_f32(1.f / 6.f), p, r);
    p = vfmaq_f32(vdupq_n_f32(0.5f), p, r);
    p = vfmaq_f32(vdupq_n_f32(1.f), p, r);
    p = vfmaq_f32(vdupq_n_f32(1.f), p, r);
    const int32x4_t e = vshlq_n_s32(vaddq_s32(vcvtq_s32_f32(n), vdupq_n_s32(127)), 23);
    const float32x4_t y = vmulq_f32(p, vreinterpretq_f32_s32(e));
    return vbslq_f32(tiny, vdupq_n_f32(0.f), y);
}

#endif
