/* exp / softmax: the table init and the run functions on the caller's pool (the public entry
 * points and their argument checks are in lib.c). The cores live in kernels/scalar, kernels/x86
 * and kernels/arm, one file per kernel and ISA. */
#include "config.h"
#include "vmath.h"
#include "common.h"
#include "pool.h"
#if SK_HAVE_AVX2
#include "x86/math.h"
#elif SK_HAVE_NEON
#include "arm/math.h"
#endif

void sk_math_dsp_init(sk_math_dsp *d, sk_isa isa)
{
    d->exp = sk_exp_scalar;
    d->max = sk_max_scalar;
    d->expsum = sk_expsum_scalar;
    d->scale_mask_max = sk_scale_mask_max_scalar;
    d->softmax = sk_softmax_scalar;
    d->scale_mask_softmax = sk_scale_mask_softmax_scalar;
#if SK_HAVE_AVX2
    sk_math_dsp_init_x86(d, isa);
#elif SK_HAVE_NEON
    sk_math_dsp_init_arm(d, isa);
#endif
    (void)isa;
}

/* --- the caller's thread pool --------------------------------------------------------------------
 * exp: contiguous ranges at multiples of EXP_UNIT elements (a multiple of every kernel's step, so
 * each element goes through the kernel code it would in one call: the tail stays in the last
 * range). Softmax: rows at multiples of ROW_UNIT (the row-block driver's block), each row computed
 * alone as in one call. */
#define EXP_UNIT 1024
#define ROW_UNIT 8
/* per task: about 25 us of softmax on AVX2 on Zen 1 (64 x 512: 1.86x on 2 threads, 1.00x at
   65536 per task) */
#define TP_MIN_ELEMS 16384.0

typedef struct math_job {
    const sk_math_dsp *d;
    size_t n, parts;              /* exp: elements; softmax: rows */
    size_t cols;
    float scale;
    const float *x;
    float *y;
    size_t ldx, ldy;
    const sk_mask *mask;
    int smx;                      /* scale_mask_softmax (else softmax) */
} math_job;

static void exp_task(void *arg, size_t t)
{
    const math_job *j = arg;
    const size_t units = j->n / EXP_UNIT;
    const size_t i0 = sk_part_bound(units, j->parts, t) * EXP_UNIT;
    const size_t i1 = t + 1 == j->parts ? j->n : sk_part_bound(units, j->parts, t + 1) * EXP_UNIT;
    j->d->exp(i1 - i0, j->x + i0, j->y + i0);
}

static void smx_task(void *arg, size_t t)
{
    const math_job *j = arg;
    const size_t units = j->n / ROW_UNIT;
    const size_t r0 = sk_part_bound(units, j->parts, t) * ROW_UNIT;
    const size_t r1 = t + 1 == j->parts ? j->n : sk_part_bound(units, j->parts, t + 1) * ROW_UNIT;
    sk_mask tmp;
    const sk_mask *m = sk_mask_sub(j->mask, r0, 0, &tmp);
    if (j->smx)
        j->d->scale_mask_softmax(r1 - r0, j->cols, j->scale, j->x + r0 * j->ldx, j->ldx, m,
                                 j->y + r0 * j->ldy, j->ldy);
    else
        j->d->softmax(r1 - r0, j->cols, j->x + r0 * j->ldx, j->ldx, j->y + r0 * j->ldy, j->ldy);
}

/* Parts of `units` units for `elems` elements of work on tp (1: one call on this thread). */
static size_t math_parts(const sk_threadpool *tp, size_t units, double elems)
{
    const size_t p = sk_tp_tasks(tp, elems, TP_MIN_ELEMS);
    return p < units ? p : (units ? units : 1);
}

void sk_exp_run_tp(const sk_threadpool *tp, const sk_math_dsp *d, size_t n, const float *x,
                   float *y)
{
    math_job j = { .d = d, .n = n, .x = x, .y = y };
    j.parts = math_parts(tp, n / EXP_UNIT, (double)n);
    if (j.parts == 1) d->exp(n, x, y);
    else sk_tp_run(tp, j.parts, exp_task, &j);
}

/* smx: scale_mask_softmax, else softmax (arguments checked, sizes nonzero). */
static void softmax_run(const sk_threadpool *tp, const sk_math_dsp *d, int smx, size_t rows,
                        size_t cols, float scale, const float *x, size_t ldx, const sk_mask *mask,
                        float *y, size_t ldy)
{
    math_job j = { .d = d, .n = rows, .cols = cols, .scale = scale, .x = x, .y = y, .ldx = ldx,
                   .ldy = ldy, .mask = mask, .smx = smx };
    j.parts = math_parts(tp, rows / ROW_UNIT, (double)rows * (double)cols);
    if (j.parts > 1) sk_tp_run(tp, j.parts, smx_task, &j);
    else smx_task(&j, 0);
}

void sk_softmax_run_tp(const sk_threadpool *tp, const sk_math_dsp *d, size_t rows, size_t cols,
                       const float *x, size_t ldx, float *y, size_t ldy)
{
    softmax_run(tp, d, 0, rows, cols, 1.f, x, ldx, NULL, y, ldy);
}

void sk_scale_mask_softmax_run_tp(const sk_threadpool *tp, const sk_math_dsp *d, size_t rows,
                                  size_t cols, float scale, const float *x, size_t ldx,
                                  const sk_mask *mask, float *y, size_t ldy)
{
    softmax_run(tp, d, 1, rows, cols, scale, x, ldx, mask, y, ldy);
}
