/* x86-64: the ISA tiers and their detection (kernels/x86/cpu.c). */
#ifndef SK_X86_CPU_H
#define SK_X86_CPU_H

#include "simdkern.h"

/* 1 when isa is an x86 tier at or above tier (the x86 tiers are ordered: AVX2 < AVX-512). */
static inline int sk_x86_tier(sk_isa isa, sk_isa tier)
{
    return isa >= tier && isa <= SK_ISA_AVX512;
}

#endif
