/* Attention score tile, AVX-512: st[j * bq + r] = scale * k_j . q_r.
 * bq > 1: 8 keys x 32 query rows per micro-tile (16 accumulators), Q^T packed once per query block
 * (rows contiguous), keys broadcast from K rows. bq == 1 (decoder step): 16 keys at a time as dot
 * products along d, the 16 accumulators reduced into one vector by a transpose-add tree. */
#include <immintrin.h>
#include "x86/attention.h"
#include "x86/avx512_util.h"

/* the AVX2 8x8-transpose packing (AVX-512 implies AVX2): as fast here, an AVX-512 16x16 transpose
   gains nothing at 32 rows */
void sk_attn_pack_q_avx512(size_t bq, size_t d, const float *q, size_t ldq, float *qt)
{
    sk_attn_pack_q_avx2(bq, d, q, ldq, qt);
}

/* MK keys x NV vectors of 16 rows; m0/m1 mask the row vectors */
static inline __attribute__((always_inline)) void
tile(int MK, int NV, size_t d, __m512 vs, const float *k, size_t ldk, const float *qt, size_t bq,
     __mmask16 m0, __mmask16 m1, float *st)
{
    __m512 acc[8][2];
#pragma GCC unroll 8
    for (int i = 0; i < MK; i++) {
        acc[i][0] = _mm512_setzero_ps();
        acc[i][1] = _mm512_setzero_ps();
    }
    for (size_t p = 0; p < d; p++) {
        const __m512 q0 = _mm512_maskz_loadu_ps(m0, qt + p * bq);
        const __m512 q1 = NV > 1 ? _mm512_maskz_loadu_ps(m1, qt + p * bq + 16) : q0;
#pragma GCC unroll 8
        for (int i = 0; i < MK; i++) {
            const __m512 kb = _mm512_set1_ps(k[i * ldk + p]);
            acc[i][0] = _mm512_fmadd_ps(kb, q0, acc[i][0]);
            if (NV > 1) acc[i][1] = _mm512_fmadd_ps(kb, q1, acc[i][1]);
        }
    }
#pragma GCC unroll 8
    for (int i = 0; i < MK; i++) {
        _mm512_mask_storeu_ps(st + i * bq, m0, _mm512_mul_ps(acc[i][0], vs));
        if (NV > 1) _mm512_mask_storeu_ps(st + i * bq + 16, m1, _mm512_mul_ps(acc[i][1], vs));
    }
}

static void score_dot(size_t bk, size_t d, float scale, const float *k, size_t ldk, const float *q,
                      float *st)
{
    const __m512 vs = _mm512_set1_ps(scale);
    for (size_t j0 = 0; j0 < bk; j0 += 16) {
        const size_t nk = bk - j0 < 16 ? bk - j0 : 16;
        const float *kj = k + j0 * ldk;
        __m512 acc[16];
        for (int i = 0; i < 16; i++) acc[i] = _mm512_setzero_ps();
        if (nk == 16) {
            for (size_t p = 0; p < d; p += 16) {
                const __mmask16 m = sk_tail16_avx512(d - p);
                const __m512 qv = _mm512_maskz_loadu_ps(m, q + p);
#pragma GCC unroll 16
                for (int i = 0; i < 16; i++)
                    acc[i] =
                        _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, kj + i * ldk + p), qv, acc[i]);
            }
        } else {
            for (size_t p = 0; p < d; p += 16) {
                const __mmask16 m = sk_tail16_avx512(d - p);
                const __m512 qv = _mm512_maskz_loadu_ps(m, q + p);
                for (size_t i = 0; i < nk; i++)
                    acc[i] =
                        _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, kj + i * ldk + p), qv, acc[i]);
            }
        }
        _mm512_mask_storeu_ps(st + j0, sk_tail16_avx512(nk),
                              _mm512_mul_ps(sk_reduce16_avx512(acc), vs));
    }
}

void sk_attn_score_avx512(const struct sk_gemm_dsp *gemm, size_t bk, size_t bq, size_t d,
                          float scale, const float *k, size_t ldk, const float *q, size_t ldq,
                          const float *qt, float *st)
{
    (void)gemm; (void)ldq;
    if (bq == 1) { score_dot(bk, d, scale, k, ldk, q, st); return; }
    const __m512 vs = _mm512_set1_ps(scale);
    for (size_t r0 = 0; r0 < bq; r0 += 32) {
        const size_t nr = bq - r0 < 32 ? bq - r0 : 32;
        const __mmask16 m0 = sk_tail16_avx512(nr), m1 = nr > 16 ? sk_tail16_avx512(nr - 16) : 0;
        const float *qr = qt + r0;
        float *sr = st + r0;
        size_t j = 0;
        if (nr > 16) {
            for (; j + 8 <= bk; j += 8)
                tile(8, 2, d, vs, k + j * ldk, ldk, qr, bq, m0, m1, sr + j * bq);
            for (; j < bk; j++) tile(1, 2, d, vs, k + j * ldk, ldk, qr, bq, m0, m1, sr + j * bq);
        } else {
            for (; j + 8 <= bk; j += 8)
                tile(8, 1, d, vs, k + j * ldk, ldk, qr, bq, m0, m1, sr + j * bq);
            for (; j < bk; j++) tile(1, 1, d, vs, k + j * ldk, ldk, qr, bq, m0, m1, sr + j * bq);
        }
    }
}
