/* exp / softmax: argument checks and the table init. The cores live in kernels/scalar, kernels/x86
 * and kernels/arm, one file per kernel and ISA. */
#include "dsp.h"
#include "common.h"

void sk_math_dsp_init(sk_math_dsp *d, sk_isa isa)
{
    d->exp = sk_exp_scalar;
    d->max = sk_max_scalar;
    d->expsum = sk_expsum_scalar;
    d->scale_mask_max = sk_scale_mask_max_scalar;
    d->softmax = sk_softmax_scalar;
    d->scale_mask_softmax = sk_scale_mask_softmax_scalar;
#if SK_HAVE_AVX2
    if (isa < SK_ISA_AVX2 || isa == SK_ISA_NEON) return;
    d->exp = sk_exp_avx2;
    d->max = sk_max_avx2;
    d->expsum = sk_expsum_avx2;
    d->scale_mask_max = sk_scale_mask_max_avx2;
    d->softmax = sk_softmax_avx2;
    d->scale_mask_softmax = sk_scale_mask_softmax_avx2;
#endif
#if SK_HAVE_AVX512
    if (isa < SK_ISA_AVX512 || isa == SK_ISA_NEON) return;
    d->exp = sk_exp_avx512;
    d->max = sk_max_avx512;
    d->expsum = sk_expsum_avx512;
    d->scale_mask_max = sk_scale_mask_max_avx512;
    d->softmax = sk_softmax_avx512;
    d->scale_mask_softmax = sk_scale_mask_softmax_avx512;
#endif
#if SK_HAVE_NEON
    if (isa != SK_ISA_NEON) return;
    d->exp = sk_exp_neon;
    d->max = sk_max_neon;
    d->expsum = sk_expsum_neon;
    d->scale_mask_max = sk_scale_mask_max_neon;
    d->softmax = sk_softmax_neon;
    d->scale_mask_softmax = sk_scale_mask_softmax_neon;
#endif
    (void)isa;
}

sk_status sk_exp(size_t n, const float *x, float *y)
{
    if (n && (!x || !y || n > SK_ELEMS_MAX)) return SK_EINVAL;
    if (n) sk_dsp_get()->math.exp(n, x, y);
    return SK_OK;
}

sk_status sk_softmax(size_t rows, size_t cols, const float *x, size_t ldx, float *y, size_t ldy)
{
    if (!sk_mat_ok(x, rows, cols, ldx) || !sk_mat_ok(y, rows, cols, ldy)) return SK_EINVAL;
    if (rows && cols)
        sk_dsp_get()->math.softmax(rows, cols, x, sk_ld1(rows, cols, ldx), y, sk_ld1(rows, cols, ldy));
    return SK_OK;
}

sk_status sk_scale_mask_softmax(size_t rows, size_t cols, float scale, const float *x, size_t ldx,
                                const sk_mask *mask, float *y, size_t ldy)
{
    if (!sk_mat_ok(x, rows, cols, ldx) || !sk_mat_ok(y, rows, cols, ldy)) return SK_EINVAL;
    if (sk_mask_check(mask, rows, cols) != SK_OK) return SK_EINVAL;
    if (rows && cols)
        sk_dsp_get()->math.scale_mask_softmax(rows, cols, scale, x, sk_ld1(rows, cols, ldx), mask, y,
                                              sk_ld1(rows, cols, ldy));
    return SK_OK;
}
