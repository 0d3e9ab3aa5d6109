/* The aarch64 kernels of the attention family and their init (called by sk_attn_dsp_init after
 * the portable kernels). */
#ifndef SK_ARM_ATTENTION_H
#define SK_ARM_ATTENTION_H

#include "attn.h"

sk_attn_pack_q_fn sk_attn_pack_q_neon;
sk_attn_score_fn sk_attn_score_neon;
sk_attn_online_fn sk_attn_online_neon;
sk_attn_pv_fn sk_attn_pv_neon;
sk_attn_dec_score_fn sk_attn_dec_score_neon;
sk_attn_dec_pv_fn sk_attn_dec_pv_neon;

static inline void sk_attn_dsp_init_arm(sk_attn_dsp *d, sk_isa isa)
{
    if (isa != SK_ISA_NEON) return;
    d->pack_q = sk_attn_pack_q_neon;
    d->score = sk_attn_score_neon;
    d->online = sk_attn_online_neon;
    d->pv = sk_attn_pv_neon;
    d->dec_score = sk_attn_dec_score_neon;
    d->dec_pv = sk_attn_dec_pv_neon;
    d->dec_hg = 4;
    d->dmax = SK_ATTN_DMAX;
}

#endif
