/* AVX2+FMA GEMM kernels: the 6x16 register tile (12 ymm accumulators, two B vectors, one broadcast
 * of A per row) in 1..6-row variants (packed A or A rows in place; copying the in-place B panel
 * as it goes or not), the 4x24 wide tile for NN with few rows (12 accumulators where 4 rows of
 * 6x16 have 8), the 6x16 transposed tile for NT with few rows, the m == 1 matrix-vector
 * kernels, and the transposing packs (B^T panels, 6-row A panels). */
#include <immintrin.h>

#include "common.h"
#include "x86/gemm.h"
#include "x86/avx2_util.h"

#define MR SK_GEMM_AVX2_MR
#define NR SK_GEMM_AVX2_NR
#define PF_ROWS 8 /* prefetch distance of an in-place B, rows */
#define PN_RSB_MIN 1024 /* the _pn tile prefetches only B's next panel from this stride on */
#define HW_RSB 512      /* ... and does not prefetch B at this stride */
/* K steps of a body's LOOP over an in-place B, prefetching its rows PF_ROWS ahead into L1 (PN:
   instead, the same rows of the next panel into L2). The prefetches stop PF_ROWS rows before the
   last row of B the tile reads: past the end of B they would reach memory the caller may not have
   mapped or touched, and on AMD Zen a prefetch whose page is not present repeats the page walk
   each time (a 32 x 32 x 32 GEMM on page-aligned operands ran 5x slower). */
#define LOOP_PF(CSA, RSB, K, PN)                                                                   \
    {                                                                                              \
        const size_t kp = (K) > PF_ROWS ? (K) - PF_ROWS : 0;                                       \
        LOOP(CSA, RSB, kp, 1 + (PN))                                                               \
        LOOP(CSA, RSB, (K) - kp, 0)                                                                \
    }

/* r x 16 tile: A(i,p) = a[p*csa + i] (ROWS: a[i*csa + p]), B(p, 0..15) = b[p*rsb + 0..15].
   CP: B read in place is also copied to the packed panel bp[p*16 + 0..15] (the stores ride along
   with the FMAs). PN: from a row stride of PN_RSB_MIN on, an in-place B's next panel is
   prefetched into L2 instead of its rows into L1, and at a stride of HW_RSB none (see below). */
static inline __attribute__((always_inline)) void
ukr_body(const int R, const int ROWS, const int CP, const int PN, size_t k, const float *a,
         size_t csa, const float *b, size_t rsb, float *c, size_t ldc, float alpha, float beta,
         float *bp, const float *pf, size_t pfs)
{
    __m256 c0[MR], c1[MR];
#pragma GCC unroll 6
    for (int i = 0; i < R; i++) c0[i] = c1[i] = _mm256_setzero_ps();
    /* C rows fetched while the products run, for packed-A tiles only (big shapes: C comes from L2
       or L3 and is read at the end); the A-rows tiles are faster without it (docs/bench) */
#pragma GCC unroll 6
    for (int i = 0; i < R; i++)
        if (!ROWS) _mm_prefetch((const char *)(c + i * ldc), _MM_HINT_T0);
#define LOOP(CSA, RSB, K, PF)                                                                      \
    _Pragma("GCC unroll 4") for (size_t p = 0; p < (K); p++) {                                     \
        const __m256 b0 = _mm256_loadu_ps(b), b1 = _mm256_loadu_ps(b + 8);                         \
        if (CP) {                                                                                  \
            _mm256_storeu_ps(bp, b0);                                                              \
            _mm256_storeu_ps(bp + 8, b1);                                                          \
            bp += NR;                                                                              \
        }                                                                                          \
        if (PF == 1) /* B in place: its row PF_ROWS ahead into L1 */                               \
            _mm_prefetch((const char *)(b + pfd), _MM_HINT_T0);                                    \
        if (PF == 2) /* this row of the next panel: in B (at worst the start of a later row) */    \
            _mm_prefetch((const char *)(b + NR), _MM_HINT_T1);                                     \
        if (PF == 3) { /* a row of the stream pf into L2 (B packed) */                             \
            _mm_prefetch((const char *)pf, _MM_HINT_T1);                                           \
            pf += pfs;                                                                             \
        }                                                                                          \
        _Pragma("GCC unroll 6") for (int i = 0; i < R; i++) {                                      \
            const __m256 ai = _mm256_broadcast_ss(ROWS ? a + i * csa : a + i);                     \
            c0[i] = _mm256_fmadd_ps(ai, b0, c0[i]);                                                \
            c1[i] = _mm256_fmadd_ps(ai, b1, c1[i]);                                                \
        }                                                                                          \
        a += (CSA);                                                                                \
        b += (RSB);                                                                                \
    }
    /* B read in place (rsb != NR) comes from L2 or L3 at a stride the hardware prefetchers do not
       follow (one or two lines per row, rows 2 KiB or more apart): each row is prefetched PF_ROWS
       rows ahead into L1; 8 rows into L1 ran 0-17% faster than 24 rows into L2 on the tile alone
       (docs/bench/gemm-tuning.md) */
    const size_t pfd = PF_ROWS * rsb;
    /* The _pn tile (the Zen 5 table's) fetches the same rows of the next 16-column panel into L2
       instead, from a row stride of 4 KiB on (B of 4 MiB or more, from L3, its rows sharing the
       ways of a few L1 sets), as the AVX-512 _rb tile does: the row blocks after the first read
       their copy of this panel while the next one is on its way. AMD Zen 5, in-process A/B
       against the L1 prefetch, fastest of 15: 16x1024x1024 1.17x, 16x4096x1024 1.21x,
       16x2048x2048 1.23x, 8x1024x1024 1.13x, 32x1024x1024 1.05x, 64x1024x1024 1.02x,
       16x1536x1536 1.12x, 16x1024x256 1.25x (docs/bench/gemm-tuning.md). At a 2 KiB stride it
       leaves B to the hardware prefetchers, as the _rb tile does: 8x512x512 1.06-1.10x,
       16x512x64 1.03x, 48x512x512 1.02-1.03x, 64x512x512 1.01-1.03x, 16x512x512 0.98-1.07x. */
    const int pn = PN && rsb >= PN_RSB_MIN;
    const int hw = PN && rsb == HW_RSB;
    /* pf: the _pn tile over a packed panel fetches a row of pf into L2 at each k step (see
       sk_gemm_ukr_fn), as the AVX-512 _rb tile does. Zen 5, in-process against none, fastest of
       15, twice: 16x4096x1024 1.04-1.05x, 16x2048x2048 1.04-1.05x, 16x1024x4096 1.04x,
       16x1024x1024 1.02-1.03x, 16x512x512 1.01-1.02x; 12x1024x1024 0.98-0.99x; 8, 24, 64, 256 x
       1024 x 1024 level */
    const int pfr = PN && pf && rsb == NR;
    if (ROWS && pfr) {
        LOOP(1, NR, k, 3)
    } else if (ROWS && !CP && rsb == NR) { /* A(i,p) = a[i*csa + p], B packed: immediate offsets */
        if (k == 64) /* the attention head size: a constant trip count */
            LOOP(1, NR, 64, 0)
        else
            LOOP(1, NR, k, 0)
    } else if (ROWS && pn) {
        LOOP_PF(1, rsb, k, 1)
    } else if (ROWS && hw) {
        LOOP(1, rsb, k, 0)
    } else if (ROWS) {
        if (k == 64)
            LOOP_PF(1, rsb, 64, 0)
        else
            LOOP_PF(1, rsb, k, 0)
    } else if (!CP && csa == MR && pfr) {
        LOOP(MR, NR, k, 3)
    } else if (!CP && csa == MR && rsb == NR) {
        /* both packed: constant strides, immediate offsets */
        LOOP(MR, NR, k, 0)
    } else if (pfr) {
        LOOP(csa, NR, k, 3)
    } else if (rsb == NR) {
        LOOP(csa, NR, k, 0)
    } else if (pn) {
        LOOP_PF(csa, rsb, k, 1)
    } else if (hw) {
        LOOP(csa, rsb, k, 0)
    } else {
        LOOP_PF(csa, rsb, k, 0)
    }
#undef LOOP
    const __m256 va = _mm256_set1_ps(alpha);
    if (beta == 0.f && alpha == 1.f) {
#pragma GCC unroll 6
        for (int i = 0; i < R; i++) {
            _mm256_storeu_ps(c + i * ldc, c0[i]);
            _mm256_storeu_ps(c + i * ldc + 8, c1[i]);
        }
    } else if (beta == 0.f) {
#pragma GCC unroll 6
        for (int i = 0; i < R; i++) {
            _mm256_storeu_ps(c + i * ldc, _mm256_mul_ps(va, c0[i]));
            _mm256_storeu_ps(c + i * ldc + 8, _mm256_mul_ps(va, c1[i]));
        }
    } else {
        const __m256 vb = _mm256_set1_ps(beta);
#pragma GCC unroll 6
        for (int i = 0; i < R; i++) {
            float *ci = c + i * ldc;
            _mm256_storeu_ps(ci,
                             _mm256_fmadd_ps(vb, _mm256_loadu_ps(ci), _mm256_mul_ps(va, c0[i])));
            _mm256_storeu_ps(
                ci + 8, _mm256_fmadd_ps(vb, _mm256_loadu_ps(ci + 8), _mm256_mul_ps(va, c1[i])));
        }
    }
}

/* The wide tile for few rows: r x W_NR (r <= W_MR), 3 W_MR ymm accumulators (4 rows of the 6x16
   tile are 8, just the FMA latency x two ports), one broadcast of A per row; layouts, CP and the
   prefetch of an in-place B as in ukr_body, the last k step of a row of B read from memory. */
#define W_MR SK_GEMM_AVX2_W_MR
#define W_NR SK_GEMM_AVX2_W_NR
#define W_NV (W_NR / 8)
static inline __attribute__((always_inline)) void
wide_body(const int R, const int ROWS, const int CP, size_t k, const float *a, size_t csa,
          const float *b, size_t rsb, float *c, size_t ldc, float alpha, float beta, float *bp,
          const float *pf, size_t pfs)
{
    (void)pf, (void)pfs;
    __m256 acc[W_MR][W_NV];
#pragma GCC unroll 4
    for (int i = 0; i < R; i++)
#pragma GCC unroll 4
        for (int v = 0; v < W_NV; v++) acc[i][v] = _mm256_setzero_ps();
#define LOOP(CSA, RSB, K, PF)                                                                      \
    _Pragma("GCC unroll 2") for (size_t p = 0; p < (K); p++) {                                     \
        __m256 bv[W_NV];                                                                           \
        _Pragma("GCC unroll 4") for (int v = 0; v < W_NV; v++) bv[v] = _mm256_loadu_ps(b + 8 * v); \
        if (CP) {                                                                                  \
            _Pragma("GCC unroll 4") for (int v = 0; v < W_NV; v++)                                 \
                _mm256_storeu_ps(bp + 8 * v, bv[v]);                                               \
            bp += W_NR;                                                                            \
        }                                                                                          \
        if (PF) {                                                                                  \
            _mm_prefetch((const char *)(b + pfd), _MM_HINT_T0);                                    \
            _mm_prefetch((const char *)(b + pfd + W_NR - 1), _MM_HINT_T0);                         \
        }                                                                                          \
        _Pragma("GCC unroll 4") for (int i = 0; i < R; i++) {                                      \
            const __m256 ai = _mm256_broadcast_ss(ROWS ? a + i * csa : a + i);                     \
            _Pragma("GCC unroll 4") for (int v = 0; v < W_NV; v++)                                 \
                acc[i][v] = _mm256_fmadd_ps(ai, bv[v], acc[i][v]);                                 \
        }                                                                                          \
        a += (CSA);                                                                                \
        b += (RSB);                                                                                \
    }
    const size_t pfd = PF_ROWS * rsb;
    if (ROWS && rsb == W_NR) {
        LOOP(1, W_NR, k, 0)
    } else if (ROWS) {
        LOOP_PF(1, rsb, k, 0)
    } else if (rsb == W_NR) {
        LOOP(csa, W_NR, k, 0)
    } else {
        LOOP_PF(csa, rsb, k, 0)
    }
#undef LOOP
    const __m256 va = _mm256_set1_ps(alpha), vb = _mm256_set1_ps(beta);
#pragma GCC unroll 4
    for (int i = 0; i < R; i++)
#pragma GCC unroll 4
        for (int v = 0; v < W_NV; v++) {
            float *ci = c + i * ldc + 8 * v;
            __m256 o = acc[i][v];
            if (beta == 0.f && alpha == 1.f)
                ;
            else if (beta == 0.f)
                o = _mm256_mul_ps(va, o);
            else
                o = _mm256_fmadd_ps(vb, _mm256_loadu_ps(ci), _mm256_mul_ps(va, o));
            _mm256_storeu_ps(ci, o);
        }
}

/* The first R (1..8) lanes of v to / from p without masked moves (slow stores on AMD). */
static inline __attribute__((always_inline)) void store_r(const int R, float *p, __m256 v)
{
    __m128 lo = _mm256_castps256_ps128(v);
    if (R >= 4) {
        _mm_storeu_ps(p, lo);
        if (R == 8) { _mm_storeu_ps(p + 4, _mm256_extractf128_ps(v, 1)); return; }
        p += 4;
        lo = _mm256_extractf128_ps(v, 1);
    }
    const int r = R & 3;
    if (r >= 2) _mm_storel_pi((__m64 *)p, lo);
    if (r == 3) _mm_store_ss(p + 2, _mm_movehl_ps(lo, lo));
    if (r == 1) _mm_store_ss(p, lo);
}

static inline __attribute__((always_inline)) __m256 load_r(const int R, const float *p)
{
    if (R == 8) return _mm256_loadu_ps(p);
    const int r = R & 3;
    __m128 t = _mm_setzero_ps();
    const float *q = R >= 4 ? p + 4 : p;
    if (r >= 2) t = _mm_loadl_pi(t, (const __m64 *)q);
    if (r == 3) t = _mm_movelh_ps(t, _mm_load_ss(q + 2));
    if (r == 1) t = _mm_load_ss(q);
    return R >= 4 ? _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(p)), t, 1)
                  : _mm256_castps128_ps256(t);
}

/* Columns i0..i0+7 of the transposed tile (lanes of the eight rows x[0..7], rows q >= R zero): its
   column i is the first R values of C row i0 + i, for i0 + i < w. wide: store all eight values
   (the ones past R are zero, and a later tile overwrites them). */
static inline __attribute__((always_inline)) void
ukr_t_half(const int R, const __m256 *x, size_t i0, size_t w, float *c, size_t ldc, int wide,
           float alpha, float beta)
{
    __m256 t[8], u[8];
#pragma GCC unroll 4
    for (int q = 0; q < 8; q += 2) {
        t[q] = _mm256_unpacklo_ps(x[q], x[q + 1]);
        t[q + 1] = _mm256_unpackhi_ps(x[q], x[q + 1]);
    }
#pragma GCC unroll 2
    for (int g = 0; g < 8; g += 4) { /* u[g+e], lane L = column 4L+e of rows g..g+3 */
        u[g] = _mm256_shuffle_ps(t[g], t[g + 2], 0x44);
        u[g + 1] = _mm256_shuffle_ps(t[g], t[g + 2], 0xee);
        u[g + 2] = _mm256_shuffle_ps(t[g + 1], t[g + 3], 0x44);
        u[g + 3] = _mm256_shuffle_ps(t[g + 1], t[g + 3], 0xee);
    }
    const int plain = alpha == 1.f && beta == 0.f;
#pragma GCC unroll 8
    for (int i = 0; i < 8; i++) { /* column i of this half */
        const size_t ci_idx = i0 + (size_t)i;
        if (ci_idx >= w) break;
        const int e = i & 3;
        const __m256 col = i < 4 ? _mm256_permute2f128_ps(u[e], u[4 + e], 0x20)
                                 : _mm256_permute2f128_ps(u[e], u[4 + e], 0x31);
        float *ci = c + ci_idx * ldc;
        __m256 o = col;
        if (!plain) {
            o = _mm256_mul_ps(_mm256_set1_ps(alpha), col);
            if (beta != 0.f) o = _mm256_fmadd_ps(_mm256_set1_ps(beta), load_r(R, ci), o);
        }
        if (R < 8 && wide)
            _mm256_storeu_ps(ci, o);
        else
            store_r(R, ci, o);
    }
}

/* Transposed r x 16 tile (see sk_gemm_ukr_t_fn): row q of the accumulators = row q of B times the
   16 columns of packed op(A)^T; two 8 x 8 in-register transposes (rows >= r zero) turn lane i into
   the r contiguous values of C row i: one whole-vector store per row when beta == 0 and the row
   has room (the next tile overwrites the zeros past r), else r values without masked moves (slow
   stores on AMD). NV = 1: the first 8 columns only (w <= 8), half the FMAs (each column's sums
   are the same either way). */
static inline __attribute__((always_inline)) void
ukr_t_regs(const int R, const int NV, size_t k, const float *a, size_t rsa, const float *b,
           size_t rsb, size_t w, float *c, size_t ldc, size_t room, float alpha, float beta)
{
    const int wide = beta == 0.f && room >= 8;
    __m256 x0[8], x1[8];
#pragma GCC unroll 8
    for (int q = 0; q < 8; q++) x0[q] = x1[q] = _mm256_setzero_ps();
#pragma GCC unroll 4
    for (size_t p = 0; p < k; p++) {
        const __m256 b0 = _mm256_loadu_ps(b), b1 = NV > 1 ? _mm256_loadu_ps(b + 8) : b0;
#pragma GCC unroll 6
        for (int q = 0; q < R; q++) {
            const __m256 aq = _mm256_broadcast_ss(a + q * rsa);
            x0[q] = _mm256_fmadd_ps(aq, b0, x0[q]);
            if (NV > 1) x1[q] = _mm256_fmadd_ps(aq, b1, x1[q]);
        }
        a++;
        b += rsb;
    }
    if (NV == 1) {
        ukr_t_half(R, x0, 0, w, c, ldc, wide, alpha, beta);
        return;
    }
    if (wide && w >= 16 && alpha == 1.f) { /* the common case, straight-line */
        ukr_t_half(R, x0, 0, 16, c, ldc, 1, 1.f, 0.f);
        ukr_t_half(R, x1, 8, 16, c, ldc, 1, 1.f, 0.f);
        return;
    }
    ukr_t_half(R, x0, 0, w, c, ldc, wide, alpha, beta);
    ukr_t_half(R, x1, 8, w, c, ldc, wide, alpha, beta);
}

/* The four layouts of one body (ukr_body: the 6x16 tile, wide_body: the 4x24 one) as P_cols_R,
   P_rows_R, P_cols_copy_R and P_rows_copy_R, each an sk_gemm_tile_fn: P_cols_R read A by columns
   (a packed panel or A^T in place; s = csa, the stride between k steps), P_rows_R the rows of A
   in place (s = rsa); the _copy_ ones also store the B they read to the packed panel bp. */
#define UKR(P, BODY, R)                                                                            \
    static void P##cols_##R(size_t k, const float *a, size_t s, const float *b, size_t rsb,        \
                            float *c, size_t ldc, float alpha, float beta, float *bp,              \
                            const float *pf, size_t pfs)                                           \
    {                                                                                              \
        BODY(R, 0, 0, k, a, s, b, rsb, c, ldc, alpha, beta, bp, pf, pfs);                          \
    }                                                                                              \
    static void P##rows_##R(size_t k, const float *a, size_t s, const float *b, size_t rsb,        \
                            float *c, size_t ldc, float alpha, float beta, float *bp,              \
                            const float *pf, size_t pfs)                                           \
    {                                                                                              \
        BODY(R, 1, 0, k, a, s, b, rsb, c, ldc, alpha, beta, bp, pf, pfs);                          \
    }                                                                                              \
    static void P##cols_copy_##R(size_t k, const float *a, size_t s, const float *b, size_t rsb,   \
                                 float *c, size_t ldc, float alpha, float beta, float *bp,         \
                                 const float *pf, size_t pfs)                                      \
    {                                                                                              \
        BODY(R, 0, 1, k, a, s, b, rsb, c, ldc, alpha, beta, bp, pf, pfs);                          \
    }                                                                                              \
    static void P##rows_copy_##R(size_t k, const float *a, size_t s, const float *b, size_t rsb,   \
                                 float *c, size_t ldc, float alpha, float beta, float *bp,         \
                                 const float *pf, size_t pfs)                                      \
    {                                                                                              \
        BODY(R, 1, 1, k, a, s, b, rsb, c, ldc, alpha, beta, bp, pf, pfs);                          \
    }
#define TILE_BODY(R, ROWS, CP, ...) ukr_body(R, ROWS, CP, 0, __VA_ARGS__)
#define TILE_PN_BODY(R, ROWS, CP, ...) ukr_body(R, ROWS, CP, 1, __VA_ARGS__)
#define TILE(R) UKR(tile_, TILE_BODY, R) UKR(tile_pn_, TILE_PN_BODY, R)
#define WIDE(R) UKR(wide_, wide_body, R)
#define UKRT(R)                                                                                    \
    static void ukr_t_##R(size_t k, const float *a, size_t rsa, const float *b, size_t rsb,        \
                          size_t w, float *c, size_t ldc, size_t room, float alpha, float beta)    \
    {                                                                                              \
        ukr_t_regs(R, 2, k, a, rsa, b, rsb, w, c, ldc, room, alpha, beta);                         \
    }                                                                                              \
    static void ukr_t8_##R(size_t k, const float *a, size_t rsa, const float *b, size_t rsb,       \
                           size_t w, float *c, size_t ldc, size_t room, float alpha, float beta)   \
    {                                                                                              \
        ukr_t_regs(R, 1, k, a, rsa, b, rsb, w, c, ldc, room, alpha, beta);                         \
    }
TILE(1) TILE(2) TILE(3) TILE(4) TILE(5) TILE(6)
WIDE(1) WIDE(2) WIDE(3) WIDE(4)
UKRT(1) UKRT(2) UKRT(3) UKRT(4) UKRT(5) UKRT(6)

/* The r-row kernels TILES of the P_ kernels (see sk_gemm_tiles) and their entry point NAME (see
   sk_gemm_ukr_fn): the kernel of the layout, copying B or not. */
#define TILE_ENTRY(NAME, TILES, P)                                                                 \
    const sk_gemm_tiles TILES = { {                                                                \
        { P##cols_1, P##cols_2, P##cols_3, P##cols_4, P##cols_5, P##cols_6 },                      \
        { P##rows_1, P##rows_2, P##rows_3, P##rows_4, P##rows_5, P##rows_6 },                      \
        { P##cols_copy_1, P##cols_copy_2, P##cols_copy_3, P##cols_copy_4, P##cols_copy_5,          \
          P##cols_copy_6 },                                                                        \
        { P##rows_copy_1, P##rows_copy_2, P##rows_copy_3, P##rows_copy_4, P##rows_copy_5,          \
          P##rows_copy_6 },                                                                        \
    } };                                                                                           \
    void NAME(size_t r, size_t k, const float *a, size_t rsa, size_t csa, const float *b,          \
              size_t rsb, float *c, size_t ldc, float alpha, float beta, float *bp,                \
              const float *pf, size_t pfs)                                                         \
    {                                                                                              \
        const int rows = csa == 1; /* rows of A in place: their stride is rsa */                   \
        TILES.by[(bp ? 2 : 0) + rows][r - 1](k, a, rows ? rsa : csa, b, rsb, c, ldc, alpha, beta,  \
                                             bp, pf, pfs);                                         \
    }
/* The micro-kernel */
TILE_ENTRY(sk_gemm_ukr_avx2, sk_gemm_tiles_avx2, tile_)
/* The same prefetching the next panel of B at 4 KiB strides and more (ukr_body's PN) */
TILE_ENTRY(sk_gemm_ukr_pn_avx2, sk_gemm_tiles_pn_avx2, tile_pn_)
#undef TILE_ENTRY

/* The wide micro-kernel for few rows: the same on an r x W_NR tile, r <= W_MR. */
const sk_gemm_tiles sk_gemm_tiles_w_avx2 = { {
    { wide_cols_1, wide_cols_2, wide_cols_3, wide_cols_4 },
    { wide_rows_1, wide_rows_2, wide_rows_3, wide_rows_4 },
    { wide_cols_copy_1, wide_cols_copy_2, wide_cols_copy_3, wide_cols_copy_4 },
    { wide_rows_copy_1, wide_rows_copy_2, wide_rows_copy_3, wide_rows_copy_4 },
} };
void sk_gemm_ukr_w_avx2(size_t r, size_t k, const float *a, size_t rsa, size_t csa,
                        const float *b, size_t rsb, float *c, size_t ldc, float alpha, float beta,
                        float *bp, const float *pf, size_t pfs)
{
    const int rows = csa == 1;
    sk_gemm_tiles_w_avx2.by[(bp ? 2 : 0) + rows][r - 1](k, a, rows ? rsa : csa, b, rsb, c, ldc,
                                                         alpha, beta, bp, pf, pfs);
}

typedef void (*tile_t_fn)(size_t k, const float *a, size_t rsa, const float *b, size_t rsb,
                          size_t w, float *c, size_t ldc, size_t room, float alpha, float beta);

/* The transposed tile (see sk_gemm_ukr_t_fn): the r-row kernel, on 8 columns when w <= 8. */
void sk_gemm_ukr_t_avx2(size_t r, size_t k, const float *a, size_t rsa, const float *b, size_t rsb,
                        size_t w, float *c, size_t ldc, size_t room, float alpha, float beta)
{
    static const tile_t_fn tab[2][6] = {
        { ukr_t8_1, ukr_t8_2, ukr_t8_3, ukr_t8_4, ukr_t8_5, ukr_t8_6 },
        { ukr_t_1, ukr_t_2, ukr_t_3, ukr_t_4, ukr_t_5, ukr_t_6 },
    };
    tab[w > 8][r - 1](k, a, rsa, b, rsb, w, c, ldc, room, alpha, beta);
}

static inline __m256 finish(__m256 s, float alpha, float beta, __m256 cold)
{
    s = _mm256_mul_ps(_mm256_set1_ps(alpha), s);
    return beta == 0.f ? s : _mm256_fmadd_ps(_mm256_set1_ps(beta), cold, s);
}

/* gemv_n from 256 columns on, and for a row stride that is a multiple of 4 KiB (walking down a
   column chunk would put every row in one L1 set and defeat the prefetchers): B streamed row by
   row into an accumulator row of up to 4096 columns in L1. From 256 columns the rows of B are long
   enough that streaming them whole beats walking them in column strips, which read each row in
   384-byte pieces, a pass down B per strip (Zen 1: 1x512x512 1.16x, 1x768x768 1.3x, 1x1536x512
   1.26x, 1x1000x1000 1.5x, 1x512x64 level); below, the strips' register accumulators win
   (1x64x512 1.4x, 1x128x512 1.08x) and n = 192-320 is level.
   The rows go R at a time, k / R rows apart (rows p, p + q, ..., p + (R - 1) q for q = k / R;
   the k % R rows left over after them, 4, 2 and 1 side by side), 64 columns of the accumulator
   row in eight registers while the R rows' pieces stream into them (then 8 columns at a time,
   the last masked); 4096 columns at a time.
   R = 8, or 2 for a B of 256-512 Ki floats (k x ldb; from L3: two streams ran there at 1.07x
   eight on 1x1024x1024 and 1x2048x512, and eight past it at 1.2x two on 1x4096x1024). Rows
   side by side (eight in two sums onto the row in L1, or two for a B in L2) ran at 0.52-0.74
   of a plain read of B from L2 and 0.7-0.93 past it: their streams share a few L1 sets at the
   strides models have (2 or 4 KiB), and the accumulator row's loads and stores compete with
   them; eight rows side by side in the register block ran at 0.88-1.05x those. The row of 4096
   columns is 16 KiB on the stack: one of 1024 read B's rows in 4 KiB runs, one page each
   (1x2048x2048 0.79x, 1x2048x8192 0.75x, 1x4096x4096 0.74x 4096 columns). AMD Zen 5, through
   sk_sgemm, against rows side by side, same operands, in-process, median of 7 processes of the
   fastest of 9: 1x256x16 1.34x, 1x264x512 1.53x, 1x512x64 1.26x, 1x300x7 1.13x, 1x512x512
   1.16x, 1x768x768 1.13x, 1x1024x512 1.14x, 1x1024x1024 1.01x, 1x1000x1000 1.03x, 1x2048x512
   1.06x, 1x2048x2048 1.03x, 1x4096x1024 1.11x, 1x4096x4096 1.29x, 1x32000x512 1.23x; 1x4096x256
   0.92x (k = 256 rows of 16 KiB from L3; four or two rows far apart 0.86-0.90x) and 1x1536x1536
   0.92x (0.98x in the same runs through a build whose kernel for it is the same: the spread of
   this measure) (docs/bench/gemm-tuning.md). Each column sums its rows in the same order in the
   register block and in the 8-column steps at the row's end, and the order depends on k and
   ldb alone: a part of a call on a pool gets the call's bits. */
#define GEMV_ROWS_MIN SK_GEMV_AVX2_ROWS_MIN
#define GEMV_W        4096
#define GEMV_FAR      8 /* R */
#define GEMV_FAR_L3   2 /* R for a B past GEMV_L2_SPAN floats, up to GEMV_L3_SPAN */
#define GEMV_L2_SPAN  SK_GEMV_AVX2_SPAN
#define GEMV_L3_SPAN  (512 * 1024)

/* 8 floats of a row of B at b (the first w & 7 of them when tail) */
static inline __attribute__((always_inline)) __m256 gemv_ld(const float *b, int tail, __m256i mt)
{
    return tail ? _mm256_maskload_ps(b, mt) : _mm256_loadu_ps(b);
}

/* acc[0..8 V) += a_0 B(0) + a_1 B(1) + ... onto acc in row order, B(r) the 8 V floats of row r at
   b + r*rs (of its last vector the first w & 7 floats when tail), a_r in av[r]: the V vectors of
   acc in registers while the R rows stream into them. */
static inline __attribute__((always_inline)) void gemv_rows_block(const int R, const int V,
                                                                  float *acc, const __m256 *av,
                                                                  const float *b, size_t rs,
                                                                  int tail, __m256i mt)
{
    __m256 y[8];
#pragma GCC unroll 8
    for (int v = 0; v < V; v++) y[v] = _mm256_load_ps(acc + 8 * v);
#pragma GCC unroll 8
    for (int r = 0; r < R; r++) {
#pragma GCC unroll 8
        for (int v = 0; v < V; v++)
            y[v] = _mm256_fmadd_ps(av[r], gemv_ld(b + r * rs + 8 * v, tail && v == V - 1, mt),
                                   y[v]);
    }
#pragma GCC unroll 8
    for (int v = 0; v < V; v++) _mm256_store_ps(acc + 8 * v, y[v]);
}

/* acc[0..w) += sum_r a[r*as] B(r) over R rows of B rs floats apart from bp. */
static inline __attribute__((always_inline)) void gemv_rows_pass(const int R, float *acc,
                                                                 const float *a, size_t as,
                                                                 const float *bp, size_t rs,
                                                                 size_t w, __m256i mt)
{
    __m256 av[GEMV_FAR];
#pragma GCC unroll 8
    for (int r = 0; r < R; r++) av[r] = _mm256_broadcast_ss(a + r * as);
    size_t j = 0;
    for (; j + 64 <= w; j += 64) gemv_rows_block(R, 8, acc + j, av, bp + j, rs, 0, mt);
    for (; j + 8 <= w; j += 8) gemv_rows_block(R, 1, acc + j, av, bp + j, rs, 0, mt);
    if (j < w) gemv_rows_block(R, 1, acc + j, av, bp + j, rs, 1, mt);
}

/* gemv_n_rows with R rows at a time, k / R apart */
static inline __attribute__((always_inline)) void gemv_n_rows_r(const int R, size_t n, size_t k,
                                                                float alpha, const float *a,
                                                                const float *b, size_t ldb,
                                                                float beta, float *c)
{
    __attribute__((aligned(32))) float acc[GEMV_W];
    const size_t q = k / R, l = k - R * q; /* l rows left over */
    for (size_t j0 = 0; j0 < n; j0 += GEMV_W) {
        const size_t w = n - j0 < GEMV_W ? n - j0 : GEMV_W;
        const __m256i mt = sk_tail8_avx2(w & 7);
        for (size_t j = 0; j < w; j += 8) _mm256_store_ps(acc + j, _mm256_setzero_ps());
        const float *bp = b + j0;
        for (size_t p = 0; p < q; p++)
            gemv_rows_pass(R, acc, a + p, q, bp + p * ldb, q * ldb, w, mt);
        size_t p = R * q;
        if (l & 4) gemv_rows_pass(4, acc, a + p, 1, bp + p * ldb, ldb, w, mt), p += 4;
        if (l & 2) gemv_rows_pass(2, acc, a + p, 1, bp + p * ldb, ldb, w, mt), p += 2;
        if (l & 1) gemv_rows_pass(1, acc, a + p, 1, bp + p * ldb, ldb, w, mt);
        for (size_t j = 0; j < w; j++) /* scalar finish: as the other tails */
            c[j0 + j] = beta == 0.f ? alpha * acc[j] : alpha * acc[j] + beta * c[j0 + j];
    }
}

static void gemv_n_rows(size_t n, size_t k, float alpha, const float *a, const float *b, size_t ldb,
                        float beta, float *c)
{
    const double span = (double)k * (double)ldb;
    if (span > GEMV_L2_SPAN && span <= GEMV_L3_SPAN)
        gemv_n_rows_r(GEMV_FAR_L3, n, k, alpha, a, b, ldb, beta, c);
    else
        gemv_n_rows_r(GEMV_FAR, n, k, alpha, a, b, ldb, beta, c);
}

/* V x 8 columns of c = alpha sum_p a[p] b[p*ldb + j] + beta c (V accumulators down the rows). */
static inline __attribute__((always_inline)) void gemv_n_strip(const int V, size_t k, float alpha,
                                                               const float *a, const float *b,
                                                               size_t ldb, float beta, float *c)
{
    __m256 s[12];
#pragma GCC unroll 12
    for (int v = 0; v < V; v++) s[v] = _mm256_setzero_ps();
    for (size_t p = 0; p < k; p++, b += ldb) {
        const __m256 ap = _mm256_broadcast_ss(a + p);
#pragma GCC unroll 12
        for (int v = 0; v < V; v++) s[v] = _mm256_fmadd_ps(ap, _mm256_loadu_ps(b + 8 * v), s[v]);
    }
#pragma GCC unroll 12
    for (int v = 0; v < V; v++)
        _mm256_storeu_ps(
            c + 8 * v, finish(s[v], alpha, beta, beta == 0.f ? s[v] : _mm256_loadu_ps(c + 8 * v)));
}

/* c[j] = alpha sum_p a[p] b[p*ldb + j] + beta c[j]: B's rows streamed whole (above), or below
   GEMV_ROWS_MIN columns 96 columns (12 accumulators) at a time, then 64 and 32, then 8 at a
   time. The wider strip reads longer runs of each row of B: 1.04-1.1x the
   64-column one on Zen 1 (1x512x64 1.10x, 1x512x512 1.08x, 1x768x768 1.04-1.06x). */
void sk_gemv_n_avx2(size_t n, size_t k, float alpha, const float *a, const float *b, size_t ldb,
                    float beta, float *c)
{
    if (ldb % 1024 == 0 || n >= GEMV_ROWS_MIN) {
        gemv_n_rows(n, k, alpha, a, b, ldb, beta, c);
        return;
    }
    size_t j = 0;
    for (; j + 96 <= n; j += 96) gemv_n_strip(12, k, alpha, a, b + j, ldb, beta, c + j);
    if (j + 64 <= n) gemv_n_strip(8, k, alpha, a, b + j, ldb, beta, c + j), j += 64;
    if (j + 32 <= n) gemv_n_strip(4, k, alpha, a, b + j, ldb, beta, c + j), j += 32;
    for (; j < n; j += 8) { /* 8 columns at a time, the last masked */
        const size_t w = n - j < 8 ? n - j : 8;
        const __m256i msk = sk_tail8_avx2(w);
        __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
        const float *bp = b + j;
        size_t p = 0;
        for (; p + 2 <= k; p += 2, bp += 2 * ldb) {
            s0 = _mm256_fmadd_ps(_mm256_broadcast_ss(a + p), _mm256_maskload_ps(bp, msk), s0);
            s1 = _mm256_fmadd_ps(_mm256_broadcast_ss(a + p + 1), _mm256_maskload_ps(bp + ldb, msk),
                                 s1);
        }
        if (p < k)
            s0 = _mm256_fmadd_ps(_mm256_broadcast_ss(a + p), _mm256_maskload_ps(bp, msk), s0);
        const __m256 s = _mm256_add_ps(s0, s1);
        _mm256_maskstore_ps(
            c + j, msk, finish(s, alpha, beta, beta == 0.f ? s : _mm256_maskload_ps(c + j, msk)));
    }
}

/* sk_put4_strided_avx2 for w = 1..4 lanes */
static void put_rows_w(size_t w, __m128 x, float alpha, float beta, float *c, size_t cs)
{
    switch (w) {
    case 1: sk_put4_strided_avx2(1, x, alpha, beta, c, cs); break;
    case 2: sk_put4_strided_avx2(2, x, alpha, beta, c, cs); break;
    case 3: sk_put4_strided_avx2(3, x, alpha, beta, c, cs); break;
    default: sk_put4_strided_avx2(4, x, alpha, beta, c, cs); break;
    }
}

/* c[i*cs] = alpha dot(a, r + i*rs) + beta c[i*cs] for the R <= 6 rows i over k floats, each row
   in two sums 8 floats apart (16 floats a step), a last full vector into sum 0 and the k % 8
   tail (mask mt, kt floats) into sum 1, the two added and then reduced by sk_reduce8_avx2 (lane
   q: ((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7)) of row q, whatever the other rows); each
   of a's vectors loaded once for the R rows. PF: each row's lines prefetched GEMV_T_PF_AHEAD
   floats ahead of its loads. A row's result is the same whatever R, PF and whatever rows are
   beside it. */
#define GEMV_T_PF_AHEAD 512
static inline __attribute__((always_inline)) void
dot_rows2(const int R, const int PF, size_t k, const float *a, const float *r, size_t rs,
          __m256i mt, size_t kt, float alpha, float beta, float *c, size_t cs)
{
    __m256 s0[6], s1[6];
#pragma GCC unroll 6
    for (int i = 0; i < R; i++) s0[i] = s1[i] = _mm256_setzero_ps();
    size_t p = 0;
    for (; p + 16 <= k; p += 16) {
        const __m256 x0 = _mm256_loadu_ps(a + p), x1 = _mm256_loadu_ps(a + p + 8);
#pragma GCC unroll 6
        for (int i = 0; i < R; i++) {
            if (PF) _mm_prefetch((const char *)(r + i * rs + p + GEMV_T_PF_AHEAD), _MM_HINT_T0);
            s0[i] = _mm256_fmadd_ps(x0, _mm256_loadu_ps(r + i * rs + p), s0[i]);
            s1[i] = _mm256_fmadd_ps(x1, _mm256_loadu_ps(r + i * rs + p + 8), s1[i]);
        }
    }
    if (p + 8 <= k) {
        const __m256 x = _mm256_loadu_ps(a + p);
#pragma GCC unroll 6
        for (int i = 0; i < R; i++)
            s0[i] = _mm256_fmadd_ps(x, _mm256_loadu_ps(r + i * rs + p), s0[i]);
        p += 8;
    }
    if (kt) {
        const __m256 x = _mm256_maskload_ps(a + p, mt);
#pragma GCC unroll 6
        for (int i = 0; i < R; i++)
            s1[i] = _mm256_fmadd_ps(x, _mm256_maskload_ps(r + i * rs + p, mt), s1[i]);
    }
    __m256 t[8];
#pragma GCC unroll 8
    for (int i = 0; i < 8; i++) t[i] = i < R ? _mm256_add_ps(s0[i], s1[i]) : t[0];
    if (R <= 4) { /* sk_reduce8_avx2's lanes 0-3 alone */
        const __m256 h = _mm256_hadd_ps(_mm256_hadd_ps(t[0], t[1]), _mm256_hadd_ps(t[2], t[3]));
        const __m128 x = _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
        sk_put4_strided_avx2(R, x, alpha, beta, c, cs);
    } else {
        const __m256 v = sk_reduce8_avx2(t);
        sk_put4_strided_avx2(4, _mm256_castps256_ps128(v), alpha, beta, c, cs);
        sk_put4_strided_avx2(R - 4, _mm256_extractf128_ps(v, 1), alpha, beta, c + 4 * cs, cs);
    }
}

/* c[i*cs] = alpha dot(a, r + i*rs) + beta c[i*cs] for the w <= 8 rows i over k floats, one sum
   per row (8 floats a step, the k % 8 tail masked in), reduced by sk_reduce8_avx2; each of a's
   vectors loaded once for the eight rows (rows past w repeat row 0). A row's result is the same
   whatever rows are beside it. */
static inline __attribute__((always_inline)) void dot_rows1(size_t w, size_t k, const float *a,
                                                            const float *r, size_t rs, __m256i mt,
                                                            size_t kt, float alpha, float beta,
                                                            float *c, size_t cs)
{
    const float *rq[8];
    for (size_t q = 0; q < 8; q++) rq[q] = r + (q < w ? q : 0) * rs;
    __m256 s[8];
#pragma GCC unroll 8
    for (int q = 0; q < 8; q++) s[q] = _mm256_setzero_ps();
    size_t p = 0;
    for (; p + 8 <= k; p += 8) {
        const __m256 a0 = _mm256_loadu_ps(a + p);
#pragma GCC unroll 8
        for (int q = 0; q < 8; q++) s[q] = _mm256_fmadd_ps(a0, _mm256_loadu_ps(rq[q] + p), s[q]);
    }
    if (kt) {
        const __m256 a0 = _mm256_maskload_ps(a + p, mt);
#pragma GCC unroll 8
        for (int q = 0; q < 8; q++)
            s[q] = _mm256_fmadd_ps(a0, _mm256_maskload_ps(rq[q] + p, mt), s[q]);
    }
    __m256 v = sk_reduce8_avx2(s);
    if (w == 8 && cs == 1) {
        v = _mm256_mul_ps(_mm256_set1_ps(alpha), v);
        if (beta != 0.f) v = _mm256_fmadd_ps(_mm256_set1_ps(beta), _mm256_loadu_ps(c), v);
        _mm256_storeu_ps(c, v);
        return;
    }
    put_rows_w(w < 4 ? w : 4, _mm256_castps256_ps128(v), alpha, beta, c, cs);
    if (w > 4) put_rows_w(w - 4, _mm256_extractf128_ps(v, 1), alpha, beta, c + 4 * cs, cs);
}

/* rows 0..w-1 (w < 6) of B side by side through dot_rows2 */
static void dot_rows2_few(size_t w, size_t k, const float *a, const float *b, size_t ldb,
                          __m256i mt, size_t kt, float alpha, float beta, float *c)
{
    switch (w) {
    case 1: dot_rows2(1, 0, k, a, b, ldb, mt, kt, alpha, beta, c, 1); break;
    case 2: dot_rows2(2, 0, k, a, b, ldb, mt, kt, alpha, beta, c, 1); break;
    case 3: dot_rows2(3, 0, k, a, b, ldb, mt, kt, alpha, beta, c, 1); break;
    case 4: dot_rows2(4, 0, k, a, b, ldb, mt, kt, alpha, beta, c, 1); break;
    case 5: dot_rows2(5, 0, k, a, b, ldb, mt, kt, alpha, beta, c, 1); break;
    default: break;
    }
}

/* rows j, j + h, ..., j + (R - 1) h side by side for j < h (dot_rows2; PF: with prefetches) */
static inline __attribute__((always_inline)) void
dot_far(const int R, const int PF, size_t h, size_t k, const float *a, const float *b, size_t ldb,
        __m256i msk, size_t kt, float alpha, float beta, float *c)
{
    for (size_t j = 0; j < h; j++)
        dot_rows2(R, PF, k, a, b + j * ldb, h * ldb, msk, kt, alpha, beta, c + j, h);
}

/* c[j] = alpha dot(a, b + j*ldb) + beta c[j], by k and the span of B (n x ldb floats):
   - from GEMV_T_ROWS_K floats of k on, past L1 (GEMV_T_L1_SPAN): R rows side by side that are
     n / R rows apart (the n % R rows left over side by side at the end), each row's dot product
     in two sums (dot_rows2): a's loads shared by the R rows, B read as R sequential streams far
     apart. R = 6 in L2 (up to GEMV_T_SIX_SPAN: the load ports are the limit there, one load of
     a per 6 of B), 2 in L3 (up to GEMV_T_TWO_SPAN: the fewest streams that keep enough FMA
     chains; up to GEMV_T_PF_SPAN with software prefetches 2 KiB ahead in each row), 4 past it
     (DRAM wants more lines in flight);
   - else eight rows side by side, one sum each (dot_rows1): n / 8 rows apart in L2 (from
     GEMV_T_FAR_K floats of k), else next to each other (short rows next to each other are one
     stream; in L1 the loads are the limit, 9 per 8 FMAs).
   Eight long rows next to each other (j to j + 7, the one kernel before) ran at 0.53-0.68 of a
   plain read in L2: eight streams, each row's lines fetched as its loads miss. A row's result is
   the same whatever rows are beside it on each kernel; dot_rows1 and dot_rows2 sum in other
   orders, and which one runs depends on k and, from GEMV_T_ROWS_K on, on the span being past
   GEMV_T_L1_SPAN: a call on a pool is split into parts of at least SK_GEMV_AVX2_ROWS_MIN rows
   (the table's gemv_group), which span more than that, so every part takes the call's kernel and
   gets the call's bits. AMD Zen 5, through sk_sgemm against the eight rows next to each other
   (two libraries alternated in one process, fastest of 15, two runs; docs/bench/gemm-tuning.md):
   1x384x384 1.50-1.55, 1x48x1032 1.46-1.49, 1x512x512 1.18-1.27, 1x1024x1024 1.14-1.19,
   1x2048x2048 1.03-1.23, 1x4096x4096 1.24-1.32, 1x24000x1032 1.11-1.23, 1x512..2048 x 64..192
   1.30-1.47; 1x2048x1024 and 1x1024x2048 0.86-1.13 (the old kernel there at 36-49 GFLOP/s from
   run to run, this one at 38-43; called directly, 1.08-1.11), in L1 (1x8x1024, 1x16x512) and
   below k = 32 level. The prefetches against none (median of 7 processes): 1x1024x1024 1.11,
   1x768x768 1.08, 1x4096x256 1.07, 1x2048x1024 1.10, 1x1024x2048 1.17, 1x640x640 1.02; past
   GEMV_T_PF_SPAN 1x1536x1536 1.15 but 1x2048x2048 and 1x4000x1000 0.93. */
#define GEMV_T_ROWS_K   256
#define GEMV_T_FAR_K    32
#define GEMV_T_L1_SPAN  (8 * 1024)
#define GEMV_T_SIX_SPAN (256 * 1024)
#define GEMV_T_TWO_SPAN (4 * 1024 * 1024)
#define GEMV_T_PF_SPAN  (2 * 1024 * 1024)
_Static_assert(GEMV_T_L1_SPAN < (size_t)SK_GEMV_AVX2_ROWS_MIN * GEMV_T_ROWS_K,
               "a pool's part of at least SK_GEMV_AVX2_ROWS_MIN rows spans more than L1_SPAN");
void sk_gemv_t_avx2(size_t n, size_t k, float alpha, const float *a, const float *b, size_t ldb,
                    float beta, float *c)
{
    const size_t kt = k & 7;
    const __m256i msk = sk_tail8_avx2(kt);
    const double span = (double)n * (double)ldb;
    if (k >= GEMV_T_ROWS_K && span > GEMV_T_L1_SPAN) {
        const size_t R = span <= GEMV_T_SIX_SPAN ? 6 : span <= GEMV_T_TWO_SPAN ? 2 : 4;
        const size_t h = n / R;
        if (R == 6)
            dot_far(6, 0, h, k, a, b, ldb, msk, kt, alpha, beta, c);
        else if (R == 2 && span <= GEMV_T_PF_SPAN)
            dot_far(2, 1, h, k, a, b, ldb, msk, kt, alpha, beta, c);
        else if (R == 2)
            dot_far(2, 0, h, k, a, b, ldb, msk, kt, alpha, beta, c);
        else
            dot_far(4, 0, h, k, a, b, ldb, msk, kt, alpha, beta, c);
        const size_t done = h * R;
        dot_rows2_few(n - done, k, a, b + done * ldb, ldb, msk, kt, alpha, beta, c + done);
        return;
    }
    /* one sum per row: eight rows side by side, n / 8 rows apart in L2, else next to each other
       (the rows left over next to each other at the end) */
    size_t j = 0;
    if (span > GEMV_T_L1_SPAN && span <= GEMV_T_SIX_SPAN && k >= GEMV_T_FAR_K) {
        const size_t h = n / 8;
        for (; j < h; j++) dot_rows1(8, k, a, b + j * ldb, h * ldb, msk, kt, alpha, beta, c + j, h);
        j = 8 * h;
    }
    for (; j < n; j += 8)
        dot_rows1(n - j < 8 ? n - j : 8, k, a, b + j * ldb, ldb, msk, kt, alpha, beta, c + j, 1);
}

/* Four values of k of an 8-row group of B (rows at b, stride ldb) into rows 0..3 of a panel (d,
   stride ld): the 128-bit lanes of four vectors hold rows q and q + 4 (loaded straight into the
   lanes), so that a 4 x 4 transpose within the lanes gives 8-wide panel rows (16 shuffles per
   8 x 8 block, not 24). */
static inline __attribute__((always_inline)) void pack_bt_8x4(const float *s, size_t ldb, float *d,
                                                              size_t ld)
{
    __m256 r[4];
#pragma GCC unroll 4
    for (int q = 0; q < 4; q++)
        r[q] = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(s + q * ldb)),
                                    _mm_loadu_ps(s + (q + 4) * ldb), 1);
    const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
    const __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
    _mm256_storeu_ps(d, _mm256_shuffle_ps(t0, t2, 0x44));
    _mm256_storeu_ps(d + ld, _mm256_shuffle_ps(t0, t2, 0xee));
    _mm256_storeu_ps(d + 2 * ld, _mm256_shuffle_ps(t1, t3, 0x44));
    _mm256_storeu_ps(d + 3 * ld, _mm256_shuffle_ps(t1, t3, 0xee));
}

/* Transposing B pack (see sk_gemm_pack_fn): 16 values of k (a cache line of each row) at a time,
   8-row group by group, four at a time within a group (G groups: the full 8-, 16- and 32-wide
   panels unrolled, others looped). Each group's 8 lines are used up before the next group's are
   read: with B's rows a multiple of 4 KiB apart all the panel's rows map to one L1 set, and four
   values at a time across all groups (32 or 64 rows) had every load miss L1. */
static inline __attribute__((always_inline)) void
pack_bt_body(const int G, size_t nr, size_t kc, const float *b, size_t ldb, float *dst, size_t ld)
{
    const size_t n8 = G ? 8 * (size_t)G : nr & ~(size_t)7;
    size_t p = 0;
    for (; p + 16 <= kc; p += 16) {
        if (G) {
#pragma GCC unroll 4
            for (int g = 0; g < G; g++)
#pragma GCC unroll 4
                for (size_t e = 0; e < 16; e += 4)
                    pack_bt_8x4(b + 8 * g * ldb + p + e, ldb, dst + (p + e) * ld + 8 * g, ld);
        } else {
            for (size_t j = 0; j < n8; j += 8)
                for (size_t e = 0; e < 16; e += 4)
                    pack_bt_8x4(b + j * ldb + p + e, ldb, dst + (p + e) * ld + j, ld);
        }
    }
    for (; p + 4 <= kc; p += 4) {
        if (G) {
#pragma GCC unroll 4
            for (int g = 0; g < G; g++)
                pack_bt_8x4(b + 8 * g * ldb + p, ldb, dst + p * ld + 8 * g, ld);
        } else {
            for (size_t j = 0; j < n8; j += 8)
                pack_bt_8x4(b + j * ldb + p, ldb, dst + p * ld + j, ld);
        }
    }
    for (; p < kc; p++)
        for (size_t j = 0; j < n8; j++) dst[p * ld + j] = b[j * ldb + p];
    for (size_t j = n8; j < nr; j++)
        for (size_t q = 0; q < kc; q++) dst[q * ld + j] = b[j * ldb + q];
}

static void pack_bt(size_t nr, size_t kc, const float *b, size_t ldb, float *dst, size_t ld)
{
    if (nr == 8 && ld == 8) /* also the AVX-512 table's 8-row A panels */
        pack_bt_body(1, nr, kc, b, ldb, dst, ld);
    else if (nr == 16 && ld == 16)
        pack_bt_body(2, nr, kc, b, ldb, dst, ld);
    else if (nr == 32 && ld == 32)
        pack_bt_body(4, nr, kc, b, ldb, dst, ld);
    else
        pack_bt_body(0, nr, kc, b, ldb, dst, ld);
}

/* A micro-panel of 6 rows: dst[p*6 + i] = a[i*lda + p]. Four values of k at
   a time: the 128-bit lanes of four vectors hold rows q and q + 4 (rows 6, 7 zero), a 4 x 4
   transpose within the lanes makes vector e = [rows 0..3 | rows 4, 5, 0, 0] of column p + e, and
   eight-wide stores 6 floats apart write the column (the next store covers the two zeros; the
   panel's last column is stored as 4 + 2). */
static void pack_a6(size_t r, size_t kc, const float *a, size_t lda, float *dst, size_t ld)
{
    (void)r;
    (void)ld;
    const __m128 z = _mm_setzero_ps();
    size_t p = 0;
    for (; p + 4 <= kc; p += 4) {
        const __m256 r0 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(a + p)),
                                               _mm_loadu_ps(a + 4 * lda + p), 1);
        const __m256 r1 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(a + lda + p)),
                                               _mm_loadu_ps(a + 5 * lda + p), 1);
        const __m256 r2 =
            _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(a + 2 * lda + p)), z, 1);
        const __m256 r3 =
            _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(a + 3 * lda + p)), z, 1);
        const __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
        const __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
        float *d = dst + 6 * p;
        _mm256_storeu_ps(d, _mm256_shuffle_ps(t0, t2, 0x44));
        _mm256_storeu_ps(d + 6, _mm256_shuffle_ps(t0, t2, 0xee));
        _mm256_storeu_ps(d + 12, _mm256_shuffle_ps(t1, t3, 0x44));
        const __m256 c3 = _mm256_shuffle_ps(t1, t3, 0xee);
        if (p + 4 < kc) {
            _mm256_storeu_ps(d + 18, c3);
        } else {
            _mm_storeu_ps(d + 18, _mm256_castps256_ps128(c3));
            _mm_storel_pi((__m64 *)(d + 22), _mm256_extractf128_ps(c3, 1));
        }
    }
    for (; p < kc; p++)
        for (int i = 0; i < 6; i++) dst[6 * p + i] = a[i * lda + p];
}

/* dot (see sk_gemm_dot_fn) for R <= DOT_GROUP rows of A: R x Q accumulators, Q rows of B at a
   time (R Q <= 12: Q = 8, 6, 4, 3 for 1-4 rows, 2 for 5-6), k in 8-lane steps (masked tail);
   A's R rows stay in L1 (or L2) while B streams once. Each sum is reduced by the same tree
   whatever Q and its place among the accumulators. */
#define DOT_GROUP SK_GEMM_AVX2_DOT_GROUP /* dot's rows of A */
#define DOT_ACC 12                       /* accumulators at most */
static inline __attribute__((always_inline)) void
dot_body(const int R, const int Q, size_t n, size_t k, float alpha, const float *a, size_t lda,
         const float *b, size_t ldb, float beta, float *c, size_t ldc)
{
    const size_t kt = k & 7;
    const __m256i msk = sk_tail8_avx2(kt);
    for (size_t j = 0; j < n; j += Q) {
        const size_t w = n - j < (size_t)Q ? n - j : (size_t)Q;
        const float *r[8]; /* rows j..j+Q-1 of B (past n: row j again) */
#pragma GCC unroll 8
        for (int q = 0; q < Q; q++) r[q] = b + (j + ((size_t)q < w ? (size_t)q : 0)) * ldb;
        __m256 s[DOT_ACC]; /* s[Q i + q]: row i of A, row j + q of B */
#pragma GCC unroll 12
        for (int v = 0; v < Q * R; v++) s[v] = _mm256_setzero_ps();
        size_t p = 0;
        for (; p + 8 <= k; p += 8) {
            __m256 bq[8];
#pragma GCC unroll 8
            for (int q = 0; q < Q; q++) bq[q] = _mm256_loadu_ps(r[q] + p);
#pragma GCC unroll 6
            for (int i = 0; i < R; i++) {
                const __m256 ai = _mm256_loadu_ps(a + i * lda + p);
#pragma GCC unroll 8
                for (int q = 0; q < Q; q++) s[Q * i + q] = _mm256_fmadd_ps(ai, bq[q], s[Q * i + q]);
            }
        }
        if (kt) {
            __m256 bq[8];
#pragma GCC unroll 8
            for (int q = 0; q < Q; q++) bq[q] = _mm256_maskload_ps(r[q] + p, msk);
#pragma GCC unroll 6
            for (int i = 0; i < R; i++) {
                const __m256 ai = _mm256_maskload_ps(a + i * lda + p, msk);
#pragma GCC unroll 8
                for (int q = 0; q < Q; q++) s[Q * i + q] = _mm256_fmadd_ps(ai, bq[q], s[Q * i + q]);
            }
        }
        /* lane v of out = sum of s[v], four accumulators at a time (past Q R: zero) */
        float out[DOT_ACC];
#pragma GCC unroll 3
        for (int g = 0; g < Q * R; g += 4) {
            const __m256 z = _mm256_setzero_ps();
            const __m256 x1 = g + 1 < Q * R ? s[g + 1] : z;
            const __m256 x2 = g + 2 < Q * R ? s[g + 2] : z, x3 = g + 3 < Q * R ? s[g + 3] : z;
            const __m256 h = _mm256_hadd_ps(_mm256_hadd_ps(s[g], x1), _mm256_hadd_ps(x2, x3));
            _mm_storeu_ps(out + g, _mm_mul_ps(_mm_set1_ps(alpha),
                                              _mm_add_ps(_mm256_castps256_ps128(h),
                                                         _mm256_extractf128_ps(h, 1))));
        }
        for (int i = 0; i < R; i++)
            for (size_t q = 0; q < w; q++) {
                float *cij = c + (size_t)i * ldc + j + q;
                *cij = beta == 0.f ? out[Q * i + q] : out[Q * i + q] + beta * *cij;
            }
    }
}

void sk_gemm_dot_avx2(size_t m, size_t n, size_t k, float alpha, const float *a, size_t lda,
                      const float *b, size_t ldb, float beta, float *c, size_t ldc)
{
    switch (m) {
    case 1: dot_body(1, 8, n, k, alpha, a, lda, b, ldb, beta, c, ldc); break;
    case 2: dot_body(2, 6, n, k, alpha, a, lda, b, ldb, beta, c, ldc); break;
    case 3: dot_body(3, 4, n, k, alpha, a, lda, b, ldb, beta, c, ldc); break;
    case 4: dot_body(4, 3, n, k, alpha, a, lda, b, ldb, beta, c, ldc); break;
    case 5: dot_body(5, 2, n, k, alpha, a, lda, b, ldb, beta, c, ldc); break;
    default: dot_body(6, 2, n, k, alpha, a, lda, b, ldb, beta, c, ldc); break;
    }
}

/* The transposing pack (see sk_gemm_pack_fn): 6-row A panels, and B^T panels or any other
   width through 8-row groups. */
void sk_gemm_pack_t_avx2(size_t w, size_t kc, const float *src, size_t lds, float *dst, size_t ld)
{
    if (w == MR && ld == MR)
        pack_a6(w, kc, src, lds, dst, ld);
    else
        pack_bt(w, kc, src, lds, dst, ld);
}
