/* The multi-head cross-attention module. (Stub: issue 5 refines it.) */
#include <math.h>
#include <stdlib.h>
#include "dsp.h"
#include "common.h"

static int layer_ok(const sk_mhca *L)
{
    if (!L || L->n_heads == 0 || L->d_model % L->n_heads != 0) return 0;
    return L->d_model == 0 || (L->w_q && L->w_k && L->w_v && L->w_o);
}

size_t sk_mhca_workspace_size(const sk_mhca *layer, size_t n_dec, size_t n_enc)
{
    if (!layer_ok(layer)) return 0;
    /* Q and concat (n_dec x d_model each), K and V (n_enc x d_model each) */
    return (2 * n_dec + 2 * n_enc) * layer->d_model * sizeof(float);
}

sk_status sk_mhca_forward(const sk_mhca *layer, size_t n_dec, const float *dec, size_t n_enc,
                          const float *enc, const uint8_t *enc_mask, float *out, float *weights,
                          void *workspace)
{
    if (!layer_ok(layer)) return SK_EINVAL;
    const size_t d = layer->d_model, h = layer->n_heads;
    if (!sk_mat_ok(dec, n_dec, d, d) || !sk_mat_ok(enc, n_enc, d, d) || !sk_mat_ok(out, n_dec, d, d))
        return SK_EINVAL;
    if (n_dec == 0 || d == 0) return SK_OK;
    float *ws = workspace, *owned = NULL;
    if (!ws) {
        ws = owned = malloc(sk_mhca_workspace_size(layer, n_dec, n_enc) + sizeof(float));
        if (!ws) return SK_ENOMEM;
    }
    float *Q = ws, *K = Q + n_dec * d, *V = K + n_enc * d, *C = V + n_enc * d;
    const sk_dsp *dsp = sk_dsp_get();
    sk_gemm_run(&dsp->gemm, SK_NOTRANS, SK_NOTRANS, n_dec, d, d, 1.f, dec, d, layer->w_q, d, 0.f, Q, d);
    if (n_enc) {
        sk_gemm_run(&dsp->gemm, SK_NOTRANS, SK_NOTRANS, n_enc, d, d, 1.f, enc, d, layer->w_k, d, 0.f, K, d);
        sk_gemm_run(&dsp->gemm, SK_NOTRANS, SK_NOTRANS, n_enc, d, d, 1.f, enc, d, layer->w_v, d, 0.f, V, d);
    }
    const size_t dh = d / h;
    sk_mask km = { SK_MASK_KEYS, enc_mask, 0, 0 };
    sk_mha(h, n_dec, n_enc, dh, Q, d, n_enc ? K : NULL, d, n_enc ? V : NULL, d,
           1.f / sqrtf((float)dh), enc_mask ? &km : NULL, C, d, weights);
    sk_gemm_run(&dsp->gemm, SK_NOTRANS, SK_NOTRANS, n_dec, d, d, 1.f, C, d, layer->w_o, d, 0.f, out, d);
    free(owned);
    return SK_OK;
}
