/* AVX2+FMA few-rows NN product by rows of B (see sk_gemm_dsp.rows_n): up to 6 rows of C summed in
 * an accumulator block in L1, B streamed into it 2 to 4 rows at a time, each row of B read in
 * order (a few sequential streams, which the hardware prefetchers follow at any row stride), where
 * the register tiles walk B down 16- or 24-column strips at its row stride. M rows of C and Q rows
 * of B hold M Q broadcasts of A, Q vectors of B and a sum in AVX2's 16 registers: Q = 4 for 1-2
 * rows, 3 for 3-4, 2 for 5-6 (12 broadcasts, one register left). Each sum is a chain of FMAs over
 * the rows of B in order, whatever Q. */
#include <immintrin.h>

#include "common.h"
#include "x86/gemm.h"
#include "x86/avx2_util.h"

#define ROWS SK_GEMM_AVX2_ROWS
#define W 1024 /* columns of the accumulator block: up to 4 x W floats, 16 KiB */
/* 5 and 6 rows in blocks of W / 2 columns (12 KiB), so that the block stays within the 16 KiB of
   4 rows on cores with a 32 KiB L1; on AMD Zen 5 (48 KiB) level with W, in-process, fastest of
   15, twice: 5 and 6 x 512..2048 x 512..2048 0.93-1.05x (docs/bench/gemm-tuning.md) */
#define ROWS_CW(M) ((M) > 4 ? (size_t)W / 2 : (size_t)W)
/* Q rows of B per pass (4 for 1-2 rows of C, 3 for 3-4) against 2 for every count, in-process,
   fastest of 15, two runs: 2x4096x4096 1.42-1.46x, 2x512x512 1.23-1.26x, 4x512x512 1.21-1.22x,
   4x1024x64 1.19-1.24x, 4x4096x1024 1.17-1.22x, 8x1024x1024 (4 + 4) 1.17-1.21x, 4x1024x1024
   1.16-1.22x, 2x1024x1024 1.15-1.16x, 3x512x512 1.12-1.17x, 7x1024x1024 (3 + 4) 1.11-1.14x,
   3x1024x1024 1.07-1.08x (AMD Zen 5) */
#define ROWS_PASS 4
#define ROWS_PASS_M(M) ((M) <= 2 ? 4 : (M) <= 4 ? 3 : 2)
#define ROWS_V __m256
#define ROWS_VEC 8
#define ROWS_BCAST(p) _mm256_broadcast_ss(p)

/* gemm_rows.h's rows_step over Q (ROWS_PASS_M, or 1) rows of B, one FMA chain per row of C. */
static inline __attribute__((always_inline)) void rows_step(const int M, const int Q,
                                                             float acc[][W], size_t j,
                                                             __m256 av[][ROWS_PASS],
                                                             const float *b, size_t ldb,
                                                             size_t tail)
{
    __m256 bq[ROWS_PASS];
    if (tail) {
        const __m256i mt = sk_tail8_avx2(tail);
#pragma GCC unroll 4
        for (int q = 0; q < Q; q++) bq[q] = _mm256_maskload_ps(b + q * ldb + j, mt);
    } else {
#pragma GCC unroll 4
        for (int q = 0; q < Q; q++) bq[q] = _mm256_loadu_ps(b + q * ldb + j);
    }
#pragma GCC unroll 8
    for (int i = 0; i < M; i++) {
        __m256 x = _mm256_load_ps(&acc[i][j]);
#pragma GCC unroll 4
        for (int q = 0; q < Q; q++) x = _mm256_fmadd_ps(av[i][q], bq[q], x);
        _mm256_store_ps(&acc[i][j], x);
    }
}

/* c[i*ldc + j] = alpha acc[i][j] + beta c[i*ldc + j] for i < M, j < w (beta == 0: c not read):
   scalar, as gemv_n's finish */
static inline __attribute__((always_inline)) void rows_store(const int M, float acc[][W], size_t w,
                                                              float alpha, float beta, float *c,
                                                              size_t ldc)
{
    for (int i = 0; i < M; i++) {
        float *ci = c + i * ldc;
        for (size_t j = 0; j < w; j++)
            ci[j] = beta == 0.f ? alpha * acc[i][j] : alpha * acc[i][j] + beta * ci[j];
    }
}

#define ROWS_ENTRY sk_gemm_rows6_avx2
#include "x86/gemm_rows.h"
