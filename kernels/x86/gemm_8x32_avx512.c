/* AVX-512 GEMM kernels: the 8x32 register tile (16 zmm accumulators, two B vectors; A broadcast
 * inside each FMA when B is packed, once per row when B is read in place) in 1..8-row variants,
 * the same body on the wide tile, up to 6x64, for NN with few rows (16 accumulators where 4 rows
 * of 8x32 have 8) and on AMD Zen 5 for more rows over whole panels (24 accumulators, 10 loads per
 * 24 FMAs where 8x32 has 10 per 16: gemm.h), the transposed tiles for NT with few rows (16x16
 * up to 16 columns of op(A)^T, the 8x32 shape stored transposed past them, 8x16 two k steps at a
 * time for long k), and the m == 1 matrix-vector kernels (masked tails).
 *
 * Tile choice: 8x32 is faster than 14x32 and 12x32 on Zen 4 (docs/bench/gemm-tuning.md): with 14
 * or 12 rows, a tile's C rows at a 4 KiB-multiple stride all fall in one L1 set, and 16
 * accumulators already cover the FMA latency. On an Intel core with two 512-bit FMA ports the
 * three tiles ran within 3% of each other once A is broadcast inside the FMAs. MR is one define:
 * the row kernels and their table follow it (up to SK_GEMM_MR_MAX). */
#include <immintrin.h>
#include <string.h>

#include "common.h"
#include "x86/gemm.h"
#include "x86/avx2_util.h"
#include "x86/avx512_util.h"

#define MR SK_GEMM_AVX512_MR
#define TP_N SK_GEMM_AVX512_TP_N
#define NR SK_GEMM_AVX512_NR
#define W_MR SK_GEMM_AVX512_W_MR
#define W_NR SK_GEMM_AVX512_W_NR
#define DOT_GROUP SK_GEMM_AVX512_DOT_GROUP /* dot's rows of A (24 accumulators) */
#define PF_ROWS 8 /* prefetch distance of an in-place B, rows (~64 cycles at 8 rows per tile) */
#define PN_RSB_MIN 1024 /* the _rb main tile prefetches only B's next panel from this stride on */
#define HW_RSB 512      /* the _rb wide tile does not prefetch B at multiples of this row stride */
#define CS_STEP 8       /* the _rbp main tile prefetches a line of C every this many k steps */
/* K steps of ukr_body's LOOP over an in-place B, prefetching its rows PF_ROWS ahead into L1 (PN:
   instead, the same rows of the next panel into L2), the prefetches stopping PF_ROWS rows before
   the last row of B the tile reads; none when ukr_body's hw is set (see ukr_body). The _rb and
   _rbp wide tiles unroll these loops by 4 k steps, the rest by 2. On Intel Emerald Rapids the
   4x64 wide tile over B at a 2 KiB row stride ran at 0.88x the same instructions unrolled by 4
   (one driver, the loop copied out as it was compiled, 155 and 176 GFLOP/s, fastest of 81);
   through sk_sgemm (every tile's in-place loops by 4, two libraries alternated, fastest of 21,
   two runs): 4x512x512 1.11-1.18x, 16x512x512 1.03-1.07x, 8x512x512 1.01-1.05x, 16x1024x1024,
   32x32x32 and 256x512x512 1.01-1.02x, the others level. On AMD Zen 5 unrolling every loop by 4
   measured level (docs/bench/gemm-tuning.md, stop 35). Every tile's loops by 4 made this file
   1.6x slower to compile (clang -O2, 23 s to 37 s) and the CI's fuzz build (clang, sanitizers)
   19 minutes longer: the main tile's share (8x512x512, 16x1024x1024: 1-5%) is left out. */
#define LOOP_PF(CSA, RSB, K, PN)                                                                   \
    {                                                                                              \
        const size_t kp = (K) > PF_ROWS && !hw ? (K) - PF_ROWS : 0;                                \
        if (NV == W_NR / 16 && RB) {                                                               \
            LOOP_N("GCC unroll 4", CSA, RSB, kp, 1 + (PN), 1)                                      \
            LOOP_N("GCC unroll 4", CSA, RSB, (K) - kp, 0, 1)                                       \
        } else {                                                                                   \
            LOOP(CSA, RSB, kp, 1 + (PN), 1)                                                        \
            LOOP(CSA, RSB, (K) - kp, 0, 1)                                                         \
        }                                                                                          \
    }

/* c + broadcast(*x) * b as one FMA with an embedded broadcast of its memory operand. Written out
   because the compiler shares one vbroadcastss between the FMAs of a row. With B packed (in L1)
   the embedded form runs the tile 5-10% faster on Intel cores with two 512-bit FMA ports; with B
   read in place (from L2, plus its prefetches) the one shared broadcast is 7-10% faster: fewer
   load-port operations per FMA (docs/bench/gemm-tuning.md). On AMD Zen 5 (two 512-bit FMA
   pipes) the shared broadcast is faster with B packed too: the 8x32 tile alone over a packed
   panel in L1 ran at 0.83x the FMA peak with embedded broadcasts, 0.98x with one vbroadcastss
   per row (the _rb kernels). */
static inline __m512 fma_bcast(const float *x, __m512 b, __m512 c)
{
    __asm__("vfmadd231ps %1%{1to16%}, %2, %0" : "+v"(c) : "m"(*x), "v"(b));
    return c;
}

/* Row i (< 8) of a matrix read in place, at column 0 of two bases, rows 0 and 3, in x86
   addressing modes with the row stride l or 3 l in bytes (rows 0, 1, 2, 4 at r0 + 0, l, 2 l, 4 l;
   rows 3, 5, 6, 7 at r3 + 0, 2 l, l3, 4 l): four registers for eight rows. Left to itself the
   compiler keeps an offset per row and, beside a tile's other pointers, spills some of them and
   reloads them at every k step. row_bcast broadcasts the row's first float, row_load loads its
   first 16; each asm names what it reads as its memory operand. */
_Static_assert(MR <= 8 && W_MR <= 8, "row_bcast and row_load address eight rows");
#define ROW_OP(NAME, INSN, N)                                                                      \
    static inline __attribute__((always_inline)) __m512 NAME(const int i, const char *r0,          \
                                                             const char *r3, size_t l, size_t l3)  \
    {                                                                                              \
        __m512 v;                                                                                  \
        switch (i) {                                                                               \
        case 0: ROW_AT_(INSN, N, r0, l, 0); break;                                                 \
        case 1: ROW_AT_(INSN, N, r0, l, 1); break;                                                 \
        case 2: ROW_AT_(INSN, N, r0, l, 2); break;                                                 \
        case 3: ROW_AT_(INSN, N, r3, l, 0); break;                                                 \
        case 4: ROW_AT_(INSN, N, r0, l, 4); break;                                                 \
        case 5: ROW_AT_(INSN, N, r3, l, 2); break;                                                 \
        case 6: ROW_AT_(INSN, N, r3, l3, 1); break;                                                \
        default: ROW_AT_(INSN, N, r3, l, 4); break;                                                \
        }                                                                                          \
        return v;                                                                                  \
    }
/* v = INSN at BASE + IDX * SC (SC 0: BASE), which reads N floats there */
#define ROW_AT_(INSN, N, BASE, IDX, SC)                                                            \
    if ((SC) == 0)                                                                                 \
        __asm__(INSN " (%1), %0" : "=v"(v) : "r"(BASE), "m"(*(const float(*)[N])(BASE)));         \
    else if ((SC) == 1)                                                                            \
        __asm__(INSN " (%1,%2,1), %0"                                                              \
                : "=v"(v)                                                                          \
                : "r"(BASE), "r"(IDX), "m"(*(const float(*)[N])((BASE) + (IDX))));                 \
    else if ((SC) == 2)                                                                            \
        __asm__(INSN " (%1,%2,2), %0"                                                              \
                : "=v"(v)                                                                          \
                : "r"(BASE), "r"(IDX), "m"(*(const float(*)[N])((BASE) + 2 * (IDX))));             \
    else                                                                                           \
        __asm__(INSN " (%1,%2,4), %0"                                                              \
                : "=v"(v)                                                                          \
                : "r"(BASE), "r"(IDX), "m"(*(const float(*)[N])((BASE) + 4 * (IDX))))
ROW_OP(row_bcast, "vbroadcastss", 1)
ROW_OP(row_load, "vmovups", 16)
#undef ROW_OP
#undef ROW_AT_

/* The 8 floats of half H (0: low, 1: high) of v stored to dst with vextractf32x8, written out
   because the compiler stores a low half with vmovups. On AMD Zen 5 the copy of B as two halves
   runs the copying tile faster than as one 64-byte vmovups: the first row block copying B, the
   next ones reading the copy (in-process, two objects, fastest of 21, twice): 16x64x64
   1.06-1.09x, 16x512x256 1.05-1.06x, 24x512x128 1.03-1.05x, 32x32x32 1.02-1.03x, 16x1024x256
   (B from L3) level. The planner copies B only from a 4 KiB row stride on, from L3, where the
   whole call ran level within the VM's noise (16x4096x1024 0.98-1.03x, 16x1024x1024 and
   64x1024x1024 0.97-1.02x). In a loop of 16 FMAs alone, 2 zmm stores per iteration cost 9-16% and
   4 ymm vmovups stores 19-20%, where 4 or 8 vextractf32x8 stores cost nothing; beside a tile's
   loads and broadcasts both kinds cost nothing. */
static inline __attribute__((always_inline)) void store_half(const int H, float *dst, __m512 v)
{
    if (H)
        __asm__("vextractf32x8 $1, %1, %0" : "=m"(*(float(*)[8])dst) : "v"(v));
    else
        __asm__("vextractf32x8 $0, %1, %0" : "=m"(*(float(*)[8])dst) : "v"(v));
}

/* v stored to dst[0..16) as two halves (store_half) */
static inline __attribute__((always_inline)) void store_split(float *dst, __m512 v)
{
    store_half(0, dst, v);
    store_half(1, dst + 8, v);
}

/* C = alpha acc + beta C over R rows of 16 NV columns (beta == 0: C not read). */
static inline __attribute__((always_inline)) void store_tile(const int R, const int NV,
                                                             __m512 acc[][W_NR / 16], float *c,
                                                             size_t ldc, float alpha, float beta)
{
    const __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
    const int plain = alpha == 1.f && (beta == 0.f || beta == 1.f); /* the common cases */
#pragma GCC unroll 16
    for (int i = 0; i < R; i++) {
        float *ci = c + i * ldc;
#pragma GCC unroll 4
        for (int v = 0; v < NV; v++) {
            __m512 o = acc[i][v];
            if (plain) {
                if (beta != 0.f) o = _mm512_add_ps(_mm512_loadu_ps(ci + 16 * v), o);
            } else {
                o = _mm512_mul_ps(va, o);
                if (beta != 0.f) o = _mm512_fmadd_ps(vb, _mm512_loadu_ps(ci + 16 * v), o);
            }
            _mm512_storeu_ps(ci + 16 * v, o);
        }
    }
}

/* r x 16 NV tile (NV = NR / 16: the 8x32 tile; NV = W_NR / 16: the wide tile), TNR = 16 NV
   columns: A(i,p) = a[p*csa + i] (ROWS: a[i*csa + p]), B(p, 0..TNR-1) = b[p*rsb + 0..TNR-1]. CP:
   B read in place is also copied to the packed panel bp[p*TNR + ...] (the stores ride along with
   the FMAs). RB: A broadcast to a register once per row over a packed B too (over an in-place B
   always); RB == 2, the same with more prefetches (the main tile: C's lines spread over the k
   steps, cs, on the AMD Zen 5 and Intel tables; the wide tile: B's rows from a 4 KiB stride on,
   hw, on the Intel table). */
static inline __attribute__((always_inline)) void
ukr_body(const int R, const int NV, const int ROWS, const int CP, const int RB, size_t k,
         const float *a, size_t csa, const float *b, size_t rsb, float *c, size_t ldc, float alpha,
         float beta, float *bp, const float *pf, size_t pfs)
{
    const size_t TNR = 16 * (size_t)NV, TMR = NV == NR / 16 ? MR : W_MR; /* the tile's */
    __m512 acc[SK_GEMM_MR_MAX][W_NR / 16];
#pragma GCC unroll 16
    for (int i = 0; i < R; i++)
#pragma GCC unroll 4
        for (int v = 0; v < NV; v++) acc[i][v] = _mm512_setzero_ps();
    /* C's rows into L1 for the tiles over packed A (big shapes: C from L2 or L3, read at the
       end). The tiles reading A's rows in place (one MC block: small shapes, C mostly in L1)
       skip it, as the AVX2 tile does: on Zen 5, sk_bench alternated, two builds in turn, 32x32x32
       1.03-1.04x, 16x64x64, 64x64x64, 16x512x64 and 64x512x64 1.01-1.03x (plain, packed B and
       planned alike), 16x1024x1024 and 64x1024x1024 level.
       RB == 2 on the main tile (the _rbp tile, the Zen 5 and Intel tables'): over packed A and B
       one of C's lines is prefetched every CS_STEP k steps instead (cs), all of them within the
       first half of a kc = 256 block. A burst of 16 prefetches to L3 at the start held the line
       fill buffers the panel's loads want: the tile over pre-packed panels of 2048^3 (one
       driver) ran 140 GFLOP/s with C at its place, 161 with a C tile that stays in L1; the
       spread prefetch against the burst (two libraries alternated, fastest of 21, two runs; the
       control 0.999-1.007): 2048^3 1.07x, NT 2048^3 1.08x, 512x2048x512 1.02-1.03x,
       1024x1024x256 1.02-1.03x, 1024^3 1.01-1.02x, 256x1024x1024 and 512^3 level. One line
       every 4 k steps measured as every 8; every 16 (the last line 16 steps before the end)
       2048^3 1.02x. */
    const int cs = RB == 2 && NV == NR / 16 && !ROWS && !CP && !pf && csa == TMR && rsb == TNR &&
                   k >= CS_STEP * (size_t)(R * NV);
    if (!ROWS && !cs)
#pragma GCC unroll 16
        for (int i = 0; i < R; i++)
#pragma GCC unroll 4
            for (int v = 0; v < NV; v++)
                _mm_prefetch((const char *)(c + i * ldc + 16 * v), _MM_HINT_T0);
#define LOOP(CSA, RSB, K, PF, INPL) LOOP_N("GCC unroll 2", CSA, RSB, K, PF, INPL)
#define LOOP_N(UNROLL, CSA, RSB, K, PF, INPL)                                                      \
    _Pragma(UNROLL) for (size_t p = 0; p < (K); p++) {                                             \
        __m512 bv[W_NR / 16];                                                                      \
        _Pragma("GCC unroll 4") for (int v = 0; v < NV; v++) bv[v] = _mm512_loadu_ps(b + 16 * v);  \
        if (CP) {                                                                                  \
            _Pragma("GCC unroll 4") for (int v = 0; v < NV; v++)                                   \
                store_split(bp + 16 * v, bv[v]);                                                   \
            bp += TNR;                                                                             \
        }                                                                                          \
        if (PF == 1) { /* B in place: its row PF_ROWS ahead into L1 */                             \
            _Pragma("GCC unroll 4") for (int v = 0; v < NV; v++)                                   \
                _mm_prefetch((const char *)(b + pfd + 16 * v), _MM_HINT_T0);                       \
        }                                                                                          \
        if (PF == 3) { /* a row of the stream pf into L2 (B packed) */                           \
            _Pragma("GCC unroll 4") for (int v = 0; v < NV; v++)                                   \
                _mm_prefetch((const char *)(pf + 16 * v), _MM_HINT_T1);                            \
            pf += pfs;                                                                             \
        }                                                                                          \
        if (PF == 2) { /* this row of the next panel: in B (at worst the start of a later row) */ \
            _Pragma("GCC unroll 4") for (int v = 0; v < NV; v++)                                   \
                _mm_prefetch((const char *)(b + TNR + 16 * v), _MM_HINT_T1);                       \
        }                                                                                          \
        _Pragma("GCC unroll 16") for (int i = 0; i < R; i++) {                                     \
            const float *ai = ROWS ? a + i * csa : a + i;                                          \
            const __m512 av = ROWS && INPL ? row_bcast(i, r0, r3, rl, rl3) : _mm512_set1_ps(*ai);  \
            _Pragma("GCC unroll 4") for (int v = 0; v < NV; v++)                                   \
                acc[i][v] = INPL ? _mm512_fmadd_ps(av, bv[v], acc[i][v])                           \
                                 : fma_bcast(ai, bv[v], acc[i][v]);                                \
        }                                                                                          \
        a += (CSA);                                                                                \
        if (ROWS) r0 += (CSA) * sizeof(float), r3 += (CSA) * sizeof(float);                        \
        b += (RSB);                                                                                \
    }
    /* B read in place (rsb != NR) comes from L2 or L3 at a stride the hardware prefetchers do not
       follow (a few lines per row, rows 2 KiB or more apart): each row is prefetched PF_ROWS rows
       ahead into L1. Measured on the tile alone (docs/bench/gemm-tuning.md): 8 rows into L1 runs
       5-20% faster than 24 rows into L2 (B that is already in L2 is the common case, and 8 rows
       of a 4 KiB-multiple stride still fit the ways of one L1 set), 4 or 16 rows slower.
       The prefetches stop PF_ROWS rows before the last row of B the tile reads: past the end of B
       they would reach memory the caller may not have mapped or touched, and on AMD Zen a
       prefetch whose page is not present repeats the page walk each time. */
    const size_t pfd = PF_ROWS * rsb;
    /* A's rows in place (ROWS, R <= 8): their bases and strides for row_bcast */
    const char *r0 = (const char *)a, *r3 = (const char *)(a + (ROWS && R > 3 ? 3 * csa : 0));
    const size_t rl = csa * sizeof(float), rl3 = 3 * rl;
    /* The _rb kernels of the main tile (the Zen 5 table's) fetch the same rows of the next
       32-column panel into L2 instead, from a row stride of 4 KiB on (B of 4 MiB or more, from
       L3 or DRAM): the row blocks after the first one then read their copy of this panel while
       the next one is already on its way, instead of B arriving only during the first row block.
       Measured on Zen 5 (docs/bench/gemm-tuning.md), next panel added to the L1 prefetch:
       8x4096x1024 1.25x, 16x4096x1024 1.16x, 16x1024x4096 1.13x; at 768-float strides (B in L2)
       0.89x, on the wide tile 0.7-0.9x. The L1 prefetch then dropped: 8x1024x1024 1.20x,
       16x1024x1024 1.08x, 16x4096x1024 1.08x, 16x2048x2048 1.10x, 64x1024x1024 1.03x (at a
       4 KiB-multiple stride its lines and the copy's shared the ways of two L1 sets); 1200 and
       1536-float strides level. */
    const int pn = RB && NV == NR / 16 && rsb >= PN_RSB_MIN;
    /* The _rb kernels leave B's rows at a 2 KiB-multiple stride to the hardware prefetchers (the
       main tile only below 4 KiB: from there on it prefetches the next panel). Zen 5, fastest
       of 7-9 alternated: 8, 12 and 16 x 512 x 512 1.10-1.23x, 1.10-1.17x, 1.02-1.15x, 16x512x64
       1.06-1.10x; wide tile 4x512x512 1.04-1.16x, 4x1024x1024 1.27x, 4x1024x4096 1.21x,
       4x4096x1024 1.11x, 2x1024x1024 1.13x. At a 3 KiB stride the software prefetch is faster
       (4x768x768 1.3x, 8x768x768 1.05-1.2x). */
    const int hw = RB && rsb % HW_RSB == 0 && ((NV == W_NR / 16 && RB == 1) || rsb < PN_RSB_MIN);
    /* RB == 2 (the _rbp wide tile, Intel Emerald Rapids' table): from a 4 KiB stride on B's rows
       are prefetched PF_ROWS ahead all the same. In-process against the _rb tile (two libraries
       alternated, fastest of 21, two runs): 12x1024x1024 1.29x, 9x1024x1024 1.17-1.25x,
       6x1024x1024 1.13-1.31x, 4x2048x2048 1.10-1.12x, 4x4096x1024 1.01-1.20x, 4x1024x1024
       0.98-1.10x, 2x1024x1024 level; at a 2 KiB stride the two are the same code. */
    /* pf: the main _rb tile over a packed panel fetches a row of pf into L2 at each k step (see
       sk_gemm_ukr_fn): the second row block, reading the first one's copy of the panel, fetches
       the panel after the next one, where B would otherwise arrive only while the first row
       block runs. Zen 5, in-process against none, fastest of 15, twice: 16x4096x1024
       1.11-1.12x, 16x2048x2048 1.09-1.12x, 16x1024x4096 1.07-1.11x, 10x2048x1024 1.07x,
       12x1024x1024 1.05x, 16x1024x1024 1.02x; 24, 64, 256 x 1024 x 1024 and 1024^3 level
       (docs/bench/gemm-tuning.md) */
    const int pfr = RB && NV == NR / 16 && pf && rsb == TNR;
    if (ROWS && pfr) {
        LOOP(1, TNR, k, 3, RB)
    } else if (ROWS && rsb == TNR) { /* A(i,p) = a[i*csa + p] */
        LOOP(1, TNR, k, 0, RB)
    } else if (ROWS && pn) {
        LOOP_PF(1, rsb, k, 1)
    } else if (ROWS) {
        LOOP_PF(1, rsb, k, 0)
    } else if (!CP && csa == TMR && pfr) {
        LOOP(TMR, TNR, k, 3, RB)
    } else if (cs) { /* both packed, C's lines prefetched one per CS_STEP k steps */
        for (int l = 0; l < R * NV; l++) {
            _mm_prefetch((const char *)(c + l / NV * ldc + 16 * (l % NV)), _MM_HINT_T0);
            LOOP(TMR, TNR, CS_STEP, 0, RB)
        }
        LOOP(TMR, TNR, k - CS_STEP * (size_t)(R * NV), 0, RB)
    } else if (!CP && csa == TMR && rsb == TNR) {
        /* both packed: constant strides, immediate offsets */
        LOOP(TMR, TNR, k, 0, RB)
    } else if (pfr) {
        LOOP(csa, TNR, k, 3, RB)
    } else if (rsb == TNR) {
        LOOP(csa, TNR, k, 0, RB)
    } else if (pn) {
        LOOP_PF(csa, rsb, k, 1)
    } else {
        LOOP_PF(csa, rsb, k, 0)
    }
#undef LOOP
#undef LOOP_N
    store_tile(R, NV, acc, c, ldc, alpha, beta);
}

/* Up to 16 k steps (kk of them; FULL: 16) of 8 rows of B in place (b[q*rsb + p], q < 8) stored
   transposed into 8 columns of a packed panel: dst[p*NR + q] = b[q*rsb + p], p < kk. Two stages
   of in-lane shuffles (each 128-bit lane then holds 4 rows at one k step), then one cross-lane
   permute per two 8-row k steps, stored 32 bytes at a time: on Zen 5, 16 in-lane shuffles issue
   beside 16 FMAs in the FMAs' 8 cycles, where 8 cross-lane ones (vshuff32x4, vpermt2ps) add 2
   cycles (docs/bench/gemm-tuning.md). The permutes halve the stores (16 of 32 bytes, not 32 of
   16), which cost the tile more than the permutes: NT 32x32x32 to 64x512x64 1.006-1.021x. */
static inline __attribute__((always_inline)) void tpose8(const int FULL, size_t kk, const float *b,
                                                         size_t rsb, float *dst)
{
    const __mmask16 m = FULL ? 0xffff : sk_tail16_avx512(kk);
    __m512 r[8];
#pragma GCC unroll 8
    for (int q = 0; q < 8; q++)
        r[q] = FULL ? row_load(q, (const char *)b, (const char *)(b + 3 * rsb), rsb * sizeof(float),
                               3 * rsb * sizeof(float))
                    : _mm512_maskz_loadu_ps(m, b + q * rsb);
    __m512 t[8], x[8]; /* x[e]: rows 0-3 at k step 4 L + e in lane L; x[4 + e]: rows 4-7 */
#pragma GCC unroll 4
    for (int h = 0; h < 8; h += 2) {
        t[h] = _mm512_unpacklo_ps(r[h], r[h + 1]);
        t[h + 1] = _mm512_unpackhi_ps(r[h], r[h + 1]);
    }
#pragma GCC unroll 2
    for (int g = 0; g < 8; g += 4) {
        x[g] = _mm512_shuffle_ps(t[g], t[g + 2], 0x44);
        x[g + 1] = _mm512_shuffle_ps(t[g], t[g + 2], 0xee);
        x[g + 2] = _mm512_shuffle_ps(t[g + 1], t[g + 3], 0x44);
        x[g + 3] = _mm512_shuffle_ps(t[g + 1], t[g + 3], 0xee);
    }
    /* lanes 0, 1 (lo) or 2, 3 (hi) of x[e] and x[4 + e], paired: k steps e and 4 + e (lo), 8 + e
       and 12 + e (hi), 8 rows each */
    const __m512i lo = _mm512_setr_epi32(0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23);
    const __m512i hi = _mm512_setr_epi32(8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14, 15, 28, 29, 30,
                                         31);
#pragma GCC unroll 4
    for (int e = 0; e < 4; e++) {
        const __m512 y0 = _mm512_permutex2var_ps(x[e], lo, x[4 + e]);
        const __m512 y1 = _mm512_permutex2var_ps(x[e], hi, x[4 + e]);
        if (FULL || (size_t)e < kk) store_half(0, dst + e * NR, y0);
        if (FULL || (size_t)e + 4 < kk)
            store_half(1, dst + (4 + e) * NR, y0);
        if (FULL || (size_t)e + 8 < kk)
            store_half(0, dst + (8 + e) * NR, y1);
        if (FULL || (size_t)e + 12 < kk)
            store_half(1, dst + (12 + e) * NR, y1);
    }
}

/* The r x NR tile of ukr_body (A broadcast to a register once per row) over op(B) = B^T read in
   place, B(p, j) = b[j*rsb + p], j < NR, which it also stores to the packed panel bp[p*NR + j]
   for the row blocks after it (sk_gemm_ukr_fn's bp, transposed): where the blocked path packs the
   panel first (its transposition alone, then the tiles), the transposition here runs beside the
   FMAs, 16 k steps ahead of them: the FMAs of steps p0..p0+15 read the panel rows that were
   stored while the previous 16 steps ran (one 8-row group every 4 steps), so that no load waits
   on the 16-byte stores it would read. ROWS: A(i,p) = a[i*csa + p], else a[p*csa + i]; A's rows
   go through row_bcast's fixed addressing with all 8 rows only: with 2 to 7 rows, GCC 12 spilled
   the tile's vectors to the stack around the transposition (tcp_rows_7: 537 vector loads and
   stores at the stack; NT 5-7 x 64 x 64 ran at half the speed of 8 rows). A plain broadcast there
   is 1.9-2.1x faster, with the same bits. */
static inline __attribute__((always_inline)) void
tcp_body(const int R, const int ROWS, size_t k, const float *a, size_t csa, const float *b,
         size_t rsb, float *c, size_t ldc, float alpha, float beta, float *bp)
{
    __m512 acc[SK_GEMM_MR_MAX][W_NR / 16];
#pragma GCC unroll 16
    for (int i = 0; i < R; i++) acc[i][0] = acc[i][1] = _mm512_setzero_ps();
#define TCP_STEP(P)                                                                                \
    {                                                                                              \
        const float *bq = bp + (P) * NR;                                                           \
        const __m512 b0 = _mm512_loadu_ps(bq), b1 = _mm512_loadu_ps(bq + 16);                      \
        _Pragma("GCC unroll 16") for (int i = 0; i < R; i++) {                                     \
            const __m512 av = ROWS ? (R == 8 ? row_bcast(i, ra0, ra3, al, al3)                    \
                                             : _mm512_set1_ps(a[(size_t)i * csa + (P)]))           \
                                   : _mm512_set1_ps(a[(P) * csa + i]);                             \
            acc[i][0] = _mm512_fmadd_ps(av, b0, acc[i][0]);                                        \
            acc[i][1] = _mm512_fmadd_ps(av, b1, acc[i][1]);                                        \
        }                                                                                          \
        if (ROWS) ra0 += sizeof(float), ra3 += sizeof(float);                                      \
    }
    /* ROWS: A's rows at column P for row_bcast (each step moves them on by one column) */
    const char *ra0 = (const char *)a, *ra3 = (const char *)(a + (ROWS && R > 3 ? 3 * csa : 0));
    const size_t al = csa * sizeof(float), al3 = 3 * al;
    if (k >= 16) { /* the first 16 steps transposed up front */
#pragma GCC unroll 4
        for (int g = 0; g < 4; g++) tpose8(1, 16, b + 8 * g * rsb, rsb, bp + 8 * g);
    } else {
#pragma GCC unroll 4
        for (int g = 0; g < 4; g++) tpose8(0, k, b + 8 * g * rsb, rsb, bp + 8 * g);
    }
    size_t p0 = 0;
    for (; p0 + 16 <= k; p0 += 16) { /* these 16 steps, and the next ones' transposition */
        const size_t p1 = p0 + 16, kn = k - p1 < 16 ? k - p1 : 16;
        const float *bn = b + p1;
        float *dn = bp + p1 * NR;
#pragma GCC unroll 4
        for (int g = 0; g < 4; g++) {
#pragma GCC unroll 4
            for (int e = 0; e < 4; e++) TCP_STEP(p0 + 4 * (size_t)g + (size_t)e)
            if (kn == 16)
                tpose8(1, 16, bn + 8 * g * rsb, rsb, dn + 8 * g);
            else if (kn)
                tpose8(0, kn, bn + 8 * g * rsb, rsb, dn + 8 * g);
        }
    }
    for (; p0 < k; p0++) TCP_STEP(p0)
#undef TCP_STEP
    store_tile(R, 2, acc, c, ldc, alpha, beta);
}

/* Columns j < w of the 16 accumulator rows x[q] (row q = column q of C, lanes = rows of C)
   stored transposed: C[j*ldc + q] = alpha x[q][j] + beta C[j*ldc + q] for q < R (beta == 0: C
   not read). A 16 x 16 in-register transpose: lane j then holds the R values of C row j (rows
   x[R..15] are never stored, whatever they hold). */
static inline __attribute__((always_inline)) void
store_t16(const int R, const __m512 *x, size_t w, float *c, size_t ldc, float alpha, float beta)
{
    __m512 t[16], u[16];
#pragma GCC unroll 8
    for (int q = 0; q < 16; q += 2) { /* per 128-bit lane: [x0 y0 x1 y1], [x2 y2 x3 y3] */
        t[q] = _mm512_unpacklo_ps(x[q], x[q + 1]);
        t[q + 1] = _mm512_unpackhi_ps(x[q], x[q + 1]);
    }
#pragma GCC unroll 4
    for (int g = 0; g < 16; g += 4) { /* u[g+e], lane L = column 4L+e of rows g..g+3 */
        u[g] = _mm512_shuffle_ps(t[g], t[g + 2], 0x44);
        u[g + 1] = _mm512_shuffle_ps(t[g], t[g + 2], 0xee);
        u[g + 2] = _mm512_shuffle_ps(t[g + 1], t[g + 3], 0x44);
        u[g + 3] = _mm512_shuffle_ps(t[g + 1], t[g + 3], 0xee);
    }
    const __mmask16 mr = (__mmask16)((1u << R) - 1u);
    const __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
#pragma GCC unroll 4
    for (int e = 0; e < 4; e++) {
        const __m512 v0 = _mm512_shuffle_f32x4(u[e], u[4 + e], 0x88),
                     v1 = _mm512_shuffle_f32x4(u[e], u[4 + e], 0xdd);
        const __m512 w0 = _mm512_shuffle_f32x4(u[8 + e], u[12 + e], 0x88),
                     w1 = _mm512_shuffle_f32x4(u[8 + e], u[12 + e], 0xdd);
        const __m512 col[4] = { _mm512_shuffle_f32x4(v0, w0, 0x88),
                                _mm512_shuffle_f32x4(v1, w1, 0x88),
                                _mm512_shuffle_f32x4(v0, w0, 0xdd),
                                _mm512_shuffle_f32x4(v1, w1, 0xdd) };
#pragma GCC unroll 4
        for (int h = 0; h < 4; h++) { /* column i = 4h + e */
            const size_t i = (size_t)(4 * h + e);
            if (i >= w) continue;
            float *ci = c + i * ldc;
            __m512 o = _mm512_mul_ps(va, col[h]);
            if (beta != 0.f) o = _mm512_fmadd_ps(vb, _mm512_maskz_loadu_ps(mr, ci), o);
            _mm512_mask_storeu_ps(ci, mr, o);
        }
    }
}

/* Transposed r x 16 tile (see sk_gemm_ukr_t_fn): row q of the accumulators = row q of B times the
   16 columns of packed op(A)^T, stored transposed (store_t16). */
static inline __attribute__((always_inline)) void
ukr_t_body(const int R, size_t k, const float *a, size_t rsa, const float *b, size_t rsb, size_t w,
           float *c, size_t ldc, float alpha, float beta)
{
    __m512 x[16];
#pragma GCC unroll 16
    for (int i = 0; i < 16; i++) x[i] = _mm512_setzero_ps();
    /* row q = 7 g + e at offset e * rsa from base g: few address registers (no spills) */
    const float *a7 = a + (R > 7 ? 7 * rsa : 0), *a14 = a + (R > 14 ? 14 * rsa : 0);
    const size_t r3 = 3 * rsa, r5 = 5 * rsa, r6 = 6 * rsa;
#define ROWOFF(e)                                                                                  \
    ((e) == 0 ? 0 : (e) == 1 ? rsa : (e) == 2 ? 2 * rsa : (e) == 3 ? r3 : (e) == 4 ? 4 * rsa       \
     : (e) == 5 ? r5 : r6)
#pragma GCC unroll 2
    for (size_t p = 0; p < k; p++) {
        const __m512 b0 = _mm512_loadu_ps(b);
#pragma GCC unroll 16
        for (int q = 0; q < R; q++) {
            const float *ap = q < 7    ? a + ROWOFF(q)
                              : q < 14 ? a7 + ROWOFF(q - 7)
                                       : a14 + ROWOFF(q - 14);
            x[q] = _mm512_fmadd_ps(_mm512_set1_ps(*ap), b0, x[q]);
        }
        a++;
        a7++;
        a14++;
        b += rsb;
    }
    store_t16(R, x, w, c, ldc, alpha, beta);
}

/* Transposed r x 32 tile, r <= 8, for 17..32 columns of op(A)^T: the 8x32 tile's shape (two
   vectors per row of B, one broadcast per row and k step, where the 16-wide tile needs one per
   FMA), each 16-column half stored transposed. */
static inline __attribute__((always_inline)) void
ukr_t32_body(const int R, size_t k, const float *a, size_t rsa, const float *b, size_t rsb,
             size_t w, float *c, size_t ldc, float alpha, float beta)
{
    __m512 x[16], y[16];
#pragma GCC unroll 16
    for (int i = 0; i < 16; i++) x[i] = y[i] = _mm512_setzero_ps();
    const size_t r3 = 3 * rsa, r5 = 5 * rsa, r6 = 6 * rsa;
    const float *a7 = a + (R > 7 ? 7 * rsa : 0);
#pragma GCC unroll 2
    for (size_t p = 0; p < k; p++) {
        const __m512 b0 = _mm512_loadu_ps(b), b1 = _mm512_loadu_ps(b + 16);
#pragma GCC unroll 8
        for (int q = 0; q < R; q++) {
            const float *ap = q == 7 ? a7 : a + ROWOFF(q);
            const __m512 av = _mm512_set1_ps(*ap);
            x[q] = _mm512_fmadd_ps(av, b0, x[q]);
            y[q] = _mm512_fmadd_ps(av, b1, y[q]);
        }
        a++;
        a7++;
        b += rsb;
    }
#undef ROWOFF
    store_t16(R, x, 16, c, ldc, alpha, beta);
    store_t16(R, y, w - 16, c + 16 * ldc, ldc, alpha, beta);
}

/* Transposed r x 16 tile (ukr_t's contract), r <= TP_N, two k steps at a time: the rows p and
   p + 1 of packed op(A)^T interleaved in registers by in-lane unpacks (in 128-bit lane L, lane
   2h + e of the first vector: column 4L + h at k step p + e, h < 2; the second vector: columns
   4L + 2 + h), so that one 64-bit broadcast of a row of B (its two k steps) feeds two FMAs,
   against one broadcast per FMA in the 16-wide tile (ukr_t_body): 2 loads, 2 unpacks and r
   broadcasts per 2 r FMAs instead of r + 1 loads per r FMAs (the 16-wide tile took 9.1 cycles
   for its 8 cycles of FMAs a step on Zen 5), and two accumulators per row of B. The even and
   odd k steps are summed apart, then added. An odd last k step is a 32-bit broadcast into the
   even lanes only (masked: B's row may end right after it, and an inf there times the other lane
   would add a NaN). On AMD Zen 5 the unpacks (which issue beside the FMAs) ran 1.02-1.05x
   faster than a cross-lane permute per vector into columns in order (16x512x128, 16x256x256,
   16x1024x256 1.02x, 12x512x512 1.02x, 16x1024x1024 1.05x). */
static inline __attribute__((always_inline)) void
ukr_tp_body(const int R, size_t k, const float *a, size_t rsa, const float *b, size_t rsb,
            size_t w, float *c, size_t ldc, float alpha, float beta)
{
    __m512 x[16], y[TP_N];
#pragma GCC unroll 16
    for (int i = 0; i < 16; i++) x[i] = _mm512_setzero_ps();
#pragma GCC unroll 12
    for (int i = 0; i < TP_N; i++) y[i] = _mm512_setzero_ps();
    const size_t r3 = 3 * rsa, r5 = 5 * rsa, r6 = 6 * rsa;
    const float *a7 = a + (R > 7 ? 7 * rsa : 0);
#define ROWO(e)                                                                                    \
    ((e) == 0 ? 0 : (e) == 1 ? rsa : (e) == 2 ? 2 * rsa : (e) == 3 ? r3 : (e) == 4 ? 4 * rsa       \
     : (e) == 5 ? r5 : r6)
#define ROWP(q) ((q) < 7 ? a + ROWO(q) : a7 + ROWO((q) - 7))
#pragma GCC unroll 2
    for (size_t q2 = k >> 1; q2; q2--) {
        const __m512 e = _mm512_loadu_ps(b), o = _mm512_loadu_ps(b + rsb);
        const __m512 b0 = _mm512_unpacklo_ps(e, o), b1 = _mm512_unpackhi_ps(e, o);
#pragma GCC unroll 12
        for (int q = 0; q < R; q++) {
            double d2; /* B(q, p) and B(q, p + 1) */
            memcpy(&d2, ROWP(q), sizeof d2);
            const __m512 av = _mm512_castpd_ps(_mm512_set1_pd(d2));
            x[q] = _mm512_fmadd_ps(av, b0, x[q]);
            y[q] = _mm512_fmadd_ps(av, b1, y[q]);
        }
        a += 2;
        a7 += 2;
        b += 2 * rsb;
    }
    if (k & 1) {
        const __m512 e = _mm512_loadu_ps(b);
        const __m512 b0 = _mm512_unpacklo_ps(e, e), b1 = _mm512_unpackhi_ps(e, e);
#pragma GCC unroll 12
        for (int q = 0; q < R; q++) {
            const __m512 av = _mm512_set1_ps(*ROWP(q));
            x[q] = _mm512_mask3_fmadd_ps(av, b0, x[q], 0x5555);
            y[q] = _mm512_mask3_fmadd_ps(av, b1, y[q], 0x5555);
        }
    }
#undef ROWP
#undef ROWO
    /* in 128-bit lane L: x holds columns 4L, 4L + 1 and y columns 4L + 2, 4L + 3, each at k
       steps p (even lanes) and p + 1 (odd lanes): the even lanes of both in column order plus
       the odd ones, in-lane (cross-lane permutes into column order ran 1.01-1.04x slower on Zen
       5: 16x64x64, 16x512x64, 16x128x64, 16x512x128) */
#pragma GCC unroll 12
    for (int q = 0; q < R; q++)
        x[q] = _mm512_add_ps(_mm512_shuffle_ps(x[q], y[q], 0x88),
                             _mm512_shuffle_ps(x[q], y[q], 0xdd));
    store_t16(R, x, w, c, ldc, alpha, beta);
}

/* The r-row kernels, each an sk_gemm_tile_fn: P_cols_R read A by columns (a packed panel or A^T
   in place; s = csa, the stride between k steps), P_rows_R the rows of A in place (s = rsa); the
   _copy_ ones also store the B they read to the packed panel bp. */
#define UKR1(P, NAME, NV, R, ROWS, CP, RB)                                                         \
    static void P##NAME##_##R(size_t k, const float *a, size_t s, const float *b, size_t rsb,      \
                              float *c, size_t ldc, float alpha, float beta, float *bp,            \
                              const float *pf, size_t pfs)                                         \
    {                                                                                              \
        ukr_body(R, NV, ROWS, CP, RB, k, a, s, b, rsb, c, ldc, alpha, beta, bp, pf, pfs);          \
    }
#define UKR(P, NV, R)                                                                              \
    UKR1(P, cols, NV, R, 0, 0, 0) UKR1(P, rows, NV, R, 1, 0, 0)                                    \
    UKR1(P, cols_copy, NV, R, 0, 1, 0) UKR1(P, rows_copy, NV, R, 1, 1, 0)                          \
    UKR1(P, cols_rb, NV, R, 0, 0, 1) UKR1(P, rows_rb, NV, R, 1, 0, 1)                              \
    UKR1(P, cols_copy_rb, NV, R, 0, 1, 1) UKR1(P, rows_copy_rb, NV, R, 1, 1, 1)
/* the main tile's: A broadcast inside each FMA over a packed B (tile_), or once per row, then
   with C's lines spread over the k steps over packed A and B (the _rbp entry's) */
#define TILE(R)                                                                                    \
    UKR1(tile_, cols, NR / 16, R, 0, 0, 0) UKR1(tile_, rows, NR / 16, R, 1, 0, 0)                  \
    UKR1(tile_, cols_copy, NR / 16, R, 0, 1, 0) UKR1(tile_, rows_copy, NR / 16, R, 1, 1, 0)        \
    UKR1(tile_, cols_rbp, NR / 16, R, 0, 0, 2) UKR1(tile_, rows_rb, NR / 16, R, 1, 0, 1)           \
    UKR1(tile_, cols_copy_rb, NR / 16, R, 0, 1, 1) UKR1(tile_, rows_copy_rb, NR / 16, R, 1, 1, 1)
#define WIDE(R)                                                                                    \
    UKR(wide_, W_NR / 16, R)                                                                       \
    UKR1(wide_, cols_rbp, W_NR / 16, R, 0, 0, 2) UKR1(wide_, rows_rbp, W_NR / 16, R, 1, 0, 2)      \
    UKR1(wide_, cols_copy_rbp, W_NR / 16, R, 0, 1, 2)                                              \
    UKR1(wide_, rows_copy_rbp, W_NR / 16, R, 1, 1, 2)
/* The R-row transposed kernel P##R on BODY (masked stores write exactly r columns: room unused) */
#define UKRT_OF(P, BODY, R)                                                                        \
    static void P##R(size_t k, const float *a, size_t rsa, const float *b, size_t rsb, size_t w,  \
                     float *c, size_t ldc, size_t room, float alpha, float beta)                  \
    {                                                                                              \
        (void)room;                                                                                \
        BODY(R, k, a, rsa, b, rsb, w, c, ldc, alpha, beta);                                        \
    }
#define UKRT(R) UKRT_OF(ukr_t_, ukr_t_body, R)
#define UKRT32(R) UKRT_OF(ukr_t32_, ukr_t32_body, R)
#define UKRTP(R) UKRT_OF(ukr_tp_, ukr_tp_body, R)
TILE(1) TILE(2) TILE(3) TILE(4) TILE(5) TILE(6) TILE(7) TILE(8) TILE(9) TILE(10) TILE(11) TILE(12)
TILE(13) TILE(14) TILE(15) TILE(16)
WIDE(1) WIDE(2) WIDE(3) WIDE(4) WIDE(5) WIDE(6) WIDE(7) WIDE(8)
UKRT(1) UKRT(2) UKRT(3) UKRT(4) UKRT(5) UKRT(6) UKRT(7) UKRT(8) UKRT(9) UKRT(10) UKRT(11) UKRT(12)
UKRT(13) UKRT(14) UKRT(15) UKRT(16)
UKRT32(1) UKRT32(2) UKRT32(3) UKRT32(4) UKRT32(5) UKRT32(6) UKRT32(7) UKRT32(8)
UKRTP(1) UKRTP(2) UKRTP(3) UKRTP(4) UKRTP(5) UKRTP(6) UKRTP(7) UKRTP(8) UKRTP(9) UKRTP(10)
UKRTP(11) UKRTP(12)
/* the transposing-copy tile: A by columns (packed) or A's rows in place */
#define UKRTCP(R)                                                                                  \
    static void tcp_cols_##R(size_t k, const float *a, size_t s, const float *b, size_t rsb,       \
                             float *c, size_t ldc, float alpha, float beta, float *bp,             \
                             const float *pf, size_t pfs)                                          \
    {                                                                                              \
        (void)pf, (void)pfs;                                                                       \
        tcp_body(R, 0, k, a, s, b, rsb, c, ldc, alpha, beta, bp);                                  \
    }                                                                                              \
    static void tcp_rows_##R(size_t k, const float *a, size_t s, const float *b, size_t rsb,       \
                             float *c, size_t ldc, float alpha, float beta, float *bp,             \
                             const float *pf, size_t pfs)                                          \
    {                                                                                              \
        (void)pf, (void)pfs;                                                                       \
        tcp_body(R, 1, k, a, s, b, rsb, c, ldc, alpha, beta, bp);                                  \
    }
UKRTCP(1) UKRTCP(2) UKRTCP(3) UKRTCP(4) UKRTCP(5) UKRTCP(6) UKRTCP(7) UKRTCP(8)

/* The r-row kernels, r <= MR (the rest are never referenced, hence not compiled). */
#define ROWS16(V, M)                                                                               \
    { K(V, M, 1), K(V, M, 2),  K(V, M, 3),  K(V, M, 4),  K(V, M, 5),  K(V, M, 6),                  \
      K(V, M, 7), K(V, M, 8),  K(V, M, 9),  K(V, M, 10), K(V, M, 11), K(V, M, 12),                 \
      K(V, M, 13), K(V, M, 14), K(V, M, 15), K(V, M, 16) }
#define ROWS8(V, M)                                                                                \
    { K(V, M, 1), K(V, M, 2), K(V, M, 3), K(V, M, 4), K(V, M, 5), K(V, M, 6), K(V, M, 7),          \
      K(V, M, 8) }
#define K(V, M, R) ((R) <= (M) ? V##_##R : NULL)

/* The r-row kernels TILES (see sk_gemm_tiles; ROWSN of them up to row count M per layout: A by
   columns, A's rows in place (B packed or read in place: COLS, RWS), the same two copying B to bp
   (CCP, RCP)) and their entry point NAME (see sk_gemm_ukr_fn): the kernel of the layout. */
#define UKR_ENTRY(NAME, TILES, ROWSN, M, COLS, RWS, CCP, RCP)                                      \
    const sk_gemm_tiles TILES = { { ROWSN(COLS, M), ROWSN(RWS, M), ROWSN(CCP, M),                  \
                                    ROWSN(RCP, M) } };                                             \
    void NAME(size_t r, size_t k, const float *a, size_t rsa, size_t csa, const float *b,          \
              size_t rsb, float *c, size_t ldc, float alpha, float beta, float *bp,                \
              const float *pf, size_t pfs)                                                         \
    {                                                                                              \
        const int rows = csa == 1; /* rows of A in place: their stride is rsa */                   \
        TILES.by[(bp ? 2 : 0) + rows][r - 1](k, a, rows ? rsa : csa, b, rsb, c, ldc, alpha, beta,  \
                                             bp, pf, pfs);                                         \
    }
/* The micro-kernel, A broadcast inside each FMA over a packed B */
UKR_ENTRY(sk_gemm_ukr_avx512, sk_gemm_tiles_avx512, ROWS16, MR, tile_cols, tile_rows,
          tile_cols_copy, tile_rows_copy)
/* The tile over op(B) = B^T in place, storing it transposed to bp (see sk_gemm_dsp's ukr_tcp):
   its r-row kernels (by[SK_GEMM_TILE_COLS] and by[SK_GEMM_TILE_ROWS] only) and the entry */
const sk_gemm_tiles sk_gemm_tiles_tcp_avx512 = { { ROWS8(tcp_cols, MR), ROWS8(tcp_rows, MR) } };
void sk_gemm_ukr_tcp_avx512(size_t r, size_t k, const float *a, size_t rsa, size_t csa,
                            const float *b, size_t rsb, float *c, size_t ldc, float alpha,
                            float beta, float *bp, const float *pf, size_t pfs)
{
    const int rows = csa == 1; /* rows of A in place: their stride is rsa */
    sk_gemm_tiles_tcp_avx512.by[rows][r - 1](k, a, rows ? rsa : csa, b, rsb, c, ldc, alpha, beta,
                                             bp, pf, pfs);
}
/* The same with A broadcast to a register once per row over a packed B too, prefetching C's lines
   spread over the k steps over packed A and B (see ukr_body's cs) */
UKR_ENTRY(sk_gemm_ukr_rbp_avx512, sk_gemm_tiles_rbp_avx512, ROWS16, MR, tile_cols_rbp,
          tile_rows_rb, tile_cols_copy_rb, tile_rows_copy_rb)
/* The wide micro-kernel for few rows: the same on an r x W_NR tile, r <= W_MR */
UKR_ENTRY(sk_gemm_ukr_w_avx512, sk_gemm_tiles_w_avx512, ROWS8, W_MR, wide_cols, wide_rows,
          wide_cols_copy, wide_rows_copy)
/* The wide one with A broadcast to a register once per row over a packed B too */
UKR_ENTRY(sk_gemm_ukr_w_rb_avx512, sk_gemm_tiles_w_rb_avx512, ROWS8, W_MR, wide_cols_rb,
          wide_rows_rb, wide_cols_copy_rb, wide_rows_copy_rb)
/* and prefetching B's rows at every stride from 4 KiB on (see ukr_body's hw) */
UKR_ENTRY(sk_gemm_ukr_w_rbp_avx512, sk_gemm_tiles_w_rbp_avx512, ROWS8, W_MR, wide_cols_rbp,
          wide_rows_rbp, wide_cols_copy_rbp, wide_rows_copy_rbp)
#undef UKR_ENTRY
#undef K
#undef ROWS8
#undef ROWS16

typedef void (*tile_t_fn)(size_t k, const float *a, size_t rsa, const float *b, size_t rsb,
                          size_t w, float *c, size_t ldc, size_t room, float alpha, float beta);

/* The transposed tile (see sk_gemm_ukr_t_fn): w <= 16, the r-row 16-wide kernel; w > 16, the
   32-wide kernel on r rows of B, more than 8 as two near-equal halves (a 4-row half would hold
   only 8 accumulators). */
void sk_gemm_ukr_t_avx512(size_t r, size_t k, const float *a, size_t rsa, const float *b,
                          size_t rsb, size_t w, float *c, size_t ldc, size_t room, float alpha,
                          float beta)
{
    static const tile_t_fn tab[16] = { ukr_t_1,  ukr_t_2,  ukr_t_3,  ukr_t_4,  ukr_t_5,  ukr_t_6,
                                       ukr_t_7,  ukr_t_8,  ukr_t_9,  ukr_t_10, ukr_t_11, ukr_t_12,
                                       ukr_t_13, ukr_t_14, ukr_t_15, ukr_t_16 };
    static const tile_t_fn tab32[8] = { ukr_t32_1, ukr_t32_2, ukr_t32_3, ukr_t32_4,
                                        ukr_t32_5, ukr_t32_6, ukr_t32_7, ukr_t32_8 };
    if (w <= 16) {
        tab[r - 1](k, a, rsa, b, rsb, w, c, ldc, room, alpha, beta);
        return;
    }
    const size_t r0 = r <= 8 ? r : (r + 1) / 2;
    tab32[r0 - 1](k, a, rsa, b, rsb, w, c, ldc, room, alpha, beta);
    if (r > r0) tab32[r - r0 - 1](k, a + r0 * rsa, rsa, b, rsb, w, c + r0, ldc, room, alpha, beta);
}

/* The transposed tile two k steps at a time (see sk_gemm_dsp.ukr_tp): r <= 8, w <= 16. */
void sk_gemm_ukr_tp_avx512(size_t r, size_t k, const float *a, size_t rsa, const float *b,
                           size_t rsb, size_t w, float *c, size_t ldc, size_t room, float alpha,
                           float beta)
{
    static const tile_t_fn tab[TP_N] = { ukr_tp_1, ukr_tp_2, ukr_tp_3,  ukr_tp_4,
                                         ukr_tp_5, ukr_tp_6, ukr_tp_7,  ukr_tp_8,
                                         ukr_tp_9, ukr_tp_10, ukr_tp_11, ukr_tp_12 };
    tab[r - 1](k, a, rsa, b, rsb, w, c, ldc, room, alpha, beta);
}

static inline __m512 finish(__m512 s, float alpha, float beta, __mmask16 m, const float *c)
{
    s = _mm512_mul_ps(_mm512_set1_ps(alpha), s);
    return beta == 0.f ? s : _mm512_fmadd_ps(_mm512_set1_ps(beta), _mm512_maskz_loadu_ps(m, c), s);
}

/* gemv_n from GEMV_ROWS_MIN columns on, or at a row stride that is a multiple of 4 KiB (walking
   down a column chunk would put every row in one L1 set and defeat the prefetchers): a
   4096-column accumulator row kept in L1 (16 KiB on the stack), eight rows of B at a time (then
   four, then one), each 256-column block of the row in 16 registers while the eight rows' pieces
   stream into it (as oneDNN's gemv_n kernel walks B). A row of 1024 columns read B's rows in
   4 KiB runs, one page each: against it (the same bits), in-process, fastest of 9, median of 5
   processes, 1x4096x4096 1.09x, 1x32000x512 1.14x, 1x1536x1536 1.11x, 1x4096x1024 1.03x,
   1x2048x2048, 1x2048x512 and 1x1024x4096 level (2048 columns: 1.05x, 1.10x, 1.11x, 1.02x,
   level). AMD Zen 5, in-process against the row held in L1 and B's rows streamed whole one at a
   time (from L2) or eight at a time one vector per step (past it), fastest of 15, the same bits:
   1x512x512 1.15-1.19x, 1x1024x1024 1.10x, 1x1024x256 1.25x, 1x1024x128 1.31x, 1x2048x2048
   1.16x, 1x464x512 1.12-1.24x, 1x768x768 1.04-1.06x, 1x512x256 1.11x, 1x512x64 0.86-1.09x and
   1x512x128 0.92-1.12x (the VM's phases), 1x4096x4096 0.97x (docs/bench/gemm-tuning.md). Below
   GEMV_ROWS_MIN columns (a call as wide as that has parts as wide on a pool) a B in L2 goes two
   rows at a time, in two sums: the narrow accumulator row waits on its own stores from one row
   to the next (1x64x256 at a 4 KiB stride). */
#define GEMV_ROWS_MIN SK_GEMV_AVX2_ROWS_MIN
#define GEMV_W 4096
#define GEMV_L2_MAX SK_GEMV_AVX512_SPAN /* B spans at most this many floats (from L2): below
                                          GEMV_ROWS_MIN columns two rows at a time, not eight */

/* acc[0..16) (the first lanes of mask m) += sum_r a_r b[r*ldb + 0..16) over R rows: R == 2 in two
   sums (row 1 apart, then added); R == 8, 4 and 1 onto acc in row order, so that from
   GEMV_ROWS_MIN columns on every kernel of gemv_n sums each column's rows in order and a part of a
   call on a pool gets the bits of the whole call whatever its width. Eight rows in order against
   two sums of four, AMD Zen 5, in-process, fastest of 15, three runs: 1x1024x1024 0.99-1.02x,
   1x768x768 0.99-1.00x, 1x1000x1000 0.99x, 1x512x2048 1.00-1.01x. */
static inline __attribute__((always_inline)) void gemv_rows_step(const int R, float *acc,
                                                                 const __m512 *av, const float *b,
                                                                 size_t ldb, __mmask16 m)
{
    __m512 v = _mm512_load_ps(acc);
    if (R == 2) {
        const __m512 u = _mm512_mul_ps(av[1], _mm512_maskz_loadu_ps(m, b + ldb));
        v = _mm512_fmadd_ps(av[0], _mm512_maskz_loadu_ps(m, b), v);
        _mm512_store_ps(acc, _mm512_add_ps(v, u));
        return;
    }
#pragma GCC unroll 8
    for (int r = 0; r < R; r++)
        v = _mm512_fmadd_ps(av[r], _mm512_maskz_loadu_ps(m, b + r * ldb), v);
    _mm512_store_ps(acc, v);
}

/* acc[0..16 V) += sum_r a_r b[r*ldb + 0..16 V) over R rows, onto acc in row order as
   gemv_rows_step: the V vectors of acc in registers while the R rows stream into them. */
#define GEMV_BLK 16
static inline __attribute__((always_inline)) void gemv_rows_block(const int R, const int V,
                                                                  float *acc, const __m512 *av,
                                                                  const float *b, size_t ldb)
{
    __m512 y[GEMV_BLK];
#pragma GCC unroll 16
    for (int v = 0; v < V; v++) y[v] = _mm512_load_ps(acc + 16 * v);
#pragma GCC unroll 8
    for (int r = 0; r < R; r++) {
#pragma GCC unroll 16
        for (int v = 0; v < V; v++)
            y[v] = _mm512_fmadd_ps(av[r], _mm512_loadu_ps(b + r * ldb + 16 * v), y[v]);
    }
#pragma GCC unroll 16
    for (int v = 0; v < V; v++) _mm512_store_ps(acc + 16 * v, y[v]);
}

/* R rows of B (from bp) into the accumulator row acc[0..w), a[0..R) their factors. */
static inline __attribute__((always_inline)) void gemv_rows_pass(const int R, float *acc,
                                                                 const float *a, const float *bp,
                                                                 size_t ldb, size_t w)
{
    __m512 av[8];
#pragma GCC unroll 8
    for (int r = 0; r < R; r++) av[r] = _mm512_set1_ps(a[r]);
    const size_t wf = w & ~(size_t)15;
    size_t j = 0;
    if (R == 8) {
        for (; j + 16 * GEMV_BLK <= w; j += 16 * GEMV_BLK)
            gemv_rows_block(R, GEMV_BLK, acc + j, av, bp + j, ldb);
        if (j + 128 <= wf) gemv_rows_block(R, 8, acc + j, av, bp + j, ldb), j += 128;
        if (j + 64 <= wf) gemv_rows_block(R, 4, acc + j, av, bp + j, ldb), j += 64;
        if (j + 32 <= wf) gemv_rows_block(R, 2, acc + j, av, bp + j, ldb), j += 32;
    }
    for (; j < wf; j += 16) gemv_rows_step(R, acc + j, av, bp + j, ldb, 0xffff);
    if (j < w) gemv_rows_step(R, acc + j, av, bp + j, ldb, sk_tail16_avx512(w - j));
}

static void gemv_n_rows(size_t n, size_t k, float alpha, const float *a, const float *b, size_t ldb,
                        float beta, float *c)
{
    SK_ALIGN(64) float acc[GEMV_W];
    for (size_t j0 = 0; j0 < n; j0 += GEMV_W) {
        const size_t w = n - j0 < GEMV_W ? n - j0 : GEMV_W;
        for (size_t j = 0; j < w; j += 16) _mm512_store_ps(acc + j, _mm512_setzero_ps());
        const float *bp = b + j0;
        size_t p = 0;
        const int in_l2 = k * ldb <= GEMV_L2_MAX;
        if (in_l2 && n < GEMV_ROWS_MIN)
            for (; p + 2 <= k; p += 2, bp += 2 * ldb) gemv_rows_pass(2, acc, a + p, bp, ldb, w);
        for (; p + 8 <= k; p += 8, bp += 8 * ldb) gemv_rows_pass(8, acc, a + p, bp, ldb, w);
        if (p + 4 <= k) gemv_rows_pass(4, acc, a + p, bp, ldb, w), p += 4, bp += 4 * ldb;
        for (; p < k; p++, bp += ldb) gemv_rows_pass(1, acc, a + p, bp, ldb, w);
        for (size_t j = 0; j < w; j += 16) {
            const __mmask16 mj = sk_tail16_avx512(w - j < 16 ? w - j : 16);
            _mm512_mask_storeu_ps(c + j0 + j, mj,
                                  finish(_mm512_load_ps(acc + j), alpha, beta, mj, c + j0 + j));
        }
    }
}

/* c[j0..j0+32) of gemv_n: two FMA chains per 16 columns, two rows of B at a time. full: all 32
   columns, read with plain loads (m0, m1 unused). The masked loads of a partial block only: from
   DRAM, a stream of masked loads ran at half the speed of plain ones on AMD Zen 5 (the 32-column
   loop over a 4 MiB B: 22-25 GB/s masked, 39-49 GB/s plain, alternated in one process; every
   mask all ones): the packed panels of sk_gemm_pack_b are read here. */
static inline __attribute__((always_inline)) void gemv_n32(const int full, size_t k, float alpha,
                                                           const float *a, const float *bp,
                                                           size_t ldb, float beta, __mmask16 m0,
                                                           __mmask16 m1, float *c)
{
#define GEMV_LD(m, p) (full ? _mm512_loadu_ps(p) : _mm512_maskz_loadu_ps(m, p))
    __m512 s0 = _mm512_setzero_ps(), s1 = _mm512_setzero_ps();
    __m512 t0 = _mm512_setzero_ps(), t1 = _mm512_setzero_ps();
    size_t p = 0;
    for (; p + 2 <= k; p += 2, bp += 2 * ldb) {
        const __m512 a0 = _mm512_set1_ps(a[p]), a1 = _mm512_set1_ps(a[p + 1]);
        s0 = _mm512_fmadd_ps(a0, GEMV_LD(m0, bp), s0);
        s1 = _mm512_fmadd_ps(a0, GEMV_LD(m1, bp + 16), s1);
        t0 = _mm512_fmadd_ps(a1, GEMV_LD(m0, bp + ldb), t0);
        t1 = _mm512_fmadd_ps(a1, GEMV_LD(m1, bp + ldb + 16), t1);
    }
    if (p < k) {
        const __m512 a0 = _mm512_set1_ps(a[p]);
        s0 = _mm512_fmadd_ps(a0, GEMV_LD(m0, bp), s0);
        s1 = _mm512_fmadd_ps(a0, GEMV_LD(m1, bp + 16), s1);
    }
#undef GEMV_LD
    s0 = _mm512_add_ps(s0, t0);
    s1 = _mm512_add_ps(s1, t1);
    _mm512_mask_storeu_ps(c, m0, finish(s0, alpha, beta, m0, c));
    _mm512_mask_storeu_ps(c + 16, m1, finish(s1, alpha, beta, m1, c + 16));
}

/* c[0..16 V) of gemv_n: V accumulators, one row of B at a time. */
static inline __attribute__((always_inline)) void gemv_n_cols(const int V, size_t k, float alpha,
                                                              const float *a, const float *b,
                                                              size_t ldb, float beta, float *c)
{
    __m512 s[8];
#pragma GCC unroll 8
    for (int v = 0; v < V; v++) s[v] = _mm512_setzero_ps();
    for (size_t p = 0; p < k; p++, b += ldb) {
        const __m512 ap = _mm512_set1_ps(a[p]);
#pragma GCC unroll 8
        for (int v = 0; v < V; v++) s[v] = _mm512_fmadd_ps(ap, _mm512_loadu_ps(b + 16 * v), s[v]);
    }
#pragma GCC unroll 8
    for (int v = 0; v < V; v++)
        _mm512_storeu_ps(c + 16 * v, finish(s[v], alpha, beta, 0xffff, c + 16 * v));
}

/* c[0..n) of gemv_n with 16 (V - 2) < n <= 16 V, V even: V accumulators in registers, the last two
   masked, one row of B at a time, each row read whole. Each column sums its rows in order, as
   gemv_n_rows does, so the two give the same bits. Not wider than GEMV_REGS_MAX vectors: on AMD
   Zen 5 a loop reading a row of more than 28 vectors of B per step (1792 bytes) streamed B from L2
   at 0.55-0.65x a plain read, one of 28 or fewer at 1.0-1.1x (asm loops, no spills, B contiguous;
   two rows of 16 vectors per step as slow, software prefetches did not lift it). gemv_n_rows'
   eight rows of 16 vectors a step do not hit it; here they ran 0.87-0.99x (1x384x384 0.87x). */
#define GEMV_REGS_MAX 28
#define GEMV_REGS_MIN 192 /* gemv_n_regs from past this many columns (1x192x192 level, 1x128x512
                             0.94x the 128-column strips) */
static inline __attribute__((always_inline)) void gemv_n_regs(const int V, size_t n, size_t k,
                                                              float alpha, const float *a,
                                                              const float *b, size_t ldb,
                                                              float beta, float *c)
{
    const size_t n0 = 16 * (size_t)(V - 2);
    const __mmask16 m0 = sk_tail16_avx512(n - n0);
    const __mmask16 m1 = sk_tail16_avx512(n - n0 > 16 ? n - n0 - 16 : 0);
    __m512 s[GEMV_REGS_MAX];
#pragma GCC unroll 28
    for (int v = 0; v < V; v++) s[v] = _mm512_setzero_ps();
    for (size_t p = 0; p < k; p++, b += ldb) {
        const __m512 x = _mm512_set1_ps(a[p]);
#pragma GCC unroll 28
        for (int v = 0; v < V - 2; v++)
            s[v] = _mm512_fmadd_ps(x, _mm512_loadu_ps(b + 16 * v), s[v]);
        s[V - 2] = _mm512_fmadd_ps(x, _mm512_maskz_loadu_ps(m0, b + n0), s[V - 2]);
        s[V - 1] = _mm512_fmadd_ps(x, _mm512_maskz_loadu_ps(m1, b + n0 + 16), s[V - 1]);
    }
#pragma GCC unroll 28
    for (int v = 0; v < V; v++) {
        const __mmask16 m = v < V - 2 ? 0xffff : v == V - 2 ? m0 : m1;
        _mm512_mask_storeu_ps(c + 16 * v, m, finish(s[v], alpha, beta, m, c + 16 * v));
    }
}

/* c[j] = alpha sum_p a[p] b[p*ldb + j] + beta c[j]: from GEMV_REGS_MIN to 16 GEMV_REGS_MAX
   columns the whole row in registers (gemv_n_regs), else B's rows streamed whole (above), or below
   GEMV_ROWS_MIN columns 128 columns (8 accumulators) at a time, then 32 at a time (the last
   block masked). gemv_n_regs against the kernels it replaces, AMD Zen 5, in-process, fastest of
   15: 1x256x256 1.23x, 1x320x320 1.18x, 1x384x384 1.10x, 1x448x448 1.19x, 1x256x512 1.27x,
   1x224x224 1.26x, 1x200x300 1.99x; past L2, against eight rows at a time: 1x384x1536
   1.13-1.15x, 1x448x1024 1.05x, 1x256x4096 1.08-1.09x, 1x320x2048 1.14-1.15x, 1x400x1000
   1.05x, 1x384x8192 1.24x. It sums the rows in order, as every kernel from GEMV_ROWS_MIN
   columns on does (gemv_rows_step). */
void sk_gemv_n_avx512(size_t n, size_t k, float alpha, const float *a, const float *b, size_t ldb,
                      float beta, float *c)
{
    if (n > GEMV_REGS_MIN && n <= 16 * GEMV_REGS_MAX) {
        switch ((n + 31) / 32) {
        case 7: gemv_n_regs(14, n, k, alpha, a, b, ldb, beta, c); return;
        case 8: gemv_n_regs(16, n, k, alpha, a, b, ldb, beta, c); return;
        case 9: gemv_n_regs(18, n, k, alpha, a, b, ldb, beta, c); return;
        case 10: gemv_n_regs(20, n, k, alpha, a, b, ldb, beta, c); return;
        case 11: gemv_n_regs(22, n, k, alpha, a, b, ldb, beta, c); return;
        case 12: gemv_n_regs(24, n, k, alpha, a, b, ldb, beta, c); return;
        case 13: gemv_n_regs(26, n, k, alpha, a, b, ldb, beta, c); return;
        default: gemv_n_regs(28, n, k, alpha, a, b, ldb, beta, c); return;
        }
    }
    if (ldb % 1024 == 0 || n >= GEMV_ROWS_MIN) {
        gemv_n_rows(n, k, alpha, a, b, ldb, beta, c);
        return;
    }
    size_t j = 0;
    for (; j + 128 <= n; j += 128) gemv_n_cols(8, k, alpha, a, b + j, ldb, beta, c + j);
    if (j + 64 <= n) /* 64 columns: one pass over the rows (a packed B's panel) */
        gemv_n_cols(4, k, alpha, a, b + j, ldb, beta, c + j), j += 64;
    for (; j + 32 <= n; j += 32) gemv_n32(1, k, alpha, a, b + j, ldb, beta, 0xffff, 0xffff, c + j);
    if (j < n) {
        const size_t w = n - j;
        const __mmask16 m0 = sk_tail16_avx512(w < 16 ? w : 16);
        const __mmask16 m1 = sk_tail16_avx512(w < 16 ? 0 : w - 16);
        gemv_n32(0, k, alpha, a, b + j, ldb, beta, m0, m1, c + j);
    }
}

/* dot(a, r_i) for the R rows r_i = r + i*rs (R <= 4) over k floats, in 16 lanes each: per row
   four sums 16 floats apart while 64 are left, the first one on to the last full vector, the
   second for the k % 16 tail (mask mt), added in pairs; each of a's vectors loaded once for the R
   rows. PF: each row's lines prefetched GEMV_T_PF_AHEAD floats ahead of its loads. A row's sum is
   the same whatever R and PF. */
#define GEMV_T_PF_AHEAD 512
static inline __attribute__((always_inline)) void dot_rows(const int R, const int PF, size_t k,
                                                           const float *a, const float *r,
                                                           size_t rs, __mmask16 mt, __m512 *out)
{
    __m512 s[4][4];
#pragma GCC unroll 4
    for (int i = 0; i < R; i++)
        s[i][0] = s[i][1] = s[i][2] = s[i][3] = _mm512_setzero_ps();
    size_t p = 0;
    for (; p + 64 <= k; p += 64) {
#pragma GCC unroll 4
        for (int u = 0; u < 4; u++) {
            const __m512 x = _mm512_loadu_ps(a + p + 16 * u);
#pragma GCC unroll 4
            for (int i = 0; i < R; i++) {
                const float *ri = r + i * rs + p + 16 * u;
                if (PF) _mm_prefetch((const char *)(ri + GEMV_T_PF_AHEAD), _MM_HINT_T0);
                s[i][u] = _mm512_fmadd_ps(x, _mm512_loadu_ps(ri), s[i][u]);
            }
        }
    }
    for (; p + 16 <= k; p += 16) {
        const __m512 x = _mm512_loadu_ps(a + p);
#pragma GCC unroll 4
        for (int i = 0; i < R; i++)
            s[i][0] = _mm512_fmadd_ps(x, _mm512_loadu_ps(r + i * rs + p), s[i][0]);
    }
    if (mt) {
        const __m512 x = _mm512_maskz_loadu_ps(mt, a + p);
#pragma GCC unroll 4
        for (int i = 0; i < R; i++)
            s[i][1] = _mm512_fmadd_ps(x, _mm512_maskz_loadu_ps(mt, r + i * rs + p), s[i][1]);
    }
#pragma GCC unroll 4
    for (int i = 0; i < R; i++)
        out[i] = _mm512_add_ps(_mm512_add_ps(s[i][0], s[i][1]), _mm512_add_ps(s[i][2], s[i][3]));
}

/* c[j] = alpha dot(a, b + j*ldb) + beta c[j] for the R * (n / R) rows j < R (n / R), R rows side
   by side n / R rows apart (dot_rows, R = 2 or 4, PF); returns the rows done. */
static inline __attribute__((always_inline)) size_t dot_far(const int R, const int PF, size_t n,
                                                            size_t k, float alpha, const float *a,
                                                            const float *b, size_t ldb,
                                                            __mmask16 mt, float beta, float *c)
{
    const size_t h = n / (size_t)R;
    __m512 s[4] = { _mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(),
                    _mm512_setzero_ps() };
    for (size_t j = 0; j < h; j++) {
        dot_rows(R, PF, k, a, b + j * ldb, h * ldb, mt, s);
        sk_put4_strided_avx2(R, sk_reduce4_avx512(s), alpha, beta, c + j, h);
    }
    return (size_t)R * h;
}

/* c[j] = alpha dot(a, b + j*ldb) + beta c[j]. From GEMV_T_ROWS_K floats of k on, each row's sum
   reduced on its own (dot_rows), by the span of B (n x ldb floats): one row at a time up to
   GEMV_T_TWO_SPAN floats (L2; each row read whole by one loop, the loads walk B in order from one
   row to the next), R rows side by side n / R rows apart past it (dot_far; the n % R rows left
   over one at a time after them): four in (GEMV_T_FOUR_LO, GEMV_T_FOUR_HI] (B filling L2) and
   past GEMV_T_FOUR_SPAN (L3 and DRAM: more lines in flight), else two, from L3 (past
   GEMV_T_FOUR_HI) with software prefetches 2 KiB ahead in each row (against none, in-process,
   median of 7 processes: 1x1024x1024 1.14x, 1x4096x256 1.16x, 1x768x768 1.07x, 1x640x640,
   1x2048x1024, 1x1024x2048 level; in the four-row windows and from L2 0.93-0.96x). A row's sum
   is the same whatever rows are beside it, so a part of a call on a pool (some of its rows,
   another span) gets the call's bits. Below GEMV_T_ROWS_K, eight rows side by side, one sum
   each.
   AMD Zen 5, through sk_sgemm, two libraries alternated in one process, fastest of 9, median of
   7 processes, two runs, against one row at a time up to 4 Mi floats (four rows n / 4 apart past
   it): 1x512x256 1.18, 1x448x448 1.10-1.24, 1x384x384 1.07, 1x512x512 1.04-1.06, 1x1024x256
   1.08-1.10, 1x768x768 1.01-1.03, 1x1024x1024 1.01-1.02, 1x4096x256 1.01, 1x2048x1024 1.05-1.16,
   1x1024x2048 1.13, 1x2048x2048 1.17-1.19 (a copy of the old library 0.99-1.03); in L2 up to 64
   Ki floats (1x256x256, 1x128x512) and from DRAM (1x4096x4096, 1x32000x512) level. Two rows
   apart against four in the windows: 1x512x512 and 1x1024x256 0.95, 1x1024x1024 and 1x4096x256
   1.03, 1x2048x2048 0.96. Four rows side by side next to each other (j to j + 3) ran at
   0.82-0.90x of them far apart from DRAM; against a plain read of B, one row at a time / four /
   eight side by side next to each other (one sum each): 1x512x512 0.92 / 0.82 / 0.82,
   1x1024x1024 0.97 / 0.88 / 0.91, 1x4096x4096 0.91 / 0.95 / 0.95, 1x2048x8192 0.88 / 1.03 /
   0.91; the eight rows' sums kept and reduced together ran 0.53-0.87 (their stores and reloads;
   with the row loop unrolled per row, 0.61-0.72: each copy's loads jumped eight rows from one
   call to the next). */
#define GEMV_T_ROWS_K    128
#define GEMV_T_TWO_SPAN  (64 * 1024)
#define GEMV_T_FOUR_LO   (192 * 1024)
#define GEMV_T_FOUR_HI   (256 * 1024)
#define GEMV_T_FOUR_SPAN (2 * 1024 * 1024)
void sk_gemv_t_avx512(size_t n, size_t k, float alpha, const float *a, const float *b, size_t ldb,
                      float beta, float *c)
{
    const __mmask16 mt = sk_tail16_avx512(k & 15);
    if (k >= GEMV_T_ROWS_K) {
        const double span = (double)n * (double)ldb;
        size_t j = 0;
        if (span > GEMV_T_FOUR_SPAN || (span > GEMV_T_FOUR_LO && span <= GEMV_T_FOUR_HI))
            j = dot_far(4, 0, n, k, alpha, a, b, ldb, mt, beta, c);
        else if (span > GEMV_T_FOUR_HI)
            j = dot_far(2, 1, n, k, alpha, a, b, ldb, mt, beta, c);
        else if (span > GEMV_T_TWO_SPAN)
            j = dot_far(2, 0, n, k, alpha, a, b, ldb, mt, beta, c);
        b += j * ldb;
        __m512 s[4];
        for (; j < n; j++, b += ldb) {
            dot_rows(1, 0, k, a, b, ldb, mt, s);
            /* lane 0 of the four rows' reduction adds row 0 as it adds any row there */
            s[1] = s[2] = s[3] = _mm512_setzero_ps();
            sk_put4_strided_avx2(1, sk_reduce4_avx512(s), alpha, beta, c + j, 1);
        }
        return;
    }
    for (size_t j = 0; j < n; j += 8) {
        const size_t w = n - j < 8 ? n - j : 8;
        const float *r[8];
        for (size_t q = 0; q < 8; q++) r[q] = b + (j + (q < w ? q : 0)) * ldb;
        __m512 s[8];
#pragma GCC unroll 8
        for (int q = 0; q < 8; q++) s[q] = _mm512_setzero_ps();
        size_t p = 0;
        for (; p + 16 <= k; p += 16) {
            const __m512 a0 = _mm512_loadu_ps(a + p);
#pragma GCC unroll 8
            for (int q = 0; q < 8; q++) s[q] = _mm512_fmadd_ps(a0, _mm512_loadu_ps(r[q] + p), s[q]);
        }
        if (mt) {
            const __m512 a0 = _mm512_maskz_loadu_ps(mt, a + p);
#pragma GCC unroll 8
            for (int q = 0; q < 8; q++)
                s[q] = _mm512_fmadd_ps(a0, _mm512_maskz_loadu_ps(mt, r[q] + p), s[q]);
        }
        __m256 v = _mm256_mul_ps(_mm256_set1_ps(alpha), sk_reduce8_avx512(s));
        const __mmask8 mw = (__mmask8)((1u << w) - 1u);
        if (beta != 0.f)
            v = _mm256_fmadd_ps(_mm256_set1_ps(beta), _mm256_maskz_loadu_ps(mw, c + j), v);
        _mm256_mask_storeu_ps(c + j, mw, v);
    }
}

/* 128-bit lane q of r (the extract takes an immediate: a switch, folded away where q is known) */
static inline __attribute__((always_inline)) __m128 lane128(__m512 r, int q)
{
    switch (q) {
    case 0: return _mm512_castps512_ps128(r);
    case 1: return _mm512_extractf32x4_ps(r, 1);
    case 2: return _mm512_extractf32x4_ps(r, 2);
    default: return _mm512_extractf32x4_ps(r, 3);
    }
}

/* dot (see sk_gemm_dot_fn) for R <= DOT_GROUP rows of A: R x 4 accumulators, four rows of B at a
   time, k in 16-lane steps (masked tail); A's R rows stay in L1 (or L2) while B streams once.
   The sums are reduced four rows of A at a time (sk_reduce16_avx512: in-lane shuffles first,
   then 128-bit lane shuffles shared by the four rows): 30 shuffles and 15 adds per 16 sums where
   reducing each row's four alone (sk_reduce4_avx512) took 44 and 32; AMD Zen 5, NT
   4-6x512x64 1.16-1.19x, 6x2048x64 1.28x, 4x64x64 1.18x, 6x512x512 1.06x, 12x512x128 1.11x. */
static inline __attribute__((always_inline)) void
dot_body(const int R, size_t n, size_t k, float alpha, const float *a, size_t lda, const float *b,
         size_t ldb, float beta, float *c, size_t ldc)
{
    const __mmask16 mt = sk_tail16_avx512(k & 15);
    for (size_t j = 0; j < n; j += 4) {
        const size_t w = n - j < 4 ? n - j : 4;
        const float *r[4];
        for (size_t q = 0; q < 4; q++) r[q] = b + (j + (q < w ? q : 0)) * ldb;
        __m512 s[(DOT_GROUP + 3) / 4 * 4][4]; /* whole groups of 4 rows for the reduction */
#pragma GCC unroll 8
        for (int i = 0; i < (R + 3) / 4 * 4; i++)
            s[i][0] = s[i][1] = s[i][2] = s[i][3] = _mm512_setzero_ps();
        size_t p = 0;
        for (; p + 16 <= k; p += 16) {
            const __m512 b0 = _mm512_loadu_ps(r[0] + p), b1 = _mm512_loadu_ps(r[1] + p);
            const __m512 b2 = _mm512_loadu_ps(r[2] + p), b3 = _mm512_loadu_ps(r[3] + p);
#pragma GCC unroll 6
            for (int i = 0; i < R; i++) {
                const __m512 ai = _mm512_loadu_ps(a + i * lda + p);
                s[i][0] = _mm512_fmadd_ps(ai, b0, s[i][0]);
                s[i][1] = _mm512_fmadd_ps(ai, b1, s[i][1]);
                s[i][2] = _mm512_fmadd_ps(ai, b2, s[i][2]);
                s[i][3] = _mm512_fmadd_ps(ai, b3, s[i][3]);
            }
        }
        if (mt) {
            const __m512 b0 = _mm512_maskz_loadu_ps(mt, r[0] + p);
            const __m512 b1 = _mm512_maskz_loadu_ps(mt, r[1] + p);
            const __m512 b2 = _mm512_maskz_loadu_ps(mt, r[2] + p);
            const __m512 b3 = _mm512_maskz_loadu_ps(mt, r[3] + p);
#pragma GCC unroll 6
            for (int i = 0; i < R; i++) {
                const __m512 ai = _mm512_maskz_loadu_ps(mt, a + i * lda + p);
                s[i][0] = _mm512_fmadd_ps(ai, b0, s[i][0]);
                s[i][1] = _mm512_fmadd_ps(ai, b1, s[i][1]);
                s[i][2] = _mm512_fmadd_ps(ai, b2, s[i][2]);
                s[i][3] = _mm512_fmadd_ps(ai, b3, s[i][3]);
            }
        }
        const __mmask8 mw = (__mmask8)((1u << w) - 1u);
        /* four rows at a time (rows past R are zero): 128-bit lane q of their reduction holds
           row i0 + q's four sums */
#pragma GCC unroll 2
        for (int i0 = 0; i0 < R; i0 += 4) {
            const __m512 r = _mm512_mul_ps(_mm512_set1_ps(alpha), sk_reduce16_avx512(s[i0]));
#pragma GCC unroll 4
            for (int q = 0; q < 4; q++) {
                if (i0 + q >= R) break;
                float *ci = c + (size_t)(i0 + q) * ldc + j;
                __m128 v = lane128(r, q);
                /* a register, then the masked store: GCC otherwise folds the two into a masked
                   vextractf32x4 to memory, which does not suppress faults on its masked-off
                   lanes as a masked vmovups does (it faulted at a PROT_NONE page past the stored
                   lanes: checkasm's guard pages) */
                __asm__("" : "+v"(v));
                if (beta != 0.f)
                    v = _mm_fmadd_ps(_mm_set1_ps(beta), _mm_maskz_loadu_ps(mw, ci), v);
                _mm_mask_storeu_ps(ci, mw, v);
            }
        }
    }
}

void sk_gemm_dot_avx512(size_t m, size_t n, size_t k, float alpha, const float *a, size_t lda,
                        const float *b, size_t ldb, float beta, float *c, size_t ldc)
{
    switch (m) {
    case 1: dot_body(1, n, k, alpha, a, lda, b, ldb, beta, c, ldc); break;
    case 2: dot_body(2, n, k, alpha, a, lda, b, ldb, beta, c, ldc); break;
    case 3: dot_body(3, n, k, alpha, a, lda, b, ldb, beta, c, ldc); break;
    case 4: dot_body(4, n, k, alpha, a, lda, b, ldb, beta, c, ldc); break;
    case 5: dot_body(5, n, k, alpha, a, lda, b, ldb, beta, c, ldc); break;
    default: dot_body(6, n, k, alpha, a, lda, b, ldb, beta, c, ldc); break;
    }
}

