/* The _tp entry points against the plain calls, bit for bit (memcmp of whole buffers, padding
 * included), on every ISA path of this host, over the checkasm families' size sweeps, on:
 *   reverse5   runs the tasks serially in reverse order while claiming n_threads = 5
 *   shuffle64  claims 64 threads, runs the tasks serially in a seeded random order
 *   threads3   three pthreads of this test (a mutex / condition-variable pool: ThreadSanitizer sees
 *              every synchronisation)
 *   pthreadpool-{1,2,3,8}  (built with pthreadpool only)
 *   openmp     an OpenMP parallel_for on 3 threads (built with OpenMP only)
 * The task-size floor is set to 0 first, so that small shapes split as far as the partition goes;
 * each pool must have been asked to run tasks. Then bad pools: SK_EINVAL from every entry point and
 * nothing written, and a one-thread pool whose parallel_for must never be called.
 *
 *   test_tp [--quick] [--pool=NAME] [--seed=N]
 */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simdkern.h"
#include "pool.h"
#include "tbuf.h"

#if SK_TEST_PTHREADPOOL
#include "simdkern_pthreadpool.h"
#endif
#if SK_TEST_OPENMP
#include <omp.h>
#endif

static int g_fail, g_quick;
static const char *g_case = "";
static char g_casebuf[256];
static uint64_t g_rng = 0x9e3779b97f4a7c15ull;

#define CASE(...) (snprintf(g_casebuf, sizeof g_casebuf, __VA_ARGS__), g_case = g_casebuf)

static void fail(const char *what)
{
    if (g_fail++ < 30)
        fprintf(stderr, "FAIL [%s] %s: %s\n", sk_isa_name(sk_isa_active()), g_case, what);
}

static uint32_t rnd(uint32_t n)
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return n ? (uint32_t)((g_rng >> 16) % n) : 0;
}

static float rndf(void)
{
    return (float)rnd(1u << 24) / (float)(1u << 23) - 1.f;
}

static float *fbuf(size_t n)
{
    float *p = malloc((n ? n : 1) * sizeof(float));
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    for (size_t i = 0; i < n; i++) p[i] = rndf();
    return p;
}

/* free() of each of p[0..n); FREE_ALL(a, b, ...) frees its arguments */
static void free_all(void *const *p, size_t n)
{
    for (size_t i = 0; i < n; i++) free(p[i]);
}
#define FREE_ALL(...) \
    free_all((void *[]){ __VA_ARGS__ }, sizeof((void *[]){ __VA_ARGS__ }) / sizeof(void *))

/* A copy of p[0..n): the _tp call's output starts as the plain call's. */
static float *fcopy(const float *p, size_t n)
{
    float *c = malloc((n ? n : 1) * sizeof(float));
    if (!c) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    memcpy(c, p, n * sizeof(float));
    return c;
}

/* --- pools ------------------------------------------------------------------------------------ */

static atomic_size_t g_tasks_run; /* tasks run through parallel_for since the last reset */

static void reverse_for(void *pool, size_t n, sk_task_fn task, void *arg)
{
    (void)pool;
    for (size_t t = n; t-- > 0;) task(arg, t);
    atomic_fetch_add(&g_tasks_run, n);
}

static void shuffle_for(void *pool, size_t n, sk_task_fn task, void *arg)
{
    uint64_t *state = pool;
    size_t *perm = malloc(n * sizeof *perm);
    if (!perm) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    for (size_t i = 0; i < n; i++) perm[i] = i;
    for (size_t i = n; i > 1; i--) {
        *state = *state * 6364136223846793005ull + 1442695040888963407ull;
        const size_t r = (size_t)(*state >> 33) % i, x = perm[i - 1];
        perm[i - 1] = perm[r];
        perm[r] = x;
    }
    for (size_t i = 0; i < n; i++) task(arg, perm[i]);
    free(perm);
    atomic_fetch_add(&g_tasks_run, n);
}

/* A small pool of this test's own pthreads: a job is published under the mutex; every worker
   takes part in every job (claims tasks from an atomic counter with the caller) and acknowledges
   it, and the caller returns when all have: no worker is left inside a finished job. */
typedef struct tpool {
    pthread_mutex_t mu;
    pthread_cond_t work, done;
    pthread_t th[8];
    size_t n_th;
    unsigned gen; /* job generation */
    int quit;
    sk_task_fn task;
    void *arg;
    size_t n_tasks;
    atomic_size_t next;
    size_t acks; /* workers done with this job (under mu) */
} tpool;

static void tpool_claim(tpool *p, sk_task_fn task, void *arg, size_t n)
{
    for (size_t t; (t = atomic_fetch_add(&p->next, 1)) < n;) task(arg, t);
}

static void *tpool_main(void *arg)
{
    tpool *p = arg;
    unsigned seen = 0;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->quit && p->gen == seen) pthread_cond_wait(&p->work, &p->mu);
        if (p->quit) break;
        seen = p->gen;
        sk_task_fn task = p->task;
        void *targ = p->arg;
        const size_t n = p->n_tasks;
        pthread_mutex_unlock(&p->mu);
        tpool_claim(p, task, targ, n);
        pthread_mutex_lock(&p->mu);
        if (++p->acks == p->n_th) pthread_cond_signal(&p->done);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

static void tpool_for(void *pool, size_t n, sk_task_fn task, void *arg)
{
    tpool *p = pool;
    pthread_mutex_lock(&p->mu);
    p->task = task;
    p->arg = arg;
    p->n_tasks = n;
    p->acks = 0;
    atomic_store(&p->next, 0);
    p->gen++;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->mu);
    tpool_claim(p, task, arg, n);
    pthread_mutex_lock(&p->mu);
    while (p->acks != p->n_th) pthread_cond_wait(&p->done, &p->mu);
    pthread_mutex_unlock(&p->mu);
    atomic_fetch_add(&g_tasks_run, n);
}

static int tpool_start(tpool *p, size_t workers)
{
    memset(p, 0, sizeof *p);
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->work, NULL);
    pthread_cond_init(&p->done, NULL);
    for (; p->n_th < workers; p->n_th++)
        if (pthread_create(&p->th[p->n_th], NULL, tpool_main, p)) return 0;
    return 1;
}

static void tpool_stop(tpool *p)
{
    pthread_mutex_lock(&p->mu);
    p->quit = 1;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->mu);
    for (size_t i = 0; i < p->n_th; i++) pthread_join(p->th[i], NULL);
    pthread_cond_destroy(&p->work);
    pthread_cond_destroy(&p->done);
    pthread_mutex_destroy(&p->mu);
}

#if SK_TEST_PTHREADPOOL
/* pthreadpool through the installed adapter, counting the tasks it runs */
typedef struct {
    pthreadpool_t p;
} ppool;
static void ppool_for(void *pool, size_t n, sk_task_fn task, void *arg)
{
    sk_threadpool tp = sk_threadpool_from_pthreadpool(((ppool *)pool)->p);
    tp.parallel_for(tp.pool, n, task, arg);
    atomic_fetch_add(&g_tasks_run, n);
}
#endif

#if SK_TEST_OPENMP
/* The OpenMP adapter: each task once, any thread of the team, returns after the implicit barrier */
static void omp_for(void *pool, size_t n, sk_task_fn task, void *arg)
{
    (void)pool;
    const long long nn = (long long)n;
#pragma omp parallel for schedule(dynamic, 1)
    for (long long t = 0; t < nn; t++) task(arg, (size_t)t);
    atomic_fetch_add(&g_tasks_run, n);
}
#endif

/* --- comparisons ------------------------------------------------------------------------------ */

static const sk_threadpool *g_tp;

static void same(const void *want, const void *got, size_t bytes, const char *what)
{
    if (memcmp(want, got, bytes)) {
        const float *w = want, *g = got;
        size_t i = 0;
        while (i + 1 < bytes / sizeof(float) && !memcmp(w + i, g + i, sizeof(float))) i++;
        char msg[160];
        snprintf(msg, sizeof msg, "%s differs at float %zu: %.9g (plain) vs %.9g", what, i, w[i],
                 g[i]);
        fail(msg);
    }
}

static void st_ok(sk_status a, sk_status b)
{
    if (a != SK_OK || b != SK_OK) fail("status not SK_OK");
}

/* floats past a 64-byte boundary that gemm_case's B starts at (0: where malloc puts it) */
static size_t g_b_off;

static void gemm_case(sk_trans ta, sk_trans tb, size_t m, size_t n, size_t k, float alpha,
                      float beta, size_t pad, size_t lda_fix, size_t ldb_fix)
{
    CASE("sgemm %c%c %zux%zux%zu alpha %g beta %g pad %zu", ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k,
         alpha, beta, pad);
    const size_t ar = ta ? k : m, ac = ta ? m : k, br = tb ? n : k, bc = tb ? k : n;
    const size_t lda = lda_fix ? lda_fix : ac + pad, ldb = ldb_fix ? ldb_fix : bc + pad,
                 ldc = n + pad;
    float *a = fbuf(ar * lda), *bm = fbuf(br * ldb + 16), *c0 = fbuf(m * ldc),
          *c1 = malloc(m * ldc * 4 + 4);
    const size_t at = (size_t)((uintptr_t)bm % 64) / sizeof(float); /* bm: 16-byte aligned */
    const float *b = g_b_off ? bm + (g_b_off + 16 - at) % 16 : bm;
    memcpy(c1, c0, m * ldc * sizeof(float));
    /* the same product from B packed once: the plain packed call, the pool's, and the pool's
       without packing buffers (A read in place: the same kernel arithmetic), bit for bit */
    float *p0 = fcopy(c0, m * ldc), *p1 = fcopy(c0, m * ldc), *p2 = fcopy(c0, m * ldc);
    const size_t pkb = sk_sgemm_pack_b_size(k, n);
    void *pk = malloc(pkb);
    st_ok(sk_sgemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c0, ldc),
          sk_sgemm_tp(g_tp, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c1, ldc));
    same(c0, c1, m * ldc * sizeof(float), "C");
    /* the same product planned once, run on the pool */
    sk_sgemm_plan plan;
    memcpy(c1, p0, m * ldc * sizeof(float)); /* C as it was (p0: not yet written) */
    const sk_status si = sk_sgemm_plan_init(&plan, ta, tb, m, n, k, alpha, lda, ldb, beta, ldc);
    st_ok(si, si == SK_OK ? sk_sgemm_plan_run_tp(g_tp, &plan, a, b, c1) : si);
    same(c0, c1, m * ldc * sizeof(float), "C planned once");
    if (!pk) {
        fail("malloc");
    } else {
        const sk_status sp = sk_sgemm_pack_b(tb, k, n, b, ldb, pk, pkb);
        st_ok(sp, sk_sgemm_packed(ta, m, n, k, alpha, a, lda, pk, beta, p0, ldc));
        st_ok(sk_sgemm_packed_tp(g_tp, ta, m, n, k, alpha, a, lda, pk, beta, p1, ldc), SK_OK);
        sk_tbuf_deny(1);
        st_ok(sk_sgemm_packed_tp(g_tp, ta, m, n, k, alpha, a, lda, pk, beta, p2, ldc), SK_OK);
        sk_tbuf_deny(0);
        same(p0, p1, m * ldc * sizeof(float), "C from packed B");
        same(p0, p2, m * ldc * sizeof(float), "C from packed B without buffers");
    }
    free(pk);
    free(p0);
    free(p1);
    free(p2);
    free(a);
    free(bm);
    free(c0);
    free(c1);
}

/* m = 1, op(B) = B: the plain call with the calling thread's buffers, and the plain call and the
   pool's without them (sk_tbuf_deny), bit for bit. */
static void row_nomem_case(sk_trans ta, size_t n, size_t k, float beta)
{
    /* the scalar table has no matrix-vector kernels: m = 1 takes the blocked path there, whose
       fallback without a packing buffer is the reference (other sums) */
    if (sk_isa_active() == SK_ISA_SCALAR) return;
    CASE("sgemm %cN 1x%zux%zu beta %g without buffers", ta ? 'T' : 'N', n, k, beta);
    const size_t lda = ta ? 3 : k;
    float *a = fbuf(k * 3), *b = fbuf(k * n), *c0 = fbuf(n), *c1 = malloc(n * 4 + 4),
          *c2 = malloc(n * 4 + 4);
    memcpy(c1, c0, n * sizeof(float));
    memcpy(c2, c0, n * sizeof(float));
    const sk_status s0 = sk_sgemm(ta, SK_NOTRANS, 1, n, k, -0.7f, a, lda, b, n, beta, c0, n);
    sk_tbuf_deny(1);
    const sk_status s1 = sk_sgemm(ta, SK_NOTRANS, 1, n, k, -0.7f, a, lda, b, n, beta, c1, n);
    const sk_status s2 =
        sk_sgemm_tp(g_tp, ta, SK_NOTRANS, 1, n, k, -0.7f, a, lda, b, n, beta, c2, n);
    sk_tbuf_deny(0);
    st_ok(s0, s1);
    st_ok(s0, s2);
    same(c0, c1, n * sizeof(float), "C without buffers");
    same(c0, c2, n * sizeof(float), "C on the pool without buffers");
    free(a);
    free(b);
    free(c0);
    free(c1);
    free(c2);
}

static void test_gemm(void)
{
    static const size_t ms[] = {1, 2, 5, 6, 7, 8, 9, 13, 16, 17, 29, 42, 43};
    /* 768 and 336: whole panels of the AVX2 wide tile (24 columns) past its w_ldb_min (768 in
       the quick run's half too) */
    static const size_t ns[] = {1, 3, 12, 16, 17, 31, 32, 33, 65, 97, 129, 257, 300, 513, 768, 336};
    static const size_t ks[] = {1, 3, 16, 17, 64, 65};
    /* alpha and beta not powers of 2: alpha * s and beta * c round (merged edge tiles would show)
     */
    static const float al[] = {1.f, -0.7f}, be[] = {0.f, 1.f, 0.3f};
    for (size_t im = 0; im < sizeof ms / sizeof *ms; im++)
        for (size_t in = 0; in < sizeof ns / sizeof *ns; in += g_quick ? 2 : 1)
            for (int t = 0; t < 4; t++)
                gemm_case((sk_trans)(t >> 1), (sk_trans)(t & 1), ms[im], ns[in], ks[rnd(6)],
                          al[rnd(2)], be[rnd(3)], rnd(2) ? 0 : 3, 0, 0);
    /* m = 1 over the matrix-vector column groups (256), k over unroll widths */
    static const size_t vn[] = {255, 256, 257, 300, 511, 513, 700, 1000, 2049};
    static const size_t vk[] = {1, 7, 9, 64, 257, 600};
    for (size_t in = 0; in < sizeof vn / sizeof *vn; in++)
        for (size_t ik = 0; ik < sizeof vk / sizeof *vk; ik++)
            for (int t = 0; t < 4; t++)
                gemm_case((sk_trans)(t >> 1), (sk_trans)(t & 1), 1, vn[in], vk[ik], 1.f, be[rnd(3)],
                          rnd(2), 0, 0);
    /* m = 1 with 1 MiB of B or more: k in 2..8 chunks (256 rows or more each) summed apart, the
       partial rows in the calling thread's GEMM buffer; without that buffer, the plain call and
       the pool's take gemv_group columns at a time with the partial rows on the stack: the same
       bits either way */
    static const size_t kn[][2] = {{300, 1100}, {2049, 600}, {513, 2100}, {256, 4100},
                                   {1000, 1024}, {4100, 512}};
    for (size_t s = 0; s < sizeof kn / sizeof *kn; s++)
        for (int ta = 0; ta < 2; ta++) {
            gemm_case((sk_trans)ta, SK_NOTRANS, 1, kn[s][0], kn[s][1], al[rnd(2)], be[rnd(3)],
                      rnd(2), 0, 0);
            row_nomem_case((sk_trans)ta, kn[s][0], kn[s][1], be[rnd(3)]);
        }
    /* m = 1, op(B) = B^T: the AVX-512 kernel reads its rows four at a time over 4 Mi floats and
       over 192-256 Ki, two at a time over 64-192 Ki and 256 Ki-2 Mi, one at a time below (a
       part on the pool spans less than the call): odd n, k with a tail */
    gemm_case(SK_NOTRANS, SK_TRANS, 1, 4099, 1030, al[rnd(2)], 0.3f, 0, 0, 0);
    gemm_case(SK_NOTRANS, SK_TRANS, 1, 803, 300, al[rnd(2)], 0.3f, 0, 0, 0);
    gemm_case(SK_NOTRANS, SK_TRANS, 1, 1101, 2050, al[rnd(2)], 0.f, 0, 0, 0);
    /* cache blocks: KC 256, MC 64-128, NC 1024-4092 (partial panels at the NC edge of the
       ARM table); few rows over several tasks (the wide tile's columns); one MC block with B past
       the x86 tables' b_span_min (2 Mi floats: packed up front); NT on the AVX-512 table's
       transposed tiles in groups of 32 rows of A (one or two k blocks), and with at most 16
       rows two k steps at a time (odd k) */
    static const size_t big[][3] = {
        {20, 40, 257},  {167, 33, 40}, {169, 17, 30},   {337, 9, 9},
        {145, 50, 260}, {5, 4081, 7},  {19, 4097, 3},   {64, 64, 64},
        {96, 100, 300}, {200, 70, 40}, {337, 100, 300}, {200, 140, 70},
        {130, 8200, 5}, {3, 8200, 20}, {505, 129, 33},  {16, 1000, 513},
        {4, 2000, 600}, {3, 4500, 300}, {2, 9000, 300}, {5, 3000, 300},
        {16, 4100, 520}, {3, 4500, 480}, {29, 300, 130}, {64, 500, 300},
        {120, 200, 600}, {48, 300, 3000}, {16, 300, 129}, {13, 600, 129}};
    for (size_t s = 0; s < sizeof big / sizeof *big; s++)
        for (int t = 0; t < 4; t++) {
            if (g_quick && (s + t) % 3) continue;
            gemm_case((sk_trans)(t >> 1), (sk_trans)(t & 1), big[s][0], big[s][1], big[s][2],
                      al[rnd(2)], be[rnd(3)], rnd(2), 0, 0);
        }
    /* NN with B off a cache line at a row stride of whole lines: the columns before its first
       line boundary run as a call of their own, on the pool as on the calling thread (the x86
       tables from 256 columns on the rows_n path and 1000 on the blocked path and 64 Ki floats of
       B, the scalar table from 8 and 16 columns and 256 floats) */
    static const size_t off_shapes[][4] = {
        {2, 300, 300, 304},  {4, 520, 130, 528},    {8, 1040, 70, 1040}, {16, 1030, 65, 1040},
        {40, 1100, 80, 1104}, {3, 40, 30, 48},      {20, 70, 20, 80},    {33, 100, 9, 112}};
    for (size_t s = 0; s < sizeof off_shapes / sizeof *off_shapes; s++) {
        g_b_off = s % 2 ? 4 : 9;
        gemm_case(SK_NOTRANS, SK_NOTRANS, off_shapes[s][0], off_shapes[s][1], off_shapes[s][2],
                  al[rnd(2)], be[rnd(3)], rnd(2) ? 0 : 3, 0, off_shapes[s][3]);
    }
    g_b_off = 0;
    /* row strides at multiples of 4 KiB (other kernel choices), alpha == 0 and k == 0 */
    for (int t = 0; t < 4; t++) {
        gemm_case((sk_trans)(t >> 1), (sk_trans)(t & 1), 29, 37, 50, 0.7f, 0.3f, 0, 1024, 1024);
        gemm_case((sk_trans)(t >> 1), (sk_trans)(t & 1), 7, 300, 50, 1.f, 1.f, 0, 1024, 1024);
        gemm_case((sk_trans)(t >> 1), (sk_trans)(t & 1), 1, 1000, 7, 1.f, 0.f, 0, 1024, 1024);
        gemm_case((sk_trans)(t >> 1), (sk_trans)(t & 1), 200, 300, 40, 1.f, 0.f, 0, 1024, 1024);
        gemm_case((sk_trans)(t >> 1), (sk_trans)(t & 1), 50, 70, 9, 0.f, 0.3f, 0, 0, 0);
        gemm_case((sk_trans)(t >> 1), (sk_trans)(t & 1), 50, 70, 0, 1.f, 0.3f, 0, 0, 0);
    }
}

static void test_exp(void)
{
    static const size_t ns[] = {1,    15,        1023,         1024,      1025,
                                2047, 4096 + 17, 3 * 1024 + 9, 65536 + 5, 300000};
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++) {
        const size_t n = ns[i];
        CASE("exp n %zu", n);
        float *x = fbuf(n), *y0 = fbuf(n), *y1 = malloc(n * 4);
        for (size_t j = 0; j < n; j++) x[j] = x[j] * 100.f; /* also the slow (|x| > 87) groups */
        if (n > 40) {
            x[5] = NAN;
            x[n - 2] = INFINITY;
            x[n / 2] = -INFINITY;
        }
        memcpy(y1, y0, n * 4);
        st_ok(sk_exp(n, x, y0), sk_exp_tp(g_tp, n, x, y1));
        same(y0, y1, n * 4, "y");
        memcpy(y1, x, n * 4); /* in place */
        st_ok(SK_OK, sk_exp_tp(g_tp, n, y1, y1));
        same(y0, y1, n * 4, "y in place");
        free(x);
        free(y0);
        free(y1);
    }
}

/* mask of kind for rows x cols; buffers kept in *keep */
static sk_mask make_mask(sk_mask_kind kind, size_t rows, size_t cols, void **keep)
{
    sk_mask m = {kind, NULL, 0, 0};
    *keep = NULL;
    switch (kind) {
    case SK_MASK_KEYS: {
        uint8_t *d = malloc(cols + 1);
        for (size_t j = 0; j < cols; j++) d[j] = rnd(4) != 0;
        if (rnd(3) == 0) memset(d, 0, cols); /* every key padded */
        m.data = *keep = d;
        break;
    }
    case SK_MASK_BOOL: {
        m.ld = cols + rnd(3);
        uint8_t *d = malloc(rows * m.ld + 1);
        for (size_t i = 0; i < rows * m.ld; i++) d[i] = rnd(4) != 0;
        if (rows > 2) memset(d + m.ld, 0, cols); /* a fully masked row */
        m.data = *keep = d;
        break;
    }
    case SK_MASK_ADD: {
        m.ld = cols + rnd(3);
        float *d = malloc((rows * m.ld + 1) * sizeof(float));
        for (size_t i = 0; i < rows * m.ld; i++) d[i] = rnd(5) ? rndf() : -INFINITY;
        m.data = *keep = d;
        break;
    }
    case SK_MASK_CAUSAL:
        m.offset = (ptrdiff_t)rnd((uint32_t)cols + 3) - (ptrdiff_t)rnd((uint32_t)rows + 2);
        break;
    default:
        break;
    }
    return m;
}

static void test_softmax(void)
{
    static const size_t rs[] = {1, 7, 8, 9, 17, 33, 67},
                        cs[] = {1, 5, 16, 33, 100, 1537, 2049, 4100};
    for (size_t ir = 0; ir < sizeof rs / sizeof *rs; ir++)
        for (size_t ic = 0; ic < sizeof cs / sizeof *cs; ic++)
            for (int kind = -1; kind <= SK_MASK_CAUSAL; kind++) {
                const size_t rows = rs[ir], cols = cs[ic], ld = cols + rnd(2) * 5;
                CASE("softmax %zux%zu mask %d", rows, cols, kind);
                float *x = fbuf(rows * ld), *y0 = fbuf(rows * ld), *y1 = malloc(rows * ld * 4);
                for (size_t i = 0; i < rows * ld; i++) x[i] *= 30.f;
                if (rows > 3 && cols > 3) x[2 * ld + 1] = NAN;
                memcpy(y1, y0, rows * ld * 4);
                void *keep;
                const sk_mask m =
                    make_mask(kind < 0 ? SK_MASK_NONE : (sk_mask_kind)kind, rows, cols, &keep);
                if (kind < 0) {
                    st_ok(sk_softmax(rows, cols, x, ld, y0, ld),
                          sk_softmax_tp(g_tp, rows, cols, x, ld, y1, ld));
                } else {
                    const sk_mask *mp = kind == 0 && rnd(2) ? NULL : &m;
                    st_ok(sk_scale_mask_softmax(rows, cols, 0.125f, x, ld, mp, y0, ld),
                          sk_scale_mask_softmax_tp(g_tp, rows, cols, 0.125f, x, ld, mp, y1, ld));
                }
                same(y0, y1, rows * ld * 4, "y");
                free(keep);
                free(x);
                free(y0);
                free(y1);
            }
    /* the streaming path (16 MiB of output), in place */
    const size_t rows = g_quick ? 1030 : 1100, cols = 4096;
    CASE("softmax %zux%zu in place (streaming stores)", rows, cols);
    float *x = fbuf(rows * cols), *y0 = malloc(rows * cols * 4), *y1 = malloc(rows * cols * 4);
    memcpy(y0, x, rows * cols * 4);
    memcpy(y1, x, rows * cols * 4);
    st_ok(sk_softmax(rows, cols, y0, cols, y0, cols),
          sk_softmax_tp(g_tp, rows, cols, y1, cols, y1, cols));
    same(y0, y1, rows * cols * 4, "y");
    free(x);
    free(y0);
    free(y1);
}

static void test_attention(void)
{
    static const size_t nq[] = {1, 5, 32, 33, 63, 65, 70}, nkv[] = {1, 17, 300, 1100};
    static const size_t dd[][2] = {{8, 8}, {64, 64}, {3, 17}, {300, 40}};
    for (size_t a = 0; a < sizeof nq / sizeof *nq; a++)
        for (size_t b = 0; b < sizeof nkv / sizeof *nkv; b++)
            for (size_t c = 0; c < sizeof dd / sizeof *dd; c++) {
                if (g_quick && (a + b + c) % 2) continue;
                const size_t n_q = nq[a], n_kv = nkv[b], dk = dd[c][0], dv = dd[c][1], ww = rnd(2);
                const int kind = (int)rnd(SK_MASK_CAUSAL + 2) - 1;
                CASE("attention %zux%zu dk %zu dv %zu mask %d weights %zu", n_q, n_kv, dk, dv, kind,
                     ww);
                const size_t ldq = dk + 1, ldk = dk + 2, ldv = dv, ldo = dv + 3;
                float *q = fbuf(n_q * ldq), *k = fbuf(n_kv * ldk), *v = fbuf(n_kv * ldv);
                float *o0 = fbuf(n_q * ldo), *o1 = fcopy(o0, n_q * ldo);
                float *w0 = ww ? fbuf(n_q * n_kv) : NULL, *w1 = ww ? fcopy(w0, n_q * n_kv) : NULL;
                void *keep;
                const sk_mask m =
                    make_mask(kind < 0 ? SK_MASK_NONE : (sk_mask_kind)kind, n_q, n_kv, &keep);
                const sk_mask *mp = kind < 0 ? NULL : &m;
                st_ok(
                    sk_attention(n_q, n_kv, dk, dv, q, ldq, k, ldk, v, ldv, 0.3f, mp, o0, ldo, w0),
                    sk_attention_tp(g_tp, n_q, n_kv, dk, dv, q, ldq, k, ldk, v, ldv, 0.3f, mp, o1,
                                    ldo, w1));
                same(o0, o1, n_q * ldo * 4, "out");
                if (ww) same(w0, w1, n_q * n_kv * 4, "weights");
                FREE_ALL(keep, q, k, v, o0, o1, w0, w1);
            }
}

static void mha_case(size_t H, size_t n_q, size_t n_kv, size_t dh, int kind, int ww, int nan)
{
    CASE("mha H %zu %zux%zu dh %zu mask %d weights %d nan %d", H, n_q, n_kv, dh, kind, ww, nan);
    const size_t W = H * dh, ldq = W + 1, ldk = W + 3, ldv = W, ldo = W + 2;
    float *q = fbuf(n_q * ldq), *k = fbuf(n_kv * ldk), *v = fbuf(n_kv * ldv);
    float *o0 = fbuf(n_q * ldo), *o1 = fcopy(o0, n_q * ldo);
    float *w0 = ww ? fbuf(H * n_q * n_kv) : NULL, *w1 = ww ? fcopy(w0, H * n_q * n_kv) : NULL;
    void *keep;
    sk_mask m = make_mask(kind < 0 ? SK_MASK_NONE : (sk_mask_kind)kind, n_q, n_kv, &keep);
    if (kind == SK_MASK_KEYS && n_kv > 3) ((uint8_t *)keep)[n_kv - 2] = 1;
    if (nan) { /* a NaN score in the last chunk of head 0; under a key mask, masked out */
        k[(n_kv - 2) * ldk] = NAN;
    }
    const sk_mask *mp = kind < 0 ? NULL : &m;
    st_ok(sk_mha(H, n_q, n_kv, dh, q, ldq, k, ldk, v, ldv, 0.125f, mp, o0, ldo, w0),
          sk_mha_tp(g_tp, H, n_q, n_kv, dh, q, ldq, k, ldk, v, ldv, 0.125f, mp, o1, ldo, w1));
    same(o0, o1, n_q * ldo * 4, "out");
    if (ww) same(w0, w1, H * n_q * n_kv * 4, "weights");
    if (nan && n_q == 1 && !ww) { /* the decoder step's chunk merge keeps the NaN rule */
        if (kind < 0 && !isnan(o0[0])) fail("a NaN score did not make the row NaN");
        if (kind == SK_MASK_KEYS && ((uint8_t *)keep)[n_kv - 2] == 0 && isnan(o0[0]))
            fail("a masked NaN leaked");
    }
    FREE_ALL(keep, q, k, v, o0, o1, w0, w1);
}

static void test_mha(void)
{
    static const size_t hs[] = {1, 3, 8, 16}, nq[] = {1, 2, 33, 65};
    static const size_t nkv[] = {1, 64, 511, 512, 513, 1100, 2100, 4097}, dh[] = {8, 64, 100};
    for (size_t a = 0; a < sizeof hs / sizeof *hs; a++)
        for (size_t b = 0; b < sizeof nq / sizeof *nq; b++)
            for (size_t c = 0; c < sizeof nkv / sizeof *nkv; c++)
                for (size_t d = 0; d < sizeof dh / sizeof *dh; d++) {
                    if (nq[b] > 1 && nkv[c] > 1100) continue;
                    if ((g_quick ? 5 : 2) * (a + b + c + d) % 4 && nq[b] != 1) continue;
                    const int kind = (int)rnd(SK_MASK_CAUSAL + 2) - 1;
                    mha_case(hs[a], nq[b], nkv[c], dh[d], kind, nq[b] == 1 ? 0 : (int)rnd(2), 0);
                }
    /* heads whose K/V rows are 128-float multiples apart (ldv = W), several query blocks over
       1024 keys or more: each head's blocks read a per-thread copy of its K and V */
    mha_case(8, 130, 1100, 64, SK_MASK_CAUSAL, 0, 0);
    mha_case(4, 200, 1500, 64, SK_MASK_KEYS, 0, 0);
    mha_case(2, 70, 2100, 64, -1, 0, 1);
    /* the decoder step: chunk counts limited by d_head, rounds of heads, NaN through the merge */
    mha_case(2, 1, 1500, 600, -1, 0, 0);
    mha_case(1, 1, 1500, 1100, SK_MASK_KEYS, 0, 0);
    mha_case(20, 1, 2100, 64, SK_MASK_CAUSAL, 0, 0);
    mha_case(4, 1, 3000, 64, -1, 0, 1);
    mha_case(4, 1, 3000, 64, SK_MASK_KEYS, 0, 1);
    mha_case(8, 2, 600, 64, -1, 1, 1);
}

static void test_mhca(void)
{
    static const size_t dm[][2] = {{16, 1}, {64, 4}, {96, 16}}, nd[] = {1, 3, 40};
    static const size_t ne[] = {1, 7, 600, 1100};
    for (size_t a = 0; a < sizeof dm / sizeof *dm; a++)
        for (size_t b = 0; b < sizeof nd / sizeof *nd; b++)
            for (size_t c = 0; c < sizeof ne / sizeof *ne; c++) {
                const size_t d = dm[a][0], H = dm[a][1], n_dec = nd[b], n_enc = ne[c];
                const int ww = (int)rnd(2), mk = (int)rnd(2), bias = (int)rnd(2);
                const int packed = (int)rnd(2); /* the weights packed once (w_*_packed) */
                const size_t de = rnd(2) ? d : d / 2 + 3; /* an encoder of another width */
                CASE("mhca d %zu H %zu dec %zu enc %zu d_enc %zu weights %d mask %d biases %d "
                     "packed %d", d, H, n_dec, n_enc, de, ww, mk, bias, packed);
                float *wq = fbuf(d * d), *wk = fbuf(de * d), *wv = fbuf(de * d), *wo = fbuf(d * d);
                for (size_t i = 0; i < d * d; i++) wq[i] *= 0.3f;
                for (size_t i = 0; i < de * d; i++) wk[i] *= 0.3f;
                float *bq = fbuf(d), *bk = fbuf(d), *bv = fbuf(d), *bo = fbuf(d);
                sk_mhca L = { .d_model = d, .n_heads = H, .w_q = wq, .w_k = wk, .w_v = wv,
                              .w_o = wo, .d_enc = de == d ? 0 : de,
                              .b_q = bias ? bq : NULL, .b_k = bias ? bk : NULL,
                              .b_v = bias ? bv : NULL, .b_o = bias ? bo : NULL };
                void *pk[4] = { NULL, NULL, NULL, NULL };
                if (packed) {
                    const float *w4[4] = { wq, wk, wv, wo };
                    for (int i = 0; i < 4; i++) {
                        const size_t rows = i == 1 || i == 2 ? de : d;
                        const size_t bytes = sk_sgemm_pack_b_size(rows, d);
                        pk[i] = malloc(bytes);
                        if (!pk[i] || sk_sgemm_pack_b(SK_NOTRANS, rows, d, w4[i], d, pk[i],
                                                      bytes) != SK_OK)
                            fail("pack weight");
                    }
                    L.w_q_packed = pk[0]; L.w_k_packed = pk[1];
                    L.w_v_packed = pk[2]; L.w_o_packed = pk[3];
                }
                float *dec = fbuf(n_dec * d), *enc = fbuf(n_enc * de);
                uint8_t *em = malloc(n_enc);
                for (size_t j = 0; j < n_enc; j++) em[j] = rnd(5) != 0;
                const size_t nw = H * n_dec * n_enc;
                float *o0 = fbuf(n_dec * d), *o1 = fcopy(o0, n_dec * d);
                float *w0 = ww ? fbuf(nw) : NULL, *w1 = ww ? fcopy(w0, nw) : NULL;
                const size_t wsz = sk_mhca_workspace_size(&L, n_dec, n_enc);
                void *ws = malloc(wsz);
                st_ok(sk_mhca_forward(&L, n_dec, dec, n_enc, enc, mk ? em : NULL, o0, w0, NULL),
                      sk_mhca_forward_tp(g_tp, &L, n_dec, dec, n_enc, enc, mk ? em : NULL, o1, w1,
                                         ws));
                same(o0, o1, n_dec * d * 4, "forward out");
                if (ww) same(w0, w1, nw * 4, "forward weights");
                const size_t kvn = 2 * n_enc * d;
                float *kv0 = fbuf(kvn), *kv1 = fcopy(kv0, kvn);
                st_ok(sk_mhca_project_kv(&L, n_enc, enc, kv0),
                      sk_mhca_project_kv_tp(g_tp, &L, n_enc, enc, kv1));
                same(kv0, kv1, kvn * 4, "kv");
                memcpy(o1, o0, n_dec * d * 4);
                st_ok(sk_mhca_forward_kv(&L, n_dec, dec, n_enc, kv0, mk ? em : NULL, o0, w0, NULL),
                      sk_mhca_forward_kv_tp(g_tp, &L, n_dec, dec, n_enc, kv0, mk ? em : NULL, o1,
                                            w1, ws));
                same(o0, o1, n_dec * d * 4, "forward_kv out");
                if (ww) same(w0, w1, nw * 4, "forward_kv weights");
                FREE_ALL(wq, wk, wv, wo, bq, bk, bv, bo, dec, enc, em, o0, o1, w0, w1, ws, kv0,
                           kv1, pk[0], pk[1], pk[2], pk[3]);
            }
}

/* --- bad pools ---------------------------------------------------------------------------------
 */

static atomic_int g_called;
static void counting_for(void *pool, size_t n, sk_task_fn task, void *arg)
{
    (void)pool;
    atomic_fetch_add(&g_called, 1);
    for (size_t t = 0; t < n; t++) task(arg, t);
}

static void test_bad_pools(void)
{
    enum { N = 64 };
    float a[N * N], b[N * N], c[N * N], ref[N * N];
    uint8_t em[N];
    for (int i = 0; i < N * N; i++) {
        a[i] = rndf();
        b[i] = rndf();
        c[i] = ref[i] = (float)i;
    }
    memset(em, 1, sizeof em);
    const sk_mhca L = { .d_model = 16, .n_heads = 2, .w_q = a, .w_k = a + 256, .w_v = a + 512,
                        .w_o = a + 768 };
    const sk_threadpool bad[2] = {{NULL, NULL, 4}, {counting_for, NULL, 0}};
    for (int i = 0; i < 2; i++) {
        const sk_threadpool *tp = &bad[i];
        CASE("bad pool %d", i);
        sk_status s[9];
        s[0] = sk_sgemm_tp(tp, SK_NOTRANS, SK_NOTRANS, 8, 8, 8, 1.f, a, 8, b, 8, 0.f, c, 8);
        s[1] = sk_exp_tp(tp, 100, a, c);
        s[2] = sk_softmax_tp(tp, 4, 16, a, 16, c, 16);
        s[3] = sk_scale_mask_softmax_tp(tp, 4, 16, 0.5f, a, 16, NULL, c, 16);
        s[4] = sk_attention_tp(tp, 4, 8, 8, 8, a, 8, b, 8, b, 8, 0.5f, NULL, c, 8, c + 1024);
        s[5] = sk_mha_tp(tp, 2, 1, 8, 4, a, 8, b, 8, b, 8, 0.5f, NULL, c, 8, NULL);
        s[6] = sk_mhca_forward_tp(tp, &L, 2, b, 4, b + 64, em, c, c + 1024, NULL);
        s[7] = sk_mhca_project_kv_tp(tp, &L, 4, b, c);
        s[8] = sk_mhca_forward_kv_tp(tp, &L, 2, b, 4, b + 64, em, c, c + 1024, NULL);
        for (int f = 0; f < 9; f++)
            if (s[f] != SK_EINVAL) {
                char msg[64];
                snprintf(msg, sizeof msg, "entry point %d did not return SK_EINVAL", f);
                fail(msg);
            }
        same(ref, c, sizeof c, "output written on a bad pool");
    }
    /* n_threads == 1: runs on the calling thread, parallel_for never called */
    CASE("one-thread pool");
    atomic_store(&g_called, 0);
    const sk_threadpool one = {counting_for, NULL, 1};
    sk_sgemm_tp(&one, SK_NOTRANS, SK_NOTRANS, N, N, N, 1.f, a, N, b, N, 0.f, c, N);
    sk_sgemm(SK_NOTRANS, SK_NOTRANS, N, N, N, 1.f, a, N, b, N, 0.f, ref, N);
    same(ref, c, sizeof c, "C");
    sk_exp_tp(&one, N * N, a, c);
    sk_mha_tp(&one, 4, 8, 16, 16, a, N, b, N, b, N, 0.5f, NULL, c, N, NULL);
    if (atomic_load(&g_called)) fail("parallel_for called for n_threads == 1");
}

/* --- driver ------------------------------------------------------------------------------------
 */

static void run_all(const char *pool, const sk_threadpool *tp)
{
    for (int isa = 0; isa < SK_ISA_COUNT; isa++) {
        if (!sk_isa_available((sk_isa)isa)) continue;
        sk_isa_select((sk_isa)isa);
        g_tp = tp;
        const int before = g_fail;
        atomic_store(&g_tasks_run, 0);
        test_gemm();
        const size_t gemm_tasks = atomic_load(&g_tasks_run);
        test_exp();
        test_softmax();
        test_attention();
        test_mha();
        test_mhca();
        if (tp->n_threads > 1 && gemm_tasks == 0) {
            CASE("pool %s", pool);
            fail("the GEMM sweep never ran a task on the pool");
        }
        if (tp->n_threads > 1 && atomic_load(&g_tasks_run) == gemm_tasks) {
            CASE("pool %s", pool);
            fail("exp, softmax, attention and the module never ran a task on the pool");
        }
        printf("  %-14s %-7s %s (%zu tasks on the pool)\n", pool, sk_isa_name((sk_isa)isa),
               g_fail == before ? "ok" : "FAILED", (size_t)atomic_load(&g_tasks_run));
        fflush(stdout);
    }
}

int main(int argc, char **argv)
{
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick"))
            g_quick = 1;
        else if (!strncmp(argv[i], "--pool=", 7))
            only = argv[i] + 7;
        else if (!strncmp(argv[i], "--seed=", 7))
            g_rng = strtoull(argv[i] + 7, NULL, 0) | 1;
        else {
            fprintf(stderr, "usage: %s [--quick] [--pool=NAME] [--seed=N]\n", argv[0]);
            return 2;
        }
    }
    if (getenv("CHECKASM_QUICK")) g_quick = 1;
    sk_tp_set_min_work_scale(0.0); /* split every shape as far as the partition goes */
    const sk_isa best = sk_isa_active();
    int ran = 0;
#define WANT(name) (!only || !strcmp(only, name))
    if (WANT("reverse5")) {
        const sk_threadpool tp = {reverse_for, NULL, 5};
        run_all("reverse5", &tp);
        ran++;
    }
    if (WANT("shuffle64")) {
        uint64_t st = 12345;
        const sk_threadpool tp = {shuffle_for, &st, 64};
        run_all("shuffle64", &tp);
        ran++;
    }
    if (WANT("threads3")) {
        tpool p;
        if (!tpool_start(&p, 2)) {
            fprintf(stderr, "pthread_create failed\n");
            return 1;
        }
        const sk_threadpool tp = {tpool_for, &p, 3};
        run_all("threads3", &tp);
        tpool_stop(&p);
        ran++;
    }
#if SK_TEST_PTHREADPOOL
    static const size_t nt[] = {1, 2, 3, 8};
    for (size_t i = 0; i < 4; i++) {
        char name[32];
        snprintf(name, sizeof name, "pthreadpool-%zu", nt[i]);
        if (!WANT(name)) continue;
        ppool pp = {pthreadpool_create(nt[i])};
        if (!pp.p) {
            fprintf(stderr, "pthreadpool_create failed\n");
            return 1;
        }
        sk_threadpool tp = sk_threadpool_from_pthreadpool(pp.p);
        if (tp.n_threads != nt[i]) {
            CASE("%s", name);
            fail("n_threads from the adapter");
        }
        tp.parallel_for = ppool_for;
        tp.pool = &pp;
        run_all(name, &tp);
        pthreadpool_destroy(pp.p);
        ran++;
    }
#endif
#if SK_TEST_OPENMP
    if (WANT("openmp")) {
        omp_set_num_threads(3);
        const sk_threadpool tp = {omp_for, NULL, (size_t)omp_get_max_threads()};
        run_all("openmp", &tp);
        ran++;
    }
#endif
    sk_isa_select(best);
    test_bad_pools();
    if (!ran && only) {
        fprintf(stderr, "no pool named %s in this build\n", only);
        return 77;
    }
    if (g_fail) {
        printf("test_tp: %d failures\n", g_fail);
        return 1;
    }
    printf("test_tp: all passed\n");
    return 0;
}
