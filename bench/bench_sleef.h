// The SLEEF-based peers a user would write otherwise, shared by the benchmark families: exp over an
// array and the 3-pass row softmax (max; exp(x - max) + sum; scale) on SLEEF's u10 exp.
#pragma once

#ifdef SK_BENCH_HAVE_SLEEF
#include <cstddef>

#include <immintrin.h>
#include <sleef.h>

// sleef.h declares its AVX2 / AVX-512 entry points only when the including file is compiled with
// those ISAs; the benchmarks are baseline, so declare the two used here with matching targets.
extern "C" {
__attribute__((target("avx2,fma"))) __m256 Sleef_expf8_u10avx2(__m256);
__attribute__((target("avx512f"))) __m512 Sleef_expf16_u10avx512f(__m512);
}

// GCC 12's AVX-512 intrinsics pass _mm512_undefined_ps() through and warn about it in C++.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#define T_AVX2 __attribute__((target("avx2,fma")))
#define T_AVX512 __attribute__((target("avx512f,avx512vl,avx2,fma")))

inline T_AVX2 void sleef_exp_avx2(size_t n, const float *x, float *y)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, Sleef_expf8_u10avx2(_mm256_loadu_ps(x + i)));
    for (; i < n; i++) y[i] = Sleef_expf_u10(x[i]);
}

inline T_AVX512 void sleef_exp_avx512(size_t n, const float *x, float *y)
{
    size_t i = 0;
    for (; i + 16 <= n; i += 16)
        _mm512_storeu_ps(y + i, Sleef_expf16_u10avx512f(_mm512_loadu_ps(x + i)));
    for (; i < n; i++) y[i] = Sleef_expf_u10(x[i]);
}

// The 3-pass softmax a user would write around SLEEF: max, exp + sum, scale.
inline T_AVX2 void sleef_softmax_row_avx2(size_t n, const float *x, float *y)
{
    __m256 vm = _mm256_set1_ps(-INFINITY);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) vm = _mm256_max_ps(vm, _mm256_loadu_ps(x + i));
    float tmp[8], m = -INFINITY;
    _mm256_storeu_ps(tmp, vm);
    for (float t : tmp) m = t > m ? t : m;
    for (; i < n; i++) m = x[i] > m ? x[i] : m;
    const __m256 negm = _mm256_set1_ps(-m);
    __m256 vs = _mm256_setzero_ps();
    for (i = 0; i + 8 <= n; i += 8) {
        const __m256 e = Sleef_expf8_u10avx2(_mm256_add_ps(_mm256_loadu_ps(x + i), negm));
        _mm256_storeu_ps(y + i, e);
        vs = _mm256_add_ps(vs, e);
    }
    _mm256_storeu_ps(tmp, vs);
    float s = 0;
    for (float t : tmp) s += t;
    for (; i < n; i++) s += (y[i] = Sleef_expf_u10(x[i] - m));
    const __m256 inv = _mm256_set1_ps(1.f / s);
    for (i = 0; i + 8 <= n; i += 8)
        _mm256_storeu_ps(y + i, _mm256_mul_ps(_mm256_loadu_ps(y + i), inv));
    for (; i < n; i++) y[i] *= 1.f / s;
}

inline T_AVX512 void sleef_softmax_row_avx512(size_t n, const float *x, float *y)
{
    __m512 vm = _mm512_set1_ps(-INFINITY);
    size_t i = 0;
    for (; i + 16 <= n; i += 16) vm = _mm512_max_ps(vm, _mm512_loadu_ps(x + i));
    float m = _mm512_reduce_max_ps(vm);
    for (; i < n; i++) m = x[i] > m ? x[i] : m;
    const __m512 negm = _mm512_set1_ps(-m);
    __m512 vs = _mm512_setzero_ps();
    for (i = 0; i + 16 <= n; i += 16) {
        const __m512 e = Sleef_expf16_u10avx512f(_mm512_add_ps(_mm512_loadu_ps(x + i), negm));
        _mm512_storeu_ps(y + i, e);
        vs = _mm512_add_ps(vs, e);
    }
    float s = _mm512_reduce_add_ps(vs);
    for (; i < n; i++) s += (y[i] = Sleef_expf_u10(x[i] - m));
    const __m512 inv = _mm512_set1_ps(1.f / s);
    for (i = 0; i + 16 <= n; i += 16)
        _mm512_storeu_ps(y + i, _mm512_mul_ps(_mm512_loadu_ps(y + i), inv));
    for (; i < n; i++) y[i] *= 1.f / s;
}

// The user's composition: scale loop, mask loop (masked -> -inf), then the SLEEF softmax (in
// place).
#endif
