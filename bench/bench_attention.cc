// Benchmarks: the attention family.
//
//   mha/<isa>/fused/HxNQxNKVxD                    sk_mha, weights NULL (the fused flash-style core)
//   mha/composition-simdkern/fused/HxNQxNKVxD     per head: sk_sgemm Q K^T, sk_scale_mask_softmax,
//                                                 sk_sgemm P V (best ISA)
//   mha/composition-openblas-sleef/fused/...      per head: cblas_sgemm Q K^T (alpha = scale),
//                                                 row softmax with SLEEF expf (AVX-512 or AVX2
//                                                 variant), cblas_sgemm P V
// (The variant names the operation, out = softmax(scale Q K^T) V without weights, so that
// bench/compare pairs the compositions with the fused call.) Shapes: heads x n_q x n_kv x d_head;
// heads side by side in each row (ld = heads * d_head), as a model lays them out. Counters: GFLOP/s
// over 4 n_q n_kv d per head; "scratch_B" = bytes of temporary memory the approach needs besides
// inputs and output (the fused core: its fixed stack frame; the compositions: the n_q x n_kv score
// matrix, reused across heads).
#include <cmath>
#include <vector>

#include "bench_util.h"
extern "C" {
#include "attn.h"
}

#ifdef SK_BENCH_HAVE_OPENBLAS
#include <cblas.h>
#endif
#include "bench_sleef.h"

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
        : s(sh), ld(sh.h * sh.d), q(sh.n_q * sh.h * sh.d, -1.f, 1.f, 1),
          k(sh.n_kv * sh.h * sh.d, -1.f, 1.f, 2), v(sh.n_kv * sh.h * sh.d, -1.f, 1.f, 3),
          o(sh.n_q * sh.h * sh.d, 0.f, 1.f, 4)
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
        sk_mha(s.h, s.n_q, s.n_kv, s.d, in.q.p, in.ld, in.k.p, in.ld, in.v.p, in.ld, scale, nullptr,
               in.o.p, in.ld, nullptr);
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
            sk_sgemm(SK_NOTRANS, SK_TRANS, s.n_q, s.n_kv, s.d, 1.f, in.q.p + c0, in.ld, in.k.p + c0,
                     in.ld, 0.f, sc.data(), s.n_kv);
            sk_scale_mask_softmax(s.n_q, s.n_kv, scale, sc.data(), s.n_kv, nullptr, sc.data(),
                                  s.n_kv);
            sk_sgemm(SK_NOTRANS, SK_NOTRANS, s.n_q, s.d, s.n_kv, 1.f, sc.data(), s.n_kv,
                     in.v.p + c0, in.ld, 0.f, in.o.p + c0, in.ld);
        }
        benchmark::DoNotOptimize(in.o.p);
        benchmark::ClobberMemory();
    }
    set_counters(st, s, sizeof(float) * (double)s.n_q * s.n_kv);
}

#if defined(SK_BENCH_HAVE_OPENBLAS) && defined(SK_BENCH_HAVE_SLEEF)
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
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)s.n_q, (int)s.n_kv, (int)s.d,
                        scale, in.q.p + c0, (int)in.ld, in.k.p + c0, (int)in.ld, 0.f, sc.data(),
                        (int)s.n_kv);
            for (size_t r = 0; r < s.n_q; r++) {
                float *row = sc.data() + r * s.n_kv;
                if (z) sleef_softmax_row_avx512(s.n_kv, row, row);
                else sleef_softmax_row_avx2(s.n_kv, row, row);
            }
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)s.n_q, (int)s.d,
                        (int)s.n_kv, 1.f, sc.data(), (int)s.n_kv, in.v.p + c0, (int)in.ld, 0.f,
                        in.o.p + c0, (int)in.ld);
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
            benchmark::RegisterBenchmark(
                skb::case_name("mha", sk_isa_name(isa), "fused", s.name()).c_str(), bm_fused, isa,
                s);
        benchmark::RegisterBenchmark(
            skb::case_name("mha", "composition-simdkern", "fused", s.name()).c_str(),
            bm_comp_simdkern, s);
#if defined(SK_BENCH_HAVE_OPENBLAS) && defined(SK_BENCH_HAVE_SLEEF)
        benchmark::RegisterBenchmark(
            skb::case_name("mha", "composition-openblas-sleef", "fused", s.name()).c_str(),
            bm_comp_openblas, s);
#endif
    }
}
