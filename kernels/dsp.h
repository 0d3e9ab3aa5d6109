/* Internal: the dispatch table. One struct of function pointers per kernel family, filled once per
 * ISA (scalar first, then upgraded tier by tier), and one active table chosen at first use. */
#ifndef SK_DSP_H
#define SK_DSP_H

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

/* The active table (lazy, thread-safe init; never NULL). */
const sk_dsp *sk_dsp_get(void);
/* The active table and its ISA, read together (a concurrent sk_isa_select cannot pair one path's
   table with another's name). */
const sk_dsp *sk_dsp_get_isa(sk_isa *isa);
/* The table of one ISA, or NULL when that ISA is not available. For tests and benchmarks. */
const sk_dsp *sk_dsp_for(sk_isa isa);

#endif
