/* The portable GEMM reference: for each C element, s = sum over p = 0..k-1 in order (float, no
 * contraction: -ffp-contract=off), then C = alpha * s (+ beta * C when beta != 0). Same bits in
 * every build. Rows are processed in strips of RB columns with the sums in a small stack array, so
 * that B is streamed row by row (i-p-j order) without changing any element's summation order. */
#include "gemm.h"

#define RB 64 /* columns per strip */

void sk_sgemm_ref(sk_trans ta, sk_trans tb, size_t m, size_t n, size_t k, float alpha,
                  const float *a, size_t lda, const float *b, size_t ldb, float beta,
                  float *c, size_t ldc)
{
    float s[RB];
    for (size_t i = 0; i < m; i++) {
        for (size_t j0 = 0; j0 < n; j0 += RB) {
            size_t nb = n - j0 < RB ? n - j0 : RB;
            for (size_t j = 0; j < nb; j++) s[j] = 0.f;
            for (size_t p = 0; p < k; p++) {
                float aip = ta ? a[p * lda + i] : a[i * lda + p];
                if (tb) {
                    const float *bj = b + j0 * ldb + p;
                    for (size_t j = 0; j < nb; j++) s[j] += aip * bj[j * ldb];
                } else {
                    const float *bp = b + p * ldb + j0;
                    for (size_t j = 0; j < nb; j++) s[j] += aip * bp[j];
                }
            }
            float *ci = c + i * ldc + j0;
            if (beta == 0.f)
                for (size_t j = 0; j < nb; j++) ci[j] = alpha * s[j];
            else
                for (size_t j = 0; j < nb; j++) ci[j] = alpha * s[j] + beta * ci[j];
        }
    }
}

/* The portable micro-kernel of the scalar table (see sk_gemm_ukr_fn), so that the scalar table runs
 * the blocked framework too: an r x SK_GEMM_REF_NR tile, each element a float sum over p in order,
 * then alpha * s (+ beta * C). */
void sk_gemm_ukr_ref(size_t r, size_t k, const float *a, size_t rsa, size_t csa, const float *b,
                     size_t rsb, float *c, size_t ldc, float alpha, float beta, float *bp,
                     const float *pf, size_t pfs)
{
    (void)pf, (void)pfs; /* a hint: no prefetch here */
    float s[SK_GEMM_REF_MR][SK_GEMM_REF_NR];
    for (size_t i = 0; i < r; i++)
        for (size_t j = 0; j < SK_GEMM_REF_NR; j++) s[i][j] = 0.f;
    for (size_t p = 0; p < k; p++) {
        const float *bq = b + p * rsb;
        if (bp)
            for (size_t j = 0; j < SK_GEMM_REF_NR; j++) bp[p * SK_GEMM_REF_NR + j] = bq[j];
        for (size_t i = 0; i < r; i++) {
            const float aip = a[i * rsa + p * csa];
            for (size_t j = 0; j < SK_GEMM_REF_NR; j++) s[i][j] += aip * bq[j];
        }
    }
    for (size_t i = 0; i < r; i++) {
        float *ci = c + i * ldc;
        if (beta == 0.f)
            for (size_t j = 0; j < SK_GEMM_REF_NR; j++) ci[j] = alpha * s[i][j];
        else
            for (size_t j = 0; j < SK_GEMM_REF_NR; j++) ci[j] = alpha * s[i][j] + beta * ci[j];
    }
}

/* The portable micro-kernel's r-row kernels (see sk_gemm_tiles): the same sums with r and the
   layout fixed, A by columns (s = csa) or its rows in place (s = rsa); the copying layouts are the
   same functions (bp passed through). */
#define REF_TILE(R)                                                                                \
    static void ref_cols_##R(size_t k, const float *a, size_t s, const float *b, size_t rsb,       \
                             float *c, size_t ldc, float alpha, float beta, float *bp,             \
                             const float *pf, size_t pfs)                                          \
    {                                                                                              \
        sk_gemm_ukr_ref(R, k, a, 1, s, b, rsb, c, ldc, alpha, beta, bp, pf, pfs);                  \
    }                                                                                              \
    static void ref_rows_##R(size_t k, const float *a, size_t s, const float *b, size_t rsb,       \
                             float *c, size_t ldc, float alpha, float beta, float *bp,             \
                             const float *pf, size_t pfs)                                          \
    {                                                                                              \
        sk_gemm_ukr_ref(R, k, a, s, 1, b, rsb, c, ldc, alpha, beta, bp, pf, pfs);                  \
    }
REF_TILE(1) REF_TILE(2) REF_TILE(3) REF_TILE(4)
#undef REF_TILE
_Static_assert(SK_GEMM_REF_MR == 4, "one REF_TILE per row count");

const sk_gemm_tiles sk_gemm_tiles_ref = { {
    { ref_cols_1, ref_cols_2, ref_cols_3, ref_cols_4 },
    { ref_rows_1, ref_rows_2, ref_rows_3, ref_rows_4 },
    { ref_cols_1, ref_cols_2, ref_cols_3, ref_cols_4 },
    { ref_rows_1, ref_rows_2, ref_rows_3, ref_rows_4 },
} };

/* The portable rows_n of the scalar table (see sk_gemm_rows_fn), so that the scalar table runs the
 * planner's few-rows path too: m <= SK_GEMM_REF_MR rows of C summed in strips of RB columns, B
 * streamed row by row into them, each element a float sum over p in order (as sk_sgemm_ref). */
void sk_gemm_rows_ref(size_t m, size_t n, size_t k, float alpha, const float *a, size_t rsa,
                      size_t csa, const float *b, size_t ldb, float beta, float *c, size_t ldc)
{
    float s[SK_GEMM_REF_MR][RB];
    for (size_t j0 = 0; j0 < n; j0 += RB) {
        const size_t nb = n - j0 < RB ? n - j0 : RB;
        for (size_t i = 0; i < m; i++)
            for (size_t j = 0; j < nb; j++) s[i][j] = 0.f;
        for (size_t p = 0; p < k; p++) {
            const float *bp = b + p * ldb + j0;
            for (size_t i = 0; i < m; i++) {
                const float aip = a[i * rsa + p * csa];
                for (size_t j = 0; j < nb; j++) s[i][j] += aip * bp[j];
            }
        }
        for (size_t i = 0; i < m; i++) {
            float *ci = c + i * ldc + j0;
            if (beta == 0.f)
                for (size_t j = 0; j < nb; j++) ci[j] = alpha * s[i][j];
            else
                for (size_t j = 0; j < nb; j++) ci[j] = alpha * s[i][j] + beta * ci[j];
        }
    }
}

void sk_gemm_pack_t_ref(size_t w, size_t kc, const float *src, size_t lds, float *dst, size_t ld)
{
    for (size_t j = 0; j < w; j++) {
        const float *sj = src + j * lds;
        for (size_t p = 0; p < kc; p++) dst[p * ld + j] = sj[p];
    }
}

void sk_gemm_dsp_init_ref(sk_gemm_dsp *d)
{
    *d = (sk_gemm_dsp){
        .ukr = sk_gemm_ukr_ref, .tiles = &sk_gemm_tiles_ref, .pack_t = sk_gemm_pack_t_ref,
        /* rows_n takes up to MR rows a call; up to 3 MR, the framework calls it on groups of
           rows (as on the AVX2 table), on every build */
        .rows_n = sk_gemm_rows_ref, .rows_max = 3 * SK_GEMM_REF_MR, .rows_group = SK_GEMM_REF_MR,
        .rows_few = SK_GEMM_REF_MR,
        .mr = SK_GEMM_REF_MR, .nr = SK_GEMM_REF_NR, .mc = 32, .kc = 64, .nc = 256, .kc_t = 64,
        /* packed B: panels of two tiles, so that every build runs the tile over parts of one,
           and copies of those parts from two MC blocks on (the AVX-512 table's rule) */
        .pack_nr = 2 * SK_GEMM_REF_NR, .pk_copy_rows = 2 * 32,
        /* planner: as the vector tables (rows at 4 KiB strides share an L1 set, 8 such rows
           stay in L1; an in-place panel copied past 16 KiB of B or at 2 KiB strides, for at least
           two more row blocks, one more at 4 KiB strides (both counts within reach of tests),
           from a row stride of 20 floats on (the AVX-512 Zen 5 table's 1024, within reach);
           A packed over several MC blocks unless n spans at most 4 strips, and at 4 KiB strides
           when B's panel is copied (the AVX-512 Zen 5 table's choice; the other tables read it
           in place); a B of 16384 floats or more (one MC block) and a B block of 8192 floats or
           more (several) packed up front: both B paths of each within reach of small tests) */
        .set_stride = 1024, .set_rows = 8, .b_alias = 0, .b_span_min = 16384, .b_rows_min = 8192,
        .cp_min = 4096, .cp_stride = 512, .cp_blocks = 3, .cp_blocks_set = 2,
        .cp_ldb_min = 20,
        .direct_a_strips = 4, .copy_packs_a = 1,
        .line_floats = 16 /* 64-byte lines */, .a_prefetch = 1,
        /* pool: 256 columns per matrix-vector unit; 0.5 MFLOP per task (5 us at 100 GFLOP/s,
           13 us on AVX2 on Zen 1), 0.25 MFLOP on the memory-bound paths (512 KB of B). On a
           2-vCPU Zen 1 VM, pthreadpool, 2 threads vs 1, fastest of 15 interleaved: 16x512x64
           1.82x, 64x512x64 1.93x, 4x512x512 1.77x, 1x512x512 1.77x; where 4 and 1 MFLOP kept
           them on one thread; still one task below that: 64x64x64, 1x512x64 0.98-1.0x
           (docs/bench/gemm-tuning.md) */
        .gemv_group = 256, .tp_min_flops = 500000, .tp_min_flops_row = 250000,
        /* m == 1 from 1 MiB of B: k in chunks of 256 rows or more, so that a pool's threads each
           read whole rows of B (the matrix-vector kernels only; the scalar table has none) */
        .gemv_k_rows = 128, .gemv_k_min = 1u << 18, .gemv_span = 0,
        /* few rows by rows of B (rows_n) from 64 floats of B per row past the first, or 64 at
           4 KiB strides, up to 64 Ki floats (2 rows: any), up to 2 MR rows at 2 KiB strides from
           4 Ki floats: every side of plan_rows within reach of small tests */
        .rows_span = 64, .rows_span_max = 1u << 16, .rows_edge = 0,
        .rows_half_max = 2 * SK_GEMM_REF_MR, .rows_half_span = 4096,
        /* B any whole number of floats off a line: the columns before its first boundary apart
           from 2 NR columns after them (NR on rows_n) and 256 floats of B, so that small tests
           run both sides of the split */
        .realign_n = 2 * SK_GEMM_REF_NR, .realign_rows_n = SK_GEMM_REF_NR, .realign_span = 256,
        .realign_floats = 16,
    };
}
