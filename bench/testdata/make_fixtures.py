#!/usr/bin/env python3
"""Writes the fixtures test_tools.py reads: python3 make_fixtures.py bench/testdata

before.json / after.json mimic Google Benchmark 1.7.1 JSON reports of sk_bench (3 repetitions with
mean/median/stddev/cv aggregates, single runs, time-only benchmarks, a /real_time name suffix, an
errored benchmark, one benchmark only in each file). The medians are round numbers so that the
expected ratios in test_tools.py can be computed by hand; the means differ from the medians on
purpose (sgemm/avx512) to check that compare uses the median.
"""
import json
import sys

ctx = {"date": "2026-11-29T20:00:00+00:00", "host_name": "fixture", "executable": "sk_bench",
       "num_cpus": 2, "mhz_per_cpu": 2596, "cpu_scaling_enabled": False, "caches": [],
       "load_avg": [0.1, 0.1, 0.1], "library_build_type": "release", "cpu_model": "Fixture CPU",
       "simdkern_version": "0.1.0", "simdkern_isas": "scalar,avx2,avx512",
       "simdkern_isa_default": "avx512",
       "openblas_version": "0.3.21", "sleef_version": "absent"}
fam_idx = [0]
def agg_entries(name, counter, vals, flops=None, suffix=""):
    """3 repetitions with rate values vals; aggregates mean/median/stddev/cv."""
    out = []
    fi = fam_idx[0]; fam_idx[0] += 1
    full = name + suffix
    def t_of(v):  # ns per iteration from a rate (GFLOP/s with flops per iter, else elem/s 4096)
        return (flops / (v * 1e9)) * 1e9 if flops else 4096 / v * 1e9
    for i, v in enumerate(vals):
        out.append({"name": full, "family_index": fi, "per_family_instance_index": 0,
                    "run_name": full, "run_type": "iteration", "repetitions": len(vals),
                    "repetition_index": i, "threads": 1, "iterations": 1000,
                    "real_time": t_of(v), "cpu_time": t_of(v), "time_unit": "ns", counter: v})
    if len(vals) > 1:
        s = sorted(vals); med = s[len(s)//2]; mean = sum(vals)/len(vals)
        sd = (sum((x-mean)**2 for x in vals)/(len(vals)-1))**0.5
        for an, v, unit in (("mean", mean, "time"), ("median", med, "time"),
                            ("stddev", sd, "time"), ("cv", sd/mean, "percentage")):
            out.append({"name": full + "_" + an, "family_index": fi, "per_family_instance_index": 0,
                        "run_name": full, "run_type": "aggregate", "repetitions": len(vals),
                        "threads": 1, "aggregate_name": an, "aggregate_unit": unit,
                        "iterations": len(vals),
                        "real_time": t_of(v) if an in ("mean", "median") else 1.0,
                        "cpu_time": 1.0, "time_unit": "ns", counter: v})
    return out
def iters_only(name, counter, vals):
    out = agg_entries(name, counter, vals)
    return [b for b in out if b["run_type"] == "iteration"]
def timed(name, ns, unit="ns"):
    fi = fam_idx[0]; fam_idx[0] += 1
    return [{"name": name, "family_index": fi, "per_family_instance_index": 0, "run_name": name,
             "run_type": "iteration", "repetitions": 1, "repetition_index": 0, "threads": 1,
             "iterations": 100000, "real_time": ns, "cpu_time": ns, "time_unit": unit}]
def error(name):
    fi = fam_idx[0]; fam_idx[0] += 1
    return [{"name": name, "family_index": fi, "per_family_instance_index": 0, "run_name": name,
             "run_type": "iteration", "repetitions": 1, "repetition_index": 0, "threads": 1,
             "error_occurred": True, "error_message": "sk_exp returned SK_EINVAL",
             "iterations": 0, "real_time": 0, "cpu_time": 0, "time_unit": "ns"}]
F64 = 2 * 64**3; F128 = 2 * 128**3
def before():
    fam_idx[0] = 0
    b = []
    b += agg_entries("sgemm/scalar/NN/64x64x64", "GFLOP/s", [10, 10, 9.5], F64)
    b += agg_entries("sgemm/avx2/NN/64x64x64", "GFLOP/s", [40, 41, 39], F64)
    b += agg_entries("sgemm/avx512/NN/64x64x64", "GFLOP/s", [80, 80, 50], F64)  # median 80, mean 70
    b += agg_entries("sgemm/openblas/NN/64x64x64", "GFLOP/s", [100, 99, 101], F64)
    b += agg_entries("sgemm/scalar/NN/128x128x128", "GFLOP/s", [10, 10, 10], F128, "/real_time")
    b += agg_entries("sgemm/avx2/NN/128x128x128", "GFLOP/s", [50, 50, 50], F128, "/real_time")
    b += agg_entries("sgemm/openblas/NN/128x128x128", "GFLOP/s", [50, 49, 51], F128, "/real_time")
    b += agg_entries("exp/scalar/L1/4096", "elem/s", [5e8])
    b += agg_entries("exp/avx2/L1/4096", "elem/s", [2e9])
    b += timed("misc/scalar/x/1", 0.4, "us")
    b += timed("misc/avx2/x/1", 100)
    b += timed("gone/avx2/x/1", 100)
    b += error("err/avx2/x/1")
    # Variants naming the method (fused ISA paths vs an unfused composition): paired by shape.
    b += agg_entries("mha/avx2/fused/8x1x512x64", "GFLOP/s", [40, 40, 40], 4 * 8 * 512 * 64)
    b += agg_entries("mha/composition-openblas-sleef/unfused/8x1x512x64", "GFLOP/s", [20, 20, 20],
                     4 * 8 * 512 * 64)
    return b
def after():
    fam_idx[0] = 0
    b = []
    b += agg_entries("sgemm/scalar/NN/64x64x64", "GFLOP/s", [10, 10, 10], F64)
    b += agg_entries("sgemm/avx2/NN/64x64x64", "GFLOP/s", [44, 44, 43], F64)
    b += agg_entries("sgemm/avx512/NN/64x64x64", "GFLOP/s", [72, 72, 90], F64)  # median 72, mean 78
    b += agg_entries("sgemm/openblas/NN/64x64x64", "GFLOP/s", [100, 100, 100], F64)
    b += agg_entries("sgemm/scalar/NN/128x128x128", "GFLOP/s", [10, 10, 10], F128)
    b += agg_entries("sgemm/avx2/NN/128x128x128", "GFLOP/s", [50, 50, 50], F128)
    b += agg_entries("sgemm/openblas/NN/128x128x128", "GFLOP/s", [50, 50, 50], F128)
    b += iters_only("exp/scalar/L1/4096", "elem/s", [4e8, 9e8, 5e8])  # no aggregates: median 5e8
    b += agg_entries("exp/avx2/L1/4096", "elem/s", [2.2e9])
    b += timed("misc/scalar/x/1", 400)
    b += timed("misc/avx2/x/1", 80)
    b += timed("new/avx2/x/1", 100)
    b += error("err/avx2/x/1")
    b += agg_entries("mha/avx2/fused/8x1x512x64", "GFLOP/s", [40, 40, 40], 4 * 8 * 512 * 64)
    b += agg_entries("mha/composition-openblas-sleef/unfused/8x1x512x64", "GFLOP/s", [20, 20, 20],
                     4 * 8 * 512 * 64)
    return b
d = sys.argv[1]
json.dump({"context": ctx, "benchmarks": before()}, open(d + "/before.json", "w"), indent=1)
json.dump({"context": dict(ctx, date="2026-11-29T21:00:00+00:00"), "benchmarks": after()},
          open(d + "/after.json", "w"), indent=1)
open(d + "/bad.json", "w").write('{"context": {}, "benchmarks": [ '
                                 '{"name": "sgemm/avx2/NN/64x64x64", \n')
json.dump({"context": {}, "results": []}, open(d + "/notgbench.json", "w"))
