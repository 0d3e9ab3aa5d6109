#!/usr/bin/python3
"""The cross-attention module next to PyTorch, side by side in one process, one thread each.

  bench/torch_mhca.py LIB [--reps N] [--min-time S] [--baseline-lib LIB2 [--baseline-biases]]
                          [--stat median|min]
                          [--clock cpu|wall] [--only SUBSTRING]

LIB: the built bench/libsk_torch_peer.so (ctypes). --baseline-lib: the same peer built from another
tree (e.g. main before biases existed) to time its bias-free module on the same shapes;
--baseline-biases: LIB2 was built without -DSKB_SIX_FIELDS (a tree with d_enc and biases), and its
module is timed with the biases and d_enc of LIB's, side by side (before / after a change).

Cases, all with weights not returned (need_weights=False / weights NULL) and no mask:
  module: sk_mhca_forward with biases on q, k, v, o vs torch.nn.MultiheadAttention(bias=True,
          kdim=vdim=d_enc, batch_first=True), d_enc = d_model and d_enc != d_model; and the
          bias-free module (d_enc = d_model) of the same shape
  step:   sk_mhca_forward_kv of one decoder row against K/V projected once (biases on q, o; K and V
          carry theirs) vs the composition engines write on torch against cached K/V:
          linear(q) -> baddbmm(0, q, K^T, alpha=scale) -> softmax -> bmm(., V) -> linear(out)
Times are medians (--stat min: minima) of --reps interleaved repetitions of about --min-time
seconds each, in CPU time of the calling thread (--clock cpu, the default: both run in it with one
thread, and time spent waiting for a CPU on a shared machine is left out) or wall time; ratio =
PyTorch time / simdkern time (above 1: simdkern faster).

The FMA peak, measured in the same run (x86 AVX2 / AVX-512 paths; LIB's skb_time_fma_peak): for
each module case an FMA loop of the active path's width (12 independent chains, as sk_bench's
peak-avx2) doing the case's flops the standard way (the four projections and the two attention
products: 4 n_dec d^2 + 4 n_enc d_enc d + 4 n_dec n_enc d) is timed with the contenders, and the
table gives simdkern's time over it (the fraction of peak; above 1 where the module does fewer
flops, the few-rows path that skips K and V) and PyTorch's time over it: the most any
implementation of those flops can gain on PyTorch on this core."""
import argparse
import ctypes as C
import os
import statistics
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")
import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

P = C.POINTER
f32p = P(C.c_float)
SZ = C.c_size_t


def load(path):
    lib = C.CDLL(path)
    arr4 = f32p * 4
    lib.skb_time_forward.argtypes = [SZ, SZ, arr4, SZ, arr4, SZ, f32p, SZ, f32p, f32p, C.c_void_p,
                                     C.c_long]
    lib.skb_time_forward.restype = C.c_double
    lib.skb_time_step.argtypes = [SZ, SZ, arr4, SZ, arr4, SZ, f32p, SZ, f32p, f32p, C.c_void_p,
                                  C.c_long]
    lib.skb_time_step.restype = C.c_double
    lib.skb_project_kv.argtypes = [SZ, SZ, arr4, SZ, arr4, SZ, f32p, f32p]
    lib.skb_workspace.argtypes = [SZ, SZ, arr4, SZ, arr4, SZ, SZ]
    lib.skb_workspace.restype = SZ
    lib.skb_isa.restype = C.c_char_p
    lib.has_peak = hasattr(lib, "skb_time_fma_peak")  # not in peers built from older trees
    if lib.has_peak:
        lib.skb_time_fma_peak.argtypes = [C.c_double, C.c_long]
        lib.skb_time_fma_peak.restype = C.c_double
    lib.arr4 = arr4
    return lib


def ptr(a):
    return a.ctypes.data_as(f32p)


class Layer:
    """Random weights of one nn.MultiheadAttention, in both layouts (torch's and x @ W)."""

    def __init__(self, d, heads, d_enc):
        torch.manual_seed(d * 131 + d_enc)
        self.m = torch.nn.MultiheadAttention(d, heads, bias=True, kdim=d_enc, vdim=d_enc,
                                             batch_first=True).eval()
        m = self.m
        with torch.no_grad():
            m.in_proj_bias.uniform_(-0.5, 0.5)
            m.out_proj.bias.uniform_(-0.5, 0.5)
        if m._qkv_same_embed_dim:
            wq, wk, wv = (m.in_proj_weight[i * d:(i + 1) * d] for i in range(3))
        else:
            wq, wk, wv = m.q_proj_weight, m.k_proj_weight, m.v_proj_weight
        f = lambda t: np.ascontiguousarray(t.detach().numpy().astype(np.float32))
        self.tw = [t.detach() for t in (wq, wk, wv, m.out_proj.weight)]  # torch layout (out x in)
        bi = m.in_proj_bias.detach()
        self.tb = [bi[:d], bi[d:2 * d], bi[2 * d:], m.out_proj.bias.detach()]
        self.w = [f(t.T) for t in self.tw]
        self.b = [f(t) for t in self.tb]
        self.d, self.heads, self.d_enc = d, heads, d_enc

    def c_args(self, lib, biases):
        w = lib.arr4(*[ptr(a) for a in self.w])
        b = lib.arr4(*[ptr(a) if biases else None for a in self.b])
        return w, b


def timer(fn, min_time):
    """Calls per batch so that a batch takes about min_time; returns run(batch) -> s per call."""
    n = 1
    while True:
        t = fn(n)
        if t >= min_time / 4 or n > 1 << 20:
            break
        n *= 4
    n = max(1, int(n * min_time / max(t, 1e-9)))
    return lambda: fn(n) / n


CLOCK = [time.thread_time]
BASE_BIASES = [False]  # the baseline lib takes d_enc and biases (--baseline-biases)


def torch_loop(f):
    def run(n):
        with torch.inference_mode():
            t0 = CLOCK[0]()
            for _ in range(n):
                f()
            return CLOCK[0]() - t0
    return run


def module_case(lib, base, d, heads, n_dec, n_enc, d_enc):
    L = Layer(d, heads, d_enc)
    rng = np.random.default_rng(1)
    dec = rng.standard_normal((n_dec, d), dtype=np.float32)
    enc = rng.standard_normal((n_enc, d_enc), dtype=np.float32)
    out = np.zeros((n_dec, d), np.float32)
    contenders = {}
    for name, lb, biases in [("simdkern", lib, True), ("simdkern-nobias", lib, False),
                             ("baseline", base, BASE_BIASES[0])]:
        if lb is None or (not biases and d_enc != d):
            continue
        w, b = L.c_args(lb, biases)
        ws = np.zeros(lb.skb_workspace(d, heads, w, d_enc, b, n_dec, n_enc) // 4 + 16, np.float32)
        de = d_enc if lb is lib or BASE_BIASES[0] else 0
        args = (d, heads, w, de, b, n_dec, ptr(dec), n_enc, ptr(enc), ptr(out),
                ws.ctypes.data_as(C.c_void_p))
        contenders[name] = (lambda a, l, keep: (lambda n: keep and l.skb_time_forward(*a, n)))(
            args, lb, [ws, dec, enc, out, L])
    td, te = torch.from_numpy(dec)[None], torch.from_numpy(enc)[None]
    contenders["torch"] = torch_loop(lambda: L.m(td, te, te, need_weights=False))
    flops = 4.0 * n_dec * d * d + 4.0 * n_enc * d_enc * d + 4.0 * n_dec * n_enc * d
    if lib.has_peak and lib.skb_time_fma_peak(1e6, 1) >= 0:
        contenders["peak"] = lambda n: lib.skb_time_fma_peak(flops, n)
    # the two compute the same thing
    w, b = L.c_args(lib, True)
    lib.skb_time_forward(d, heads, w, d_enc, b, n_dec, ptr(dec), n_enc, ptr(enc), ptr(out), None, 1)
    with torch.inference_mode():
        ref = L.m(td, te, te, need_weights=False)[0][0].numpy()
    err = float(np.linalg.norm(out - ref) / np.linalg.norm(ref))
    return contenders, err


def step_case(lib, base, d, heads, n_enc):
    L = Layer(d, heads, d)
    rng = np.random.default_rng(2)
    x = rng.standard_normal((1, d), dtype=np.float32)
    enc = rng.standard_normal((n_enc, d), dtype=np.float32)
    out = np.zeros((1, d), np.float32)
    contenders = {}
    for name, lb, biases in [("simdkern", lib, True), ("simdkern-nobias", lib, False),
                             ("baseline", base, BASE_BIASES[0])]:
        if lb is None:
            continue
        w, b = L.c_args(lb, biases)
        kv = np.zeros(2 * n_enc * d, np.float32)
        assert lb.skb_project_kv(d, heads, w, 0, b, n_enc, ptr(enc), ptr(kv)) == 0
        ws = np.zeros(lb.skb_workspace(d, heads, w, 0, b, 1, 0) // 4 + 16, np.float32)
        args = (d, heads, w, 0, b, 1, ptr(x), n_enc, ptr(kv), ptr(out),
                ws.ctypes.data_as(C.c_void_p))
        contenders[name] = (lambda a, l, keep: (lambda n: keep and l.skb_time_step(*a, n)))(
            args, lb, [kv, ws, L, x, out])
    # torch: K/V cached as (heads, n_enc, d_head), the step's composition against them
    dh = d // heads
    wq, wk, wv, wo = L.tw
    bq, bk, bv, bo = L.tb
    te = torch.from_numpy(enc)
    with torch.inference_mode():
        K = F.linear(te, wk, bk).view(n_enc, heads, dh).transpose(0, 1).contiguous()
        V = F.linear(te, wv, bv).view(n_enc, heads, dh).transpose(0, 1).contiguous()
    zero = torch.zeros(1, 1, n_enc)
    tx = torch.from_numpy(x)
    scale = dh ** -0.5

    def torch_step():
        q = F.linear(tx, wq, bq).view(1, heads, dh).transpose(0, 1)  # (heads, 1, dh)
        s = torch.baddbmm(zero, q, K.transpose(1, 2), alpha=scale)
        p = torch.softmax(s, dim=-1)
        o = torch.bmm(p, V).transpose(0, 1).reshape(1, d)
        return F.linear(o, wo, bo)
    contenders["torch"] = torch_loop(torch_step)
    contenders["simdkern"](1)
    with torch.inference_mode():
        ref = torch_step().numpy()
    err = float(np.linalg.norm(out - ref) / np.linalg.norm(ref))
    return contenders, err


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("lib")
    ap.add_argument("--baseline-lib")
    ap.add_argument("--baseline-biases", action="store_true",
                    help="the baseline lib has d_enc and biases: time it with them")
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--min-time", type=float, default=0.1)
    ap.add_argument("--only", help="substring of the case names to run")
    ap.add_argument("--clock", choices=["cpu", "wall"], default="cpu")
    ap.add_argument("--stat", choices=["median", "min"], default="median",
                    help="per contender over the repetitions (min: a loaded machine)")
    args = ap.parse_args()
    torch.set_num_threads(1)
    lib = load(args.lib)
    base = load(args.baseline_lib) if args.baseline_lib else None
    BASE_BIASES[0] = bool(base) and args.baseline_biases
    CLOCK[0] = time.thread_time if args.clock == "cpu" else time.perf_counter
    for lb in (lib, base):
        if lb is not None:
            lb.skb_use_cpu_clock(args.clock == "cpu")
    cases = []
    for d, h, n_dec, n_enc in [(512, 8, 32, 1500), (512, 8, 64, 64), (1024, 16, 512, 512)]:
        for d_enc in (d, d * 3 // 4):
            cases.append((f"module d {d} heads {h} n_dec {n_dec} n_enc {n_enc} d_enc {d_enc}",
                          lambda d=d, h=h, a=n_dec, e=n_enc, k=d_enc:
                          module_case(lib, base, d, h, a, e, k)))
    for d, h, n_enc in [(512, 8, 1500), (1024, 16, 4096)]:
        cases.append((f"step d {d} heads {h} n_enc {n_enc}",
                       lambda d=d, h=h, e=n_enc: step_case(lib, base, d, h, e)))
    print(f"simdkern ISA {lib.skb_isa().decode()}, torch {torch.__version__} "
          f"({torch.get_num_threads()} thread), {args.clock} time, {args.stat} of {args.reps} "
          f"interleaved repetitions "
          f"of ~{args.min_time} s")
    print("| case | simdkern (biases) | PyTorch | ratio | simdkern bias-free | biases / bias-free"
          " | FMA peak, same flops | peak / simdkern | PyTorch / peak"
          + ((" | baseline (biases) | ratio to baseline" if BASE_BIASES[0]
              else " | baseline bias-free | biases / baseline") if base else "") + " | rel. diff |")
    print("|---|---|---|---|---|---|---|---|---|" + ("---|---|" if base else "") + "---|")
    for name, make in cases:
        if args.only and args.only not in name:
            continue
        contenders, err = make()
        runs = {k: timer(f, args.min_time) for k, f in contenders.items()}
        t = {k: [] for k in runs}
        order = list(runs)
        for rep in range(args.reps):  # the order reversed every other repetition
            for k in (order if rep % 2 == 0 else order[::-1]):
                t[k].append(runs[k]())
        stat = statistics.median if args.stat == "median" else min
        med = {k: stat(v) for k, v in t.items()}
        us = lambda k: f"{med[k] * 1e6:.1f} us" if k in med else "-"
        ratio = lambda a, b: f"{med[b] / med[a]:.2f}x" if a in med and b in med else "-"
        row = [name, us("simdkern"), us("torch"), ratio("simdkern", "torch"),
               us("simdkern-nobias"), ratio("simdkern", "simdkern-nobias"), us("peak"),
               ratio("simdkern", "peak"), ratio("peak", "torch")]
        if base:
            row += [us("baseline"), ratio("simdkern", "baseline")]
        row.append(f"{err:.1e}")
        print("| " + " | ".join(row) + " |", flush=True)


if __name__ == "__main__":
    sys.exit(main())
