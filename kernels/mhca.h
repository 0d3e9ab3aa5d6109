/* Internal: the multi-head cross-attention module's run functions (kernels/mhca.c; the public
 * entry points and their argument checks are in lib.c). Each takes validated arguments, n_dec,
 * n_enc and d_model as the entry point leaves them, and the tables of one ISA. */
#ifndef SK_MHCA_H
#define SK_MHCA_H

#include <stddef.h>
#include <stdint.h>
#include "simdkern.h"
#include "attn.h"

/* Width of the encoder rows: d_enc, 0 meaning d_model. */
static inline size_t sk_mhca_enc_width(const sk_mhca *L)
{
    return L->d_enc ? L->d_enc : L->d_model;
}

/* kv = [enc W_k + b_k | enc W_v + b_v]; enc: n_enc x d_enc, n_enc > 0. */
void sk_mhca_project_kv_run_tp(const sk_threadpool *tp, const sk_attn_tables *t, const sk_mhca *L,
                               size_t n_enc, const float *enc, float *kv);
/* sk_mhca_forward_kv, n_dec > 0; ws: 2 * n_dec * d_model floats (Q and the concat). */
void sk_mhca_forward_kv_run_tp(const sk_threadpool *tp, const sk_attn_tables *t, const sk_mhca *L,
                               size_t n_dec, const float *dec, size_t n_enc, const float *kv,
                               const uint8_t *enc_mask, float *out, float *weights, float *ws);
/* sk_mhca_forward, n_dec > 0; ws: sk_mhca_workspace_size bytes (the K/V area of
   2 * n_enc * d_model floats, then Q and the concat). */
void sk_mhca_forward_run_tp(const sk_threadpool *tp, const sk_attn_tables *t, const sk_mhca *L,
                            size_t n_dec, const float *dec, size_t n_enc, const float *enc,
                            const uint8_t *enc_mask, float *out, float *weights, float *ws);

#endif
