/* The public entry points of every family and their argument checks (the ISA queries are in
 * dispatch.c). A checked call takes the active table and hands the family's run function validated
 * arguments, with the row stride of one-row operands normalised (sk_ld1). */
#include <stdlib.h>
#include <string.h>
#include "dsp.h"
#include "common.h"
#include "pool.h"
#include "mhca.h"

/* The tables of the active ISA that the attention core and the module run on. */
static sk_attn_tables attn_tables(void)
{
    const sk_dsp *d = sk_dsp_get();
    const sk_attn_tables t = { &d->gemm, &d->math, &d->attn };
    return t;
}

/* ---- GEMM ---- */
sk_status sk_sgemm_tp(const sk_threadpool *tp, sk_trans ta, sk_trans tb, size_t m, size_t n,
                      size_t k, float alpha, const float *a, size_t lda, const float *b, size_t ldb,
                      float beta, float *c, size_t ldc)
{
    if (!sk_tp_ok(tp)) return SK_EINVAL;
    if ((unsigned)ta > SK_TRANS || (unsigned)tb > SK_TRANS) return SK_EINVAL;
    if (!sk_mat_ok(a, ta ? k : m, ta ? m : k, lda)) return SK_EINVAL;
    if (!sk_mat_ok(b, tb ? n : k, tb ? k : n, ldb)) return SK_EINVAL;
    if (!sk_mat_ok(c, m, n, ldc)) return SK_EINVAL;
    sk_gemm_run_tp(tp, &sk_dsp_get()->gemm, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    return SK_OK;
}

sk_status sk_sgemm(sk_trans ta, sk_trans tb, size_t m, size_t n, size_t k,
                   float alpha, const float *a, size_t lda, const float *b, size_t ldb,
                   float beta, float *c, size_t ldc)
{
    return sk_sgemm_tp(NULL, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

/* ---- GEMM planned once ----
 * The caller's sk_sgemm_plan holds a plan_state: a tag, which operands must not be NULL, and
 * the prepared call (gemm.h). */
#define PLAN_MAGIC 0x4e4c5053504b53ull /* "SKPSPLN" */
typedef struct plan_state {
    uint64_t magic;
    unsigned need_a, need_b, need_c; /* the operand is not empty: NULL refused */
    sk_gemm_prepared g;
} plan_state;
_Static_assert(sizeof(plan_state) <= sizeof(sk_sgemm_plan), "sk_sgemm_plan too small");
_Static_assert(_Alignof(plan_state) <= _Alignof(sk_sgemm_plan), "sk_sgemm_plan misaligned");

sk_status sk_sgemm_plan_init(sk_sgemm_plan *plan, sk_trans ta, sk_trans tb, size_t m, size_t n,
                             size_t k, float alpha, size_t lda, size_t ldb, float beta,
                             size_t ldc)
{
    if (!plan || (unsigned)ta > SK_TRANS || (unsigned)tb > SK_TRANS) return SK_EINVAL;
    if (!sk_extent_ok(ta ? k : m, ta ? m : k, lda) || !sk_extent_ok(tb ? n : k, tb ? k : n, ldb) ||
        !sk_extent_ok(m, n, ldc))
        return SK_EINVAL;
    plan_state s;
    memset(&s, 0, sizeof s);
    s.magic = PLAN_MAGIC;
    s.need_a = m && k, s.need_b = k && n, s.need_c = m && n;
    sk_gemm_prepare(&sk_dsp_get()->gemm, ta, tb, m, n, k, alpha, lda, ldb, beta, ldc, &s.g);
    memset(plan, 0, sizeof *plan);
    memcpy(plan, &s, sizeof s);
    return SK_OK;
}

sk_status sk_sgemm_plan_run_tp(const sk_threadpool *tp, const sk_sgemm_plan *plan, const float *a,
                               const float *b, float *c)
{
    if (!plan || !sk_tp_ok(tp)) return SK_EINVAL;
    /* the storage is written only as a plan_state (init, or a copy of it) */
    const plan_state *s = (const plan_state *)(const void *)plan;
    if (s->magic != PLAN_MAGIC || (s->need_a && !a) || (s->need_b && !b) || (s->need_c && !c))
        return SK_EINVAL;
    sk_gemm_run_prepared_tp(tp, &s->g, a, b, c);
    return SK_OK;
}

sk_status sk_sgemm_plan_run(const sk_sgemm_plan *plan, const float *a, const float *b, float *c)
{
    return sk_sgemm_plan_run_tp(NULL, plan, a, b, c);
}

/* ---- GEMM with op(B) packed once ----
 * The packed buffer: a header (PACKED_HDR bytes) then sk_gemm_packed_floats(k, n) floats in the
 * panels of the table of `isa`. */
#define PACKED_MAGIC 0x42504b53u /* "SKPB" */
enum { PACKED_HDR = 64 };
typedef struct packed_hdr {
    uint32_t magic, isa; /* PACKED_MAGIC; the sk_isa whose table packed it */
    uint64_t k, n;
    uint32_t nr, reserved; /* the table's panel width, pack_nr */
} packed_hdr;

static int packed_ptr_ok(const void *packed)
{
    return packed && (uintptr_t)packed % sizeof(float) == 0;
}

size_t sk_sgemm_pack_b_size(size_t k, size_t n)
{
    size_t f = 0;
    if (k && n && !(f = sk_gemm_packed_floats(&sk_dsp_get()->gemm, k, n))) return 0;
    return PACKED_HDR + f * sizeof(float); /* f <= SK_ELEMS_MAX - 16: <= PTRDIFF_MAX bytes */
}

sk_status sk_sgemm_pack_b(sk_trans tb, size_t k, size_t n, const float *b, size_t ldb,
                          void *packed, size_t packed_bytes)
{
    if ((unsigned)tb > SK_TRANS || !packed_ptr_ok(packed)) return SK_EINVAL;
    if (!sk_mat_ok(b, tb ? n : k, tb ? k : n, ldb)) return SK_EINVAL;
    sk_isa isa;
    const sk_gemm_dsp *d = &sk_dsp_get_isa(&isa)->gemm; /* one table for the size and the pack */
    size_t f = 0;
    if (k && n && !(f = sk_gemm_packed_floats(d, k, n))) return SK_EINVAL;
    if (packed_bytes < PACKED_HDR || (packed_bytes - PACKED_HDR) / sizeof(float) < f)
        return SK_EINVAL;
    const packed_hdr h = { PACKED_MAGIC, (uint32_t)isa, k, n, d->pack_nr, 0 };
    memcpy(packed, &h, sizeof h);
    if (k && n)
        sk_gemm_pack_b(d, tb, k, n, b, sk_ld1(tb ? n : k, tb ? k : n, ldb),
                       (float *)((char *)packed + PACKED_HDR));
    return SK_OK;
}

/* The table and panels of a packed op(B) of k x n (pk): SK_EINVAL for a pointer, header, k or n
   that does not match, SK_EUNSUPPORTED for a path this CPU does not run. */
static sk_status packed_view(const void *packed, size_t k, size_t n, sk_gemm_packed_b *pk)
{
    if (!packed_ptr_ok(packed)) return SK_EINVAL;
    packed_hdr h;
    memcpy(&h, packed, sizeof h);
    if (h.magic != PACKED_MAGIC || h.k != k || h.n != n || h.isa >= SK_ISA_COUNT)
        return SK_EINVAL;
    const sk_dsp *t = sk_dsp_for((sk_isa)h.isa);
    if (!t) return SK_EUNSUPPORTED;
    if (h.nr != t->gemm.pack_nr) return SK_EINVAL;
    pk->d = &t->gemm;
    pk->pb = (const float *)((const char *)packed + PACKED_HDR);
    return SK_OK;
}

sk_status sk_sgemm_packed_tp(const sk_threadpool *tp, sk_trans ta, size_t m, size_t n, size_t k,
                             float alpha, const float *a, size_t lda, const void *packed,
                             float beta, float *c, size_t ldc)
{
    if (!sk_tp_ok(tp) || (unsigned)ta > SK_TRANS || !packed_ptr_ok(packed)) return SK_EINVAL;
    if (!sk_mat_ok(a, ta ? k : m, ta ? m : k, lda)) return SK_EINVAL;
    if (!sk_mat_ok(c, m, n, ldc)) return SK_EINVAL;
    sk_gemm_packed_b pk;
    const sk_status st = packed_view(packed, k, n, &pk);
    if (st != SK_OK) return st;
    sk_gemm_run_packed_tp(tp, pk.d, ta, m, n, k, alpha, a, lda, pk.pb, beta, c, ldc);
    return SK_OK;
}

sk_status sk_sgemm_packed(sk_trans ta, size_t m, size_t n, size_t k, float alpha, const float *a,
                          size_t lda, const void *packed, float beta, float *c, size_t ldc)
{
    return sk_sgemm_packed_tp(NULL, ta, m, n, k, alpha, a, lda, packed, beta, c, ldc);
}

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
    const sk_attn_tables t = attn_tables();
    sk_attention_run_tp(tp, &t, n_q, n_kv, d_k, d_v, q, ldq, k, ldk, v, ldv, scale, mask, out, ldo,
                        weights);
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
    const sk_attn_tables t = attn_tables();
    sk_mha_run_tp(tp, &t, n_heads, n_q, n_kv, d_head, q, ldq, k, ldk, v, ldv, scale, mask, out, ldo,
                  weights);
    return SK_OK;
}

sk_status sk_mha(size_t n_heads, size_t n_q, size_t n_kv, size_t d_head,
                 const float *q, size_t ldq, const float *k, size_t ldk, const float *v, size_t ldv,
                 float scale, const sk_mask *mask, float *out, size_t ldo, float *weights)
{
    return sk_mha_tp(NULL, n_heads, n_q, n_kv, d_head, q, ldq, k, ldk, v, ldv, scale, mask, out,
                     ldo, weights);
}

/* ---- the cross-attention module ---- */
/* 1 when the layer is usable: heads divide d_model, every weight matrix present (d_model > 0) with
   an extent that fits (d_model x d_model; d_enc x d_model for w_k and w_v). */
static int layer_ok(const sk_mhca *L)
{
    if (!L || L->n_heads == 0 || L->d_model % L->n_heads != 0) return 0;
    const size_t d = L->d_model, de = sk_mhca_enc_width(L);
    return sk_mat_ok(L->w_q, d, d, d) && sk_mat_ok(L->w_o, d, d, d) &&
           sk_mat_ok(L->w_k, de, d, d) && sk_mat_ok(L->w_v, de, d, d);
}

/* The layer's packed weights into P (pb NULL where none): SK_EINVAL for one that is not
   sk_sgemm_pack_b's copy of a matrix of the weight's shape, SK_EUNSUPPORTED for one packed for a
   path this CPU does not run. L: layer_ok. */
static sk_status layer_packs(const sk_mhca *L, sk_mhca_packs *P)
{
    const size_t d = L->d_model, de = sk_mhca_enc_width(L);
    const void *src[4] = { L->w_q_packed, L->w_k_packed, L->w_v_packed, L->w_o_packed };
    sk_gemm_packed_b *dst[4] = { &P->q, &P->k, &P->v, &P->o };
    for (int i = 0; i < 4; i++) {
        dst[i]->d = NULL;
        dst[i]->pb = NULL;
        if (!src[i]) continue;
        const sk_status st = packed_view(src[i], i == 1 || i == 2 ? de : d, d, dst[i]);
        if (st != SK_OK) return st;
    }
    return SK_OK;
}

size_t sk_mhca_kv_size(const sk_mhca *layer, size_t n_enc)
{
    if (!layer_ok(layer)) return 0;
    return sk_floats_bytes3(2, n_enc, layer->d_model);
}

/* Bytes a module call may skip at the start of its workspace to align it: the run functions get
   a 64-byte-aligned workspace whatever the caller's buffer (numpy, for one, gives 16 bytes), so
   that the rows of Q, K, V and the concat start on cache lines when d_model is a multiple of 16. */
enum { MHCA_WS_ALIGN = 64 };

static float *mhca_ws_align(void *ws)
{
    const uintptr_t a = (uintptr_t)ws;
    return (float *)((char *)ws + ((MHCA_WS_ALIGN - a % MHCA_WS_ALIGN) % MHCA_WS_ALIGN));
}

/* Bytes of Q and the concat, n_dec rows each at row stride ld, plus the slack; 0 on overflow. */
static size_t mhca_q_bytes(size_t n_dec, size_t d, size_t ld)
{
    const size_t b = sk_floats_bytes3(2, n_dec, ld);
    return b || !n_dec || !d ? b + MHCA_WS_ALIGN : 0;
}

size_t sk_mhca_forward_kv_workspace_size(const sk_mhca *layer, size_t n_dec)
{
    if (!layer_ok(layer)) return 0;
    const size_t d = layer->d_model;
    return mhca_q_bytes(n_dec, d, sk_mhca_step_ld(d, n_dec));
}

size_t sk_mhca_workspace_size(const sk_mhca *layer, size_t n_dec, size_t n_enc)
{
    if (!layer_ok(layer)) return 0;
    /* each part 0 on overflow: a nonzero part that is 0 makes the sum 0, never the other part */
    /* the K/V area (2 n_enc rows), Q and the concat (2 n_dec rows) at the call's padded stride,
       and the slack */
    const size_t d = layer->d_model, ld = sk_mhca_ws_ld(d, sk_mhca_ws_rows(n_dec, n_enc));
    const size_t a = sk_floats_bytes3(2, n_enc, ld), b = mhca_q_bytes(n_dec, d, ld);
    size_t sum;
    if ((!a && n_enc && layer->d_model) || (!b && n_dec && layer->d_model)) return 0;
    size_t ne; /* the encoder rows of such a call must be able to exist */
    if (!sk_mul_ok(n_enc, sk_mhca_enc_width(layer), &ne) || ne > SK_ELEMS_MAX) return 0;
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

sk_status sk_mhca_project_kv_tp(const sk_threadpool *tp, const sk_mhca *layer, size_t n_enc,
                                const float *enc, float *kv)
{
    if (!sk_tp_ok(tp) || !layer_ok(layer)) return SK_EINVAL;
    sk_mhca_packs P;
    const sk_status pst = layer_packs(layer, &P);
    if (pst != SK_OK) return pst;
    const size_t d = layer->d_model, de = sk_mhca_enc_width(layer);
    if (!sk_mat_ok(enc, n_enc, de, de) || !sk_mat_ok(kv, n_enc, d, d)) return SK_EINVAL;
    if (n_enc && d && !sk_mhca_kv_size(layer, n_enc)) return SK_EINVAL; /* size overflow */
    if (n_enc == 0 || d == 0) return SK_OK;
    const float *w[1] = { kv }, *r[1] = { enc };
    const size_t wn[1] = { 2 * n_enc * d }, rn[1] = { n_enc * de };
    if (!disjoint(w, wn, 1, r, rn, 1)) return SK_EINVAL; /* kv overlaps enc */
    const sk_attn_tables t = attn_tables();
    sk_mhca_project_kv_run_tp(tp, &t, layer, &P, n_enc, enc, kv, d);
    return SK_OK;
}

sk_status sk_mhca_project_kv(const sk_mhca *layer, size_t n_enc, const float *enc, float *kv)
{
    return sk_mhca_project_kv_tp(NULL, layer, n_enc, enc, kv);
}

/* The checks, the workspace and the run of a module call: kv == 0, sk_mhca_forward_tp (src: the
   encoder rows, n_enc x d_enc); kv == 1, sk_mhca_forward_kv_tp (src: K and V, n_enc x d_model
   each, one after the other). */
static sk_status module_call(const sk_threadpool *tp, int kv, const sk_mhca *layer, size_t n_dec,
                             const float *dec, size_t n_enc, const float *src,
                             const uint8_t *enc_mask, float *out, float *weights, void *workspace)
{
    if (!sk_tp_ok(tp) || !layer_ok(layer)) return SK_EINVAL;
    sk_mhca_packs P;
    const sk_status pst = layer_packs(layer, &P);
    if (pst != SK_OK) return pst;
    const size_t d = layer->d_model, sw = kv ? d : sk_mhca_enc_width(layer);
    if (!sk_mat_ok(dec, n_dec, d, d) || !sk_mat_ok(src, n_enc, sw, sw) ||
        !sk_mat_ok(out, n_dec, d, d))
        return SK_EINVAL;
    if (n_dec == 0 || d == 0) return SK_OK; /* nothing computed, weights not written */
    if (!weights_ok(layer, n_dec, n_enc, weights)) return SK_EINVAL;
    const size_t wsz = kv ? sk_mhca_forward_kv_workspace_size(layer, n_dec)
                          : sk_mhca_workspace_size(layer, n_dec, n_enc);
    if (!wsz || (kv && n_enc && !sk_mhca_kv_size(layer, n_enc))) return SK_EINVAL; /* overflow */
    {
        const float *w[3] = { out, weights, workspace }, *r[2] = { dec, src };
        const size_t wn[3] = { n_dec * d, weights ? layer->n_heads * n_dec * n_enc : 0,
                               wsz / sizeof(float) };
        const size_t rn[2] = { n_dec * d, (kv ? 2 : 1) * n_enc * sw };
        if (!disjoint(w, wn, 3, r, rn, 2)) return SK_EINVAL; /* an output overlaps */
    }
    void *owned = NULL;
    if (!workspace) {
        workspace = owned = malloc(wsz);
        if (!workspace) return SK_ENOMEM;
    }
    float *ws = mhca_ws_align(workspace); /* wsz includes the slack */
    const sk_attn_tables t = attn_tables();
    if (kv)
        sk_mhca_forward_kv_run_tp(tp, &t, layer, &P, n_dec, dec, n_enc, src, d, enc_mask, out,
                                  weights, ws, sk_mhca_step_ld(d, n_dec));
    else
        sk_mhca_forward_run_tp(tp, &t, layer, &P, n_dec, dec, n_enc, src, enc_mask, out, weights,
                               ws);
    free(owned);
    return SK_OK;
}

sk_status sk_mhca_forward_kv_tp(const sk_threadpool *tp, const sk_mhca *layer, size_t n_dec,
                                const float *dec, size_t n_enc, const float *kv,
                                const uint8_t *enc_mask, float *out, float *weights,
                                void *workspace)
{
    return module_call(tp, 1, layer, n_dec, dec, n_enc, kv, enc_mask, out, weights, workspace);
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
    return module_call(tp, 0, layer, n_dec, dec, n_enc, enc, enc_mask, out, weights, workspace);
}

sk_status sk_mhca_forward(const sk_mhca *layer, size_t n_dec, const float *dec, size_t n_enc,
                          const float *enc, const uint8_t *enc_mask, float *out, float *weights,
                          void *workspace)
{
    return sk_mhca_forward_tp(NULL, layer, n_dec, dec, n_enc, enc, enc_mask, out, weights,
                              workspace);
}
