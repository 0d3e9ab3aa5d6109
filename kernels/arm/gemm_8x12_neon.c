/* NEON GEMM kernels: the 8x12 register tile (24 q accumulators, three B vectors, A used by lane)
 * in 1..8-row variants -- packed A, op(A) = A^T read in place, or A rows read in place, each also
 * as a variant that copies the B it reads in place to a packed panel --, the transposed 4x16 tile
 * for NT with few rows, the dot kernel for NT with up to 4 rows, and the m == 1 matrix-vector
 * kernels. No kernel reads past the values its contract names (A, B and C may end the caller's
 * buffer). */
#include <arm_neon.h>

#include "arm/gemm.h"

#define MR SK_GEMM_NEON_MR
#define NR SK_GEMM_NEON_NR
#define T_ROWS SK_GEMM_NEON_T_N /* ukr_t: rows of B per tile */
#define DOT_ROWS SK_GEMM_NEON_DOT_ROWS

/* The first n (1..4) floats at p, zero past n: reads exactly n floats. */
static inline __attribute__((always_inline)) float32x4_t load_n(const int n, const float *p)
{
    if (n >= 4) return vld1q_f32(p);
    if (n == 3) return vcombine_f32(vld1_f32(p), vld1_lane_f32(p + 2, vdup_n_f32(0.f), 0));
    if (n == 2) return vcombine_f32(vld1_f32(p), vdup_n_f32(0.f));
    return vld1q_lane_f32(p, vdupq_n_f32(0.f), 0);
}

/* The first n (1..4) lanes of v to p: writes exactly n floats. */
static inline __attribute__((always_inline)) void store_n(const int n, float *p, float32x4_t v)
{
    if (n >= 4) {
        vst1q_f32(p, v);
        return;
    }
    if (n >= 2) vst1_f32(p, vget_low_f32(v));
    if (n == 3) vst1q_lane_f32(p + 2, v, 2);
    if (n == 1) vst1q_lane_f32(p, v, 0);
}

/* C rows 0..R-1 (12 columns each) = alpha acc + beta C (beta == 0: C not read). */
static inline __attribute__((always_inline)) void
store_tile(const int R, const float32x4_t *c0, const float32x4_t *c1, const float32x4_t *c2,
           float *c, size_t ldc, float alpha, float beta)
{
    const float32x4_t va = vdupq_n_f32(alpha), vb = vdupq_n_f32(beta);
#pragma GCC unroll 8
    for (int i = 0; i < R; i++) {
        float *ci = c + i * ldc;
        float32x4_t r0 = vmulq_f32(va, c0[i]), r1 = vmulq_f32(va, c1[i]), r2 = vmulq_f32(va, c2[i]);
        if (beta != 0.f) {
            r0 = vfmaq_f32(r0, vb, vld1q_f32(ci));
            r1 = vfmaq_f32(r1, vb, vld1q_f32(ci + 4));
            r2 = vfmaq_f32(r2, vb, vld1q_f32(ci + 8));
        }
        vst1q_f32(ci, r0);
        vst1q_f32(ci + 4, r1);
        vst1q_f32(ci + 8, r2);
    }
}

/* Row i of the tile += B row (b0 b1 b2) times lane l of av (lanes are literals: immediates). */
#define FMA_ROW(i, av, l)                                                                          \
    if (R > (i)) {                                                                                 \
        c0[i] = vfmaq_laneq_f32(c0[i], b0, av, l);                                                 \
        c1[i] = vfmaq_laneq_f32(c1[i], b1, av, l);                                                 \
        c2[i] = vfmaq_laneq_f32(c2[i], b2, av, l);                                                 \
    }

/* Load the B row at b (12 floats); CP: also store it to the packed panel bp and prefetch the next
   panel (b + 12). */
#define LOAD_B()                                                                                   \
    const float32x4_t b0 = vld1q_f32(b), b1 = vld1q_f32(b + 4), b2 = vld1q_f32(b + 8);             \
    if (CP) {                                                                                      \
        vst1q_f32(bp, b0);                                                                         \
        vst1q_f32(bp + 4, b1);                                                                     \
        vst1q_f32(bp + 8, b2);                                                                     \
        __builtin_prefetch(b + NR, 0, 3);                                                          \
        bp += NR;                                                                                  \
    }

/* r x 12 tile, A(i,p) = a[p*csa + i]: a packed micro-panel (csa == MR, a[0..7] readable) or
   op(A) = A^T read in place (csa = lda: exactly a[0..R-1] readable, the last row of A may end the
   buffer). B(p, 0..11) = b[p*rsb + 0..11]; CP: also store the B read to bp (see sk_gemm_ukr_fn).
   Registers: 24 accumulators + 3 B + 2 A = 29 q. */
static inline __attribute__((always_inline)) void
ukr_body(const int R, const int CP, size_t k, const float *a, size_t csa, const float *b,
         size_t rsb, float *c, size_t ldc, float alpha, float beta, float *bp)
{
    float32x4_t c0[MR], c1[MR], c2[MR];
#pragma GCC unroll 8
    for (int i = 0; i < MR; i++) c0[i] = c1[i] = c2[i] = vdupq_n_f32(0.f);
#define STEP()                                                                                     \
    {                                                                                              \
        LOAD_B()                                                                                   \
        FMA_ROW(0, a0, 0) FMA_ROW(1, a0, 1) FMA_ROW(2, a0, 2) FMA_ROW(3, a0, 3)                    \
        FMA_ROW(4, a1, 0) FMA_ROW(5, a1, 1) FMA_ROW(6, a1, 2) FMA_ROW(7, a1, 3)                    \
        a += csa;                                                                                  \
        b += rsb;                                                                                  \
    }
    if (csa == MR || R == 4 || R == 8) { /* whole vectors: a packed panel, or exactly R values */
        for (size_t p = 0; p < k; p++) {
            const float32x4_t a0 = vld1q_f32(a), a1 = R > 4 ? vld1q_f32(a + 4) : a0;
            STEP()
        }
    } else { /* A^T in place, R != 4, 8: exactly R values of each row of A */
        for (size_t p = 0; p < k; p++) {
            const float32x4_t a0 = load_n(R < 4 ? R : 4, a), a1 = R > 4 ? load_n(R - 4, a + 4) : a0;
            STEP()
        }
    }
#undef STEP
    store_tile(R, c0, c1, c2, c, ldc, alpha, beta);
}

/* r x 12 tile with the rows of A read in place: A(i,p) = a[i*rsa + p]; reads exactly A(0..R-1,
   0..k-1) (the last row of A may end the buffer). R <= 4: four k steps at a time, one vector of 4
   consecutive k values per row of A used by lane (12 accumulators + 4 A + 3 B = 19 q registers),
   then single steps for k % 4. R > 4 (4 more A vectors would make 31 live q registers: GCC spilled
   accumulators in the loop): every k step gathers column p of A into the lanes of two vectors, as
   the packed panel would give it (24 accumulators + 2 A + 3 B = 29 q). */
static inline __attribute__((always_inline)) void
ukr_rows_body(const int R, const int CP, size_t k, const float *a, size_t rsa, const float *b,
           size_t rsb, float *c, size_t ldc, float alpha, float beta, float *bp)
{
    float32x4_t c0[MR], c1[MR], c2[MR];
#pragma GCC unroll 8
    for (int i = 0; i < MR; i++) c0[i] = c1[i] = c2[i] = vdupq_n_f32(0.f);
    const float *ai[MR]; /* the rows of A (only the first R formed) */
#pragma GCC unroll 8
    for (int i = 0; i < R; i++) ai[i] = a + i * rsa;
    size_t p = 0;
    for (; R <= 4 && p + 4 <= k; p += 4) {
        const float32x4_t r0 = vld1q_f32(ai[0] + p);
        const float32x4_t r1 = R > 1 ? vld1q_f32(ai[1] + p) : r0;
        const float32x4_t r2 = R > 2 ? vld1q_f32(ai[2] + p) : r0;
        const float32x4_t r3 = R > 3 ? vld1q_f32(ai[3] + p) : r0;
#define QUAD(l)                                                                                    \
    {                                                                                              \
        LOAD_B()                                                                                   \
        FMA_ROW(0, r0, l) FMA_ROW(1, r1, l) FMA_ROW(2, r2, l) FMA_ROW(3, r3, l)                    \
        b += rsb;                                                                                  \
    }
        QUAD(0) QUAD(1) QUAD(2) QUAD(3)
#undef QUAD
    }
    for (; p < k; p++) { /* column p of A gathered into lanes */
        LOAD_B()
        float32x4_t a0 = vld1q_dup_f32(ai[0] + p), a1 = a0;
        if (R > 1) a0 = vld1q_lane_f32(ai[1] + p, a0, 1);
        if (R > 2) a0 = vld1q_lane_f32(ai[2] + p, a0, 2);
        if (R > 3) a0 = vld1q_lane_f32(ai[3] + p, a0, 3);
        if (R > 4) a1 = vld1q_dup_f32(ai[4] + p);
        if (R > 5) a1 = vld1q_lane_f32(ai[5] + p, a1, 1);
        if (R > 6) a1 = vld1q_lane_f32(ai[6] + p, a1, 2);
        if (R > 7) a1 = vld1q_lane_f32(ai[7] + p, a1, 3);
        FMA_ROW(0, a0, 0) FMA_ROW(1, a0, 1) FMA_ROW(2, a0, 2) FMA_ROW(3, a0, 3)
        FMA_ROW(4, a1, 0) FMA_ROW(5, a1, 1) FMA_ROW(6, a1, 2) FMA_ROW(7, a1, 3)
        b += rsb;
    }
    store_tile(R, c0, c1, c2, c, ldc, alpha, beta);
}

/* The 4 x 4 transpose: lane l of x[q] -> lane q of y[l]. */
static inline __attribute__((always_inline)) void transpose4(const float32x4_t *x, float32x4_t *y)
{
    /* t0 = x0[0] x1[0] x0[2] x1[2], t1 = x0[1] x1[1] x0[3] x1[3]; t2, t3 the same of x2, x3;
       then 64-bit halves: y0 = t0.lo t2.lo, y1 = t1.lo t3.lo, y2 = t0.hi t2.hi, y3 = t1.hi t3.hi */
    const float32x4_t t0 = vtrn1q_f32(x[0], x[1]), t1 = vtrn2q_f32(x[0], x[1]);
    const float32x4_t t2 = vtrn1q_f32(x[2], x[3]), t3 = vtrn2q_f32(x[2], x[3]);
    const float64x2_t d0 = vreinterpretq_f64_f32(t0), d1 = vreinterpretq_f64_f32(t1);
    const float64x2_t d2 = vreinterpretq_f64_f32(t2), d3 = vreinterpretq_f64_f32(t3);
    y[0] = vreinterpretq_f32_f64(vtrn1q_f64(d0, d2));
    y[1] = vreinterpretq_f32_f64(vtrn1q_f64(d1, d3));
    y[2] = vreinterpretq_f32_f64(vtrn2q_f64(d0, d2));
    y[3] = vreinterpretq_f32_f64(vtrn2q_f64(d1, d3));
}

/* Transposed r x 16 tile (see sk_gemm_ukr_t_fn): x[q][v] lane l = row q of B (a[q*rsa + p], read
   in place) times column 4v + l of packed op(A)^T (b[p*rsb + 0..15]). Four k steps at a time, one
   vector of 4 consecutive k values per row of B used by lane (the k % 4 tail: single values, no
   read past a row's end). Registers: 16 accumulators + 4 B-row vectors + 4 op(A)^T vectors = 24 q.
   Each group of four lanes is a 4 x 4 transpose (rows q >= r stay zero) whose vector l holds the r
   values of C row 4v + l: one whole 4-float store when beta == 0 and the row has room (a later
   tile overwrites the zeros past r), else exactly r values. */
static inline __attribute__((always_inline)) void
ukr_t_body(const int R, size_t k, const float *a, size_t rsa, const float *b, size_t rsb, size_t w,
           float *c, size_t ldc, size_t room, float alpha, float beta)
{
    float32x4_t x[T_ROWS][4];
#pragma GCC unroll 4
    for (int q = 0; q < T_ROWS; q++) x[q][0] = x[q][1] = x[q][2] = x[q][3] = vdupq_n_f32(0.f);
    const float *aq[T_ROWS]; /* the rows of B (only the first R formed) */
#pragma GCC unroll 4
    for (int q = 0; q < R; q++) aq[q] = a + q * rsa;
#define FMA_Q(q, l)                                                                                \
    if (R > (q)) {                                                                                 \
        x[q][0] = vfmaq_laneq_f32(x[q][0], v0, r##q, l);                                           \
        x[q][1] = vfmaq_laneq_f32(x[q][1], v1, r##q, l);                                           \
        x[q][2] = vfmaq_laneq_f32(x[q][2], v2, r##q, l);                                           \
        x[q][3] = vfmaq_laneq_f32(x[q][3], v3, r##q, l);                                           \
    }
#define QUAD(l)                                                                                    \
    {                                                                                              \
        const float32x4_t v0 = vld1q_f32(b), v1 = vld1q_f32(b + 4);                                \
        const float32x4_t v2 = vld1q_f32(b + 8), v3 = vld1q_f32(b + 12);                           \
        FMA_Q(0, l) FMA_Q(1, l) FMA_Q(2, l) FMA_Q(3, l)                                            \
        b += rsb;                                                                                  \
    }
    size_t p = 0;
    for (; p + 4 <= k; p += 4) {
        const float32x4_t r0 = vld1q_f32(aq[0] + p);
        const float32x4_t r1 = R > 1 ? vld1q_f32(aq[1] + p) : r0;
        const float32x4_t r2 = R > 2 ? vld1q_f32(aq[2] + p) : r0;
        const float32x4_t r3 = R > 3 ? vld1q_f32(aq[3] + p) : r0;
        QUAD(0) QUAD(1) QUAD(2) QUAD(3)
    }
#undef QUAD
#undef FMA_Q
    for (; p < k; p++) {
        const float32x4_t v[4] = { vld1q_f32(b), vld1q_f32(b + 4), vld1q_f32(b + 8),
                                   vld1q_f32(b + 12) };
#pragma GCC unroll 4
        for (int q = 0; q < R; q++) {
            const float s = aq[q][p];
#pragma GCC unroll 4
            for (int u = 0; u < 4; u++) x[q][u] = vfmaq_n_f32(x[q][u], v[u], s);
        }
        b += rsb;
    }
    const int wide = beta == 0.f && room >= 4;
    const float32x4_t va = vdupq_n_f32(alpha), vb = vdupq_n_f32(beta);
#pragma GCC unroll 4
    for (int v = 0; v < 4; v++) {
        if (4 * (size_t)v >= w) break;
        const float32x4_t xv[4] = { x[0][v], x[1][v], x[2][v], x[3][v] };
        float32x4_t y[4];
        transpose4(xv, y);
#pragma GCC unroll 4
        for (int l = 0; l < 4; l++) {
            const size_t i = 4 * (size_t)v + (size_t)l; /* C row */
            if (i >= w) break;
            float *ci = c + i * ldc;
            float32x4_t o = vmulq_f32(va, y[l]);
            if (beta != 0.f) o = vfmaq_f32(o, vb, load_n(R, ci));
            if (wide)
                vst1q_f32(ci, o);
            else
                store_n(R, ci, o);
        }
    }
}

/* The r-row kernels (see sk_gemm_tiles): tile_cols_R read A by columns (a packed panel or A^T in
   place; s = csa, the stride between k steps), tile_rows_R the rows of A in place (s = rsa); the
   _copy_ ones also store the B they read to the packed panel bp. pf is a hint they leave: no
   prefetch here. */
#define UKR(R)                                                                                     \
    static void tile_cols_##R(size_t k, const float *a, size_t s, const float *b, size_t rsb,      \
                              float *c, size_t ldc, float alpha, float beta, float *bp,            \
                              const float *pf, size_t pfs)                                         \
    {                                                                                              \
        (void)pf, (void)pfs;                                                                       \
        ukr_body(R, 0, k, a, s, b, rsb, c, ldc, alpha, beta, bp);                                  \
    }                                                                                              \
    static void tile_rows_##R(size_t k, const float *a, size_t s, const float *b, size_t rsb,      \
                              float *c, size_t ldc, float alpha, float beta, float *bp,            \
                              const float *pf, size_t pfs)                                         \
    {                                                                                              \
        (void)pf, (void)pfs;                                                                       \
        ukr_rows_body(R, 0, k, a, s, b, rsb, c, ldc, alpha, beta, bp);                             \
    }                                                                                              \
    static void tile_cols_copy_##R(size_t k, const float *a, size_t s, const float *b, size_t rsb, \
                                   float *c, size_t ldc, float alpha, float beta, float *bp,       \
                                   const float *pf, size_t pfs)                                    \
    {                                                                                              \
        (void)pf, (void)pfs;                                                                       \
        ukr_body(R, 1, k, a, s, b, rsb, c, ldc, alpha, beta, bp);                                  \
    }                                                                                              \
    static void tile_rows_copy_##R(size_t k, const float *a, size_t s, const float *b, size_t rsb, \
                                   float *c, size_t ldc, float alpha, float beta, float *bp,       \
                                   const float *pf, size_t pfs)                                    \
    {                                                                                              \
        (void)pf, (void)pfs;                                                                       \
        ukr_rows_body(R, 1, k, a, s, b, rsb, c, ldc, alpha, beta, bp);                             \
    }
UKR(1) UKR(2) UKR(3) UKR(4) UKR(5) UKR(6) UKR(7) UKR(8)
#undef UKR

#define UKRT(R)                                                                                    \
    static void ukr_t_##R(size_t k, const float *a, size_t rsa, const float *b, size_t rsb,        \
                          size_t w, float *c, size_t ldc, size_t room, float alpha, float beta)    \
    {                                                                                              \
        ukr_t_body(R, k, a, rsa, b, rsb, w, c, ldc, room, alpha, beta);                            \
    }
UKRT(1) UKRT(2) UKRT(3) UKRT(4)
#undef UKRT

const sk_gemm_tiles sk_gemm_tiles_neon = { {
    { tile_cols_1, tile_cols_2, tile_cols_3, tile_cols_4, tile_cols_5, tile_cols_6, tile_cols_7,
      tile_cols_8 },
    { tile_rows_1, tile_rows_2, tile_rows_3, tile_rows_4, tile_rows_5, tile_rows_6, tile_rows_7,
      tile_rows_8 },
    { tile_cols_copy_1, tile_cols_copy_2, tile_cols_copy_3, tile_cols_copy_4, tile_cols_copy_5,
      tile_cols_copy_6, tile_cols_copy_7, tile_cols_copy_8 },
    { tile_rows_copy_1, tile_rows_copy_2, tile_rows_copy_3, tile_rows_copy_4, tile_rows_copy_5,
      tile_rows_copy_6, tile_rows_copy_7, tile_rows_copy_8 },
} };

/* The micro-kernel (see sk_gemm_ukr_fn): the r-row kernel of the layout, copying B or not. */
void sk_gemm_ukr_neon(size_t r, size_t k, const float *a, size_t rsa, size_t csa, const float *b,
                      size_t rsb, float *c, size_t ldc, float alpha, float beta, float *bp,
                      const float *pf, size_t pfs)
{
    const int rows = csa == 1; /* rows of A in place: their stride is rsa */
    sk_gemm_tiles_neon.by[(bp ? 2 : 0) + rows][r - 1](k, a, rows ? rsa : csa, b, rsb, c, ldc,
                                                       alpha, beta, bp, pf, pfs);
}

typedef void (*tile_t_fn)(size_t k, const float *a, size_t rsa, const float *b, size_t rsb,
                          size_t w, float *c, size_t ldc, size_t room, float alpha, float beta);

/* The transposed tile (see sk_gemm_ukr_t_fn): the r-row kernel. */
void sk_gemm_ukr_t_neon(size_t r, size_t k, const float *a, size_t rsa, const float *b, size_t rsb,
                        size_t w, float *c, size_t ldc, size_t room, float alpha, float beta)
{
    static const tile_t_fn tab[T_ROWS] = { ukr_t_1, ukr_t_2, ukr_t_3, ukr_t_4 };
    tab[r - 1](k, a, rsa, b, rsb, w, c, ldc, room, alpha, beta);
}

static inline float finish1(float s, float alpha, float beta, const float *c)
{
    return beta == 0.f ? alpha * s : alpha * s + beta * *c;
}

/* c[j] = alpha sum_p a[p] b[p*ldb + j] + beta c[j]: 32 columns at a time, then 4, then 1. */
void sk_gemv_n_neon(size_t n, size_t k, float alpha, const float *a, const float *b, size_t ldb,
                    float beta, float *c)
{
    const float32x4_t va = vdupq_n_f32(alpha), vb = vdupq_n_f32(beta);
    size_t j = 0;
    for (; j + 32 <= n; j += 32) {
        float32x4_t s[8];
        for (int v = 0; v < 8; v++) s[v] = vdupq_n_f32(0.f);
        const float *bp = b + j;
        for (size_t p = 0; p < k; p++, bp += ldb)
            for (int v = 0; v < 8; v++) s[v] = vfmaq_n_f32(s[v], vld1q_f32(bp + 4 * v), a[p]);
        for (int v = 0; v < 8; v++) {
            float32x4_t r = vmulq_f32(va, s[v]);
            if (beta != 0.f) r = vfmaq_f32(r, vb, vld1q_f32(c + j + 4 * v));
            vst1q_f32(c + j + 4 * v, r);
        }
    }
    for (; j + 4 <= n; j += 4) {
        float32x4_t s = vdupq_n_f32(0.f);
        for (size_t p = 0; p < k; p++) s = vfmaq_n_f32(s, vld1q_f32(b + p * ldb + j), a[p]);
        float32x4_t r = vmulq_f32(va, s);
        if (beta != 0.f) r = vfmaq_f32(r, vb, vld1q_f32(c + j));
        vst1q_f32(c + j, r);
    }
    for (; j < n; j++) {
        float s = 0.f;
        for (size_t p = 0; p < k; p++) s = __builtin_fmaf(a[p], b[p * ldb + j], s);
        c[j] = finish1(s, alpha, beta, c + j);
    }
}

/* c[j] = alpha dot(a, b + j*ldb) + beta c[j]: four rows of B at a time. */
void sk_gemv_t_neon(size_t n, size_t k, float alpha, const float *a, const float *b, size_t ldb,
                    float beta, float *c)
{
    for (size_t j = 0; j < n; j += 4) {
        const size_t w = n - j < 4 ? n - j : 4;
        const float *r[4];
        for (size_t q = 0; q < 4; q++) r[q] = b + (j + (q < w ? q : 0)) * ldb;
        float32x4_t s[4];
        for (int q = 0; q < 4; q++) s[q] = vdupq_n_f32(0.f);
        size_t p = 0;
        for (; p + 4 <= k; p += 4) {
            const float32x4_t av = vld1q_f32(a + p);
            for (int q = 0; q < 4; q++) s[q] = vfmaq_f32(s[q], av, vld1q_f32(r[q] + p));
        }
        float t[4];
        for (int q = 0; q < 4; q++) {
            t[q] = vaddvq_f32(s[q]);
            for (size_t pp = p; pp < k; pp++) t[q] = __builtin_fmaf(a[pp], r[q][pp], t[q]);
        }
        for (size_t q = 0; q < w; q++) c[j + q] = finish1(t[q], alpha, beta, c + j + q);
    }
}

/* s[i][q] += A row i times B row q over the kn (1..4) values at p (a: row 0 of A at p): exactly
   kn values of each row read, zero past them. */
static inline __attribute__((always_inline)) void
dot_step(const int R, const int kn, float32x4_t s[][4], const float *a, size_t lda,
         const float *const r[4], size_t p)
{
    const float32x4_t b0 = load_n(kn, r[0] + p), b1 = load_n(kn, r[1] + p);
    const float32x4_t b2 = load_n(kn, r[2] + p), b3 = load_n(kn, r[3] + p);
#pragma GCC unroll 4
    for (int i = 0; i < R; i++) {
        const float32x4_t ai = load_n(kn, a + i * lda);
        s[i][0] = vfmaq_f32(s[i][0], ai, b0);
        s[i][1] = vfmaq_f32(s[i][1], ai, b1);
        s[i][2] = vfmaq_f32(s[i][2], ai, b2);
        s[i][3] = vfmaq_f32(s[i][3], ai, b3);
    }
}

/* dot (see sk_gemm_dot_fn) for R rows of A (1..4): R x 4 accumulators, four rows of B at a time
   (the last group's missing rows repeat its first one, results dropped), k in 4-lane steps, the
   k % 4 tail as one zero-padded step (reads exactly k values of each row); A's R rows stay in L1
   while B streams once. Registers: 16 accumulators + 4 B + 1 A = 21 q. */
static inline __attribute__((always_inline)) void
dot_body(const int R, size_t n, size_t k, float alpha, const float *a, size_t lda, const float *b,
         size_t ldb, float beta, float *c, size_t ldc)
{
    const int kt = (int)(k % 4);
    const size_t k4 = k - (size_t)kt;
    const float32x4_t va = vdupq_n_f32(alpha), vb = vdupq_n_f32(beta);
    for (size_t j = 0; j < n; j += 4) {
        const size_t w = n - j < 4 ? n - j : 4;
        const float *r[4];
        for (size_t q = 0; q < 4; q++) r[q] = b + (j + (q < w ? q : 0)) * ldb;
        float32x4_t s[DOT_ROWS][4];
#pragma GCC unroll 4
        for (int i = 0; i < R; i++) s[i][0] = s[i][1] = s[i][2] = s[i][3] = vdupq_n_f32(0.f);
        size_t p = 0;
        for (; p < k4; p += 4) dot_step(R, 4, s, a + p, lda, r, p);
        if (kt) dot_step(R, kt, s, a + p, lda, r, p);
#pragma GCC unroll 4
        for (int i = 0; i < R; i++) { /* lane q: the sum of s[i][q], C(i, j + q) */
            const float32x4_t t = vpaddq_f32(vpaddq_f32(s[i][0], s[i][1]),
                                             vpaddq_f32(s[i][2], s[i][3]));
            float *ci = c + i * ldc + j;
            float32x4_t o = vmulq_f32(va, t);
            if (beta != 0.f) o = vfmaq_f32(o, vb, load_n((int)w, ci));
            store_n((int)w, ci, o);
        }
    }
}

void sk_gemm_dot_neon(size_t m, size_t n, size_t k, float alpha, const float *a, size_t lda,
                      const float *b, size_t ldb, float beta, float *c, size_t ldc)
{
    switch (m) {
    case 1: dot_body(1, n, k, alpha, a, lda, b, ldb, beta, c, ldc); break;
    case 2: dot_body(2, n, k, alpha, a, lda, b, ldb, beta, c, ldc); break;
    case 3: dot_body(3, n, k, alpha, a, lda, b, ldb, beta, c, ldc); break;
    default: dot_body(4, n, k, alpha, a, lda, b, ldb, beta, c, ldc); break;
    }
}

/* The transposing pack (see sk_gemm_pack_fn): 4 x 4 blocks through registers, then pairs of
   rows interleaved, then single rows. */
void sk_gemm_pack_t_neon(size_t w, size_t kc, const float *src, size_t lds, float *dst, size_t ld)
{
    size_t j = 0;
    for (; j + 4 <= w; j += 4) {
        const float *s0 = src + j * lds, *s1 = s0 + lds, *s2 = s1 + lds, *s3 = s2 + lds;
        float *d = dst + j;
        size_t p = 0;
        for (; p + 4 <= kc; p += 4, d += 4 * ld) {
            const float32x4x2_t t01 = vtrnq_f32(vld1q_f32(s0 + p), vld1q_f32(s1 + p));
            const float32x4x2_t t23 = vtrnq_f32(vld1q_f32(s2 + p), vld1q_f32(s3 + p));
            vst1q_f32(d, vcombine_f32(vget_low_f32(t01.val[0]), vget_low_f32(t23.val[0])));
            vst1q_f32(d + ld, vcombine_f32(vget_low_f32(t01.val[1]), vget_low_f32(t23.val[1])));
            vst1q_f32(d + 2 * ld,
                      vcombine_f32(vget_high_f32(t01.val[0]), vget_high_f32(t23.val[0])));
            vst1q_f32(d + 3 * ld,
                      vcombine_f32(vget_high_f32(t01.val[1]), vget_high_f32(t23.val[1])));
        }
        for (; p < kc; p++, d += ld) {
            d[0] = s0[p];
            d[1] = s1[p];
            d[2] = s2[p];
            d[3] = s3[p];
        }
    }
    if (j + 2 <= w) {
        const float *s0 = src + j * lds, *s1 = s0 + lds;
        float *d = dst + j;
        size_t p = 0;
        for (; p + 4 <= kc; p += 4, d += 4 * ld) {
            const float32x4x2_t z = vzipq_f32(vld1q_f32(s0 + p), vld1q_f32(s1 + p));
            vst1_f32(d, vget_low_f32(z.val[0]));
            vst1_f32(d + ld, vget_high_f32(z.val[0]));
            vst1_f32(d + 2 * ld, vget_low_f32(z.val[1]));
            vst1_f32(d + 3 * ld, vget_high_f32(z.val[1]));
        }
        for (; p < kc; p++, d += ld) {
            d[0] = s0[p];
            d[1] = s1[p];
        }
        j += 2;
    }
    for (; j < w; j++) {
        const float *sj = src + j * lds;
        for (size_t p = 0; p < kc; p++) dst[p * ld + j] = sj[p];
    }
}
