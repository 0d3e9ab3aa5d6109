/* checkasm: the gemm family. sk_sgemm on the ISA under test against the scalar reference and
 * against a double-precision reference with the contract's bound
 *   |C - exact| <= (2 k + 4) 2^-24 (|alpha| |op(A)| |op(B)| + |beta| |C0|)   (elementwise),
 * over sizes around every tile edge (MR, NR), cache block (MC, KC, NC) and planner threshold
 * (dot_rows, dot_few, dot_k_min, dot_k_max, dot_span, dot_t_fill, ukr_t_m, ukr_t_min, ukr_t_n,
 * ukr_t_lane, ukr_t_span, ukr_t_direct, ukr_t_max, ukr_t_k_rows, ukr_t_fill, ukr_tp_n, ukr_tp_k,
 * w_ldb_min, w_many, w_set_max, w_set_stride, w_span_max, w_part_max, w_blocks_span, set_stride,
 * set_rows, b_alias, b_span_min, b_rows_min, cp_min, cp_stride, cp_blocks, cp_blocks_set,
 * cp_ldb_min, direct_a_strips, copy_packs_a, realign_rows_n, realign_n, realign_span, with B 1
 * to 15 floats off a cache line) of the table under test, each read from it, B strides that are
 * multiples of 4 KiB; each slot of the table (micro-kernel in every A layout, copying B or not;
 * the tile transposing B into its panel; transposed tile; matrix-vector kernels; dot kernel;
 * transposing pack) called directly, also those the ISA's table picks on other
 * microarchitectures; all four transposes, padded leading dimensions (poisoned padding must stay
 * untouched), alpha in {1, -0.5, 0}, beta in {0, 1, 0.25} (beta == 0 with C full of NaN: must not
 * propagate), guard bands, concurrent calls from several threads, bad arguments, and a
 * hand-computed 2x2 case. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "checkasm.h"
#include "gemm_mat.h"
#include "dsp.h" /* internal: the GEMM table, sk_gemm_run_bias */
#include "cpu.h" /* internal: sk_cpu_features, the microarchitecture classes */

static const float g_alpha[3] = { 1.f, -0.5f, 0.f };
static const float g_beta[3] = { 0.f, 1.f, 0.25f };

/* One case: returns 1 when it passed. */
static int run_case(sk_trans ta, sk_trans tb, size_t m, size_t n, size_t k, float alpha, float beta,
                    size_t pa, size_t pb, size_t pc)
{
    ck_func("sgemm %c%c m=%zu n=%zu k=%zu alpha=%g beta=%g lda+%zu ldb+%zu ldc+%zu", ta ? 'T' : 'N',
            tb ? 'T' : 'N', m, n, k, alpha, beta, pa, pb, pc);
    mat A = mat_new(ta ? k : m, ta ? m : k, pa);
    mat B = mat_new(tb ? n : k, tb ? k : n, pb);
    mat C0 = mat_new(m, n, pc);
    if (beta == 0.f) /* C must not be read: NaN must not propagate */
        for (size_t i = 0; i < m; i++)
            for (size_t j = 0; j < n; j++) C0.p[i * C0.ld + j] = NAN;
    mat Cr = mat_new(m, n, pc), Cn = mat_new(m, n, pc);
    memcpy(Cr.p, C0.p, m * C0.ld * sizeof(float));
    memcpy(Cn.p, C0.p, m * C0.ld * sizeof(float));

    int ok = 1;
    ck_ref();
    sk_status sr = sk_sgemm(ta, tb, m, n, k, alpha, A.p, A.ld, B.p, B.ld, beta, Cr.p, Cr.ld);
    ck_new();
    sk_status sn = sk_sgemm(ta, tb, m, n, k, alpha, A.p, A.ld, B.p, B.ld, beta, Cn.p, Cn.ld);
    ok &= ck_check(sr == SK_OK && sn == SK_OK, "status %d / %d", (int)sr, (int)sn);
    ok &= mat_intact(&A, "A") && mat_intact(&B, "B");
    ok &= mat_intact(&Cr, "C (scalar)") && mat_intact(&Cn, "C");

    for (size_t i = 0; i < m && ok; i++)
        for (size_t j = 0; j < n && ok; j++) {
            double bound;
            const double exact = mat_exact(&A, &B, &C0, ta, tb, i, j, k, alpha, beta, &bound);
            float vr = Cr.p[i * Cr.ld + j], vn = Cn.p[i * Cn.ld + j];
            ok &= ck_check(fabs(vn - exact) <= bound, "C(%zu,%zu) = %.9g, exact %.9g, bound %.3g",
                           i, j, vn, exact, bound);
            ok &= ck_check(fabs(vr - exact) <= bound,
                           "scalar C(%zu,%zu) = %.9g, exact %.9g, bound %.3g", i, j, vr, exact,
                           bound);
            if (ck_isa() == SK_ISA_SCALAR) /* the reference is deterministic */
                ok &= ck_check(memcmp(&vr, &vn, 4) == 0, "scalar not reproducible at (%zu,%zu)", i,
                               j);
            else
                ok &= ck_check(fabs((double)vn - vr) <= 2. * bound,
                               "C(%zu,%zu) = %.9g vs scalar %.9g", i, j, vn, vr);
        }
    ck_buf_free(A.p); ck_buf_free(B.p); ck_buf_free(C0.p); ck_buf_free(Cr.p); ck_buf_free(Cn.p);
    return ok;
}

/* The internal GEMM with a bias (the module's projections): C = alpha op(A) op(B) + bias[j], C
   not read, through the scalar table and the table under test, against double precision. The bias
   adds one rounding: bound 2 (k + 1) 2^-24 (|alpha| sum |a b| + |bias|). */
static int bias_case(sk_trans ta, sk_trans tb, size_t m, size_t n, size_t k, float alpha, size_t pa,
                     size_t pb, size_t pc)
{
    ck_func("gemm bias %c%c m=%zu n=%zu k=%zu alpha=%g lda+%zu ldb+%zu ldc+%zu", ta ? 'T' : 'N',
            tb ? 'T' : 'N', m, n, k, alpha, pa, pb, pc);
    mat A = mat_new(ta ? k : m, ta ? m : k, pa);
    mat B = mat_new(tb ? n : k, tb ? k : n, pb);
    mat Cr = mat_new(m, n, pc), Cn = mat_new(m, n, pc);
    float *bias = ck_buf_alloc(n);
    ck_fill(bias, n, -2.f, 2.f);
    for (size_t i = 0; i < m; i++) /* C is not read: NaN must not propagate */
        for (size_t j = 0; j < n; j++) Cr.p[i * Cr.ld + j] = Cn.p[i * Cn.ld + j] = NAN;
    sk_gemm_run_bias(&sk_dsp_for(SK_ISA_SCALAR)->gemm, ta, tb, m, n, k, alpha, A.p, A.ld, B.p, B.ld,
                     0.f, bias, Cr.p, Cr.ld);
    sk_gemm_run_bias(&sk_dsp_for(ck_isa())->gemm, ta, tb, m, n, k, alpha, A.p, A.ld, B.p, B.ld, 0.f,
                     bias, Cn.p, Cn.ld);
    int ok = mat_intact(&A, "A") && mat_intact(&B, "B") && ck_buf_check(bias, "bias");
    ok &= mat_intact(&Cr, "C (scalar)") && mat_intact(&Cn, "C");
    for (size_t i = 0; i < m && ok; i++)
        for (size_t j = 0; j < n && ok; j++) {
            double s = 0., sa = 0.;
            for (size_t p = 0; p < k; p++) {
                double x = ta ? A.p[p * A.ld + i] : A.p[i * A.ld + p];
                double y = tb ? B.p[j * B.ld + p] : B.p[p * B.ld + j];
                s += x * y;
                sa += fabs(x * y);
            }
            const double exact = alpha * s + bias[j];
            const double bound =
                2. * (double)(k + 1) * 0x1p-24 * (fabs(alpha) * sa + fabs(bias[j]));
            const float vr = Cr.p[i * Cr.ld + j], vn = Cn.p[i * Cn.ld + j];
            ok &= ck_check(fabs(vn - exact) <= bound, "C(%zu,%zu) = %.9g, exact %.9g, bound %.3g",
                           i, j, vn, exact, bound);
            ok &= ck_check(fabs(vr - exact) <= bound,
                           "scalar C(%zu,%zu) = %.9g, exact %.9g, bound %.3g", i, j, vr, exact,
                           bound);
        }
    ck_buf_free(A.p); ck_buf_free(B.p); ck_buf_free(Cr.p); ck_buf_free(Cn.p); ck_buf_free(bias);
    return ok;
}

static void bias_cases(void)
{
    /* m = 1 (GEMV), m <= 16 with B^T (the few-rows NT path), register-tile and cache-block edges
       (several k blocks past 256, several MC blocks past 168, partial NR tiles), k = 0 and
       alpha = 0 (C = bias), and row strides at 4 KiB multiples (B read in place / copied) */
    static const size_t sh[][3] = {
        { 1, 1, 1 },     { 1, 33, 17 },    { 1, 513, 300 },   { 2, 5, 3 },     { 3, 37, 20 },
        { 6, 16, 9 },    { 8, 32, 64 },    { 9, 31, 65 },     { 15, 100, 40 }, { 16, 64, 64 },
        { 17, 47, 33 },  { 29, 97, 257 },  { 32, 512, 64 },   { 64, 64, 513 }, { 169, 33, 40 },
        { 200, 70, 40 }, { 200, 140, 70 }, { 337, 100, 300 }, { 5, 4097, 7 },  { 4, 7, 0 }
    };
    for (size_t s = 0; s < sizeof sh / sizeof sh[0]; s++)
        for (int t = 0; t < 4; t++) {
            if (ck_quick() && (s + t) % 3) continue;
            const float alpha = s == 1 && t == 0 ? 0.f : g_alpha[ck_rand_u32(2)];
            bias_case((sk_trans)(t >> 1), (sk_trans)(t & 1), sh[s][0], sh[s][1], sh[s][2], alpha,
                      rand_pad(), rand_pad(), rand_pad());
        }
    for (int t = 0; t < 4; t++) {
        bias_case((sk_trans)(t >> 1), (sk_trans)(t & 1), 29, 37, 50, 1.f, 1024 - (t >> 1 ? 29 : 50),
                  1024 - (t & 1 ? 50 : 37), 0);
        bias_case((sk_trans)(t >> 1), (sk_trans)(t & 1), 200, 64, 40, 1.f,
                  1024 - (t >> 1 ? 200 : 40), 1024 - (t & 1 ? 40 : 64), 0);
    }
}

/* B off a cache line (gemm.c, realign_cols): C = alpha A B + beta C (or + bias) through the table
   under test with B `off` floats past a 64-byte boundary at row stride ldb (a multiple of 16
   floats): every element of C within the bound of the double-precision result (the columns
   before B's first line boundary and the rest alike), A, B and C intact around the call. */
static int realign_case(const sk_gemm_dsp *d, size_t m, size_t n, size_t k, size_t ldb, size_t off,
                        int with_bias, float alpha, float beta)
{
    ck_func("gemm B %zu floats off a line m=%zu n=%zu k=%zu ldb=%zu%s alpha=%g beta=%g", off, m, n,
            k, ldb, with_bias ? " bias" : "", alpha, beta);
    if (with_bias) beta = 0.f; /* C not read */
    mat A = mat_new(m, k, rand_pad());
    float *bb = ck_buf_alloc(k * ldb + 16);
    ck_fill(bb, k * ldb + 16, -1.f, 1.f);
    mat B = { ck_past_line(bb, off), k, n, ldb };
    mat C0 = mat_new(m, n, rand_pad()), C = mat_new(m, n, C0.ld - n);
    if (beta == 0.f) /* C must not be read: NaN must not propagate */
        for (size_t i = 0; i < m; i++)
            for (size_t j = 0; j < n; j++) C0.p[i * C0.ld + j] = NAN;
    memcpy(C.p, C0.p, m * C0.ld * sizeof(float));
    float *bias = with_bias ? ck_buf_alloc(n) : NULL;
    if (bias) ck_fill(bias, n, -2.f, 2.f);
    sk_gemm_run_bias(d, SK_NOTRANS, SK_NOTRANS, m, n, k, alpha, A.p, A.ld, B.p, B.ld, beta, bias,
                     C.p, C.ld);
    int ok = ck_check((uintptr_t)B.p % 64 == off * sizeof(float), "B not %zu floats off", off);
    ok &= mat_intact(&A, "A") && ck_buf_check(bb, "B") && mat_intact(&C, "C");
    ok &= !bias || ck_buf_check(bias, "bias");
    for (size_t i = 0; i < m && ok; i++)
        for (size_t j = 0; j < n && ok; j++) {
            double bound;
            double exact = mat_exact(&A, &B, &C0, SK_NOTRANS, SK_NOTRANS, i, j, k, alpha, beta,
                                     &bound);
            if (bias) {
                exact += bias[j];
                bound += 2. * (double)(k + 1) * 0x1p-24 * fabs(bias[j]);
            }
            const float v = C.p[i * C.ld + j];
            ok &= ck_check(fabs(v - exact) <= bound, "C(%zu,%zu) = %.9g, exact %.9g, bound %.3g",
                           i, j, v, exact, bound);
        }
    ck_buf_free(A.p); ck_buf_free(bb); ck_buf_free(C0.p); ck_buf_free(C.p);
    if (bias) ck_buf_free(bias);
    return ok;
}

/* Both sides of each of the table's thresholds for B off a line: the columns after the first
   boundary (realign_rows_n on 2 rows, realign_n on more), B's span (realign_span), the rows (mc),
   B 1 to 15 floats off, at strides of a whole number of lines. */
static void realign_cases(void)
{
    const sk_gemm_dsp *d = &sk_dsp_for(ck_isa())->gemm;
    if (!d->realign_n && !d->realign_rows_n) return;
    static const size_t offs[] = { 1, 4, 8, 12, 15 };
    const size_t need[2] = { d->realign_rows_n, d->realign_n };
    for (size_t o = 0; o < sizeof offs / sizeof *offs; o++) {
        const size_t off = offs[o], h = 16 - off;
        for (int w = 0; w < 2; w++) {
            if (!need[w]) continue;
            const size_t ms[3] = { 2, (size_t)d->mr + 1, d->mc };
            for (int e = 0; e < 2; e++) { /* one column short of the rule, then on it */
                const size_t n = h + need[w] - 1 + (size_t)e;
                const size_t ldb = (n + 15) / 16 * 16 + (e ? 16 : 0);
                const size_t kspan = (d->realign_span + ldb - 1) / ldb;
                for (int ks = 0; ks < 2; ks++) { /* B's span one row short, then on it */
                    const size_t k = ks ? (kspan ? kspan : 1) : kspan > 1 ? kspan - 1 : 1;
                    const size_t m = w ? ms[1 + (o + (size_t)e) % 2] : ms[0];
                    realign_case(d, m, n, k, ldb, off, (int)((o + (size_t)ks) % 2),
                                 g_alpha[ck_rand_u32(2)], g_beta[ck_rand_u32(3)]);
                    if (ck_failures() > 50) return;
                }
            }
        }
        /* past the rows of one MC block: never split */
        const size_t nm = h + d->realign_n + 5;
        realign_case(d, (size_t)d->mc + 1, nm, 8, (nm + 15) / 16 * 16, off, 0, 1.f,
                     g_beta[ck_rand_u32(3)]);
    }
}

/* n floats that end a mapping: the float after them is on a PROT_NONE page, so that a kernel
   reading (not only writing, which the guard bands catch) past the values it needs faults. */
static float *page_end_alloc(size_t n, char **base, size_t *len)
{
    const size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    *len = (n * sizeof(float) + pg - 1) / pg * pg + pg;
    char *p = mmap(NULL, *len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return NULL;
    *base = p;
    if (mprotect(p + *len - pg, pg, PROT_NONE)) return NULL;
    return (float *)(p + *len - pg) - n;
}

/* A, B and C (unpadded) each end at a PROT_NONE page: in-place operands (rows of A or B, A^T)
   and C stores must stay inside. */
static void page_end_case(sk_trans ta, sk_trans tb, size_t m, size_t n, size_t k, float beta)
{
    ck_func("sgemm %c%c m=%zu n=%zu k=%zu beta=%g, operands ending at a PROT_NONE page",
            ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, beta);
    char *base[3] = { NULL, NULL, NULL };
    size_t len[3] = { 0, 0, 0 };
    float *a = page_end_alloc(m * k, &base[0], &len[0]),
          *b = page_end_alloc(k * n, &base[1], &len[1]);
    float *c = page_end_alloc(m * n, &base[2], &len[2]), *want = malloc(m * n * sizeof(float));
    if (ck_check(a && b && c && want, "mmap / malloc")) {
        ck_fill(a, m * k, -1.f, 1.f);
        ck_fill(b, k * n, -1.f, 1.f);
        ck_fill(c, m * n, -1.f, 1.f);
        memcpy(want, c, m * n * sizeof(float));
        ck_ref();
        sk_sgemm(ta, tb, m, n, k, 1.f, a, ta ? m : k, b, tb ? k : n, beta, want, n);
        ck_new();
        sk_sgemm(ta, tb, m, n, k, 1.f, a, ta ? m : k, b, tb ? k : n, beta, c, n);
        const double tol = 4. * (double)k * (double)(k + 1) * 0x1p-24; /* |a|, |b|, |c| <= 1 */
        for (size_t i = 0; i < m * n; i++)
            if (!ck_check(fabs((double)c[i] - want[i]) <= tol, "C(%zu,%zu) = %.9g vs scalar %.9g",
                          i / n, i % n, c[i], want[i]))
                break;
    }
    for (int q = 0; q < 3; q++)
        if (base[q]) munmap(base[q], len[q]);
    free(want);
}

static void hand_2x2(void)
{
    ck_func("sgemm hand-computed 2x2");
    const float a[4] = { 1, 2, 3, 4 }, b[4] = { 5, 6, 7, 8 };
    /* op(A) op(B) for NN, NT, TN, TT */
    static const float want[4][4] = { { 19, 22, 43, 50 }, { 17, 23, 39, 53 },
                                      { 26, 30, 38, 44 }, { 23, 31, 34, 46 } };
    for (int t = 0; t < 4; t++) {
        sk_trans ta = (sk_trans)(t >> 1), tb = (sk_trans)(t & 1);
        float c[4] = { NAN, NAN, NAN, NAN };
        ck_check(sk_sgemm(ta, tb, 2, 2, 2, 1.f, a, 2, b, 2, 0.f, c, 2) == SK_OK, "status");
        for (int i = 0; i < 4; i++)
            ck_check(c[i] == want[t][i], "%c%c c[%d] = %g, want %g", ta ? 'T' : 'N', tb ? 'T' : 'N',
                     i, c[i], want[t][i]);
        /* alpha = 2, beta = 0.5 on C = 2: 2 * AB + 1 */
        float c2[4] = { 2, 2, 2, 2 };
        sk_sgemm(ta, tb, 2, 2, 2, 2.f, a, 2, b, 2, 0.5f, c2, 2);
        for (int i = 0; i < 4; i++)
            ck_check(c2[i] == 2 * want[t][i] + 1, "alpha/beta c[%d] = %g", i, c2[i]);
    }
}

static void bad_args(void)
{
    ck_func("sgemm bad arguments");
    float a[16] = { 0 }, b[16] = { 0 }, c[16];
    for (int i = 0; i < 16; i++) c[i] = (float)i;
    ck_check(sk_sgemm(SK_NOTRANS, SK_NOTRANS, 2, 2, 2, 1, a, 1, b, 2, 0, c, 2) == SK_EINVAL, "lda");
    ck_check(sk_sgemm(SK_NOTRANS, SK_NOTRANS, 2, 3, 2, 1, a, 2, b, 2, 0, c, 3) == SK_EINVAL, "ldb");
    ck_check(sk_sgemm(SK_TRANS, SK_NOTRANS, 3, 2, 2, 1, a, 2, b, 2, 0, c, 2) == SK_EINVAL,
             "lda (T)");
    ck_check(sk_sgemm(SK_NOTRANS, SK_TRANS, 2, 3, 2, 1, a, 2, b, 1, 0, c, 3) == SK_EINVAL,
             "ldb (T)");
    ck_check(sk_sgemm(SK_NOTRANS, SK_NOTRANS, 2, 2, 2, 1, a, 2, b, 2, 0, c, 1) == SK_EINVAL, "ldc");
    ck_check(sk_sgemm(SK_NOTRANS, SK_NOTRANS, 2, 2, 2, 1, NULL, 2, b, 2, 0, c, 2) == SK_EINVAL,
             "A NULL");
    ck_check(sk_sgemm(SK_NOTRANS, SK_NOTRANS, 2, 2, 2, 1, a, 2, NULL, 2, 0, c, 2) == SK_EINVAL,
             "B NULL");
    ck_check(sk_sgemm(SK_NOTRANS, SK_NOTRANS, 2, 2, 2, 1, a, 2, b, 2, 0, NULL, 2) == SK_EINVAL,
             "C NULL");
    ck_check(sk_sgemm((sk_trans)2, SK_NOTRANS, 2, 2, 2, 1, a, 2, b, 2, 0, c, 2) == SK_EINVAL,
             "ta enum");
    ck_check(sk_sgemm(SK_NOTRANS, (sk_trans)7, 2, 2, 2, 1, a, 2, b, 2, 0, c, 2) == SK_EINVAL,
             "tb enum");
    for (int i = 0; i < 16; i++) ck_check(c[i] == (float)i, "C written on bad input");
    /* zero sizes: OK, nothing written; NULL allowed for empty operands */
    ck_check(sk_sgemm(SK_NOTRANS, SK_NOTRANS, 0, 2, 2, 1, NULL, 0, b, 2, 0, NULL, 0) == SK_OK,
             "m=0");
    ck_check(sk_sgemm(SK_NOTRANS, SK_NOTRANS, 2, 0, 2, 1, a, 2, NULL, 0, 0, NULL, 0) == SK_OK,
             "n=0");
    for (int i = 0; i < 16; i++) ck_check(c[i] == (float)i, "C written on empty call");
}

/* Concurrent calls (the packing buffers are per thread): each thread runs a mix of shapes and
 * compares against results computed beforehand on this thread. */
#define NTHR 3
#define NSH 4
static const size_t g_tshape[NSH][3] = {
    { 3, 37, 20 }, { 70, 90, 300 }, { 1, 200, 64 }, { 33, 64, 64 }
};
typedef struct tjob {
    float *a, *b, *want[NSH], *c;
    int bad;
} tjob;

static void *thread_main(void *arg)
{
    tjob *j = arg;
    for (int rep = 0; rep < 3; rep++)
        for (int s = 0; s < NSH; s++) {
            size_t m = g_tshape[s][0], n = g_tshape[s][1], k = g_tshape[s][2];
            sk_trans tb = (sk_trans)(s & 1);
            sk_sgemm(SK_NOTRANS, tb, m, n, k, 1.f, j->a, k, j->b, tb ? k : n, 0.f, j->c, n);
            if (memcmp(j->c, j->want[s], m * n * sizeof(float))) j->bad = 1;
        }
    return NULL;
}

static void threads(void)
{
    ck_func("sgemm from %d threads", NTHR);
    tjob jobs[NTHR];
    pthread_t th[NTHR];
    for (int t = 0; t < NTHR; t++) {
        tjob *j = &jobs[t];
        j->bad = 0;
        j->a = malloc(300 * 300 * sizeof(float));
        j->b = malloc(300 * 300 * sizeof(float));
        j->c = malloc(300 * 300 * sizeof(float));
        ck_fill(j->a, 300 * 300, -1.f, 1.f);
        ck_fill(j->b, 300 * 300, -1.f, 1.f);
        for (int s = 0; s < NSH; s++) {
            size_t m = g_tshape[s][0], n = g_tshape[s][1], k = g_tshape[s][2];
            sk_trans tb = (sk_trans)(s & 1);
            j->want[s] = malloc(m * n * sizeof(float));
            sk_sgemm(SK_NOTRANS, tb, m, n, k, 1.f, j->a, k, j->b, tb ? k : n, 0.f, j->want[s], n);
        }
    }
    int started = 0;
    for (int t = 0; t < NTHR; t++)
        started += pthread_create(&th[t], NULL, thread_main, &jobs[t]) == 0;
    ck_check(started == NTHR, "pthread_create");
    for (int t = 0; t < started; t++) pthread_join(th[t], NULL);
    for (int t = 0; t < NTHR; t++) {
        ck_check(!jobs[t].bad, "thread %d got different results", t);
        free(jobs[t].a); free(jobs[t].b); free(jobs[t].c);
        for (int s = 0; s < NSH; s++) free(jobs[t].want[s]);
    }
}

/* --- the table's slots, called directly ----------------------------------------------------------
 * Each slot of the table under test (the scalar table's own on --isa=scalar), with the tile and
 * block sizes read from that table, against a double-precision sum with the contract's bound;
 * results written only where the slot's contract says (guard bands, poisoned padding). */

/* |got - sum a b| within (2 k + 4) 2^-24 (|alpha| sum |a b| + |beta| |c0|). */
static int near_sum(float got, double s, double sa, float alpha, float beta, double c0, size_t k)
{
    const double exact = (double)alpha * s + (beta == 0.f ? 0. : (double)beta * c0);
    const double bound = (2. * (double)k + 4.) * 0x1p-24 *
                         (fabs(alpha) * sa + (beta == 0.f ? 0. : fabs(beta) * fabs(c0)));
    return fabs((double)got - exact) <= bound;
}

/* Each of the r x nr tile's C(i,j) (c, c0 before, ldc apart) within the bound of the double sum
   over p < k of A(i,p) = a[i*rsa + p*csa] times B(p,j) = b[p*rsb + j*csb]. */
static int tile_within_bound(size_t r, size_t nr, size_t k, const float *a, size_t rsa, size_t csa,
                             const float *b, size_t rsb, size_t csb, const float *c,
                             const float *c0, size_t ldc, float alpha, float beta)
{
    int ok = 1;
    for (size_t i = 0; i < r && ok; i++)
        for (size_t j = 0; j < nr && ok; j++) {
            double s = 0., sa = 0.;
            for (size_t p = 0; p < k; p++) {
                const double x = a[i * rsa + p * csa], y = b[p * rsb + j * csb];
                s += x * y;
                sa += fabs(x * y);
            }
            ok &= ck_check(near_sum(c[i * ldc + j], s, sa, alpha, beta, c0[i * ldc + j], k),
                           "C(%zu,%zu) = %.9g, sum %.9g", i, j, c[i * ldc + j], s);
        }
    return ok;
}

/* The r-row kernel tiles->by[idx][r - 1] (sk_gemm_tiles) from C as c0, against its entry's
   result c (and copy of B, bp: k x NR floats, or NULL): the same bits. */
static void tile_same(const sk_gemm_tiles *tiles, int idx, size_t r, size_t k, const float *a,
                      size_t s, const float *b, size_t rsb, const float *c0, const float *c,
                      size_t ldc, const float *bp, size_t NR, float alpha, float beta,
                      const float *pf, size_t pfs)
{
    const sk_gemm_tile_fn tile = tiles->by[idx][r - 1];
    if (!ck_check(tile != NULL, "no %zu-row kernel of layout %d", r, idx)) return;
    float *c1 = ck_buf_alloc(r * ldc), *bp1 = bp ? ck_buf_alloc(k * NR) : NULL;
    memcpy(c1, c0, r * ldc * sizeof(float));
    tile(k, a, s, b, rsb, c1, ldc, alpha, beta, bp1, pf, pfs);
    if (ck_buf_check(c1, "C") && ck_check(!memcmp(c1, c, r * ldc * sizeof(float)),
                                          "the %zu-row kernel's C differs from the entry's", r) &&
        bp)
        ck_check(ck_buf_check(bp1, "bp") && !memcmp(bp1, bp, k * NR * sizeof(float)),
                 "the %zu-row kernel's copy of B differs from the entry's", r);
    ck_buf_free(c1);
    if (bp1) ck_buf_free(bp1);
}

/* ukr (wide = 0: the mr x nr tile) or ukr_w (wide = 1: the w_mr x w_nr tile): r rows (1..MR) in
   each A layout (packed, rows in place, A^T in place), B packed or in place (a row stride that is
   a multiple of 4 KiB among them), copying B or not; over a packed B, with a prefetch stream (pf:
   k rows 1024 floats apart, guarded, which the tile must leave as it is) or none. */
static void slot_ukr_case(const sk_gemm_dsp *d, int wide, size_t r, int lay, int inplace, int cp,
                          size_t k, float alpha, float beta)
{
    const size_t MR = wide ? d->w_mr : d->mr, NR = wide ? d->w_nr : d->nr;
    const sk_gemm_ukr_fn ukr = wide ? d->ukr_w : d->ukr;
    ck_func("gemm %s r=%zu layout=%d b_in_place=%d copy=%d k=%zu alpha=%g beta=%g",
            wide ? "ukr_w" : "ukr", r, lay, inplace, cp, k, alpha, beta);
    /* A(i,p) = a[i*rsa + p*csa] */
    const size_t lda = lay == 1 ? k + 3 : r + 5;
    const size_t rsa = lay == 0 ? 1 : lay == 1 ? lda : 1, csa = lay == 0 ? MR : lay == 1 ? 1 : lda;
    const size_t a_n = lay == 0 ? k * MR : lay == 1 ? r * lda : k * lda;
    const size_t rsb = !inplace ? NR : k % 2 ? 1024 : NR + 7, ldc = NR + 3;
    float *a = ck_buf_alloc(a_n), *b = ck_buf_alloc((k - 1) * rsb + NR);
    float *c = ck_buf_alloc(r * ldc), *c0 = ck_buf_alloc(r * ldc);
    float *bp = cp ? ck_buf_alloc(k * NR) : NULL;
    const size_t pfs = 1024;
    float *pf = !inplace && !cp && k % 4 < 2 ? ck_buf_alloc((k - 1) * pfs + NR) : NULL;
    if (pf) ck_fill(pf, (k - 1) * pfs + NR, -1.f, 1.f);
    ck_fill(a, a_n, -1.f, 1.f);
    ck_fill(b, (k - 1) * rsb + NR, -1.f, 1.f);
    ck_fill(c0, r * ldc, -1.f, 1.f);
    if (beta == 0.f)
        for (size_t i = 0; i < r * ldc; i++) c0[i] = NAN;
    ck_mat_poison_pad(c0, r, NR, ldc);
    memcpy(c, c0, r * ldc * sizeof(float));
    ukr(r, k, a, rsa, csa, b, rsb, c, ldc, alpha, beta, bp, pf, pfs);
    int ok = ck_buf_check(a, "A") && ck_buf_check(b, "B") && ck_buf_check(c, "C") &&
             (!pf || ck_buf_check(pf, "pf")) &&
             ck_mat_pad_check(c, r, NR, ldc, "C") &&
             tile_within_bound(r, NR, k, a, rsa, csa, b, rsb, 1, c, c0, ldc, alpha, beta);
    if (cp && ok) {
        ok &= ck_buf_check(bp, "bp");
        for (size_t p = 0; p < k && ok; p++)
            ok &= ck_check(!memcmp(bp + p * NR, b + p * rsb, NR * sizeof(float)),
                           "copied B row %zu differs", p);
    }
    /* the entry's r-row kernel of this layout, called straight: the same bits */
    const sk_gemm_tiles *tiles = wide ? d->tiles_w : d->tiles;
    if (ok && ck_check(tiles != NULL, "no r-row kernels beside the entry"))
        tile_same(tiles, (cp ? 2 : 0) + (lay == 1), r, k, a, lay == 1 ? rsa : csa, b, rsb, c0, c,
                  ldc, bp, NR, alpha, beta, pf, pfs);
    ck_buf_free(a); ck_buf_free(b); ck_buf_free(c); ck_buf_free(c0);
    if (bp) ck_buf_free(bp);
    if (pf) ck_buf_free(pf);
}

/* ukr_tcp: the r x nr tile (r = 1..mr) in each A layout over op(B) = B^T read in place (B's rows
   k + 3 floats apart, or 1024), against the double sum; the panel it stores is op(B) exactly,
   k x nr floats and nothing past them. */
static void slot_ukr_tcp_case(const sk_gemm_dsp *d, size_t r, int lay, size_t k, float alpha,
                              float beta)
{
    const size_t MR = d->mr, NR = d->nr;
    ck_func("gemm ukr_tcp r=%zu layout=%d k=%zu alpha=%g beta=%g", r, lay, k, alpha, beta);
    const size_t lda = lay == 1 ? k + 3 : r + 5;
    const size_t rsa = lay == 0 ? 1 : lay == 1 ? lda : 1, csa = lay == 0 ? MR : lay == 1 ? 1 : lda;
    const size_t a_n = lay == 0 ? k * MR : lay == 1 ? r * lda : k * lda;
    const size_t rsb = k % 2 ? 1024 : k + 3, ldc = NR + 3, b_n = (NR - 1) * rsb + k;
    float *a = ck_buf_alloc(a_n), *b = ck_buf_alloc(b_n), *bp = ck_buf_alloc(k * NR);
    float *c = ck_buf_alloc(r * ldc), *c0 = ck_buf_alloc(r * ldc);
    ck_fill(a, a_n, -1.f, 1.f);
    ck_fill(b, b_n, -1.f, 1.f);
    ck_fill(c0, r * ldc, -1.f, 1.f);
    if (beta == 0.f)
        for (size_t i = 0; i < r * ldc; i++) c0[i] = NAN;
    ck_mat_poison_pad(c0, r, NR, ldc);
    memcpy(c, c0, r * ldc * sizeof(float));
    d->ukr_tcp(r, k, a, rsa, csa, b, rsb, c, ldc, alpha, beta, bp, NULL, 0);
    int ok = ck_buf_check(a, "A") && ck_buf_check(b, "B") && ck_buf_check(bp, "bp") &&
             ck_buf_check(c, "C") && ck_mat_pad_check(c, r, NR, ldc, "C") &&
             tile_within_bound(r, NR, k, a, rsa, csa, b, 1, rsb, c, c0, ldc, alpha, beta);
    for (size_t p = 0; p < k && ok; p++)
        for (size_t j = 0; j < NR && ok; j++)
            ok &= ck_check(bp[p * NR + j] == b[j * rsb + p], "panel (%zu,%zu) = %g, B^T %g", p, j,
                           bp[p * NR + j], b[j * rsb + p]);
    /* its r-row kernel of this layout, called straight */
    if (ok && ck_check(d->tiles_tcp != NULL, "no r-row kernels beside the entry"))
        tile_same(d->tiles_tcp, lay == 1, r, k, a, lay == 1 ? rsa : csa, b, rsb, c0, c, ldc, bp,
                  NR, alpha, beta, NULL, 0);
    ck_buf_free(a); ck_buf_free(b); ck_buf_free(bp); ck_buf_free(c); ck_buf_free(c0);
}

/* ukr_t (ukr_tp): r rows of B (1..ukr_t_n, 1..ukr_tp_n), w columns of packed op(A)^T (1..ukr_t_m,
   1..ukr_t_lane); room = r (exact stores). */
static void slot_ukr_t_case(const sk_gemm_dsp *d, int tp, size_t r, size_t w, size_t k,
                            float alpha, float beta)
{
    const size_t W = d->ukr_t_m, rsa = k % 3 ? k + 1 : 1024, ldc = r + 2;
    ck_func("gemm %s r=%zu w=%zu k=%zu alpha=%g beta=%g", tp ? "ukr_tp" : "ukr_t", r, w, k, alpha,
            beta);
    float *a = ck_buf_alloc((r - 1) * rsa + k), *b = ck_buf_alloc(k * W);
    float *c = ck_buf_alloc(w * ldc), *c0 = ck_buf_alloc(w * ldc);
    ck_fill(a, (r - 1) * rsa + k, -1.f, 1.f);
    ck_fill(b, k * W, -1.f, 1.f);
    ck_fill(c0, w * ldc, -1.f, 1.f);
    if (beta == 0.f)
        for (size_t i = 0; i < w * ldc; i++) c0[i] = NAN;
    ck_mat_poison_pad(c0, w, r, ldc);
    memcpy(c, c0, w * ldc * sizeof(float));
    (tp ? d->ukr_tp : d->ukr_t)(r, k, a, rsa, b, W, w, c, ldc, r, alpha, beta);
    int ok = ck_buf_check(a, "A") && ck_buf_check(b, "B") && ck_buf_check(c, "C") &&
             ck_mat_pad_check(c, w, r, ldc, "C");
    for (size_t i = 0; i < w && ok; i++)
        for (size_t q = 0; q < r && ok; q++) {
            double s = 0., sa = 0.;
            for (size_t p = 0; p < k; p++) {
                const double x = a[q * rsa + p], y = b[p * W + i];
                s += x * y;
                sa += fabs(x * y);
            }
            ok &= ck_check(near_sum(c[i * ldc + q], s, sa, alpha, beta, c0[i * ldc + q], k),
                           "C(%zu,%zu) = %.9g, sum %.9g", i, q, c[i * ldc + q], s);
        }
    ck_buf_free(a); ck_buf_free(b); ck_buf_free(c); ck_buf_free(c0);
}

/* ukr_tp with an odd k: an inf in the last k step of a row of B gives +-inf in C, not NaN (the
   odd step's other lane must not multiply it); with an even k, an inf and a zero of op(A) in the
   same step give NaN. */
static void slot_ukr_tp_inf(const sk_gemm_dsp *d)
{
    const size_t W = d->ukr_t_m, r = d->ukr_tp_n, w = d->ukr_t_lane, ldc = r + 1;
    for (size_t k = 3; k <= 4; k++) {
        ck_func("gemm ukr_tp inf in B, k=%zu", k);
        float *a = ck_buf_alloc(r * k), *b = ck_buf_alloc(k * W), *c = ck_buf_alloc(w * ldc);
        for (size_t i = 0; i < r * k; i++) a[i] = 0.5f;
        for (size_t i = 0; i < k * W; i++) b[i] = i % W == 1 ? 0.f : 1.f;
        a[1 * k + k - 1] = INFINITY; /* row 1 of B, last k step */
        for (size_t i = 0; i < w * ldc; i++) c[i] = NAN;
        d->ukr_tp(r, k, a, k, b, W, w, c, ldc, r, 1.f, 0.f);
        int ok = ck_buf_check(a, "A") && ck_buf_check(b, "B") && ck_buf_check(c, "C");
        for (size_t i = 0; i < w && ok; i++)
            for (size_t q = 0; q < r && ok; q++) {
                const float got = c[i * ldc + q];
                /* column 1 of op(A)^T is zero: inf * 0 is NaN there, +inf elsewhere in row 1 */
                const int want_nan = q == 1 && i == 1, want_inf = q == 1 && i != 1;
                ok &= ck_check(want_nan ? isnan(got)
                               : want_inf ? isinf(got) && got > 0.f
                                          : got == 0.5f * (float)(i == 1 ? 0 : k),
                               "C(%zu,%zu) = %g", i, q, got);
            }
        ck_buf_free(a); ck_buf_free(b); ck_buf_free(c);
    }
}

/* gemv_n / gemv_t: one row of C, n columns. */
static void slot_gemv_case(const sk_gemm_dsp *d, int t, size_t n, size_t k, float alpha, float beta)
{
    const size_t ldb = t ? k + (n % 2 ? 1024 - k % 1024 : 1) : n + (k % 2 ? 1024 - n % 1024 : 3);
    const size_t rows = t ? n : k, cols = t ? k : n;
    ck_func("gemm gemv_%c n=%zu k=%zu ldb=%zu alpha=%g beta=%g", t ? 't' : 'n', n, k, ldb, alpha,
            beta);
    float *a = ck_buf_alloc(k), *b = ck_buf_alloc((rows - 1) * ldb + cols);
    float *c = ck_buf_alloc(n), *c0 = ck_buf_alloc(n);
    ck_fill(a, k, -1.f, 1.f);
    ck_fill(b, (rows - 1) * ldb + cols, -1.f, 1.f);
    ck_fill(c0, n, -1.f, 1.f);
    if (beta == 0.f)
        for (size_t i = 0; i < n; i++) c0[i] = NAN;
    memcpy(c, c0, n * sizeof(float));
    (t ? d->gemv_t : d->gemv_n)(n, k, alpha, a, b, ldb, beta, c);
    int ok = ck_buf_check(a, "a") && ck_buf_check(b, "B") && ck_buf_check(c, "c");
    for (size_t j = 0; j < n && ok; j++) {
        double s = 0., sa = 0.;
        for (size_t p = 0; p < k; p++) {
            const double x = a[p], y = t ? b[j * ldb + p] : b[p * ldb + j];
            s += x * y;
            sa += fabs(x * y);
        }
        ok &= ck_check(near_sum(c[j], s, sa, alpha, beta, c0[j], k), "c[%zu] = %.9g, sum %.9g",
                       j, c[j], s);
    }
    ck_buf_free(a); ck_buf_free(b); ck_buf_free(c); ck_buf_free(c0);
}

/* dot: m rows of A (1..dot_group), n rows of B, all contiguous in k. */
static void slot_dot_case(const sk_gemm_dsp *d, size_t m, size_t n, size_t k, float alpha,
                          float beta)
{
    const size_t lda = k + (m % 2 ? 1 : 1024 - k % 1024), ldb = k + (n % 2 ? 3 : 1024 - k % 1024);
    const size_t ldc = n + 2;
    ck_func("gemm dot m=%zu n=%zu k=%zu alpha=%g beta=%g", m, n, k, alpha, beta);
    float *a = ck_buf_alloc((m - 1) * lda + k), *b = ck_buf_alloc((n - 1) * ldb + k);
    float *c = ck_buf_alloc(m * ldc), *c0 = ck_buf_alloc(m * ldc);
    ck_fill(a, (m - 1) * lda + k, -1.f, 1.f);
    ck_fill(b, (n - 1) * ldb + k, -1.f, 1.f);
    ck_fill(c0, m * ldc, -1.f, 1.f);
    if (beta == 0.f)
        for (size_t i = 0; i < m * ldc; i++) c0[i] = NAN;
    ck_mat_poison_pad(c0, m, n, ldc);
    memcpy(c, c0, m * ldc * sizeof(float));
    d->dot(m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    int ok = ck_buf_check(a, "A") && ck_buf_check(b, "B") && ck_buf_check(c, "C") &&
             ck_mat_pad_check(c, m, n, ldc, "C");
    for (size_t i = 0; i < m && ok; i++)
        for (size_t j = 0; j < n && ok; j++) {
            double s = 0., sa = 0.;
            for (size_t p = 0; p < k; p++) {
                const double x = a[i * lda + p], y = b[j * ldb + p];
                s += x * y;
                sa += fabs(x * y);
            }
            ok &= ck_check(near_sum(c[i * ldc + j], s, sa, alpha, beta, c0[i * ldc + j], k),
                           "C(%zu,%zu) = %.9g, sum %.9g", i, j, c[i * ldc + j], s);
        }
    ck_buf_free(a); ck_buf_free(b); ck_buf_free(c); ck_buf_free(c0);
}

/* pack_t: exact copies, nothing written past kc rows of ld. */
static void slot_pack_case(const sk_gemm_dsp *d, size_t w, size_t kc, size_t ld, size_t lds)
{
    ck_func("gemm pack_t w=%zu kc=%zu ld=%zu lds=%zu", w, kc, ld, lds);
    float *src = ck_buf_alloc((w - 1) * lds + kc), *dst = ck_buf_alloc(kc * ld);
    ck_fill(src, (w - 1) * lds + kc, -1.f, 1.f);
    d->pack_t(w, kc, src, lds, dst, ld);
    int ok = ck_buf_check(src, "src") && ck_buf_check(dst, "dst");
    for (size_t p = 0; p < kc && ok; p++)
        for (size_t j = 0; j < w && ok; j++)
            ok &= ck_check(!memcmp(&dst[p * ld + j], &src[j * lds + p], sizeof(float)),
                           "dst[%zu][%zu] differs", p, j);
    ck_buf_free(src); ck_buf_free(dst);
}

/* alpha and beta of the slot cases, drawn at random */
static const float al[3] = { 1.f, -0.5f, 1.7f }, be[4] = { 0.f, 1.f, 0.25f, -1.f };

/* ukr_tp: r up to the table's ukr_tp_n, k around the planner's ukr_tp_k too, odd and even */
static void slot_tp_tests(const sk_gemm_dsp *d)
{
    const size_t L = d->ukr_t_lane, K = d->ukr_tp_k;
    const size_t ws[] = { 1, 2, 3, L / 2, L - 1, L };
    const size_t tks[] = { 1, 2, 3, 4, 5, 16, 17, K - 1, K, K + 1, d->kc + 1 };
    for (size_t r = 1; r <= d->ukr_tp_n; r++)
        for (size_t iw = 0; iw < sizeof ws / sizeof *ws; iw++)
            for (size_t ik = 0; ik < sizeof tks / sizeof *tks; ik += ck_quick() ? 3 : 1)
                slot_ukr_t_case(d, 1, r, ws[iw], tks[ik], al[ck_rand_u32(3)], be[ck_rand_u32(4)]);
    slot_ukr_tp_inf(d);
}

/* The slots of table d; ukr_only: its micro-kernels alone. */
static void slot_tests_of(const sk_gemm_dsp *d, int ukr_only)
{
    /* k around the kernels' unroll steps, the k steps past which the prefetching tiles spread
       C's lines over their loop (8 per line of C: 126-130 for 8 rows of 2 lines), and the
       table's kc */
    const size_t ks[] = { 1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 126, 127, 128, 130, d->kc - 1, d->kc,
                          d->kc + 1 };
    const size_t nks = sizeof ks / sizeof *ks;
    for (int wide = 0; wide < 2; wide++) {
        if (!(wide ? d->ukr_w : d->ukr)) continue;
        for (size_t r = 1; r <= (wide ? d->w_mr : d->mr); r++)
            for (int lay = 0; lay < 3; lay++)
                for (int v = 0; v < 4; v++)
                    for (size_t ik = 0; ik < nks; ik += ck_quick() ? 3 : 1)
                        slot_ukr_case(d, wide, r, lay, v >> 1 || v & 1, v & 1, ks[ik],
                                      al[ck_rand_u32(3)], be[ck_rand_u32(4)]);
    }
    if (d->ukr_tcp) { /* k around its 16-step chunks too */
        const size_t tk[] = { 1, 2, 7, 15, 16, 17, 31, 32, 33, 47, 48, 49, d->kc - 1, d->kc };
        for (size_t r = 1; r <= d->mr; r++)
            for (int lay = 0; lay < 3; lay++)
                for (size_t ik = 0; ik < sizeof tk / sizeof *tk; ik += ck_quick() ? 3 : 1)
                    slot_ukr_tcp_case(d, r, lay, tk[ik], al[ck_rand_u32(3)], be[ck_rand_u32(4)]);
    }
    if (ukr_only) return;
    if (d->ukr_t) {
        const size_t ws[] = { 1, 2, 3, d->ukr_t_m / 2, d->ukr_t_m - 1, d->ukr_t_m };
        for (size_t r = 1; r <= d->ukr_t_n; r++)
            for (size_t iw = 0; iw < sizeof ws / sizeof *ws; iw++)
                for (size_t ik = 0; ik < nks; ik += ck_quick() ? 4 : 2)
                    slot_ukr_t_case(d, 0, r, ws[iw], ks[ik], al[ck_rand_u32(3)],
                                    be[ck_rand_u32(4)]);
    }
    if (d->ukr_tp) slot_tp_tests(d);
    if (d->gemv_n && d->gemv_t) {
        /* around the strips, the AVX-512 kernel's accumulators in registers (192 < n <= 448 in
           pairs of vectors), its row-streaming widths and their blocks in registers (256
           columns, then 128, 64, 32 and 16: 496 = 256 + 128 + 64 + 32 + 16, 1008, 1015); k
           around the AVX2 gemv_t's steps (16 floats, then a vector and a tail: 256, 257, 271)
           and its kernels' k limit (255, 256); n odd puts B's rows a multiple of 4 KiB apart, so
           that B spans L1, L2 and L3 sizes */
        static const size_t vn[] = { 1,   7,   8,   15,  16,  17,  31,  32,  33,  127,
                                     128, 129, 192, 193, 208, 224, 225, 255, 256, 257,
                                     320, 447, 448, 449, 496, 511, 512, 513, 769, 1008,
                                     1015, 1024, 1025, 1031 };
        static const size_t vk[] = { 1, 2, 3, 4, 5, 13, 15, 16, 17, 64, 255, 256, 257, 262, 271 };
        for (int t = 0; t < 2; t++)
            for (size_t in = 0; in < sizeof vn / sizeof *vn; in++)
                for (size_t ik = 0; ik < sizeof vk / sizeof *vk; ik += ck_quick() ? 3 : 1)
                    slot_gemv_case(d, t, vn[in], vk[ik], al[ck_rand_u32(3)], be[ck_rand_u32(4)]);
        /* gemv_t over a B past 4 Mi floats (the AVX2 kernel's rows four at a time, n % 4 left) */
        slot_gemv_case(d, 1, 4099, 1030, al[ck_rand_u32(3)], be[ck_rand_u32(4)]);
        /* gemv_n: B's span (k x ldb) at and just past 256 Ki and 512 Ki floats (the AVX2
           kernel's rows eight, then two, then eight at a time), past its 4096-column chunk of
           the row (4100, 4171: a full chunk, then 4 or 75 columns) */
        static const size_t sn[][2] = { { 1021, 256 }, { 1021, 257 }, { 2045, 256 },
                                        { 2045, 257 }, { 4100, 263 }, { 4171, 70 } };
        for (size_t i = 0; i < sizeof sn / sizeof *sn; i++)
            slot_gemv_case(d, 0, sn[i][0], sn[i][1], al[ck_rand_u32(3)], be[ck_rand_u32(4)]);
    }
    if (d->dot) {
        /* n around every count of B's rows a kernel takes at a time (2 to 8 on AVX2) */
        static const size_t dn[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 16, 17, 25, 33 };
        static const size_t dk[] = { 1, 2, 7, 8, 9, 15, 16, 17, 31, 33, 256, 1024 };
        for (size_t m = 1; m <= d->dot_group; m++)
            for (size_t in = 0; in < sizeof dn / sizeof *dn; in++)
                for (size_t ik = 0; ik < sizeof dk / sizeof *dk; ik += ck_quick() ? 3 : 1)
                    slot_dot_case(d, m, dn[in], dk[ik], al[ck_rand_u32(3)], be[ck_rand_u32(4)]);
    }
    /* the pack's widths: A panels (mr), B panels (nr), transposed-tile panels (ukr_t_m), less */
    const size_t lds[3] = { d->mr, d->nr, d->ukr_t_m ? d->ukr_t_m : d->nr };
    for (int l = 0; l < 3; l++)
        for (size_t w = 1; w <= lds[l]; w++)
            for (size_t kc = 1; kc <= 19; kc += ck_quick() ? 6 : 1)
                slot_pack_case(d, w, kc, lds[l], kc + (w % 3 ? 5 : 1024));
}

/* The table under test, then the micro-kernels that the same ISA's table picks on other
   microarchitectures (sk_gemm_dsp_init with this CPU's class bits replaced by each class in
   turn, and by none), where they differ: each runs on any CPU that has the ISA. */
static void slot_tests(void)
{
    const sk_gemm_dsp *d = &sk_dsp_for(ck_isa())->gemm;
    slot_tests_of(d, 0);
    static const uint64_t uarch[] = { 0, SK_CPU_X86_ZEN1, SK_CPU_X86_ZEN5, SK_CPU_X86_SPR };
    const uint64_t classes = SK_CPU_X86_ZEN1 | SK_CPU_X86_ZEN5 | SK_CPU_X86_SPR;
    for (size_t u = 0; u < sizeof uarch / sizeof *uarch; u++) {
        sk_gemm_dsp alt;
        sk_gemm_dsp_init(&alt, ck_isa(), (sk_cpu_features() & ~classes) | uarch[u]);
        if (alt.ukr != d->ukr || alt.ukr_w != d->ukr_w || alt.ukr_tcp != d->ukr_tcp ||
            alt.tiles != d->tiles || alt.tiles_w != d->tiles_w || alt.tiles_tcp != d->tiles_tcp)
            slot_tests_of(&alt, 1);
        if (alt.ukr_tp && alt.ukr_tp_n > d->ukr_tp_n) /* more rows of B per call there */
            slot_tp_tests(&alt);
    }
}

/* sk_gemm_run around the table's cache blocks: m at MC (and 2 MC) edges, k at KC (and 2 KC), n at
   NC edges (small other sizes, so the cases stay quick), with 4 KiB-multiple strides too. */
static void block_edge_tests(void)
{
    const sk_gemm_dsp *d = &sk_dsp_for(ck_isa())->gemm;
    const size_t MC = d->mc, KC = d->kc, NC = d->nc, MR = d->mr, NR = d->nr;
    const size_t sh[][3] = {
        { MC - 1, 2 * NR + 1, 9 }, { MC, NR, 5 }, { MC + 1, 3 * NR - 1, 7 },
        { 2 * MC + MR - 1, NR + 3, 4 }, { MR + 1, 2 * NR + 3, KC - 1 }, { 3 * MR, 2 * NR, KC + 1 },
        { 2 * MR - 1, NR + 1, 2 * KC + 3 },
        { 3, NC - 1, 5 }, { 2, NC, 3 }, { MR + 2, NC + NR + 1, 4 }, { MC + 3, NC + 5, KC + 2 },
    };
    for (size_t s = 0; s < sizeof sh / sizeof *sh; s++)
        for (int t = 0; t < 4; t++) {
            if (ck_quick() && (s + t) % 2) continue;
            const size_t m = sh[s][0], n = sh[s][1], k = sh[s][2];
            const int pad4k = (s + t) % 3 == 0;
            const size_t pa = pad4k ? 1024 - (t >> 1 ? m : k) % 1024 : rand_pad();
            const size_t pb = pad4k ? 1024 - (t & 1 ? k : n) % 1024 : rand_pad();
            run_case((sk_trans)(t >> 1), (sk_trans)(t & 1), m, n, k, g_alpha[ck_rand_u32(2)],
                     g_beta[ck_rand_u32(3)], pa, pb, rand_pad());
            if (ck_failures() > 50) return;
        }
}

/* A row stride for a rows x cols operand: a multiple of `mult` (0: cols plus a random pad). */
static size_t ld_for(size_t cols, size_t mult)
{
    return mult ? (cols + mult - 1) / mult * mult : cols + rand_pad();
}

/* The lanes of op(A)^T packed for the transposed tiles with m rows of op(A) (as the planner
   packs them): whole groups of ukr_t_m, the last group rounded up to ukr_t_lane. */
static size_t t_lanes(const sk_gemm_dsp *d, size_t m)
{
    const size_t W = d->ukr_t_m, L = d->ukr_t_lane, full = (m - 1) / W * W;
    return full + (m - full + L - 1) / L * L;
}

/* sgemm with explicit row strides (multiples of 4 KiB, of the planner's strides). */
static void ld_case(sk_trans ta, sk_trans tb, size_t m, size_t n, size_t k, size_t lda_mult,
                    size_t ldb_mult)
{
    const size_t ac = ta ? m : k, bc = tb ? k : n;
    run_case(ta, tb, m, n, k, g_alpha[ck_rand_u32(2)], g_beta[ck_rand_u32(3)],
             ld_for(ac, lda_mult) - ac, ld_for(bc, ldb_mult) - bc, rand_pad());
}

/* Around the register tile's MR and NR, read from the table under test; the wide tile's rows
   (1..w_mr, and w_mr + 1: the other tile), the edges of its rule (w_few, w_many, w_set_max, MC)
   and w_nr, B's rows at 4 KiB multiples, at w_set_stride multiples or neither. */
static void tile_edge_tests(void)
{
    const sk_gemm_dsp *d = &sk_dsp_for(ck_isa())->gemm;
    if (d->ukr_w) {
        const size_t W = d->w_nr;
        const size_t wn[] = { 1, W / 2 + 1, W - 1, W, W + 1, 2 * W - 1, 2 * W + d->nr, 3 * W + 5 };
        for (size_t m = 1; m <= d->w_mr + 1; m++)
            for (size_t in = 0; in < sizeof wn / sizeof *wn; in++)
                for (int t = 0; t < 4; t++) {
                    if (ck_quick() && (m + in + (size_t)t) % 3) continue;
                    const size_t k = (size_t[]){ 1, 7, d->kc - 1, d->kc + 1 }[ck_rand_u32(4)];
                    ld_case((sk_trans)(t >> 1), (sk_trans)(t & 1), m, wn[in], k,
                            ck_rand_u32(2) ? d->set_stride : 0, t & 1 ? 0 : d->set_stride);
                }
        /* the wide tile's rule (plan_wide): m around w_few, w_mr, w_many, w_set_max, w_part_max
           and one MC block, over whole panels and a partial one, B's rows at a multiple of
           set_stride, of w_set_stride or neither */
        const size_t many = d->w_many ? d->w_many : d->w_mr + 1; /* 0: none */
        const size_t wm[] = { d->w_few,         d->w_few + 1,         d->w_mr, d->w_mr + 1,
                              many - 1,         many,                 d->w_set_max + 1,
                              d->w_part_max,    d->w_part_max + 1,    d->mc,   d->mc + 1 };
        /* ... and n from w_ldb_min (whole panels), whole panels and a partial one, where B's rows
           need not be padded to reach it */
        const size_t wmin = (d->w_ldb_min + W - 1) / W * W;
        const size_t nw = wmin > 8 * W ? wmin : 8 * W;
        const size_t wn2[] = { W, 2 * W, 2 * W + 16, 8 * W, nw, nw + 5 };
        const size_t wst[] = { 0, d->set_stride, d->w_set_stride };
        for (size_t im = 0; im < sizeof wm / sizeof *wm; im++)
            for (size_t in = 0; in < sizeof wn2 / sizeof *wn2; in++)
                for (size_t c = 0; c < 3; c++) {
                    if (wm[im] == 0 || (ck_quick() && (im + in + c) % 3)) continue;
                    ld_case(SK_NOTRANS, SK_NOTRANS, wm[im], wn2[in], 1 + ck_rand_u32(2 * d->kc),
                            ck_rand_u32(2) ? d->set_stride : 0, wst[c]);
                }
        /* from w_many rows: B's span around w_span_max (the wide tile, then the other one) */
        if (d->w_many && d->w_span_max) {
            const size_t n = wmin > 16 * W ? wmin : 16 * W;
            for (size_t e = 0; e < 2; e++)
                run_case(SK_NOTRANS, SK_NOTRANS, d->w_many, n, d->w_span_max / n + e,
                         g_alpha[ck_rand_u32(2)], g_beta[ck_rand_u32(3)], rand_pad(), 0,
                         rand_pad());
        }
        /* past one MC block (w_blocks_span): k at kc and just past it over a small B, then B's
           span just under and past w_blocks_span with one k block, B's rows not at a
           set-stride multiple (the wide tile, then the other one) */
        if (d->w_many && d->w_blocks_span) {
            const size_t nb = 17 * W, kb = d->w_blocks_span / nb;
            for (int c = 0; c < 4; c++) {
                if (ck_quick() && c & 1) continue;
                const size_t m = d->mc + 1 + ck_rand_u32((unsigned)(2 * d->mc));
                const size_t n = c < 2 ? 2 * W : nb, k = c < 2 ? d->kc + (size_t)c : kb + (c & 1);
                run_case(SK_NOTRANS, SK_NOTRANS, m, n, k, g_alpha[ck_rand_u32(2)],
                         g_beta[ck_rand_u32(3)], rand_pad(), 0, rand_pad());
            }
        }
        /* B's row stride just under and at w_ldb_min (the other tile, then the wide one) */
        for (size_t ldb = d->w_ldb_min - 1; d->w_ldb_min && ldb <= d->w_ldb_min; ldb++)
            for (int c = 0; c < 6; c++) {
                const size_t m = c & 1 ? d->w_mr : 2;
                const size_t n = (size_t[]){ W + 1, 2 * W + 5, ldb }[c / 2];
                run_case(SK_NOTRANS, SK_NOTRANS, m, n, 1 + ck_rand_u32(2 * d->kc),
                         g_alpha[ck_rand_u32(3)], g_beta[ck_rand_u32(3)], rand_pad(), ldb - n,
                         rand_pad());
            }
    }
    const size_t MR = d->mr, NR = d->nr;
    const size_t ms[] = { MR - 1, MR, MR + 1, 2 * MR - 1, 2 * MR, 2 * MR + 1, 3 * MR - 1, 3 * MR };
    const size_t ns[] = { NR - 1, NR, NR + 1, 2 * NR - 1, 2 * NR, 2 * NR + 1 };
    for (size_t im = 0; im < sizeof ms / sizeof *ms; im++)
        for (size_t in = 0; in < sizeof ns / sizeof *ns; in++)
            for (int t = 0; t < 4; t++) {
                if (ms[im] == 0 || (ck_quick() && (im + in + (size_t)t) % 3)) continue;
                run_case((sk_trans)(t >> 1), (sk_trans)(t & 1), ms[im], ns[in],
                         1 + ck_rand_u32(40), g_alpha[ck_rand_u32(3)], g_beta[ck_rand_u32(3)],
                         rand_pad(), rand_pad(), rand_pad());
            }
}

/* Around every threshold of the planner, read from the table under test: the path choice (m == 1,
   dot_rows, ukr_t_m, ukr_t_min), the transposed tile's rows of B (ukr_t_n, or set_rows at
   set_stride multiples) and its near-equal last tiles, A in place or packed (set_stride, set_rows,
   one MC block or direct_a_strips NR strips), B in place or packed (b_alias, b_span_min,
   b_rows_min), the copy of an in-place B panel (cp_blocks and cp_blocks_set row blocks, k x n
   around cp_min, ldb at cp_stride multiples), with B strides that are multiples of 4 KiB; every
   transpose. */
static void planner_edge_tests(void)
{
    const sk_gemm_dsp *d = &sk_dsp_for(ck_isa())->gemm;
    const size_t MR = d->mr, NR = d->nr, MC = d->mc, KC = d->kc, SS = d->set_stride;
    /* the path: m around dot_rows, ukr_t_min and ukr_t_m; n around the transposed tile's row
       counts */
    const size_t tmin = d->ukr_t_min > 2 ? d->ukr_t_min : 2;
    const size_t pm[] = { 2,        d->dot_rows, d->dot_rows + 1, tmin - 1,
                          tmin,     d->ukr_t_m,  d->ukr_t_m + 1 };
    const size_t tr[2] = { d->ukr_t_n, d->ukr_t_n > d->set_rows ? d->set_rows : d->ukr_t_n };
    for (size_t im = 0; im < sizeof pm / sizeof *pm; im++)
        for (int s = 0; s < 2; s++) {
            const size_t r = tr[s] ? tr[s] : NR;
            const size_t pn[] = { r - 1, r, r + 1, 2 * r - 1, 2 * r + 1, 3 * r + 1 };
            for (size_t in = 0; in < sizeof pn / sizeof *pn; in++)
                for (int t = 0; t < 4; t++) {
                    if (pm[im] < 1 || pn[in] < 1) continue;
                    if (ck_quick() && (im + in + (size_t)t) % 3) continue;
                    const size_t k = (size_t[]){ 1, 5, KC - 1, KC + 1 }[ck_rand_u32(4)];
                    ld_case((sk_trans)(t >> 1), (sk_trans)(t & 1), pm[im], pn[in], k,
                            ck_rand_u32(2) ? SS : 0, s ? SS : 0);
                }
        }
    /* rows_n for a few rows (plan_rows, m <= rows_few): the last two such row counts (from 3: two
       rows take any B) at a stride off set_stride, B around (m - 1) sk_gemm_rows_span_of(m) and
       rows_span_max / (m - 2) floats */
    if (d->rows_n && d->rows_few > 3) {
        const size_t ldb = SS / 2 + 40;
        for (size_t m = d->rows_few - 1; m <= d->rows_few; m++) {
            const size_t span = sk_gemm_rows_span_of(d, m);
            const size_t lo = ((m - 1) * span + ldb - 1) / ldb;
            const size_t hi = d->rows_span_max / (m - 2) / ldb;
            const size_t fk[] = { lo - 1, lo, hi, hi + 1 };
            for (size_t ik = 0; ik < sizeof fk / sizeof *fk; ik++) {
                if (ck_quick() && (m + ik) % 2) continue;
                if (fk[ik] < 1) continue;
                ld_case(SK_NOTRANS, SK_NOTRANS, m, 40 + ck_rand_u32(60), fk[ik], 0, ldb);
            }
        }
    }
    /* rows_n past rows_few rows (plan_rows): m around rows_few, rows_group, MR and rows_max, B's
       rows at a set_stride multiple (one float more in a quarter of the cases), B around
       rows_span and rows_span_max / 4 floats */
    if (d->rows_n && d->rows_max > d->rows_few) {
        const size_t rm[] = { d->rows_few, d->rows_few + 1, d->rows_group, d->rows_group + 1,
                              MR,          MR + 1,          d->rows_max,   d->rows_max + 1 };
        const size_t lo = d->rows_span / SS > 1 ? d->rows_span / SS : 2;
        const size_t hi = d->rows_span_max / 4 / SS;
        const size_t rk[] = { lo - 1, lo, hi, hi + 1 };
        for (size_t im = 0; im < sizeof rm / sizeof *rm; im++)
            for (size_t ik = 0; ik < sizeof rk / sizeof *rk; ik++) {
                if (ck_quick() && (im + ik) % 2) continue;
                if (ik >= 2 && im % 2 == 0) continue; /* the large B: a row count of each kind */
                ld_case(SK_NOTRANS, SK_NOTRANS, rm[im], 40 + ck_rand_u32(60), rk[ik], 0,
                        SS + ((im + ik) % 4 == 3));
            }
    }
    /* ... and at an odd multiple of set_stride / 2 (rows in two L1 sets): m around MR and
       rows_half_max, B around rows_half_span floats */
    if (d->rows_n && d->rows_half_max > d->rows_few) {
        const size_t ldb = 3 * (SS / 2);
        const size_t hm[] = { MR, MR + 1, d->rows_half_max, d->rows_half_max + 1 };
        const size_t lo = (d->rows_half_span + ldb - 1) / ldb;
        const size_t hk[] = { lo - 1, lo };
        for (size_t im = 0; im < sizeof hm / sizeof *hm; im++)
            for (size_t ik = 0; ik < sizeof hk / sizeof *hk; ik++) {
                if (ck_quick() && (im + ik) % 2) continue;
                if (hk[ik] < 1 || hm[im] <= d->rows_few) continue;
                ld_case(SK_NOTRANS, SK_NOTRANS, hm[im], 40 + ck_rand_u32(60), hk[ik], 0, ldb);
            }
    }
    /* the dot kernel past dot_few rows (plan_dot): m around dot_few and dot_rows, k around
       dot_k_min and dot_k_max, op(B) around dot_span floats, A's and B's rows at 4 KiB multiples
       or not; m around the transposed tiles' lane fill dot_t_fill, k around ukr_t_k_rows m */
    if (d->dot && d->dot_rows > d->dot_few) {
        const size_t dm[] = { d->dot_few, d->dot_few + 1, d->dot_rows, d->dot_rows + 1 };
        const size_t dk[] = { d->dot_k_min - 1, d->dot_k_min, d->dot_k_max, d->dot_k_max + 1 };
        for (size_t im = 0; im < sizeof dm / sizeof *dm; im++)
            for (size_t ik = 0; ik < sizeof dk / sizeof *dk; ik++) {
                if (ck_quick() && (im + ik) % 2) continue;
                if (dk[ik] < 1 || dk[ik] > 65536) continue; /* no limit there: any k */
                ld_case(SK_NOTRANS, SK_TRANS, dm[im], 5 + ck_rand_u32(40), dk[ik],
                        ck_rand_u32(2) ? SS : 0, ck_rand_u32(2) ? SS : 0);
            }
        const size_t k = d->dot_k_max < 1024 ? d->dot_k_max : 1024, n = d->dot_span / k;
        for (int s = 0; s < 2; s++)
            ld_case(SK_NOTRANS, SK_TRANS, d->dot_few + 1 + (size_t)s, n + (size_t)s, k, 0, 0);
        /* the row counts where the transposed tiles' lane fill crosses dot_t_fill sixteenths,
           and k around ukr_t_k_rows m there */
        if (d->ukr_t) {
            int below_prev = 1;
            for (size_t m = d->dot_few + 1; m <= d->dot_rows + 1; m++) {
                const int below = 16 * m < (size_t)d->dot_t_fill * t_lanes(d, m);
                if (below != below_prev)
                    for (int s = 0; s < 3; s++) {
                        const size_t kr = (size_t)d->ukr_t_k_rows * m;
                        const size_t km = kr > d->dot_k_min ? kr : d->dot_k_min;
                        ld_case(SK_NOTRANS, SK_TRANS, m - (size_t)(s & 1), 9 + ck_rand_u32(30),
                                km - 1 + (size_t)s, 0, 0);
                    }
                below_prev = below;
            }
        }
    }
    /* the transposed tiles' k block: k around kc_t, m at 2 and ukr_t_m (dot_rows + 1 when
       larger), B's rows at 4 KiB multiples or not */
    if (d->ukr_t)
        for (int s = 0; s < 6; s++) {
            if (ck_quick() && s % 2) continue;
            const size_t m = s & 1 ? d->ukr_t_m : d->dot_rows + 1, k = d->kc_t - 1 + (size_t)s / 2;
            ld_case((sk_trans)(s % 3 == 0), SK_TRANS, m, 2 * d->ukr_t_n + 1, k, 0, s & 2 ? SS : 0);
        }
    /* the transposed tiles in groups of ukr_t_m rows of op(A): m around ukr_t_lane, ukr_t_m, the
       group edges and ukr_t_max, around the last group's lane fill (ukr_t_fill quarters of its
       ukr_t_lane-rounded lanes), k around ukr_t_k_rows m (the path's edge) and past the k block
       (kc_t ukr_t_m / lanes); n around the rows of B per tile */
    if (d->ukr_t && d->ukr_t_max > d->ukr_t_lane) {
        const size_t W = d->ukr_t_m, L = d->ukr_t_lane, X = d->ukr_t_max;
        const size_t fill = (d->ukr_t_fill * L + 3) / 4; /* rows filling a last group of L lanes */
        const size_t gm[] = { L + 1, W - 1, W, W + 1, W + fill - 1, W + fill, 2 * W,
                              X - 1, X, X + 1 };
        for (size_t im = 0; im < sizeof gm / sizeof *gm; im++)
            for (int s = 0; s < 8; s++) {
                const size_t m = gm[im], kr = (size_t)d->ukr_t_k_rows * m, lanes = t_lanes(d, m);
                if (ck_quick() && (im + (size_t)s) % 3) continue;
                const size_t k = s < 2 ? kr - 1 + (size_t)s : s < 4 ? kr + 1 + ck_rand_u32(64)
                               : s < 6 ? (size_t)d->kc_t * W / lanes + 3 : 4 * kr + 5;
                const size_t n = (size_t[]){ 1, d->ukr_t_n - 1, d->ukr_t_n + 1, 2 * d->ukr_t_n + 3 }
                    [ck_rand_u32(4)];
                ld_case((sk_trans)(s & 1), SK_TRANS, m, n, k, ck_rand_u32(2) ? SS : 0,
                        s & 2 ? SS : 0);
            }
    }
    /* the transposed tile two k steps at a time: m up to ukr_t_lane, k around ukr_tp_k (odd and
       even), n around its rows of B per call; B's rows at 4 KiB multiples or not */
    if (d->ukr_tp) {
        const size_t L = d->ukr_t_lane, K = d->ukr_tp_k, R = d->ukr_tp_n;
        const size_t tm[] = { L - 1, L, L + 1, d->ukr_t_min };
        for (size_t im = 0; im < sizeof tm / sizeof *tm; im++)
            for (int s = 0; s < 12; s++) {
                if (ck_quick() && (im + (size_t)s) % 3) continue;
                const size_t k = K - 1 + (size_t)(s % 3) + (s >= 9 ? 2 * K : 0);
                const size_t n = (size_t[]){ 1, R - 1, R + 1, 2 * R + 3 }[s % 4];
                ld_case((sk_trans)(s & 1), SK_TRANS, tm[im], n, k, ck_rand_u32(2) ? SS : 0,
                        s & 2 ? SS : 0);
            }
    }
    /* fewer rows than ukr_t_min on ukr_tp: m around ukr_tp_min, k around ukr_tp_min_k, n around
       the span rule's threshold */
    if (d->ukr_tp && d->ukr_tp_min < d->ukr_t_min)
        for (size_t m = d->ukr_tp_min - 1; m < d->ukr_t_min; m++)
            for (int s = 0; s < 6; s++) {
                if (ck_quick() && (m + (size_t)s) % 2) continue;
                const size_t k = d->ukr_tp_min_k - 1 + (size_t)(s % 3);
                const size_t span = m + 2 < d->ukr_t_lane
                                        ? (d->ukr_t_lane - m - 2) * (size_t)d->ukr_t_span : 0;
                const size_t n = s < 3 ? (span + k - 1) / k + 1 : (span + k - 1) / k - 1;
                ld_case((sk_trans)(s & 1), SK_TRANS, m, n ? n : 1, k, 0, s & 2 ? SS : 0);
            }
    /* with lanes of the transposed tile left empty: op(B)'s span n k around the table's
       threshold, (empty lanes - 2) ukr_t_span floats */
    if (d->ukr_t && d->ukr_t_span)
        for (size_t m = d->ukr_t_min; m + 2 < d->ukr_t_lane; m++) {
            const size_t span = (d->ukr_t_lane - m - 2) * (size_t)d->ukr_t_span;
            for (int s = 0; s < 6; s++) {
                if (ck_quick() && (m + (size_t)s) % 3) continue;
                const size_t k = s < 3 ? 64 : 100, n = (span + k - 1) / k - 1 + (size_t)(s % 3);
                ld_case((sk_trans)(s & 1), SK_TRANS, m, n, k, 0, 0);
            }
        }
    /* 14-16 rows (two lanes or fewer empty) with a small op(B) on the blocked path's direct case
       (B transposed beside the first row block's FMAs), past ukr_t_direct 4^(empty lanes)
       floats on the transposed tiles: n k at, just under or just past the threshold, n whole
       NR strips, op(A) = A or A^T */
    if (d->ukr_t && d->ukr_t_direct && d->ukr_tcp)
        for (size_t m = d->ukr_t_lane - 2; m <= d->ukr_t_lane; m++)
            for (int s = 0; s < 6; s++) {
                if (ck_quick() && (m + (size_t)s) % 2) continue;
                const size_t k = (size_t[]){ 32, 64, 96 }[s % 3];
                const size_t span = (size_t)d->ukr_t_direct << 2 * (d->ukr_t_lane - m);
                const size_t n = span / k / NR * NR + (s < 3 ? 0 : NR);
                ld_case((sk_trans)(s == 5), SK_TRANS, m, n ? n : NR, k, 0, s & 1 ? SS : 0);
            }
    /* A in place or packed: one MC block or several, n at direct_a_strips NR strips, A's rows at
       set_stride multiples or not */
    const size_t am[] = { MR + 1, MC + MR + 1 };
    const size_t an[] = { d->direct_a_strips * NR, d->direct_a_strips * NR + 1 };
    for (size_t im = 0; im < 2; im++)
        for (size_t in = 0; in < 2; in++)
            for (int t = 0; t < 8; t++) {
                if (ck_quick() && (im + in + (size_t)t) % 2) continue;
                ld_case((sk_trans)(t >> 2 & 1), (sk_trans)(t >> 1 & 1), am[im], an[in],
                        9 + ck_rand_u32(30), t & 1 ? SS : 0, ck_rand_u32(2) ? SS : 0);
            }
    /* B in place or packed in a pass of its own: ldb at b_alias multiples or not (NN) */
    for (int s = 0; s < 4; s++)
        ld_case(SK_NOTRANS, SK_NOTRANS, s & 1 ? MC + 3 : 2 * MR + 1, 3 * NR + 5,
                3 + ck_rand_u32(20), 0, s & 2 ? (d->b_alias ? d->b_alias : SS) : 0);
    /* one MC block (the main and the wide tile), B spanning just under and at b_span_min floats
       (read in place, or packed up front), ldb at 4 KiB multiples or not */
    if (d->b_span_min)
        for (int s = 0; s < 8; s++) {
            const size_t ldb = s & 4 ? SS : 3 * NR + 5, k0 = (d->b_span_min + ldb - 1) / ldb;
            const size_t m = s & 2 ? MR + 1 : d->w_mr ? d->w_mr : 2;
            if (ck_quick() && s % 3) continue;
            run_case(SK_NOTRANS, SK_NOTRANS, m, 3 * NR + 5, s & 1 ? k0 : k0 - 1,
                     g_alpha[ck_rand_u32(2)], g_beta[ck_rand_u32(3)], rand_pad(),
                     ldb - (3 * NR + 5), rand_pad());
        }
    /* over several MC blocks, a B block just under and at b_rows_min floats (copied by the first
       MC block's kernels, or packed up front), B's rows at 4 KiB multiples or not */
    if (d->b_rows_min)
        for (int s = 0; s < 4; s++) {
            const size_t n0 = (d->b_rows_min + KC - 1) / KC, n = s & 1 ? n0 : n0 - 1;
            if (ck_quick() && s % 3) continue;
            ld_case(SK_NOTRANS, SK_NOTRANS, MC + MR + 1, n, KC, 0, s & 2 ? SS : 0);
        }
    /* the copy of an in-place B panel: row blocks around cp_blocks and cp_blocks_set, k x n
       around cp_min, ldb at cp_stride and set_stride multiples, A's rows at set_stride multiples
       or not (packed with the copy when copy_packs_a says so) */
    const size_t cn = 2 * NR, ck0 = d->cp_min / cn;
    const size_t cm[] = { (d->cp_blocks - 1) * MR,     (d->cp_blocks - 1) * MR + 1,
                          d->cp_blocks * MR,           (d->cp_blocks_set - 1) * MR,
                          (d->cp_blocks_set - 1) * MR + 1, d->cp_blocks_set * MR };
    const size_t cks[] = { ck0 > 1 ? ck0 - 1 : 1, ck0 ? ck0 : 1, ck0 + 1 };
    for (size_t im = 0; im < 6; im++)
        for (size_t ik = 0; ik < 3; ik++)
            for (int s = 0; s < 3; s++) {
                if (cm[im] < 1 || cm[im] > MC || (ck_quick() && (im + ik + (size_t)s) % 2))
                    continue;
                const size_t mult = s == 0 ? 0 : s == 1 ? d->cp_stride : SS;
                ld_case(SK_NOTRANS, SK_NOTRANS, cm[im], cn + (size_t)s, cks[ik], ik & 1 ? SS : 0,
                        mult);
            }
    /* B's row stride just under and at cp_ldb_min (read in place by every row block, then
       copied by the first one), with enough row blocks and k x n past cp_min */
    for (size_t ldb = d->cp_ldb_min - 1; d->cp_ldb_min && ldb <= d->cp_ldb_min; ldb++)
        for (int c = 0; c < 4; c++) {
            const size_t m = d->cp_blocks * MR + (c & 1 ? MR - 1 : 0);
            const size_t n = c & 2 ? ldb : ldb - NR + 1, k = d->cp_min / n + 1 + ck_rand_u32(KC);
            if (m > MC) continue;
            run_case(SK_NOTRANS, SK_NOTRANS, m, n, k, g_alpha[ck_rand_u32(3)],
                     g_beta[ck_rand_u32(3)], rand_pad(), ldb - n, rand_pad());
        }
}

void ck_test_gemm(void)
{
    hand_2x2();
    bad_args();
    slot_tests();
    tile_edge_tests();
    block_edge_tests();
    planner_edge_tests();
    realign_cases();

    /* Every transpose and alpha/beta on a few shapes, with and without padding. */
    static const size_t full[][3] = { { 1, 1, 1 }, { 7, 13, 5 }, { 17, 33, 31 }, { 1, 70, 9 } };
    for (size_t s = 0; s < sizeof full / sizeof full[0]; s++)
        for (int t = 0; t < 4; t++)
            for (int ai = 0; ai < 3; ai++)
                for (int bi = 0; bi < 3; bi++)
                    run_case((sk_trans)(t >> 1), (sk_trans)(t & 1), full[s][0], full[s][1],
                             full[s][2], g_alpha[ai], g_beta[bi], rand_pad(), rand_pad(),
                             rand_pad());

    /* Register-tile edges: m around MR (6, 8, 14) and its multiples, n around NR (12, 16, 32)
       and the vector widths (4, 8, 16), k around unroll steps; every transpose. */
    static const size_t ms_full[] = { 1,  2,  3,  4,  5,  6,  7,  8,  9,  11, 12, 13,
                                      14, 15, 16, 17, 23, 24, 25, 28, 29, 42, 43 };
    static const size_t ns_full[] = { 1,  2,  3,  4,  5,  7,  8,  9,  11, 12, 13, 15, 16, 17, 23,
                                      24, 25, 31, 32, 33, 36, 47, 48, 49, 63, 64, 65, 97, 129 };
    static const size_t ms_q[] = { 1, 2, 5, 6, 7, 8, 9, 13, 14, 15, 16, 17, 29 };
    static const size_t ns_q[] = { 1, 3, 4, 8, 11, 12, 13, 16, 17, 31, 32, 33, 65 };
    static const size_t ks[] = { 1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 31, 32, 33, 64, 65 };
    const size_t *ms = ck_quick() ? ms_q : ms_full, *ns = ck_quick() ? ns_q : ns_full;
    size_t nm = ck_quick() ? sizeof ms_q / sizeof *ms_q : sizeof ms_full / sizeof *ms_full;
    size_t nn = ck_quick() ? sizeof ns_q / sizeof *ns_q : sizeof ns_full / sizeof *ns_full;
    for (size_t im = 0; im < nm; im++)
        for (size_t in = 0; in < nn; in++)
            for (int t = 0; t < 4; t++) {
                size_t k = ks[ck_rand_u32(sizeof ks / sizeof *ks)];
                float alpha = ck_rand_u32(4) ? g_alpha[ck_rand_u32(2)] : 0.f;
                run_case((sk_trans)(t >> 1), (sk_trans)(t & 1), ms[im], ns[in], k, alpha,
                         g_beta[ck_rand_u32(3)], rand_pad(), rand_pad(), rand_pad());
                if (ck_failures() > 50) return;
            }

    /* m = 1 (matrix-vector kernels): n and k over vector and unroll widths. */
    static const size_t vn[] = { 1, 5, 8, 16, 31, 32, 33, 64, 127, 128, 129, 200, 513 };
    static const size_t vk[] = { 1, 3, 4, 15, 16, 17, 63, 64, 65, 255, 256, 257 };
    for (size_t in = 0; in < sizeof vn / sizeof *vn; in++)
        for (size_t ik = 0; ik < sizeof vk / sizeof *vk; ik += ck_quick() ? 3 : 1)
            for (int t = 0; t < 4; t++)
                run_case((sk_trans)(t >> 1), (sk_trans)(t & 1), 1, vn[in], vk[ik],
                         g_alpha[ck_rand_u32(2)], g_beta[ck_rand_u32(3)], rand_pad(), rand_pad(),
                         rand_pad());

    /* Cache-block edges of past x86 tables (KC 256, MC 168, NC 4080; block_edge_tests follows
       the table under test); a few big cases only. */
    static const size_t big[][3] = { { 20, 40, 255 }, { 20, 40, 256 }, { 21, 41, 257 },
                                     { 9, 19, 513 }, { 167, 33, 40 }, { 168, 35, 20 },
                                     { 169, 17, 30 }, { 337, 9, 9 }, { 145, 50, 260 },
                                     { 5, 4081, 7 }, { 19, 4097, 3 }, { 64, 64, 64 },
                                     { 96, 100, 300 }, { 128, 128, 64 },
                                     /* several MC blocks with full B panels of every NR: B packed
                                        by the first block's kernels, then read by the others */
                                     { 200, 70, 40 }, { 337, 100, 300 },
                                     /* ... and n over 4 NR: A packed too, on every ISA */
                                     { 200, 140, 70 } };
    size_t nbig = sizeof big / sizeof big[0];
    for (size_t s = 0; s < nbig; s++)
        for (int t = 0; t < 4; t++) {
            if (ck_quick() && (s + t) % 4) continue;
            run_case((sk_trans)(t >> 1), (sk_trans)(t & 1), big[s][0], big[s][1], big[s][2],
                     g_alpha[ck_rand_u32(2)], g_beta[ck_rand_u32(3)], rand_pad(), rand_pad(),
                     rand_pad());
        }

    /* Row strides that are multiples of 4 KiB (A and B then go through the packed paths). */
    for (int t = 0; t < 4; t++) {
        const size_t m = 29, n = 37, k = 50;
        run_case((sk_trans)(t >> 1), (sk_trans)(t & 1), m, n, k, 1.f, g_beta[t % 3],
                 1024 - (t >> 1 ? m : k), 1024 - (t & 1 ? k : n), 0);
        run_case((sk_trans)(t >> 1), (sk_trans)(t & 1), 7, n, k, -0.5f, g_beta[(t + 1) % 3],
                 1024 - (t >> 1 ? 7 : k), 1024 - (t & 1 ? k : n), 0);
        run_case((sk_trans)(t >> 1), (sk_trans)(t & 1), 200, 20, 40, 1.f, g_beta[(t + 2) % 3],
                 1024 - (t >> 1 ? 200 : 40), 1024 - (t & 1 ? 40 : 20), 0);
        run_case((sk_trans)(t >> 1), (sk_trans)(t & 1), 1, 1000, 7, 1.f, g_beta[t % 3],
                 1024 - (t >> 1 ? 1 : 7), 1024 - (t & 1 ? 7 : 1000), 0);
        run_case((sk_trans)(t >> 1), (sk_trans)(t & 1), 1, 1100, 5, -0.5f, g_beta[(t + 1) % 3],
                 2048 - (t >> 1 ? 1 : 5), 2048 - (t & 1 ? 5 : 1100), 0);
    }

    /* NT with a few rows of A (the dot kernels) and one more, every alpha / beta kind. */
    for (size_t m = 2; m <= 5; m++)
        for (int t = 0; t < 2; t++)
            run_case((sk_trans)t, SK_TRANS, m, 37 + 64 * (m % 2), 20 + 300 * t, g_alpha[m % 2],
                     g_beta[(m + t) % 3], rand_pad(), t ? 1024 - 320 : rand_pad(), rand_pad());

    /* Projections x @ W with few rows and W's row stride a multiple of 4 KiB: B read in place by
       the kernels (prefetched ahead, copied for the later row blocks) over one and two k blocks,
       row counts of one, two and three row blocks of every table, panels past the last full one. */
    static const size_t proj_m[] = { 2, 4, 9, 16, 17, 24, 25 };
    for (size_t i = 0; i < sizeof proj_m / sizeof *proj_m; i++) {
        if (ck_quick() && i % 2) continue;
        const size_t n = 100 + 13 * i, k = i % 2 ? 300 : 64;
        const size_t m = proj_m[i];
        run_case(SK_NOTRANS, SK_NOTRANS, m, n, k, 1.f, g_beta[i % 3], rand_pad(), 1024 - n, 0);
        run_case(SK_NOTRANS, SK_NOTRANS, m, 1024, k, -0.5f, g_beta[(i + 1) % 3], 0, 1024, 0);
    }

    /* k = 1, 2, 3 with alpha and beta outside {0, 1}: the roundings of the epilogue count as much
       as the sum's (the bound's + 4); m = 43, n = 1, k = 1, ta = T was over 2 k 2^-24. */
    for (size_t k = 1; k <= 3; k++)
        for (int t = 0; t < 4; t++) {
            const float al = 1.7f + 0.01f * (float)ck_rand_u32(20),
                        be = ck_rand_u32(2) ? -1.f : -0.3f;
            run_case((sk_trans)(t >> 1), (sk_trans)(t & 1), 43, 1, k, al, be, rand_pad(), 0, 0);
            run_case((sk_trans)(t >> 1), (sk_trans)(t & 1), 1 + ck_rand_u32(20),
                     1 + ck_rand_u32(40), k, -al, 0.75f, rand_pad(), rand_pad(), rand_pad());
        }

    /* One-row operands with a row stride near SIZE_MAX (never needed: must not be stepped over). */
    {
        ck_func("one-row operands, ld near SIZE_MAX");
        float a1[8], b1[8 * 5], c1[5], cr[5];
        for (int i = 0; i < 8; i++) a1[i] = ck_randn();
        for (int i = 0; i < 40; i++) b1[i] = ck_randn();
        const size_t huge = SIZE_MAX - 7;
        for (int t = 0; t < 2; t++) { /* C (1 x 5) = a (1 x 8) op(B); B: 8 x 5 or (B^T) 5 x 8 */
            const sk_trans tb = (sk_trans)t;
            for (int j = 0; j < 5; j++) {
                double sum = 0;
                for (int p = 0; p < 8; p++) sum += (double)a1[p] * b1[tb ? j * 8 + p : p * 5 + j];
                cr[j] = (float)sum;
            }
            if (sk_sgemm(SK_NOTRANS, tb, 1, 5, 8, 1.f, a1, huge, b1, tb ? 8 : 5, 0.f, c1, huge))
                ck_fail("status");
            for (int j = 0; j < 5; j++)
                if (fabsf(c1[j] - cr[j]) > 1e-5f * (1.f + fabsf(cr[j])))
                    ck_fail("c[%d] = %g", j, c1[j]);
        }
        /* k = 1: B is one row (NN), A^T one row (TN) */
        if (sk_sgemm(SK_TRANS, SK_NOTRANS, 5, 5, 1, 1.f, a1, huge, b1, huge, 0.f, b1 + 10, 5))
            ck_fail("status k = 1");
        for (int i = 0; i < 5; i++)
            for (int j = 0; j < 5; j++)
                if (b1[10 + i * 5 + j] != a1[i] * b1[j]) ck_fail("k = 1: c[%d,%d]", i, j);
    }

    /* Operands ending at an unmapped page, around the tiles: A rows / A^T in place (m < MR, odd
       k), NT with few rows (B's rows in place), whole-vector C stores. */
    static const size_t pm[] = { 1, 2, 3, 4, 5, 6, 7, 9, 11, 13, 16, 17 };
    static const size_t pn[] = { 1, 3, 5, 7, 12, 13, 16, 17 };
    static const size_t pk[] = { 1, 2, 3, 5, 6, 7, 9 };
    for (size_t im = 0; im < sizeof pm / sizeof *pm; im++)
        for (size_t in = 0; in < sizeof pn / sizeof *pn; in++)
            for (int t = 0; t < 4; t++)
                page_end_case((sk_trans)(t >> 1), (sk_trans)(t & 1), pm[im], pn[in],
                              pk[ck_rand_u32(sizeof pk / sizeof *pk)],
                              ck_rand_u32(2) ? 0.f : 0.25f);

    bias_cases();
    threads();
    ck_test_gemm_packed();
    ck_test_gemm_plan();
}
