/* CPU feature detection. x86: CPUID leaf 1 / leaf 7 plus OSXSAVE and XCR0 (XGETBV) so that a tier is
 * claimed only when the OS saves its register state. aarch64: Advanced SIMD is baseline. */
#include "dsp.h"

#if SK_ARCH_X86_64
#include <cpuid.h>

static uint64_t xgetbv0(void)
{
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}

unsigned sk_cpu_isa_mask(void)
{
    unsigned mask = 1u << SK_ISA_SCALAR;
    unsigned a, b, c, d, max_leaf = __get_cpuid_max(0, NULL);
    if (max_leaf < 7 || !__get_cpuid(1, &a, &b, &c, &d)) return mask;
    const int osxsave = (c >> 27) & 1; /* CPUID.1:ECX.OSXSAVE */
    const int fma = (c >> 12) & 1;     /* CPUID.1:ECX.FMA */
    const int avx = (c >> 28) & 1;     /* CPUID.1:ECX.AVX */
    if (!osxsave || !avx) return mask;
    const uint64_t xcr0 = xgetbv0();
    const int ymm_os = (xcr0 & 0x6) == 0x6;    /* XMM | YMM state */
    const int zmm_os = (xcr0 & 0xe0) == 0xe0;  /* opmask | ZMM_Hi256 | Hi16_ZMM state */
    __cpuid_count(7, 0, a, b, c, d);
    const int avx2 = (b >> 5) & 1;
    const int avx512f = (b >> 16) & 1, avx512dq = (b >> 17) & 1;
    const int avx512bw = (b >> 30) & 1, avx512vl = (b >> 31) & 1;
#if SK_HAVE_AVX2
    if (ymm_os && avx2 && fma) mask |= 1u << SK_ISA_AVX2;
#endif
#if SK_HAVE_AVX512
    if (ymm_os && zmm_os && avx2 && fma && avx512f && avx512dq && avx512bw && avx512vl)
        mask |= 1u << SK_ISA_AVX512;
#endif
    (void)ymm_os; (void)zmm_os; (void)avx2; (void)fma;
    (void)avx512f; (void)avx512dq; (void)avx512bw; (void)avx512vl;
    return mask;
}

#elif SK_ARCH_AARCH64

unsigned sk_cpu_isa_mask(void)
{
    unsigned mask = 1u << SK_ISA_SCALAR;
#if SK_HAVE_NEON
    mask |= 1u << SK_ISA_NEON; /* Advanced SIMD is part of the AArch64 baseline */
#endif
    return mask;
}

#else

unsigned sk_cpu_isa_mask(void)
{
    return 1u << SK_ISA_SCALAR;
}

#endif
