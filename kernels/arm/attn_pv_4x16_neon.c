/* Attention P·V with the online rescale folded in, NEON:
 * o[r, :] = corr[r] * o[r, :] + sum_j st[j * bq + r] * v[j, :].
 * Micro-tiles of MR rows x 16 columns (4 x 16: 16 accumulators), column chunks of 4, the last
 * dv % 4 columns in scalar code. */
#include <arm_neon.h>
#include "arm/attention.h"

static inline __attribute__((always_inline)) void tile(int MR, int NV, size_t bq, size_t bk,
                                                       const float *st, const float *v, size_t ldv,
                                                       const float *corr, float *o, size_t ldo)
{
    float32x4_t acc[4][4];
    for (int r = 0; r < MR; r++)
        for (int t = 0; t < NV; t++)
            acc[r][t] = vmulq_n_f32(vld1q_f32(o + r * ldo + 4 * t), corr[r]);
    for (size_t j = 0; j < bk; j++) {
        float32x4_t vv[4];
        for (int t = 0; t < NV; t++) vv[t] = vld1q_f32(v + j * ldv + 4 * t);
        for (int r = 0; r < MR; r++) {
            const float p = st[j * bq + r];
            for (int t = 0; t < NV; t++) acc[r][t] = vfmaq_n_f32(acc[r][t], vv[t], p);
        }
    }
    for (int r = 0; r < MR; r++)
        for (int t = 0; t < NV; t++) vst1q_f32(o + r * ldo + 4 * t, acc[r][t]);
}

#define ROWS(NV)                                                                                   \
    do {                                                                                           \
        size_t r = 0;                                                                              \
        for (; r + 4 <= bq; r += 4)                                                                \
            tile(4, NV, bq, bk, st + r, vc, ldv, corr + r, oc + r * ldo, ldo);                     \
        for (; r < bq; r++) tile(1, NV, bq, bk, st + r, vc, ldv, corr + r, oc + r * ldo, ldo);     \
    } while (0)

void sk_attn_pv_neon(const struct sk_gemm_dsp *gemm, size_t bq, size_t bk, size_t dv,
                     const float *st, const float *v, size_t ldv, const float *corr, float *o,
                     size_t ldo)
{
    (void)gemm;
    size_t c0 = 0;
    for (; c0 + 4 <= dv; c0 += 16) {
        const size_t nv = (dv - c0) / 4 < 4 ? (dv - c0) / 4 : 4;
        const float *vc = v + c0;
        float *oc = o + c0;
        switch (nv) {
        case 1: ROWS(1); break;
        case 2: ROWS(2); break;
        case 3: ROWS(3); break;
        default: ROWS(4); break;
        }
        c0 += 4 * nv - 16; /* advance by the columns done */
    }
    for (; c0 < dv; c0++) /* last dv % 4 columns */
        for (size_t r = 0; r < bq; r++) {
            float acc = o[r * ldo + c0] * corr[r];
            for (size_t j = 0; j < bk; j++) acc += st[j * bq + r] * v[j * ldv + c0];
            o[r * ldo + c0] = acc;
        }
}
