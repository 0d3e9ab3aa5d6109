/* Attention decoder-step P·V over all heads, NEON (contract in attn.h):
 * o[h d + x] = corr[h] * o[h d + x] + sum_j st[j * ldst + h] * v_j[h d + x].
 * Each value row is read whole: the output of every head (nh d floats, in L1) is loaded, updated
 * with one FMA per 4 floats and stored back, row after row; the last d % 4 floats of a head in
 * scalar fused multiply-adds. */
#include <math.h>
#include <arm_neon.h>
#include "arm/attention.h"

void sk_attn_dec_pv_neon(size_t bk, size_t nh, size_t d, const float *st, size_t ldst,
                         const float *v, size_t ldv, const float *corr, float *o)
{
    const size_t dv = d - d % 4;
    for (size_t h = 0; h < nh; h++) {
        float *oh = o + h * d;
        for (size_t x = 0; x < dv; x += 4)
            vst1q_f32(oh + x, vmulq_n_f32(vld1q_f32(oh + x), corr[h]));
        for (size_t x = dv; x < d; x++) oh[x] *= corr[h];
    }
    for (size_t j = 0; j < bk; j++) {
        const float *vr = v + j * ldv;
        for (size_t h = 0; h < nh; h++) {
            const float p = st[j * ldst + h];
            const float *vh = vr + h * d;
            float *oh = o + h * d;
            for (size_t x = 0; x < dv; x += 4)
                vst1q_f32(oh + x, vfmaq_n_f32(vld1q_f32(oh + x), vld1q_f32(vh + x), p));
            for (size_t x = dv; x < d; x++) oh[x] = fmaf(p, vh[x], oh[x]);
        }
    }
}
