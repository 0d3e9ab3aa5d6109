/* Attention online-softmax tile update, NEON (contract in attn.h). bq > 1: 4 query rows per vector
 * down the keys of the transposed tile, remaining rows in scalar code; bq == 1: one row of keys. */
#include <math.h>
#include <arm_neon.h>
#include "arm/attention.h"
#include "arm/exp_neon.h"
#include "arm/math.h"

static float nmax(float a, float b) { return (isnan(a) || isnan(b)) ? NAN : (b > a ? b : a); }

/* rows beyond a multiple of 4, one by one (stride bq) */
static void online_scalar_row(size_t bk, size_t bq, float *s, float *m, float *l, float *corr)
{
    float mb = -INFINITY;
    for (size_t j = 0; j < bk; j++) mb = nmax(mb, s[j * bq]);
    const float mn = nmax(*m, mb);
    if (mn == -INFINITY) {
        for (size_t j = 0; j < bk; j++) s[j * bq] = 0.f;
        *corr = 1.f;
        return;
    }
    float sum = 0.f;
    for (size_t j = 0; j < bk; j++) sum += (s[j * bq] = expf(s[j * bq] - mn));
    *corr = expf(*m - mn);
    *l = *l * *corr + sum;
    *m = mn;
}

/* One query row (a decoder step): the max and exp-sum of the math family, as the scalar tile. */
static void online_row(size_t bk, float *st, float *m, float *l, float *corr)
{
    const float mn = nmax(*m, sk_max_neon(bk, st));
    if (mn == -INFINITY) {
        for (size_t j = 0; j < bk; j++) st[j] = 0.f;
        *corr = 1.f;
        return;
    }
    const float c = expf(*m - mn);
    *corr = c;
    *l = *l * c + sk_expsum_neon(bk, st, mn, st);
    *m = mn;
}

void sk_attn_online_neon(const struct sk_math_dsp *math, size_t bk, size_t bq, float *st, float *m,
                         float *l, float *corr)
{
    (void)math;
    if (bq == 1) {
        online_row(bk, st, m, l, corr);
        return;
    }
    size_t r0 = 0;
    for (; r0 + 4 <= bq; r0 += 4) {
        float *s = st + r0;
        float32x4_t mx = vdupq_n_f32(-INFINITY);
        for (size_t j = 0; j < bk; j++)
            mx = vmaxq_f32(mx, vld1q_f32(s + j * bq)); /* NaN propagates */
        const float32x4_t mo = vld1q_f32(m + r0);
        const float32x4_t mn = vmaxq_f32(mo, mx);
        const uint32x4_t none = vceqq_f32(mn, vdupq_n_f32(-INFINITY));
        const float32x4_t me = vbslq_f32(none, vdupq_n_f32(0.f), mn);
        const float32x4_t c =
            vbslq_f32(none, vdupq_n_f32(1.f), sk_expneg_rr2_p6_neon(vsubq_f32(mo, me)));
        float32x4_t sum = vdupq_n_f32(0.f);
        for (size_t j = 0; j < bk; j++) {
            const float32x4_t e = sk_expneg_rr2_p6_neon(vsubq_f32(vld1q_f32(s + j * bq), me));
            vst1q_f32(s + j * bq, e);
            sum = vaddq_f32(sum, e);
        }
        vst1q_f32(l + r0, vfmaq_f32(sum, vld1q_f32(l + r0), c));
        vst1q_f32(m + r0, mn);
        vst1q_f32(corr + r0, c);
    }
    for (; r0 < bq; r0++) online_scalar_row(bk, bq, st + r0, m + r0, l + r0, corr + r0);
}
