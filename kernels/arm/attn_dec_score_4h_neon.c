/* Attention decoder-step scores over all heads, NEON (contract in attn.h):
 * st[j * ldst + h] = scale * (k_j[h d ..] . q[h d ..]).
 * Each key row is read whole, its heads in groups of 4: one accumulator per head (4 lanes of
 * partial products, d in steps of 4, the tail zero-padded), then two pairwise additions put head
 * h's sum in lane h, the same additions for every lane: a head's result does not depend on nh or
 * on its place in the group. */
#include <arm_neon.h>
#include "arm/attention.h"
#include "arm/neon_util.h"

void sk_attn_dec_score_neon(size_t bk, size_t nh, size_t d, float scale, const float *k, size_t ldk,
                            const float *q, float *st, size_t ldst)
{
    const size_t dv = d - d % 4;
    for (size_t j = 0; j < bk; j++) {
        const float *kr = k + j * ldk;
        for (size_t g0 = 0; g0 < nh; g0 += 4) {
            const size_t ng = nh - g0 < 4 ? nh - g0 : 4;
            float32x4_t acc[4];
            for (size_t h = 0; h < 4; h++) {
                float32x4_t a = vdupq_n_f32(0.f);
                if (h < ng) {
                    const float *qh = q + (g0 + h) * d, *kh = kr + (g0 + h) * d;
                    for (size_t p = 0; p < dv; p += 4)
                        a = vfmaq_f32(a, vld1q_f32(qh + p), vld1q_f32(kh + p));
                    if (d % 4)
                        a = vfmaq_f32(a, sk_load4_neon(qh + dv, d % 4),
                                      sk_load4_neon(kh + dv, d % 4));
                }
                acc[h] = a;
            }
            const float32x4_t r =
                vpaddq_f32(vpaddq_f32(acc[0], acc[1]), vpaddq_f32(acc[2], acc[3]));
            vst1q_f32(st + j * ldst + g0, vmulq_n_f32(r, scale));
        }
    }
}
