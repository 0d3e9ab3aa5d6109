/* The aarch64 kernels of the exp / softmax family and their init (called by sk_math_dsp_init
 * after the portable kernels). */
#ifndef SK_ARM_MATH_H
#define SK_ARM_MATH_H

#include "vmath.h"

sk_math_exp_fn sk_exp_neon;
sk_math_max_fn sk_max_neon;
sk_math_expsum_fn sk_expsum_neon;
sk_math_scale_mask_max_fn sk_scale_mask_max_neon;
sk_math_softmax_fn sk_softmax_neon;
sk_math_scale_mask_softmax_fn sk_scale_mask_softmax_neon;

static inline void sk_math_dsp_init_arm(sk_math_dsp *d, sk_isa isa)
{
    if (isa != SK_ISA_NEON) return;
    d->exp = sk_exp_neon;
    d->max = sk_max_neon;
    d->expsum = sk_expsum_neon;
    d->scale_mask_max = sk_scale_mask_max_neon;
    d->softmax = sk_softmax_neon;
    d->scale_mask_softmax = sk_scale_mask_softmax_neon;
}

#endif
