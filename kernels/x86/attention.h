/* The x86 kernels of the attention family and their init. sk_attn_dsp_init fills the table with
 * the portable kernels, then calls sk_attn_dsp_init_x86, which upgrades the slots tier by tier and
 * returns at the first tier above the ISA asked for. */
#ifndef SK_X86_ATTENTION_H
#define SK_X86_ATTENTION_H

#include "attn.h"
#include "x86/cpu.h"

sk_attn_pack_q_fn sk_attn_pack_q_avx2;
sk_attn_score_fn sk_attn_score_avx2;
sk_attn_online_fn sk_attn_online_avx2;
sk_attn_pv_fn sk_attn_pv_avx2;
sk_attn_dec_score_fn sk_attn_dec_score_avx2;
sk_attn_dec_pv_fn sk_attn_dec_pv_avx2;

sk_attn_pack_q_fn sk_attn_pack_q_avx512;
sk_attn_score_fn sk_attn_score_avx512;
sk_attn_online_fn sk_attn_online_avx512;
sk_attn_pv_fn sk_attn_pv_avx512;
sk_attn_dec_score_fn sk_attn_dec_score_avx512;
sk_attn_dec_pv_fn sk_attn_dec_pv_avx512;

static inline void sk_attn_dsp_init_x86(sk_attn_dsp *d, sk_isa isa)
{
    if (!sk_x86_tier(isa, SK_ISA_AVX2)) return;
    d->pack_q = sk_attn_pack_q_avx2;
    d->score = sk_attn_score_avx2;
    d->online = sk_attn_online_avx2;
    d->pv = sk_attn_pv_avx2;
    d->dec_score = sk_attn_dec_score_avx2;
    d->dec_pv = sk_attn_dec_pv_avx2;
    d->dec_hg = 8;
    d->dmax = SK_ATTN_DMAX;

    if (!sk_x86_tier(isa, SK_ISA_AVX512)) return;
    d->pack_q = sk_attn_pack_q_avx512;
    d->score = sk_attn_score_avx512;
    d->online = sk_attn_online_avx512;
    d->pv = sk_attn_pv_avx512;
    d->dec_score = sk_attn_dec_score_avx512;
    d->dec_pv = sk_attn_dec_pv_avx512;
    d->dec_hg = 16;
}

#endif
