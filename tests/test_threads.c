/* Thread safety: many threads make their very first library call at the same moment (a barrier
 * releases them together, so the lazy dispatch init races), each runs sk_exp / sk_sgemm /
 * sk_softmax on its own data; the results must equal, bit for bit, a single-threaded run afterwards
 * on the same path. Then a second round while the main thread flips sk_isa_select between the
 * available paths: every result must stay within the documented error bounds.
 *
 *   test_threads [NTHREADS]     (default 16)
 */
#define _POSIX_C_SOURCE 200809L /* pthread_barrier_t */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simdkern.h"

enum { M = 13, N = 21, K = 17, NE = 301, SR = 5, SC = 67, MAXT = 64, ROUNDS = 20 };

typedef struct {
    int id;
    float a[M * K], b[K * N], x[NE], s[SR * SC];
    float c[M * N], y[NE], p[SR * SC];          /* the thread's results */
    sk_isa first_isa;                             /* sk_isa_active() seen by the thread */
    int status_bad;
} job;

static pthread_barrier_t g_barrier;
static job g_jobs[MAXT];
static atomic_int g_stop;

static float frand(unsigned *st)
{
    *st = *st * 1664525u + 1013904223u;
    return (float)((*st >> 8) & 0xffff) / 65536.f * 4.f - 2.f;
}

static void fill(job *j)
{
    unsigned st = 12345u + 7919u * (unsigned)j->id;
    for (int i = 0; i < M * K; i++) j->a[i] = frand(&st);
    for (int i = 0; i < K * N; i++) j->b[i] = frand(&st);
    for (int i = 0; i < NE; i++) j->x[i] = frand(&st) * 20.f;
    for (int i = 0; i < SR * SC; i++) j->s[i] = frand(&st) * 5.f;
}

static int run(job *j, float *c, float *y, float *p)
{
    int bad = 0;
    /* which kernel goes first differs between threads so that each can be the one that inits */
    for (int t = 0; t < 3; t++) {
        switch ((j->id + t) % 3) {
        case 0: bad |= sk_exp(NE, j->x, y) != SK_OK; break;
        case 1:
            bad |= sk_sgemm(SK_NOTRANS, SK_NOTRANS, M, N, K, 1.f, j->a, K, j->b, N, 0.f, c, N) !=
                   SK_OK;
            break;
        case 2: bad |= sk_softmax(SR, SC, j->s, SC, p, SC) != SK_OK; break;
        }
    }
    return bad;
}

static void *worker(void *arg)
{
    job *j = arg;
    pthread_barrier_wait(&g_barrier);
    /* some threads start with the dispatch API */
    if (j->id % 4 == 3) j->first_isa = sk_isa_active();
    j->status_bad = run(j, j->c, j->y, j->p);
    if (j->id % 4 != 3) j->first_isa = sk_isa_active();
    return NULL;
}

/* round 2: loop until told to stop, checking each result against double-precision truth with
   the documented bound as the unit (ref = exact value, tol = its allowed error) */
static double g_max_err[MAXT];
typedef struct { double ref[M * N + NE + SR * SC], tol[M * N + NE + SR * SC]; } truth;
static truth g_truth[MAXT];

static void make_truth(const job *j, truth *t)
{
    double *ref = t->ref, *tol = t->tol;
    for (int i = 0; i < M * N; i++) { /* sgemm: 2 k 2^-24 sum |a||b| */
        double e = 0, s = 0;
        for (int q = 0; q < K; q++) {
            const double pr = (double)j->a[(i / N) * K + q] * j->b[q * N + i % N];
            e += pr;
            s += fabs(pr);
        }
        ref[i] = e;
        tol[i] = 2.0 * K * 0x1p-24 * s;
    }
    ref += M * N; tol += M * N;
    for (int i = 0; i < NE; i++) { /* exp: 1 ulp <= 2^-23 y; margin 2 */
        ref[i] = exp((double)j->x[i]);
        tol[i] = 0x1p-22 * ref[i];
    }
    ref += NE; tol += NE;
    for (int r = 0; r < SR; r++) { /* softmax: 1e-5 y + 1e-9 */
        const float *x = j->s + r * SC;
        double mx = x[0], sum = 0;
        for (int q = 1; q < SC; q++) if (x[q] > mx) mx = x[q];
        for (int q = 0; q < SC; q++) sum += exp(x[q] - mx);
        for (int q = 0; q < SC; q++) {
            ref[r * SC + q] = exp(x[q] - mx) / sum;
            tol[r * SC + q] = 1e-5 * ref[r * SC + q] + 1e-9;
        }
    }
}

static void *worker_flip(void *arg)
{
    job *j = arg;
    const truth *t = &g_truth[j->id];
    float got[M * N + NE + SR * SC];
    double worst = 0;
    pthread_barrier_wait(&g_barrier);
    for (int r = 0; r < ROUNDS || !atomic_load(&g_stop); r++) {
        if (run(j, got, got + M * N, got + M * N + NE)) j->status_bad = 1;
        for (int i = 0; i < M * N + NE + SR * SC; i++) {
            const double rel = fabs(got[i] - t->ref[i]) / t->tol[i];
            if (!(rel <= worst)) worst = rel; /* NaN counts as the worst */
        }
    }
    g_max_err[j->id] = worst;
    return NULL;
}

int main(int argc, char **argv)
{
    int nt = argc > 1 ? atoi(argv[1]) : 16;
    if (nt < 2 || nt > MAXT) {
        fprintf(stderr, "usage: %s [NTHREADS 2..%d]\n", argv[0], MAXT);
        return 2;
    }
    pthread_t th[MAXT];
    int fail = 0;
    for (int i = 0; i < nt; i++) {
        g_jobs[i].id = i;
        fill(&g_jobs[i]);
    }

    /* round 1: nothing has touched the library yet */
    pthread_barrier_init(&g_barrier, NULL, (unsigned)nt);
    for (int i = 0; i < nt; i++)
        if (pthread_create(&th[i], NULL, worker, &g_jobs[i])) {
            perror("pthread_create");
            return 1;
        }
    for (int i = 0; i < nt; i++) pthread_join(th[i], NULL);
    pthread_barrier_destroy(&g_barrier);

    const sk_isa isa = sk_isa_active();
    for (int i = 0; i < nt; i++) {
        job *j = &g_jobs[i];
        float c[M * N], y[NE], p[SR * SC];
        if (j->status_bad) {
            fprintf(stderr, "FAIL thread %d: a call did not return SK_OK\n", i);
            fail = 1;
        }
        if (j->first_isa != isa) {
            fprintf(stderr, "FAIL thread %d saw path %s, main %s\n", i, sk_isa_name(j->first_isa),
                    sk_isa_name(isa));
            fail = 1;
        }
        if (run(j, c, y, p)) fail = 1;
        if (memcmp(c, j->c, sizeof c) || memcmp(y, j->y, sizeof y) || memcmp(p, j->p, sizeof p)) {
            fprintf(stderr, "FAIL thread %d: results differ from the single-threaded run\n", i);
            fail = 1;
        }
    }

    /* round 2: the path changes under running threads (sk_isa_select is process-wide) */
    sk_isa avail[SK_ISA_COUNT];
    int na = 0;
    for (int i = 0; i < SK_ISA_COUNT; i++)
        if (sk_isa_available((sk_isa)i)) avail[na++] = (sk_isa)i;
    for (int i = 0; i < nt; i++) make_truth(&g_jobs[i], &g_truth[i]);
    pthread_barrier_init(&g_barrier, NULL, (unsigned)nt + 1);
    for (int i = 0; i < nt; i++) {
        g_jobs[i].status_bad = 0;
        if (pthread_create(&th[i], NULL, worker_flip, &g_jobs[i])) {
            perror("pthread_create");
            return 1;
        }
    }
    pthread_barrier_wait(&g_barrier);
    for (int r = 0; r < 200; r++)
        if (sk_isa_select(avail[r % na]) != SK_OK) fail = 1;
    atomic_store(&g_stop, 1);
    for (int i = 0; i < nt; i++) pthread_join(th[i], NULL);
    sk_isa_select(isa);
    double worst = 0;
    for (int i = 0; i < nt; i++) {
        if (g_jobs[i].status_bad) {
            fprintf(stderr, "FAIL thread %d (round 2): bad status\n", i);
            fail = 1;
        }
        if (g_max_err[i] > worst) worst = g_max_err[i];
    }
    if (!(worst <= 1.0)) {
        fprintf(stderr, "FAIL round 2: error %.3g x the documented bound\n", worst);
        fail = 1;
    }
    printf("test_threads: %d threads, path %s, %d paths flipped: %s (worst error %.3g of bound)\n",
           nt, sk_isa_name(isa), na, fail ? "FAILED" : "ok", worst);
    return fail;
}
