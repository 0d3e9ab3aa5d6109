// Benchmarks: the thread axis. The _tp entry points on a pthreadpool of T threads (T = 1, 2, and
// the number of CPUs when more), next to the peers on T threads (OpenBLAS openblas_set_num_threads,
// oneDNN through its OpenMP runtime: omp_set_num_threads), best ISA only. The thread count is the
// variant's "@tT" suffix, so that bench/compare pairs contenders at the same thread count
// (--within REPORT avx512 openblas) and bench/compare --threads REPORT 1 2 gives the speed-up of
// each case from 1 to 2 threads.
//
//   sgemm/<isa|openblas|onednn>/NN@tT/MxNxK           the GEMM targets of the thread axis
//   sgemm/<isa>-packed/NN@tT/MxNxK                    sk_sgemm_packed_tp, B packed once
//   sgemm/peak-<isa>/NN@tT/MxNxK                      the FMA peak (bench/fma_peak.h) doing the
//                                                     shape's flops split over T tasks (the
//                                                     compute-bound shapes): what T cores can
//                                                     do at all
//   mha/<isa>/<fused|weights>@tT/HxNQxNKVxD           sk_mha_tp, weights NULL or not
//   mhca/<isa>/forward@tT/DxHxNDECxNENC               sk_mhca_forward_tp (caller workspace)
//   mhca/<isa>/forward_kv@tT/DxHxNDECxNENC            sk_mhca_forward_kv_tp: a decoder step
//   mhca/<isa>-packed/...                             the same with the weights packed once
//   mhca/read/forward_kv@tT/DxHxNDECxNENC             a plain read of the bytes that step reads
//                                                     (K, V, W_q, W_o) on T threads: its bound
//   mhca/<isa>/step_vs_read@tT/DxHxNDECxNENC          the two alternated call by call (x_read)
// Counters: GFLOP/s (GEMM, attention: 4 n_q n_kv d per head; the module: its GEMMs and attention),
// GB/s for the decoder step and the read (the same byte count for both), each call on its own
// copy of those bytes (copies in turn: from DRAM, see cold_copies).
#include <chrono>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include "bench_util.h"
#include "fma_peak.h"

#ifdef SK_BENCH_HAVE_PTHREADPOOL
#include "simdkern_pthreadpool.h"
#endif
#ifdef SK_BENCH_HAVE_OPENBLAS
#include <cblas.h>
#endif
#ifdef SK_BENCH_HAVE_ONEDNN
#include <omp.h>
#include <oneapi/dnnl/dnnl.h>
#endif

#ifdef SK_BENCH_HAVE_PTHREADPOOL
namespace
{

// One pool per thread count, created at first use and kept for the process.
sk_threadpool pool_of(size_t t)
{
    static std::map<size_t, pthreadpool_t> pools;
    auto it = pools.find(t);
    if (it == pools.end()) it = pools.emplace(t, pthreadpool_create(t)).first;
    return sk_threadpool_from_pthreadpool(it->second);
}

std::string with_threads(const std::string &variant, size_t t)
{
    return variant + "@t" + std::to_string(t);
}

sk_isa best_isa()
{
    const auto v = skb::isas();
    return v.back();
}

// fn(arg, 0..parts-1) on tp's threads (one part: on this thread, no pool call).
void run_parts(const sk_threadpool &tp, size_t parts, sk_task_fn fn, void *arg)
{
    if (parts > 1)
        tp.parallel_for(tp.pool, parts, fn, arg);
    else
        fn(arg, 0);
}

// Calls f() for `seconds` (and at least min_calls times) before a case's timed loop.
//   The decoder-step cases write hundreds of MiB on one thread in their setup, and the first calls
//   after it ran slower on two threads: the step alternated with the read at 0.72-0.73x the read
//   over 300 calls, 0.86x over 2800 (AMD Zen 5 VM); warmed for 0.5 s first, 300 calls gave
//   0.90-0.93x.
//   The GEMM cases run interleaved with other libraries' pools, whose threads spin on the cores
//   for a while after their last call (OpenBLAS, OpenMP, pthreadpool): a case timed right after
//   another contender shares the cores with those spinning threads. Warmed for WARM_S first, each
//   contender is timed with the others' threads asleep. sk_sgemm_tp 1024^3 on 2 threads, its 20
//   calls right after five 2-thread calls of OpenBLAS: 198-231 GFLOP/s; after a 1 s sleep
//   instead 295-298; after 0.3 s of its own calls 304-308 (AMD Zen 5 VM, docs/bench).
template <class F> void warm_up(F f, double seconds, size_t min_calls)
{
    using clock = std::chrono::steady_clock;
    const auto t0 = clock::now();
    for (size_t i = 0;
         i < min_calls || std::chrono::duration<double>(clock::now() - t0).count() < seconds; i++)
        f();
}

// The GEMM cases' warm-up, seconds: longer than the pools above spin after a call.
constexpr double WARM_S = 0.3;

struct GemmShape {
    size_t m, n, k;
};

// packed: B packed once before the loop (sk_sgemm_pack_b), sk_sgemm_packed_tp.
void bm_sgemm(benchmark::State &st, sk_isa isa, size_t t, GemmShape s, bool packed)
{
    skb::IsaScope scope(isa);
    const sk_threadpool tp = pool_of(t);
    skb::Buf a(s.m * s.k, -1.f, 1.f, 1), b(s.k * s.n, -1.f, 1.f, 2), c(s.m * s.n, -1.f, 1.f, 3);
    const size_t bytes = packed ? sk_sgemm_pack_b_size(s.k, s.n) : 0;
    skb::Buf pb(bytes / sizeof(float) + 1, 0.f, 0.f);
    if (packed && sk_sgemm_pack_b(SK_NOTRANS, s.k, s.n, b.p, s.n, pb.p, bytes) != SK_OK) {
        st.SkipWithError("pack failed");
        return;
    }
    auto call = [&] {
        if (packed)
            sk_sgemm_packed_tp(&tp, SK_NOTRANS, s.m, s.n, s.k, 1.f, a.p, s.k, pb.p, 0.f, c.p, s.n);
        else
            sk_sgemm_tp(&tp, SK_NOTRANS, SK_NOTRANS, s.m, s.n, s.k, 1.f, a.p, s.k, b.p, s.n, 0.f,
                        c.p, s.n);
    };
    warm_up(call, WARM_S, 1);
    for (auto _ : st) {
        call();
        benchmark::DoNotOptimize(c.p);
        benchmark::ClobberMemory();
    }
    skb::set_rates(st, 2.0 * (double)s.m * (double)s.n * (double)s.k, 0, 0);
}

#if defined(__x86_64__)
struct PeakJob {
    size_t steps;
    int lanes;
    float out[64];
};

void peak_task(void *arg, size_t t)
{
    PeakJob *j = static_cast<PeakJob *>(arg);
    volatile float x = 0.999f, y = 1e-3f;
    j->out[t] = skb_fma_chains(j->lanes, j->steps, x, y);
}

// The FMA chains doing 2 m n k flops in t equal tasks on the pool.
void bm_peak(benchmark::State &st, int lanes, size_t t, GemmShape s)
{
    const sk_threadpool tp = pool_of(t);
    const double flops = 2.0 * (double)s.m * (double)s.n * (double)s.k;
    const size_t parts = t < 64 ? t : 64;
    PeakJob j{skb_fma_steps(flops / (double)parts, lanes), lanes, {}};
    warm_up([&] { run_parts(tp, parts, peak_task, &j); }, WARM_S, 1);
    for (auto _ : st) {
        run_parts(tp, parts, peak_task, &j);
        benchmark::DoNotOptimize(j.out);
        benchmark::ClobberMemory();
    }
    skb::set_rates(st, flops, 0, 0);
}
#endif

#ifdef SK_BENCH_HAVE_OPENBLAS
void bm_sgemm_openblas(benchmark::State &st, size_t t, GemmShape s)
{
    openblas_set_num_threads((int)t);
    skb::Buf a(s.m * s.k, -1.f, 1.f, 1), b(s.k * s.n, -1.f, 1.f, 2), c(s.m * s.n, -1.f, 1.f, 3);
    auto call = [&] {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (blasint)s.m, (blasint)s.n,
                    (blasint)s.k, 1.f, a.p, (blasint)s.k, b.p, (blasint)s.n, 0.f, c.p,
                    (blasint)s.n);
    };
    warm_up(call, WARM_S, 1);
    for (auto _ : st) {
        call();
        benchmark::DoNotOptimize(c.p);
        benchmark::ClobberMemory();
    }
    openblas_set_num_threads(1);
    skb::set_rates(st, 2.0 * (double)s.m * (double)s.n * (double)s.k, 0, 0);
}
#endif

#ifdef SK_BENCH_HAVE_ONEDNN
void bm_sgemm_onednn(benchmark::State &st, size_t t, GemmShape s)
{
    omp_set_num_threads((int)t);
    skb::Buf a(s.m * s.k, -1.f, 1.f, 1), b(s.k * s.n, -1.f, 1.f, 2), c(s.m * s.n, -1.f, 1.f, 3);
    auto call = [&] {
        dnnl_sgemm('N', 'N', (dnnl_dim_t)s.m, (dnnl_dim_t)s.n, (dnnl_dim_t)s.k, 1.f, a.p,
                   (dnnl_dim_t)s.k, b.p, (dnnl_dim_t)s.n, 0.f, c.p, (dnnl_dim_t)s.n);
    };
    warm_up(call, WARM_S, 1);
    for (auto _ : st) {
        call();
        benchmark::DoNotOptimize(c.p);
        benchmark::ClobberMemory();
    }
    omp_set_num_threads(1);
    skb::set_rates(st, 2.0 * (double)s.m * (double)s.n * (double)s.k, 0, 0);
}
#endif

struct MhaShape {
    size_t h, n_q, n_kv, d;
    std::string name() const
    {
        return std::to_string(h) + "x" + std::to_string(n_q) + "x" + std::to_string(n_kv) + "x" +
               std::to_string(d);
    }
};

void bm_mha(benchmark::State &st, sk_isa isa, size_t t, MhaShape s, bool weights)
{
    skb::IsaScope scope(isa);
    const sk_threadpool tp = pool_of(t);
    const size_t ld = s.h * s.d;
    skb::Buf q(s.n_q * ld, -1.f, 1.f, 1), k(s.n_kv * ld, -1.f, 1.f, 2),
        v(s.n_kv * ld, -1.f, 1.f, 3);
    skb::Buf o(s.n_q * ld, 0.f, 1.f, 4), w(weights ? s.h * s.n_q * s.n_kv : 1, 0.f, 1.f, 5);
    const float scale = 1.f / std::sqrt((float)s.d);
    for (auto _ : st) {
        sk_mha_tp(&tp, s.h, s.n_q, s.n_kv, s.d, q.p, ld, k.p, ld, v.p, ld, scale, nullptr, o.p, ld,
                  weights ? w.p : nullptr);
        benchmark::DoNotOptimize(o.p);
        benchmark::ClobberMemory();
    }
    skb::set_rates(st, 4.0 * (double)s.h * (double)s.n_q * (double)s.n_kv * (double)s.d, 0, 0);
}

struct MhcaShape {
    size_t d, h, n_dec, n_enc;
    std::string name() const
    {
        return std::to_string(d) + "x" + std::to_string(h) + "x" + std::to_string(n_dec) + "x" +
               std::to_string(n_enc);
    }
    // the bytes a decoder step reads: K and V (n_enc x d each), W_q and W_o
    double step_bytes() const { return 4.0 * (2.0 * (double)n_enc * d + 2.0 * (double)d * d); }
};

// A layer of shape s (no biases) with its decoder rows, encoder rows and output; packed: its four
// weights also packed once (sk_mhca.w_*_packed, on the active path).
struct MhcaCase {
    skb::Buf wq, wk, wv, wo;
    sk_mhca L{};
    skb::Buf dec, enc, out;
    skb::Buf pk[4];
    MhcaCase(const MhcaShape &s, bool packed)
        : wq(s.d * s.d, -0.05f, 0.05f, 11), wk(s.d * s.d, -0.05f, 0.05f, 12),
          wv(s.d * s.d, -0.05f, 0.05f, 13), wo(s.d * s.d, -0.05f, 0.05f, 14),
          dec(s.n_dec * s.d, -1.f, 1.f, 1), enc(s.n_enc * s.d, -1.f, 1.f, 2), out(s.n_dec * s.d)
    {
        L.d_model = s.d;
        L.n_heads = s.h;
        L.w_q = wq.p;
        L.w_k = wk.p;
        L.w_v = wv.p;
        L.w_o = wo.p;
        if (!packed) return;
        const float *w[4] = {wq.p, wk.p, wv.p, wo.p};
        const void **dst[4] = {&L.w_q_packed, &L.w_k_packed, &L.w_v_packed, &L.w_o_packed};
        const size_t bytes = sk_sgemm_pack_b_size(s.d, s.d);
        for (int i = 0; i < 4; i++) {
            pk[i] = skb::Buf(bytes / sizeof(float) + 1, 0.f, 0.f);
            if (sk_sgemm_pack_b(SK_NOTRANS, s.d, s.d, w[i], s.d, pk[i].p, bytes) == SK_OK)
                *dst[i] = pk[i].p;
        }
    }
};

void bm_forward(benchmark::State &st, sk_isa isa, size_t t, MhcaShape s)
{
    skb::IsaScope scope(isa);
    const sk_threadpool tp = pool_of(t);
    MhcaCase c(s, false);
    skb::Buf ws(sk_mhca_workspace_size(&c.L, s.n_dec, s.n_enc) / sizeof(float) + 1);
    for (auto _ : st) {
        sk_mhca_forward_tp(&tp, &c.L, s.n_dec, c.dec.p, s.n_enc, c.enc.p, nullptr, c.out.p,
                           nullptr, ws.p);
        benchmark::DoNotOptimize(c.out.p);
        benchmark::ClobberMemory();
    }
    const double d = (double)s.d, flops = 2.0 * d * d * (2.0 * s.n_enc + 2.0 * s.n_dec) +
                                          4.0 * (double)s.n_dec * (double)s.n_enc * d;
    skb::set_rates(st, flops, 0, 0);
}

// Copies of a decoder step's bytes that the step and the read go through in turn, so that every
// call finds its bytes in DRAM: with one copy, a last-level cache not much smaller than the
// working set keeps part of it from call to call, and keeps more of a plain sequential read's
// bytes than of the step's (a 32 MiB L3 on AMD Zen 5 and 40 MiB: the read ran at 52 GB/s on one
// core, 27 GB/s from DRAM). At least three times the L3 in all (32 MiB when the OS does not say).
size_t cold_copies(double bytes)
{
    const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
    const double llc = l3 > 0 ? (double)l3 : 32.0 * 1024 * 1024;
    const size_t c = (size_t)std::ceil(3.0 * llc / bytes);
    return c < 2 ? 2 : c > 16 ? 16 : c;
}

// cold_copies(step bytes) layers with their kv buffers (K and V projected on the pool) and one
// workspace: the decoder step on copy i at a time.
struct StepCopies {
    MhcaShape s;
    std::vector<std::unique_ptr<MhcaCase>> cs;
    std::vector<skb::Buf> kv;
    std::unique_ptr<skb::Buf> ws;
    StepCopies(const sk_threadpool &tp, const MhcaShape &s_, bool packed) : s(s_)
    {
        for (size_t i = 0, n = cold_copies(s.step_bytes()); i < n; i++) {
            cs.emplace_back(new MhcaCase(s, packed));
            kv.emplace_back(2 * s.n_enc * s.d);
            sk_mhca_project_kv_tp(&tp, &cs[i]->L, s.n_enc, cs[i]->enc.p, kv[i].p);
        }
        ws.reset(new skb::Buf(sk_mhca_forward_kv_workspace_size(&cs[0]->L, s.n_dec) / 4 + 1));
    }
    void step(const sk_threadpool &tp, size_t i)
    {
        MhcaCase &c = *cs[i];
        sk_mhca_forward_kv_tp(&tp, &c.L, s.n_dec, c.dec.p, s.n_enc, kv[i].p, nullptr, c.out.p,
                              nullptr, ws->p);
        benchmark::DoNotOptimize(c.out.p);
        benchmark::ClobberMemory();
    }
};

void bm_forward_kv(benchmark::State &st, sk_isa isa, size_t t, MhcaShape s, bool packed)
{
    skb::IsaScope scope(isa);
    const sk_threadpool tp = pool_of(t);
    StepCopies sc(tp, s, packed);
    size_t i = 0;
    warm_up([&] { sc.step(tp, i); i = i + 1 == sc.cs.size() ? 0 : i + 1; }, 0.5, 2 * sc.cs.size());
    for (auto _ : st) {
        sc.step(tp, i);
        i = i + 1 == sc.cs.size() ? 0 : i + 1;
    }
    skb::set_rates(st, 0, 0, s.step_bytes());
}

// A plain read of n floats on the pool: one contiguous slice per thread (skb::read_sum).
struct ReadJob {
    const float *p;
    size_t n, parts;
    float sums[64];
};

void read_task(void *arg, size_t t)
{
    ReadJob *j = static_cast<ReadJob *>(arg);
    const size_t b = j->n / j->parts * t, e = t + 1 == j->parts ? j->n : j->n / j->parts * (t + 1);
    j->sums[t] = skb::read_sum(j->p + b, e - b);
}

// One read of j.p on the pool.
void read_all(const sk_threadpool &tp, ReadJob &j)
{
    run_parts(tp, j.parts, read_task, &j);
    benchmark::DoNotOptimize(j.sums);
    benchmark::ClobberMemory();
}

void bm_read(benchmark::State &st, size_t t, MhcaShape s)
{
    const sk_threadpool tp = pool_of(t);
    const size_t n = (size_t)(s.step_bytes() / 4), copies = cold_copies(s.step_bytes());
    skb::Buf buf(n * copies);
    ReadJob j{buf.p, n, t < 64 ? t : 64, {}};
    size_t i = 0;
    warm_up([&] { j.p = buf.p + i * n; i = i + 1 == copies ? 0 : i + 1; read_all(tp, j); }, 0.5,
            2 * copies);
    for (auto _ : st) {
        j.p = buf.p + i * n; /* the copies in turn, as bm_forward_kv */
        i = i + 1 == copies ? 0 : i + 1;
        read_all(tp, j);
    }
    skb::set_rates(st, 0, 0, s.step_bytes());
}

// The decoder step and the plain read of its bytes alternated call by call in one loop, each call
// on its own copy (from DRAM): on a shared host the DRAM bandwidth a core gets drifts over seconds,
// and the fastest of two cases timed a second apart favours whichever drew the quieter moment
// (docs/bench/attention-tuning.md).
// Counters: GB/s (the step), read_GB/s, x_read (the step's speed as a fraction of the read's, from
// the total times of each).
void bm_step_vs_read(benchmark::State &st, sk_isa isa, size_t t, MhcaShape s, bool packed)
{
    using clock = std::chrono::steady_clock;
    skb::IsaScope scope(isa);
    const sk_threadpool tp = pool_of(t);
    StepCopies sc(tp, s, packed);
    const size_t copies = sc.cs.size(), n = (size_t)(s.step_bytes() / 4);
    skb::Buf buf(n * copies);
    ReadJob j{buf.p, n, t < 64 ? t : 64, {}};
    double t_step = 0, t_read = 0;
    size_t i = 0;
    warm_up(
        [&] {
            sc.step(tp, i);
            j.p = buf.p + i * n;
            read_all(tp, j);
            i = i + 1 == copies ? 0 : i + 1;
        },
        0.5, 2 * copies);
    for (auto _ : st) {
        const auto t0 = clock::now();
        sc.step(tp, i);
        const auto t1 = clock::now();
        j.p = buf.p + i * n;
        read_all(tp, j);
        const auto t2 = clock::now();
        t_step += std::chrono::duration<double>(t1 - t0).count();
        t_read += std::chrono::duration<double>(t2 - t1).count();
        i = i + 1 == copies ? 0 : i + 1;
    }
    const double bytes = s.step_bytes() * (double)st.iterations();
    if (t_step > 0 && t_read > 0) {
        st.counters["GB/s"] = bytes * 1e-9 / t_step;
        st.counters["read_GB/s"] = bytes * 1e-9 / t_read;
        st.counters["x_read"] = t_read / t_step;
    }
}

} // namespace
#endif

void sk_register_thread_benchmarks()
{
#ifdef SK_BENCH_HAVE_PTHREADPOOL
    std::vector<size_t> counts = {1, 2};
    const size_t hw = std::thread::hardware_concurrency();
    if (hw > 2) counts.push_back(hw);
    const sk_isa isa = best_isa();
    const std::string in = sk_isa_name(isa);
    static const GemmShape gemm[] = {{1024, 1024, 1024}, {2048, 2048, 2048}, {64, 1024, 1024},
                                     {16, 4096, 1024},   {1, 512, 64},       {16, 512, 64},
                                     {64, 64, 64}};
    static const MhaShape mha[] = {{8, 512, 512, 64}, {1, 1, 64, 64}};
    static const MhcaShape fwd = {1024, 16, 512, 512};
    /* a decoder step against a long source (K and V 32 MiB, the weights 8) and a sentence's */
    static const MhcaShape steps[] = {{1024, 16, 1, 4096}, {1024, 16, 1, 64}};
    for (size_t t : counts) {
        for (const GemmShape &s : gemm) {
            const std::string shape = skb::shape3(s.m, s.n, s.k), var = with_threads("NN", t);
            benchmark::RegisterBenchmark(skb::case_name("sgemm", in, var, shape).c_str(), bm_sgemm,
                                         isa, t, s, false);
            const std::string pk = skb::case_name("sgemm", in + "-packed", var, shape);
            benchmark::RegisterBenchmark(pk.c_str(), bm_sgemm, isa, t, s, true);
#if defined(__x86_64__)
            /* the compute-bound shapes (a small one's split costs more than its flops) */
            if ((isa == SK_ISA_AVX2 || isa == SK_ISA_AVX512) && s.m * s.n * s.k >= (1u << 25)) {
                const int lanes = isa == SK_ISA_AVX512 ? 16 : 8;
                benchmark::RegisterBenchmark(
                    skb::case_name("sgemm", "peak-" + in, var, shape).c_str(), bm_peak, lanes, t,
                    s);
            }
#endif
#ifdef SK_BENCH_HAVE_OPENBLAS
            benchmark::RegisterBenchmark(skb::case_name("sgemm", "openblas", var, shape).c_str(),
                                         bm_sgemm_openblas, t, s);
#endif
#ifdef SK_BENCH_HAVE_ONEDNN
            benchmark::RegisterBenchmark(skb::case_name("sgemm", "onednn", var, shape).c_str(),
                                         bm_sgemm_onednn, t, s);
#endif
        }
        for (const MhaShape &s : mha)
            for (int w = 0; w < 2; w++) {
                if (w && s.n_q == 1) continue;
                const std::string var = with_threads(w ? "weights" : "fused", t);
                benchmark::RegisterBenchmark(skb::case_name("mha", in, var, s.name()).c_str(),
                                             bm_mha, isa, t, s, w != 0);
            }
        benchmark::RegisterBenchmark(
            skb::case_name("mhca", in, with_threads("forward", t), fwd.name()).c_str(), bm_forward,
            isa, t, fwd);
        const std::string kvv = with_threads("forward_kv", t);
        const std::string svr = with_threads("step_vs_read", t);
        for (const MhcaShape &step : steps) {
            for (int pk = 0; pk < 2; pk++) {
                const std::string who = pk ? in + "-packed" : in;
                benchmark::RegisterBenchmark(skb::case_name("mhca", who, kvv, step.name()).c_str(),
                                             bm_forward_kv, isa, t, step, pk != 0);
                benchmark::RegisterBenchmark(skb::case_name("mhca", who, svr, step.name()).c_str(),
                                             bm_step_vs_read, isa, t, step, pk != 0);
            }
            benchmark::RegisterBenchmark(skb::case_name("mhca", "read", kvv, step.name()).c_str(),
                                         bm_read, t, step);
        }
    }
#endif
}
