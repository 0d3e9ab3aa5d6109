// A plain read of n floats, summed into 64 independent lanes so that only the loads limit it: the
// bound of the memory-bound cases (the decoder step, the m = 1 GEMM). The loop is compiled for the
// widest vectors the CPU runs (target attributes, chosen once at run time), as the library's own
// kernels are: a baseline (SSE2) loop would make a weak bound.
#include "bench_util.h"

namespace
{

// V: a vector of L floats, the target's register width (a wider type would be split by the
// compiler into stack traffic: the AVX2 loop ran at a quarter of the load bandwidth that way).
typedef float v16f __attribute__((vector_size(64), aligned(4)));
typedef float v8f __attribute__((vector_size(32), aligned(4)));
typedef float v4f __attribute__((vector_size(16), aligned(4)));

#define SKB_READ_BODY(V, L)                                                                      \
    V s[64 / L] = {};                                                                            \
    size_t i = 0;                                                                                \
    for (; i + 64 <= n; i += 64) {                                                               \
        _Pragma("GCC unroll 16") for (int j = 0; j < 64 / L; j++)                                \
            s[j] += *(const V *)(p + i + j * L);                                                 \
    }                                                                                            \
    _Pragma("GCC unroll 16") for (int j = 1; j < 64 / L; j++) s[0] += s[j];                      \
    float r = 0;                                                                                 \
    for (int l = 0; l < L; l++) r += s[0][l];                                                    \
    for (; i < n; i++) r += p[i];                                                                \
    return r;

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx512f"))) float read_sum_avx512(const float *p, size_t n)
{
    SKB_READ_BODY(v16f, 16)
}
__attribute__((target("avx2"))) float read_loop_avx2(const float *p, size_t n)
{
    SKB_READ_BODY(v8f, 8)
}
#endif
float read_sum_base(const float *p, size_t n)
{
    SKB_READ_BODY(v4f, 4)
}

} // namespace

#if defined(__x86_64__) && defined(__GNUC__)
float skb::read_sum_avx2(const float *p, size_t n) { return read_loop_avx2(p, n); }
#endif

float skb::read_sum(const float *p, size_t n)
{
#if defined(__x86_64__) && defined(__GNUC__)
    static float (*const fn)(const float *, size_t) = __builtin_cpu_supports("avx512f")
        ? read_sum_avx512
        : __builtin_cpu_supports("avx2") ? read_loop_avx2 : read_sum_base;
    return fn(p, n);
#else
    return read_sum_base(p, n);
#endif
}

