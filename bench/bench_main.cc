// simdkern benchmark suite: one binary, every family x every available ISA x every peer found at
// configure time. Standard Google Benchmark flags apply (--benchmark_filter,
// --benchmark_format=json, --benchmark_out=FILE, --benchmark_repetitions=N). bench/report runs it
// and summarizes the JSON; bench/compare compares two reports.
//
// The report's "context" gets, besides Google Benchmark's own fields (host, caches, MHz, load):
//   cpu_model, cpu_vendor, cpu_signature  what the CPU is (/proc/cpuinfo, else CPUID brand string)
//   cpu_simd_flags                        the SIMD feature flags the kernel reports
//   simdkern_version, simdkern_isas       library version; ISAs usable here, in tier order
//   simdkern_isa_default                  the path plain calls take (SIMDKERN_ISA may change it)
//   compiler, build                       how sk_bench itself was compiled
//   openblas_*, sleef_version             peers compiled in ("absent" when not found at
//                                         configure time)
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "bench_util.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#ifdef SK_BENCH_HAVE_ONEDNN
#include <omp.h>
#include <oneapi/dnnl/dnnl.h>
#endif
#ifdef SK_BENCH_HAVE_OPENBLAS
#include <cblas.h>
#endif
#ifdef SK_BENCH_HAVE_SLEEF
#include <sleef.h>
#endif

namespace {

std::string trim(const std::string &s)
{
    size_t b = s.find_first_not_of(" \t\r\n"), e = s.find_last_not_of(" \t\r\n");
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

// First value of "key : value" in /proc/cpuinfo ("" when absent, e.g. not Linux).
std::string cpuinfo_field(const char *key)
{
    std::ifstream f("/proc/cpuinfo");
    std::string line;
    while (std::getline(f, line)) {
        size_t colon = line.find(':');
        if (colon == std::string::npos) continue;
        if (trim(line.substr(0, colon)) == key) return trim(line.substr(colon + 1));
    }
    return std::string();
}

#if defined(__x86_64__) || defined(__i386__)
// CPUID leaves 0x80000002..4: the 48-byte processor brand string.
std::string cpuid_brand()
{
    unsigned r[12] = {0};
    if (__get_cpuid_max(0x80000000u, nullptr) < 0x80000004u) return std::string();
    for (unsigned i = 0; i < 3; i++)
        __get_cpuid(0x80000002u + i, &r[4 * i], &r[4 * i + 1], &r[4 * i + 2], &r[4 * i + 3]);
    char s[49];
    std::memcpy(s, r, 48);
    s[48] = 0;
    return trim(s);
}

// CPUID leaf 0 vendor and leaf 1 family/model/stepping (with the extended fields folded in).
void cpuid_signature(std::string &vendor, std::string &sig)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(0, &a, &b, &c, &d)) return;
    char v[13];
    std::memcpy(v, &b, 4);
    std::memcpy(v + 4, &d, 4);
    std::memcpy(v + 8, &c, 4);
    v[12] = 0;
    vendor = v;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return;
    unsigned fam = (a >> 8) & 0xf, model = (a >> 4) & 0xf, step = a & 0xf;
    if (fam == 0xf) fam += (a >> 20) & 0xff;               /* extended family */
    if (fam == 0x6 || fam >= 0xf) model |= ((a >> 16) & 0xf) << 4; /* extended model */
    char buf[64];
    std::snprintf(buf, sizeof buf, "family 0x%x model 0x%x stepping %u", fam, model, step);
    sig = buf;
}
#endif

// The SIMD-related words of the cpuinfo "flags" (x86) or "Features" (arm64) line.
std::string simd_flags()
{
    static const char *const interesting[] = {
        "sse4_2", "avx", "f16c", "fma", "avx2", "avx512f", "avx512dq", "avx512bw", "avx512vl",
        "avx512_bf16", "avx512_fp16", "avx512vnni", "avx_vnni", "amx_tile",
        "asimd", "asimdhp", "asimddp", "sve", "sve2", "sme"};
    std::string line = cpuinfo_field("flags");
    if (line.empty()) line = cpuinfo_field("Features");
    std::istringstream in(line);
    std::string w, out;
    while (in >> w)
        for (const char *k : interesting)
            if (w == k) out += (out.empty() ? "" : " ") + w;
    return out;
}

std::string env_or(const char *name, const char *dflt)
{
    const char *v = std::getenv(name);
    return v ? std::string(v) : std::string(dflt);
}

void add_context()
{
    std::string model = cpuinfo_field("model name"), vendor, sig;
#if defined(__x86_64__) || defined(__i386__)
    std::string brand = cpuid_brand();
    /* the longer of the two names is more precise */
    if (brand.size() > model.size()) model = brand;
    cpuid_signature(vendor, sig);
#endif
    if (model.empty()) {
        std::string part = cpuinfo_field("CPU part"); /* arm64 cpuinfo has no model name */
        model = part.empty() ? "unknown"
                             : "implementer " + cpuinfo_field("CPU implementer") + " part " + part;
    }
    benchmark::AddCustomContext("cpu_model", model);
    if (!vendor.empty()) benchmark::AddCustomContext("cpu_vendor", vendor);
    if (!sig.empty()) benchmark::AddCustomContext("cpu_signature", sig);
    benchmark::AddCustomContext("cpu_simd_flags", simd_flags());

    std::string list;
    for (sk_isa i : skb::isas()) list += std::string(list.empty() ? "" : ",") + sk_isa_name(i);
    benchmark::AddCustomContext("simdkern_version", sk_version());
    benchmark::AddCustomContext("simdkern_isas", list);
    benchmark::AddCustomContext("simdkern_isa_default", sk_isa_name(sk_isa_active()));
    benchmark::AddCustomContext("simdkern_isa_env", env_or("SIMDKERN_ISA", "(unset)"));
#if defined(__clang__)
    benchmark::AddCustomContext("compiler", "clang " __clang_version__);
#elif defined(__GNUC__)
    benchmark::AddCustomContext("compiler", "gcc " __VERSION__);
#endif
#ifdef SK_BENCH_BUILDTYPE
    benchmark::AddCustomContext("build", SK_BENCH_BUILDTYPE);
#endif

#ifdef SK_BENCH_HAVE_OPENBLAS
    std::string ov;
#ifdef OPENBLAS_VERSION
    ov = trim(OPENBLAS_VERSION); /* " OpenBLAS 0.3.21 " */
    if (ov.rfind("OpenBLAS ", 0) == 0) ov = ov.substr(9);
#endif
#ifdef SK_BENCH_OPENBLAS_PC_VERSION
    if (ov.empty()) ov = SK_BENCH_OPENBLAS_PC_VERSION;
#endif
    benchmark::AddCustomContext("openblas_version", ov);
    benchmark::AddCustomContext("openblas_config", trim(openblas_get_config()));
    benchmark::AddCustomContext("openblas_corename", trim(openblas_get_corename()));
    benchmark::AddCustomContext("openblas_threads", std::to_string(openblas_get_num_threads()));
    benchmark::AddCustomContext("openblas_coretype_env", env_or("OPENBLAS_CORETYPE", "(unset)"));
#else
    benchmark::AddCustomContext("openblas_version", "absent");
#endif
#ifdef SK_BENCH_HAVE_ONEDNN
    {
        const dnnl_version_t *v = dnnl_version();
        benchmark::AddCustomContext("onednn_version", std::to_string(v->major) + "." +
                                                          std::to_string(v->minor) + "." +
                                                          std::to_string(v->patch));
        benchmark::AddCustomContext("onednn_cpu_runtime",
                                    v->cpu_runtime == DNNL_RUNTIME_OMP ? "omp" : "other");
        benchmark::AddCustomContext("onednn_threads", std::to_string(omp_get_max_threads()));
    }
#else
    benchmark::AddCustomContext("onednn_version", "absent");
#endif
#ifdef SK_BENCH_HAVE_SLEEF
    benchmark::AddCustomContext("sleef_version", std::to_string(SLEEF_VERSION_MAJOR) + "." +
                                                     std::to_string(SLEEF_VERSION_MINOR) + "." +
                                                     std::to_string(SLEEF_VERSION_PATCHLEVEL));
#else
    benchmark::AddCustomContext("sleef_version", "absent");
#endif
}

}  // namespace

int main(int argc, char **argv)
{
    sk_register_gemm_benchmarks();
    sk_register_math_benchmarks();
    sk_register_attention_benchmarks();
    sk_register_thread_benchmarks();
    add_context(); /* after registration: it reports peer settings (threads) the families chose */
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
