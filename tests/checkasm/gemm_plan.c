/* checkasm: GEMM planned once (sk_sgemm_plan_init, sk_sgemm_plan_run) on the ISA under test.
 * A run gives sk_sgemm's result bit for bit (the same kernels on the same blocks) and stays
 * within sk_sgemm's bound of a double-precision reference
 *   |C - exact| <= (2 k + 4) 2^-24 (|alpha| |op(A)| |op(B)| + |beta| |C0|)   (elementwise),
 * over sizes around the table's tiles (MR x NR, the wide tile), its MC and KC blocks, m = 1, the
 * transposed-tile and dot paths' row counts, all four transposes, padded and 4 KiB-multiple
 * strides, alpha in {1, -0.5, 0}, beta in {0, 1, 0.25} (beta == 0 with C full of NaN), guard
 * bands; a plan run again on other operands, copied to another address and run after the scalar
 * path is selected (it keeps its path); bad arguments: SK_EINVAL with nothing written. Also
 * sk_sgemm's kept plan: calls of one shape in a row that differ in a transpose, a stride or the
 * path each give the result of their own plan. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "checkasm.h"
#include "gemm_mat.h"
#include "dsp.h" /* internal: the table under test (tile and block sizes) */

/* One case, ld = row length + pad; both operand sets are run through the same plan. */
static int plan_case(sk_trans ta, sk_trans tb, size_t m, size_t n, size_t k, float alpha,
                     float beta, size_t pa, size_t pb, size_t pc)
{
    ck_func("sgemm_plan %c%c m=%zu n=%zu k=%zu alpha=%g beta=%g lda+%zu ldb+%zu ldc+%zu",
            ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, alpha, beta, pa, pb, pc);
    ck_new();
    mat A = mat_new(ta ? k : m, ta ? m : k, pa), A2 = mat_new(ta ? k : m, ta ? m : k, pa);
    mat B = mat_new(tb ? n : k, tb ? k : n, pb), B2 = mat_new(tb ? n : k, tb ? k : n, pb);
    mat C0 = mat_new(m, n, pc), C = mat_new(m, n, pc), Cs = mat_new(m, n, pc);
    mat C2 = mat_new(m, n, pc), C2s = mat_new(m, n, pc), C3 = mat_new(m, n, pc);
    if (beta == 0.f) /* C must not be read: NaN must not propagate */
        for (size_t i = 0; i < m; i++)
            for (size_t j = 0; j < n; j++) C0.p[i * C0.ld + j] = NAN;
    const size_t cb = m * C0.ld * sizeof(float);
    memcpy(C.p, C0.p, cb), memcpy(Cs.p, C0.p, cb), memcpy(C2.p, C0.p, cb);
    memcpy(C2s.p, C0.p, cb), memcpy(C3.p, C0.p, cb);

    sk_sgemm_plan *plan = malloc(sizeof *plan), *moved = malloc(sizeof *moved);
    int ok = ck_check(plan && moved, "malloc");
    ok = ok && ck_check(sk_sgemm_plan_init(plan, ta, tb, m, n, k, alpha, A.ld, B.ld, beta, C.ld) ==
                            SK_OK, "init status");
    if (ok) {
        ok &= ck_check(sk_sgemm_plan_run(plan, A.p, B.p, C.p) == SK_OK, "run status");
        ok &= ck_check(sk_sgemm(ta, tb, m, n, k, alpha, A.p, A.ld, B.p, B.ld, beta, Cs.p, Cs.ld) ==
                           SK_OK, "sk_sgemm status");
        /* the same plan on other operands */
        ok &= ck_check(sk_sgemm_plan_run(plan, A2.p, B2.p, C2.p) == SK_OK, "second run status");
        sk_sgemm(ta, tb, m, n, k, alpha, A2.p, A2.ld, B2.p, B2.ld, beta, C2s.p, C2s.ld);
        /* a copy, run with the scalar path selected: still the ISA under test's result */
        memcpy(moved, plan, sizeof *plan);
        memset(plan, 0x5a, sizeof *plan);
        ck_ref();
        ok &= ck_check(sk_sgemm_plan_run(moved, A.p, B.p, C3.p) == SK_OK, "moved run status");
        ck_new();
    }
    ok &= mat_intact(&A, "A") && mat_intact(&B, "B") && mat_intact(&A2, "A2") &&
          mat_intact(&B2, "B2") && mat_intact(&C, "C") && mat_intact(&C2, "C2") &&
          mat_intact(&C3, "C (moved plan)");
    ok &= ck_check(memcmp(C.p, Cs.p, cb) == 0, "not sk_sgemm's result bit for bit");
    ok &= ck_check(memcmp(C2.p, C2s.p, cb) == 0, "second run: not sk_sgemm's result");
    ok &= ck_check(memcmp(C3.p, Cs.p, cb) == 0, "moved plan on the scalar path: other result");
    ok = ok && mat_within_bound(&A, &B, &C0, &C, ta, tb, k, alpha, beta);
    free(plan);
    free(moved);
    ck_buf_free(A.p); ck_buf_free(A2.p); ck_buf_free(B.p); ck_buf_free(B2.p); ck_buf_free(C0.p);
    ck_buf_free(C.p); ck_buf_free(Cs.p); ck_buf_free(C2.p); ck_buf_free(C2s.p); ck_buf_free(C3.p);
    return ok;
}

/* One sk_sgemm call on the path selected now (ref: the scalar one), against a plan made for this
   call alone: the same bits, within the bound. lda, ldb: A's and B's row strides. */
static int memo_call(int ref, sk_trans ta, sk_trans tb, size_t m, size_t n, size_t k, size_t lda,
                     size_t ldb)
{
    ck_func("sgemm plan memo %s %c%c m=%zu n=%zu k=%zu lda=%zu ldb=%zu", ref ? "scalar" : "isa",
            ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, lda, ldb);
    if (ref) ck_ref();
    else ck_new();
    const size_t ac = ta ? m : k, bc = tb ? k : n;
    mat A = mat_new(ta ? k : m, ac, lda - ac), B = mat_new(tb ? n : k, bc, ldb - bc);
    mat C0 = mat_new(m, n, 0), C = mat_new(m, n, 0), Cp = mat_new(m, n, 0);
    const size_t cb = m * n * sizeof(float);
    memcpy(C.p, C0.p, cb), memcpy(Cp.p, C0.p, cb);
    sk_sgemm_plan *plan = malloc(sizeof *plan);
    int ok = ck_check(plan && sk_sgemm_plan_init(plan, ta, tb, m, n, k, 1.f, lda, ldb, 0.5f, n) ==
                                  SK_OK, "plan init");
    ok = ok && ck_check(sk_sgemm_plan_run(plan, A.p, B.p, Cp.p) == SK_OK, "plan run status");
    ok = ok && ck_check(sk_sgemm(ta, tb, m, n, k, 1.f, A.p, lda, B.p, ldb, 0.5f, C.p, n) == SK_OK,
                        "sk_sgemm status");
    ok = ok && mat_intact(&A, "A") && mat_intact(&B, "B") && mat_intact(&C, "C");
    ok = ok && ck_check(memcmp(C.p, Cp.p, cb) == 0, "not the result of the call's own plan");
    ok = ok && mat_within_bound(&A, &B, &C0, &C, ta, tb, k, 1.f, 0.5f);
    free(plan);
    ck_buf_free(A.p); ck_buf_free(B.p); ck_buf_free(C0.p); ck_buf_free(C.p); ck_buf_free(Cp.p);
    ck_new();
    return ok;
}

/* sk_sgemm keeps the plan of its thread's last product for the next call of the same shape:
   calls in a row that differ in one thing only (a transpose, A's or B's row stride, 4 KiB
   multiples among them, or the path) must each run their own plan; the same call twice, the
   kept one. Strides of 1024 and more hold every operand of these shapes either way round. */
static void plan_memo_cases(size_t MR, size_t NR)
{
    const size_t shapes[][3] = { { MR + 1, 2 * NR + 3, 33 }, { 1, 300, 40 }, { 2 * MR, NR, 64 },
                                 { 3, 4 * NR, 24 }, { MR + 2, NR + 1, 100 } };
    static const struct {
        int ref;
        sk_trans ta, tb;
        size_t lda, ldb;
    } seq[] = {
        { 0, SK_NOTRANS, SK_NOTRANS, 1030, 1030 }, { 0, SK_NOTRANS, SK_NOTRANS, 1030, 1030 },
        { 0, SK_NOTRANS, SK_NOTRANS, 1024, 1030 }, { 0, SK_NOTRANS, SK_NOTRANS, 1024, 1024 },
        { 0, SK_NOTRANS, SK_TRANS, 1024, 1024 },   { 0, SK_TRANS, SK_TRANS, 1024, 1024 },
        { 0, SK_TRANS, SK_NOTRANS, 1024, 1024 },   { 0, SK_TRANS, SK_NOTRANS, 1031, 1024 },
        { 1, SK_TRANS, SK_NOTRANS, 1031, 1024 },   { 0, SK_TRANS, SK_NOTRANS, 1031, 1024 },
        { 0, SK_NOTRANS, SK_NOTRANS, 1031, 1024 }, { 0, SK_NOTRANS, SK_NOTRANS, 1031, 2048 },
        { 1, SK_NOTRANS, SK_NOTRANS, 1031, 2048 }, { 1, SK_NOTRANS, SK_TRANS, 1031, 2048 },
        { 0, SK_NOTRANS, SK_TRANS, 1031, 2048 },
    };
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
        for (size_t q = 0; q < sizeof seq / sizeof *seq; q++)
            memo_call(seq[q].ref, seq[q].ta, seq[q].tb, shapes[s][0], shapes[s][1], shapes[s][2],
                      seq[q].lda, seq[q].ldb);
}

/* Bad arguments: SK_EINVAL, the plan (init) or C (run) untouched. */
static void plan_bad_args(void)
{
    ck_func("sgemm_plan bad arguments");
    ck_new();
    enum { M = 3, N = 5, K = 4 };
    float a[M * K], b[K * N], c[M * N], keep[M * N];
    ck_fill(a, M * K, -1.f, 1.f);
    ck_fill(b, K * N, -1.f, 1.f);
    ck_fill(c, M * N, -1.f, 1.f);
    memcpy(keep, c, sizeof c);
    static sk_sgemm_plan plan, pat, zero;
    memset(&pat, 0xa5, sizeof pat);
#define BAD_INIT(what, ...)                                                                        \
    do {                                                                                           \
        plan = pat;                                                                                \
        ck_check(sk_sgemm_plan_init(&plan, __VA_ARGS__) == SK_EINVAL, "init %s: status", what);    \
        ck_check(memcmp(&plan, &pat, sizeof plan) == 0, "init %s: plan written", what);            \
    } while (0)
    ck_check(sk_sgemm_plan_init(NULL, SK_NOTRANS, SK_NOTRANS, M, N, K, 1.f, K, N, 0.f, N) ==
                 SK_EINVAL, "init: NULL plan");
    BAD_INIT("bad ta", (sk_trans)2, SK_NOTRANS, M, N, K, 1.f, K, N, 0.f, N);
    BAD_INIT("bad tb", SK_NOTRANS, (sk_trans)2, M, N, K, 1.f, K, N, 0.f, N);
    BAD_INIT("lda < k", SK_NOTRANS, SK_NOTRANS, M, N, K, 1.f, K - 1, N, 0.f, N);
    BAD_INIT("lda < m (T)", SK_TRANS, SK_NOTRANS, M, N, K, 1.f, M - 1, N, 0.f, N);
    BAD_INIT("ldb < n", SK_NOTRANS, SK_NOTRANS, M, N, K, 1.f, K, N - 1, 0.f, N);
    BAD_INIT("ldb < k (T)", SK_NOTRANS, SK_TRANS, M, N, K, 1.f, K, K - 1, 0.f, N);
    BAD_INIT("ldc < n", SK_NOTRANS, SK_NOTRANS, M, N, K, 1.f, K, N, 0.f, N - 1);
    BAD_INIT("extent overflows", SK_NOTRANS, SK_NOTRANS, SIZE_MAX / 2, N, K, 1.f, K, N, 0.f, N);
    BAD_INIT("extent past PTRDIFF_MAX / 4", SK_NOTRANS, SK_NOTRANS, 2, N, K, 1.f, K,
             (size_t)PTRDIFF_MAX / 4, 0.f, N);
#undef BAD_INIT
    ck_check(sk_sgemm_plan_init(&plan, SK_NOTRANS, SK_NOTRANS, M, N, K, 1.f, K, N, 0.f, N) == SK_OK,
             "init");
#define BAD_RUN(what, p, ...)                                                                      \
    do {                                                                                           \
        ck_check(sk_sgemm_plan_run(p, __VA_ARGS__) == SK_EINVAL, "run %s: status", what);          \
        ck_check(memcmp(c, keep, sizeof c) == 0, "run %s: C written", what);                       \
    } while (0)
    BAD_RUN("NULL plan", NULL, a, b, c);
    BAD_RUN("zeroed plan", &zero, a, b, c);
    BAD_RUN("not a plan", &pat, a, b, c);
    BAD_RUN("NULL a", &plan, NULL, b, c);
    BAD_RUN("NULL b", &plan, a, NULL, c);
    BAD_RUN("NULL c", &plan, a, b, NULL);
#undef BAD_RUN
    sk_threadpool bad_pool = { 0 };
    ck_check(sk_sgemm_plan_run_tp(&bad_pool, &plan, a, b, c) == SK_EINVAL &&
                 memcmp(c, keep, sizeof c) == 0, "run_tp: a pool without threads accepted");

    /* empty operands may be NULL; k == 0 or alpha == 0: C = beta C, A and B not read */
    ck_check(sk_sgemm_plan_init(&plan, SK_NOTRANS, SK_NOTRANS, 0, N, K, 1.f, K, N, 0.f, N) ==
                     SK_OK &&
                 sk_sgemm_plan_run(&plan, NULL, b, NULL) == SK_OK,
             "m == 0 with NULL a and c");
    ck_check(sk_sgemm_plan_init(&plan, SK_NOTRANS, SK_NOTRANS, M, 0, K, 1.f, K, 0, 0.f, 0) ==
                     SK_OK &&
                 sk_sgemm_plan_run(&plan, a, NULL, NULL) == SK_OK,
             "n == 0 with NULL b and c");
    ck_check(memcmp(c, keep, sizeof c) == 0, "C written by an empty product");
    float cz[M * N];
    for (int i = 0; i < M * N; i++) cz[i] = 2.f;
    ck_check(sk_sgemm_plan_init(&plan, SK_NOTRANS, SK_NOTRANS, M, N, 0, 1.f, 0, N, 0.5f, N) ==
                     SK_OK &&
                 sk_sgemm_plan_run(&plan, NULL, NULL, cz) == SK_OK,
             "k == 0 with NULL a and b");
    for (int i = 0; i < M * N; i++)
        ck_check(cz[i] == 1.f, "k == 0: C[%d] = %g, want beta C", i, cz[i]);
    ck_check(sk_sgemm_plan_init(&plan, SK_NOTRANS, SK_NOTRANS, M, N, K, 0.f, K, N, 0.f, N) ==
                     SK_OK &&
                 sk_sgemm_plan_run(&plan, a, b, cz) == SK_OK,
             "alpha == 0");
    for (int i = 0; i < M * N; i++)
        ck_check(cz[i] == 0.f, "alpha == 0, beta == 0: C[%d] = %g, want 0", i, cz[i]);
}

/* NN with B `off` floats past a cache line at a row stride of whole lines (ldb a multiple of 16):
   sk_sgemm runs the columns before B's first line boundary as a call of their own (the table's
   realign rule, read from the operands), and a plan's run does the same: the same bits. alpha and
   beta not powers of 2, so that a column run on another tile's store would round otherwise. */
static int plan_realign_case(size_t m, size_t n, size_t k, size_t ldb, size_t off)
{
    ck_func("sgemm_plan NN m=%zu n=%zu k=%zu ldb=%zu, B %zu floats off a line", m, n, k, ldb, off);
    const float alpha = -0.7f, beta = 0.3f;
    mat A = mat_new(m, k, 0), C0 = mat_new(m, n, 0), C = mat_new(m, n, 0), Cs = mat_new(m, n, 0);
    float *bb = ck_buf_alloc(k * ldb + 16);
    ck_fill(bb, k * ldb + 16, -1.f, 1.f);
    const mat B = { ck_past_line(bb, off), k, n, ldb };
    const size_t cb = m * C0.ld * sizeof(float);
    memcpy(C.p, C0.p, cb), memcpy(Cs.p, C0.p, cb);
    sk_sgemm_plan plan;
    int ok = ck_check(sk_sgemm_plan_init(&plan, SK_NOTRANS, SK_NOTRANS, m, n, k, alpha, A.ld, ldb,
                                         beta, C.ld) == SK_OK, "init status");
    ok = ok && ck_check(sk_sgemm_plan_run(&plan, A.p, B.p, C.p) == SK_OK, "run status");
    ok = ok && ck_check(sk_sgemm(SK_NOTRANS, SK_NOTRANS, m, n, k, alpha, A.p, A.ld, B.p, ldb, beta,
                                 Cs.p, Cs.ld) == SK_OK, "sk_sgemm status");
    ok = ok && mat_intact(&C, "C") && ck_buf_check(bb, "B");
    ok = ok && ck_check(memcmp(C.p, Cs.p, cb) == 0, "not sk_sgemm's result bit for bit");
    ok = ok && mat_within_bound(&A, &B, &C0, &C, SK_NOTRANS, SK_NOTRANS, k, alpha, beta);
    ck_buf_free(A.p); ck_buf_free(bb); ck_buf_free(C0.p); ck_buf_free(C.p); ck_buf_free(Cs.p);
    return ok;
}

/* plan_realign_case past each of the table's realign thresholds (rows_n and blocked paths) */
static void plan_realign_cases(const sk_gemm_dsp *d)
{
    static const size_t offs[] = { 3, 8, 13 };
    for (size_t o = 0; o < sizeof offs / sizeof *offs; o++) {
        const size_t h = 16 - offs[o];
        const size_t need[2] = { d->realign_rows_n, d->realign_n }, rows[2] = { 2, d->mr + 1 };
        for (int w = 0; w < 2; w++) {
            const size_t n = h + (need[w] ? need[w] : 256) + 3, ldb = (n + 15) / 16 * 16;
            const size_t k = (d->realign_span + ldb - 1) / ldb + 1;
            plan_realign_case(rows[w], n, k, ldb, offs[o]);
        }
    }
}

void ck_test_gemm_plan(void)
{
    static const float al[3] = { 1.f, -0.5f, 0.f }, be[3] = { 0.f, 1.f, 0.25f };
    const sk_dsp *t = sk_dsp_for(ck_isa());
    if (!ck_check(t != NULL, "no table")) return;
    const sk_gemm_dsp *d = &t->gemm;
    const size_t MR = d->mr, NR = d->nr, MC = d->mc, KC = d->kc;
    const size_t WM = d->w_mr ? d->w_mr : MR, WN = d->w_nr ? d->w_nr : NR;
    const size_t TM = d->ukr_t_max ? d->ukr_t_max : MR;
    plan_bad_args();
    plan_memo_cases(MR, NR);
    plan_realign_cases(d);

    /* every transpose and alpha / beta on small shapes */
    for (int tt = 0; tt < 4; tt++)
        for (int ai = 0; ai < 3; ai++)
            for (int bi = 0; bi < 3; bi++)
                plan_case((sk_trans)(tt >> 1), (sk_trans)(tt & 1), 1 + ck_rand_u32(2 * MR),
                          1 + ck_rand_u32(2 * NR), 1 + ck_rand_u32(20), al[ai], be[bi],
                          rand_pad(), rand_pad(), rand_pad());

    /* tile edges of every path: m = 1, the wide tile's rows, the transposed tiles' and the main
       tile's; n around NR and the wide tile's width */
    const size_t ms[] = { 1, 2, WM, WM + 1, MR - 1, MR, MR + 1, 2 * MR + 1, TM, TM + 1 };
    const size_t ns[] = { 1, NR - 1, NR, NR + 1, 2 * NR, WN - 1, WN + 1, 2 * WN + 3 };
    static const size_t ks[] = { 1, 3, 16, 17, 33, 64 };
    for (size_t im = 0; im < sizeof ms / sizeof *ms; im++)
        for (size_t in = 0; in < sizeof ns / sizeof *ns; in += ck_quick() ? 2 : 1)
            for (int tt = 0; tt < 4; tt++) {
                if (ms[im] == 0 || ns[in] == 0) continue;
                plan_case((sk_trans)(tt >> 1), (sk_trans)(tt & 1), ms[im], ns[in],
                          ks[ck_rand_u32(sizeof ks / sizeof *ks)], al[ck_rand_u32(2)],
                          be[ck_rand_u32(3)], rand_pad(), rand_pad(), rand_pad());
                if (ck_failures() > 50) return;
            }

    /* cache blocks: m around MC, k around KC */
    const size_t bm[] = { MC - 1, MC + 1, 2 * MC + 3 };
    const size_t bk[] = { KC - 1, KC + 1, 2 * KC + 1 };
    for (size_t im = 0; im < sizeof bm / sizeof *bm; im++)
        for (size_t ik = 0; ik < sizeof bk / sizeof *bk; ik++) {
            if (ck_quick() && (im + ik) % 2) continue;
            const int tt = (int)ck_rand_u32(4);
            plan_case((sk_trans)(tt >> 1), (sk_trans)(tt & 1), bm[im], 2 * NR + 3, bk[ik],
                      al[ck_rand_u32(2)], be[ck_rand_u32(3)], rand_pad(), rand_pad(), rand_pad());
        }

    /* row strides at multiples of 4 KiB (the planner's set and alias rules) */
    for (int tt = 0; tt < 4; tt++) {
        const sk_trans ta = (sk_trans)(tt >> 1), tb = (sk_trans)(tt & 1);
        plan_case(ta, tb, MR + 1, 40, 50, 1.f, be[tt % 3], 1024 - (ta ? MR + 1 : 50),
                  1024 - (tb ? 50 : 40), 0);
        plan_case(ta, tb, 4, 1024, 64, 1.f, be[(tt + 2) % 3], 1024 - (ta ? 4 : 64), 0, 0);
    }
}
