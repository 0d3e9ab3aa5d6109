/* Attention score tile, NEON: st[j * bq + r] = scale * k_j . q_r.
 * bq > 1: 8 keys x 8 query rows per micro-tile (16 accumulators) on the packed Q^T, rows beyond a
 * multiple of 4 in scalar code. bq == 1 (decoder step): 4 keys at a time as dot products along d.
 */
#include <arm_neon.h>
#include "arm/attention.h"

void sk_attn_pack_q_neon(size_t bq, size_t d, const float *q, size_t ldq, float *qt)
{
    for (size_t r = 0; r < bq; r++)
        for (size_t p = 0; p < d; p++) qt[p * bq + r] = q[r * ldq + p];
}

/* MK keys x NV vectors of 4 rows */
static inline __attribute__((always_inline)) void tile(int MK, int NV, size_t d, float scale,
                                                       const float *k, size_t ldk, const float *qt,
                                                       size_t bq, float *st)
{
    float32x4_t acc[8][2];
    for (int i = 0; i < MK; i++) { acc[i][0] = vdupq_n_f32(0.f); acc[i][1] = vdupq_n_f32(0.f); }
    for (size_t p = 0; p < d; p++) {
        const float32x4_t q0 = vld1q_f32(qt + p * bq);
        const float32x4_t q1 = NV > 1 ? vld1q_f32(qt + p * bq + 4) : q0;
        for (int i = 0; i < MK; i++) {
            const float kv = k[i * ldk + p];
            acc[i][0] = vfmaq_n_f32(acc[i][0], q0, kv);
            if (NV > 1) acc[i][1] = vfmaq_n_f32(acc[i][1], q1, kv);
        }
    }
    for (int i = 0; i < MK; i++) {
        vst1q_f32(st + i * bq, vmulq_n_f32(acc[i][0], scale));
        if (NV > 1) vst1q_f32(st + i * bq + 4, vmulq_n_f32(acc[i][1], scale));
    }
}

static void score_dot(size_t bk, size_t d, float scale, const float *k, size_t ldk, const float *q,
                      float *st)
{
    const size_t d4 = d & ~(size_t)3;
    size_t j = 0;
    for (; j + 4 <= bk; j += 4) {
        float32x4_t a0 = vdupq_n_f32(0.f), a1 = a0, a2 = a0, a3 = a0;
        const float *k0 = k + j * ldk, *k1 = k0 + ldk, *k2 = k1 + ldk, *k3 = k2 + ldk;
        for (size_t p = 0; p < d4; p += 4) {
            const float32x4_t qv = vld1q_f32(q + p);
            a0 = vfmaq_f32(a0, vld1q_f32(k0 + p), qv);
            a1 = vfmaq_f32(a1, vld1q_f32(k1 + p), qv);
            a2 = vfmaq_f32(a2, vld1q_f32(k2 + p), qv);
            a3 = vfmaq_f32(a3, vld1q_f32(k3 + p), qv);
        }
        float s0 = vaddvq_f32(a0), s1 = vaddvq_f32(a1), s2 = vaddvq_f32(a2), s3 = vaddvq_f32(a3);
        for (size_t p = d4; p < d; p++) {
            s0 += k0[p] * q[p]; s1 += k1[p] * q[p]; s2 += k2[p] * q[p]; s3 += k3[p] * q[p];
        }
        st[j] = s0 * scale; st[j + 1] = s1 * scale; st[j + 2] = s2 * scale; st[j + 3] = s3 * scale;
    }
    for (; j < bk; j++) {
        const float *kj = k + j * ldk;
        float32x4_t a = vdupq_n_f32(0.f);
        for (size_t p = 0; p < d4; p += 4) a = vfmaq_f32(a, vld1q_f32(kj + p), vld1q_f32(q + p));
        float s = vaddvq_f32(a);
        for (size_t p = d4; p < d; p++) s += kj[p] * q[p];
        st[j] = s * scale;
    }
}

void sk_attn_score_neon(const struct sk_gemm_dsp *gemm, size_t bk, size_t bq, size_t d, float scale,
                        const float *k, size_t ldk, const float *q, size_t ldq, const float *qt,
                        float *st)
{
    (void)gemm;
    if (bq == 1) { score_dot(bk, d, scale, k, ldk, q, st); return; }
    size_t r0 = 0;
    for (; r0 + 8 <= bq; r0 += 8) {
        size_t j = 0;
        for (; j + 8 <= bk; j += 8)
            tile(8, 2, d, scale, k + j * ldk, ldk, qt + r0, bq, st + j * bq + r0);
        for (; j < bk; j++) tile(1, 2, d, scale, k + j * ldk, ldk, qt + r0, bq, st + j * bq + r0);
    }
    if (r0 + 4 <= bq) {
        size_t j = 0;
        for (; j + 8 <= bk; j += 8)
            tile(8, 1, d, scale, k + j * ldk, ldk, qt + r0, bq, st + j * bq + r0);
        for (; j < bk; j++) tile(1, 1, d, scale, k + j * ldk, ldk, qt + r0, bq, st + j * bq + r0);
        r0 += 4;
    }
    for (; r0 < bq; r0++) /* last rows: dot products along d */
        for (size_t j = 0; j < bk; j++) {
            float s = 0.f;
            for (size_t p = 0; p < d; p++) s += k[j * ldk + p] * qt[p * bq + r0];
            st[j * bq + r0] = s * scale;
        }
    (void)ldq;
}
