/* CPU feature detection, x86-64 (run once from the dispatch init): CPUID leaves 0 and 1 (vendor,
 * family and model: the microarchitecture classes tables tune for), leaf 1 and leaf 7 (only
 * when the maximum basic leaf reaches 7), plus OSXSAVE and XCR0 (XGETBV) so that a tier is claimed
 * only when the OS saves and restores its register state. Baseline flags. */
#include "../cpu.h" /* the detection interface (x86/cpu.h is the tier helper) */

#if SK_ARCH_X86_64
#include <cpuid.h>

/* XCR0 via XGETBV(ECX = 0); only valid when CPUID.1:ECX.OSXSAVE is set. Inline asm, so the
   baseline build needs no -mxsave. */
static uint64_t xgetbv0(void)
{
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}

#define XCR0_YMM  0x06u  /* bit 1 SSE (XMM) | bit 2 AVX (upper YMM) */
#define XCR0_ZMM  0xe0u  /* bit 5 opmask | bit 6 ZMM_Hi256 | bit 7 Hi16_ZMM */

unsigned sk_cpu_detect(uint64_t *features)
{
    unsigned mask = 1u << SK_ISA_SCALAR;
    uint64_t f = 0;
    unsigned a, b, c, d;
    const unsigned max_leaf = __get_cpuid_max(0, NULL);
    if (max_leaf >= 1) {
        unsigned vb, vc, vd;
        __cpuid(0, a, vb, vc, vd);
        /* "AuthenticAMD" in EBX, EDX, ECX */
        const int amd = vb == 0x68747541u && vd == 0x69746e65u && vc == 0x444d4163u;
        /* "GenuineIntel" */
        const int intel = vb == 0x756e6547u && vd == 0x49656e69u && vc == 0x6c65746eu;
        __cpuid(1, a, b, c, d);
        const unsigned fam = ((a >> 8) & 0xf) + ((a >> 8 & 0xf) == 0xf ? (a >> 20) & 0xff : 0);
        const unsigned model = ((a >> 4) & 0xf) | ((a >> 12) & 0xf0);
        if (amd && fam == 0x17 && model < 0x30) f |= SK_CPU_X86_ZEN1;
        if (amd && fam == 0x1a) f |= SK_CPU_X86_ZEN5;
        if (intel && fam == 6 && (model == 0x8f || model == 0xcf)) f |= SK_CPU_X86_SPR;
        const int osxsave = (c >> 27) & 1; /* CPUID.1:ECX.OSXSAVE: XGETBV usable */
        const int avx = (c >> 28) & 1;     /* CPUID.1:ECX.AVX */
        const int fma = (c >> 12) & 1;     /* CPUID.1:ECX.FMA */
        const uint64_t xcr0 = osxsave ? xgetbv0() : 0;
        const int ymm_os = avx && (xcr0 & XCR0_YMM) == XCR0_YMM;
        const int zmm_os = ymm_os && (xcr0 & XCR0_ZMM) == XCR0_ZMM;
        if (ymm_os && fma) f |= SK_CPU_X86_FMA;
        if (ymm_os && max_leaf >= 7) {
            unsigned max_sub;
            __cpuid_count(7, 0, max_sub, b, c, d);
            if ((b >> 5) & 1) f |= SK_CPU_X86_AVX2;
            if (zmm_os) {
                if ((b >> 16) & 1) f |= SK_CPU_X86_AVX512F;
                if ((b >> 17) & 1) f |= SK_CPU_X86_AVX512DQ;
                if ((b >> 30) & 1) f |= SK_CPU_X86_AVX512BW;
                if ((b >> 31) & 1) f |= SK_CPU_X86_AVX512VL;
                if ((c >> 11) & 1) f |= SK_CPU_X86_AVX512VNNI;
                if ((d >> 23) & 1) f |= SK_CPU_X86_AVX512FP16;
            }
            if (max_sub >= 1) {
                __cpuid_count(7, 1, a, b, c, d);
                if ((a >> 4) & 1) f |= SK_CPU_X86_AVXVNNI;
                if (zmm_os && ((a >> 5) & 1)) f |= SK_CPU_X86_AVX512BF16;
            }
        }
    }
    const uint64_t tier2 = SK_CPU_X86_AVX2 | SK_CPU_X86_FMA;
    const uint64_t tier512 = tier2 | SK_CPU_X86_AVX512F | SK_CPU_X86_AVX512DQ |
                             SK_CPU_X86_AVX512BW | SK_CPU_X86_AVX512VL;
    if (SK_HAVE_AVX2 && (f & tier2) == tier2) mask |= 1u << SK_ISA_AVX2;
    if (SK_HAVE_AVX512 && (f & tier512) == tier512) mask |= 1u << SK_ISA_AVX512;
    if (features) *features = f;
    return mask;
}

#endif
