/* AVX2+FMA few-rows NN product by rows of B (see sk_gemm_dsp.rows_n): up to 4 rows of C summed in
 * an accumulator block in L1, B streamed into it two rows at a time, each row of B read in order
 * (a few sequential streams, which the hardware prefetchers follow at any row stride), where the
 * register tiles walk B down 16- or 24-column strips at its row stride. The AVX-512 kernel's four
 * rows of B per pass would take 16 broadcasts of A, as many registers as AVX2 has. */
#include <immintrin.h>

#include "common.h"
#include "x86/gemm.h"
#include "x86/avx2_util.h"

#define ROWS SK_GEMM_AVX2_ROWS
#define W 1024 /* columns of the accumulator block: ROWS x W floats, 16 KiB */

/* 8 floats of a row of B at b (the first lanes of mask mt when tail) */
static inline __attribute__((always_inline)) __m256 ld_b(const float *b, int tail, __m256i mt)
{
    return tail ? _mm256_maskload_ps(b, mt) : _mm256_loadu_ps(b);
}

/* acc[i][j..j+8) += sum_q av[i][q] b[q*ldb + j..] for i < M over Q (1 or 2) rows of B. */
static inline __attribute__((always_inline)) void rows_step(const int M, const int Q,
                                                             float acc[][W], size_t j,
                                                             __m256 av[][2], const float *b,
                                                             size_t ldb, int tail, __m256i mt)
{
    const __m256 b0 = ld_b(b + j, tail, mt), b1 = Q == 2 ? ld_b(b + ldb + j, tail, mt) : b0;
#pragma GCC unroll 4
    for (int i = 0; i < M; i++) {
        __m256 x = _mm256_fmadd_ps(av[i][0], b0, _mm256_load_ps(&acc[i][j]));
        if (Q == 2) x = _mm256_fmadd_ps(av[i][1], b1, x);
        _mm256_store_ps(&acc[i][j], x);
    }
}

/* Q rows of B from b (its columns [0, w)) into the accumulator block, op(A)(i, q) = a[i*rsa +
   q*csa] their factors. */
static inline __attribute__((always_inline)) void rows_pass(const int M, const int Q,
                                                             float acc[][W], size_t w,
                                                             const float *a, size_t rsa,
                                                             size_t csa, const float *b,
                                                             size_t ldb, __m256i mt)
{
    __m256 av[ROWS][2];
#pragma GCC unroll 4
    for (int i = 0; i < M; i++)
#pragma GCC unroll 2
        for (int q = 0; q < Q; q++) av[i][q] = _mm256_broadcast_ss(a + i * rsa + q * csa);
    const size_t wf = w & ~(size_t)7;
    size_t j = 0;
    for (; j < wf; j += 8) rows_step(M, Q, acc, j, av, b, ldb, 0, mt);
    if (j < w) rows_step(M, Q, acc, j, av, b, ldb, 1, mt);
}

static inline __attribute__((always_inline)) void
rows_body(const int M, size_t n, size_t k, float alpha, const float *a, size_t rsa, size_t csa,
          const float *b, size_t ldb, float beta, float *c, size_t ldc)
{
    SK_ALIGN(32) float acc[ROWS][W];
    for (size_t j0 = 0; j0 < n; j0 += W) {
        const size_t w = n - j0 < W ? n - j0 : W;
        const __m256i mt = sk_tail8_avx2(w & 7);
#pragma GCC unroll 4
        for (int i = 0; i < M; i++)
            for (size_t j = 0; j < w; j += 8) _mm256_store_ps(&acc[i][j], _mm256_setzero_ps());
        const float *bp = b + j0;
        size_t p = 0;
        for (; p + 2 <= k; p += 2, bp += 2 * ldb)
            rows_pass(M, 2, acc, w, a + p * csa, rsa, csa, bp, ldb, mt);
        if (p < k) rows_pass(M, 1, acc, w, a + p * csa, rsa, csa, bp, ldb, mt);
        for (int i = 0; i < M; i++) { /* scalar finish, as gemv_n's */
            float *ci = c + i * ldc + j0;
            for (size_t j = 0; j < w; j++)
                ci[j] = beta == 0.f ? alpha * acc[i][j] : alpha * acc[i][j] + beta * ci[j];
        }
    }
}

#define ROWS_FN(M)                                                                                 \
    static void rows_##M(size_t n, size_t k, float alpha, const float *a, size_t rsa, size_t csa,  \
                         const float *b, size_t ldb, float beta, float *c, size_t ldc)             \
    {                                                                                              \
        rows_body(M, n, k, alpha, a, rsa, csa, b, ldb, beta, c, ldc);                              \
    }
ROWS_FN(1) ROWS_FN(2) ROWS_FN(3) ROWS_FN(4)
#undef ROWS_FN

void sk_gemm_rows4_avx2(size_t m, size_t n, size_t k, float alpha, const float *a, size_t rsa,
                        size_t csa, const float *b, size_t ldb, float beta, float *c, size_t ldc)
{
    typedef void (*rows_fn)(size_t, size_t, float, const float *, size_t, size_t, const float *,
                            size_t, float, float *, size_t);
    static const rows_fn tab[ROWS] = { rows_1, rows_2, rows_3, rows_4 };
    tab[m - 1](n, k, alpha, a, rsa, csa, b, ldb, beta, c, ldc);
}
