/* Internal: the attention family.
 *
 * The fused (flash-style) core in attention.c walks blocks of bq query rows x bk keys and keeps,
 * per query row, a running max m, a running sum l and the unnormalised output in `out` itself.
 * The score tile is stored transposed, st[j * bq + r] (key j, query row r): a query row is then a
 * column, so the online-softmax update (max / exp / sum per row) runs down the columns with whole
 * vectors across rows, and P·V broadcasts st entries. For bq == 1 (a decoder step) the tile is one
 * contiguous row of keys. The tile slots below are what each ISA provides, filled scalar first
 * (built on the GEMM and the exp slots) and then upgraded tier by tier. Each slot takes the table
 * it builds on (the scalar tiles use it; the ISA tiles are self-contained and ignore it). */
#ifndef SK_ATTN_H
#define SK_ATTN_H

#include "simdkern.h"

struct sk_gemm_dsp;
struct sk_math_dsp;

/* One function type per slot; the kernels are declared with them (sk_attn_score_fn name;). */
typedef void sk_attn_pack_q_fn(size_t bq, size_t d, const float *q, size_t ldq, float *qt);
typedef void sk_attn_score_fn(const struct sk_gemm_dsp *gemm, size_t bk, size_t bq, size_t d,
                              float scale, const float *k, size_t ldk, const float *q, size_t ldq,
                              const float *qt, float *st);
typedef void sk_attn_online_fn(const struct sk_math_dsp *math, size_t bk, size_t bq, float *st,
                               float *m, float *l, float *corr);
typedef void sk_attn_pv_fn(const struct sk_gemm_dsp *gemm, size_t bq, size_t bk, size_t dv,
                           const float *st, const float *v, size_t ldv, const float *corr,
                           float *o, size_t ldo);
typedef void sk_attn_dec_score_fn(size_t bk, size_t nh, size_t d, float scale, const float *k,
                                  size_t ldk, const float *q, float *st, size_t ldst);
typedef void sk_attn_dec_pv_fn(size_t bk, size_t nh, size_t d, const float *st, size_t ldst,
                               const float *v, size_t ldv, const float *corr, float *o);

typedef struct sk_attn_dsp {
    /* qt[p * bq + r] = q[r * ldq + p] for r < bq, p < d (d <= dmax): Q^T of the query block,
       packed once per block and reused for every key block. NULL: score reads q directly. */
    sk_attn_pack_q_fn *pack_q;
    /* st[j * bq + r] = scale * (k_j . q_r) for j < bk, r < bq. */
    sk_attn_score_fn *score;
    /* Online softmax update of the (already masked: masked = -inf) tile, per query row r:
       mn = max(m[r], max_j st[j,r]) (NaN if any is NaN); corr[r] = exp(m[r] - mn) (1 if
       mn = -inf); st[j,r] = exp(st[j,r] - mn) (0 if mn = -inf);
       l[r] = l[r] * corr[r] + sum_j st[j,r]; m[r] = mn. */
    sk_attn_online_fn *online;
    /* o[r, :dv] = corr[r] * o[r, :dv] + sum_j st[j * bq + r] * v[j, :dv]. */
    sk_attn_pv_fn *pv;
    size_t dmax; /* largest d the pack_q/score pair takes (pack buffer); larger d: scalar pair */
    /* A decoder step over nh heads at once: one query row whose heads sit side by side (head h in
       columns [h d, (h+1) d) of q, of every key row and of every value row), so that K and V are
       read row after row, every row whole. The tile is transposed with the heads as its rows,
       st[j * ldst + h] (ldst >= nh), which is the layout `online` takes with bq = ldst.
       Each head's arithmetic is the same whatever nh is and wherever the head sits among them (a
       call may be split by heads without changing a bit).
       dec_score: st[j * ldst + h] = scale * (k_j[h d ..] . q[h d ..]) for j < bk, h < nh; ldst
       is nh rounded up to a multiple of dec_hg, and the padding entries nh <= h < ldst are
       written too, with values nothing reads (whole vectors; the online update runs on them). */
    sk_attn_dec_score_fn *dec_score;
    /* dec_pv: o[h d + x] = corr[h] * o[h d + x] + sum_j st[j * ldst + h] * v_j[h d + x]. */
    sk_attn_dec_pv_fn *dec_pv;
    size_t dec_hg; /* heads per vector of dec_score and of `online` (the tile's padding unit) */
} sk_attn_dsp;

/* The portable kernels, then the arch init (kernels/x86/attention.h, kernels/arm/attention.h). */
void sk_attn_dsp_init(sk_attn_dsp *d, sk_isa isa);

/* What the attention core and the module run on: the attention slots and the GEMM and math tables
   they build on, all of one ISA (lib.c points them into the active sk_dsp). */
typedef struct sk_attn_tables {
    const struct sk_gemm_dsp *gemm;
    const struct sk_math_dsp *math;
    const sk_attn_dsp *attn;
} sk_attn_tables;

/* sk_attention / sk_mha on tables dsp and the caller's pool tp: arguments checked (lib.c),
   n_q > 0, row strides normalised with sk_ld1; empty operands may be NULL. */
void sk_attention_run_tp(const sk_threadpool *tp, const sk_attn_tables *dsp, size_t n_q,
                         size_t n_kv, size_t d_k, size_t d_v, const float *q, size_t ldq,
                         const float *k, size_t ldk, const float *v, size_t ldv, float scale,
                         const sk_mask *mask, float *out, size_t ldo, float *weights);
void sk_mha_run_tp(const sk_threadpool *tp, const sk_attn_tables *dsp, size_t n_heads,
                   size_t n_q, size_t n_kv, size_t d_head, const float *q, size_t ldq,
                   const float *k, size_t ldk, const float *v, size_t ldv, float scale,
                   const sk_mask *mask, float *out, size_t ldo, float *weights);

/* Block geometry of the fused core. */
enum {
    SK_ATTN_BQ = 64,       /* query rows per block */
    SK_ATTN_TILE = 4096,   /* floats of the score tile: bk = TILE / bq keys (>= 16) */
    SK_ATTN_DMAX = 256,    /* d of the packed Q^T block: BQ * DMAX floats of scratch */
};

/* the portable tile kernels (kernels/scalar/attn_tile_scalar.c) */
sk_attn_pack_q_fn sk_attn_pack_q_scalar;
sk_attn_score_fn sk_attn_score_scalar;
sk_attn_online_fn sk_attn_online_scalar;
sk_attn_pv_fn sk_attn_pv_scalar;
sk_attn_dec_score_fn sk_attn_dec_score_scalar;
sk_attn_dec_pv_fn sk_attn_dec_pv_scalar;

#endif
