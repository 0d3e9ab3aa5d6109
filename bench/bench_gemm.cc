// Benchmarks: the gemm family. sgemm/<contender>/<NN|NT>/<m>x<n>x<k>, contender = each available
// ISA, "openblas" (cblas_sgemm) or "onednn" (dnnl_sgemm), single thread. alpha = 1, beta = 0, random inputs, dense ld.
// Counter "GFLOP/s" = 2 m n k per second.
#include <cmath>
#include <string>
#include <vector>

#include "bench_util.h"

#ifdef SK_BENCH_HAVE_OPENBLAS
#include <cblas.h>
#endif
#ifdef SK_BENCH_HAVE_ONEDNN
#include <omp.h>
#include <oneapi/dnnl/dnnl.h>
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
};

struct Operands {
    skb::Buf a, b, c;
    Operands(const Shape &s) : a(s.m * s.k, -1.f, 1.f, 1), b(s.k * s.n, -1.f, 1.f, 2), c(s.m * s.n, -1.f, 1.f, 3) {}
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
void time_peer(benchmark::State &st, const char *peer, const Operands &o, bool nt, Shape s, Peer call)
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
        dnnl_sgemm('N', nt ? 'T' : 'N', (dnnl_dim_t)s.m, (dnnl_dim_t)s.n, (dnnl_dim_t)s.k, 1.f, o.a.p,
                   (dnnl_dim_t)s.k, o.b.p, (dnnl_dim_t)(nt ? s.k : s.n), 0.f, c, (dnnl_dim_t)s.n);
    });
}
#endif

}  // namespace

void sk_register_gemm_benchmarks()
{
#ifdef SK_BENCH_HAVE_OPENBLAS
    openblas_set_num_threads(1);
#endif
#ifdef SK_BENCH_HAVE_ONEDNN
    omp_set_num_threads(1); /* oneDNN's CPU runtime here is OpenMP: single thread like every contender */
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
                if (isa == SK_ISA_SCALAR && flops > 0x1p28) continue; /* the reference: keep it short */
                benchmark::RegisterBenchmark(("sgemm/" + std::string(sk_isa_name(isa)) + "/" + var + "/" + shape).c_str(),
                                             run_sk, isa, nt != 0, s);
            }
#ifdef SK_BENCH_HAVE_OPENBLAS
            benchmark::RegisterBenchmark(("sgemm/openblas/" + var + "/" + shape).c_str(), run_openblas,
                                         nt != 0, s);
#endif
#ifdef SK_BENCH_HAVE_ONEDNN
            benchmark::RegisterBenchmark(("sgemm/onednn/" + var + "/" + shape).c_str(), run_onednn,
                                         nt != 0, s);
#endif
        }
    }
}
