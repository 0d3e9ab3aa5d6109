/* AVX-512 few-rows NN product by rows of B (see sk_gemm_dsp.rows_n): up to 4 rows of C summed in
 * an accumulator block in L1, B streamed into it four rows at a time, each row of B read in order
 * (a few sequential streams, which the hardware prefetchers follow at any row stride), where the
 * register tiles walk B down 64-column strips at its row stride. */
#include <immintrin.h>

#include "common.h"
#include "x86/gemm.h"
#include "x86/avx512_util.h"

#define ROWS SK_GEMM_AVX512_ROWS
#define W 1024 /* columns of the accumulator block: ROWS x W floats, 16 KiB */

/* acc[i][j0..j0+16) += sum_q av[i][q] b[q*ldb + j0..] for i < M over Q (4 or 1) rows of B, one
   FMA chain per row of C (M chains per step, and the steps overlap: a second chain per row, as
   gemv_n has for its one row, ran 0.93-0.97x on Zen 5); mask m: the columns of B that exist
   (the others read as zero). */
static inline __attribute__((always_inline)) void rows_step(const int M, const int Q,
                                                             float acc[][W], size_t j,
                                                             __m512 av[][4], const float *b,
                                                             size_t ldb, __mmask16 m)
{
    __m512 bv[4];
#pragma GCC unroll 4
    for (int q = 0; q < Q; q++) bv[q] = _mm512_maskz_loadu_ps(m, b + q * ldb + j);
#pragma GCC unroll 4
    for (int i = 0; i < M; i++) {
        __m512 x = _mm512_fmadd_ps(av[i][0], bv[0], _mm512_load_ps(&acc[i][j]));
        if (Q == 4) {
            x = _mm512_fmadd_ps(av[i][1], bv[1], x);
            x = _mm512_fmadd_ps(av[i][2], bv[2], x);
            x = _mm512_fmadd_ps(av[i][3], bv[3], x);
        }
        _mm512_store_ps(&acc[i][j], x);
    }
}

/* Q rows of B from b (its columns [0, w)) into the accumulator block, op(A)(i, q) = a[i*rsa +
   q*csa] their factors. */
static inline __attribute__((always_inline)) void rows_pass(const int M, const int Q,
                                                             float acc[][W], size_t w,
                                                             const float *a, size_t rsa,
                                                             size_t csa, const float *b,
                                                             size_t ldb)
{
    __m512 av[ROWS][4];
#pragma GCC unroll 4
    for (int i = 0; i < M; i++)
#pragma GCC unroll 4
        for (int q = 0; q < Q; q++) av[i][q] = _mm512_set1_ps(a[i * rsa + q * csa]);
    const size_t wf = w & ~(size_t)15;
    size_t j = 0;
    for (; j < wf; j += 16) rows_step(M, Q, acc, j, av, b, ldb, 0xffff);
    if (j < w) rows_step(M, Q, acc, j, av, b, ldb, sk_tail16_avx512(w - j));
}

static inline __attribute__((always_inline)) void
rows_body(const int M, size_t n, size_t k, float alpha, const float *a, size_t rsa, size_t csa,
          const float *b, size_t ldb, float beta, float *c, size_t ldc)
{
    SK_ALIGN(64) float acc[ROWS][W];
    const __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
    for (size_t j0 = 0; j0 < n; j0 += W) {
        const size_t w = n - j0 < W ? n - j0 : W;
#pragma GCC unroll 4
        for (int i = 0; i < M; i++)
            for (size_t j = 0; j < w; j += 16) _mm512_store_ps(&acc[i][j], _mm512_setzero_ps());
        const float *bp = b + j0;
        size_t p = 0;
        for (; p + 4 <= k; p += 4, bp += 4 * ldb)
            rows_pass(M, 4, acc, w, a + p * csa, rsa, csa, bp, ldb);
        for (; p < k; p++, bp += ldb) rows_pass(M, 1, acc, w, a + p * csa, rsa, csa, bp, ldb);
#pragma GCC unroll 4
        for (int i = 0; i < M; i++) {
            float *ci = c + i * ldc + j0;
            for (size_t j = 0; j < w; j += 16) {
                const __mmask16 mj = sk_tail16_avx512(w - j);
                __m512 o = _mm512_mul_ps(va, _mm512_load_ps(&acc[i][j]));
                if (beta != 0.f) o = _mm512_fmadd_ps(vb, _mm512_maskz_loadu_ps(mj, ci + j), o);
                _mm512_mask_storeu_ps(ci + j, mj, o);
            }
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

void sk_gemm_rows4_avx512(size_t m, size_t n, size_t k, float alpha, const float *a, size_t rsa,
                          size_t csa, const float *b, size_t ldb, float beta, float *c,
                          size_t ldc)
{
    typedef void (*rows_fn)(size_t, size_t, float, const float *, size_t, size_t, const float *,
                            size_t, float, float *, size_t);
    static const rows_fn tab[ROWS] = { rows_1, rows_2, rows_3, rows_4 };
    tab[m - 1](n, k, alpha, a, rsa, csa, b, ldb, beta, c, ldc);
}
