// Benchmarks: the exp / softmax family.
//   exp/<contender>/<L1|DRAM>/<n>            contender = each ISA, sleef-avx2, sleef-avx512
//   softmax/<contender>/rows/<rows>x<cols>   contender = each ISA, sleef-avx2-3pass,
//                                            sleef-avx512-3pass
//   scale_mask_softmax/<contender>/keys/512x512 (scale 1/8, key padding mask) contender = each ISA,
//       composition-sleef-<isa> (a scale loop, a mask loop, a 3-pass softmax with SLEEF exp)
//   memcpy/memcpy/copy/<shape>               the same bytes copied (read + written)
//   exp/<isa>/<normal|subnormal|mixed>-results/4096, exp/<isa>/<normal|subnormal>-inputs/4096,
//   softmax/<isa>/<normal|subnormal>-inputs/64x512: the same sizes with subnormal results / inputs
//       (or vectors mixing both kinds of results) next to normal ones (the ratio to the normal
//       case is the slowdown subnormals cost; results below FLT_MIN may flush to 0)
// Counters: "elem/s" and "GB/s" (bytes read + written, rates). Inputs random, never zeros.
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "bench_util.h"

#include "bench_sleef.h"

namespace {

void set_counters(benchmark::State &st, double elems, double bytes)
{
    st.counters["elem/s"] =
        benchmark::Counter(elems, benchmark::Counter::kIsIterationInvariantRate);
    st.counters["GB/s"] =
        benchmark::Counter(bytes * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

std::string shape2(size_t r, size_t c) { return std::to_string(r) + "x" + std::to_string(c); }

// exp over [lo, hi]: [-80, -10] gives normal results, [-103, -88] subnormal ones.
void run_exp_range(benchmark::State &st, sk_isa isa, size_t n, float lo, float hi)
{
    skb::IsaScope scope(isa);
    skb::Buf x(n, lo, hi, 7), y(n);
    for (auto _ : st) {
        sk_exp(n, x.data(), y.data());
        benchmark::DoNotOptimize(y.data());
        benchmark::ClobberMemory();
    }
    set_counters(st, (double)n, 8.0 * (double)n);
}

// exp: inputs in [-80, 80] (the normal range: the fast path of every contender).
void run_exp(benchmark::State &st, sk_isa isa, size_t n) { run_exp_range(st, isa, n, -80.f, 80.f); }

// exp of tiny inputs (results ~1): subnormal (|x| < FLT_MIN) or normal (|x| ~ 1e-30).
void run_exp_tiny(benchmark::State &st, sk_isa isa, size_t n, bool subnormal)
{
    skb::IsaScope scope(isa);
    skb::Buf x(n, -1.f, 1.f, 7), y(n);
    const float s = subnormal ? 1e-39f : 1e-30f;
    for (size_t i = 0; i < n; i++) x.data()[i] *= s;
    for (auto _ : st) {
        sk_exp(n, x.data(), y.data());
        benchmark::DoNotOptimize(y.data());
        benchmark::ClobberMemory();
    }
    set_counters(st, (double)n, 8.0 * (double)n);
}

// softmax of rows whose entries are tiny: subnormal (|x| < FLT_MIN) or normal (|x| ~ 1e-30).
void run_softmax_tiny(benchmark::State &st, sk_isa isa, size_t rows, size_t cols, bool subnormal)
{
    skb::IsaScope scope(isa);
    skb::Buf x(rows * cols, -1.f, 1.f, 7), y(rows * cols);
    const float s = subnormal ? 1e-39f : 1e-30f;
    for (size_t i = 0; i < rows * cols; i++) x.data()[i] *= s;
    for (auto _ : st) {
        sk_softmax(rows, cols, x.data(), cols, y.data(), cols);
        benchmark::DoNotOptimize(y.data());
        benchmark::ClobberMemory();
    }
    set_counters(st, (double)(rows * cols), 8.0 * (double)(rows * cols));
}

void run_memcpy(benchmark::State &st, size_t n)
{
    skb::Buf x(n, -1.f, 1.f, 7), y(n);
    for (auto _ : st) {
        std::memcpy(y.data(), x.data(), n * sizeof(float));
        benchmark::DoNotOptimize(y.data());
        benchmark::ClobberMemory();
    }
    set_counters(st, (double)n, 8.0 * (double)n);
}

void run_softmax(benchmark::State &st, sk_isa isa, size_t rows, size_t cols)
{
    skb::IsaScope scope(isa);
    skb::Buf x(rows * cols, -4.f, 4.f, 7), y(rows * cols);
    for (auto _ : st) {
        sk_softmax(rows, cols, x.data(), cols, y.data(), cols);
        benchmark::DoNotOptimize(y.data());
        benchmark::ClobberMemory();
    }
    set_counters(st, (double)(rows * cols), 8.0 * (double)(rows * cols));
}

std::vector<uint8_t> key_mask(size_t cols)
{
    std::vector<uint8_t> k(cols, 1);
    for (size_t c = cols - cols / 8; c < cols; c++) k[c] = 0; // the last 1/8 of keys are padding
    return k;
}

void run_smsm(benchmark::State &st, sk_isa isa, size_t rows, size_t cols)
{
    skb::IsaScope scope(isa);
    skb::Buf x(rows * cols, -16.f, 16.f, 7), y(rows * cols);
    std::vector<uint8_t> keys = key_mask(cols);
    const sk_mask m = { SK_MASK_KEYS, keys.data(), 0, 0 };
    for (auto _ : st) {
        sk_scale_mask_softmax(rows, cols, 0.125f, x.data(), cols, &m, y.data(), cols);
        benchmark::DoNotOptimize(y.data());
        benchmark::ClobberMemory();
    }
    set_counters(st, (double)(rows * cols), 8.0 * (double)(rows * cols));
}

#ifdef SK_BENCH_HAVE_SLEEF
T_AVX2 void composition_avx2(size_t rows, size_t cols, float scale, const float *x,
                             const uint8_t *keys, float *y)
{
    for (size_t i = 0; i < rows * cols; i++) y[i] = scale * x[i];
    for (size_t r = 0; r < rows; r++)
        for (size_t c = 0; c < cols; c++) y[r * cols + c] = keys[c] ? y[r * cols + c] : -INFINITY;
    for (size_t r = 0; r < rows; r++) sleef_softmax_row_avx2(cols, y + r * cols, y + r * cols);
}

T_AVX512 void composition_avx512(size_t rows, size_t cols, float scale, const float *x,
                                 const uint8_t *keys, float *y)
{
    for (size_t i = 0; i < rows * cols; i++) y[i] = scale * x[i];
    for (size_t r = 0; r < rows; r++)
        for (size_t c = 0; c < cols; c++) y[r * cols + c] = keys[c] ? y[r * cols + c] : -INFINITY;
    for (size_t r = 0; r < rows; r++) sleef_softmax_row_avx512(cols, y + r * cols, y + r * cols);
}

void run_sleef_exp(benchmark::State &st, bool avx512, size_t n)
{
    skb::Buf x(n, -80.f, 80.f, 7), y(n);
    for (auto _ : st) {
        if (avx512) sleef_exp_avx512(n, x.data(), y.data());
        else sleef_exp_avx2(n, x.data(), y.data());
        benchmark::DoNotOptimize(y.data());
        benchmark::ClobberMemory();
    }
    set_counters(st, (double)n, 8.0 * (double)n);
}

void run_sleef_softmax(benchmark::State &st, bool avx512, size_t rows, size_t cols)
{
    skb::Buf x(rows * cols, -4.f, 4.f, 7), y(rows * cols);
    for (auto _ : st) {
        for (size_t r = 0; r < rows; r++) {
            if (avx512) sleef_softmax_row_avx512(cols, x.data() + r * cols, y.data() + r * cols);
            else sleef_softmax_row_avx2(cols, x.data() + r * cols, y.data() + r * cols);
        }
        benchmark::DoNotOptimize(y.data());
        benchmark::ClobberMemory();
    }
    set_counters(st, (double)(rows * cols), 8.0 * (double)(rows * cols));
}

void run_composition(benchmark::State &st, bool avx512, size_t rows, size_t cols)
{
    skb::Buf x(rows * cols, -16.f, 16.f, 7), y(rows * cols);
    std::vector<uint8_t> keys = key_mask(cols);
    for (auto _ : st) {
        if (avx512) composition_avx512(rows, cols, 0.125f, x.data(), keys.data(), y.data());
        else composition_avx2(rows, cols, 0.125f, x.data(), keys.data(), y.data());
        benchmark::DoNotOptimize(y.data());
        benchmark::ClobberMemory();
    }
    set_counters(st, (double)(rows * cols), 8.0 * (double)(rows * cols));
}
#endif

struct RC {
    size_t r, c;
};
const RC kRows[] = { { 1, 4096 }, { 64, 512 }, { 512, 512 }, { 4096, 4096 } };

}  // namespace

void sk_register_math_benchmarks()
{
    const size_t kL1 = 4096, kDram = 16777216; // 16 KiB and 64 MiB of input
    const auto isas = skb::isas();
    const bool has_avx2 = sk_isa_available(SK_ISA_AVX2),
               has_avx512 = sk_isa_available(SK_ISA_AVX512);
    (void)has_avx2;
    (void)has_avx512;
    for (const auto &[tag, n] :
         { std::pair<const char *, size_t>{ "L1", kL1 }, { "DRAM", kDram } }) {
        const std::string shape = std::string(tag) + "/" + std::to_string(n);
        for (sk_isa isa : isas)
            benchmark::RegisterBenchmark(
                ("exp/" + std::string(sk_isa_name(isa)) + "/" + shape).c_str(), run_exp, isa, n);
#ifdef SK_BENCH_HAVE_SLEEF
        if (has_avx2)
            benchmark::RegisterBenchmark(("exp/sleef-avx2/" + shape).c_str(), run_sleef_exp, false,
                                         n);
        if (has_avx512)
            benchmark::RegisterBenchmark(("exp/sleef-avx512/" + shape).c_str(), run_sleef_exp, true,
                                         n);
#endif
        benchmark::RegisterBenchmark(("memcpy/memcpy/copy/" + shape).c_str(), run_memcpy, n);
    }
    for (const RC &s : kRows) {
        const std::string shape = shape2(s.r, s.c);
        for (sk_isa isa : isas)
            benchmark::RegisterBenchmark(
                ("softmax/" + std::string(sk_isa_name(isa)) + "/rows/" + shape).c_str(),
                run_softmax, isa, s.r, s.c);
#ifdef SK_BENCH_HAVE_SLEEF
        if (has_avx2)
            benchmark::RegisterBenchmark(("softmax/sleef-avx2-3pass/rows/" + shape).c_str(),
                                         run_sleef_softmax, false, s.r, s.c);
        if (has_avx512)
            benchmark::RegisterBenchmark(("softmax/sleef-avx512-3pass/rows/" + shape).c_str(),
                                         run_sleef_softmax, true, s.r, s.c);
#endif
        benchmark::RegisterBenchmark(("memcpy/memcpy/copy/" + shape).c_str(), run_memcpy,
                                     s.r * s.c);
    }
    for (sk_isa isa : isas) {
        const std::string name = sk_isa_name(isa);
        // results: normal ([-80, -10]), subnormal ([-103, -88]: all flushed), mixed ([-95, -80]:
        // every vector mixes normal results with results below FLT_MIN)
        static const struct { const char *kind; float lo, hi; } ranges[] = {
            {"normal", -80.f, -10.f}, {"subnormal", -103.f, -88.f}, {"mixed", -95.f, -80.f}};
        for (const auto &r : ranges)
            benchmark::RegisterBenchmark(("exp/" + name + "/" + r.kind + "-results/4096").c_str(),
                                         run_exp_range, isa, (size_t)4096, r.lo, r.hi);
        for (int sub = 0; sub < 2; sub++) {
            const std::string kind = sub ? "subnormal" : "normal";
            benchmark::RegisterBenchmark(("exp/" + name + "/" + kind + "-inputs/4096").c_str(),
                                         run_exp_tiny, isa, (size_t)4096, sub != 0);
            benchmark::RegisterBenchmark(
                ("softmax/" + name + "/" + kind + "-inputs/64x512").c_str(), run_softmax_tiny, isa,
                (size_t)64, (size_t)512, sub != 0);
        }
    }
    {
        const size_t r = 512, c = 512;
        const std::string shape = shape2(r, c);
        for (sk_isa isa : isas)
            benchmark::RegisterBenchmark(
                ("scale_mask_softmax/" + std::string(sk_isa_name(isa)) + "/keys/" + shape).c_str(),
                run_smsm, isa, r, c);
#ifdef SK_BENCH_HAVE_SLEEF
        if (has_avx2)
            benchmark::RegisterBenchmark(
                ("scale_mask_softmax/composition-sleef-avx2/keys/" + shape).c_str(),
                run_composition, false, r, c);
        if (has_avx512)
            benchmark::RegisterBenchmark(
                ("scale_mask_softmax/composition-sleef-avx512/keys/" + shape).c_str(),
                run_composition, true, r, c);
#endif
    }
}
