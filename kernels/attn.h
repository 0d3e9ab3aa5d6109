/* Internal: the attention family (owner: issue 5). */
#ifndef SK_ATTN_H
#define SK_ATTN_H

#include "simdkern.h"

typedef struct sk_attn_dsp {
    int reserved;
} sk_attn_dsp;

void sk_attn_dsp_init(sk_attn_dsp *d, sk_isa isa);

#endif
