/* The x86 kernels of the attention family and their init. sk_attn_dsp_init fills the table with
 * the portable kernels, then calls sk_attn_dsp_init_x86, which upgrades the slots tier by tier and
 * returns at the first tier above the ISA asked for. */
#ifndef SK_X86_ATTENTION_H
#define SK_X86_ATTENTION_H

#include <xmmintrin.h>
#include "attn.h"
#include "x86/cpu.h"

/* The decoder step's row walk (dec_score, dec_pv) reads K and V row after row, each row a few KiB
   (a 4 KiB page at d_model 1024), with some work per row, so the core's out-of-order window runs
   only about a row ahead and the hardware prefetchers, which stop at each 4 KiB page, start every
   page late. The kernels touch the first SK_DEC_PF_LINES lines of the row SK_DEC_PF_ROWS rows
   ahead (within the block), which starts the page's stream early. AMD Zen 5, the step of a
   1024-wide 16-head layer over 4096 positions from DRAM, one thread: 1.14x (2 rows ahead, 2 or 4
   lines), 1 row ahead 1.08x, 4 rows 1.10x, 1 line 1.10x, 8 lines 1.02x, every line of the row
   0.90-0.93x (docs/bench/attention-tuning.md). */
#define SK_DEC_PF_ROWS 2
#define SK_DEC_PF_LINES 4
/* A macro: GCC 12 takes a static inline function made of prefetches alone for one without side
   effects and drops its calls (-O2, tree DCE). */
#define SK_DEC_PREFETCH_ROW(row)                                                                   \
    do {                                                                                           \
        for (int pf_i = 0; pf_i < SK_DEC_PF_LINES; pf_i++)                                         \
            _mm_prefetch((const char *)((row) + 16 * pf_i), _MM_HINT_T0);                          \
    } while (0)

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
