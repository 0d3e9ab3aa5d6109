#!/usr/bin/env python3
"""Tests bench/compare and bench/report on the fixtures in this directory (meson suite 'tools').

usage: test_tools.py COMPARE REPORT TESTDATA_DIR

Fixtures (regenerate with make_fixtures.py): before.json / after.json are Google Benchmark 1.7.1
reports with known medians (see make_fixtures.py for the numbers the expectations below follow
from); bad.json is truncated JSON; notgbench.json is JSON without a "benchmarks" list.
"""

import math
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

COMPARE, REPORT, DATA = sys.argv[1], sys.argv[2], sys.argv[3]
BEFORE, AFTER = os.path.join(DATA, "before.json"), os.path.join(DATA, "after.json")
failures = []
checks = [0]


def run(tool, *args):
    p = subprocess.run([sys.executable, tool] + list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True)
    return p.returncode, p.stdout, p.stderr


def check(cond, what, detail=""):
    checks[0] += 1
    if not cond:
        failures.append("%s%s" % (what, ("\n    " + detail.replace("\n", "\n    "))
                                   if detail else ""))


def ratio_of(out, label):
    """The ratio column of the table row whose first column is `label`."""
    for line in out.splitlines():
        if line.startswith(label + " ") or line.startswith(label + "  "):
            return float(line.split()[-1])
    return None


def geomean_of(out):
    m = re.search(r"geomean ratio: ([0-9.]+) over (\d+) pairs", out)
    return (float(m.group(1)), int(m.group(2))) if m else (None, None)


def compare_files():
    rc, out, err = run(COMPARE, BEFORE, AFTER)
    check(rc == 0, "before/after: exit 0", err)
    # Medians, not means: avx512 64^3 medians 80 -> 72 (means 70 -> 78 would give 1.114).
    check(ratio_of(out, "sgemm/avx512/NN/64x64x64") == 0.9, "median aggregate used", out)
    check(ratio_of(out, "sgemm/avx2/NN/64x64x64") == 1.1, "rate ratio after/before", out)
    # /real_time suffix in before.json only: still paired.
    check(ratio_of(out, "sgemm/avx2/NN/128x128x128") == 1.0, "Google Benchmark suffix stripped",
          out)
    # Repetitions without aggregates in after.json: median of 4e8, 9e8, 5e8 = 5e8.
    check(ratio_of(out, "exp/scalar/L1/4096") == 1.0, "median computed from repetitions", out)
    # No rate counter: 1/real_time, units normalized (0.4 us vs 400 ns; 100 ns -> 80 ns).
    check(ratio_of(out, "misc/scalar/x/1") == 1.0, "time units normalized", out)
    check(ratio_of(out, "misc/avx2/x/1") == 1.25, "time ratio is a speed ratio", out)
    gm, n = geomean_of(out)
    want = math.exp((math.log(1.1) * 2 + math.log(0.9) + math.log(1.25)) / 13)
    check(n == 13 and gm is not None and abs(gm - want) < 1e-3,
          "geomean over 13 pairs = %.3f" % want, out)
    check(re.search(r"only in before\): 1\n  gone/avx2/x/1\n", out) is not None,
          "missing pair listed (before)", out)
    check(re.search(r"only in after\): 1\n  new/avx2/x/1\n", out) is not None,
          "missing pair listed (after)", out)
    check("err/avx2/x/1: sk_exp returned SK_EINVAL" in out, "errored benchmark listed", out)

    # Gates.
    rc, out, _ = run(COMPARE, BEFORE, AFTER, "--contender", "avx512", "--fail-below", "0.95")
    check(rc == 1 and "FAIL: geomean 0.900 < 0.950" in out,
          "--fail-below fails on a 10% regression", out)
    rc, out, _ = run(COMPARE, BEFORE, AFTER, "--contender", "avx512", "--threshold", "15")
    check(rc == 0 and "PASS" in out, "--threshold 15 passes a 10% regression", out)
    rc, out, _ = run(COMPARE, BEFORE, AFTER, "--contender", "avx512", "--threshold", "5")
    check(rc == 1, "--threshold 5 fails a 10% regression", out)
    rc, out, _ = run(COMPARE, BEFORE, AFTER, "--fail-below", "1.0")
    check(rc == 0, "--fail-below 1.0 passes geomean 1.024", out)
    rc, out, _ = run(COMPARE, BEFORE, AFTER, "--fail-below", "1.0", "--fail-any-below", "0.95")
    check(rc == 1 and "FAIL: sgemm/avx512/NN/64x64x64 ratio 0.900" in out,
          "--fail-any-below catches one regressed benchmark", out)
    rc, out, _ = run(COMPARE, BEFORE, AFTER, "--contender", "avx2", "--filter", "^sgemm/")
    check(rc == 0 and geomean_of(out)[1] == 2, "--contender + --filter select 2 pairs", out)
    rc, out, _ = run(COMPARE, BEFORE, AFTER, "--format", "md")
    check(rc == 0 and "| sgemm/avx2/NN/64x64x64 | GFLOP/s |" in out, "markdown table", out)


def compare_within():
    rc, out, err = run(COMPARE, "--within", BEFORE, "avx2", "scalar")
    check(rc == 0, "within avx2 scalar: exit 0", err)
    check(ratio_of(out, "sgemm/*/NN/128x128x128") == 5.0, "within: rate ratio avx2/scalar", out)
    check(ratio_of(out, "misc/*/x/1") == 4.0, "within: time ratio scalar/avx2", out)
    gm, n = geomean_of(out)
    check(n == 4 and abs(gm - (4 * 5 * 4 * 4) ** 0.25) < 1e-3, "within: geomean of 4, 5, 4, 4", out)
    rc, out, _ = run(COMPARE, "--within", BEFORE, "avx2", "scalar", "--fail-below", "4.5")
    check(rc == 1, "within: gate fails below threshold", out)
    # 'best' = fastest ISA per shape: avx512 (80) at 64^3, avx2 (50) at 128^3, vs openblas 100, 50.
    rc, out, _ = run(COMPARE, "--within", BEFORE, "best", "openblas")
    check(rc == 0 and ratio_of(out, "sgemm/*/NN/64x64x64") == 0.8 and
          "(avx512 vs openblas)" in out and ratio_of(out, "sgemm/*/NN/128x128x128") == 1.0,
          "within: best simdkern ISA vs a peer", out)
    check(re.search(r"families without both best and openblas\): 4\n  exp: 1 case\n", out)
          is not None, "within: families lacking a contender summarized", out)
    rc, out, _ = run(COMPARE, "--within", BEFORE, "avx512", "openblas")
    check(rc == 0 and geomean_of(out)[1] == 1 and
          re.search(r"only in openblas\): 1\n  sgemm/\*/NN/128x128x128\n", out) is not None,
          "within: missing pair in a shared family listed", out)
    # mha: avx2/fused vs composition-openblas-sleef/unfused: the variant names the method.
    rc, out, _ = run(COMPARE, "--within", BEFORE, "avx2", "composition-openblas-sleef")
    check(rc == 0 and ratio_of(out, "mha/*/*/8x1x512x64") == 2.0 and geomean_of(out)[1] == 1,
          "within: pairs across method variants", out)


def compare_errors():
    for args, what in (([os.path.join(DATA, "nonexistent.json"), AFTER], "cannot read"),
                       ([os.path.join(DATA, "bad.json"), AFTER], "not valid JSON"),
                       ([BEFORE, os.path.join(DATA, "notgbench.json")], "not a Google Benchmark"),
                       (["--within", os.path.join(DATA, "bad.json"), "a", "b"], "not valid JSON"),
                       ([BEFORE, AFTER, "--filter", "nomatch$"], "no benchmark pairs"),
                       (["--within", BEFORE, "neon", "sve"], "no benchmarks of contender"),
                       (["--within", BEFORE, "avx-512", "scalar"],
                        "no benchmarks of contender 'avx-512'"),
                       ([BEFORE], "need two reports"),
                       ([BEFORE, AFTER, "--threshold", "150"], "percentage")):
        rc, out, err = run(COMPARE, *args)
        check(rc == 2 and what in err and "Traceback" not in err,
              "bad input exits 2 with '%s': %s" % (what, " ".join(args)),
              "rc=%d\n%s%s" % (rc, out, err))


def report_from_json():
    with tempfile.TemporaryDirectory() as d:
        rc, out, err = run(REPORT, "--from-json", BEFORE, "--out-dir", d)
        check(rc == 0, "report --from-json: exit 0", err)
        md = open(os.path.join(d, "report.md")).read() if rc == 0 else ""
        check("## sgemm — GFLOP/s" in md, "report: sgemm table", md)
        row = [l for l in md.splitlines() if l.startswith("| NN | 64x64x64 |")]
        check(len(row) == 1 and row[0].rstrip().endswith("| avx512 | 0.80× |")
              and "**80 (1.00)**" in row[0] and "40 (0.50)" in row[0],
              "report: ratios vs best ISA and best ÷ peer", "\n".join(row) or md)
        check("best simdkern ÷ openblas **0.89×** (2 shapes)" in md, "report: headline geomean", md)
        check("| - | 8x1x512x64 | **40 (1.00)** | 20 (0.50) | avx2 | 2.00× |" in md and
              "composition-openblas-sleef (unfused)" in md, "report: method variants share a row",
              md)
        check("err/avx2/x/1" in md, "report: errored benchmark listed", md)
        svg = os.path.join(d, "plot-sgemm-NN.svg")
        check(os.path.exists(svg), "report: sgemm plot written")
        if os.path.exists(svg):
            root = ET.parse(svg).getroot()
            ns = "{http://www.w3.org/2000/svg}"
            lines = root.findall(ns + "polyline")
            labels = [t.text for t in root.iter(ns + "text")]
            check(len(lines) == 3 and all(c in labels for c in ("scalar", "avx2", "openblas")),
                  "report: one line per contender with >1 size", str(labels))
        rc, out, err = run(COMPARE, "--within", d, "avx2", "scalar")
        check(rc == 0 and geomean_of(out)[1] == 4, "compare reads a report directory", out + err)
        rc, _, err = run(COMPARE, DATA, AFTER)
        check(rc == 2 and "without report.json" in err, "compare: directory without report.json",
              err)
        rc, _, err = run(REPORT, "--from-json", os.path.join(DATA, "bad.json"), "--out-dir", d)
        check(rc == 2 and "not valid JSON" in err, "report: bad JSON exits 2", err)
        rc, _, err = run(REPORT, "--bench", os.path.join(d, "no_such_sk_bench"), "--out-dir", d)
        check(rc != 0 and "not found" in err and "Traceback" not in err,
              "report: missing binary is a clear error", err)


def thread_axis():
    """The thread axis: variants NN@t1 / NN@t2 of the same case, peers at the same thread count."""
    import json

    def bm(name, gflops):
        return {"name": name, "run_name": name, "run_type": "iteration", "repetitions": 1,
                "repetition_index": 0, "threads": 1, "iterations": 10, "real_time": 1000.0,
                "cpu_time": 1000.0, "time_unit": "ns", "GFLOP/s": gflops}
    rep = {"context": {"date": "2026-12-01T00:00:00+00:00", "host_name": "fixture", "num_cpus": 2},
           "benchmarks": [bm("sgemm/avx512/NN@t1/1024x1024x1024", 100),
                          bm("sgemm/avx512/NN@t2/1024x1024x1024", 190),
                          bm("sgemm/openblas/NN@t1/1024x1024x1024", 110),
                          bm("sgemm/openblas/NN@t2/1024x1024x1024", 200),
                          bm("sgemm/avx512/NN/1024x1024x1024", 101)]}
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "threads.json")
        with open(path, "w") as f:
            json.dump(rep, f)
        rc, out, err = run(COMPARE, "--threads", path, "1", "2")
        check(rc == 0, "threads: exit 0", err)
        check(ratio_of(out, "sgemm/avx512/NN@t*/1024x1024x1024") == 1.9, "threads: t2 / t1", out)
        check(ratio_of(out, "sgemm/openblas/NN@t*/1024x1024x1024") == 1.818,
              "threads: a peer's t2 / t1", out)
        check(geomean_of(out)[1] == 2, "threads: the plain variant is not on the axis", out)
        rc, out, err = run(COMPARE, "--within", path, "avx512", "openblas")
        check(ratio_of(out, "sgemm/*/NN@t2/1024x1024x1024") == 0.95,
              "threads: contenders paired at the same thread count", out)
        rc, _, err = run(COMPARE, "--threads", path, "1", "4")
        check(rc == 2 and "no benchmarks on 1 and on 4 threads" in err, "threads: missing count",
              err)
        rc, _, err = run(REPORT, "--from-json", path, "--out-dir", d, "--no-plots")
        md = open(os.path.join(d, "report.md")).read() if rc == 0 else err
        check("## Thread axis" in md
              and "| sgemm | avx512 | NN | 1024x1024x1024 | GFLOP/s | 100 | 190 | 1.90× |" in md,
              "report: thread-axis table with the speed-up", md)


def fractions():
    """x_read (a case and a read of the same bytes timed in one loop) in the report's own table."""
    import json

    def bm(name, gflops, x=None):
        b = {"name": name, "run_name": name, "run_type": "iteration", "repetitions": 1,
             "repetition_index": 0, "threads": 1, "iterations": 10, "real_time": 1000.0,
             "cpu_time": 1000.0, "time_unit": "ns", "GFLOP/s": gflops}
        if x is not None:
            b["x_read"] = x
        return b
    rep = {"context": {"date": "2026-12-07T00:00:00+00:00", "host_name": "fixture", "num_cpus": 2},
           "benchmarks": [bm("sgemm/avx512/NN/1x1024x1024", 45),
                          bm("sgemm/avx512-vs-read/NN/1x1024x1024", 44, 0.93),
                          bm("sgemm/avx2-vs-read/NT/1x512x512", 50, 1.125)]}
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "fractions.json")
        with open(path, "w") as f:
            json.dump(rep, f)
        rc, _, err = run(REPORT, "--from-json", path, "--out-dir", d, "--no-plots")
        md = open(os.path.join(d, "report.md")).read() if rc == 0 else err
        check("## Against a bound in the same loop" in md
              and "| sgemm | avx512-vs-read | NN | 1x1024x1024 | GFLOP/s | 44 | 0.93 |" in md
              and "| sgemm | avx2-vs-read | NT | 1x512x512 | GFLOP/s | 50 | 1.12 |" in md
              and "| sgemm | avx512 | NN | 1x1024x1024 | GFLOP/s | 45 |" not in md,
              "report: x_read in its own table, only for the cases that measure it", md)
        rc, _, err = run(REPORT, "--from-json", BEFORE, "--out-dir", d, "--no-plots")
        md = open(os.path.join(d, "report.md")).read() if rc == 0 else err
        check(rc == 0 and "Against a bound" not in md, "report: no x_read, no table", md)


def within_runs():
    """'peers' (the fastest peer library, never a bound) and --within over several runs."""
    import json

    def bm(name, gflops):
        return {"name": name, "run_name": name, "run_type": "iteration", "repetitions": 1,
                "repetition_index": 0, "threads": 1, "iterations": 10, "real_time": 1000.0,
                "cpu_time": 1000.0, "time_unit": "ns", "GFLOP/s": gflops}
    runs = ({"32x32x32": {"avx512": 90, "libxsmm": 100, "onednn": 80, "peak-avx512": 110},
             "1x512x512": {"avx512": 60, "onednn": 50, "read": 70}},
            {"32x32x32": {"avx512": 95, "libxsmm": 100, "onednn": 96, "peak-avx512": 110},
             "1x512x512": {"avx512": 45, "onednn": 50, "read": 70}},
            {"32x32x32": {"avx512": 80, "libxsmm": 100, "peak-avx512": 110}})
    with tempfile.TemporaryDirectory() as d:
        paths = []
        for i, r in enumerate(runs):
            rep = {"context": {"date": "2026-12-06T00:00:00+00:00", "host_name": "fixture",
                               "num_cpus": 2},
                   "benchmarks": [bm("sgemm/%s/NN/%s" % (c, shape), v)
                                  for shape, cs in r.items() for c, v in cs.items()]}
            paths.append(os.path.join(d, "run%d.json" % i))
            with open(paths[-1], "w") as f:
                json.dump(rep, f)
        rc, out, err = run(COMPARE, "--within", paths[0], "avx512", "peers")
        check(rc == 0 and ratio_of(out, "sgemm/*/NN/32x32x32") == 0.9
              and "(avx512 vs libxsmm)" in out and ratio_of(out, "sgemm/*/NN/1x512x512") == 1.2
              and "(avx512 vs onednn)" in out, "peers: the fastest peer, not a bound", out + err)
        rc, out, err = run(COMPARE, "--within", paths[0], "avx512", "peers", paths[1], paths[2])

        def cols(label):
            for line in out.splitlines():
                if line.startswith(label + " "):
                    return line.split()[-4:]
            return None
        check(rc == 0 and "3 runs" in out and cols("sgemm/*/NN/32x32x32") == [
            "3", "0.800", "0.950", "0.900"], "runs: the median ratio and the range", out + err)
        # a case missing from one run: the median of the runs that have it (1.2 and 0.9)
        check(cols("sgemm/*/NN/1x512x512") == ["2", "0.900", "1.200", "1.050"],
              "runs: a case in two of three runs", out)
        rc, out, _ = run(COMPARE, "--within", paths[0], "avx512", "peers", paths[1], paths[2],
                         "--fail-any-below", "0.85")
        check(rc == 0 and "PASS" in out, "runs: the gate reads the medians (a run at 0.80)", out)
        rc, out, _ = run(COMPARE, "--within", paths[0], "avx512", "peers", paths[1], paths[2],
                         "--fail-any-below", "0.95")
        check(rc == 1 and "ratio 0.900 < 0.950" in out, "runs: the gate fails on a median", out)
        rc, _, err = run(COMPARE, "--threads", paths[0], "1", "2", paths[1])
        check(rc == 2, "runs: only with --within", err)


def fastest_repetition():
    """--stat best: the fastest repetition of each benchmark instead of the median."""
    rc, out, err = run(COMPARE, BEFORE, AFTER, "--stat", "best")
    check(rc == 0 and "fastest repetitions" in out, "--stat best: exit 0, said in the title",
          out + err)
    # avx512 64^3: fastest 80 -> 90 (medians 80 -> 72); avx2: 41 -> 44.
    check(ratio_of(out, "sgemm/avx512/NN/64x64x64") == 1.125, "--stat best: fastest repetition",
          out)
    check(ratio_of(out, "sgemm/avx2/NN/64x64x64") == 1.073, "--stat best: rate ratio", out)
    # Repetitions without aggregates (4e8, 9e8, 5e8) against a single run (5e8).
    check(ratio_of(out, "exp/scalar/L1/4096") == 1.8, "--stat best: from bare repetitions", out)
    check(ratio_of(out, "misc/avx2/x/1") == 1.25, "--stat best: single runs as they are", out)
    rc, _, err = run(COMPARE, BEFORE, AFTER, "--stat", "mean")
    check(rc == 2, "--stat: unknown statistic exits 2", err)
    with tempfile.TemporaryDirectory() as d:
        rc, _, err = run(REPORT, "--from-json", AFTER, "--out-dir", d, "--no-plots", "--stat",
                         "best")
        md = open(os.path.join(d, "report.md")).read() if rc == 0 else err
        row = [l for l in md.splitlines() if l.startswith("| NN | 64x64x64 |")]
        check("(the fastest shown)" in md and len(row) == 1 and "**90 (1.00)**" in row[0],
              "report --stat best: the fastest repetitions", "\n".join(row) or md)


compare_files()
fastest_repetition()
compare_within()
within_runs()
thread_axis()
compare_errors()
report_from_json()
fractions()
if failures:
    sys.stderr.write("FAILED %d of %d checks:\n" % (len(failures), checks[0]))
    for f in failures:
        sys.stderr.write("  " + f + "\n")
    sys.exit(1)
print("bench tools: %d checks passed" % checks[0])
