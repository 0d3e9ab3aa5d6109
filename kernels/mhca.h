/* Internal: the multi-head cross-attention module's run functions (kernels/mhca.c; the public
 * entry points and their argument checks are in lib.c). Each takes validated arguments, n_dec,
 * n_enc and d_model as the entry point leaves them, and the tables of one ISA. */
#ifndef SK_MHCA_H
#define SK_MHCA_H

#include <stddef.h>
#include <stdint.h>
#include "simdkern.h"
#include "attn.h"
#include "common.h"
#include "gemm.h"

/* Width of the encoder rows: d_enc, 0 meaning d_model. */
static inline size_t sk_mhca_enc_width(const sk_mhca *L)
{
    return L->d_enc ? L->d_enc : L->d_model;
}

/* Row stride, in floats, of the matrices a module call keeps in its workspace (Q and the concat;
   K and V too in sk_mhca_forward), `rows` rows in all (sk_mhca_ws_rows): d_model rounded up to
   whole cache lines (16 floats), plus one line when that count of lines is even. An odd number of
   lines between rows spreads the rows of a head's column slice over every set of a
   power-of-two-set cache; at d_model = 512 or 1024 (rows a multiple of 4 KiB apart) the rows of a
   slice would all fall into a few L1 and L2 sets. d_model + 31 at most; d_model itself when the
   padded rows and the 64 bytes of slack would not fit SK_ELEMS_MAX floats, so that a call whose
   unpadded workspace fits keeps working. The size queries and the run functions use the same
   stride. */
static inline size_t sk_mhca_ws_ld(size_t d_model, size_t rows)
{
    const size_t lines = d_model / 16 + (d_model % 16 != 0);
    const size_t ld = 16 * (lines + (lines % 2 == 0));
    size_t n;
    return sk_mul_ok(rows, ld, &n) && n <= SK_ELEMS_MAX - 16 ? ld : d_model;
}

/* Rows of a module call's workspace matrices: 2 n_dec (Q, the concat) + 2 n_enc (K, V; n_enc = 0
   for sk_mhca_forward_kv); SIZE_MAX when that overflows. */
static inline size_t sk_mhca_ws_rows(size_t n_dec, size_t n_enc)
{
    size_t r;
    return n_dec <= SIZE_MAX / 2 && n_enc <= SIZE_MAX / 2 && sk_add_ok(2 * n_dec, 2 * n_enc, &r)
         ? r : SIZE_MAX;
}

/* The row stride of Q and the concat in a decoder step's workspace (sk_mhca_forward_kv: no K/V
   rows in it). */
static inline size_t sk_mhca_step_ld(size_t d_model, size_t n_dec)
{
    return sk_mhca_ws_ld(d_model, sk_mhca_ws_rows(n_dec, 0));
}

/* The layer's packed weights (sk_mhca.w_*_packed), checked: pb NULL where the layer has none. */
typedef struct sk_mhca_packs {
    sk_gemm_packed_b q, k, v, o;
} sk_mhca_packs;

/* kv = [enc W_k + b_k | enc W_v + b_v], each n_enc rows of row stride ldkv (>= d_model), V after
   n_enc * ldkv floats of K; enc: n_enc x d_enc, n_enc > 0. */
void sk_mhca_project_kv_run_tp(const sk_threadpool *tp, const sk_attn_tables *t, const sk_mhca *L,
                               const sk_mhca_packs *P, size_t n_enc, const float *enc, float *kv,
                               size_t ldkv);
/* sk_mhca_forward_kv, n_dec > 0, K and V as sk_mhca_project_kv_run_tp writes them with ldkv;
   ws: Q and the concat, n_dec rows each of stride ldw (>= d_model). */
void sk_mhca_forward_kv_run_tp(const sk_threadpool *tp, const sk_attn_tables *t, const sk_mhca *L,
                               const sk_mhca_packs *P, size_t n_dec, const float *dec, size_t n_enc,
                               const float *kv, size_t ldkv, const uint8_t *enc_mask, float *out,
                               float *weights, float *ws, size_t ldw);
/* sk_mhca_forward, n_dec > 0; ws: sk_mhca_workspace_size bytes (the K/V area of 2 * n_enc rows,
   then Q and the concat, 2 * n_dec rows, all of stride sk_mhca_ws_ld(d_model,
   sk_mhca_ws_rows(n_dec, n_enc))). */
void sk_mhca_forward_run_tp(const sk_threadpool *tp, const sk_attn_tables *t, const sk_mhca *L,
                            const sk_mhca_packs *P, size_t n_dec, const float *dec, size_t n_enc,
                            const float *enc, const uint8_t *enc_mask, float *out, float *weights,
                            float *ws);

#endif
