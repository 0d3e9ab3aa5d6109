/* The multi-head cross-attention module and its decoder-step API.
 *
 * sk_mhca_forward = sk_mhca_project_kv (K = enc W_k, V = enc W_v, once per source sequence) +
 * sk_mhca_forward_kv (Q = dec W_q, sk_mha over the heads in place, out = concat W_o). The heads are
 * never copied out: head h is the column range [h*d_head, (h+1)*d_head) of Q, K, V and the concat,
 * passed to the attention core as pointer offsets with row stride d_model. The encoder rows are
 * d_enc wide (0: d_model); K and V, like Q, are d_model wide. A bias (NULL: none) is the first
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
#include <stdlib.h>
#include "dsp.h"
#include "common.h"
#include "pool.h"

/* Width of the encoder rows: d_enc, 0 meaning d_model. */
static size_t enc_width(const sk_mhca *L) { return L->d_enc ? L->d_enc : L->d_model; }

/* 1 when the layer is usable: heads divide d_model, every weight matrix present (d_model > 0) with
   an extent that fits (d_model x d_model; d_enc x d_model for w_k and w_v). */
static int layer_ok(const sk_mhca *L)
{
    if (!L || L->n_heads == 0 || L->d_model % L->n_heads != 0) return 0;
    const size_t d = L->d_model, de = enc_width(L);
    return sk_mat_ok(L->w_q, d, d, d) && sk_mat_ok(L->w_o, d, d, d) &&
           sk_mat_ok(L->w_k, de, d, d) && sk_mat_ok(L->w_v, de, d, d);
}


size_t sk_mhca_kv_size(const sk_mhca *layer, size_t n_enc)
{
    if (!layer_ok(layer)) return 0;
    return sk_floats_bytes3(2, n_enc, layer->d_model);
}

size_t sk_mhca_forward_kv_workspace_size(const sk_mhca *layer, size_t n_dec)
{
    if (!layer_ok(layer)) return 0;
    return sk_floats_bytes3(2, n_dec, layer->d_model); /* Q and the concat, n_dec x d_model each */
}

size_t sk_mhca_workspace_size(const sk_mhca *layer, size_t n_dec, size_t n_enc)
{
    if (!layer_ok(layer)) return 0;
    /* each part 0 on overflow: a nonzero part that is 0 makes the sum 0, never the other part */
    const size_t a = sk_mhca_kv_size(layer, n_enc),
                 b = sk_mhca_forward_kv_workspace_size(layer, n_dec);
    size_t sum;
    if ((!a && n_enc && layer->d_model) || (!b && n_dec && layer->d_model)) return 0;
    size_t ne; /* the encoder rows of such a call must be able to exist */
    if (layer->d_model && (!sk_mul_ok(n_enc, enc_width(layer), &ne) || ne > SK_ELEMS_MAX)) return 0;
    if (!sk_add_ok(a, b, &sum) || sum / sizeof(float) > SK_ELEMS_MAX) return 0;
    return sum;
}

/* 1 when weights (NULL or n_heads x n_dec x n_enc floats) has an extent that fits. */
static int weights_ok(const sk_mhca *L, size_t n_dec, size_t n_enc, const float *weights)
{
    size_t n;
    return !weights || (sk_mul_ok(n_dec, n_enc, &n) && sk_mat_ok(weights, L->n_heads, n, n));
}

/* 1 when the written buffers (w[0..nw), each of wn[i] floats) overlap neither each other nor the
   read ones (r[0..nr), rn[i] floats); NULL or empty buffers never overlap (sizes checked). */
static int disjoint(const float *const *w, const size_t *wn, int nw, const float *const *r,
                    const size_t *rn, int nr)
{
    for (int i = 0; i < nw; i++) {
        if (!w[i]) continue;
        for (int j = 0; j < nr; j++)
            if (r[j] && sk_mat_overlap(w[i], 1, wn[i], wn[i], r[j], 1, rn[j], rn[j])) return 0;
        for (int j = i + 1; j < nw; j++)
            if (w[j] && sk_mat_overlap(w[i], 1, wn[i], wn[i], w[j], 1, wn[j], wn[j])) return 0;
    }
    return 1;
}

/* kv = [enc W_k + b_k | enc W_v + b_v]; enc: n_enc x d_enc */
static void project_kv(const sk_threadpool *tp, const sk_mhca *L, size_t n_enc, const float *enc,
                       float *kv)
{
    const size_t d = L->d_model, de = enc_width(L);
    const sk_gemm_dsp *g = &sk_dsp_get()->gemm;
    sk_gemm_run_bias_tp(tp, g, SK_NOTRANS, SK_NOTRANS, n_enc, d, de, 1.f, enc, de, L->w_k, d, 0.f,
                        L->b_k, kv, d);
    sk_gemm_run_bias_tp(tp, g, SK_NOTRANS, SK_NOTRANS, n_enc, d, de, 1.f, enc, de, L->w_v, d, 0.f,
                        L->b_v, kv + n_enc * d, d);
}

/* ws: 2 * n_dec * d floats */
static void forward_kv(const sk_threadpool *tp, const sk_mhca *L, size_t n_dec, const float *dec,
                       size_t n_enc, const float *kv, const uint8_t *enc_mask, float *out,
                       float *weights, float *ws)
{
    const size_t d = L->d_model, h = L->n_heads, dh = d / h;
    const sk_gemm_dsp *g = &sk_dsp_get()->gemm;
    float *Q = ws, *C = ws + n_dec * d;
    sk_gemm_run_bias_tp(tp, g, SK_NOTRANS, SK_NOTRANS, n_dec, d, d, 1.f, dec, d, L->w_q, d, 0.f,
                        L->b_q, Q, d);
    const sk_mask km = { SK_MASK_KEYS, enc_mask, 0, 0 };
    const float *K = n_enc ? kv : NULL, *V = n_enc ? kv + n_enc * d : NULL;
    sk_mha_tp(tp, h, n_dec, n_enc, dh, Q, d, K, d, V, d, 1.f / sqrtf((float)dh),
              enc_mask ? &km : NULL, C, d, weights); /* valid: checked by the caller */
    sk_gemm_run_bias_tp(tp, g, SK_NOTRANS, SK_NOTRANS, n_dec, d, d, 1.f, C, d, L->w_o, d, 0.f,
                        L->b_o, out, d);
}

/* Floats of workspace the absorbed path needs (Q' and O', n_heads * n_dec x d_enc each, and the
   scores unless they go to weights), when it pays (n_heads * n_dec <= d_model / 2) and fits the
   K/V area of sk_mhca_workspace_size (2 * n_enc * d_model floats); else 0. */
static size_t absorb_floats(const sk_mhca *L, size_t n_dec, size_t n_enc, const float *weights)
{
    const size_t d = L->d_model, de = enc_width(L);
    size_t hq, per, need;
    if (n_enc == 0 || !sk_mul_ok(L->n_heads, n_dec, &hq) || hq > d / 2) return 0;
    if (!sk_add_ok(2 * de, weights ? 0 : n_enc, &per) || !sk_mul_ok(hq, per, &need)) return 0;
    return need <= 2 * n_enc * d ? need : 0;
}

/* sk_mhca_forward without K and V (see the top of the file). ws: 2 * n_enc * d + 2 * n_dec * d
   floats, the layout of sk_mhca_forward's (Q and the concat at the same place). */
static void forward_absorbed(const sk_threadpool *tp, const sk_mhca *L, size_t n_dec,
                             const float *dec, size_t n_enc, const float *enc,
                             const uint8_t *enc_mask, float *out, float *weights, float *ws)
{
    const size_t d = L->d_model, de = enc_width(L), H = L->n_heads, dh = d / H, hq = H * n_dec;
    const sk_dsp *dsp = sk_dsp_get();
    const sk_gemm_dsp *g = &dsp->gemm;
    float *Qa = ws, *Oa = Qa + hq * de, *S = weights ? weights : Oa + hq * de;
    float *Q = ws + 2 * n_enc * d, *C = Q + n_dec * d;
    sk_gemm_run_bias_tp(tp, g, SK_NOTRANS, SK_NOTRANS, n_dec, d, d, 1.f, dec, d, L->w_q, d, 0.f,
                        L->b_q, Q, d);
    const float scale = 1.f / sqrtf((float)dh);
    for (size_t h = 0; h < H; h++) /* Q'_h = scale Q_h W_k,h^T: rows h * n_dec .. of Qa */
        sk_gemm_run_tp(tp, g, SK_NOTRANS, SK_TRANS, n_dec, de, dh, scale, Q + h * dh, d,
                       L->w_k + h * dh, d, 0.f, Qa + h * n_dec * de, de);
    sk_gemm_run_tp(tp, g, SK_NOTRANS, SK_TRANS, hq, n_enc, de, 1.f, Qa, de, enc, de, 0.f, S, n_enc);
    const sk_mask km = { SK_MASK_KEYS, enc_mask, 0, 0 };
    sk_scale_mask_softmax_run_tp(tp, &dsp->math, hq, n_enc, 1.f, S, n_enc, enc_mask ? &km : NULL,
                                 S, n_enc);
    sk_gemm_run_tp(tp, g, SK_NOTRANS, SK_NOTRANS, hq, de, n_enc, 1.f, S, n_enc, enc, de, 0.f, Oa,
                   de);
    int any = !enc_mask; /* a KEYS mask: every row attends to the same keys, or to none */
    for (size_t j = 0; !any && j < n_enc; j++) any = enc_mask[j] != 0;
    for (size_t h = 0; h < H; h++) /* head h of the concat = O'_h W_v,h (+ b_v,h) */
        sk_gemm_run_bias_tp(tp, g, SK_NOTRANS, SK_NOTRANS, n_dec, dh, de, 1.f, Oa + h * n_dec * de,
                            de, L->w_v + h * dh, d, 0.f, any && L->b_v ? L->b_v + h * dh : NULL,
                            C + h * dh, d);
    sk_gemm_run_bias_tp(tp, g, SK_NOTRANS, SK_NOTRANS, n_dec, d, d, 1.f, C, d, L->w_o, d, 0.f,
                        L->b_o, out, d);
}

sk_status sk_mhca_project_kv_tp(const sk_threadpool *tp, const sk_mhca *layer, size_t n_enc,
                                const float *enc, float *kv)
{
    if (!sk_tp_ok(tp) || !layer_ok(layer)) return SK_EINVAL;
    const size_t d = layer->d_model, de = enc_width(layer);
    if (!sk_mat_ok(enc, n_enc, de, de) || !sk_mat_ok(kv, n_enc, d, d)) return SK_EINVAL;
    if (n_enc && d && !sk_mhca_kv_size(layer, n_enc)) return SK_EINVAL; /* size overflow */
    if (n_enc == 0 || d == 0) return SK_OK;
    const float *w[1] = { kv }, *r[1] = { enc };
    const size_t wn[1] = { 2 * n_enc * d }, rn[1] = { n_enc * de };
    if (!disjoint(w, wn, 1, r, rn, 1)) return SK_EINVAL; /* kv overlaps enc */
    project_kv(tp, layer, n_enc, enc, kv);
    return SK_OK;
}

sk_status sk_mhca_project_kv(const sk_mhca *layer, size_t n_enc, const float *enc, float *kv)
{
    return sk_mhca_project_kv_tp(NULL, layer, n_enc, enc, kv);
}

sk_status sk_mhca_forward_kv_tp(const sk_threadpool *tp, const sk_mhca *layer, size_t n_dec,
                                const float *dec, size_t n_enc, const float *kv,
                                const uint8_t *enc_mask, float *out, float *weights,
                                void *workspace)
{
    if (!sk_tp_ok(tp) || !layer_ok(layer)) return SK_EINVAL;
    const size_t d = layer->d_model;
    if (!sk_mat_ok(dec, n_dec, d, d) || !sk_mat_ok(kv, n_enc, d, d) ||
        !sk_mat_ok(out, n_dec, d, d))
        return SK_EINVAL;
    if (n_dec == 0 || d == 0) return SK_OK; /* nothing computed, weights not written */
    if (!weights_ok(layer, n_dec, n_enc, weights)) return SK_EINVAL;
    const size_t wsz = sk_mhca_forward_kv_workspace_size(layer, n_dec);
    if (!wsz || (n_enc && !sk_mhca_kv_size(layer, n_enc))) return SK_EINVAL; /* size overflow */
    {
        const float *w[3] = { out, weights, workspace }, *r[2] = { dec, kv };
        const size_t wn[3] = { n_dec * d, weights ? layer->n_heads * n_dec * n_enc : 0,
                               wsz / sizeof(float) };
        const size_t rn[2] = { n_dec * d, 2 * n_enc * d };
        if (!disjoint(w, wn, 3, r, rn, 2)) return SK_EINVAL; /* an output overlaps */
    }
    float *ws = workspace, *owned = NULL;
    if (!ws) {
        ws = owned = malloc(wsz);
        if (!ws) return SK_ENOMEM;
    }
    forward_kv(tp, layer, n_dec, dec, n_enc, kv, enc_mask, out, weights, ws);
    free(owned);
    return SK_OK;
}

sk_status sk_mhca_forward_kv(const sk_mhca *layer, size_t n_dec, const float *dec, size_t n_enc,
                             const float *kv, const uint8_t *enc_mask, float *out, float *weights,
                             void *workspace)
{
    return sk_mhca_forward_kv_tp(NULL, layer, n_dec, dec, n_enc, kv, enc_mask, out, weights,
                                 workspace);
}

sk_status sk_mhca_forward_tp(const sk_threadpool *tp, const sk_mhca *layer, size_t n_dec,
                             const float *dec, size_t n_enc, const float *enc,
                             const uint8_t *enc_mask, float *out, float *weights, void *workspace)
{
    if (!sk_tp_ok(tp) || !layer_ok(layer)) return SK_EINVAL;
    const size_t d = layer->d_model, de = enc_width(layer);
    if (!sk_mat_ok(dec, n_dec, d, d) || !sk_mat_ok(enc, n_enc, de, de) ||
        !sk_mat_ok(out, n_dec, d, d))
        return SK_EINVAL;
    if (n_dec == 0 || d == 0) return SK_OK; /* nothing computed, weights not written */
    if (!weights_ok(layer, n_dec, n_enc, weights)) return SK_EINVAL;
    const size_t wsz = sk_mhca_workspace_size(layer, n_dec, n_enc);
    if (!wsz) return SK_EINVAL; /* size overflow */
    {
        const float *w[3] = { out, weights, workspace }, *r[2] = { dec, enc };
        const size_t wn[3] = { n_dec * d, weights ? layer->n_heads * n_dec * n_enc : 0,
                               wsz / sizeof(float) };
        const size_t rn[2] = { n_dec * d, n_enc * de };
        if (!disjoint(w, wn, 3, r, rn, 2)) return SK_EINVAL; /* an output overlaps */
    }
    float *ws = workspace, *owned = NULL;
    if (!ws) {
        ws = owned = malloc(wsz);
        if (!ws) return SK_ENOMEM;
    }
    float *kv = ws, *fws = ws + 2 * n_enc * d;
    if (absorb_floats(layer, n_dec, n_enc, weights)) {
        forward_absorbed(tp, layer, n_dec, dec, n_enc, enc, enc_mask, out, weights, ws);
    } else {
        if (n_enc) project_kv(tp, layer, n_enc, enc, kv);
        forward_kv(tp, layer, n_dec, dec, n_enc, kv, enc_mask, out, weights, fws);
    }
    free(owned);
    return SK_OK;
}

sk_status sk_mhca_forward(const sk_mhca *layer, size_t n_dec, const float *dec, size_t n_enc,
                          const float *enc, const uint8_t *enc_mask, float *out, float *weights,
                          void *workspace)
{
    return sk_mhca_forward_tp(NULL, layer, n_dec, dec, n_enc, enc, enc_mask, out, weights,
                              workspace);
}
