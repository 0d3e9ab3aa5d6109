/* Attention: the table init and the cores of sk_attention and sk_mha (their argument checks are
 * in lib.c).
 *
 * weights == NULL: the fused core. For each block of up to SK_ATTN_BQ query rows, Q^T is packed
 * once (ISA paths), then key blocks of bk = SK_ATTN_TILE / bq keys stream by: score tile
 * (transposed, see attn.h), mask, online-softmax update (running max / sum, rescale factor), P·V
 * accumulated into the output rows with the rescale folded in; the rows are normalised at the end
 * (a row whose keys are all masked stays zero). Causal masks end the key loop at the last key any
 * row of the block attends to; key blocks whose KEYS mask is all zero are skipped. Scratch: a fixed
 * stack frame of (SK_ATTN_BQ * SK_ATTN_DMAX + SK_ATTN_TILE + 3 * SK_ATTN_BQ) floats (~81 KB),
 * whatever n_q / n_kv; no allocation.
 *
 * weights != NULL: the scores go straight into `weights`, the softmax family's scale_mask_softmax
 * turns them into the contract's weights (exactly its semantics), and out = weights · V (GEMM). */
#include <math.h>
#include <string.h>
#include "config.h"
#include "attn.h"
#include "gemm.h"
#include "vmath.h"
#include "common.h"
#include "pool.h"
#include "tbuf.h"
#if SK_HAVE_AVX2
#include "x86/attention.h"
#elif SK_HAVE_NEON
#include "arm/attention.h"
#endif

void sk_attn_dsp_init(sk_attn_dsp *d, sk_isa isa)
{
    d->pack_q = NULL;
    d->score = sk_attn_score_scalar;
    d->online = sk_attn_online_scalar;
    d->pv = sk_attn_pv_scalar;
    d->dmax = 0;
    d->dec_score = sk_attn_dec_score_scalar;
    d->dec_pv = sk_attn_dec_pv_scalar;
    d->dec_hg = 4;
#if SK_HAVE_AVX2
    sk_attn_dsp_init_x86(d, isa);
#elif SK_HAVE_NEON
    sk_attn_dsp_init_arm(d, isa);
#endif
    (void)isa;
}

/* Mask the transposed tile st (bk keys x bq rows) of rows [r0, r0+bq), keys [c0, c0+bk). */
static void mask_tile(const sk_mask *m, size_t r0, size_t bq, size_t c0, size_t bk, float *st)
{
    switch (m->kind) {
    case SK_MASK_KEYS: {
        const uint8_t *kb = (const uint8_t *)m->data + c0;
        for (size_t j = 0; j < bk; j++)
            if (!kb[j])
                for (size_t r = 0; r < bq; r++) st[j * bq + r] = -INFINITY;
        break;
    }
    case SK_MASK_BOOL: {
        const uint8_t *b = (const uint8_t *)sk_mask_row(m, r0) + c0;
        for (size_t r = 0; r < bq; r++)
            for (size_t j = 0; j < bk; j++)
                if (!b[r * m->ld + j]) st[j * bq + r] = -INFINITY;
        break;
    }
    case SK_MASK_ADD: {
        const float *a = (const float *)sk_mask_row(m, r0) + c0;
        for (size_t r = 0; r < bq; r++)
            for (size_t j = 0; j < bk; j++) {
                const float x = a[r * m->ld + j];
                st[j * bq + r] = x == -INFINITY ? -INFINITY : st[j * bq + r] + x;
            }
        break;
    }
    case SK_MASK_CAUSAL: /* row r attends c <= r + offset */
        for (size_t r = 0; r < bq; r++) {
            const size_t len = sk_causal_len(r0 + r, c0 + bk, m->offset); /* keys [0, len) */
            for (size_t j = len > c0 ? len - c0 : 0; j < bk; j++) st[j * bq + r] = -INFINITY;
        }
        break;
    default:
        break;
    }
}

/* 1 when keys [c0, c0+bk) are all padded out by a KEYS mask */
static int keys_all_masked(const sk_mask *m, size_t c0, size_t bk)
{
    const uint8_t *kb = (const uint8_t *)m->data + c0;
    for (size_t j = 0; j < bk; j++)
        if (kb[j]) return 0;
    return 1;
}

/* The fused core: no weights. Arguments validated, n_q, n_kv > 0. */
static void attention_fused(const sk_attn_tables *dsp, size_t n_q, size_t n_kv, size_t d_k,
                            size_t d_v, const float *q, size_t ldq, const float *k, size_t ldk,
                            const float *v, size_t ldv, float scale, const sk_mask *mask,
                            float *out, size_t ldo)
{
    SK_ALIGN(64) float qt[SK_ATTN_BQ * SK_ATTN_DMAX];
    SK_ALIGN(64) float st[SK_ATTN_TILE];
    SK_ALIGN(64) float mrow[SK_ATTN_BQ], lrow[SK_ATTN_BQ], corr[SK_ATTN_BQ];
    const sk_attn_dsp *a = dsp->attn;
    /* the packed-Q pair takes d_k <= dmax; beyond, the portable (GEMM) score */
    const int packed = a->pack_q && d_k <= a->dmax;
    sk_attn_score_fn *score = packed ? a->score : sk_attn_score_scalar;
    if (mask && mask->kind == SK_MASK_NONE) mask = NULL;

    for (size_t r0 = 0; r0 < n_q; r0 += SK_ATTN_BQ) {
        const size_t bq = n_q - r0 < SK_ATTN_BQ ? n_q - r0 : SK_ATTN_BQ;
        size_t bk_max = (SK_ATTN_TILE / bq) & ~(size_t)15;
        float *o = out + r0 * ldo;
        for (size_t r = 0; r < bq; r++) {
            memset(o + r * ldo, 0, d_v * sizeof(float));
            mrow[r] = -INFINITY;
            lrow[r] = 0.f;
        }
        /* keys this block can attend to: all, or up to the causal limit of its last row */
        const size_t kv_end = mask && mask->kind == SK_MASK_CAUSAL
                            ? sk_causal_len(r0 + bq - 1, n_kv, mask->offset) : n_kv;
        if (kv_end == 0) continue; /* every row fully masked: zero rows */
        if (packed) a->pack_q(bq, d_k, q + r0 * ldq, ldq, qt);
        for (size_t c0 = 0; c0 < kv_end; c0 += bk_max) {
            const size_t bk = kv_end - c0 < bk_max ? kv_end - c0 : bk_max;
            if (mask && mask->kind == SK_MASK_KEYS && keys_all_masked(mask, c0, bk)) continue;
            score(dsp->gemm, bk, bq, d_k, scale, k + c0 * ldk, ldk, q + r0 * ldq, ldq, qt, st);
            if (mask) mask_tile(mask, r0, bq, c0, bk, st);
            a->online(dsp->math, bk, bq, st, mrow, lrow, corr);
            if (d_v) a->pv(dsp->gemm, bq, bk, d_v, st, v + c0 * ldv, ldv, corr, o, ldo);
        }
        for (size_t r = 0; r < bq; r++) {
            float *orow = o + r * ldo;
            if (lrow[r] == 0.f) continue; /* fully masked: stays zero */
            const float inv = 1.f / lrow[r];
            for (size_t c = 0; c < d_v; c++) orow[c] *= inv;
        }
    }
}

/* weights != NULL: weights (n_q x n_kv, stride n_kv) exactly per the softmax contract, then out.
   tp: the two GEMMs and the softmax on the caller's pool (each bitwise identical to one call). */
static void attention_weights(const sk_threadpool *tp, const sk_attn_tables *dsp, size_t n_q,
                              size_t n_kv, size_t d_k, size_t d_v, const float *q, size_t ldq,
                              const float *k, size_t ldk, const float *v, size_t ldv, float scale,
                              const sk_mask *mask, float *out, size_t ldo, float *weights)
{
    sk_gemm_run_tp(tp, dsp->gemm, SK_NOTRANS, SK_TRANS, n_q, n_kv, d_k, 1.f, q, ldq, k, ldk, 0.f,
                   weights, n_kv);
    sk_scale_mask_softmax_run_tp(tp, dsp->math, n_q, n_kv, scale, weights, n_kv, mask, weights,
                                 n_kv);
    sk_gemm_run_tp(tp, dsp->gemm, SK_NOTRANS, SK_NOTRANS, n_q, d_v, n_kv, 1.f, weights, n_kv, v,
                   ldv, 0.f, out, ldo);
}

/* One head, validated, n_q > 0; with weights the GEMMs and softmax run on tp. */
static void attention_core(const sk_threadpool *tp, const sk_attn_tables *dsp, size_t n_q,
                           size_t n_kv, size_t d_k, size_t d_v, const float *q, size_t ldq,
                           const float *k, size_t ldk, const float *v, size_t ldv, float scale,
                           const sk_mask *mask, float *out, size_t ldo, float *weights)
{
    if (d_v == 0 && !weights) return;
    if (n_kv == 0) { /* nothing to attend to */
        for (size_t r = 0; r < n_q && d_v; r++) memset(out + r * ldo, 0, d_v * sizeof(float));
        return;
    }
    if (weights) {
        if (d_k == 0) { /* every score is 0 (+ mask) */
            for (size_t i = 0; i < n_q * n_kv; i++) weights[i] = 0.f;
        }
        attention_weights(tp, dsp, n_q, n_kv, d_k, d_v, q, ldq, k, ldk, v, ldv, scale, mask, out,
                          ldo, weights);
        return;
    }
    attention_fused(dsp, n_q, n_kv, d_k, d_v, q, ldq, k, ldk, v, ldv, scale, mask, out, ldo);
}

/* --- heads and query blocks on the caller's pool ------------------------------------------------
 * Units of work: (head, block of SK_ATTN_BQ query rows), the fused core's own blocks, each computed
 * alone as in one call. With weights: heads (each the weights path on one thread), or, with fewer
 * heads than threads, one head after the other with the GEMMs and softmax on the pool. */
/* 0.5 MFLOP per task, about 17 us of the fused core on AVX2 on Zen 1 (2 threads vs 1 there:
   8 heads x 16 x 64 x 64 1.83x, 2 x 64 x 64 x 64 1.42x, where 4 MFLOP kept them on one thread) */
#define TP_MIN_FLOPS_ATTN 5.0e5

typedef struct attn_job {
    const sk_attn_tables *dsp;
    size_t n_heads, n_q, n_kv, d_k, d_v, hq, hk, hv, ho; /* column offsets per head */
    const float *q, *k, *v;
    size_t ldq, ldk, ldv, ldo;
    float scale;
    const sk_mask *mask;
    float *out, *weights;
    size_t units, parts;
} attn_job;

/* Floats of one head's K and V copy: rows of d_k and of d_v floats, each rounded up to whole cache
   lines; 0 when that head is read in place. Copied: a head whose K or V rows are a multiple of 512
   bytes apart (a head's column slice of a wider matrix: rows 2 or 4 KiB apart fall into a few L1
   and L2 sets, so that every query block reloads them from L3), read by its query blocks at least
   ATTN_COPY_MIN_KEYS keys in all (2 or more blocks), when the copy fits ATTN_COPY_MAX. Measured on
   the AVX-512 path, 64-float heads 512 or 1024 floats apart, 1 and 2 threads: 1.05-1.22x faster
   from 3000 keys read in all (2 blocks x 1500 keys, 8 x 512), 0.93-1.0x at 512-1024 (2 x 128,
   2 x 512, 4 x 256). The decision depends on the shape and strides only, never on the partition:
   every block of a head reads the same copy or none. */
#define ATTN_COPY_MAX ((size_t)1 << 18) /* floats: 1 MiB, K and V of 2048 keys at d_head 64 */
#define ATTN_COPY_MIN_KEYS 2048

/* A row of the copy: d floats rounded up to whole cache lines. */
static size_t copy_ld(size_t d)
{
    return (d + 15) & ~(size_t)15;
}

static size_t head_copy_floats(const attn_job *j)
{
    const size_t dkp = copy_ld(j->d_k), dvp = copy_ld(j->d_v);
    const size_t nqb = (j->n_q + SK_ATTN_BQ - 1) / SK_ATTN_BQ;
    const int crowded = (j->d_k && j->ldk != j->d_k && j->ldk % 128 == 0) ||
                        (j->d_v && j->ldv != j->d_v && j->ldv % 128 == 0);
    if (nqb < 2 || !crowded || j->n_kv > ATTN_COPY_MAX / (dkp + dvp + 1)) return 0;
    if (nqb < ATTN_COPY_MIN_KEYS && j->n_kv * nqb < ATTN_COPY_MIN_KEYS) return 0;
    return j->n_kv * (dkp + dvp);
}

/* Rows [r0, r1) of head h (r0 a multiple of SK_ATTN_BQ: the blocks of the whole call) through the
   fused core, on K and V read in place or from the calling thread's copy (head_copy_floats). The
   copy holds the keys the rows can attend to; the arithmetic is the same either way. */
static void head_rows(const attn_job *j, size_t h, size_t r0, size_t r1)
{
    sk_mask tmp;
    const sk_mask *m = sk_mask_sub(j->mask, r0, 0, &tmp);
    const float *k = j->k + h * j->hk, *v = j->v + h * j->hv;
    size_t ldk = j->ldk, ldv = j->ldv;
    const size_t cf = head_copy_floats(j);
    float *buf = cf ? sk_tbuf_get(SK_TBUF_ATTN, cf) : NULL;
    if (buf) {
        const size_t dkp = copy_ld(j->d_k), dvp = copy_ld(j->d_v);
        const size_t keys = m && m->kind == SK_MASK_CAUSAL
                          ? sk_causal_len(r1 - r0 - 1, j->n_kv, m->offset) : j->n_kv;
        float *kb = buf, *vb = buf + j->n_kv * dkp;
        for (size_t i = 0; i < keys && j->d_k; i++)
            memcpy(kb + i * dkp, k + i * ldk, j->d_k * sizeof(float));
        for (size_t i = 0; i < keys && j->d_v; i++)
            memcpy(vb + i * dvp, v + i * ldv, j->d_v * sizeof(float));
        k = kb, v = vb, ldk = dkp, ldv = dvp;
    }
    attention_core(NULL, j->dsp, r1 - r0, j->n_kv, j->d_k, j->d_v, j->q + r0 * j->ldq + h * j->hq,
                   j->ldq, k, ldk, v, ldv, j->scale, m, j->out + r0 * j->ldo + h * j->ho, j->ldo,
                   NULL);
}

/* Task t: its run of units, a head's consecutive blocks at a time. */
static void attn_block_task(void *arg, size_t t)
{
    const attn_job *j = arg;
    const size_t nqb = (j->n_q + SK_ATTN_BQ - 1) / SK_ATTN_BQ;
    const size_t u1 = sk_part_bound(j->units, j->parts, t + 1);
    for (size_t u = sk_part_bound(j->units, j->parts, t), ue; u < u1; u = ue) {
        const size_t h = u / nqb;
        ue = (h + 1) * nqb < u1 ? (h + 1) * nqb : u1;
        const size_t r1 = (ue - h * nqb) * SK_ATTN_BQ;
        head_rows(j, h, (u - h * nqb) * SK_ATTN_BQ, r1 < j->n_q ? r1 : j->n_q);
    }
}

static void attn_head_task(void *arg, size_t h)
{
    const attn_job *j = arg;
    attention_core(NULL, j->dsp, j->n_q, j->n_kv, j->d_k, j->d_v, j->q + h * j->hq, j->ldq,
                   j->k + h * j->hk, j->ldk, j->v + h * j->hv, j->ldv, j->scale, j->mask,
                   j->out + h * j->ho, j->ldo, j->weights + h * j->n_q * j->n_kv);
}

/* The heads of j (validated; n_q, n_kv > 0) on tp. */
static void attn_heads(const sk_threadpool *tp, attn_job *j)
{
    const double flops = 2.0 * (double)j->n_heads * (double)j->n_q * (double)j->n_kv *
                         (double)(j->d_k + j->d_v);
    const size_t tasks = sk_tp_tasks(tp, flops, TP_MIN_FLOPS_ATTN);
    if (j->weights) {
        if (tasks > 1 && j->n_heads >= sk_tp_threads(tp)) {
            sk_tp_run(tp, j->n_heads, attn_head_task, j);
            return;
        }
        for (size_t h = 0; h < j->n_heads; h++)
            attention_core(tasks > 1 ? tp : NULL, j->dsp, j->n_q, j->n_kv, j->d_k, j->d_v,
                           j->q + h * j->hq, j->ldq, j->k + h * j->hk, j->ldk, j->v + h * j->hv,
                           j->ldv, j->scale, j->mask, j->out + h * j->ho, j->ldo,
                           j->weights + h * j->n_q * j->n_kv);
        return;
    }
    j->units = j->n_heads * ((j->n_q + SK_ATTN_BQ - 1) / SK_ATTN_BQ);
    j->parts = tasks < j->units ? tasks : j->units;
    if (j->parts > 1) {
        sk_tp_run(tp, j->parts, attn_block_task, j);
        return;
    }
    for (size_t h = 0; h < j->n_heads; h++) head_rows(j, h, 0, j->n_q);
}

/* A decoder step (n_q == 1, no weights) over all heads; K and V rows hold every head side by side.
   Per block of SK_DEC_BK keys, for up to SK_DEC_HG heads at a time, one of two walks, chosen by
   the shape alone (a head's arithmetic differs between them):
   - by rows, for heads that fill whole vectors (n_heads a multiple of dec_hg) at any size, and
     for K and V of SK_DEC_ROWS_MIN bytes or more over 4 heads or more: (1) the scores of
     every head, each key row read whole (dec_score), (2) the key mask, (3) the online-softmax
     update of every head, the heads as the rows of the transposed tile, (4) P·V of every head,
     each value row read whole (dec_pv), the heads' rescale factors applied first. K and V are
     read row after row as a plain read of their bytes would be. The tile holds the heads padded
     to whole vectors of the ISA (dec_hg): every head takes the online update's across-rows path
     in whole vectors whatever the number of heads in the call (4 or 8 floats per key in 16-float
     masked vectors stall each load behind the previous key's masked store: 3x slower, Zen 5).
   - by heads, below: each head's scores over the block in one stream (score with bq = 1), its
     online update on a contiguous row of keys, its P·V (pv with bq = 1): per head and key the
     work is a fraction of the row walk's (no reduction across heads, one exp per 16 keys), which
     wins while K and V come from the caches.
   Measured on Zen 5 (d_head 64, K and V in one buffer reused from the caches), the row walk
   against the head walk, AVX-512: 16 heads x 64..4096 keys 1.4-2.2x, 8 x 1024..4096
   1.06-1.18x, 8 x 64..512 level, 12 x 512..4096 1.0-1.4x, 4 heads 0.75-0.93x, 20 x 64 0.77x;
   AVX2: 8 x 256..4096 1.1-1.4x, 16 heads 1.5-1.8x, 4 x 64..512 0.87-0.90x, 4 x 1024..4096
   1.03-1.2x. Read from DRAM (96 MiB of copies in turn) the row walk wins wherever it is taken:
   4 x 2048..8192 1.28-1.32x, 6 x 1500 1.5x, 8 x 2048..8192 1.4-1.5x, 16 heads 1.4-2.1x; on the
   32 MiB of a 16-head 4096-key step 0.86-0.92x a plain read of the bytes, where the head walk
   in groups of 8 rows with software prefetch (the walk before) ran at 0.65-0.72x. The x86 row
   kernels touch the start of the row two rows ahead (x86/attention.h): 1.13-1.15x from DRAM.
   Long encoders: the keys are split into chunks fixed by n_kv and d_head alone (at least
   SK_DEC_CHUNK keys, at most SK_DEC_CMAX chunks, whole SK_DEC_BK blocks), each run as above into
   its own running max, sum and unnormalised output; these are merged in chunk order:
   M = max_c m_c, w_c = exp(m_c - M), out = (sum_c w_c o_c) / (sum_c w_c l_c). The chunks and heads
   are the tasks on a pool; one thread runs the same chunks in order. Every head's arithmetic is
   the same whichever heads share its task. Scratch: the chunks' partials on the calling thread's
   stack (SK_DEC_PART floats, ~33 KB): heads go in rounds that fit it. */
enum { SK_DEC_HG = 16, SK_DEC_BK = 256, SK_DEC_CHUNK = 512, SK_DEC_CMAX = 8,
       SK_DEC_PART = SK_DEC_HG * SK_DEC_CMAX * (64 + 2), SK_DEC_ROWS_HEADS = 4 };
#define SK_DEC_ROWS_MIN (4.0 * 1024 * 1024)
/* 128 KB of K and V per task, about 4 us from L2 on Zen 1 (8 heads x 64 keys: 1.66x on 2
   threads, 1.00x at 512 KB) */
#define TP_MIN_BYTES_DEC (128.0 * 1024)

/* Keys [c0, c0+bk) of the one query row masked in every head of the tile (ldst floats per key). */
static void mask_heads(const sk_mask *m, size_t c0, size_t bk, size_t nh, float *st, size_t ldst)
{
    switch (m->kind) {
    case SK_MASK_KEYS:
    case SK_MASK_BOOL: {
        const uint8_t *b = (const uint8_t *)(m->kind == SK_MASK_KEYS ? m->data : sk_mask_row(m, 0));
        for (size_t j = 0; j < bk; j++)
            if (!b[c0 + j])
                for (size_t h = 0; h < nh; h++) st[j * ldst + h] = -INFINITY;
        break;
    }
    case SK_MASK_ADD: {
        const float *x = (const float *)sk_mask_row(m, 0) + c0;
        for (size_t j = 0; j < bk; j++)
            for (size_t h = 0; h < nh; h++)
                st[j * ldst + h] = x[j] == -INFINITY ? -INFINITY : st[j * ldst + h] + x[j];
        break;
    }
    default: /* CAUSAL: the keys past the row's limit are not visited (kv_end) */
        break;
    }
}

/* The head walk of decode_range: scratch st of SK_DEC_HG * SK_DEC_BK floats, mrow and lrow
   initialised. */
static void decode_heads(const sk_attn_tables *dsp, size_t hn, size_t dh, const float *qh,
                         const float *kh, size_t ldk, const float *vh, size_t ldv, float scale,
                         const sk_mask *mask, size_t kb, size_t ke, float *st, float *o,
                         float *mrow, float *lrow)
{
    float corr[SK_DEC_HG];
    const sk_attn_dsp *a = dsp->attn;
    for (size_t c0 = kb; c0 < ke; c0 += SK_DEC_BK) {
        const size_t bk = ke - c0 < SK_DEC_BK ? ke - c0 : SK_DEC_BK;
        if (mask && mask->kind == SK_MASK_KEYS && keys_all_masked(mask, c0, bk)) continue;
        for (size_t h = 0; h < hn; h++) {
            float *sh = st + h * SK_DEC_BK;
            a->score(dsp->gemm, bk, 1, dh, scale, kh + c0 * ldk + h * dh, ldk, qh + h * dh, dh,
                     NULL, sh);
            if (mask) mask_tile(mask, 0, 1, c0, bk, sh);
            a->online(dsp->math, bk, 1, sh, mrow + h, lrow + h, corr + h);
            a->pv(dsp->gemm, 1, bk, dh, sh, vh + c0 * ldv + h * dh, ldv, corr + h, o + h * dh,
                  dh);
        }
    }
}

/* Heads [0, hn) (pointers at the first one; hn <= SK_DEC_HG) over keys [kb, ke), by rows or by
   heads: the unnormalised output o (head h at o + h * dh), running max m[h] and sum l[h]
   (initialised here). */
static void decode_range(const sk_attn_tables *dsp, size_t hn, size_t dh, const float *qh,
                         const float *kh, size_t ldk, const float *vh, size_t ldv, float scale,
                         const sk_mask *mask, size_t kb, size_t ke, int rows, float *o,
                         float *mrow, float *lrow)
{
    SK_ALIGN(64) float st[SK_DEC_HG * SK_DEC_BK];
    SK_ALIGN(64) float m[SK_DEC_HG], l[SK_DEC_HG], corr[SK_DEC_HG];
    const sk_attn_dsp *a = dsp->attn;
    const size_t ldst = (hn + a->dec_hg - 1) / a->dec_hg * a->dec_hg;
    memset(o, 0, hn * dh * sizeof(float));
    for (size_t h = 0; h < ldst; h++) { m[h] = -INFINITY; l[h] = 0.f; }
    if (!rows) decode_heads(dsp, hn, dh, qh, kh, ldk, vh, ldv, scale, mask, kb, ke, st, o, m, l);
    else for (size_t c0 = kb; c0 < ke; c0 += SK_DEC_BK) {
        const size_t bk = ke - c0 < SK_DEC_BK ? ke - c0 : SK_DEC_BK;
        if (mask && mask->kind == SK_MASK_KEYS && keys_all_masked(mask, c0, bk)) continue;
        a->dec_score(bk, hn, dh, scale, kh + c0 * ldk, ldk, qh, st, ldst);
        if (mask) mask_heads(mask, c0, bk, hn, st, ldst);
        a->online(dsp->math, bk, ldst, st, m, l, corr);
        a->dec_pv(bk, hn, dh, st, ldst, vh + c0 * ldv, ldv, corr, o);
    }
    memcpy(mrow, m, hn * sizeof(float));
    memcpy(lrow, l, hn * sizeof(float));
}

typedef struct dec_job {
    const sk_attn_tables *dsp;
    size_t dh, ldk, ldv, kv_end, chunk, nc, h0, hr, ns;
    const float *q, *k, *v;
    float scale;
    const sk_mask *mask;
    int rows;    /* the row walk (decode_range) */
    float *out;  /* nc == 1: the output */
    float *part; /* nc > 1: chunk c, head h of the round: o at part + (c * hr + h) * dh, then the
                    nc * hr maxima and nc * hr sums */
} dec_job;

/* Task t: chunk t / ns, head subgroup t % ns of the round (at most SK_DEC_HG heads at a time). */
static void dec_task(void *arg, size_t t)
{
    const dec_job *j = arg;
    const size_t c = t / j->ns, s = t % j->ns;
    const size_t kb = c * j->chunk, ke = kb + j->chunk < j->kv_end ? kb + j->chunk : j->kv_end;
    const size_t s1 = sk_part_bound(j->hr, j->ns, s + 1);
    for (size_t g0 = sk_part_bound(j->hr, j->ns, s); g0 < s1; g0 += SK_DEC_HG) {
        const size_t hn = s1 - g0 < SK_DEC_HG ? s1 - g0 : SK_DEC_HG, h = j->h0 + g0;
        const float *qh = j->q + h * j->dh, *kh = j->k + h * j->dh, *vh = j->v + h * j->dh;
        if (j->nc == 1) {
            float mrow[SK_DEC_HG], lrow[SK_DEC_HG];
            float *o = j->out + h * j->dh;
            decode_range(j->dsp, hn, j->dh, qh, kh, j->ldk, vh, j->ldv, j->scale, j->mask, kb, ke,
                         j->rows, o, mrow, lrow);
            for (size_t i = 0; i < hn; i++) {
                if (lrow[i] == 0.f) continue; /* fully masked: stays zero */
                const float inv = 1.f / lrow[i];
                for (size_t x = 0; x < j->dh; x++) o[i * j->dh + x] *= inv;
            }
        } else {
            float *pm = j->part + j->nc * j->hr * j->dh + c * j->hr + g0;
            decode_range(j->dsp, hn, j->dh, qh, kh, j->ldk, vh, j->ldv, j->scale, j->mask, kb, ke,
                         j->rows, j->part + (c * j->hr + g0) * j->dh, pm, pm + j->nc * j->hr);
        }
    }
}

/* The chunks' partials of the round's heads into out (fixed chunk order). */
static void dec_merge(const dec_job *j)
{
    const size_t nc = j->nc, hr = j->hr, dh = j->dh;
    const float *pm = j->part + nc * hr * dh, *pl = pm + nc * hr;
    for (size_t h = 0; h < hr; h++) {
        float *o = j->out + (j->h0 + h) * dh;
        float mx = -INFINITY;
        for (size_t c = 0; c < nc; c++) {
            const float m = pm[c * hr + h];
            if (mx != mx) break;      /* NaN: stays NaN */
            if (!(m <= mx)) mx = m;   /* larger, or NaN */
        }
        memset(o, 0, dh * sizeof(float));
        if (mx == -INFINITY) continue; /* every key masked: zero */
        float l = 0.f;
        for (size_t c = 0; c < nc; c++) {
            const float w = sk_exp1_scalar(pm[c * hr + h] - mx);
            const float *oc = j->part + (c * hr + h) * dh;
            l += w * pl[c * hr + h];
            for (size_t x = 0; x < dh; x++) o[x] += w * oc[x];
        }
        if (l == 0.f) continue;
        const float inv = 1.f / l;
        for (size_t x = 0; x < dh; x++) o[x] *= inv;
    }
}

static void mha_decode(const sk_threadpool *tp, const sk_attn_tables *dsp, size_t n_heads,
                       size_t n_kv, size_t dh, const float *q, const float *k, size_t ldk,
                       const float *v, size_t ldv, float scale, const sk_mask *mask, float *out)
{
    SK_ALIGN(64) float part[SK_DEC_PART];
    if (mask && mask->kind == SK_MASK_NONE) mask = NULL;
    const size_t kv_end =
        mask && mask->kind == SK_MASK_CAUSAL ? sk_causal_len(0, n_kv, mask->offset) : n_kv;
    dec_job j = { .dsp = dsp, .dh = dh, .ldk = ldk, .ldv = ldv, .kv_end = kv_end, .q = q, .k = k,
                  .v = v, .scale = scale, .mask = mask, .out = out, .part = part };
    const double kv_bytes = (double)kv_end * (double)n_heads * 2.0 * (double)dh * sizeof(float);
    j.rows = n_heads % dsp->attn->dec_hg == 0 ||
             (n_heads >= SK_DEC_ROWS_HEADS && kv_bytes >= SK_DEC_ROWS_MIN);
    /* the chunks: by n_kv (through kv_end) and dh alone */
    size_t nc = (kv_end + SK_DEC_CHUNK - 1) / SK_DEC_CHUNK;
    nc = nc < SK_DEC_CMAX ? nc : SK_DEC_CMAX;
    nc = nc < SK_DEC_PART / (dh + 2) ? nc : SK_DEC_PART / (dh + 2);
    if (nc > 1) {
        const size_t per = (kv_end + nc - 1) / nc;
        j.chunk = (per + SK_DEC_BK - 1) / SK_DEC_BK * SK_DEC_BK;
        nc = (kv_end + j.chunk - 1) / j.chunk;
    }
    if (nc <= 1) {
        nc = 1;
        j.chunk = kv_end ? kv_end : 1;
    }
    j.nc = nc;
    const size_t hr_max = nc == 1 ? n_heads : SK_DEC_PART / (nc * (dh + 2));
    const double bytes = (double)kv_end * 2.0 * (double)dh * sizeof(float);
    for (size_t h0 = 0; h0 < n_heads; h0 += j.hr) {
        j.h0 = h0;
        j.hr = n_heads - h0 < hr_max ? n_heads - h0 : hr_max;
        /* head subgroups: whole groups of SK_DEC_HG, more when the pool has threads to spare.
           The row walk pays its per-key work (the reduction across heads, the online update of
           a whole vector of heads) once per subgroup whatever its size: it splits a group only
           until every thread has a task (one thread: never), where the head walk takes up to
           SK_TP_SPLIT tasks per thread. */
        const size_t tasks = sk_tp_tasks(tp, bytes * (double)j.hr, TP_MIN_BYTES_DEC);
        const size_t thr = sk_tp_threads(tp);
        const size_t want_tasks = j.rows && tasks > thr ? thr : tasks;
        size_t ns = (j.hr + SK_DEC_HG - 1) / SK_DEC_HG;
        if (want_tasks > 1 && ns * nc < want_tasks) {
            const size_t want = (want_tasks + nc - 1) / nc;
            ns = want < j.hr ? want : j.hr;
        }
        j.ns = ns < SK_TASKS_MAX ? ns : SK_TASKS_MAX; /* a subgroup may span several groups */
        if (kv_end == 0) {
            memset(out + h0 * dh, 0, j.hr * dh * sizeof(float));
            continue;
        }
        sk_tp_run(tasks > 1 ? tp : NULL, nc * ns, dec_task, &j);
        if (nc > 1) dec_merge(&j);
    }
}

/* Empty operands may be NULL (d_k == 0: q, k; d_v == 0: v, out; n_kv == 0: k, v). They are pointed
   at a dummy so that the cores never offset a null pointer; nothing is read or written through it
   (every access has a zero extent). */
static float dummy_operand[1];
#define NONNULL(p) ((p) ? (p) : dummy_operand)

void sk_attention_run_tp(const sk_threadpool *tp, const sk_attn_tables *dsp, size_t n_q,
                         size_t n_kv, size_t d_k, size_t d_v, const float *q, size_t ldq,
                         const float *k, size_t ldk, const float *v, size_t ldv, float scale,
                         const sk_mask *mask, float *out, size_t ldo, float *weights)
{
    if (n_kv == 0 || (d_v == 0 && !weights)) {
        attention_core(NULL, dsp, n_q, n_kv, d_k, d_v, NONNULL(q), ldq, NONNULL(k), ldk, NONNULL(v),
                       ldv, scale, mask, NONNULL(out), ldo, weights);
        return;
    }
    /* scale == 0: every score is 0 (+ mask), q and k are not read (alpha == 0 in a GEMM) */
    attn_job j = { .dsp = dsp, .n_heads = 1, .n_q = n_q, .n_kv = n_kv,
                   .d_k = scale == 0.f ? 0 : d_k, .d_v = d_v, .q = NONNULL(q), .k = NONNULL(k),
                   .v = NONNULL(v), .ldq = ldq, .ldk = ldk, .ldv = ldv, .ldo = ldo,
                   .scale = scale, .mask = mask, .out = NONNULL(out), .weights = weights };
    attn_heads(tp, &j);
}

void sk_mha_run_tp(const sk_threadpool *tp, const sk_attn_tables *dsp, size_t n_heads, size_t n_q,
                   size_t n_kv, size_t d_head, const float *q, size_t ldq, const float *k,
                   size_t ldk, const float *v, size_t ldv, float scale, const sk_mask *mask,
                   float *out, size_t ldo, float *weights)
{
    const size_t w = n_heads * d_head;
    if (n_kv == 0) { /* nothing to attend to (k, v may be NULL): zero outputs */
        for (size_t r = 0; r < n_q && w; r++) memset(out + r * ldo, 0, w * sizeof(float));
        return;
    }
    q = NONNULL(q);
    k = NONNULL(k);
    v = NONNULL(v);
    out = NONNULL(out);
    if (n_q == 1 && !weights && n_kv && d_head && scale != 0.f) {
        mha_decode(tp, dsp, n_heads, n_kv, d_head, q, k, ldk, v, ldv, scale, mask, out);
        return;
    }
    if (d_head == 0 && !weights) return;
    /* scale == 0: every score is 0 (+ mask), q and k are not read (alpha == 0 in a GEMM) */
    attn_job j = { .dsp = dsp, .n_heads = n_heads, .n_q = n_q, .n_kv = n_kv,
                   .d_k = scale == 0.f ? 0 : d_head,
                   .d_v = d_head, .hq = d_head, .hk = d_head, .hv = d_head, .ho = d_head, .q = q,
                   .k = k, .v = v, .ldq = ldq, .ldk = ldk, .ldv = ldv, .ldo = ldo, .scale = scale,
                   .mask = mask, .out = out, .weights = weights };
    attn_heads(tp, &j);
}
