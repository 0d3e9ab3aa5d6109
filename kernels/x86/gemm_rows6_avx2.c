/* AVX2+FMA few-rows NN product by rows of B (see sk_gemm_dsp.rows_n): up to 6 rows of C summed in
 * an accumulator block in L1, B streamed into it two rows at a time, each row of B read in order
 * (a few sequential streams, which the hardware prefetchers follow at any row stride), where the
 * register tiles walk B down 16- or 24-column strips at its row stride. Two rows of B take 12
 * broadcasts of A for 6 rows, which with B's two vectors and a sum leave one of AVX2's 16
 * registers; the AVX-512 kernel's four rows of B per pass would take 16 broadcasts for 4 rows. */
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
#define ROWS_PASS 2
#define ROWS_V __m256
#define ROWS_VEC 8
#define ROWS_BCAST(p) _mm256_broadcast_ss(p)

/* gemm_rows.h's rows_step over Q = 2 or 1 rows of B, one FMA chain per row of C. */
static inline __attribute__((always_inline)) void rows_step(const int M, const int Q,
                                                             float acc[][W], size_t j,
                                                             __m256 av[][ROWS_PASS],
                                                             const float *b, size_t ldb,
                                                             size_t tail)
{
    __m256 b0, b1;
    if (tail) {
        const __m256i mt = sk_tail8_avx2(tail);
        b0 = _mm256_maskload_ps(b + j, mt);
        b1 = Q == 2 ? _mm256_maskload_ps(b + ldb + j, mt) : b0;
    } else {
        b0 = _mm256_loadu_ps(b + j);
        b1 = Q == 2 ? _mm256_loadu_ps(b + ldb + j) : b0;
    }
#pragma GCC unroll 8
    for (int i = 0; i < M; i++) {
        __m256 x = _mm256_fmadd_ps(av[i][0], b0, _mm256_load_ps(&acc[i][j]));
        if (Q == 2) x = _mm256_fmadd_ps(av[i][1], b1, x);
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
