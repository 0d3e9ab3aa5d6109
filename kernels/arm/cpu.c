/* CPU feature detection, aarch64 (run once from the dispatch init): Advanced SIMD is baseline;
 * Linux's AT_HWCAP / AT_HWCAP2 are read for later extensions. Baseline flags. */
#include "../cpu.h" /* the detection interface */

#if SK_ARCH_AARCH64
#if defined(__linux__)
#include <sys/auxv.h>
#endif
/* Linux arm64 hwcap bits (arch/arm64/include/uapi/asm/hwcap.h) */
#define HWCAP_BIT_ASIMD    (1ul << 1)
#define HWCAP_BIT_ASIMDHP  (1ul << 10)
#define HWCAP_BIT_ASIMDDP  (1ul << 20)
#define HWCAP_BIT_SVE      (1ul << 22)
#define HWCAP2_BIT_SVE2    (1ul << 1)
#define HWCAP2_BIT_I8MM    (1ul << 13)
#define HWCAP2_BIT_BF16    (1ul << 14)

unsigned sk_cpu_detect(uint64_t *features)
{
    unsigned mask = 1u << SK_ISA_SCALAR;
    uint64_t f = SK_CPU_ARM_ASIMD; /* Advanced SIMD is part of the AArch64 baseline */
#if defined(__linux__) && defined(AT_HWCAP)
    const unsigned long hw = getauxval(AT_HWCAP);
#if defined(AT_HWCAP2)
    const unsigned long hw2 = getauxval(AT_HWCAP2);
#else
    const unsigned long hw2 = 0;
#endif
    if (hw) { /* 0: no auxv entry; keep the baseline assumption */
        if (!(hw & HWCAP_BIT_ASIMD)) f &= ~SK_CPU_ARM_ASIMD;
        if (hw & HWCAP_BIT_ASIMDHP) f |= SK_CPU_ARM_ASIMDHP;
        if (hw & HWCAP_BIT_ASIMDDP) f |= SK_CPU_ARM_ASIMDDP;
        if (hw & HWCAP_BIT_SVE) f |= SK_CPU_ARM_SVE;
        if (hw2 & HWCAP2_BIT_SVE2) f |= SK_CPU_ARM_SVE2;
        if (hw2 & HWCAP2_BIT_I8MM) f |= SK_CPU_ARM_I8MM;
        if (hw2 & HWCAP2_BIT_BF16) f |= SK_CPU_ARM_BF16;
    }
#endif
    if (SK_HAVE_NEON && (f & SK_CPU_ARM_ASIMD)) mask |= 1u << SK_ISA_NEON;
    if (features) *features = f;
    return mask;
}

#endif
