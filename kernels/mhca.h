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

/* Row stride, in floats, of the matrices the module keeps in its workspace (Q, the concat, and
   K and V in sk_mhca_forward): d_model rounded up to whole cache lines (16 floats), plus one line
   when that count of lines is even. An odd number of lines between rows spreads the rows of a
   head's column slice over every set of a power-of-two-set cache; at d_model = 512 or 1024 (rows
   a multiple of 4 KiB apart) the rows of a slice would all fall into a few L1 and L2 sets. Never
   below d_model; d_model + 31 at most. */
static inline size_t sk_mhca_ws_ld(size_t d_model)
{
    const size_t lines = d_model / 16 + (d_model % 16 != 0);
    return 16 * (lines + (lines % 2 == 0));
}

/* kv = [enc W_k + b_k | enc W_v + b_v], each n_enc rows of row stride ldkv (>= d_model), V after
   n_enc * ldkv floats of K; enc: n_enc x d_enc, n_enc > 0. */
void sk_mhca_project_kv_run_tp(const sk_threadpool *tp, const sk_attn_tables *t, const sk_mhca *L,
                               size_t n_enc, const float *enc, float *kv, size_t ldkv);
/* sk_mhca_forward_kv, n_dec > 0, K and V as sk_mhca_project_kv_run_tp writes them with ldkv;
   ws: 2 * n_dec * sk_mhca_ws_ld(d_model) floats (Q and the concat). */
void sk_mhca_forward_kv_run_tp(const sk_threadpool *tp, const sk_attn_tables *t, const sk_mhca *L,
                               size_t n_dec, const float *dec, size_t n_enc, const float *kv,
                               size_t ldkv, const uint8_t *enc_mask, float *out, float *weights,
                               float *ws);
/* sk_mhca_forward, n_dec > 0; ws: sk_mhca_workspace_size bytes (the K/V area of
   2 * n_enc * sk_mhca_ws_ld(d_model) floats, then Q and the concat). */
void sk_mhca_forward_run_tp(const sk_threadpool *tp, const sk_attn_tables *t, const sk_mhca *L,
                            size_t n_dec, const float *dec, size_t n_enc, const float *enc,
                            const uint8_t *enc_mask, float *out, float *weights, float *ws);

#endif
