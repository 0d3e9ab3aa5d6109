#!/usr/bin/python3
"""PyTorch as the oracle of the cross-attention module (sk_mhca_*).

  oracle.py DRIVER       DRIVER: the built tests/torch/mhca_driver

Builds torch.nn.MultiheadAttention(d_model, n_heads, bias=..., kdim=d_enc, vdim=d_enc,
batch_first=True) with random weights and biases, copies them into the driver's sk_mhca (PyTorch
applies x @ W^T: transposed), and compares on every ISA path the CPU runs: the output (relative
Frobenius error <= 1e-5) and the per-head weights (average_attn_weights=False; absolute error
<= 1e-6), through sk_mhca_forward with and without weights and through the decoder-step API
(sk_mhca_project_kv, then sk_mhca_forward_kv one row at a time), with the weights read in place
and packed once (sk_mhca.w_*_packed, sk_sgemm_pack_b), against the module run in
float64 (those tolerances) and in float32 (twice them: PyTorch's own rounding adds to the
difference). Cases: with and without biases
(all four; Whisper's q, v, o), d_enc == d_model and not, key_padding_mask (PyTorch True = padding,
simdkern nonzero = attend), n_dec 1..64, n_enc 1..300, heads 1..16. A source with every position
padded is simdkern's documented difference: PyTorch gives NaN, simdkern zero weights and out = b_o.

Exit status: 0 pass, 1 mismatch, 77 (skip) when torch or numpy cannot be imported."""
import copy
import os
import struct
import subprocess
import sys

try:
    import numpy as np
    import torch
except Exception as e:  # any import failure is a skip, not a failure
    print(f"skip: torch/numpy not importable ({e})")
    sys.exit(77)

F_BQ, F_BK, F_BV, F_BO, F_MASK, F_WEIGHTS, F_PACKED = 1, 2, 4, 8, 16, 32, 64
OUT_TOL, W_TOL = 1e-5, 1e-6


def make_case(rng, d, heads, d_enc, n_dec, n_enc, biases, mask_kind):
    """biases: 'none', 'all' or 'whisper' (q, v, o). mask_kind: None, 'some' or 'all'."""
    torch.manual_seed(int(rng.integers(1 << 31)))
    m = torch.nn.MultiheadAttention(d, heads, bias=biases != "none", kdim=d_enc, vdim=d_enc,
                                    batch_first=True).eval()
    with torch.no_grad():
        if biases != "none":  # PyTorch initialises biases to 0: make them count
            m.in_proj_bias.uniform_(-0.5, 0.5)
            m.out_proj.bias.uniform_(-0.5, 0.5)
            if biases == "whisper":
                m.in_proj_bias[d:2 * d] = 0.0  # no k bias
    if m._qkv_same_embed_dim:
        wq, wk, wv = (m.in_proj_weight[i * d:(i + 1) * d] for i in range(3))
    else:
        wq, wk, wv = m.q_proj_weight, m.k_proj_weight, m.v_proj_weight
    f32 = lambda t: np.ascontiguousarray(t.detach().numpy(), dtype=np.float32)
    case = dict(d=d, heads=heads, d_enc=d_enc, n_dec=n_dec, n_enc=n_enc, module=m,
                w=[f32(wq.T), f32(wk.T), f32(wv.T), f32(m.out_proj.weight.T)], b=[None] * 4,
                dec=rng.standard_normal((n_dec, d)).astype(np.float32),
                enc=rng.standard_normal((n_enc, d_enc)).astype(np.float32), mask=None)
    if biases != "none":
        bi = f32(m.in_proj_bias)
        case["b"] = [bi[:d], None if biases == "whisper" else bi[d:2 * d], bi[2 * d:],
                     f32(m.out_proj.bias)]
    if mask_kind == "some":
        keep = rng.random(n_enc) < 0.7
        keep[rng.integers(n_enc)] = True  # at least one key attended
        case["mask"] = keep.astype(np.uint8)
    elif mask_kind == "all":
        case["mask"] = np.zeros(n_enc, np.uint8)
    return case


def torch_ref(case, dtype):
    """The module's output and weights in dtype (float64: the same weights and inputs, exactly)."""
    m = copy.deepcopy(case["module"]).to(dtype)
    dec = torch.from_numpy(case["dec"])[None].to(dtype)
    enc = torch.from_numpy(case["enc"])[None].to(dtype)
    kpm = None if case["mask"] is None else torch.from_numpy(case["mask"] == 0)[None]
    with torch.no_grad():
        out, w = m(dec, enc, enc, key_padding_mask=kpm, need_weights=True,
                   average_attn_weights=False)
    return out[0].numpy().astype(np.float64), w[0].numpy().astype(np.float64)


def encode(case, isa, mode, weights, packed):
    fl = (F_MASK if case["mask"] is not None else 0) | (F_WEIGHTS if weights else 0)
    fl |= F_PACKED if packed else 0
    for i, b in enumerate(case["b"]):
        if b is not None:
            fl |= 1 << i
    parts = [struct.pack("=8Q", isa, case["d"], case["d_enc"], case["heads"], case["n_dec"],
                         case["n_enc"], fl, mode)]
    parts += [w.tobytes() for w in case["w"]]
    parts += [b.tobytes() for b in case["b"] if b is not None]
    parts += [case["dec"].tobytes(), case["enc"].tobytes()]
    if case["mask"] is not None:
        parts.append(case["mask"].tobytes())
    return b"".join(parts)


def decode(buf, pos, case, weights):
    (st,) = struct.unpack_from("=q", buf, pos)
    pos += 8
    if st != 0:
        return st, None, None, pos
    n_out = case["n_dec"] * case["d"]
    out = np.frombuffer(buf, np.float32, n_out, pos).reshape(case["n_dec"], case["d"])
    pos += 4 * n_out
    w = None
    if weights:
        n_w = case["heads"] * case["n_dec"] * case["n_enc"]
        w = np.frombuffer(buf, np.float32, n_w, pos).reshape(case["heads"], case["n_dec"],
                                                             case["n_enc"])
        pos += 4 * n_w
    return st, out.astype(np.float64), None if w is None else w.astype(np.float64), pos


def main():
    driver = sys.argv[1]
    isas = [l.split() for l in subprocess.run([driver, "--isas"], check=True, capture_output=True,
                                              text=True).stdout.splitlines()]
    rng = np.random.default_rng(20261201)
    # (d_model, heads, d_enc, n_dec, n_enc, biases, mask): the edges first, then random shapes
    shapes = [(16, 1, 16, 2, 4, "none", None), (32, 4, 32, 2, 4, "all", None),
              (32, 4, 32, 1, 1, "whisper", None), (64, 8, 48, 5, 37, "all", "some"),
              (64, 16, 64, 64, 300, "whisper", "some"), (128, 2, 256, 17, 131, "all", None),
              (96, 12, 40, 3, 300, "none", "some"), (48, 3, 1, 9, 70, "all", "some"),
              (256, 8, 128, 33, 65, "whisper", None), (512, 8, 512, 4, 300, "whisper", "some"),
              (40, 5, 40, 6, 10, "all", "all"), (64, 4, 80, 1, 7, "whisper", "all")]
    for _ in range(28):
        heads = int(rng.choice([1, 2, 3, 4, 6, 8, 12, 16]))
        d = heads * int(rng.choice([1, 4, 8, 16, 24, 32, 64]))
        d_enc = d if rng.random() < 0.4 else int(rng.integers(1, 300))
        shapes.append((d, heads, d_enc, int(rng.integers(1, 65)), int(rng.integers(1, 301)),
                       str(rng.choice(["none", "all", "whisper"])),
                       [None, "some"][int(rng.integers(2))]))
    cases = [make_case(rng, *s) for s in shapes]
    refs = [torch_ref(c, torch.float64) for c in cases]
    refs32 = [torch_ref(c, torch.float32) for c in cases]
    # (mode, weights, packed)
    variants = [(0, True, 0), (0, False, 0), (1, True, 0), (1, False, 0), (0, False, 1),
                (1, True, 1)]
    failures = checked = 0
    worst_out, worst_w = {}, {}
    for isa, name in isas:
        stream = b"".join(encode(c, int(isa), mode, wt, pk) for c in cases
                          for mode, wt, pk in variants)
        res = subprocess.run([driver], input=stream, capture_output=True)
        if res.returncode != 0:
            print(f"FAIL [{name}] driver exited {res.returncode}: {res.stderr.decode()}")
            return 1
        pos = 0
        for c, (ro, rw), (ro32, rw32), s in zip(cases, refs, refs32, shapes):
            for mode, wt, pk in variants:
                st, out, w, pos = decode(res.stdout, pos, c, wt)
                what = (f"[{name}] d {c['d']} heads {c['heads']} d_enc {c['d_enc']} n_dec "
                        f"{c['n_dec']} n_enc {c['n_enc']} biases {s[5]} mask {s[6]} "
                        f"{'steps' if mode else 'forward'} weights {int(wt)} packed {pk}")
                checked += 1
                if st != 0:
                    print(f"FAIL {what}: status {st}")
                    failures += 1
                    continue
                if s[6] == "all":  # PyTorch NaN; simdkern: zero weights, out = b_o
                    bo = c["b"][3] if c["b"][3] is not None else np.zeros(c["d"], np.float32)
                    ok = np.array_equal(out, np.broadcast_to(bo.astype(np.float64), out.shape))
                    ok = ok and (w is None or not w.any())
                    if not ok:
                        print(f"FAIL {what}: fully padded source: out is not b_o / weights not 0")
                        failures += 1
                    if not np.isnan(ro).all():
                        print(f"note {what}: PyTorch gave no NaN for a fully padded source")
                    continue
                # against PyTorch in float64 (the tolerances of the spec) and in float32 (what
                # users compare with: its own rounding too, so twice the tolerances)
                for ref_o, ref_w, k, label in ((ro, rw, 1, "float64"), (ro32, rw32, 2, "float32")):
                    err = np.linalg.norm(out - ref_o) / max(np.linalg.norm(ref_o), 1e-30)
                    worst_out[label] = max(worst_out.get(label, 0.0), err)
                    if not err <= k * OUT_TOL:
                        print(f"FAIL {what}: output relative Frobenius error vs PyTorch {label} "
                              f"{err:.3g} > {k * OUT_TOL}")
                        failures += 1
                    if w is not None:
                        ew = float(np.abs(w - ref_w).max()) if w.size else 0.0
                        if os.environ.get("ORACLE_VERBOSE"):
                            print(f"{label} {ew:.3g} {what}")
                        worst_w[label] = max(worst_w.get(label, 0.0), ew)
                        if not ew <= k * W_TOL:
                            print(f"FAIL {what}: weights max abs error vs PyTorch {label} "
                                  f"{ew:.3g} > {k * W_TOL}")
                            failures += 1
        if pos != len(res.stdout):
            print(f"FAIL [{name}] driver answer has {len(res.stdout) - pos} bytes too many")
            return 1
    print(f"torch {torch.__version__}: {checked} comparisons on {', '.join(n for _, n in isas)}; "
          + "; ".join(f"vs PyTorch {k}: worst output error {worst_out.get(k, 0):.3g}, worst weight "
                      f"error {worst_w.get(k, 0):.3g}" for k in ("float64", "float32"))
          + f" (tolerances {OUT_TOL}, {W_TOL}; twice those vs float32); {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    torch.set_num_threads(1)
    sys.exit(main())
