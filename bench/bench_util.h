// Shared helpers for the Google Benchmark suite.
//
// Naming: "<family>/<contender>/<variant>/<shape>", contender = an ISA name ("scalar", "avx2",
// "avx512", "neon") or a peer ("openblas", "sleef", "onednn", "memcpy", "composition-..."), so that
// bench/compare can pair e.g. sgemm/avx512/NN/1024x1024x1024 with sgemm/openblas/NN/1024x1024x1024.
// Counters: "GFLOP/s" for GEMM and attention, "elem/s" and "GB/s" for exp/softmax (rates).
#pragma once

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdlib>
#include <random>
#include <utility>
#include <string>
#include <vector>

#include "simdkern.h"

namespace skb {

// ISAs available on this CPU, in tier order.
inline std::vector<sk_isa> isas()
{
    std::vector<sk_isa> v;
    for (int i = 0; i < SK_ISA_COUNT; i++)
        if (sk_isa_available((sk_isa)i)) v.push_back((sk_isa)i);
    return v;
}

// Selects an ISA for the lifetime of a benchmark run (restores the previous one).
struct IsaScope {
    sk_isa prev;
    explicit IsaScope(sk_isa isa) : prev(sk_isa_active()) { sk_isa_select(isa); }
    ~IsaScope() { sk_isa_select(prev); }
};

// 64-byte aligned float buffer filled with uniform random values in [lo, hi) (never all zeros).
struct Buf {
    float *p = nullptr;
    size_t n = 0;
    Buf() = default;
    explicit Buf(size_t n_, float lo = -1.f, float hi = 1.f, uint32_t seed = 1) : n(n_)
    {
        p = static_cast<float *>(std::aligned_alloc(64, ((n * sizeof(float) + 63) / 64) * 64 + 64));
        std::mt19937 rng(seed);
        std::uniform_real_distribution<float> d(lo, hi);
        for (size_t i = 0; i < n; i++) p[i] = d(rng);
    }
    Buf(const Buf &) = delete;
    Buf &operator=(const Buf &) = delete;
    Buf(Buf &&o) noexcept : p(o.p), n(o.n) { o.p = nullptr; }
    Buf &operator=(Buf &&o) noexcept
    {
        std::swap(p, o.p);
        std::swap(n, o.n);
        return *this;
    }
    ~Buf() { std::free(p); }
    float *data() { return p; }
};

inline std::string shape3(size_t m, size_t n, size_t k)
{
    return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
}

// ---- Case names and counters, as bench/report and bench/compare read them ---------------------

// "<family>/<contender>/<variant>/<shape>": the name bench/compare pairs on (same family, variant
// and shape, different contender). Fields must not contain '/' except the shape.
inline std::string case_name(const std::string &family, const std::string &contender,
                             const std::string &variant, const std::string &shape)
{
    return family + "/" + contender + "/" + variant + "/" + shape;
}

// Sets the rate counters the reports know, per iteration of the timed loop: "GFLOP/s" from the
// floating-point operations, "elem/s" from the elements produced, "GB/s" from the bytes read plus
// written. A zero argument leaves that counter out.
// The sum of n floats, a plain read at the speed of the widest vectors this CPU runs
// (bench_read.cc); the bound of the memory-bound cases.
float read_sum(const float *p, size_t n);
#if defined(__x86_64__) && defined(__GNUC__)
// The same read with 32-byte loads: the bound of the AVX2 path's memory-bound cases (a core
// may move more bytes per load with wider vectors than the path may use).
float read_sum_avx2(const float *p, size_t n);
#endif

inline void set_rates(benchmark::State &st, double flops, double elems, double bytes)
{
    if (flops > 0)
        st.counters["GFLOP/s"] =
            benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
    if (elems > 0)
        st.counters["elem/s"] =
            benchmark::Counter(elems, benchmark::Counter::kIsIterationInvariantRate);
    if (bytes > 0)
        st.counters["GB/s"] =
            benchmark::Counter(bytes * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

}  // namespace skb

// Each family registers its cases from main (dynamic registration: only the ISAs and peers that
// exist on this machine and build).
void sk_register_gemm_benchmarks();
void sk_register_math_benchmarks();
void sk_register_attention_benchmarks();
void sk_register_thread_benchmarks();
