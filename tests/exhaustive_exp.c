/* Exhaustive sk_exp check: every float input (or every STRIDE-th bit pattern under --stride=N, used
 * under qemu) through one ISA's exp, in batches, on 2 threads, against a double-precision
 * reference (libm exp). Reports the max ulp error over results that are normal floats (must be
 * <= 1), and checks the rest: NaN -> NaN, overflow -> +inf (or FLT_MAX when the exact value rounds
 * to it), results below FLT_MIN in [0, FLT_MIN].
 *   exhaustive_exp --isa=scalar|avx2|avx512|neon [--stride=N] [--threads=N]
 * Exit 0 on success, 1 on failure, 77 when the ISA is not available here. */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dsp.h"

#define BATCH 16384

typedef struct {
    const sk_math_dsp *md;
    uint64_t begin, end, stride; /* bit patterns [begin, end) step stride */
    double max_ulp;
    uint32_t worst;
    uint64_t checked, normal, bad, flushed;
    uint32_t first_bad;
} job;

static float f_of(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

/* |y - e| in units of the float ulp of e (e a positive normal float value). */
static inline double ulps(float y, double e)
{
    uint64_t b;
    memcpy(&b, &e, 8);
    const uint64_t eb = ((b >> 52) & 0x7ff) - 23; /* exponent of ulp(e) in float precision */
    const uint64_t ub = eb << 52;
    double u;
    memcpy(&u, &ub, 8);
    return fabs((double)y - e) / u;
}

static void *run(void *arg)
{
    job *j = arg;
    static __thread float x[BATCH], y[BATCH];
    uint64_t i = j->begin;
    while (i < j->end) {
        size_t n = 0;
        for (; n < BATCH && i < j->end; n++, i += j->stride) x[n] = f_of((uint32_t)i);
        j->md->exp(n, x, y);
        for (size_t k = 0; k < n; k++) {
            const float xv = x[k], yv = y[k];
            int ok;
            j->checked++;
            if (xv != xv) ok = yv != yv;
            else if (xv > 89.f) ok = yv == INFINITY;
            else if (xv < -104.f) ok = yv == 0.f;
            else {
                const double e = exp((double)xv);
                if (e > FLT_MAX) ok = yv == INFINITY || (yv == FLT_MAX && (float)e == FLT_MAX);
                else if (e < FLT_MIN) {
                    ok = yv >= 0.f && yv <= FLT_MIN;
                    j->flushed += yv == 0.f && e >= 0x1p-150;
                } else {
                    const double u = ulps(yv, e);
                    j->normal++;
                    if (u > j->max_ulp) { j->max_ulp = u; memcpy(&j->worst, &x[k], 4); }
                    ok = u <= 1.0;
                }
            }
            if (!ok && j->bad++ == 0) memcpy(&j->first_bad, &x[k], 4);
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    const char *isa_name = "scalar";
    uint64_t stride = 1;
    int threads = 2;
    for (int i = 1; i < argc; i++) {
        if (!strncmp(argv[i], "--isa=", 6)) isa_name = argv[i] + 6;
        else if (!strncmp(argv[i], "--stride=", 9)) stride = strtoull(argv[i] + 9, NULL, 0);
        else if (!strncmp(argv[i], "--threads=", 10)) threads = atoi(argv[i] + 10);
        else {
            fprintf(stderr, "usage: %s --isa=NAME [--stride=N] [--threads=N]\n", argv[0]);
            return 2;
        }
    }
    if (stride < 1) stride = 1;
    if (threads < 1 || threads > 64) threads = 2;
    int isa = -1;
    for (int k = 0; k < SK_ISA_COUNT; k++)
        if (!strcmp(isa_name, sk_isa_name((sk_isa)k))) isa = k;
    if (isa < 0) { fprintf(stderr, "unknown ISA %s\n", isa_name); return 2; }
    if (!sk_isa_available((sk_isa)isa)) {
        printf("%s not available here: skipped\n", isa_name);
        return 77;
    }

    job jobs[64];
    pthread_t tid[64];
    const uint64_t total = 1ull << 32, count = (total + stride - 1) / stride;
    for (int t = 0; t < threads; t++) {
        memset(&jobs[t], 0, sizeof jobs[t]);
        jobs[t].md = &sk_dsp_for((sk_isa)isa)->math;
        jobs[t].stride = stride;
        jobs[t].begin = count * t / threads * stride;
        jobs[t].end = t == threads - 1 ? total : count * (t + 1) / threads * stride;
        pthread_create(&tid[t], NULL, run, &jobs[t]);
    }
    job sum = { 0 };
    for (int t = 0; t < threads; t++) {
        pthread_join(tid[t], NULL);
        sum.checked += jobs[t].checked;
        sum.normal += jobs[t].normal;
        sum.flushed += jobs[t].flushed;
        if (jobs[t].bad && !sum.bad) sum.first_bad = jobs[t].first_bad;
        sum.bad += jobs[t].bad;
        if (jobs[t].max_ulp > sum.max_ulp) {
            sum.max_ulp = jobs[t].max_ulp;
            sum.worst = jobs[t].worst;
        }
    }
    printf("exhaustive exp %s: %s (%" PRIu64 " inputs, stride %" PRIu64 "), %" PRIu64
           " normal results, max %.4f ulp at x = %a; %" PRIu64 " subnormal results flushed to 0;"
           " %" PRIu64 " failures\n",
           isa_name, stride == 1 ? "all 2^32 inputs" : "strided sweep", sum.checked, stride,
           sum.normal, sum.max_ulp, (double)f_of(sum.worst), sum.flushed, sum.bad);
    if (sum.bad) {
        const float xb = f_of(sum.first_bad);
        float yb;
        jobs[0].md->exp(1, &xb, &yb);
        printf("first failure: exp(%a) = %a, exact %.17g\n", xb, yb, exp((double)xb));
        return 1;
    }
    return 0;
}
