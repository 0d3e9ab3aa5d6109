/* The multi-head cross-attention module and its decoder-step API: the run functions (the public
 * entry points and their argument checks are in lib.c).
 *
 * sk_mhca_forward = sk_mhca_project_kv (K = enc W_k, V = enc W_v, once per source sequence) +
 * sk_mhca_forward_kv (Q = dec W_q, sk_mha over the heads in place, out = concat W_o). The heads are
 * never copied out: head h is the column range [h*d_head, (h+1)*d_head) of Q, K, V and the concat,
 * passed to the attention core as pointer offsets with the matrix's row stride: sk_mhca_ws_ld in
 * the workspace (a padded stride, see mhca.h), d_model in a caller's kv buffer. The encoder rows
 * are d_enc wide (0: d_model); K and V, like Q, are d_model wide. A bias (NULL: none) is the first
 * store of its projection's GEMM (sk_gemm_run_bias), never a pass of its own over the result.
 *
 * sk_mhca_forward with few query rows per head (n_heads * n_dec <= d_model / 2) skips K and V:
 * per head, Q_h K_h^T = (Q_h W_k,h^T) enc^T + (a per-row constant, Q_h b_k,h, that the softmax
 * cancels) and P_h V_h = (P_h enc) W_v,h + b_v,h (rows of P sum to 1, or 0 when every key is
 * padded). All heads then share K = V = enc: one GEMM of scores for the n_heads * n_dec stacked
 * query rows, the softmax, one GEMM P enc, and per head a small GEMM each side. That is
 * n_heads * n_dec * n_enc * d_enc multiply-adds per side instead of n_enc * d_enc * d_model (the
 * projection of every encoder row); the scores go to weights or to the workspace's K/V area. */
#include <math.h>
#include "mhca.h"
#include "gemm.h"
#include "vmath.h"
#include "common.h"

/* c = a w + bias (m x n, k deep; w: k x n, row stride n), from w's packed copy pk when there is
   one (pk->pb), else from w on the module's table g. */
static void project(const sk_threadpool *tp, const sk_gemm_dsp *g, const sk_gemm_packed_b *pk,
                    size_t m, size_t n, size_t k, const float *a, size_t lda, const float *w,
                    const float *bias, float *c, size_t ldc)
{
    if (pk->pb)
        sk_gemm_run_packed_bias_tp(tp, pk->d, SK_NOTRANS, m, n, k, 1.f, a, lda, pk->pb, 0.f, bias,
                                   c, ldc);
    else
        sk_gemm_run_bias_tp(tp, g, SK_NOTRANS, SK_NOTRANS, m, n, k, 1.f, a, lda, w, n, 0.f, bias, c,
                            ldc);
}

void sk_mhca_project_kv_run_tp(const sk_threadpool *tp, const sk_attn_tables *t, const sk_mhca *L,
                               const sk_mhca_packs *P, size_t n_enc, const float *enc, float *kv,
                               size_t ldkv)
{
    const size_t d = L->d_model, de = sk_mhca_enc_width(L);
    project(tp, t->gemm, &P->k, n_enc, d, de, enc, de, L->w_k, L->b_k, kv, ldkv);
    project(tp, t->gemm, &P->v, n_enc, d, de, enc, de, L->w_v, L->b_v, kv + n_enc * ldkv, ldkv);
}

void sk_mhca_forward_kv_run_tp(const sk_threadpool *tp, const sk_attn_tables *t, const sk_mhca *L,
                               const sk_mhca_packs *P, size_t n_dec, const float *dec, size_t n_enc,
                               const float *kv, size_t ldkv, const uint8_t *enc_mask, float *out,
                               float *weights, float *ws, size_t ldw)
{
    const size_t d = L->d_model, h = L->n_heads, dh = d / h;
    float *Q = ws, *C = ws + n_dec * ldw;
    project(tp, t->gemm, &P->q, n_dec, d, d, dec, d, L->w_q, L->b_q, Q, ldw);
    const sk_mask km = { SK_MASK_KEYS, enc_mask, 0, 0 };
    const float *K = n_enc ? kv : NULL, *V = n_enc ? kv + n_enc * ldkv : NULL;
    sk_mha_run_tp(tp, t, h, n_dec, n_enc, dh, Q, ldw, K, ldkv, V, ldkv, 1.f / sqrtf((float)dh),
                  enc_mask ? &km : NULL, C, ldw, weights); /* valid: checked by the caller */
    project(tp, t->gemm, &P->o, n_dec, d, d, C, ldw, L->w_o, L->b_o, out, d);
}

/* Floats of workspace the absorbed path needs (Q' and O', n_heads * n_dec x d_enc each, and the
   scores unless they go to weights), when it pays (n_heads * n_dec <= d_model / 2) and fits the
   K/V area of sk_mhca_workspace_size (at least 2 * n_enc * d_model floats); else 0. */
static size_t absorb_floats(const sk_mhca *L, size_t n_dec, size_t n_enc, const float *weights)
{
    const size_t d = L->d_model, de = sk_mhca_enc_width(L);
    size_t hq, per, need;
    if (n_enc == 0 || !sk_mul_ok(L->n_heads, n_dec, &hq) || hq > d / 2) return 0;
    if (!sk_add_ok(2 * de, weights ? 0 : n_enc, &per) || !sk_mul_ok(hq, per, &need)) return 0;
    return need <= 2 * n_enc * d ? need : 0;
}

/* sk_mhca_forward without K and V (see the top of the file). ws: sk_mhca_forward's layout at row
   stride ld (Q and the concat at the same place, the K/V area holding Q', O' and the scores). */
static void forward_absorbed(const sk_threadpool *tp, const sk_attn_tables *t, const sk_mhca *L,
                             const sk_mhca_packs *P, size_t n_dec, const float *dec, size_t n_enc,
                             const float *enc, const uint8_t *enc_mask, float *out, float *weights,
                             float *ws, size_t ld)
{
    const size_t d = L->d_model, de = sk_mhca_enc_width(L), H = L->n_heads, dh = d / H;
    const size_t hq = H * n_dec;
    const sk_gemm_dsp *g = t->gemm;
    float *Qa = ws, *Oa = Qa + hq * de, *S = weights ? weights : Oa + hq * de;
    float *Q = ws + 2 * n_enc * ld, *C = Q + n_dec * ld;
    project(tp, g, &P->q, n_dec, d, d, dec, d, L->w_q, L->b_q, Q, ld);
    const float scale = 1.f / sqrtf((float)dh);
    for (size_t h = 0; h < H; h++) /* Q'_h = scale Q_h W_k,h^T: rows h * n_dec .. of Qa */
        sk_gemm_run_tp(tp, g, SK_NOTRANS, SK_TRANS, n_dec, de, dh, scale, Q + h * dh, ld,
                       L->w_k + h * dh, d, 0.f, Qa + h * n_dec * de, de);
    sk_gemm_run_tp(tp, g, SK_NOTRANS, SK_TRANS, hq, n_enc, de, 1.f, Qa, de, enc, de, 0.f, S, n_enc);
    const sk_mask km = { SK_MASK_KEYS, enc_mask, 0, 0 };
    sk_scale_mask_softmax_run_tp(tp, t->math, hq, n_enc, 1.f, S, n_enc, enc_mask ? &km : NULL,
                                 S, n_enc);
    sk_gemm_run_tp(tp, g, SK_NOTRANS, SK_NOTRANS, hq, de, n_enc, 1.f, S, n_enc, enc, de, 0.f, Oa,
                   de);
    int any = !enc_mask; /* a KEYS mask: every row attends to the same keys, or to none */
    for (size_t j = 0; !any && j < n_enc; j++) any = enc_mask[j] != 0;
    for (size_t h = 0; h < H; h++) /* head h of the concat = O'_h W_v,h (+ b_v,h) */
        sk_gemm_run_bias_tp(tp, g, SK_NOTRANS, SK_NOTRANS, n_dec, dh, de, 1.f, Oa + h * n_dec * de,
                            de, L->w_v + h * dh, d, 0.f, any && L->b_v ? L->b_v + h * dh : NULL,
                            C + h * dh, ld);
    project(tp, g, &P->o, n_dec, d, d, C, ld, L->w_o, L->b_o, out, d);
}

void sk_mhca_forward_run_tp(const sk_threadpool *tp, const sk_attn_tables *t, const sk_mhca *L,
                            const sk_mhca_packs *P, size_t n_dec, const float *dec, size_t n_enc,
                            const float *enc, const uint8_t *enc_mask, float *out, float *weights,
                            float *ws)
{
    const size_t ld = sk_mhca_ws_ld(L->d_model, sk_mhca_ws_rows(n_dec, n_enc));
    float *kv = ws, *fws = ws + 2 * n_enc * ld;
    if (absorb_floats(L, n_dec, n_enc, weights)) {
        forward_absorbed(tp, t, L, P, n_dec, dec, n_enc, enc, enc_mask, out, weights, ws, ld);
    } else {
        if (n_enc) sk_mhca_project_kv_run_tp(tp, t, L, P, n_enc, enc, kv, ld);
        sk_mhca_forward_kv_run_tp(tp, t, L, P, n_dec, dec, n_enc, kv, ld, enc_mask, out, weights,
                                  fws, ld);
    }
}
