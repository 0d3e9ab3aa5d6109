/* Internal: the exp / softmax family (owner: issue 4). The row primitives below are also what the
 * attention family builds its online softmax from. */
#ifndef SK_VMATH_H
#define SK_VMATH_H

#include "simdkern.h"

typedef struct sk_math_dsp {
    /* y = exp(x), full range, <= 1 ulp where the result is normal. */
    void (*exp)(size_t n, const float *x, float *y);
    /* max of x[0..n): NaN if any element is NaN; -INFINITY when n == 0 or all are -inf. */
    float (*max)(size_t n, const float *x);
    /* y = exp(x - bias) for inputs with x - bias <= 0 (the softmax exp: no overflow path; -inf -> 0);
       returns the sum of y. y may equal x. */
    float (*expsum)(size_t n, const float *x, float bias, float *y);
    /* Row kernels, arguments already validated, sizes nonzero. */
    void (*softmax)(size_t rows, size_t cols, const float *x, size_t ldx, float *y, size_t ldy);
    void (*scale_mask_softmax)(size_t rows, size_t cols, float scale, const float *x, size_t ldx,
                               const sk_mask *mask, float *y, size_t ldy);
} sk_math_dsp;

void sk_math_dsp_init(sk_math_dsp *d, sk_isa isa);

#endif
