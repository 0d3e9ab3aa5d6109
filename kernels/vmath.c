/* exp / softmax: argument checks and the table init. (Stub: issue 4 fills it in.) */
#include <math.h>
#include "dsp.h"
#include "common.h"

static void exp_libm(size_t n, const float *x, float *y)
{
    for (size_t i = 0; i < n; i++) y[i] = expf(x[i]);
}

void sk_math_dsp_init(sk_math_dsp *d, sk_isa isa)
{
    (void)isa;
    d->exp = exp_libm;
    d->max = NULL;
    d->expsum = NULL;
    d->softmax = NULL;
    d->scale_mask_softmax = NULL;
}

sk_status sk_exp(size_t n, const float *x, float *y)
{
    if (n && (!x || !y)) return SK_EINVAL;
    if (n) sk_dsp_get()->math.exp(n, x, y);
    return SK_OK;
}

sk_status sk_softmax(size_t rows, size_t cols, const float *x, size_t ldx, float *y, size_t ldy)
{
    (void)rows; (void)cols; (void)x; (void)ldx; (void)y; (void)ldy;
    return SK_EUNSUPPORTED;
}

sk_status sk_scale_mask_softmax(size_t rows, size_t cols, float scale, const float *x, size_t ldx,
                                const sk_mask *mask, float *y, size_t ldy)
{
    (void)rows; (void)cols; (void)scale; (void)x; (void)ldx; (void)mask; (void)y; (void)ldy;
    return SK_EUNSUPPORTED;
}
