/* Internal: the exp / softmax family. The row primitives below are also what the attention
 * family builds its online softmax from.
 *
 * The vector exp cores, one per ISA and accuracy class, named by algorithm (rr2: two-step range
 * reduction; p5 / p6: polynomial degree; constants in exp_consts.h). Static inline: include only
 * from a file compiled with that ISA's flags.
 *   kernels/x86/exp_avx2.h    sk_exp_fast_avx2(__m256)         |x| <= 88 (sk_exp runs it under
 *                             FTZ + DAZ), sk_exp_slow_avx2 any x: <= 1 ulp where normal
 *                             sk_expneg_rr2_p5_avx2(__m256)    x <= 0, see below
 *   kernels/x86/exp_avx512.h  sk_exp_rr2_p6_avx512(__m512)     full range, <= 1 ulp where normal
 *                             sk_expneg_rr2_p5_avx512(__m512), sk_expneg_rr2_p5_maskz_avx512
 *   kernels/arm/exp_neon.h    sk_exp_rr2_p6_neon(float32x4_t), sk_expneg_rr2_p6_neon
 * The "expneg" class is the softmax and attention exp, for x <= ~0 (x - rowmax): no overflow path,
 * NaN -> NaN, -inf -> 0, results below FLT_MIN may flush to 0, relative error <= 4e-7 (on x86 the
 * degree-5 polynomial, one FMA shorter than the <= 1 ulp exp and ample for the 1e-5 bound of the
 * softmax; NEON keeps the degree-6 one). */
#ifndef SK_VMATH_H
#define SK_VMATH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "simdkern.h"
#include "mask.h"

/* One function type per slot; the kernels are declared with them (sk_math_exp_fn name;). */
typedef void sk_math_exp_fn(size_t n, const float *x, float *y);
typedef float sk_math_max_fn(size_t n, const float *x);
typedef float sk_math_expsum_fn(size_t n, const float *x, float bias, float *y);
typedef float sk_math_scale_mask_max_fn(size_t n, float scale, const float *x, const sk_mask *mask,
                                        size_t r, float *y);
typedef void sk_math_softmax_fn(size_t rows, size_t cols, const float *x, size_t ldx, float *y,
                                size_t ldy);
typedef void sk_math_scale_mask_softmax_fn(size_t rows, size_t cols, float scale, const float *x,
                                           size_t ldx, const sk_mask *mask, float *y, size_t ldy);

typedef struct sk_math_dsp {
    /* y = exp(x), full range, <= 1 ulp where the result is normal. y may equal x. */
    sk_math_exp_fn *exp;
    /* max of x[0..n): NaN if any element is NaN; -INFINITY when n == 0 or all are -inf. */
    sk_math_max_fn *max;
    /* y = exp(x - bias) for inputs with x - bias <= 0 (the softmax exp: no overflow path; -inf ->
       0, NaN -> NaN, relative error <= 4e-7; x - bias is rounded to float first); returns the sum
       of y (float lanes flushed into a double every 512-1024 terms: relative error ~1e-6 up to
       65536 terms). y may equal x. */
    sk_math_expsum_fn *expsum;
    /* The fused first sweep of a masked softmax row, for online softmax (attention): for c < n,
       y[c] = scale * x[c] (+ the ADD value) where row r of mask attends column c, else -INFINITY;
       returns the max of y, NaN if an attended y is NaN (so NaN under the mask does not leak).
       mask may be NULL; row r and columns [0, n) are in the mask's coordinates (offset them with
       sk_mask_sub). ADD: -inf entries count as masked. y may equal x. Then expsum(n, y, max, y). */
    sk_math_scale_mask_max_fn *scale_mask_max;
    /* Row kernels, arguments already validated, sizes nonzero. */
    sk_math_softmax_fn *softmax;
    sk_math_scale_mask_softmax_fn *scale_mask_softmax;
} sk_math_dsp;

/* The portable kernels, then the arch init (kernels/x86/math.h, kernels/arm/math.h). */
void sk_math_dsp_init(sk_math_dsp *d, sk_isa isa);

/* The portable kernels (kernels/scalar). */
double sk_exp_core_d(double x); /* exp for x in [-104, 89], double result (scalar reference core) */
float sk_exp1_scalar(float x);
void sk_exp_scalar(size_t n, const float *x, float *y);
float sk_max_scalar(size_t n, const float *x);
float sk_expsum_scalar(size_t n, const float *x, float bias, float *y);
float sk_scale_mask_max_scalar(size_t n, float scale, const float *x, const sk_mask *mask, size_t r,
                               float *y);
void sk_softmax_scalar(size_t rows, size_t cols, const float *x, size_t ldx, float *y, size_t ldy);
/* One row of the reference softmax: row r of mask (NULL: none), columns [0, cols). The vector paths
   hand it the rows whose max is not finite (NaN, +inf, or scores that overflow float). */
void sk_softmax_row_scalar(size_t cols, float scale, const float *x, const sk_mask *mask, size_t r,
                           float *y);
void sk_scale_mask_softmax_scalar(size_t rows, size_t cols, float scale, const float *x, size_t ldx,
                                  const sk_mask *mask, float *y, size_t ldy);


/* exp / softmax of table d on the caller's pool tp (arguments checked, sizes nonzero; exp in
   ranges of whole 1024-element units, rows at multiples of 8 per task: bitwise identical to one
   call). */
void sk_exp_run_tp(const sk_threadpool *tp, const sk_math_dsp *d, size_t n, const float *x,
                   float *y);
void sk_softmax_run_tp(const sk_threadpool *tp, const sk_math_dsp *d, size_t rows, size_t cols,
                       const float *x, size_t ldx, float *y, size_t ldy);
/* scale_mask_softmax of table d on the caller's pool tp (arguments checked, sizes nonzero; rows at
   multiples of 8 per task: bitwise identical to one call). */
void sk_scale_mask_softmax_run_tp(const sk_threadpool *tp, const sk_math_dsp *d, size_t rows,
                                  size_t cols, float scale, const float *x, size_t ldx,
                                  const sk_mask *mask, float *y, size_t ldy);

#endif
