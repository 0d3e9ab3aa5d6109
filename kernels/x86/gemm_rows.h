/* The frame the x86 rows_n kernels share (gemm_rows6_avx2.c, gemm_rows4_avx512.c; see
 * sk_gemm_dsp.rows_n): C's m <= ROWS rows summed in an accumulator block of ROWS x W floats in L1,
 * B streamed into it ROWS_PASS_M(M) rows at a time (at most ROWS_PASS; default ROWS_PASS; then
 * one at a time), each row of B read in order. The including file defines ROWS, W, ROWS_PASS,
 * optionally ROWS_PASS_M and ROWS_CW, ROWS_ENTRY (the entry point's name), the vector
 * type ROWS_V of ROWS_VEC floats, ROWS_BCAST(p) (*p in every lane), and
 *   rows_step(M, Q, acc, j, av, b, ldb, tail): acc[i][j..j+ROWS_VEC) += sum_q av[i][q]
 *       b[q*ldb + j..] for i < M over Q rows of B (tail: 0, or the columns left, < ROWS_VEC:
 *       the others read as zero);
 *   rows_store(M, acc, w, alpha, beta, c, ldc): c[i*ldc + j] = alpha acc[i][j] + beta c[...]
 *       for j < w (beta == 0: c not read). */

#ifndef ROWS_CW
#define ROWS_CW(M) W /* the columns of an accumulator block for M rows */
#endif
#ifndef ROWS_PASS_M
#define ROWS_PASS_M(M) ROWS_PASS /* rows of B per pass for M rows of C (at most ROWS_PASS) */
#endif

/* Q rows of B from b (its columns [0, w)) into the accumulator block, op(A)(i, q) = a[i*rsa +
   q*csa] their factors. */
static inline __attribute__((always_inline)) void rows_pass(const int M, const int Q,
                                                             float acc[][W], size_t w,
                                                             const float *a, size_t rsa,
                                                             size_t csa, const float *b,
                                                             size_t ldb)
{
    ROWS_V av[ROWS][ROWS_PASS];
#pragma GCC unroll 8
    for (int i = 0; i < M; i++)
#pragma GCC unroll 4
        for (int q = 0; q < Q; q++) av[i][q] = ROWS_BCAST(a + i * rsa + q * csa);
    const size_t wf = w & ~(size_t)(ROWS_VEC - 1);
    size_t j = 0;
    for (; j < wf; j += ROWS_VEC) rows_step(M, Q, acc, j, av, b, ldb, 0);
    if (j < w) rows_step(M, Q, acc, j, av, b, ldb, w - j);
}

static inline __attribute__((always_inline)) void
rows_body(const int M, size_t n, size_t k, float alpha, const float *a, size_t rsa, size_t csa,
          const float *b, size_t ldb, float beta, float *c, size_t ldc)
{
    SK_ALIGN(64) float acc[ROWS][W];
    const size_t CW = ROWS_CW(M); /* the columns of a block */
    for (size_t j0 = 0; j0 < n; j0 += CW) {
        const size_t w = n - j0 < CW ? n - j0 : CW, w16 = (w + 15) & ~(size_t)15;
        for (int i = 0; i < M; i++)
            for (size_t j = 0; j < w16; j++) acc[i][j] = 0.f;
        const float *bp = b + j0;
        size_t p = 0;
        const size_t QP = ROWS_PASS_M(M);
        for (; p + QP <= k; p += QP, bp += QP * ldb)
            rows_pass(M, ROWS_PASS_M(M), acc, w, a + p * csa, rsa, csa, bp, ldb);
        for (; p < k; p++, bp += ldb) rows_pass(M, 1, acc, w, a + p * csa, rsa, csa, bp, ldb);
        rows_store(M, acc, w, alpha, beta, c + j0, ldc);
    }
}

#define ROWS_FN(M)                                                                                 \
    static void rows_##M(size_t n, size_t k, float alpha, const float *a, size_t rsa, size_t csa,  \
                         const float *b, size_t ldb, float beta, float *c, size_t ldc)             \
    {                                                                                              \
        rows_body(M, n, k, alpha, a, rsa, csa, b, ldb, beta, c, ldc);                              \
    }
ROWS_FN(1) ROWS_FN(2) ROWS_FN(3) ROWS_FN(4)
#if ROWS > 4
ROWS_FN(5) ROWS_FN(6)
#endif
#undef ROWS_FN

void ROWS_ENTRY(size_t m, size_t n, size_t k, float alpha, const float *a, size_t rsa, size_t csa,
                const float *b, size_t ldb, float beta, float *c, size_t ldc)
{
    typedef void (*rows_fn)(size_t, size_t, float, const float *, size_t, size_t, const float *,
                            size_t, float, float *, size_t);
    _Static_assert(ROWS == 4 || ROWS == 6, "one kernel per row count up to ROWS");
    static const rows_fn tab[ROWS] = { rows_1, rows_2, rows_3, rows_4,
#if ROWS > 4
                                       rows_5, rows_6
#endif
    };
    tab[m - 1](n, k, alpha, a, rsa, csa, b, ldb, beta, c, ldc);
}
