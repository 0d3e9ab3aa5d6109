/* Internal: CPU detection (the x86-64 part in kernels/x86/cpu.c, the aarch64 part in
 * kernels/arm/cpu.c, other targets in kernels/cpu.c) and the features it records. */
#ifndef SK_CPU_H
#define SK_CPU_H

#include <stdint.h>
#include "simdkern.h"
#include "config.h"

/* CPU detection: bit (1u << isa) set when isa is built in and usable on this CPU and OS. */
unsigned sk_cpu_isa_mask(void);
/* The same, also storing in *features the SK_CPU_* bits below (extensions beyond the ISA tiers,
   recorded for later kernels; only set when the OS enables their register state). */
unsigned sk_cpu_detect(uint64_t *features);
/* The features found at init (dispatch.c: lazy and thread-safe like sk_dsp_get). */
uint64_t sk_cpu_features(void);

/* x86-64: CPUID leaf 7 (subleaf 0 / 1). The tier bits are also recorded. */
#define SK_CPU_X86_AVX2        (1ull << 0)   /* leaf 7 EBX bit 5 (+ YMM state) */
#define SK_CPU_X86_FMA         (1ull << 1)   /* leaf 1 ECX bit 12 (+ YMM state) */
#define SK_CPU_X86_AVX512F     (1ull << 2)   /* leaf 7 EBX bit 16 (+ ZMM/opmask state) */
#define SK_CPU_X86_AVX512DQ    (1ull << 3)   /* leaf 7 EBX bit 17 */
#define SK_CPU_X86_AVX512BW    (1ull << 4)   /* leaf 7 EBX bit 30 */
#define SK_CPU_X86_AVX512VL    (1ull << 5)   /* leaf 7 EBX bit 31 */
#define SK_CPU_X86_AVX512VNNI  (1ull << 6)   /* leaf 7 ECX bit 11 */
#define SK_CPU_X86_AVX512BF16  (1ull << 7)   /* leaf 7 subleaf 1 EAX bit 5 */
#define SK_CPU_X86_AVX512FP16  (1ull << 8)   /* leaf 7 EDX bit 23 */
#define SK_CPU_X86_AVXVNNI     (1ull << 9)   /* leaf 7 subleaf 1 EAX bit 4 */
/* x86-64 microarchitecture classes that tables tune for (leaf 0 vendor, leaf 1 family / model). */
#define SK_CPU_X86_ZEN1        (1ull << 16)  /* AMD family 17h models 00h-2Fh: Zen, Zen+ */
#define SK_CPU_X86_ZEN5        (1ull << 17)  /* AMD family 1Ah: Zen 5 (two 512-bit FMA pipes) */
/* Intel family 6 models 8Fh, CFh: Sapphire and Emerald Rapids (two 512-bit FMA ports, L1d 48 KiB,
   L2 2 MiB) */
#define SK_CPU_X86_SPR         (1ull << 18)
/* aarch64 Linux: getauxval(AT_HWCAP / AT_HWCAP2). */
#define SK_CPU_ARM_ASIMD       (1ull << 32)  /* HWCAP_ASIMD: Advanced SIMD (NEON) */
#define SK_CPU_ARM_ASIMDHP     (1ull << 33)  /* HWCAP_ASIMDHP: fp16 arithmetic in Advanced SIMD */
#define SK_CPU_ARM_ASIMDDP     (1ull << 34)  /* HWCAP_ASIMDDP: SDOT/UDOT */
#define SK_CPU_ARM_SVE         (1ull << 35)  /* HWCAP_SVE */
#define SK_CPU_ARM_SVE2        (1ull << 36)  /* HWCAP2_SVE2 */
#define SK_CPU_ARM_I8MM        (1ull << 37)  /* HWCAP2_I8MM */
#define SK_CPU_ARM_BF16        (1ull << 38)  /* HWCAP2_BF16 */

#endif
