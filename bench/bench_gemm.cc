// Benchmarks: the gemm family. sgemm/<contender>/<NN|NT>/<m>x<n>x<k>, contender = each available
// ISA, "openblas" (cblas_sgemm), "onednn" (dnnl_sgemm), "libxsmm" (a JIT kernel from
// libxsmm_smmdispatch, for the shapes it generates one for), "xnnpack" (a fully-connected operator,
// its weights packed once at creation), "<isa>-packed" (sk_sgemm_packed, B packed once before the
// loop), single thread; and "peak-avx2" / "peak-avx512": an FMA loop of 12 independent chains of
// that width doing the same number of flops (the FMA peak of the core, so that avx2 / peak-avx2 is
// the fraction of peak); "read" for m <= 4: a plain read of B's bytes, the bound of the
// matrix-vector product and of 4 rows from L3, with the widest loads the core runs, and
// "read-avx2" the same with 32-byte loads (the AVX2 path's bound). alpha = 1, beta = 0, random
// inputs, dense ld.
// Counter "GFLOP/s" = 2 m n k per second.
#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include "bench_util.h"
#include "fma_peak.h"

#ifdef SK_BENCH_HAVE_OPENBLAS
#include <cblas.h>
#endif
#ifdef SK_BENCH_HAVE_ONEDNN
#include <omp.h>
#include <oneapi/dnnl/dnnl.h>
#endif
#ifdef SK_BENCH_HAVE_LIBXSMM
#include <libxsmm.h>
#endif
#ifdef SK_BENCH_HAVE_XNNPACK
#include <xnnpack.h>
#endif
#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace {

struct Shape {
    size_t m, n, k;
};

// Square sizes and the attention shapes (Q/K/V/O projections, Q K^T, P V, decoder steps).
const Shape kShapes[] = {
    { 64, 64, 64 },     { 128, 128, 128 },  { 256, 256, 256 },     { 512, 512, 512 },
    { 1024, 1024, 1024 }, { 2048, 2048, 2048 }, { 1, 512, 64 },    { 16, 512, 64 },
    { 128, 128, 64 },   { 512, 512, 64 },   { 512, 64, 512 },      { 2048, 2048, 64 },
    { 4096, 64, 4096 }, { 512, 1024, 1024 }, { 64, 64, 64 },
    /* projections x @ W with few rows of x (W's row stride a multiple of 4 KiB) and small tiles */
    { 1, 512, 512 },    { 4, 512, 512 },    { 16, 512, 512 },      { 64, 512, 512 },
    { 256, 512, 512 },  { 1, 1024, 1024 },  { 4, 1024, 1024 },     { 16, 1024, 1024 },
    { 64, 1024, 1024 }, { 256, 1024, 1024 }, { 16, 4096, 1024 },   { 16, 64, 64 },
    { 32, 32, 32 },     { 64, 512, 64 },
    /* a decoder step of a d_model 384 model: a projection and the feed-forward's second layer */
    { 1, 384, 384 },    { 1, 384, 1536 },
    /* a decoder step under beam search: x with one row per beam (5, 8, 12 beams) */
    { 5, 512, 512 },    { 8, 1024, 1024 },  { 12, 1024, 1024 },    { 8, 512, 512 },
};

struct Operands {
    skb::Buf a, b, c;
    Operands(const Shape &s)
        : a(s.m * s.k, -1.f, 1.f, 1), b(s.k * s.n, -1.f, 1.f, 2), c(s.m * s.n, -1.f, 1.f, 3)
    {
    }
};

void set_counters(benchmark::State &st, const Shape &s)
{
    st.counters["GFLOP/s"] = benchmark::Counter(2e-9 * (double)s.m * (double)s.n * (double)s.k,
                                                benchmark::Counter::kIsIterationInvariantRate);
}

void run_sk(benchmark::State &st, sk_isa isa, bool nt, Shape s)
{
    skb::IsaScope scope(isa);
    Operands o(s);
    const sk_trans tb = nt ? SK_TRANS : SK_NOTRANS;
    for (auto _ : st) {
        sk_status r = sk_sgemm(SK_NOTRANS, tb, s.m, s.n, s.k, 1.f, o.a.data(), s.k, o.b.data(),
                               nt ? s.k : s.n, 0.f, o.c.data(), s.n);
        if (r != SK_OK) {
            st.SkipWithError(sk_status_str(r));
            break;
        }
        benchmark::DoNotOptimize(o.c.data());
        benchmark::ClobberMemory();
    }
    set_counters(st, s);
}

// A peer's result is checked against sk_sgemm once before it is timed (OpenBLAS's auto-detected
// kernels miscompute on some CPUs); a disagreeing case is reported as an error, not a figure.
template <typename Peer>
bool peer_agrees(const char *peer, const Operands &o, bool nt, Shape s, Peer run, std::string *why)
{
    std::vector<float> ref(s.m * s.n), got(s.m * s.n);
    sk_sgemm(SK_NOTRANS, nt ? SK_TRANS : SK_NOTRANS, s.m, s.n, s.k, 1.f, o.a.p, s.k, o.b.p,
             nt ? s.k : s.n, 0.f, ref.data(), s.n);
    run(got.data());
    /* inputs in [-1, 1): sum |a||b| <= k, and rounding errors grow like sqrt(k) 2^-24 of it in
       practice; a wrong kernel is off by O(|C|) ~ sqrt(k) / 3. 1e-4 k separates the two. */
    const double tol = 1e-4 * (double)s.k;
    for (size_t i = 0; i < ref.size(); i++) {
        const double d = std::fabs((double)ref[i] - (double)got[i]);
        if (!(d <= tol)) {
            *why = std::string(peer) + " result differs from sk_sgemm at element " +
                   std::to_string(i) + " by " + std::to_string(d);
            return false;
        }
    }
    return true;
}

// Checks a peer once, then times it (the same loop for every peer).
template <typename Peer>
void time_peer(benchmark::State &st, const char *peer, const Operands &o, bool nt, Shape s,
               Peer call)
{
    std::string why;
    if (!peer_agrees(peer, o, nt, s, call, &why)) {
        st.SkipWithError(why.c_str());
        return;
    }
    for (auto _ : st) {
        call(o.c.p);
        benchmark::DoNotOptimize(o.c.p);
        benchmark::ClobberMemory();
    }
    set_counters(st, s);
}

// sk_sgemm_packed on B packed once before the loop (a layer's weights), checked against
// sk_sgemm like a peer: contender "<isa>-packed".
void run_sk_packed(benchmark::State &st, sk_isa isa, bool nt, Shape s)
{
    skb::IsaScope scope(isa);
    Operands o(s);
    const size_t bytes = sk_sgemm_pack_b_size(s.k, s.n);
    std::vector<float> packed((bytes + 3) / 4 + 16);
    /* 64-byte aligned inside the vector */
    float *pk = packed.data() + (16 - (reinterpret_cast<uintptr_t>(packed.data()) / 4) % 16) % 16;
    if (sk_sgemm_pack_b(nt ? SK_TRANS : SK_NOTRANS, s.k, s.n, o.b.p, nt ? s.k : s.n, pk, bytes) !=
        SK_OK) {
        st.SkipWithError("sk_sgemm_pack_b failed");
        return;
    }
    time_peer(st, "sk_sgemm_packed", o, nt, s, [&](float *c) {
        sk_sgemm_packed(SK_NOTRANS, s.m, s.n, s.k, 1.f, o.a.p, s.k, pk, 0.f, c, s.n);
    });
}

// sk_sgemm_plan_run on a plan made once before the loop (as libxsmm's kernel is dispatched once),
// checked against sk_sgemm like a peer: contender "<isa>-plan".
void run_sk_plan(benchmark::State &st, sk_isa isa, bool nt, Shape s)
{
    skb::IsaScope scope(isa);
    Operands o(s);
    sk_sgemm_plan plan;
    if (sk_sgemm_plan_init(&plan, SK_NOTRANS, nt ? SK_TRANS : SK_NOTRANS, s.m, s.n, s.k, 1.f, s.k,
                           nt ? s.k : s.n, 0.f, s.n) != SK_OK) {
        st.SkipWithError("sk_sgemm_plan_init failed");
        return;
    }
    time_peer(st, "sk_sgemm_plan_run", o, nt, s,
              [&](float *c) { sk_sgemm_plan_run(&plan, o.a.p, o.b.p, c); });
}

#ifdef SK_BENCH_HAVE_OPENBLAS
void run_openblas(benchmark::State &st, bool nt, Shape s)
{
    Operands o(s);
    time_peer(st, "OpenBLAS (check OPENBLAS_CORETYPE)", o, nt, s, [&](float *c) {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, nt ? CblasTrans : CblasNoTrans, (blasint)s.m,
                    (blasint)s.n, (blasint)s.k, 1.f, o.a.p, (blasint)s.k, o.b.p,
                    (blasint)(nt ? s.k : s.n), 0.f, c, (blasint)s.n);
    });
}
#endif

#ifdef SK_BENCH_HAVE_ONEDNN
void run_onednn(benchmark::State &st, bool nt, Shape s)
{
    Operands o(s);
    time_peer(st, "oneDNN", o, nt, s, [&](float *c) {
        dnnl_sgemm('N', nt ? 'T' : 'N', (dnnl_dim_t)s.m, (dnnl_dim_t)s.n, (dnnl_dim_t)s.k, 1.f,
                   o.a.p, (dnnl_dim_t)s.k, o.b.p, (dnnl_dim_t)(nt ? s.k : s.n), 0.f, c,
                   (dnnl_dim_t)s.n);
    });
}
#endif

// The sum of n floats at p read with 32-byte loads (avx2) or the widest the core runs.
float read_b(bool avx2, const float *p, size_t n)
{
#if defined(__x86_64__) && defined(__GNUC__)
    return avx2 ? skb::read_sum_avx2(p, n) : skb::read_sum(p, n);
#else
    (void)avx2;
    return skb::read_sum(p, n);
#endif
}

// m <= 4: a plain read of B's bytes, the bound of a product that reads B once at 2 m flops per
// float of B (the matrix-vector product; 4 rows: 2 flops per byte, below the FMA peak from L3)
// (GFLOP/s: the product's flops at the read's speed, so that it pairs with the GEMM of the same
// shape).
void run_read(benchmark::State &st, int avx2, Shape s)
{
    const size_t n = s.k * s.n;
    skb::Buf b(n, -1.f, 1.f, 2);
    float sum = 0.f;
    for (auto _ : st) {
        sum += read_b(avx2 != 0, b.p, n);
        benchmark::DoNotOptimize(sum);
        benchmark::ClobberMemory();
    }
    set_counters(st, s);
}

// m = 1: sk_sgemm and a plain read of the same B buffer alternated call by call in one loop
// (contender "<isa>-vs-read"): both find B where the other left it and share each moment of a
// shared host, where "read" times another buffer in another loop. The read's loads are 32 bytes
// wide for avx2, the widest the core runs otherwise. Counters: GFLOP/s (the product's), x_read
// (the product's speed as a fraction of the read's, from the total time of each).
void run_sk_vs_read(benchmark::State &st, sk_isa isa, bool nt, Shape s)
{
    using clock = std::chrono::steady_clock;
    skb::IsaScope scope(isa);
    Operands o(s);
    const size_t nb = s.k * s.n;
    float sum = 0.f;
    auto read = [&] {
        sum += read_b(isa == SK_ISA_AVX2, o.b.p, nb);
        benchmark::DoNotOptimize(sum);
    };
    auto gemm = [&] {
        const sk_status r = sk_sgemm(SK_NOTRANS, nt ? SK_TRANS : SK_NOTRANS, s.m, s.n, s.k, 1.f,
                                     o.a.p, s.k, o.b.p, nt ? s.k : s.n, 0.f, o.c.p, s.n);
        benchmark::DoNotOptimize(o.c.p);
        benchmark::ClobberMemory();
        return r;
    };
    for (int i = 0; i < 3; i++) {
        if (gemm() != SK_OK) {
            st.SkipWithError("sk_sgemm failed");
            return;
        }
        read();
    }
    double t_sk = 0, t_read = 0;
    for (auto _ : st) {
        const auto t0 = clock::now();
        gemm();
        const auto t1 = clock::now();
        read();
        const auto t2 = clock::now();
        t_sk += std::chrono::duration<double>(t1 - t0).count();
        t_read += std::chrono::duration<double>(t2 - t1).count();
    }
    if (t_sk > 0 && t_read > 0) {
        st.counters["GFLOP/s"] =
            2e-9 * (double)s.m * (double)s.n * (double)s.k * (double)st.iterations() / t_sk;
        st.counters["x_read"] = t_read / t_sk;
    }
}

#ifdef SK_BENCH_HAVE_LIBXSMM
// Row-major C = op(A) B is column-major C^T = B^T op(A)^T: libxsmm's m, n, k are n, m, k, its A
// is our B and its B our A. NN only (libxsmm 1.17's JIT takes no transposed A). Shapes it makes no
// kernel for are reported as errors.
void run_libxsmm(benchmark::State &st, Shape s)
{
    Operands o(s);
    using bi = libxsmm_blasint;
    const bi m = (bi)s.n, n = (bi)s.m, k = (bi)s.k;
    const bi lda = m, ldb = k, ldc = m;
    const float alpha = 1.f, beta = 0.f;
    const int flags = LIBXSMM_GEMM_FLAG_NONE;
    const libxsmm_smmfunction f = libxsmm_smmdispatch(m, n, k, &lda, &ldb, &ldc, &alpha, &beta,
                                                      &flags, NULL);
    if (!f) {
        st.SkipWithError("libxsmm_smmdispatch made no kernel for this shape");
        return;
    }
    time_peer(st, "libxsmm", o, false, s, [&](float *c) { f(o.b.p, o.a.p, c); });
}
#endif

#ifdef SK_BENCH_HAVE_XNNPACK
// A fully-connected operator: x (m x k) times weights (k x n with XNN_FLAG_TRANSPOSE_WEIGHTS for
// NN; n x k, its native layout, for NT), packed once when the operator is created; no bias, no
// clamping.
void run_xnnpack(benchmark::State &st, bool nt, Shape s)
{
    static const bool ok = xnn_initialize(nullptr) == xnn_status_success;
    Operands o(s);
    xnn_operator_t op = nullptr;
    if (!ok || xnn_create_fully_connected_nc_f32(s.k, s.n, s.k, s.n, o.b.p, nullptr, -INFINITY,
                                                 INFINITY, nt ? 0 : XNN_FLAG_TRANSPOSE_WEIGHTS,
                                                 &op) != xnn_status_success) {
        st.SkipWithError("xnn_create_fully_connected_nc_f32 failed");
        return;
    }
    const size_t m = s.m;
    time_peer(st, "XNNPACK", o, nt, s, [&](float *c) {
        xnn_setup_fully_connected_nc_f32(op, m, o.a.p, c, nullptr);
        xnn_run_operator(op, nullptr);
    });
    xnn_delete_operator(op);
}
#endif

#if defined(__x86_64__)
// The FMA peak: bench/fma_peak.h's chains doing 2 m n k flops.
void run_peak(benchmark::State &st, int width, Shape s)
{
    const size_t steps = skb_fma_steps(2.0 * (double)s.m * (double)s.n * (double)s.k, width);
    volatile float x = 0.999f, y = 1e-3f;
    for (auto _ : st) {
        float r = skb_fma_chains(width, steps, x, y);
        benchmark::DoNotOptimize(r);
    }
    set_counters(st, s);
}
#endif

}  // namespace

void sk_register_gemm_benchmarks()
{
#ifdef SK_BENCH_HAVE_OPENBLAS
    openblas_set_num_threads(1);
#endif
#ifdef SK_BENCH_HAVE_ONEDNN
    /* oneDNN's CPU runtime here is OpenMP: single thread like every contender */
    omp_set_num_threads(1);
#endif
    std::vector<std::string> seen;
    for (const Shape &s : kShapes) {
        const std::string shape = skb::shape3(s.m, s.n, s.k);
        bool dup = false;
        for (const auto &x : seen) dup |= x == shape;
        if (dup) continue;
        seen.push_back(shape);
        const double flops = 2.0 * (double)s.m * (double)s.n * (double)s.k;
        for (int nt = 0; nt < 2; nt++) {
            const std::string var = nt ? "NT" : "NN";
            for (sk_isa isa : skb::isas()) {
                /* the reference: keep it short */
                if (isa == SK_ISA_SCALAR && flops > 0x1p28) continue;
                benchmark::RegisterBenchmark(
                    ("sgemm/" + std::string(sk_isa_name(isa)) + "/" + var + "/" + shape).c_str(),
                    run_sk, isa, nt != 0, s);
                if (isa != SK_ISA_SCALAR)
                    benchmark::RegisterBenchmark(("sgemm/" + std::string(sk_isa_name(isa)) +
                                                  "-packed/" + var + "/" + shape)
                                                     .c_str(),
                                                 run_sk_packed, isa, nt != 0, s);
                if (isa != SK_ISA_SCALAR)
                    benchmark::RegisterBenchmark(("sgemm/" + std::string(sk_isa_name(isa)) +
                                                  "-plan/" + var + "/" + shape)
                                                     .c_str(),
                                                 run_sk_plan, isa, nt != 0, s);
                if (isa != SK_ISA_SCALAR && s.m == 1)
                    benchmark::RegisterBenchmark(("sgemm/" + std::string(sk_isa_name(isa)) +
                                                  "-vs-read/" + var + "/" + shape)
                                                     .c_str(),
                                                 run_sk_vs_read, isa, nt != 0, s);
            }
#ifdef SK_BENCH_HAVE_OPENBLAS
            benchmark::RegisterBenchmark(("sgemm/openblas/" + var + "/" + shape).c_str(),
                                         run_openblas, nt != 0, s);
#endif
#ifdef SK_BENCH_HAVE_ONEDNN
            benchmark::RegisterBenchmark(("sgemm/onednn/" + var + "/" + shape).c_str(), run_onednn,
                                         nt != 0, s);
#endif
#ifdef SK_BENCH_HAVE_LIBXSMM
            if (!nt)
                benchmark::RegisterBenchmark(("sgemm/libxsmm/" + var + "/" + shape).c_str(),
                                             run_libxsmm, s);
#endif
#ifdef SK_BENCH_HAVE_XNNPACK
            benchmark::RegisterBenchmark(("sgemm/xnnpack/" + var + "/" + shape).c_str(),
                                         run_xnnpack, nt != 0, s);
#endif
            if (s.m <= 4)
                benchmark::RegisterBenchmark(("sgemm/read/" + var + "/" + shape).c_str(), run_read,
                                             0, s);
#if defined(__x86_64__)
            if (s.m <= 4 && sk_isa_available(SK_ISA_AVX2))
                benchmark::RegisterBenchmark(("sgemm/read-avx2/" + var + "/" + shape).c_str(),
                                             run_read, 1, s);
            if (sk_isa_available(SK_ISA_AVX2))
                benchmark::RegisterBenchmark(("sgemm/peak-avx2/" + var + "/" + shape).c_str(),
                                             run_peak, 8, s);
            if (sk_isa_available(SK_ISA_AVX512))
                benchmark::RegisterBenchmark(("sgemm/peak-avx512/" + var + "/" + shape).c_str(),
                                             run_peak, 16, s);
#endif
        }
    }
}
