"""Reading simdkern benchmark reports (Google Benchmark JSON), shared by bench/report and
bench/compare.

Python 3 standard library only.

Benchmark names are "<family>/<contender>/<variant>/<shape>", e.g. sgemm/avx512/NN/1024x1024x1024.
Google Benchmark may append its own components (/real_time, /min_time:0.100, /repeats:3,
/iterations:N, /threads:N, /manual_time); they are stripped before pairing.

One Entry per benchmark name: the "median" aggregate when the run had repetitions (else "mean",
else the median computed from the repetitions, else the single run); with stat="best", the fastest
repetition (the one with the shortest real time) when the file holds the repetitions.
"""

import json
import math
import os
import re

# Rate counters, in order of preference: the first one a pair of benchmarks shares is compared.
RATE_COUNTERS = ("GFLOP/s", "elem/s", "GB/s", "items_per_second", "bytes_per_second")
# Counters that are a benchmark's speed as a fraction of a bound timed in the same loop.
FRACTION_COUNTERS = ("x_read",)
# Contenders that are simdkern's own paths (everything else is a peer), in tier order.
ISAS = ("scalar", "avx2", "avx512", "neon")
# Pseudo-contender: the fastest simdkern ISA for each family/variant/shape.
BEST_ALIASES = ("best", "simdkern")
# Pseudo-contender: the fastest peer library for each family/variant/shape (bounds such as
# "peak-avx512", "read" and "memcpy" and simdkern's own compositions are not peers here).
PEER_ALIASES = ("peers",)
# Contenders that measure a bound of the work, not a library doing it.
BOUNDS = ("peak", "read", "memcpy")
# How the repetitions of a benchmark become one value: their median, or the fastest of them. On a
# shared machine, time stolen by other guests only ever slows a repetition down, so the fastest
# repetitions of two contenders run side by side compare what each can do; the medians compare
# that plus how much of the noise each drew.
STATS = ("median", "best")

_TIME_UNIT = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
_GB_SUFFIX = re.compile(r"^(real_time|manual_time|process_time|min_time:.*|min_warmup_time:.*|"
                        r"iterations:\d+|repeats:\d+|threads:\d+)$")
_AGG_SUFFIX = re.compile(r"_(mean|median|stddev|cv)$")
# Fields of a benchmark entry that are not user counters.
_STD_FIELDS = {"name", "run_name", "run_type", "repetitions", "repetition_index", "threads",
               "iterations", "real_time", "cpu_time", "time_unit", "aggregate_name",
               "aggregate_unit", "family_index", "per_family_instance_index", "error_occurred",
               "error_message", "label", "big_o", "rms", "complexity_n"}


class InputError(Exception):
    """A report that cannot be read (missing, not JSON, not a Google Benchmark report)."""


def normalize_name(name):
    """Strips Google Benchmark's own name components (and an aggregate suffix)."""
    parts = name.split("/")
    while len(parts) > 1 and _GB_SUFFIX.match(parts[-1]):
        parts.pop()
    return "/".join(parts)


def split_name(name):
    """(family, contender, variant, shape) of a normalized name; missing fields are ''."""
    p = name.split("/")
    if len(p) >= 4:
        return p[0], p[1], p[2], "/".join(p[3:])
    if len(p) == 3:
        return p[0], p[1], "", p[2]
    if len(p) == 2:
        return p[0], p[1], "", ""
    return p[0], "", "", ""


def join_name(family, contender, variant, shape):
    return "/".join(x for x in (family, contender, variant, shape) if x != "")


def is_isa(contender):
    return contender in ISAS


def is_peer(contender):
    """Not simdkern: neither an ISA path nor a variant of one ("avx512-packed": its own column,
    next to the ISAs, with its ratio to the best of them)."""
    return not is_isa(contender) and contender.split("-")[0] not in ISAS


def _median(xs):
    xs = sorted(xs)
    n = len(xs)
    if n == 0:
        return None
    return xs[n // 2] if n % 2 else 0.5 * (xs[n // 2 - 1] + xs[n // 2])


class Entry(object):
    """One benchmark of a report, reduced to one value per metric."""

    def __init__(self, name):
        self.name = name
        self.family, self.contender, self.variant, self.shape = split_name(name)
        # the thread axis: a variant "NN@t2" is variant NN on 2 threads (no suffix: 1 thread)
        m = re.match(r"^(.*)@t(\d+)$", self.variant)
        self.threads = int(m.group(2)) if m else 1
        self.base_variant = m.group(1) if m else self.variant
        self.rates = {}         # counter -> value (higher is faster)
        self.fractions = {}     # FRACTION_COUNTERS -> value
        self.real_time = None   # seconds per iteration
        self.reps = 1           # repetitions behind the value
        self.source = "single"  # median | mean | computed-median | best | single
        self.spread = {}        # metric -> coefficient of variation over repetitions (0.02 = 2 %)
        self.error = None       # error message when the benchmark reported an error
        self.label = ""

        self.merged_variant = False  # see Report.__init__

    @property
    def key(self):
        """What pairs benchmarks of different contenders: family, variant, shape. When the variant
        only describes how a contender works (mha/avx512/fused/... vs
        mha/composition-openblas-sleef/unfused/...), the variant is '*' and pairing is by shape."""
        return (self.family, "*" if self.merged_variant else self.variant, self.shape)

    def metrics(self):
        """Available metrics in order of preference: rate counters, then 'time'."""
        m = [c for c in RATE_COUNTERS if c in self.rates]
        if self.real_time:
            m.append("time")
        return m

    def speed(self, metric):
        """Higher-is-faster value of a metric (time becomes 1/seconds)."""
        if metric == "time":
            return 1.0 / self.real_time if self.real_time else None
        return self.rates.get(metric)

    def value(self, metric):
        """The value as reported (time in seconds)."""
        return self.real_time if metric == "time" else self.rates.get(metric)


class Report(object):
    def __init__(self, path, context, entries):
        self.path = path
        self.context = context
        self.entries = entries  # normalized name -> Entry (in report order)
        # A family whose every contender has one variant, different ones across contenders, has
        # variants that name the contender's method: pair across them.
        variants = {}
        for e in entries.values():
            variants.setdefault(e.family, {}).setdefault(e.contender, set()).add(e.variant)
        for e in entries.values():
            per = variants[e.family]
            e.merged_variant = (len(per) > 1 and all(len(v) == 1 for v in per.values()) and
                                len(set.union(*per.values())) > 1)

    def families(self):
        seen = []
        for e in self.entries.values():
            if e.family not in seen:
                seen.append(e.family)
        return seen


def _counters(b):
    out = {}
    for k, v in b.items():
        if k in _STD_FIELDS or isinstance(v, bool) or not isinstance(v, (int, float)):
            continue
        out[k] = float(v)
    return out


def _seconds(b):
    t = b.get("real_time")
    if not isinstance(t, (int, float)):
        return None
    return float(t) * _TIME_UNIT.get(b.get("time_unit", "ns"), 1e-9)


def load(path, stat="median"):
    """Reads a Google Benchmark JSON report (or the report.json of a bench/report directory), each
    benchmark reduced to one value by `stat` (STATS). Raises InputError with a readable message."""
    if stat not in STATS:
        raise InputError("unknown statistic '%s' (known: %s)" % (stat, ", ".join(STATS)))
    if os.path.isdir(path):
        if not os.path.isfile(os.path.join(path, "report.json")):
            raise InputError("%s: a directory without report.json" % path)
        path = os.path.join(path, "report.json")
    try:
        with open(path, "r") as f:
            text = f.read()
    except OSError as e:
        raise InputError("%s: cannot read: %s" % (path, e.strerror or e))
    try:
        doc = json.loads(text)
    except ValueError as e:
        raise InputError("%s: not valid JSON (%s)" % (path, e))
    if not isinstance(doc, dict) or not isinstance(doc.get("benchmarks"), list):
        raise InputError("%s: not a Google Benchmark JSON report (no \"benchmarks\" list); "
                         "produce one with --benchmark_out=FILE --benchmark_out_format=json" % path)
    context = doc.get("context") if isinstance(doc.get("context"), dict) else {}

    groups = {}  # normalized name -> {"iters": [...], "aggs": {name: b}, "error": msg}
    order = []
    for i, b in enumerate(doc["benchmarks"]):
        if not isinstance(b, dict) or not isinstance(b.get("name"), str):
            raise InputError("%s: benchmark #%d has no name" % (path, i))
        run_type = b.get("run_type", "iteration")
        raw = b.get("run_name")
        if not isinstance(raw, str):
            raw = b["name"]
            if run_type == "aggregate":
                raw = _AGG_SUFFIX.sub("", raw)
        name = normalize_name(raw)
        g = groups.get(name)
        if g is None:
            g = groups[name] = {"iters": [], "aggs": {}, "error": None, "label": ""}
            order.append(name)
        if b.get("error_occurred"):
            g["error"] = str(b.get("error_message") or "error")
            continue
        if b.get("label"):
            g["label"] = str(b["label"])
        if run_type == "aggregate":
            g["aggs"][b.get("aggregate_name", "")] = b
        else:
            g["iters"].append(b)

    entries = {}
    for name in order:
        g = groups[name]
        e = Entry(name)
        e.label = g["label"]
        its = g["iters"]
        if g["error"] is not None and not its and not g["aggs"]:
            e.error = g["error"]
            entries[name] = e
            continue
        timed = [b for b in its if _seconds(b)]
        pick = g["aggs"].get("median") or g["aggs"].get("mean")
        if stat == "best" and len(timed) > 1:
            fastest = min(timed, key=_seconds)
            e.source = "best"
            e.rates = _counters(fastest)
            e.real_time = _seconds(fastest)
            e.reps = len(its)
        elif pick is not None:
            e.source = pick.get("aggregate_name")
            e.rates = _counters(pick)
            e.real_time = _seconds(pick)
            e.reps = int(pick.get("repetitions") or len(its) or 1)
        elif len(its) > 1:
            e.source = "computed-median"
            e.reps = len(its)
            e.real_time = _median([t for t in (_seconds(b) for b in its) if t is not None])
            keys = set()
            for b in its:
                keys.update(_counters(b).keys())
            for k in keys:
                vals = [_counters(b).get(k) for b in its]
                vals = [v for v in vals if v is not None]
                if vals:
                    e.rates[k] = _median(vals)
        elif its:
            e.rates = _counters(its[0])
            e.real_time = _seconds(its[0])
        else:
            continue
        # Spread over repetitions (coefficient of variation), when they are in the file.
        if len(its) > 1:
            for m in e.metrics():
                vals = [(_seconds(b) if m == "time" else _counters(b).get(m)) for b in its]
                vals = [v for v in vals if v]
                if len(vals) > 1:
                    mean = sum(vals) / len(vals)
                    var = sum((v - mean) ** 2 for v in vals) / (len(vals) - 1)
                    e.spread[m] = math.sqrt(var) / mean if mean else 0.0
        # Fractions measured inside one benchmark (x_read: its speed over a bound's, alternated
        # call by call) apart; then only counters that are rates we know, so ratios are always
        # "higher is faster".
        e.fractions = {k: v for k, v in e.rates.items() if k in FRACTION_COUNTERS}
        e.rates = {k: v for k, v in e.rates.items() if k in RATE_COUNTERS and v > 0}
        entries[name] = e
    return Report(path, context, entries)


def is_library_peer(contender):
    """A peer library's own run of the work: a peer that is neither a bound nor a composition of
    simdkern's kernels."""
    return (is_peer(contender) and contender.split("-")[0] not in BOUNDS
            and "simdkern" not in contender.split("-"))


def by_key(report, contender):
    """key (family, variant, shape) -> Entry for one contender. 'best'/'simdkern' picks, per key,
    the simdkern ISA with the highest rate (by the first rate counter the ISAs share); 'peers'
    the peer library with the highest rate."""
    out = {}
    if contender in BEST_ALIASES or contender in PEER_ALIASES:
        pick = is_isa if contender in BEST_ALIASES else is_library_peer
        cands = {}
        for e in report.entries.values():
            if pick(e.contender) and e.error is None:
                cands.setdefault(e.key, []).append(e)
        for k, es in cands.items():
            out[k] = best_of(es)
        return out
    for e in report.entries.values():
        if e.contender == contender and e.error is None:
            out[e.key] = e
    return out


def common_metric(a, b, prefer=None):
    """The metric to compare two entries by: `prefer` if both have it, else the first shared rate
    counter, else 'time'. None if they share nothing."""
    ma, mb = a.metrics(), b.metrics()
    if prefer and prefer in ma and prefer in mb:
        return prefer
    for m in ma:
        if m in mb:
            return m
    return None


def best_of(entries):
    """The fastest of several entries of one key (by their first shared metric)."""
    best = None
    for e in entries:
        if best is None:
            best = e
            continue
        m = common_metric(e, best)
        if m and e.speed(m) > best.speed(m):
            best = e
    return best


def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    if not xs:
        return None
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def shape_dims(shape):
    """[m, n, k] of a shape like '64x64x64' or '4096'; None when it is not all integers."""
    parts = shape.split("x")
    try:
        return [int(p) for p in parts]
    except ValueError:
        return None


def shape_sort_key(shape):
    d = shape_dims(shape)
    if d is None:
        return (1, 0, (), shape)
    prod = 1
    for x in d:
        prod *= x
    return (0, prod, tuple(d), shape)


def contender_sort_key(c):
    return (0, ISAS.index(c), c) if c in ISAS else (1, 0, c)


def fmt_num(x, digits=4):
    """Compact number: 4 significant digits, SI suffix from a million up (12.3G elem/s)."""
    if x is None:
        return "-"
    for div, suf in ((1e12, "T"), (1e9, "G"), (1e6, "M")):
        if abs(x) >= div:
            return ("%." + str(digits) + "g%s") % (x / div, suf)
    return ("%." + str(digits) + "g") % x


def fmt_time(s):
    if s is None:
        return "-"
    for div, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, "us"), (1e-9, "ns")):
        if s >= div:
            return "%.4g %s" % (s / div, unit)
    return "%.4g ns" % (s / 1e-9)


def fmt_metric_value(metric, v):
    return fmt_time(v) if metric == "time" else fmt_num(v)
