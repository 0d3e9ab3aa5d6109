/* Attention tile kernels, portable: the score tile and P·V through the GEMM slot (so this path
 * speeds up with the GEMM), the online-softmax update through the exp slots for a decoder step. */
#include <math.h>
#include "attn.h"
#include "gemm.h"
#include "vmath.h"

void sk_attn_pack_q_scalar(size_t bq, size_t d, const float *q, size_t ldq, float *qt)
{
    for (size_t r = 0; r < bq; r++)
        for (size_t p = 0; p < d; p++) qt[p * bq + r] = q[r * ldq + p];
}

void sk_attn_score_scalar(const struct sk_gemm_dsp *gemm, size_t bk, size_t bq, size_t d,
                          float scale, const float *k, size_t ldk, const float *q, size_t ldq,
                          const float *qt, float *st)
{
    (void)qt;
    /* st (bk x bq) = scale * K Q^T */
    sk_gemm_run(gemm, SK_NOTRANS, SK_TRANS, bk, bq, d, scale, k, ldk, q, ldq, 0.f, st, bq);
}

/* max with NaN sticky */
static float nmax(float a, float b) { return (isnan(a) || isnan(b)) ? NAN : (b > a ? b : a); }

void sk_attn_online_scalar(const struct sk_math_dsp *math, size_t bk, size_t bq, float *st,
                           float *m, float *l, float *corr)
{
    for (size_t r = 0; r < bq; r++) {
        float mb;
        if (bq == 1) mb = math->max(bk, st);
        else {
            mb = -INFINITY;
            for (size_t j = 0; j < bk; j++) mb = nmax(mb, st[j * bq + r]);
        }
        const float mn = nmax(m[r], mb);
        if (mn == -INFINITY) {
            corr[r] = 1.f;
            for (size_t j = 0; j < bk; j++) st[j * bq + r] = 0.f;
            continue;
        }
        corr[r] = expf(m[r] - mn);
        float s;
        if (bq == 1) s = math->expsum(bk, st, mn, st);
        else {
            s = 0.f;
            for (size_t j = 0; j < bk; j++) s += (st[j * bq + r] = expf(st[j * bq + r] - mn));
        }
        l[r] = l[r] * corr[r] + s;
        m[r] = mn;
    }
}

void sk_attn_pv_scalar(const struct sk_gemm_dsp *gemm, size_t bq, size_t bk, size_t dv,
                       const float *st, const float *v, size_t ldv, const float *corr, float *o,
                       size_t ldo)
{
    for (size_t r = 0; r < bq; r++)
        if (corr[r] != 1.f)
            for (size_t c = 0; c < dv; c++) o[r * ldo + c] *= corr[r];
    /* o (bq x dv) += st^T V */
    sk_gemm_run(gemm, SK_TRANS, SK_NOTRANS, bq, dv, bk, 1.f, st, bq, v, ldv, 1.f, o, ldo);
}

void sk_attn_dec_score_scalar(size_t bk, size_t nh, size_t d, float scale, const float *k,
                              size_t ldk, const float *q, float *st, size_t ldst)
{
    for (size_t j = 0; j < bk; j++)
        for (size_t h = 0; h < nh; h++) {
            const float *kr = k + j * ldk + h * d, *qr = q + h * d;
            float s = 0.f;
            for (size_t p = 0; p < d; p++) s += qr[p] * kr[p];
            st[j * ldst + h] = scale * s;
        }
    for (size_t j = 0; j < bk; j++)
        for (size_t h = nh; h < ldst; h++) st[j * ldst + h] = 0.f;
}

void sk_attn_dec_pv_scalar(size_t bk, size_t nh, size_t d, const float *st, size_t ldst,
                           const float *v, size_t ldv, const float *corr, float *o)
{
    for (size_t h = 0; h < nh; h++)
        for (size_t x = 0; x < d; x++) o[h * d + x] *= corr[h];
    for (size_t j = 0; j < bk; j++)
        for (size_t h = 0; h < nh; h++) {
            const float p = st[j * ldst + h];
            const float *vr = v + j * ldv + h * d;
            for (size_t x = 0; x < d; x++) o[h * d + x] += p * vr[x];
        }
}
