/* CPU feature detection: the x86-64 part is kernels/x86/cpu.c, the aarch64 part kernels/arm/cpu.c;
 * other targets run the portable path only. */
#include "cpu.h"

#if !SK_ARCH_X86_64 && !SK_ARCH_AARCH64
unsigned sk_cpu_detect(uint64_t *features)
{
    if (features) *features = 0;
    return 1u << SK_ISA_SCALAR;
}

#endif

unsigned sk_cpu_isa_mask(void)
{
    return sk_cpu_detect(NULL);
}
