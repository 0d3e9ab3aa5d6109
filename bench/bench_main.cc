// simdkern benchmark suite: one binary, every family x every available ISA x every peer found at
// configure time. Standard Google Benchmark flags apply (--benchmark_filter, --benchmark_format=json,
// --benchmark_out=FILE, --benchmark_repetitions=N).
#include <string>

#include "bench_util.h"

int main(int argc, char **argv)
{
    std::string list;
    for (sk_isa i : skb::isas()) list += std::string(list.empty() ? "" : ",") + sk_isa_name(i);
    benchmark::AddCustomContext("simdkern_version", sk_version());
    benchmark::AddCustomContext("simdkern_isas", list);
    sk_register_gemm_benchmarks();
    sk_register_math_benchmarks();
    sk_register_attention_benchmarks();
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
