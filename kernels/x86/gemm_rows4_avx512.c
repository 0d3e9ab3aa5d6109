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

#define ROWS_PASS 4
#define ROWS_V __m512
#define ROWS_VEC 16
#define ROWS_BCAST(p) _mm512_set1_ps(*(p))

/* gemm_rows.h's rows_step over Q = 4 or 1 rows of B: one FMA chain per row of C (M chains per
   step, and the steps overlap: a second chain per row, as gemv_n has for its one row, ran
   0.93-0.97x on Zen 5). */
static inline __attribute__((always_inline)) void rows_step(const int M, const int Q,
                                                             float acc[][W], size_t j,
                                                             __m512 av[][ROWS_PASS],
                                                             const float *b, size_t ldb,
                                                             size_t tail)
{
    const __mmask16 m = tail ? sk_tail16_avx512(tail) : (__mmask16)0xffff;
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

/* c[i*ldc + j] = alpha acc[i][j] + beta c[i*ldc + j] for i < M, j < w (beta == 0: c not read) */
static inline __attribute__((always_inline)) void rows_store(const int M, float acc[][W], size_t w,
                                                              float alpha, float beta, float *c,
                                                              size_t ldc)
{
    const __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
#pragma GCC unroll 4
    for (int i = 0; i < M; i++) {
        float *ci = c + i * ldc;
        for (size_t j = 0; j < w; j += 16) {
            const __mmask16 mj = sk_tail16_avx512(w - j);
            __m512 o = _mm512_mul_ps(va, _mm512_load_ps(&acc[i][j]));
            if (beta != 0.f) o = _mm512_fmadd_ps(vb, _mm512_maskz_loadu_ps(mj, ci + j), o);
            _mm512_mask_storeu_ps(ci + j, mj, o);
        }
    }
}

#define ROWS_ENTRY sk_gemm_rows4_avx512
#include "x86/gemm_rows.h"
