// Benchmarks: the attention family.
//
//   mha/<isa>/fused/HxNQxNKVxD                    sk_mha, weights NULL (the fused flash-style core)
//   mha/composition-simdkern/fused/HxNQxNKVxD     per head: sk_sgemm Q K^T, sk_scale_mask_softmax,
//                                                 sk_sgemm P V (best ISA)
//   mha/composition-openblas-sleef/fused/...      per head: cblas_sgemm Q K^T (alpha = scale),
//                                                 row softmax with SLEEF expf (AVX-512 or AVX2
//                                                 variant), cblas_sgemm P V
// (The variant names the operation, out = softmax(scale Q K^T) V without weights, so that
// bench/compare pairs the compositions with the fused call.) Shapes: heads x n_q x n_kv x d_head; heads side by side in each row (ld = heads * d_head), as a
// model lays them out. Counters: GFLOP/s over 4 n_q n_kv d per head; "scratch_B" = bytes of
// temporary memory the approach needs besides inputs and output (the fused core: its fixed stack
// frame; the compositions: the n_q x n_kv score matrix, reused across heads).
#include <cmath>
#include <vector>

#include "bench_util.h"
extern "C" {
#include "attn.h"
}

#ifdef SK_BENCH_HAVE_OPENBLAS
#include <cblas.h>
#endif
#ifdef SK_BENCH_HAVE_SLEEF
#include <immintrin.h>
// Declared here: sleef.h only declares the AVX-512 variants when the including file is compiled
// with -mavx512f, and this file is baseline.
extern "C" __m512 Sleef_expf16_u10avx512f(__m512);
extern "C" __m256 Sleef_expf8_u10avx2(__m256);
#endif

namespace {

struct Shape {
    size_t h, n_q, n_kv, d;
    std::string name() const
    {
        return std::to_string(h) + "x" + std::to_string(n_q) + "x" + std::to_string(n_kv) + "x" +
               std::to_string(d);
    }
    double flops() const { return 4.0 * (double)h * n_q * n_kv * d; }
};

struct Inputs {
    Shape s;
    size_t ld;
    skb::Buf q, k, v, o;
    explicit Inputs(const Shape &sh)
        : s(sh), ld(sh.h * sh.d), q(sh.n_q * sh.h * sh.d, -1.f, 1.f, 1), k(sh.n_kv * sh.h * sh.d, -1.f, 1.f, 2),
          v(sh.n_kv * sh.h * sh.d, -1.f, 1.f, 3), o(sh.n_q * sh.h * sh.d, 0.f, 1.f, 4)
    {
    }
};

void set_counters(benchmark::State &st, const Shape &s, double scratch)
{
    skb::set_rates(st, s.flops(), 0, 0);
    st.counters["scratch_B"] = scratch;
}

constexpr double kFusedScratch =
    sizeof(float) * ((double)SK_ATTN_BQ * SK_ATTN_DMAX + SK_ATTN_TILE + 3.0 * SK_ATTN_BQ);

void bm_fused(benchmark::State &st, sk_isa isa, Shape s)
{
    skb::IsaScope scope(isa);
    Inputs in(s);
    const float scale = 1.f / std::sqrt((float)s.d);
    for (auto _ : st) {
        sk_mha(s.h, s.n_q, s.n_kv, s.d, in.q.p, in.ld, in.k.p, in.ld, in.v.p, in.ld, scale, nullptr, in.o.p,
               in.ld, nullptr);
        benchmark::DoNotOptimize(in.o.p);
        benchmark::ClobberMemory();
    }
    set_counters(st, s, kFusedScratch);
}

void bm_comp_simdkern(benchmark::State &st, Shape s)
{
    Inputs in(s);
    std::vector<float> sc(s.n_q * s.n_kv);
    const float scale = 1.f / std::sqrt((float)s.d);
    for (auto _ : st) {
        for (size_t h = 0; h < s.h; h++) {
            const size_t c0 = h * s.d;
            sk_sgemm(SK_NOTRANS, SK_TRANS, s.n_q, s.n_kv, s.d, 1.f, in.q.p + c0, in.ld, in.k.p + c0, in.ld, 0.f,
                     sc.data(), s.n_kv);
            sk_scale_mask_softmax(s.n_q, s.n_kv, scale, sc.data(), s.n_kv, nullptr, sc.data(), s.n_kv);
            sk_sgemm(SK_NOTRANS, SK_NOTRANS, s.n_q, s.d, s.n_kv, 1.f, sc.data(), s.n_kv, in.v.p + c0, in.ld, 0.f,
                     in.o.p + c0, in.ld);
        }
        benchmark::DoNotOptimize(in.o.p);
        benchmark::ClobberMemory();
    }
    set_counters(st, s, sizeof(float) * (double)s.n_q * s.n_kv);
}

#if defined(SK_BENCH_HAVE_OPENBLAS) && defined(SK_BENCH_HAVE_SLEEF)
// g++ 12's AVX-512 intrinsics trip -Wmaybe-uninitialized (their _mm512_undefined_ps operand)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
// Row softmax in place, the way a user would write it with SLEEF: max, exp(x - max) + sum, scale.
__attribute__((target("avx512f"))) void softmax_rows_sleef512(size_t rows, size_t cols, float *x)
{
    for (size_t r = 0; r < rows; r++) {
        float *p = x + r * cols;
        __m512 m = _mm512_set1_ps(-INFINITY);
        size_t j = 0;
        for (; j + 16 <= cols; j += 16) m = _mm512_max_ps(m, _mm512_loadu_ps(p + j));
        alignas(64) float t[16];
        _mm512_store_ps(t, m);
        float mx = -INFINITY;
        for (float f : t) mx = f > mx ? f : mx;
        for (; j < cols; j++) mx = p[j] > mx ? p[j] : mx;
        const __m512 vm = _mm512_set1_ps(mx);
        __m512 s = _mm512_setzero_ps();
        for (j = 0; j + 16 <= cols; j += 16) {
            const __m512 e = Sleef_expf16_u10avx512f(_mm512_sub_ps(_mm512_loadu_ps(p + j), vm));
            _mm512_storeu_ps(p + j, e);
            s = _mm512_add_ps(s, e);
        }
        _mm512_store_ps(t, s);
        float sum = 0.f;
        for (float f : t) sum += f;
        for (; j < cols; j++) sum += (p[j] = std::exp(p[j] - mx));
        const __m512 inv = _mm512_set1_ps(1.f / sum);
        for (j = 0; j + 16 <= cols; j += 16) _mm512_storeu_ps(p + j, _mm512_mul_ps(_mm512_loadu_ps(p + j), inv));
        for (; j < cols; j++) p[j] *= 1.f / sum;
    }
}

__attribute__((target("avx2,fma"))) void softmax_rows_sleef256(size_t rows, size_t cols, float *x)
{
    for (size_t r = 0; r < rows; r++) {
        float *p = x + r * cols;
        float mx = -INFINITY;
        size_t j = 0;
        __m256 m = _mm256_set1_ps(-INFINITY);
        for (; j + 8 <= cols; j += 8) m = _mm256_max_ps(m, _mm256_loadu_ps(p + j));
        alignas(32) float t[8];
        _mm256_store_ps(t, m);
        for (float f : t) mx = f > mx ? f : mx;
        for (; j < cols; j++) mx = p[j] > mx ? p[j] : mx;
        const __m256 vm = _mm256_set1_ps(mx);
        __m256 s = _mm256_setzero_ps();
        for (j = 0; j + 8 <= cols; j += 8) {
            const __m256 e = Sleef_expf8_u10avx2(_mm256_sub_ps(_mm256_loadu_ps(p + j), vm));
            _mm256_storeu_ps(p + j, e);
            s = _mm256_add_ps(s, e);
        }
        _mm256_store_ps(t, s);
        float sum = 0.f;
        for (float f : t) sum += f;
        for (; j < cols; j++) sum += (p[j] = std::exp(p[j] - mx));
        const __m256 inv = _mm256_set1_ps(1.f / sum);
        for (j = 0; j + 8 <= cols; j += 8) _mm256_storeu_ps(p + j, _mm256_mul_ps(_mm256_loadu_ps(p + j), inv));
        for (; j < cols; j++) p[j] *= 1.f / sum;
    }
}

void bm_comp_openblas(benchmark::State &st, Shape s)
{
    openblas_set_num_threads(1);
    Inputs in(s);
    std::vector<float> sc(s.n_q * s.n_kv);
    const float scale = 1.f / std::sqrt((float)s.d);
    const bool z = sk_isa_available(SK_ISA_AVX512);
    for (auto _ : st) {
        for (size_t h = 0; h < s.h; h++) {
            const size_t c0 = h * s.d;
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)s.n_q, (int)s.n_kv, (int)s.d, scale,
                        in.q.p + c0, (int)in.ld, in.k.p + c0, (int)in.ld, 0.f, sc.data(), (int)s.n_kv);
            if (z) softmax_rows_sleef512(s.n_q, s.n_kv, sc.data());
            else softmax_rows_sleef256(s.n_q, s.n_kv, sc.data());
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)s.n_q, (int)s.d, (int)s.n_kv, 1.f,
                        sc.data(), (int)s.n_kv, in.v.p + c0, (int)in.ld, 0.f, in.o.p + c0, (int)in.ld);
        }
        benchmark::DoNotOptimize(in.o.p);
        benchmark::ClobberMemory();
    }
    set_counters(st, s, sizeof(float) * (double)s.n_q * s.n_kv);
}
#endif

}  // namespace

void sk_register_attention_benchmarks()
{
    const Shape shapes[] = { { 8, 512, 512, 64 }, { 8, 1, 512, 64 }, { 8, 1, 4096, 64 } };
    for (const Shape &s : shapes) {
        for (sk_isa isa : skb::isas())
            benchmark::RegisterBenchmark(skb::case_name("mha", sk_isa_name(isa), "fused", s.name()).c_str(),
                                         bm_fused, isa, s);
        benchmark::RegisterBenchmark(skb::case_name("mha", "composition-simdkern", "fused", s.name()).c_str(), bm_comp_simdkern,
                                     s);
#if defined(SK_BENCH_HAVE_OPENBLAS) && defined(SK_BENCH_HAVE_SLEEF)
        benchmark::RegisterBenchmark(skb::case_name("mha", "composition-openblas-sleef", "fused", s.name()).c_str(),
                                     bm_comp_openblas, s);
#endif
    }
}
