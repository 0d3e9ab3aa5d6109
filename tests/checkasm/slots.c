/* Slot-level checks: the ISA tables are stepped tier by tier (scalar, then AVX2, AVX-512 on x86;
 * NEON on aarch64) and every math and attention slot of sk_dsp_for(isa) that differs from the
 * tier below is called on the same data as the scalar slot and compared, and every GEMM slot that
 * differs against a double sum (the public-API tests of the families stay as they are). With
 * --bench, the cycles per call of each such slot and of its scalar slot (TSC ticks on x86-64, the
 * virtual counter on aarch64, ns elsewhere). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "checkasm.h"
#include "dsp.h"

#if defined(__x86_64__)
#include <x86intrin.h>
static uint64_t ticks(void) { return __rdtsc(); }
#define TICKS "cycles"
#elif defined(__aarch64__)
static uint64_t ticks(void)
{
    uint64_t t;
    __asm__ volatile("mrs %0, cntvct_el0" : "=r"(t));
    return t;
}
#define TICKS "ticks"
#else
static uint64_t ticks(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
#define TICKS "ns"
#endif

/* The table a tier upgrades: x86 AVX-512 over AVX2, every other ISA over scalar. */
static const sk_dsp *tier_below(sk_isa isa)
{
    if (isa == SK_ISA_AVX512 && sk_dsp_for(SK_ISA_AVX2)) return sk_dsp_for(SK_ISA_AVX2);
    return sk_dsp_for(SK_ISA_SCALAR);
}

/* 1 when a and b agree within rtol relative or atol absolute (NaN matches NaN only). */
static int close_to(float a, float b, float rtol, float atol)
{
    if (isnan(a) || isnan(b)) return isnan(a) && isnan(b);
    if (a == b) return 1;
    return fabsf(a - b) <= atol + rtol * fabsf(b);
}

static int close_all(const float *a, const float *b, size_t n, float rtol, float atol,
                     const char *what)
{
    for (size_t i = 0; i < n; i++)
        if (!close_to(a[i], b[i], rtol, atol))
            return ck_fail("%s[%zu]: %.9g, scalar %.9g", what, i, a[i], b[i]);
    return 1;
}

/* --bench: cycles per call of fn(arg), the median of 5 runs of reps calls */
static void bench(const char *slot, const char *isa, void (*fn)(void *), void *arg, int reps)
{
    uint64_t best[5];
    for (int k = 0; k < 5; k++) {
        const uint64_t t0 = ticks();
        for (int i = 0; i < reps; i++) fn(arg);
        best[k] = (ticks() - t0) / (uint64_t)reps;
    }
    for (int i = 1; i < 5; i++) /* insertion sort of five */
        for (int j = i; j > 0 && best[j] < best[j - 1]; j--) {
            const uint64_t t = best[j];
            best[j] = best[j - 1];
            best[j - 1] = t;
        }
    printf("  bench %-26s %-7s %10llu %s/call\n", slot, isa, (unsigned long long)best[2], TICKS);
}

static int g_bench;

/* --- math slots --- */
typedef struct math_arg {
    const sk_math_dsp *d;
    int slot;
    size_t n, rows;
    const float *x;
    float *y;
    const sk_mask *mask;
    float r;
} math_arg;

enum { S_EXP, S_MAX, S_EXPSUM, S_SMM, S_SOFTMAX, S_SMSOFTMAX };
static const char *const math_names[] = { "exp",     "max",     "expsum",
                                          "scale_mask_max", "softmax", "scale_mask_softmax" };

static void math_call(void *p)
{
    math_arg *a = p;
    switch (a->slot) {
    case S_EXP: a->d->exp(a->n, a->x, a->y); break;
    case S_MAX: a->r = a->d->max(a->n, a->x); break;
    case S_EXPSUM: a->r = a->d->expsum(a->n, a->x, 0.f, a->y); break;
    case S_SMM: a->r = a->d->scale_mask_max(a->n, 0.125f, a->x, a->mask, 1, a->y); break;
    case S_SOFTMAX: a->d->softmax(a->rows, a->n, a->x, a->n, a->y, a->n); break;
    default:
        a->d->scale_mask_softmax(a->rows, a->n, 0.125f, a->x, a->n, a->mask, a->y, a->n);
        break;
    }
}

static int math_slot_changed(const sk_math_dsp *d, const sk_math_dsp *b, int slot)
{
    switch (slot) {
    case S_EXP: return d->exp != b->exp;
    case S_MAX: return d->max != b->max;
    case S_EXPSUM: return d->expsum != b->expsum;
    case S_SMM: return d->scale_mask_max != b->scale_mask_max;
    case S_SOFTMAX: return d->softmax != b->softmax;
    default: return d->scale_mask_softmax != b->scale_mask_softmax;
    }
}

static void check_math(const sk_math_dsp *d, const sk_math_dsp *ref, const sk_math_dsp *below)
{
    enum { MAXN = 1100, ROWS = 3 };
    float *x = ck_buf_alloc(ROWS * MAXN), *y = ck_buf_alloc(ROWS * MAXN);
    float *yr = ck_buf_alloc(ROWS * MAXN);
    uint8_t keys[MAXN];
    static const size_t sizes[] = { 1, 3, 7, 8, 9, 15, 16, 17, 31, 33, 64, 100, 513, 1031 };
    for (int slot = S_EXP; slot <= S_SMSOFTMAX; slot++) {
        if (!math_slot_changed(d, below, slot)) continue;
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
            const size_t n = sizes[si], rows = slot >= S_SOFTMAX ? ROWS : 1;
            ck_func("slot %s n=%zu", math_names[slot], n);
            const float lo = slot == S_EXP ? -100.f : slot == S_EXPSUM ? -30.f : -8.f;
            const float hi = slot == S_EXP ? 90.f : slot == S_EXPSUM ? 0.f : 8.f;
            ck_fill(x, rows * n, lo, hi);
            if (n > 4 && slot == S_MAX) x[ck_rand_u32((uint32_t)n)] = -INFINITY;
            for (size_t c = 0; c < n; c++) keys[c] = ck_rand_u32(4) != 0;
            const sk_mask km = { SK_MASK_KEYS, keys, 0, 0 };
            math_arg a = { d, slot, n, rows, x, y, &km, 0.f };
            math_arg b = { ref, slot, n, rows, x, yr, &km, 0.f };
            math_call(&a);
            math_call(&b);
            const size_t ny = slot == S_MAX ? 0 : rows * n;
            switch (slot) {
            case S_EXP: /* <= 1 ulp where normal; below FLT_MIN a flush to 0 */
                for (size_t i = 0; i < n; i++)
                    if (!(ck_ulp_diff(y[i], yr[i]) <= 1 || (yr[i] < 0x1p-126f && y[i] == 0.f))) {
                        ck_fail("exp(%.9g) = %.9g, scalar %.9g", x[i], y[i], yr[i]);
                        break;
                    }
                break;
            case S_MAX: ck_check(a.r == b.r, "max %.9g, scalar %.9g", a.r, b.r); break;
            case S_EXPSUM:
                close_all(y, yr, ny, 1e-6f, 1e-30f, "expsum y");
                ck_check(close_to(a.r, b.r, 1e-5f, 0.f), "expsum %.9g, scalar %.9g", a.r, b.r);
                break;
            case S_SMM:
                close_all(y, yr, ny, 2e-7f, 0.f, "scale_mask_max y");
                ck_check(close_to(a.r, b.r, 2e-7f, 0.f), "max %.9g, scalar %.9g", a.r, b.r);
                break;
            default: close_all(y, yr, ny, 1e-5f, 1e-9f, math_names[slot]); break;
            }
            ck_buf_check(y, "y");
        }
        if (g_bench) {
            const size_t n = 1024, rows = slot >= S_SOFTMAX ? ROWS : 1;
            ck_fill(x, rows * n, slot == S_EXPSUM ? -30.f : -8.f, slot == S_EXPSUM ? 0.f : 8.f);
            for (size_t c = 0; c < n; c++) keys[c] = 1;
            const sk_mask km = { SK_MASK_KEYS, keys, 0, 0 };
            math_arg a = { d, slot, n, rows, x, y, &km, 0.f };
            math_arg b = { ref, slot, n, rows, x, yr, &km, 0.f };
            char name[48];
            snprintf(name, sizeof name, "%s/%zux%zu", math_names[slot], rows, n);
            bench(name, "scalar", math_call, &b, 200);
            bench(name, sk_isa_name(ck_isa()), math_call, &a, 200);
        }
    }
    ck_buf_free(x);
    ck_buf_free(y);
    ck_buf_free(yr);
}

/* --- attention tile slots --- */
enum { BQ = SK_ATTN_BQ, BK = 64, DK = 72 };

typedef struct tile_arg {
    const sk_dsp *t;
    int slot;
    size_t bq, bk, d;
    const float *k, *q, *v, *qt, *st0, *corr;
    float *st, *m, *l, *c, *o, *qtout;
} tile_arg;

enum { T_PACK, T_SCORE, T_ONLINE, T_PV };
static const char *const tile_names[] = { "attn.pack_q", "attn.score", "attn.online", "attn.pv" };

static void tile_call(void *p)
{
    tile_arg *a = p;
    const sk_attn_dsp *d = &a->t->attn;
    switch (a->slot) {
    case T_PACK: d->pack_q(a->bq, a->d, a->q, DK, a->qtout); break;
    case T_SCORE:
        d->score(&a->t->gemm, a->bk, a->bq, a->d, 0.125f, a->k, DK, a->q, DK, a->qt, a->st);
        break;
    case T_ONLINE:
        memcpy(a->st, a->st0, a->bk * a->bq * sizeof(float));
        d->online(&a->t->math, a->bk, a->bq, a->st, a->m, a->l, a->c);
        break;
    default: d->pv(&a->t->gemm, a->bq, a->bk, a->d, a->st0, a->v, DK, a->corr, a->o, DK); break;
    }
}

static int tile_slot_changed(const sk_attn_dsp *d, const sk_attn_dsp *b, int slot)
{
    switch (slot) {
    case T_PACK: return d->pack_q != b->pack_q;
    case T_SCORE: return d->score != b->score;
    case T_ONLINE: return d->online != b->online;
    default: return d->pv != b->pv;
    }
}

static void check_tiles(const sk_dsp *t, const sk_dsp *ref, const sk_dsp *below)
{
    float *k = ck_buf_alloc(BK * DK), *q = ck_buf_alloc(BQ * DK), *v = ck_buf_alloc(BK * DK);
    float *qt = ck_buf_alloc(BQ * DK), *qt2 = ck_buf_alloc(BQ * DK);
    float *st0 = ck_buf_alloc(BK * BQ), *st = ck_buf_alloc(BK * BQ), *st2 = ck_buf_alloc(BK * BQ);
    float *o = ck_buf_alloc(BQ * DK), *o2 = ck_buf_alloc(BQ * DK);
    float m[BQ], m2[BQ], l[BQ], l2[BQ], c[BQ], c2[BQ], corr[BQ];
    static const size_t bqs[] = { 1, 3, 8, 17, 32 }, bks[] = { 1, 5, 16, 33, 64 };
    static const size_t ds[] = { 1, 7, 8, 16, 33, 64, 72 };
    for (int slot = T_PACK; slot <= T_PV; slot++) {
        if (!tile_slot_changed(&t->attn, &below->attn, slot)) continue;
        if (slot == T_PACK && !t->attn.pack_q) continue;
        for (size_t a0 = 0; a0 < 5; a0++)
            for (size_t b0 = 0; b0 < 5; b0++)
                for (size_t c0 = 0; c0 < 7; c0++) {
                    const size_t bq = bqs[a0], bk = bks[b0], d = ds[c0];
                    if (slot != T_PV && slot != T_SCORE && c0) continue;
                    ck_func("slot %s bq=%zu bk=%zu d=%zu", tile_names[slot], bq, bk, d);
                    ck_fill(k, BK * DK, -1.f, 1.f);
                    ck_fill(q, BQ * DK, -1.f, 1.f);
                    ck_fill(v, BK * DK, -1.f, 1.f);
                    ck_fill(st0, BK * BQ, slot == T_PV ? 0.f : -4.f, slot == T_PV ? 1.f : 4.f);
                    for (size_t i = 0; i < bk * bq; i++) /* masked scores; P: zero weights */
                        if (ck_rand_u32(5) == 0) st0[i] = slot == T_PV ? 0.f : -INFINITY;
                    ck_fill(o, BQ * DK, -1.f, 1.f);
                    memcpy(o2, o, BQ * DK * sizeof(float));
                    for (size_t r = 0; r < bq; r++) {
                        m[r] = m2[r] = r % 4 == 3 ? -INFINITY : ck_randf(-2.f, 2.f);
                        l[r] = l2[r] = m[r] == -INFINITY ? 0.f : ck_randf(0.5f, 4.f);
                        corr[r] = ck_randf(0.f, 1.f);
                    }
                    if (t->attn.pack_q) t->attn.pack_q(bq, d, q, DK, qt);
                    tile_arg a = { t, slot, bq, bk, d, k, q, v, qt, st0, corr,
                                   st, m, l, c, o, qt };
                    tile_arg b = { ref, slot, bq, bk, d, k, q, v, qt, st0, corr,
                                   st2, m2, l2, c2, o2, qt2 };
                    if (slot == T_PACK) { /* the scalar table has no pack_q: the layout */
                        for (size_t r = 0; r < bq; r++)
                            for (size_t p = 0; p < d; p++)
                                if (qt[p * bq + r] != q[r * DK + p]) {
                                    ck_fail("qt[%zu][%zu]", p, r);
                                    p = d, r = bq;
                                }
                        ck_buf_check(qt, "qt");
                        continue;
                    }
                    tile_call(&a);
                    tile_call(&b);
                    if (slot == T_SCORE) {
                        close_all(st, st2, bk * bq, 1e-5f, 1e-6f * (float)d, "st");
                    } else if (slot == T_ONLINE) {
                        close_all(st, st2, bk * bq, 1e-6f, 1e-30f, "st");
                        close_all(m, m2, bq, 0.f, 0.f, "m");
                        close_all(l, l2, bq, 1e-5f, 0.f, "l");
                        close_all(c, c2, bq, 1e-6f, 1e-30f, "corr");
                    } else {
                        for (size_t r = 0; r < bq; r++)
                            close_all(o + r * DK, o2 + r * DK, d, 1e-5f, 1e-5f * (float)bk, "o");
                    }
                    ck_buf_check(st, "st");
                    ck_buf_check(o, "o");
                }
        if (g_bench) {
            const size_t bq = slot == T_PV || slot == T_SCORE ? BQ : 1, bk = BK, d = 64;
            for (size_t r = 0; r < bq; r++) m[r] = m2[r] = 4.f, l[r] = l2[r] = 1.f;
            if (t->attn.pack_q) t->attn.pack_q(bq, d, q, DK, qt);
            tile_arg a = { t, slot, bq, bk, d, k, q, v, qt, st0, corr, st, m, l, c, o, qt2 };
            tile_arg b = { ref, slot, bq, bk, d, k, q, v, qt, st0, corr, st2, m2, l2, c2, o2, qt2 };
            char name[48];
            snprintf(name, sizeof name, "%s/%zux%zux%zu", tile_names[slot], bq, bk, d);
            if (slot != T_PACK) bench(name, "scalar", tile_call, &b, 500);
            bench(name, sk_isa_name(ck_isa()), tile_call, &a, 500);
        }
    }
    float *bufs[] = { k, q, v, qt, qt2, st0, st, st2, o, o2 };
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) ck_buf_free(bufs[i]);
}

/* --- decoder-step tile slots (heads side by side) ---
 * dec_score and dec_pv of the table under test against the scalar slots, nh heads around the
 * vector widths, d around them, key counts; then the same heads called as a tail [h0, nh) of the
 * group, which must give the same bits (the decoder step splits its heads between tasks). */
enum { DH_MAX = 20, DD_MAX = 67, DK_MAX = 37 };

static void dec_call(const sk_attn_dsp *d, int pv, size_t bk, size_t nh, size_t dd,
                     const float *k, size_t ld, const float *q, float *st, size_t ldst,
                     const float *corr, float *o)
{
    if (pv) d->dec_pv(bk, nh, dd, st, ldst, k, ld, corr, o);
    else d->dec_score(bk, nh, dd, 0.37f, k, ld, q, st, ldst);
}

static void check_dec_tiles(const sk_dsp *t, const sk_dsp *ref, const sk_dsp *below)
{
    static const size_t nhs[] = { 1, 3, 4, 5, 8, 9, 15, 16, 17, 20 };
    static const size_t dds[] = { 1, 3, 4, 7, 8, 15, 16, 17, 33, 64, 67 };
    static const size_t bks[] = { 1, 2, 5, 16, 37 };
    const size_t ld = DH_MAX * DD_MAX + 5, ldst_max = 32;
    float *kv = ck_buf_alloc(DK_MAX * ld), *q = ck_buf_alloc(ld);
    float *o0 = ck_buf_alloc(ld), *o = ck_buf_alloc(ld), *o2 = ck_buf_alloc(ld);
    float *o3 = ck_buf_alloc(ld);
    float corr[DH_MAX];
    for (int pv = 0; pv < 2; pv++) {
        if (pv ? t->attn.dec_pv == below->attn.dec_pv : t->attn.dec_score == below->attn.dec_score)
            continue;
        for (size_t a0 = 0; a0 < sizeof nhs / sizeof *nhs; a0++)
            for (size_t b0 = 0; b0 < sizeof dds / sizeof *dds; b0++)
                for (size_t c0 = 0; c0 < sizeof bks / sizeof *bks; c0++) {
                    const size_t nh = nhs[a0], dd = dds[b0], bk = bks[c0];
                    const size_t hg = t->attn.dec_hg, ldst = (nh + hg - 1) / hg * hg;
                    const size_t h0 = nh / 2 + (nh & 1), nt = nh - h0; /* the tail call */
                    const size_t ldt = (nt + hg - 1) / hg * hg;
                    ck_func("slot attn.dec_%s nh=%zu d=%zu bk=%zu", pv ? "pv" : "score", nh,
                            dd, bk);
                    if (ldst > ldst_max || hg == 0 || hg > 16 || 16 % hg) {
                        ck_fail("dec_hg %zu", hg);
                        continue;
                    }
                    float *st = ck_buf_alloc(bk * ldst), *st2 = ck_buf_alloc(bk * ldst);
                    float *st3 = ck_buf_alloc(bk * ldt + 1);
                    ck_fill(kv, DK_MAX * ld, -1.f, 1.f);
                    ck_fill(q, ld, -1.f, 1.f);
                    ck_fill(o0, ld, -1.f, 1.f);
                    for (size_t h = 0; h < nh; h++) corr[h] = h % 3 ? ck_randf(0.f, 1.f) : 1.f;
                    if (pv) {
                        ck_fill(st, bk * ldst, 0.f, 1.f);
                        for (size_t i = 0; i < bk * ldst; i++)
                            if (ck_rand_u32(5) == 0) st[i] = 0.f;
                        memcpy(st2, st, bk * ldst * sizeof(float));
                        for (size_t j = 0; j < bk; j++)
                            for (size_t h = 0; h < nt; h++)
                                st3[j * ldt + h] = st[j * ldst + h0 + h];
                    }
                    memcpy(o, o0, ld * sizeof(float));
                    memcpy(o2, o0, ld * sizeof(float));
                    memcpy(o3, o0, ld * sizeof(float));
                    dec_call(&t->attn, pv, bk, nh, dd, kv, ld, q, st, ldst, corr, o);
                    dec_call(&ref->attn, pv, bk, nh, dd, kv, ld, q, st2, ldst, corr, o2);
                    dec_call(&t->attn, pv, bk, nt, dd, kv + h0 * dd, ld, q + h0 * dd, st3, ldt,
                             corr + h0, o3 + h0 * dd);
                    if (pv) {
                        close_all(o, o2, nh * dd, 1e-5f, 1e-5f * (float)bk, "o");
                        if (memcmp(o + h0 * dd, o3 + h0 * dd, nt * dd * sizeof(float)))
                            ck_fail("heads [%zu, %zu) alone: other bits", h0, nh);
                        for (size_t i = nh * dd; i < ld; i++)
                            if (o[i] != o0[i] || o3[i] != o0[i]) {
                                ck_fail("o[%zu] past the heads written", i);
                                break;
                            }
                    } else {
                        for (size_t j = 0; j < bk; j++) {
                            if (!close_all(st + j * ldst, st2 + j * ldst, nh, 1e-5f,
                                           1e-6f * (float)dd, "st"))
                                break;
                            if (memcmp(st + j * ldst + h0, st3 + j * ldt, nt * sizeof(float))) {
                                ck_fail("heads [%zu, %zu) alone, key %zu: other bits", h0, nh, j);
                                break;
                            }
                        }
                    }
                    ck_buf_check(st, "st");
                    ck_buf_check(st3, "st (tail call)");
                    ck_buf_check(o, "o");
                    ck_buf_check(o3, "o (tail call)");
                    ck_buf_free(st);
                    ck_buf_free(st2);
                    ck_buf_free(st3);
                }
    }
    float *bufs[] = { kv, q, o0, o, o2, o3 };
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) ck_buf_free(bufs[i]);
}

/* --- GEMM table slots ---
 * Each non-NULL slot of the GEMM table that differs from the tier below, called directly with the
 * tile sizes of the table under test, against a double sum with the GEMM bound
 *   |C - exact| <= (2 k + 4) 2^-24 (|alpha| sum |a b| + |beta| |c0|);
 * pack_t: exact copies. --bench also times sk_sgemm_ref (the scalar table's sgemm) on the same
 * shape as "scalar" (pack_t: the scalar table's pack_t). */
enum { G_UKR, G_UKR_W, G_UKR_T, G_UKR_TP, G_GEMV_N, G_GEMV_T, G_DOT, G_ROWS_N, G_PACK };
static const char *const gemm_names[] = { "gemm.ukr",    "gemm.ukr_w",  "gemm.ukr_t",
                                          "gemm.ukr_tp", "gemm.gemv_n", "gemm.gemv_t",
                                          "gemm.dot",    "gemm.rows_n", "gemm.pack_t" };

/* One call: C is rows x cols at ldc. ukr (ukr_w): rows = r, cols = nr (w_nr),
   A(i,p) = a[i*rsa + p*csa], B(p,j) = b[p*rsb + j]; ukr_t: rows = w, cols = r (room = r),
   a[j*rsa + p], b[p*rsb + i]; gemv_n / gemv_t: rows = 1, a[p], b[p*rsb + j] / b[j*rsb + p];
   dot: a[i*rsa + p], b[j*rsb + p]; rows_n: as ukr, any cols;
   pack_t: w = cols, kc = k, src = a at lds = rsa, dst = c at ld = ldc. */
typedef struct gemm_arg {
    const sk_gemm_dsp *d;
    int slot, ref; /* ref: sk_sgemm_ref (pack_t: the scalar table's) instead of the slot */
    size_t rows, cols, k, rsa, csa, rsb, ldc;
    const float *a, *b;
    float *c, *bp;
    float alpha, beta;
} gemm_arg;

static void gemm_call(void *p)
{
    const gemm_arg *g = p;
    const sk_gemm_dsp *d = g->d;
    const sk_trans N = SK_NOTRANS, T = SK_TRANS;
    if (g->ref && g->slot != G_PACK) {
        switch (g->slot) {
        case G_UKR: /* rsa == 1: A^T in place at lda = csa (packed: lda = mr) */
        case G_UKR_W:
        case G_ROWS_N:
            sk_sgemm_ref(g->rsa == 1 ? T : N, N, g->rows, g->cols, g->k, g->alpha, g->a,
                         g->rsa == 1 ? g->csa : g->rsa, g->b, g->rsb, g->beta, g->c, g->ldc);
            break;
        case G_UKR_T: /* C = op(b)^T op(a)^T: b is k x w, a is r x k */
        case G_UKR_TP:
            sk_sgemm_ref(T, T, g->rows, g->cols, g->k, g->alpha, g->b, g->rsb, g->a, g->rsa,
                         g->beta, g->c, g->ldc);
            break;
        case G_DOT:
            sk_sgemm_ref(N, T, g->rows, g->cols, g->k, g->alpha, g->a, g->rsa, g->b, g->rsb,
                         g->beta, g->c, g->ldc);
            break;
        default:
            sk_sgemm_ref(N, g->slot == G_GEMV_T ? T : N, 1, g->cols, g->k, g->alpha, g->a, g->k,
                         g->b, g->rsb, g->beta, g->c, g->cols);
            break;
        }
        return;
    }
    switch (g->slot) {
    case G_UKR:
        d->ukr(g->rows, g->k, g->a, g->rsa, g->csa, g->b, g->rsb, g->c, g->ldc, g->alpha, g->beta,
               g->bp, NULL, 0);
        break;
    case G_UKR_W:
        d->ukr_w(g->rows, g->k, g->a, g->rsa, g->csa, g->b, g->rsb, g->c, g->ldc, g->alpha,
                 g->beta, g->bp, NULL, 0);
        break;
    case G_UKR_T:
        d->ukr_t(g->cols, g->k, g->a, g->rsa, g->b, g->rsb, g->rows, g->c, g->ldc, g->cols,
                 g->alpha, g->beta);
        break;
    case G_UKR_TP:
        d->ukr_tp(g->cols, g->k, g->a, g->rsa, g->b, g->rsb, g->rows, g->c, g->ldc, g->cols,
                  g->alpha, g->beta);
        break;
    case G_GEMV_N: d->gemv_n(g->cols, g->k, g->alpha, g->a, g->b, g->rsb, g->beta, g->c); break;
    case G_GEMV_T: d->gemv_t(g->cols, g->k, g->alpha, g->a, g->b, g->rsb, g->beta, g->c); break;
    case G_DOT:
        d->dot(g->rows, g->cols, g->k, g->alpha, g->a, g->rsa, g->b, g->rsb, g->beta, g->c,
               g->ldc);
        break;
    case G_ROWS_N:
        d->rows_n(g->rows, g->cols, g->k, g->alpha, g->a, g->rsa, g->csa, g->b, g->rsb, g->beta,
                  g->c, g->ldc);
        break;
    default: d->pack_t(g->cols, g->k, g->a, g->rsa, g->c, g->ldc); break;
    }
}

/* The operands of C(i,j)'s p-th product. */
static void gemm_operands(const gemm_arg *g, size_t i, size_t j, size_t p, double *x, double *y)
{
    switch (g->slot) {
    case G_UKR:
    case G_UKR_W:
    case G_ROWS_N: *x = g->a[i * g->rsa + p * g->csa], *y = g->b[p * g->rsb + j]; break;
    case G_UKR_T:
    case G_UKR_TP: *x = g->a[j * g->rsa + p], *y = g->b[p * g->rsb + i]; break;
    case G_GEMV_N: *x = g->a[p], *y = g->b[p * g->rsb + j]; break;
    case G_GEMV_T: *x = g->a[p], *y = g->b[j * g->rsb + p]; break;
    default: *x = g->a[i * g->rsa + p], *y = g->b[j * g->rsb + p]; break;
    }
}

/* 1 when slot is non-NULL in d and differs from b's. */
static int gemm_slot_changed(const sk_gemm_dsp *d, const sk_gemm_dsp *b, int slot)
{
    switch (slot) {
    case G_UKR: return d->ukr && d->ukr != b->ukr;
    case G_UKR_W: return d->ukr_w && d->ukr_w != b->ukr_w;
    case G_UKR_T: return d->ukr_t && d->ukr_t != b->ukr_t;
    case G_UKR_TP: return d->ukr_tp && d->ukr_tp != b->ukr_tp;
    case G_GEMV_N: return d->gemv_n && d->gemv_n != b->gemv_n;
    case G_GEMV_T: return d->gemv_t && d->gemv_t != b->gemv_t;
    case G_DOT: return d->dot && d->dot != b->dot;
    case G_ROWS_N: return d->rows_n && d->rows_n != b->rows_n;
    default: return d->pack_t && d->pack_t != b->pack_t;
    }
}

/* The operand layout of slot for a rows x cols x k call; lay picks the ukr's A layout (0 packed,
   1 rows in place, 2 A^T in place) and B (bit 2: in place at an odd stride, copied to bp; bit 3
   as well: at a 4 KiB stride instead, 2 KiB for an even k, where the tiles prefetch
   differently). */
static gemm_arg gemm_shape(const sk_gemm_dsp *d, int slot, size_t rows, size_t cols, size_t k,
                           int lay)
{
    gemm_arg g = { d, slot, 0, rows, cols, k, 0, 1, 0, cols + 3, NULL, NULL, NULL, NULL, 0.f,
                   0.f };
    const size_t mr = slot == G_UKR_W ? d->w_mr : d->mr, nr = slot == G_UKR_W ? d->w_nr : d->nr;
    switch (slot) {
    case G_UKR:
    case G_UKR_W:
        g.rsa = (lay & 3) == 0 ? 1 : (lay & 3) == 1 ? k + 3 : 1;
        g.csa = (lay & 3) == 0 ? mr : (lay & 3) == 1 ? 1 : rows + 5;
        g.rsb = lay & 8 ? (k & 1 ? 1024 : 512) : lay & 4 ? nr + 7 : nr;
        break;
    case G_UKR_T:
    case G_UKR_TP: g.rsa = k + 1, g.rsb = d->ukr_t_m; break;
    case G_ROWS_N: /* lay bit 0: A^T in place (else A's rows); bit 3: B at a 4 KiB stride */
        g.rsa = lay & 1 ? 1 : k + 3;
        g.csa = lay & 1 ? rows + 5 : 1;
        g.rsb = lay & 8 ? (cols / 1024 + 1) * 1024 : cols + 5;
        break;
    case G_GEMV_N: g.rsb = cols + 5, g.ldc = cols; break;
    case G_GEMV_T: g.rsb = k + 5, g.ldc = cols; break;
    case G_DOT: g.rsa = k + 1, g.rsb = k + 3; break;
    default: g.rsa = k + 5, g.ldc = d->nr; break; /* pack_t: src w x kc, dst kc x nr */
    }
    return g;
}

/* Floats of a and b that the call reads (b: whole rows or columns as the contract says). */
static size_t gemm_a_len(const gemm_arg *g)
{
    switch (g->slot) {
    case G_UKR:
    case G_UKR_W: return g->rsa == 1 ? g->k * g->csa : g->rows * g->rsa;
    case G_UKR_T:
    case G_UKR_TP: return (g->cols - 1) * g->rsa + g->k;
    case G_GEMV_N: case G_GEMV_T: return g->k;
    case G_DOT: return (g->rows - 1) * g->rsa + g->k;
    case G_ROWS_N: return (g->rows - 1) * g->rsa + (g->k - 1) * g->csa + 1;
    default: return (g->cols - 1) * g->rsa + g->k;
    }
}

static size_t gemm_b_len(const gemm_arg *g)
{
    switch (g->slot) {
    case G_UKR: return (g->k - 1) * g->rsb + g->d->nr;
    case G_UKR_W: return (g->k - 1) * g->rsb + g->d->w_nr;
    case G_UKR_T:
    case G_UKR_TP: return g->k * g->rsb;
    case G_GEMV_N:
    case G_ROWS_N: return (g->k - 1) * g->rsb + g->cols;
    case G_GEMV_T: case G_DOT: return (g->cols - 1) * g->rsb + g->k;
    default: return 1;
    }
}

/* One checked case: returns 1 when it passed. */
static int gemm_case(gemm_arg g)
{
    const size_t na = gemm_a_len(&g), nb = gemm_b_len(&g);
    const size_t nc = g.slot == G_PACK ? g.k * g.ldc : g.rows * g.ldc;
    float *a = ck_buf_alloc(na), *b = ck_buf_alloc(nb), *c = ck_buf_alloc(nc);
    float *c0 = ck_buf_alloc(nc);
    const int tile = g.slot == G_UKR || g.slot == G_UKR_W;
    const size_t tnr = g.slot == G_UKR_W ? g.d->w_nr : g.d->nr; /* the tile's columns */
    float *bp = tile && g.rsb != tnr ? ck_buf_alloc(g.k * tnr) : NULL;
    ck_fill(a, na, -1.f, 1.f);
    ck_fill(b, nb, -1.f, 1.f);
    ck_fill(c0, nc, -1.f, 1.f);
    if (g.slot != G_PACK) {
        for (size_t i = 0; g.beta == 0.f && i < nc; i++) c0[i] = NAN; /* must not be read */
        if (g.ldc > g.cols) ck_mat_poison_pad(c0, g.rows, g.cols, g.ldc);
    }
    memcpy(c, c0, nc * sizeof(float));
    g.a = a, g.b = b, g.c = c, g.bp = bp;
    gemm_call(&g);
    int ok = ck_buf_check(a, "A") && ck_buf_check(b, "B") && ck_buf_check(c, "C");
    if (g.slot == G_PACK) {
        for (size_t p = 0; p < g.k && ok; p++)
            for (size_t j = 0; j < g.cols && ok; j++)
                ok &= ck_check(!memcmp(&c[p * g.ldc + j], &a[j * g.rsa + p], sizeof(float)),
                               "dst[%zu][%zu] differs", p, j);
    } else {
        if (g.ldc > g.cols) ok &= ck_mat_pad_check(c, g.rows, g.cols, g.ldc, "C");
        for (size_t i = 0; i < g.rows && ok; i++)
            for (size_t j = 0; j < g.cols && ok; j++) {
                double s = 0., sa = 0., x, y;
                for (size_t p = 0; p < g.k; p++) {
                    gemm_operands(&g, i, j, p, &x, &y);
                    s += x * y;
                    sa += fabs(x * y);
                }
                const double c1 = g.beta == 0.f ? 0. : c0[i * g.ldc + j];
                const double exact = (double)g.alpha * s + (double)g.beta * c1;
                const double bound = (2. * (double)g.k + 4.) * 0x1p-24 *
                                     (fabs(g.alpha) * sa + fabs(g.beta) * fabs(c1));
                const float got = c[i * g.ldc + j];
                ok &= ck_check(fabs((double)got - exact) <= bound,
                               "C(%zu,%zu) = %.9g, exact %.9g", i, j, got, exact);
            }
    }
    if (bp && ok) {
        ok &= ck_buf_check(bp, "bp");
        for (size_t p = 0; p < g.k && ok; p++)
            ok &= ck_check(!memcmp(bp + p * tnr, b + p * g.rsb, tnr * sizeof(float)),
                           "bp row %zu differs from B", p);
    }
    ck_buf_free(a);
    ck_buf_free(b);
    ck_buf_free(c);
    ck_buf_free(c0);
    if (bp) ck_buf_free(bp);
    return ok;
}

static void check_gemm(const sk_gemm_dsp *d, const sk_gemm_dsp *ref, const sk_gemm_dsp *below)
{
    static const size_t ks[] = { 1, 2, 17 }, ns[] = { 1, 7, 17, 33, 100 };
    /* gemv: around every column strip of the kernels (AVX2: 96, 64, 32 and 8 columns; AVX-512:
       multiples of 16) and their sums, the AVX-512 kernel's accumulators in registers (192 < n
       <= 448, in pairs of vectors), the row-streaming kernels' first width (256), the AVX-512
       one's blocks in registers (256, 128, 64, 32 and 16 columns) and their 1024-column
       accumulator row */
    static const size_t gv_ns[] = { 1,   7,   8,   9,   15,  16,  17,  31,   32,   33,
                                    63,  64,  65,  95,  96,  97,  100, 127,  128,  129,
                                    159, 160, 161, 192, 193, 200, 224, 225,  255,  256,
                                    257, 263, 447, 448, 449, 496, 511, 1008, 1023, 1024,
                                    1025, 2049 };
    const size_t n_gv = sizeof gv_ns / sizeof gv_ns[0];
    /* rows_n: around its 16-column vectors and its accumulator block (1024 columns), k around its
       rows of B per pass (2-4: whole passes, and the rows left one at a time) */
    static const size_t rn_ns[] = { 1, 15, 16, 17, 64, 100, 1023, 1024, 1025, 2049 };
    static const size_t rn_ks[] = { 3, 4, 17 };
    const size_t n_rn = sizeof rn_ns / sizeof rn_ns[0];
    static const float ab[2][2] = { { -0.75f, 1.25f }, { 1.5f, 0.f } }; /* beta 0: C is NaN */
    for (int slot = G_UKR; slot <= G_PACK; slot++) {
        if (!gemm_slot_changed(d, below, slot)) continue;
        /* (rows, cols) pairs: ukr r = 1..mr x nr (ukr_w: 1..w_mr x w_nr); ukr_t w x r,
           r = 1..ukr_t_n, w at 1, about half and all of ukr_t_m (ukr_tp: r = 1..ukr_tp_n, w up
           to ukr_t_lane); gemv 1 x gv_ns; dot
           m = 1..dot_group x ns; pack_t w = 1..nr */
        const int tile = slot == G_UKR || slot == G_UKR_W;
        const size_t nrow = slot == G_UKR ? d->mr : slot == G_UKR_W ? d->w_mr
                          : slot == G_UKR_T ? 3 * d->ukr_t_n
                          : slot == G_UKR_TP ? 3 * d->ukr_tp_n
                          : slot == G_DOT ? d->dot_group * 5 : slot == G_PACK ? d->nr
                          : slot == G_ROWS_N ? d->rows_group * n_rn : n_gv;
        for (size_t s = 0; s < nrow; s++)
            for (size_t ik = 0; ik < 3; ik++)
                for (int lay = 0; lay < (tile ? 9 : slot == G_ROWS_N ? 4 : 1); lay++)
                    for (int v = 0; v < (slot == G_PACK ? 1 : 2); v++) {
                        const size_t k = slot == G_ROWS_N ? rn_ks[ik] : ks[ik];
                        const size_t t_w[3] = { 1, (d->ukr_t_m + 1) / 2, d->ukr_t_m };
                        const size_t tp_w[3] = { 1, (d->ukr_t_lane + 1) / 2, d->ukr_t_lane };
                        size_t rows = 1, cols = slot == G_GEMV_N || slot == G_GEMV_T
                                                    ? gv_ns[s] : ns[s % 5];
                        if (slot == G_UKR) rows = s + 1, cols = d->nr;
                        if (slot == G_UKR_W) rows = s + 1, cols = d->w_nr;
                        if (slot == G_UKR_T) rows = t_w[s % 3], cols = s / 3 + 1;
                        if (slot == G_UKR_TP) rows = tp_w[s % 3], cols = s / 3 + 1;
                        if (slot == G_DOT) rows = s / 5 + 1;
                        if (slot == G_PACK) rows = 1, cols = s + 1;
                        if (slot == G_ROWS_N) rows = s / n_rn + 1, cols = rn_ns[s % n_rn];
                        /* lay 0..2: A layouts with B packed, 3..5: B in place and copied,
                           6..8: the same at a 4 or 2 KiB stride */
                        const int code = lay < 3 ? lay : lay < 6 ? lay + 1 : (lay - 6) | 12;
                        gemm_arg g = gemm_shape(d, slot, rows, cols, k,
                                                slot == G_ROWS_N ? (lay & 1) | (lay & 2) << 2
                                                                 : code);
                        g.alpha = ab[v][0], g.beta = ab[v][1];
                        ck_func("slot %s rows=%zu cols=%zu k=%zu layout=%d alpha=%g beta=%g",
                                gemm_names[slot], rows, cols, k, lay, g.alpha, g.beta);
                        gemm_case(g);
                    }
        if (g_bench) {
            const size_t k = 256;
            size_t rows = 1, cols = 1024;
            if (slot == G_UKR) rows = d->mr, cols = d->nr;
            if (slot == G_UKR_W) rows = d->w_mr, cols = d->w_nr;
            if (slot == G_UKR_T) rows = d->ukr_t_m, cols = d->ukr_t_n;
            if (slot == G_UKR_TP) rows = d->ukr_t_lane, cols = d->ukr_tp_n;
            if (slot == G_DOT) rows = d->dot_group, cols = 64;
            if (slot == G_PACK) cols = d->nr;
            if (slot == G_ROWS_N) rows = d->rows_group;
            gemm_arg g = gemm_shape(d, slot, rows, cols, k, 0);
            const size_t na = gemm_a_len(&g), nb = gemm_b_len(&g);
            const size_t nc = slot == G_PACK ? k * g.ldc : rows * g.ldc;
            float *a = ck_buf_alloc(na), *b = ck_buf_alloc(nb), *c = ck_buf_alloc(nc);
            ck_fill(a, na, -1.f, 1.f);
            ck_fill(b, nb, -1.f, 1.f);
            ck_fill(c, nc, -1.f, 1.f);
            g.a = a, g.b = b, g.c = c, g.alpha = 1.f, g.beta = 0.f; /* C = A B, as in the planner */
            gemm_arg r = g;
            r.ref = 1, r.d = ref;
            char name[48];
            snprintf(name, sizeof name, "%s/%zux%zux%zu", gemm_names[slot], rows, cols, k);
            bench(name, "scalar", gemm_call, &r, 200);
            bench(name, sk_isa_name(ck_isa()), gemm_call, &g, 200);
            ck_buf_free(a);
            ck_buf_free(b);
            ck_buf_free(c);
        }
    }
}

void ck_test_slots(void)
{
    const sk_isa isa = ck_isa();
    g_bench = ck_bench();
    if (isa == SK_ISA_SCALAR) return; /* the reference itself */
    const sk_dsp *t = sk_dsp_for(isa), *ref = sk_dsp_for(SK_ISA_SCALAR), *below = tier_below(isa);
    if (!t || !ref || !below) {
        ck_fail("no table for %s", sk_isa_name(isa));
        return;
    }
    check_math(&t->math, &ref->math, &below->math);
    check_tiles(t, ref, below);
    check_dec_tiles(t, ref, below);
    check_gemm(&t->gemm, &ref->gemm, &below->gemm);
}
