/* The multi-head cross-attention module and its decoder-step API.
 *
 * sk_mhca_forward = sk_mhca_project_kv (K = enc W_k, V = enc W_v, once per source sequence) +
 * sk_mhca_forward_kv (Q = dec W_q, sk_mha over the heads in place, out = concat W_o). The heads are
 * never copied out: head h is the column range [h*d_head, (h+1)*d_head) of Q, K, V and the concat,
 * passed to the attention core as pointer offsets with row stride d_model. */
#include <math.h>
#include <stdlib.h>
#include "dsp.h"
#include "common.h"
#include "pool.h"

static int layer_ok(const sk_mhca *L)
{
    if (!L || L->n_heads == 0 || L->d_model % L->n_heads != 0) return 0;
    return L->d_model == 0 || (L->w_q && L->w_k && L->w_v && L->w_o);
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
    const size_t a = sk_mhca_kv_size(layer, n_enc), b = sk_mhca_forward_kv_workspace_size(layer, n_dec);
    size_t sum;
    if ((!a && n_enc && layer->d_model) || (!b && n_dec && layer->d_model)) return 0;
    if (!sk_add_ok(a, b, &sum) || sum / sizeof(float) > SK_ELEMS_MAX) return 0;
    return sum;
}

static void project_kv(const sk_threadpool *tp, const sk_mhca *L, size_t n_enc, const float *enc,
                       float *kv)
{
    const size_t d = L->d_model;
    const sk_gemm_dsp *g = &sk_dsp_get()->gemm;
    sk_gemm_run_tp(tp, g, SK_NOTRANS, SK_NOTRANS, n_enc, d, d, 1.f, enc, d, L->w_k, d, 0.f, kv, d);
    sk_gemm_run_tp(tp, g, SK_NOTRANS, SK_NOTRANS, n_enc, d, d, 1.f, enc, d, L->w_v, d, 0.f,
                   kv + n_enc * d, d);
}

/* ws: 2 * n_dec * d floats */
static void forward_kv(const sk_threadpool *tp, const sk_mhca *L, size_t n_dec, const float *dec,
                       size_t n_enc, const float *kv, const uint8_t *enc_mask, float *out,
                       float *weights, float *ws)
{
    const size_t d = L->d_model, h = L->n_heads, dh = d / h;
    const sk_gemm_dsp *g = &sk_dsp_get()->gemm;
    float *Q = ws, *C = ws + n_dec * d;
    sk_gemm_run_tp(tp, g, SK_NOTRANS, SK_NOTRANS, n_dec, d, d, 1.f, dec, d, L->w_q, d, 0.f, Q, d);
    const sk_mask km = { SK_MASK_KEYS, enc_mask, 0, 0 };
    const float *K = n_enc ? kv : NULL, *V = n_enc ? kv + n_enc * d : NULL;
    sk_mha_tp(tp, h, n_dec, n_enc, dh, Q, d, K, d, V, d, 1.f / sqrtf((float)dh),
              enc_mask ? &km : NULL, C, d, weights); /* arguments valid by construction */
    sk_gemm_run_tp(tp, g, SK_NOTRANS, SK_NOTRANS, n_dec, d, d, 1.f, C, d, L->w_o, d, 0.f, out, d);
}

sk_status sk_mhca_project_kv_tp(const sk_threadpool *tp, const sk_mhca *layer, size_t n_enc,
                                const float *enc, float *kv)
{
    if (!sk_tp_ok(tp) || !layer_ok(layer)) return SK_EINVAL;
    const size_t d = layer->d_model;
    if (!sk_mat_ok(enc, n_enc, d, d) || !sk_mat_ok(kv, n_enc, d, d)) return SK_EINVAL;
    if (n_enc && d && !sk_mhca_kv_size(layer, n_enc)) return SK_EINVAL; /* size overflow */
    if (n_enc == 0 || d == 0) return SK_OK;
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
    if (!sk_mat_ok(dec, n_dec, d, d) || !sk_mat_ok(kv, n_enc, d, d) || !sk_mat_ok(out, n_dec, d, d))
        return SK_EINVAL;
    if (n_dec == 0 || d == 0) return SK_OK;
    const size_t wsz = sk_mhca_forward_kv_workspace_size(layer, n_dec);
    if (!wsz || (n_enc && !sk_mhca_kv_size(layer, n_enc))) return SK_EINVAL; /* size overflow */
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
    const size_t d = layer->d_model;
    if (!sk_mat_ok(dec, n_dec, d, d) || !sk_mat_ok(enc, n_enc, d, d) || !sk_mat_ok(out, n_dec, d, d))
        return SK_EINVAL;
    if (n_dec == 0 || d == 0) return SK_OK;
    const size_t wsz = sk_mhca_workspace_size(layer, n_dec, n_enc);
    if (!wsz) return SK_EINVAL; /* size overflow */
    float *ws = workspace, *owned = NULL;
    if (!ws) {
        ws = owned = malloc(wsz);
        if (!ws) return SK_ENOMEM;
    }
    float *kv = ws, *fws = ws + 2 * n_enc * d;
    if (n_enc) project_kv(tp, layer, n_enc, enc, kv);
    forward_kv(tp, layer, n_dec, dec, n_enc, kv, enc_mask, out, weights, fws);
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
