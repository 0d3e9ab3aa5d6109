/* Internal: the dispatch table. One struct of function pointers per kernel family, filled once per
 * ISA (scalar first, then upgraded tier by tier), and one active table chosen at first use. */
#ifndef SK_DSP_H
#define SK_DSP_H

#include <stdatomic.h>

#include "simdkern.h"
#include "config.h"
#include "gemm.h"
#include "vmath.h"
#include "attn.h"

typedef struct sk_dsp {
    sk_gemm_dsp gemm;
    sk_math_dsp math;
    sk_attn_dsp attn;
} sk_dsp;

/* The tables (dispatch.c): one per ISA, filled once; the index of the active one; 1 once both
   are set (release). Read through sk_dsp_get. */
extern sk_dsp sk_dsp_tables[SK_ISA_COUNT];
extern atomic_int sk_dsp_active, sk_dsp_ready;
/* sk_dsp_get on a first call: the tables filled (pthread_once), then the active one */
const sk_dsp *sk_dsp_get_first(void);

/* The active table (lazy, thread-safe init; never NULL). Inline: after the first call two acquire
   loads, where a call would make the caller keep its arguments across it. */
static inline const sk_dsp *sk_dsp_get(void)
{
    if (__builtin_expect(!atomic_load_explicit(&sk_dsp_ready, memory_order_acquire), 0))
        return sk_dsp_get_first();
    return &sk_dsp_tables[atomic_load_explicit(&sk_dsp_active, memory_order_acquire)];
}
/* The active table and its ISA, read together (a concurrent sk_isa_select cannot pair one path's
   table with another's name). */
const sk_dsp *sk_dsp_get_isa(sk_isa *isa);
/* The table of one ISA, or NULL when that ISA is not available. For tests and benchmarks. */
const sk_dsp *sk_dsp_for(sk_isa isa);

#endif
