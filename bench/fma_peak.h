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

/* Steps of the chains at `lanes` floats a vector (8: AVX2, 16: AVX-512) that do `flops` flops
   (rounded up). */
static inline size_t skb_fma_steps(double flops, int lanes)
{
    const double steps = flops / (2.0 * 12 * lanes);
    const size_t s = (size_t)steps;
    return (double)s < steps ? s + 1 : s;
}

/* `steps` steps of the chains at `lanes` floats a vector (16: AVX-512, else AVX2). */
static inline float skb_fma_chains(int lanes, size_t steps, float x, float y)
{
    return lanes == 16 ? skb_fma_chains_avx512(steps, x, y) : skb_fma_chains_avx2(steps, x, y);
}
#endif
#endif
