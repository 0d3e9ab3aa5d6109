/* The x86 kernels of the exp / softmax family and their init. sk_math_dsp_init fills the table
 * with the portable kernels, then calls sk_math_dsp_init_x86, which upgrades the slots tier by tier
 * and returns at the first tier above the ISA asked for. */
#ifndef SK_X86_MATH_H
#define SK_X86_MATH_H

#include "vmath.h"
#include "x86/cpu.h"

sk_math_exp_fn sk_exp_avx2;
sk_math_max_fn sk_max_avx2;
sk_math_expsum_fn sk_expsum_avx2;
sk_math_scale_mask_max_fn sk_scale_mask_max_avx2;
sk_math_softmax_fn sk_softmax_avx2;
sk_math_scale_mask_softmax_fn sk_scale_mask_softmax_avx2;

sk_math_exp_fn sk_exp_avx512;
sk_math_max_fn sk_max_avx512;
sk_math_expsum_fn sk_expsum_avx512;
sk_math_scale_mask_max_fn sk_scale_mask_max_avx512;
sk_math_softmax_fn sk_softmax_avx512;
sk_math_scale_mask_softmax_fn sk_scale_mask_softmax_avx512;

static inline void sk_math_dsp_init_x86(sk_math_dsp *d, sk_isa isa)
{
    if (!sk_x86_tier(isa, SK_ISA_AVX2)) return;
    d->exp = sk_exp_avx2;
    d->max = sk_max_avx2;
    d->expsum = sk_expsum_avx2;
    d->scale_mask_max = sk_scale_mask_max_avx2;
    d->softmax = sk_softmax_avx2;
    d->scale_mask_softmax = sk_scale_mask_softmax_avx2;

    if (!sk_x86_tier(isa, SK_ISA_AVX512)) return;
    d->exp = sk_exp_avx512;
    d->max = sk_max_avx512;
    d->expsum = sk_expsum_avx512;
    d->scale_mask_max = sk_scale_mask_max_avx512;
    d->softmax = sk_softmax_avx512;
    d->scale_mask_softmax = sk_scale_mask_softmax_avx512;
}

#endif
