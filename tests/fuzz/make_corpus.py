#!/usr/bin/env python3
"""Writes the named seed inputs of tests/fuzz/corpus/<target>/ (the regression cases and a few
starting points per target). Each packer below follows the header its target reads (see the
comment at the top of tests/fuzz/fuzz_<target>.c); a patch is (which u8, index u32, value f32).
Inputs that libFuzzer found and minimised are committed next to these as they are
(crash-<sha1> renamed to something that says what they hold), not generated here.

    python3 tests/fuzz/make_corpus.py          # rewrites the generated seeds in place
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
PTRDIFF_MAX = 2**63 - 1
SIZE_MAX = 2**64 - 1


def u8(v): return struct.pack('<B', v & 0xff)
def u16(v): return struct.pack('<H', v & 0xffff)
def u32(v): return struct.pack('<I', v & 0xffffffff)
def u64(v): return struct.pack('<Q', v & 0xffffffffffffffff)
def f32(v): return struct.pack('<f', v)
def patch(which, index, value): return u8(which) + u32(index) + f32(value)


def write(target, name, data):
    d = os.path.join(HERE, 'corpus', target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), 'wb') as f:
        f.write(data)


# ---- softmax: fk flags rows cols16 padx pady padm amp amp_add density ssel sraw osel oraw64 seed32
def softmax(fn=1, kind=0, flags=0, rows=1, cols=1, pads=(0, 0, 0), amp_e=0, add_e=0, density=0,
            ssel=0, sraw=0.0, osel=0, oraw=0, seed=1, patches=()):
    fk = (fn & 1) | (kind << 1)
    d = u8(fk) + u8(flags) + u8(rows - 1) + u16(cols - 1) + b''.join(u8(p) for p in pads)
    d += u8(amp_e + 4) + u8(add_e + 4) + u8(density) + u8(ssel) + f32(sraw) + u8(osel) + u64(oraw)
    d += u32(seed) + b''.join(patch(*p) for p in patches)
    return d


RAW_SCALE = 9  # ssel selecting the raw scale
KIND = {'none': 0, 'keys': 1, 'bool': 2, 'add': 3, 'causal': 4}

write('softmax', 'regress-scale1e30-overflowing-row',
      softmax(kind=0, rows=1, cols=4, ssel=RAW_SCALE, sraw=1e30,
              patches=[(0, 0, 1e10), (0, 1, 2e10), (0, 2, 1e10), (0, 3, 0.0)]))
write('softmax', 'regress-add-mask-scores300-scale-8-11x101',
      softmax(kind=KIND['add'], rows=11, cols=101, amp_e=5, add_e=8, density=25, ssel=1, seed=7))
write('softmax', 'regress-x1e4-scale1',
      softmax(fn=0, rows=4, cols=257, amp_e=13, seed=3))
write('softmax', 'regress-x1e4-scale1-masked',
      softmax(kind=KIND['keys'], rows=3, cols=129, amp_e=14, density=40, ssel=0, seed=5))
write('softmax', 'regress-causal-offset-ptrdiff-max',
      softmax(kind=KIND['causal'], rows=5, cols=7, amp_e=2, osel=4))
write('softmax', 'regress-causal-offset-ptrdiff-max-minus-2',
      softmax(kind=KIND['causal'], rows=5, cols=7, amp_e=2, osel=5))
write('softmax', 'regress-causal-offset-ptrdiff-min',
      softmax(kind=KIND['causal'], rows=3, cols=9, amp_e=2, osel=6))
write('softmax', 'regress-nan-row-masked-positions-stay-0',
      softmax(kind=KIND['bool'], rows=2, cols=12, amp_e=1, density=128, ssel=2,
              patches=[(0, 3, float('nan'))]))
write('softmax', 'regress-nan-row-keys-mask',
      softmax(kind=KIND['keys'], rows=3, cols=20, amp_e=1, density=100, ssel=3,
              patches=[(0, 25, float('nan'))]))
write('softmax', 'regress-plus-inf-attended',
      softmax(fn=0, rows=2, cols=9, amp_e=0, patches=[(0, 2, float('inf'))]))
write('softmax', 'regress-minus-inf-scaled-negative',
      softmax(kind=0, rows=1, cols=5, ssel=1, patches=[(0, 1, float('-inf'))]))
write('softmax', 'seed-row-65536-columns',
      softmax(fn=0, flags=4, rows=1, cols=65536, amp_e=3, seed=11))
write('softmax', 'seed-fully-masked-keys', softmax(kind=KIND['keys'], rows=3, cols=17, density=255))
for name, k in KIND.items():
    write('softmax', 'seed-%s-inplace' % name,
          softmax(kind=k, flags=1, rows=7, cols=45, pads=(3, 3, 2), amp_e=2, add_e=2, density=60,
                  ssel=4, osel=3, oraw=5, seed=20 + k))
    write('softmax', 'seed-%s-ld-padding-ties' % name,
          softmax(kind=k, flags=2 | 8, rows=16, cols=33, pads=(5, 1, 7), amp_e=4, add_e=4,
                  density=30, ssel=5, osel=8, seed=30 + k))


# ---- sgemm: flags m n k bigsel bigval16 pa pb pc asel bsel araw braw amp_a amp_b amp_c seed32
def sgemm(ta=0, tb=0, flags=0, m=1, n=1, k=1, big=None, pads=(0, 0, 0), asel=1, bsel=0,
          araw=0.0, braw=0.0, amps=(0, 0, 0), seed=1, patches=()):
    fl = ta | (tb << 1) | flags
    bigsel, bigval = (0, 0) if big is None else big
    if big is not None:
        fl |= 8
    d = u8(fl) + u8(m) + u8(n) + u8(k) + u8(bigsel) + u16(bigval) + b''.join(u8(p) for p in pads)
    d += u8(asel) + u8(bsel) + f32(araw) + f32(braw) + b''.join(u8(a + 8) for a in amps)
    d += u32(seed) + b''.join(patch(*p) for p in patches)
    return d


RAW = 9
HUGE_LD = 32
write('sgemm', 'regress-k1-ta-m43-n1-alpha1.7-beta-1',
      sgemm(ta=1, m=43, n=1, k=1, asel=RAW, araw=1.7000001, bsel=2, seed=2))
for k in (1, 2, 3):
    write('sgemm', 'regress-k%d-alpha-beta-not-0-1' % k,
          sgemm(ta=k & 1, tb=k >> 1, m=23, n=19, k=k, asel=5, bsel=6, amps=(1, 1, 2), seed=40 + k))
write('sgemm', 'regress-one-row-lda-near-size-max',
      sgemm(flags=HUGE_LD, m=1, n=40, k=30, pads=(3, 0, 5), seed=5))
write('sgemm', 'regress-one-row-ldb-near-size-max-k1',
      sgemm(flags=HUGE_LD, m=9, n=37, k=1, pads=(0, 1, 0), seed=6))
write('sgemm', 'regress-one-row-ldb-near-size-max-nt',
      sgemm(tb=1, flags=HUGE_LD, m=12, n=1, k=70, pads=(0, 2, 0), asel=5, bsel=2, seed=7))
write('sgemm', 'regress-one-row-all-ld-near-size-max-tt',
      sgemm(ta=1, tb=1, flags=HUGE_LD, m=1, n=1, k=1, pads=(1, 1, 1), asel=3, bsel=4, seed=8))
write('sgemm', 'seed-m520', sgemm(m=0, n=17, k=5, big=(0, 520), asel=5, bsel=1, seed=9))
write('sgemm', 'seed-k520-nt', sgemm(tb=1, m=13, n=33, k=0, big=(2, 520), seed=10))
write('sgemm', 'seed-n520-tn', sgemm(ta=1, m=7, n=0, k=64, big=(1, 520), bsel=5, seed=11))
write('sgemm', 'seed-beta0-nan-c', sgemm(m=17, n=48, k=31, pads=(1, 2, 3), asel=6, bsel=0, seed=12))
write('sgemm', 'seed-nan-inf-inputs',
      sgemm(m=6, n=16, k=8, asel=1, bsel=1, seed=13,
            patches=[(0, 3, float('nan')), (1, 20, float('inf')), (2, 50, float('-inf'))]))
write('sgemm', 'seed-alpha0', sgemm(m=8, n=8, k=8, asel=0, bsel=4, seed=14,
                                    patches=[(0, 1, float('nan'))]))
for i, (m, n, k) in enumerate([(6, 16, 4), (8, 32, 9), (64, 64, 64), (1, 64, 64), (5, 1, 33)]):
    write('sgemm', 'seed-shape-%dx%dx%d' % (m, n, k),
          sgemm(ta=i & 1, tb=(i >> 1) & 1, flags=4 * (i & 1) | 16 * (i >> 2),
                m=m, n=n, k=k, pads=(i, 7 - i, 2), asel=8, bsel=8, amps=(i - 2, 2 - i, 0),
                seed=100 + i))


# ---- attention: flags kind qb kvb16 dkb dvb hb pads(q k v o m) amp_q amp_k amp_v amp_add density
#      ssel sraw osel oraw64 seed32
def attention(mha=0, weights=0, flags=0, kind=0, n_q=1, n_kv=1, dk=0, dv=0, heads=1,
              pads=(0, 0, 0, 0, 0), amps=(0, 0, 0, 0), density=0, ssel=0, sraw=0.0, osel=0,
              oraw=0, seed=1, patches=()):
    fl = mha | (weights << 1) | flags
    qb = 0x80 if n_q == 1 else (n_q - 1)
    d = u8(fl) + u8(kind) + u8(qb) + u16(n_kv - 1) + u8(dk) + u8(dv) + u8(heads - 1)
    d += b''.join(u8(p) for p in pads) + b''.join(u8(a + 4) for a in amps)
    d += u8(density) + u8(ssel) + f32(sraw) + u8(osel) + u64(oraw) + u32(seed)
    d += b''.join(patch(*p) for p in patches)
    return d


for w in (0, 1):
    for osel, tag in ((4, 'ptrdiff-max'), (5, 'ptrdiff-max-minus-2')):
        write('attention', 'regress-causal-offset-%s-attention-w%d' % (tag, w),
              attention(weights=w, kind=4, n_q=5, n_kv=9, dk=8, dv=4, osel=osel, seed=3))
        write('attention', 'regress-causal-offset-%s-mha-w%d' % (tag, w),
              attention(mha=1, weights=w, kind=4, n_q=3, n_kv=9, dk=4, heads=2, osel=osel,
                        seed=4))
        write('attention', 'regress-causal-offset-%s-mha-decode' % tag,
              attention(mha=1, kind=4, n_q=1, n_kv=9, dk=4, heads=3, osel=osel, seed=5))
write('attention', 'regress-add-mask-large-scores-weights',
      attention(weights=1, kind=3, n_q=11, n_kv=101, dk=16, dv=8, amps=(2, 2, 0, 8), density=25,
                ssel=2, seed=6))
write('attention', 'regress-nan-q-bool-mask-weights-masked-stay-0',
      attention(weights=1, kind=2, n_q=4, n_kv=20, dk=8, dv=8, density=128, seed=7,
                patches=[(0, 9, float('nan'))]))
write('attention', 'regress-nan-q-keys-mask-mha-weights',
      attention(mha=1, weights=1, kind=1, n_q=2, n_kv=30, dk=8, heads=2, density=100, seed=8,
                patches=[(0, 3, float('nan'))]))
write('attention', 'regress-plus-inf-k-fused',
      attention(kind=0, n_q=3, n_kv=12, dk=4, dv=4, seed=9, patches=[(1, 5, float('inf'))]))
write('attention', 'seed-mha-decode-keys', attention(mha=1, kind=1, n_q=1, n_kv=300, dk=32, heads=6,
                                                      density=60, seed=10))
write('attention', 'seed-dk-over-packed-limit',
      attention(flags=32, n_q=9, n_kv=70, dk=255, dv=40, ssel=5, seed=11))
write('attention', 'seed-bq-edge-33x65', attention(n_q=33, n_kv=65, dk=17, dv=19,
                                                   pads=(1, 2, 3, 4, 5), seed=12))
write('attention', 'seed-big-nkv-1100', attention(flags=32, n_q=2, n_kv=1100, dk=8, dv=8, seed=13))
for k in range(5):
    write('attention', 'seed-kind%d-attention' % k,
          attention(weights=k & 1, kind=k, n_q=6 + k, n_kv=40 + 7 * k, dk=12, dv=5 + k,
                    pads=(k, 0, 1, 2, 3), amps=(1, 0, 1, 3), density=50, ssel=3, osel=3, oraw=k,
                    seed=200 + k))
    write('attention', 'seed-kind%d-mha' % k,
          attention(mha=1, weights=(k + 1) & 1, kind=k, n_q=1 + 3 * (k & 1), n_kv=20 + 11 * k,
                    dk=8, heads=1 + k, amps=(0, 1, 0, 2), density=70, ssel=4, osel=8, seed=300 + k))


# ---- api: fsel isel nulls, then the function's fields (see fuzz_api.c)
def size_small(v): return u8(v)          # 0..8
def size_raw(v): return u8(250) + u64(v)


EDGE = {2**20: 0, 2**31: 1, 2**32: 2, 2**32 + 1: 3, 2**50: 4, 2**60: 5, 2**61: 6, 2**62: 7,
        SIZE_MAX // 4: 8, SIZE_MAX // 4 + 1: 9, SIZE_MAX // 2: 10, SIZE_MAX // 2 + 1: 11,
        PTRDIFF_MAX: 12, PTRDIFF_MAX // 4: 13, PTRDIFF_MAX // 4 + 1: 14, SIZE_MAX - 1: 15,
        SIZE_MAX: 16, 3 << 61: 17}


def sz(v):
    if v <= 8:
        return size_small(v)
    if v in EDGE:
        i = EDGE[v]
        return u8(216 + i) if 216 + i < 250 else u8(198 + i)
    return size_raw(v)


def ld_fit(extra=0): return u8(extra)     # cols + extra (extra < 4)


def module(which, d, heads, n_dec, n_enc, nulls=0, layer_null=False, wnull=0, lb=None):
    return (u8(6 + which) + u8(0) + u8(nulls) + sz(d) + sz(heads) + sz(n_dec) + sz(n_enc) +
            u8(0 if layer_null else 1) + u8(wnull) + (b'' if lb is None else u8(lb)))


write('api', 'regress-mhca-workspace-size-d2e20-ndec1-nenc2e50', module(0, 2**20, 1, 1, 2**50))
write('api', 'regress-mhca-workspace-size-d2e20-ndec2e50-nenc1', module(0, 2**20, 1, 2**50, 1))
write('api', 'regress-mhca-forward-d16-ndec1-nenc2e60', module(0, 16, 1, 1, 2**60))
write('api', 'regress-mhca-forward-d16-ndec1-nenc2e60-workspace',
      module(0, 16, 1, 1, 2**60, nulls=0x10))
write('api', 'regress-mhca-forward-kv-d16-nenc2e60', module(2, 16, 2, 1, 2**60))
write('api', 'regress-mhca-project-kv-d2e32-nenc2e31', module(1, 2**32, 1, 0, 2**31))
write('api', 'regress-mhca-weights-size-overflow',
      module(0, 4, 2, 2**31, 2**32 + 1, nulls=0x08))
write('api', 'regress-mhca-weights-size-overflow-workspace-given',
      module(0, 4, 2, 2**31, 2**32 + 1, nulls=0x18))
write('api', 'regress-mhca-forward-kv-weights-size-overflow',
      module(2, 4, 2, 2**31, 2**32 + 1, nulls=0x08))
write('api', 'seed-mhca-forward-small-exact-workspace', module(0, 8, 2, 3, 5, nulls=0x1c))
write('api', 'seed-mhca-forward-kv-small-exact-workspace', module(2, 8, 4, 2, 7, nulls=0x1c))
write('api', 'seed-mhca-project-kv-small', module(1, 6, 3, 0, 4))
write('api', 'seed-mhca-bad-heads', module(0, 6, 4, 2, 2))
# the weights packed (wnull bit 4; lb 0x30: no d_enc, lb bit 6: w_o's own floats as its packed
# buffer, a bad layer)
write('api', 'seed-mhca-forward-packed', module(0, 8, 2, 3, 5, nulls=0x1c, wnull=16, lb=0x3f))
write('api', 'seed-mhca-forward-kv-packed', module(2, 8, 4, 2, 7, nulls=0x1c, wnull=16, lb=0x30))
write('api', 'seed-mhca-project-kv-packed', module(1, 6, 3, 0, 4, wnull=16, lb=0x30))
write('api', 'seed-mhca-forward-foreign-packed',
      module(0, 8, 2, 3, 5, nulls=0x1c, wnull=16, lb=0x70))
# sk_sgemm: one row of A with lda near SIZE_MAX, a good call with exact buffers
write('api', 'regress-sgemm-one-row-lda-near-size-max',
      u8(0) + u8(1) + u8(0) + u8(0) + sz(1) + sz(3) + sz(2) + sz(SIZE_MAX - 1) + ld_fit(0) +
      ld_fit(0) + u8(1) + u8(1))
write('api', 'seed-sgemm-small', u8(0) + u8(2) + u8(0) + u8(3) + sz(5) + sz(7) + sz(3) +
      ld_fit(1) + ld_fit(2) + ld_fit(3) + u8(1) + u8(1))
write('api', 'seed-sgemm-extent-overflow', u8(0) + u8(0) + u8(0) + u8(0) + sz(2**32 + 1) +
      sz(2) + sz(2**32) + ld_fit(0) + ld_fit(0) + ld_fit(0) + u8(0) + u8(0))
# sk_sgemm_plan_init then sk_sgemm_plan_run (bit 6): good, a NULL c (the run refuses), a size
# that overflows (init refuses)
write('api', 'seed-sgemm-plan-small', u8(0) + u8(2) + u8(0) + u8(64 | 3) + sz(5) + sz(7) + sz(3) +
      ld_fit(1) + ld_fit(2) + ld_fit(3) + u8(1) + u8(1))
write('api', 'seed-sgemm-plan-null-c', u8(0) + u8(1) + u8(4) + u8(64) + sz(4) + sz(6) + sz(5) +
      ld_fit(0) + ld_fit(1) + ld_fit(0) + u8(0) + u8(2))
write('api', 'seed-sgemm-plan-extent-overflow', u8(0) + u8(0) + u8(0) + u8(64) + sz(2**32 + 1) +
      sz(2) + sz(2**32) + ld_fit(0) + ld_fit(0) + ld_fit(0) + u8(0) + u8(0))
write('api', 'seed-exp', u8(1) + u8(1) + u8(0) + sz(7))
write('api', 'seed-softmax', u8(2) + u8(1) + u8(0) + sz(3) + sz(5) + ld_fit(1) + ld_fit(0))
for kind in range(6):
    write('api', 'seed-scale-mask-softmax-kind%d' % kind,
          u8(3) + u8(kind) + u8(0) + sz(4) + sz(6) + ld_fit(2) + ld_fit(1) + u8(1) + u8(kind) +
          (u32(1000) if kind == 5 else b'') + u64(PTRDIFF_MAX - 2 * (kind & 1)) + u8(1) +
          ld_fit(kind & 3))
write('api', 'regress-mha-heads-times-dhead-overflow',
      u8(5) + u8(0) + u8(0) + sz(2**62) + sz(2) + sz(3) + sz(8) + ld_fit(0) * 4 + u8(0))
write('api', 'seed-mha-weights', u8(5) + u8(1) + u8(0x10) + sz(3) + sz(2) + sz(5) + sz(4) +
      ld_fit(1) + ld_fit(0) + ld_fit(2) + ld_fit(0) + u8(1) + u8(1) + u64(0) + u8(1))
write('api', 'seed-attention-weights-causal',
      u8(4) + u8(2) + u8(0x10) + sz(3) + sz(5) + sz(4) + sz(6) + ld_fit(0) + ld_fit(1) +
      ld_fit(2) + ld_fit(3) + u8(1) + u8(4) + u64(PTRDIFF_MAX))
write('api', 'seed-names', u8(9) + u8(0) + u8(0) + u32(0xffffffff))
