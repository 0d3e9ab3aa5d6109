/* ab_lib: this build's sk_sgemm against an earlier build's, in one process (bench/ab-lib links
 * the earlier library with its sk_ symbols renamed old_sk_). The two alternate window by window
 * on each shape, so that both see the same phases of a shared machine; each window reports
 * GFLOP/s, and the summary the median of new / old over the windows with its quartiles. The
 * results of both are checked to be the same bits before anything is timed.
 *
 *   ab_lib [--isa=avx2|avx512|neon|scalar] [--windows=N] [--window-ms=T] SHAPE...
 *   SHAPE: NN:MxNxK, NT:MxNxK (sk_sgemm) or PK:MxNxK (sk_sgemm_packed, B packed once by each) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "simdkern.h"

sk_status old_sk_sgemm(sk_trans ta, sk_trans tb, size_t m, size_t n, size_t k, float alpha,
                       const float *a, size_t lda, const float *b, size_t ldb, float beta, float *c,
                       size_t ldc);
sk_status old_sk_isa_select(sk_isa isa);
size_t old_sk_sgemm_pack_b_size(size_t k, size_t n);
sk_status old_sk_sgemm_pack_b(sk_trans tb, size_t k, size_t n, const float *b, size_t ldb,
                              void *packed, size_t packed_bytes);
sk_status old_sk_sgemm_packed(sk_trans ta, size_t m, size_t n, size_t k, float alpha,
                              const float *a, size_t lda, const void *packed, float beta, float *c,
                              size_t ldc);

typedef struct shape {
    char kind[3]; /* NN, NT, PK */
    size_t m, n, k;
    float *a, *b, *c;
    void *pnew, *pold; /* PK: B packed by each library */
} shape;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void run(const shape *s, int old)
{
    const sk_trans tb = s->kind[1] == 'T' ? SK_TRANS : SK_NOTRANS;
    const size_t ldb = tb ? s->k : s->n;
    if (s->kind[0] == 'P') {
        if (old)
            old_sk_sgemm_packed(SK_NOTRANS, s->m, s->n, s->k, 1.f, s->a, s->k, s->pold, 0.f, s->c,
                                s->n);
        else
            sk_sgemm_packed(SK_NOTRANS, s->m, s->n, s->k, 1.f, s->a, s->k, s->pnew, 0.f, s->c,
                            s->n);
    } else if (old) {
        old_sk_sgemm(SK_NOTRANS, tb, s->m, s->n, s->k, 1.f, s->a, s->k, s->b, ldb, 0.f, s->c,
                     s->n);
    } else {
        sk_sgemm(SK_NOTRANS, tb, s->m, s->n, s->k, 1.f, s->a, s->k, s->b, ldb, 0.f, s->c, s->n);
    }
}

/* GFLOP/s of one window: calls in batches until it has run for `sec` */
static double window(const shape *s, int old, double sec)
{
    const double flops = 2.0 * (double)s->m * (double)s->n * (double)s->k;
    for (int i = 0; i < 3; i++) run(s, old);
    long calls = 0;
    const double t0 = now();
    double t;
    do {
        for (int i = 0; i < 8; i++) run(s, old);
        calls += 8;
    } while ((t = now()) - t0 < sec);
    return flops * (double)calls / (t - t0) * 1e-9;
}

static int cmp_double(const void *x, const void *y)
{
    const double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static double quantile(double *v, int n, double q) /* v sorted */
{
    const double pos = q * (n - 1);
    const int i = (int)pos;
    return i + 1 < n ? v[i] + (pos - i) * (v[i + 1] - v[i]) : v[n - 1];
}

static float *filled(size_t n, unsigned seed)
{
    float *p = malloc(n * sizeof(float));
    if (!p) return NULL;
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        p[i] = (float)(seed >> 8) / (float)(1u << 24) * 2.f - 1.f;
    }
    return p;
}

static int setup(shape *s)
{
    s->a = filled(s->m * s->k, 1), s->b = filled(s->k * s->n, 2);
    s->c = malloc(s->m * s->n * sizeof(float));
    float *c2 = malloc(s->m * s->n * sizeof(float));
    if (!s->a || !s->b || !s->c || !c2) return 0;
    if (s->kind[0] == 'P') {
        const size_t bn = sk_sgemm_pack_b_size(s->k, s->n);
        const size_t bo = old_sk_sgemm_pack_b_size(s->k, s->n);
        s->pnew = aligned_alloc(64, (bn + 63) / 64 * 64);
        s->pold = aligned_alloc(64, (bo + 63) / 64 * 64);
        if (!s->pnew || !s->pold ||
            sk_sgemm_pack_b(SK_NOTRANS, s->k, s->n, s->b, s->n, s->pnew, bn) != SK_OK ||
            old_sk_sgemm_pack_b(SK_NOTRANS, s->k, s->n, s->b, s->n, s->pold, bo) != SK_OK)
            return 0;
    }
    run(s, 0);
    memcpy(c2, s->c, s->m * s->n * sizeof(float));
    run(s, 1);
    const int same = !memcmp(c2, s->c, s->m * s->n * sizeof(float));
    free(c2);
    if (!same) fprintf(stderr, "ab_lib: %s:%zux%zux%zu: the two results differ\n", s->kind, s->m,
                       s->n, s->k);
    return same;
}

int main(int argc, char **argv)
{
    sk_isa isa = sk_isa_active();
    int windows = 20;
    double sec = 0.03;
    shape *sh = calloc((size_t)argc, sizeof *sh);
    int ns = 0;
    if (!sh) return 1;
    for (int i = 1; i < argc; i++) {
        const char *v = argv[i];
        if (!strncmp(v, "--isa=", 6)) {
            int found = 0;
            for (int j = 0; j < SK_ISA_COUNT; j++)
                if (!strcmp(v + 6, sk_isa_name((sk_isa)j))) isa = (sk_isa)j, found = 1;
            if (!found) return fprintf(stderr, "ab_lib: unknown ISA %s\n", v + 6), 2;
        } else if (!strncmp(v, "--windows=", 10)) {
            windows = atoi(v + 10);
        } else if (!strncmp(v, "--window-ms=", 12)) {
            sec = atof(v + 12) * 1e-3;
        } else if (strlen(v) > 3 && v[2] == ':' && (!strncmp(v, "NN", 2) || !strncmp(v, "NT", 2) ||
                                                      !strncmp(v, "PK", 2)) &&
                   sscanf(v + 3, "%zux%zux%zu", &sh[ns].m, &sh[ns].n, &sh[ns].k) == 3 &&
                   sh[ns].m && sh[ns].n && sh[ns].k) {
            memcpy(sh[ns].kind, v, 2);
            ns++;
        } else {
            fprintf(stderr, "usage: ab_lib [--isa=NAME] [--windows=N] [--window-ms=T] "
                            "{NN|NT|PK}:MxNxK...\n");
            return 2;
        }
    }
    if (ns == 0 || windows < 1) return fprintf(stderr, "ab_lib: no shapes\n"), 2;
    if (sk_isa_select(isa) != SK_OK || old_sk_isa_select(isa) != SK_OK)
        return fprintf(stderr, "ab_lib: %s not available in both\n", sk_isa_name(isa)), 2;
    for (int s = 0; s < ns; s++)
        if (!setup(&sh[s])) return 1;
    double *g = malloc(sizeof(double) * (size_t)ns * (size_t)windows * 2);
    double *r = malloc(sizeof(double) * (size_t)windows);
    if (!g || !r) return 1;
    /* each window round visits every shape, new and old, in an order rotated round by round */
    for (int w = 0; w < windows; w++)
        for (int i = 0; i < 2 * ns; i++) {
            const int j = (i + w) % (2 * ns), s = j / 2, old = (j + w) % 2;
            g[((size_t)s * windows + w) * 2 + old] = window(&sh[s], old, sec);
        }
    printf("%s, %d windows of %.0f ms; new / old: median [q25, q75]\n", sk_isa_name(isa), windows,
           sec * 1e3);
    for (int s = 0; s < ns; s++) {
        double gn[2] = { 0, 0 };
        for (int w = 0; w < windows; w++) {
            const double *x = &g[((size_t)s * windows + w) * 2];
            r[w] = x[0] / x[1];
            gn[0] += x[0] / windows, gn[1] += x[1] / windows;
        }
        qsort(r, (size_t)windows, sizeof *r, cmp_double);
        char name[64];
        snprintf(name, sizeof name, "%s:%zux%zux%zu", sh[s].kind, sh[s].m, sh[s].n, sh[s].k);
        printf("%-20s new %7.1f old %7.1f GFLOP/s  %.3f [%.3f, %.3f]\n", name, gn[0], gn[1],
               quantile(r, windows, 0.5), quantile(r, windows, 0.25), quantile(r, windows, 0.75));
    }
    return 0;
}
