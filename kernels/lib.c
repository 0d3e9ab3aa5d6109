/* The public entry points of the exp / softmax and attention families and their argument
 * checks (the GEMM's sk_sgemm and the module's sk_mhca_* stay with their families for now; the ISA
 * queries are in dispatch.c). A checked call takes the active table and hands the family's run
 * function validated arguments, with the row stride of one-row operands normalised (sk_ld1). */
#include "dsp.h"
#include "common.h"
#include "pool.h"

/* ---- exp / softmax ---- */
sk_status sk_exp_tp(const sk_threadpool *tp, size_t n, const float *x, float *y)
{
    if (!sk_tp_ok(tp)) return SK_EINVAL;
    if (n && (!x || !y || n > SK_ELEMS_MAX)) return SK_EINVAL;
    if (!n) return SK_OK;
    sk_exp_run_tp(tp, &sk_dsp_get()->math, n, x, y);
    return SK_OK;
}

sk_status sk_exp(size_t n, const float *x, float *y)
{
    return sk_exp_tp(NULL, n, x, y);
}

sk_status sk_softmax_tp(const sk_threadpool *tp, size_t rows, size_t cols, const float *x,
                        size_t ldx, float *y, size_t ldy)
{
    if (!sk_tp_ok(tp)) return SK_EINVAL;
    if (!sk_mat_ok(x, rows, cols, ldx) || !sk_mat_ok(y, rows, cols, ldy)) return SK_EINVAL;
    if (rows && cols)
        sk_softmax_run_tp(tp, &sk_dsp_get()->math, rows, cols, x, sk_ld1(rows, cols, ldx), y,
                          sk_ld1(rows, cols, ldy));
    return SK_OK;
}

sk_status sk_softmax(size_t rows, size_t cols, const float *x, size_t ldx, float *y, size_t ldy)
{
    return sk_softmax_tp(NULL, rows, cols, x, ldx, y, ldy);
}

sk_status sk_scale_mask_softmax_tp(const sk_threadpool *tp, size_t rows, size_t cols, float scale,
                                   const float *x, size_t ldx, const sk_mask *mask, float *y,
                                   size_t ldy)
{
    if (!sk_tp_ok(tp)) return SK_EINVAL;
    if (!sk_mat_ok(x, rows, cols, ldx) || !sk_mat_ok(y, rows, cols, ldy)) return SK_EINVAL;
    if (sk_mask_check(mask, rows, cols) != SK_OK) return SK_EINVAL;
    if (rows && cols)
        sk_scale_mask_softmax_run_tp(tp, &sk_dsp_get()->math, rows, cols, scale, x,
                                     sk_ld1(rows, cols, ldx), mask, y, sk_ld1(rows, cols, ldy));
    return SK_OK;
}

sk_status sk_scale_mask_softmax(size_t rows, size_t cols, float scale, const float *x, size_t ldx,
                                const sk_mask *mask, float *y, size_t ldy)
{
    return sk_scale_mask_softmax_tp(NULL, rows, cols, scale, x, ldx, mask, y, ldy);
}

/* ---- attention ---- */
/* Shapes, strides and mask; then the outputs (out; weights: wrows x wcols contiguous, NULL: none)
   must not overlap the inputs or each other. */
static sk_status check_args(size_t n_q, size_t n_kv, size_t d_k, size_t d_v, const float *q,
                            size_t ldq, const float *k, size_t ldk, const float *v, size_t ldv,
                            const sk_mask *mask, const float *out, size_t ldo, const float *weights,
                            size_t wrows, size_t wcols)
{
    if (!sk_mat_ok(q, n_q, d_k, ldq) || !sk_mat_ok(k, n_kv, d_k, ldk) ||
        !sk_mat_ok(v, n_kv, d_v, ldv) || !sk_mat_ok(out, n_q, d_v, ldo))
        return SK_EINVAL;
    if (weights && !sk_mat_ok(weights, wrows, wcols, wcols)) return SK_EINVAL; /* size overflow */
    if (sk_mask_check(mask, n_q, n_kv) != SK_OK) return SK_EINVAL;
    const float *o[2] = { out, weights };
    const size_t orows[2] = { n_q, weights ? wrows : 0 }, ocols[2] = { d_v, wcols };
    const size_t old[2] = { ldo, wcols };
    for (int i = 0; i < 2; i++) {
        if (sk_mat_overlap(o[i], orows[i], ocols[i], old[i], q, n_q, d_k, ldq) ||
            sk_mat_overlap(o[i], orows[i], ocols[i], old[i], k, n_kv, d_k, ldk) ||
            sk_mat_overlap(o[i], orows[i], ocols[i], old[i], v, n_kv, d_v, ldv))
            return SK_EINVAL;
    }
    if (sk_mat_overlap(out, n_q, d_v, ldo, weights, orows[1], wcols, wcols)) return SK_EINVAL;
    return SK_OK;
}

sk_status sk_attention_tp(const sk_threadpool *tp, size_t n_q, size_t n_kv, size_t d_k, size_t d_v,
                          const float *q, size_t ldq, const float *k, size_t ldk,
                          const float *v, size_t ldv, float scale, const sk_mask *mask,
                          float *out, size_t ldo, float *weights)
{
    if (!sk_tp_ok(tp)) return SK_EINVAL;
    sk_status st = check_args(n_q, n_kv, d_k, d_v, q, ldq, k, ldk, v, ldv, mask, out, ldo, weights,
                              n_q, n_kv);
    if (st != SK_OK) return st;
    if (n_q == 0) return SK_OK;
    ldq = sk_ld1(n_q, d_k, ldq), ldo = sk_ld1(n_q, d_v, ldo);
    ldk = sk_ld1(n_kv, d_k, ldk), ldv = sk_ld1(n_kv, d_v, ldv);
    sk_attention_run_tp(tp, sk_dsp_get(), n_q, n_kv, d_k, d_v, q, ldq, k, ldk, v, ldv, scale, mask,
                        out, ldo, weights);
    return SK_OK;
}

sk_status sk_attention(size_t n_q, size_t n_kv, size_t d_k, size_t d_v,
                       const float *q, size_t ldq, const float *k, size_t ldk,
                       const float *v, size_t ldv, float scale, const sk_mask *mask,
                       float *out, size_t ldo, float *weights)
{
    return sk_attention_tp(NULL, n_q, n_kv, d_k, d_v, q, ldq, k, ldk, v, ldv, scale, mask, out, ldo,
                           weights);
}

sk_status sk_mha_tp(const sk_threadpool *tp, size_t n_heads, size_t n_q, size_t n_kv, size_t d_head,
                    const float *q, size_t ldq, const float *k, size_t ldk, const float *v,
                    size_t ldv, float scale, const sk_mask *mask, float *out, size_t ldo,
                    float *weights)
{
    if (!sk_tp_ok(tp)) return SK_EINVAL;
    if (n_heads == 0) return SK_EINVAL;
    const size_t w = n_heads * d_head;
    if (d_head && w / d_head != n_heads) return SK_EINVAL; /* overflow */
    size_t wn;
    if (weights && !sk_mul_ok(n_q, n_kv, &wn))
        return SK_EINVAL; /* n_heads * n_q * n_kv overflows */
    sk_status st = check_args(n_q, n_kv, w, w, q, ldq, k, ldk, v, ldv, mask, out, ldo, weights,
                              n_heads, weights ? n_q * n_kv : 0);
    if (st != SK_OK) return st;
    if (n_q == 0) return SK_OK;
    ldq = sk_ld1(n_q, w, ldq), ldo = sk_ld1(n_q, w, ldo);
    ldk = sk_ld1(n_kv, w, ldk), ldv = sk_ld1(n_kv, w, ldv);
    sk_mha_run_tp(tp, sk_dsp_get(), n_heads, n_q, n_kv, d_head, q, ldq, k, ldk, v, ldv, scale,
                  mask, out, ldo, weights);
    return SK_OK;
}

sk_status sk_mha(size_t n_heads, size_t n_q, size_t n_kv, size_t d_head,
                 const float *q, size_t ldq, const float *k, size_t ldk, const float *v, size_t ldv,
                 float scale, const sk_mask *mask, float *out, size_t ldo, float *weights)
{
    return sk_mha_tp(NULL, n_heads, n_q, n_kv, d_head, q, ldq, k, ldk, v, ldv, scale, mask, out,
                     ldo, weights);
}
