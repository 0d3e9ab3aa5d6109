/* The FMA peak of an x86 core at one vector width, shared by sk_bench (peak-avx2, peak-avx512) and
 * the PyTorch peer (bench/torch_peer.c): 12 independent chains c = c * x + y (more than the
 * latency x throughput product of any x86 core), `iters` steps of each, 2 * 12 * lanes flops per
 * step. The chains converge to y / (1 - x) for 0 < x < 1: no overflow, no subnormals. C and C++. */
#ifndef SKB_FMA_PEAK_H
#define SKB_FMA_PEAK_H
#if defined(__x86_64__)
#include <stddef.h>
#include <immintrin.h>

#define SKB_FMA_CHAINS(NAME, TARGET, VEC, SET1, FMADD, ADD, FIRST)                                 \
    __attribute__((target(TARGET))) static inline float NAME(size_t iters, float x0, float y0)     \
    {                                                                                              \
        const VEC x = SET1(x0), y = SET1(y0);                                                      \
        VEC c[12];                                                                                 \
        for (int i = 0; i < 12; i++) c[i] = SET1((float)i);                                        \
        for (size_t it = 0; it < iters; it++)                                                      \
            _Pragma("GCC unroll 12") for (int i = 0; i < 12; i++) c[i] = FMADD(c[i], x, y);        \
        VEC s = c[0];                                                                              \
        for (int i = 1; i < 12; i++) s = ADD(s, c[i]);                                             \
        return FIRST(s);                                                                           \
    }
SKB_FMA_CHAINS(skb_fma_chains_avx2, "avx2,fma", __m256, _mm256_set1_ps, _mm256_fmadd_ps,
               _mm256_add_ps, _mm256_cvtss_f32)
SKB_FMA_CHAINS(skb_fma_chains_avx512, "avx512f", __m512, _mm512_set1_ps, _mm512_fmadd_ps,
               _mm512_add_ps, _mm512_cvtss_f32)
#undef SKB_FMA_CHAINS
#endif
#endif
