/* Fuzz target: the argument contract of every public function, on a fuzzer-chosen ISA (sk_sgemm's
 * input with bit 4 of its transpose byte set: sk_sgemm_pack_b then sk_sgemm_packed; with bit 6:
 * sk_sgemm_plan_init, which checks everything but the pointers and writes nothing when it refuses,
 * then sk_sgemm_plan_run on the operands, which checks the pointers).
 *
 * Sizes come from small values and from the edges of size_t / ptrdiff_t (2^20, 2^32, 2^50, 2^60,
 * SIZE_MAX / 4 + 1, PTRDIFF_MAX, SIZE_MAX, ...), leading dimensions from "fits", "too small" and
 * the same edges, pointers are NULL or real. A model written here says what each call must return:
 *   - an operand (rows x cols, stride ld, elements of e bytes) is bad when it is not empty and it
 *     is NULL, or ld < cols, or its extent (rows - 1) ld + cols overflows or exceeds
 *     PTRDIFF_MAX / sizeof(float) elements (no object is that big, so such a size is wrong);
 *   - an unknown enum value is bad; sk_mha: n_heads == 0, n_heads * d_head overflowing; the module:
 *     a NULL layer, n_heads == 0, d_model % n_heads != 0, a NULL weight matrix when d_model > 0
 *     (w_k, w_v: d_enc x d_model, d_enc 0 = d_model; encoder rows d_enc wide), a kv / workspace
 *     / weights size that overflows; biases are NULL or d_model floats, both good;
 *   - bad input: SK_EINVAL and not a byte written anywhere (every buffer has a shadow copy);
 *   - good input: SK_OK, and only the output elements change (ld padding, sentinel bands and a
 *     PROT_NONE page right after, or before, every buffer of exactly the documented size);
 *   - a size query (sk_mhca_*_size) is 0 for a bad layer and whenever the sizes it covers cannot
 *     exist; sk_mhca_kv_size is exactly 2 n_enc d_model floats; a nonzero answer is enough: the
 *     call gets a workspace / kv buffer of exactly that many bytes.
 * Good calls are made only when their buffers fit in FZ_CAP bytes; bad calls always (the library
 * must reject them before touching memory: their buffers are small). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

typedef unsigned __int128 u128;
#define EL_MAX ((u128)PTRDIFF_MAX / sizeof(float))
enum { FZ_CAP = 1 << 18, SMALL = 256 };

/* a * b, saturating at 2^128 - 1 (far beyond every limit) */
static u128 mul(u128 a, u128 b)
{
    return b && a > ~(u128)0 / b ? ~(u128)0 : a * b;
}

static const uint64_t k_edges[] = {
    (uint64_t)1 << 20, (uint64_t)1 << 31, (uint64_t)1 << 32, ((uint64_t)1 << 32) + 1,
    (uint64_t)1 << 50, (uint64_t)1 << 60, (uint64_t)1 << 61, (uint64_t)1 << 62,
    SIZE_MAX / 4, SIZE_MAX / 4 + 1, SIZE_MAX / 2, SIZE_MAX / 2 + 1, PTRDIFF_MAX,
    PTRDIFF_MAX / 4, PTRDIFF_MAX / 4 + 1, SIZE_MAX - 1, SIZE_MAX, 3ull << 61,
};
#define N_EDGES (sizeof k_edges / sizeof k_edges[0])

static size_t pick_size(fz_in *in)
{
    const uint8_t s = fz_u8(in);
    if (s < 200) return s % 9;
    if (s < 250) return k_edges[s % N_EDGES];
    return (size_t)fz_u64(in);
}
static size_t pick_ld(fz_in *in, size_t cols)
{
    const uint8_t s = fz_u8(in);
    if (s < 150) return cols + s % 4 < cols ? cols : cols + s % 4;
    if (s < 180) return cols ? (s % 2 ? cols - 1 : 0) : 0;
    if (s < 250) return k_edges[s % N_EDGES];
    return (size_t)fz_u64(in);
}

/* ---- operands ---------------------------------------------------------------------------------*/
typedef struct opnd {
    u128 rows, cols, ld;
    size_t elem;
    unsigned mult; /* the buffer holds mult times the extent (the kv buffer: K and V) */
    int out, null;
    fz_buf b;
} opnd;

static u128 extent(const opnd *o) /* elements */
{
    return o->rows && o->cols ? mul(o->rows - 1, o->ld) + o->cols : 0;
}
/* rows * ld may exceed 128 bits only for rows, ld ~ 2^64: both come from size_t, so it cannot */
static int bad(const opnd *o)
{
    if (!o->rows || !o->cols) return 0;
    return o->null || o->ld < o->cols || extent(o) > EL_MAX;
}
static u128 need(const opnd *o)
{
    return o->null ? 0 : mul(extent(o), o->elem * (o->mult ? o->mult : 1));
}

typedef struct call {
    opnd op[16];
    int n;
    const char *fn;
} call;

static opnd *add(call *c, u128 rows, u128 cols, u128 ld, size_t elem, int out, int null)
{
    opnd *o = &c->op[c->n++];
    memset(o, 0, sizeof *o);
    o->rows = rows;
    o->cols = cols;
    o->ld = ld;
    o->elem = elem;
    o->out = out;
    o->null = null;
    return o;
}
static int any_bad(const call *c)
{
    for (int i = 0; i < c->n; i++)
        if (bad(&c->op[i])) return 1;
    return 0;
}
static u128 total(const call *c)
{
    u128 t = 0;
    for (int i = 0; i < c->n; i++) { /* saturating, as mul() */
        const u128 e = need(&c->op[i]);
        t = t + e < t ? ~(u128)0 : t + e;
    }
    return t;
}

/* Buffers: exact size for a good call, at most SMALL elements for a bad one. Inputs hold small
   finite values (masks: 1), outputs the sentinel. */
static void alloc_all(call *c, int good, int at_start)
{
    for (int i = 0; i < c->n; i++) {
        opnd *o = &c->op[i];
        if (o->null) continue;
        u128 n = mul(extent(o), o->mult ? o->mult : 1);
        if (!good && n > SMALL) n = SMALL;
        fz_buf_alloc(&o->b, (size_t)(n * o->elem), at_start ^ (i & 1));
        if (!o->out) {
            for (size_t j = 0; j < (size_t)n; j++) {
                if (o->elem == 1) ((uint8_t *)o->b.p)[j] = (uint8_t)(j % 3 != 0);
                else ((float *)o->b.p)[j] = (float)((int)(j % 7) - 3) * 0.25f;
            }
        }
        fz_buf_snap(&o->b);
    }
}
static void *P(call *c, int i)
{
    return c->op[i].null ? NULL : c->op[i].b.p;
}
static void check_all(call *c, sk_status got, int good)
{
    const sk_status want = good ? SK_OK : SK_EINVAL;
    if (got != want)
        fz_fail("%s returned %s, want %s", c->fn, sk_status_str(got), sk_status_str(want));
    for (int i = 0; i < c->n; i++) {
        const opnd *o = &c->op[i];
        if (o->null) continue;
        const int ok = good && o->out
            ? fz_buf_check(&o->b, (size_t)o->rows, (size_t)o->cols, (size_t)o->ld, o->elem)
            : fz_buf_check(&o->b, 0, 0, 0, 1);
        if (!ok) fz_fail("%s: operand %d written %s", c->fn, i, good ? "outside its elements" : "");
    }
}
static void free_all(call *c)
{
    for (int i = 0; i < c->n; i++) fz_buf_free(&c->op[i].b);
}

/* Makes the call when it can be afforded; the model's verdict is `good`. */
#define RUN(c, good, at_start, expr)                                                             \
    do {                                                                                         \
        if (!(good) || total(c) <= FZ_CAP) {                                                     \
            alloc_all(c, good, at_start);                                                        \
            const sk_status st_ = (expr);                                                        \
            check_all(c, st_, good);                                                             \
            free_all(c);                                                                         \
        }                                                                                        \
    } while (0)

static sk_mask pick_mask(fz_in *in, call *c, size_t rows, size_t cols, int *mask_bad, int *mi)
{
    const uint8_t kb = fz_u8(in);
    sk_mask m = { (sk_mask_kind)(kb % 6), NULL, 0, 0 };
    if (kb % 6 == 5) m.kind = (sk_mask_kind)(int)(int32_t)fz_u32(in); /* unknown (or any) kind */
    m.offset = (ptrdiff_t)fz_u64(in);
    const int null = fz_u8(in) % 8 == 0;
    *mask_bad = 0;
    *mi = -1;
    switch ((int)m.kind) {
    case SK_MASK_NONE:
    case SK_MASK_CAUSAL: break;
    case SK_MASK_KEYS:
        *mi = c->n;
        add(c, rows ? 1 : 0, cols, cols, 1, 0, null);
        break;
    case SK_MASK_BOOL:
    case SK_MASK_ADD:
        m.ld = pick_ld(in, cols);
        *mi = c->n;
        add(c, rows, cols, m.ld, m.kind == SK_MASK_BOOL ? 1 : sizeof(float), 0, null);
        break;
    default: *mask_bad = 1; break;
    }
    return m;
}

static sk_isa pick_isa(uint8_t b)
{
    sk_isa isas[SK_ISA_COUNT];
    const int n = fz_isas(isas);
    return isas[b % n];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_in in = { data, size };
    const uint8_t fsel = fz_u8(&in), isel = fz_u8(&in), nulls = fz_u8(&in);
    const int at_start = fsel >> 7;
    const sk_isa before = sk_isa_active();
    sk_isa_select(pick_isa(isel));
    call c = { .n = 0 };
    snprintf(fz_case, sizeof fz_case, "function %d", fsel % 10);
#define NUL(i) ((nulls >> (i)) & 1)
    switch (fsel % 10) {
    case 0: { /* sk_sgemm */
        c.fn = "sk_sgemm";
        const uint8_t tt = fz_u8(&in);
        sk_trans ta = (sk_trans)(tt & 1), tb = (sk_trans)((tt >> 1) & 1);
        if (tt & 4) ta = (sk_trans)(int)(int32_t)fz_u32(&in);
        if (tt & 8) tb = (sk_trans)(int)(int32_t)fz_u32(&in);
        const size_t m = pick_size(&in), n = pick_size(&in), k = pick_size(&in);
        const int ta1 = ta == SK_TRANS, tb1 = tb == SK_TRANS;
        const size_t lda = pick_ld(&in, ta1 ? m : k), ldb = pick_ld(&in, tb1 ? k : n);
        const size_t ldc = pick_ld(&in, n);
        const float alpha = fz_u8(&in) % 2 ? 0.f : 1.5f, beta = fz_u8(&in) % 3 * 0.5f;
        if (tt & 16) { /* B packed once (sk_sgemm_pack_b), then sk_sgemm_packed from it */
            const size_t psz = sk_sgemm_pack_b_size(k, n);
            /* panels are at most 64 floats wide: k x (n + 63) floats and a 64-byte header within
               the largest operand can be packed, k x n beyond it cannot */
            if (k && n && !psz && mul((u128)n + 63, k) <= EL_MAX - 16)
                fz_fail("sk_sgemm_pack_b_size(%zu, %zu) = 0", k, n);
            if (psz && (mul(k, n) > EL_MAX || (u128)psz < 64 + 4 * mul(k, n)))
                fz_fail("sk_sgemm_pack_b_size(%zu, %zu) = %zu", k, n, psz);
            c.fn = "sk_sgemm_pack_b";
            add(&c, tb1 ? n : k, tb1 ? k : n, ldb, 4, 0, NUL(1));
            /* the packed buffer, in floats (psz is a multiple of 4) */
            add(&c, 1, psz ? psz / 4 : 4, psz ? psz / 4 : 4, 4, 1, NUL(3));
            const size_t pbytes = tt & 32 && psz ? psz - 4 : psz; /* a short buffer: refused */
            const int good = (unsigned)tb <= 1 && psz && pbytes == psz && !any_bad(&c);
            snprintf(fz_case, sizeof fz_case, "sk_sgemm_pack_b tb=%d k=%zu n=%zu ldb=%zu size=%zu "
                     "then sk_sgemm_packed ta=%d m=%zu lda=%zu ldc=%zu nulls=%#x", (int)tb, k, n,
                     ldb, psz, (int)ta, m, lda, ldc, nulls & 15);
            if (good && total(&c) > FZ_CAP) break;
            alloc_all(&c, good, at_start);
            check_all(&c, sk_sgemm_pack_b(tb, k, n, P(&c, 0), ldb, P(&c, 1), pbytes), good);
            if (good) {
                call d = { .n = 0, .fn = "sk_sgemm_packed" };
                add(&d, ta1 ? k : m, ta1 ? m : k, lda, 4, 0, NUL(0));
                add(&d, m, n, ldc, 4, 1, NUL(2));
                const int good2 = (unsigned)ta <= 1 && !any_bad(&d);
                if (!good2 || total(&d) <= FZ_CAP) {
                    alloc_all(&d, good2, at_start);
                    fz_buf_snap(&c.op[1].b);
                    check_all(&d, sk_sgemm_packed(ta, m, n, k, alpha, P(&d, 0), lda, P(&c, 1),
                                                  beta, P(&d, 1), ldc), good2);
                    if (!fz_buf_check(&c.op[1].b, 0, 0, 0, 1))
                        fz_fail("sk_sgemm_packed wrote into the packed buffer");
                    free_all(&d);
                }
            }
            free_all(&c);
            break;
        }
        add(&c, ta1 ? k : m, ta1 ? m : k, lda, 4, 0, NUL(0));
        add(&c, tb1 ? n : k, tb1 ? k : n, ldb, 4, 0, NUL(1));
        add(&c, m, n, ldc, 4, 1, NUL(2));
        const int good = (unsigned)ta <= 1 && (unsigned)tb <= 1 && !any_bad(&c);
        if (tt & 64) { /* planned once: the sizes checked by init, the pointers by the run */
            int sizes_bad = 0;
            for (int i = 0; i < c.n; i++) {
                opnd o = c.op[i];
                o.null = 0;
                sizes_bad |= bad(&o);
            }
            const int init_good = (unsigned)ta <= 1 && (unsigned)tb <= 1 && !sizes_bad;
            snprintf(fz_case, sizeof fz_case, "sk_sgemm_plan ta=%d tb=%d m=%zu n=%zu k=%zu "
                     "lda=%zu ldb=%zu ldc=%zu nulls=%#x", (int)ta, (int)tb, m, n, k, lda, ldb, ldc,
                     nulls & 7);
            sk_sgemm_plan plan, keep;
            memset(&plan, 0x3c, sizeof plan);
            keep = plan;
            const sk_status si =
                sk_sgemm_plan_init(&plan, ta, tb, m, n, k, alpha, lda, ldb, beta, ldc);
            if (si != (init_good ? SK_OK : SK_EINVAL))
                fz_fail("sk_sgemm_plan_init returned %s", sk_status_str(si));
            if (!init_good && memcmp(&plan, &keep, sizeof plan))
                fz_fail("sk_sgemm_plan_init wrote a plan it refused");
            c.fn = "sk_sgemm_plan_run";
            if (init_good)
                RUN(&c, good, at_start, sk_sgemm_plan_run(&plan, P(&c, 0), P(&c, 1), P(&c, 2)));
            break;
        }
        snprintf(fz_case, sizeof fz_case, "sk_sgemm ta=%d tb=%d m=%zu n=%zu k=%zu lda=%zu ldb=%zu "
                 "ldc=%zu nulls=%#x", (int)ta, (int)tb, m, n, k, lda, ldb, ldc, nulls & 7);
        RUN(&c, good, at_start, sk_sgemm(ta, tb, m, n, k, alpha, P(&c, 0), lda, P(&c, 1), ldb, beta,
                                        P(&c, 2), ldc));
        break;
    }
    case 1: { /* sk_exp, in place or not */
        c.fn = "sk_exp";
        const size_t n = pick_size(&in);
        add(&c, 1, n, n, 4, 0, NUL(0));
        add(&c, 1, n, n, 4, 1, NUL(1));
        snprintf(fz_case, sizeof fz_case, "sk_exp n=%zu nulls=%#x", n, nulls & 3);
        RUN(&c, !any_bad(&c), at_start, sk_exp(n, P(&c, 0), P(&c, 1)));
        break;
    }
    case 2:
    case 3: { /* sk_softmax, sk_scale_mask_softmax */
        const int masked = fsel % 10 == 3;
        c.fn = masked ? "sk_scale_mask_softmax" : "sk_softmax";
        const size_t rows = pick_size(&in), cols = pick_size(&in);
        const size_t ldx = pick_ld(&in, cols), ldy = pick_ld(&in, cols);
        add(&c, rows, cols, ldx, 4, 0, NUL(0));
        add(&c, rows, cols, ldy, 4, 1, NUL(1));
        int mbad = 0, mi = -1;
        sk_mask m = { 0 };
        const int use_mask = masked && fz_u8(&in) % 4 != 0;
        if (use_mask) m = pick_mask(&in, &c, rows, cols, &mbad, &mi);
        const int good = !mbad && !any_bad(&c);
        snprintf(fz_case, sizeof fz_case, "%s rows=%zu cols=%zu ldx=%zu ldy=%zu mask=%d ld=%zu "
                 "offset=%td nulls=%#x", c.fn, rows, cols, ldx, ldy, use_mask ? (int)m.kind : -1,
                 m.ld, m.offset, nulls & 3);
        if (!good || total(&c) <= FZ_CAP) {
            alloc_all(&c, good, at_start);
            if (mi >= 0) m.data = P(&c, mi);
            const sk_status st = masked
                ? sk_scale_mask_softmax(rows, cols, 0.5f, P(&c, 0), ldx, use_mask ? &m : NULL,
                                        P(&c, 1), ldy)
                : sk_softmax(rows, cols, P(&c, 0), ldx, P(&c, 1), ldy);
            check_all(&c, st, good);
            free_all(&c);
        }
        break;
    }
    case 4:
    case 5: { /* sk_attention, sk_mha */
        const int mha = fsel % 10 == 5;
        c.fn = mha ? "sk_mha" : "sk_attention";
        const size_t heads = mha ? pick_size(&in) : 1;
        const size_t n_q = pick_size(&in), n_kv = pick_size(&in), dk = pick_size(&in);
        const size_t dv = mha ? dk : pick_size(&in);
        const u128 wk = (u128)heads * dk, wv = (u128)heads * dv;
        const int wover = wk > SIZE_MAX;
        const size_t ldq = pick_ld(&in, (size_t)wk), ldk = pick_ld(&in, (size_t)wk);
        const size_t ldv = pick_ld(&in, (size_t)wv), ldo = pick_ld(&in, (size_t)wv);
        add(&c, n_q, wk, ldq, 4, 0, NUL(0));
        add(&c, n_kv, wk, ldk, 4, 0, NUL(1));
        add(&c, n_kv, wv, ldv, 4, 0, NUL(2));
        add(&c, n_q, wv, ldo, 4, 1, NUL(3));
        const int with_w = NUL(4);
        const u128 nw = mul(mul(heads, n_q), n_kv);
        if (with_w) add(&c, 1, nw, nw, 4, 1, 0);
        int mbad = 0, mi = -1;
        sk_mask m = { 0 };
        const int use_mask = fz_u8(&in) % 3 != 0;
        if (use_mask) m = pick_mask(&in, &c, n_q, n_kv, &mbad, &mi);
        /* weights: n_heads * n_q * n_kv floats, contiguous; a zero count needs no buffer */
        int good = !mbad && !wover && !any_bad(&c) && !(mha && heads == 0);
        snprintf(fz_case, sizeof fz_case, "%s heads=%zu n_q=%zu n_kv=%zu d_k=%zu d_v=%zu ldq=%zu "
                 "ldk=%zu ldv=%zu ldo=%zu weights=%d mask=%d ld=%zu offset=%td nulls=%#x", c.fn,
                 heads, n_q, n_kv, dk, dv, ldq, ldk, ldv, ldo, with_w, use_mask ? (int)m.kind : -1,
                 m.ld, m.offset, nulls & 15);
        if (!good || total(&c) <= FZ_CAP) {
            alloc_all(&c, good, at_start);
            if (mi >= 0) m.data = P(&c, mi);
            const sk_mask *mp = use_mask ? &m : NULL;
            float *w = with_w ? P(&c, 4) : NULL;
            const sk_status st = mha
                ? sk_mha(heads, n_q, n_kv, dk, P(&c, 0), ldq, P(&c, 1), ldk, P(&c, 2), ldv, 0.5f,
                         mp, P(&c, 3), ldo, w)
                : sk_attention(n_q, n_kv, dk, dv, P(&c, 0), ldq, P(&c, 1), ldk, P(&c, 2), ldv, 0.5f,
                               mp, P(&c, 3), ldo, w);
            check_all(&c, st, good);
            free_all(&c);
        }
        break;
    }
    default: { /* the module: size queries and the three calls */
        const int which = fsel % 10 - 6; /* 0 forward, 1 project_kv, 2 forward_kv, 3 names */
        if (which == 3) {
            const int v = (int)(int32_t)fz_u32(&in);
            const char *s1 = sk_status_str((sk_status)v), *s2 = sk_isa_name((sk_isa)v);
            if (!s1 || !s1[0] || !s2 || !s2[0]) fz_fail("empty name for %d", v);
            const sk_isa act = sk_isa_active();
            const sk_status st = sk_isa_select((sk_isa)v);
            if (v >= 0 && v < SK_ISA_COUNT && sk_isa_available((sk_isa)v)) {
                if (st != SK_OK || sk_isa_active() != (sk_isa)v) fz_fail("select %d", v);
            } else if ((st != SK_EINVAL && st != SK_EUNSUPPORTED) || sk_isa_active() != act) {
                fz_fail("select of unavailable %d: %s", v, sk_status_str(st));
            }
            break;
        }
        const size_t d = pick_size(&in), heads = pick_size(&in);
        const size_t n_dec = pick_size(&in), n_enc = pick_size(&in);
        const int layer_null = fz_u8(&in) % 16 == 0;
        /* bits 0-3: a NULL weight matrix; bit 4: the weights also packed (w_*_packed) */
        const uint8_t wnull = fz_u8(&in) % 32;
        /* bits 0-3: biases given; bits 4-5 == 0: d_enc given; bit 6 (with wnull bit 4): w_o's
           packed buffer is w_o itself, not a packed buffer (a bad layer) */
        const uint8_t lb = fz_u8(&in);
        const size_t d_enc = (lb >> 4) % 4 == 0 ? pick_size(&in) : 0, de = d_enc ? d_enc : d;
        const u128 dd = (u128)d * d, ded = (u128)de * d;
        /* a usable layer: heads divide d, its weight matrices (w_q, w_o: d x d; w_k, w_v: d_enc x
           d) present and of an extent that fits (the header's bad-layer rule); biases are NULL or
           d floats */
        const int lay_ok = !layer_null && heads && d % heads == 0 &&
                           (d == 0 || (!(wnull & 15) && dd <= EL_MAX && ded <= EL_MAX));
        const u128 kvf = mul(2 * (u128)n_enc, d), qf = mul(2 * (u128)n_dec, d); /* floats */
        const u128 nw = mul(mul(heads, n_dec), n_enc);
        /* a layer needs its four d x d matrices: such a layer only exists when d * d fits */
        for (int i = 0; i < 4; i++) {
            const u128 wn = i == 1 || i == 2 ? ded : dd;
            add(&c, 1, wn, wn, 4, 0, (wnull >> i) & 1);
        }
        for (int i = 0; i < 4; i++) /* b_q, b_k, b_v, b_o: d floats, or NULL (no operand) */
            add(&c, (lb >> i) & 1, d, d, 4, 0, !((lb >> i) & 1));
        /* calls only with a layer whose matrices can exist */
        const int calls = dd <= EL_MAX && ded <= EL_MAX;
        const char *names[3] = { "sk_mhca_forward", "sk_mhca_project_kv", "sk_mhca_forward_kv" };
        c.fn = names[which];
        snprintf(fz_case, sizeof fz_case, "%s d_model=%zu n_heads=%zu n_dec=%zu n_enc=%zu "
                 "d_enc=%zu layer_null=%d weights_null=%#x biases=%#x nulls=%#x", c.fn, d, heads,
                 n_dec, n_enc, d_enc, layer_null, wnull & 15, lb & 15, nulls);
        /* the size queries */
        sk_mhca L = { .d_model = d, .n_heads = heads, .d_enc = d_enc };
        const float *dummyw = (const float *)&L; /* non-NULL placeholders for the size queries */
        L.w_q = (wnull & 1) ? NULL : dummyw;
        L.w_k = (wnull & 2) ? NULL : dummyw;
        L.w_v = (wnull & 4) ? NULL : dummyw;
        L.w_o = (wnull & 8) ? NULL : dummyw;
        const sk_mhca *lp = layer_null ? NULL : &L;
        const size_t s_ws = sk_mhca_workspace_size(lp, n_dec, n_enc);
        const size_t s_kv = sk_mhca_kv_size(lp, n_enc);
        const size_t s_fkv = sk_mhca_forward_kv_workspace_size(lp, n_dec);
        const int enc_ok = (u128)n_enc * de <= EL_MAX, dec_ok = (u128)n_dec * d <= EL_MAX;
        if (!lay_ok && (s_ws || s_kv || s_fkv))
            fz_fail("size query nonzero for a bad layer: %zu %zu %zu", s_ws, s_kv, s_fkv);
        if (lay_ok && s_kv != (kvf <= EL_MAX ? (size_t)(kvf * 4) : 0))
            fz_fail("sk_mhca_kv_size = %zu, want 2 n_enc d_model floats (or 0: too big)", s_kv);
        if (s_ws && (!enc_ok || !dec_ok || kvf > EL_MAX || qf > EL_MAX))
            fz_fail("sk_mhca_workspace_size = %zu for sizes that cannot exist", s_ws);
        if (s_fkv && !dec_ok) fz_fail("sk_mhca_forward_kv_workspace_size = %zu, too big", s_fkv);
        /* the call's operands after the four weight matrices */
        const int in_null = NUL(0), out_null = NUL(1), mask_given = NUL(2), w_given = NUL(3);
        const int ws_mode = (nulls >> 4) % 3; /* 0 NULL, 1 exactly the queried size, 2 small */
        const size_t wsq = which == 0 ? s_ws : which == 2 ? s_fkv : 0;
        int good = lay_ok;
        if (!calls) break;
        if (which == 1) { /* project_kv(enc) -> kv */
            add(&c, n_enc, de, de, 4, 0, in_null);
            add(&c, 1, kvf, kvf, 4, 1, out_null);
            good = good && !any_bad(&c);
        } else {
            add(&c, n_dec, d, d, 4, 0, in_null);                  /* dec */
            /* enc (n_enc x d_enc), or kv: K and V, n_enc x d each */
            add(&c, n_enc, which == 2 ? d : de, which == 2 ? d : de, 4, 0, NUL(5));
            if (which == 2) c.op[c.n - 1].mult = 2;
            add(&c, n_dec, d, d, 4, 1, out_null);                 /* out */
            good = good && !any_bad(&c);
            if (mask_given) add(&c, 1, n_enc, n_enc, 1, 0, 0);
            if (w_given) add(&c, 1, nw, nw, 4, 1, 0);
            /* with rows to compute, every size must be representable: K and V, Q and the head
               concat (n_dec x d each), the weights. The forward workspace holds both parts in one
               buffer in this library; whether their sum must fit is not the caller's business:
               such calls are not made. */
            if (n_dec && d && (kvf > EL_MAX || qf > EL_MAX || (w_given && nw > EL_MAX))) good = 0;
            if (good && which == 0 && n_dec && d && kvf + qf > EL_MAX) break;
            if (ws_mode == 1 && wsq) add(&c, 1, wsq, wsq, 1, 1, 0);
            if (ws_mode == 2) add(&c, 1, 16, 16, 1, 1, 0); /* too small: only for bad calls */
        }
        if (good && ws_mode == 2 && n_dec && d) break; /* a short workspace is the caller's bug */
        if (good && which != 1 && ws_mode == 1 && !wsq && n_dec && d) /* project_kv: none */
            fz_fail("%s: size query 0 for a good call", c.fn);
        if (total(&c) > FZ_CAP) break; /* buffers this harness cannot allocate */
        alloc_all(&c, good, at_start);
        L.w_q = P(&c, 0);
        L.w_k = P(&c, 1);
        L.w_v = P(&c, 2);
        L.w_o = P(&c, 3);
        L.b_q = P(&c, 4);
        L.b_k = P(&c, 5);
        L.b_v = P(&c, 6);
        L.b_o = P(&c, 7);
        void *pk[4] = { NULL, NULL, NULL, NULL };
        if ((wnull & 16) && good && d) { /* the weights exist whole: pack them */
            for (int i = 0; i < 4; i++) {
                const size_t rows = i == 1 || i == 2 ? de : d;
                const size_t bytes = sk_sgemm_pack_b_size(rows, d);
                pk[i] = bytes ? malloc(bytes) : NULL;
                if (!pk[i] || sk_sgemm_pack_b(SK_NOTRANS, rows, d, P(&c, i), d, pk[i], bytes))
                    fz_fail("%s: pack of weight %d (%zu x %zu)", c.fn, i, rows, d);
            }
            L.w_q_packed = pk[0];
            L.w_k_packed = pk[1];
            L.w_v_packed = pk[2];
            const int foreign = (lb & 64) && dd >= 16; /* w_o holds a header's 64 bytes */
            L.w_o_packed = foreign ? (const void *)P(&c, 3) : pk[3];
            if (foreign) good = 0;
        }
        sk_status st;
        if (which == 1) {
            st = sk_mhca_project_kv(lp, n_enc, P(&c, 8), P(&c, 9));
        } else {
            int i = 11;
            const uint8_t *mk = mask_given ? P(&c, i++) : NULL;
            float *w = w_given ? P(&c, i++) : NULL;
            void *ws = ws_mode && i < c.n ? P(&c, i) : NULL;
            st = which == 0
                ? sk_mhca_forward(lp, n_dec, P(&c, 8), n_enc, P(&c, 9), mk, P(&c, 10), w, ws)
                : sk_mhca_forward_kv(lp, n_dec, P(&c, 8), n_enc, P(&c, 9), mk, P(&c, 10), w, ws);
        }
        check_all(&c, st, good);
        free_all(&c);
        for (int i = 0; i < 4; i++) free(pk[i]);
        break;
    }
    }
    sk_isa_select(before);
    return 0;
}
