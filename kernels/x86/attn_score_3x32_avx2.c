/* Attention score tile, AVX2 + FMA: st[j * bq + r] = scale * k_j . q_r.
 * bq a multiple of 32 (full query blocks): 3 keys x 32 query rows per micro-tile (12
 * accumulators), so each K element is read once per 32 rows (K rows sit at the heads' large
 * stride and come from L2);
 * other bq: 6 keys x 16 query rows (12 accumulators). Q^T packed once per query block, keys
 * broadcast from K rows. bq == 1 (decoder step): 8 keys at a time as dot products along d,
 * reduced with horizontal adds. */
#include <immintrin.h>
#include "x86/attention.h"
#include "x86/avx2_util.h"

void sk_attn_pack_q_avx2(size_t bq, size_t d, const float *q, size_t ldq, float *qt)
{
    const size_t r8 = bq & ~(size_t)7, p8 = d & ~(size_t)7;
    for (size_t r = 0; r < r8; r += 8) {
        for (size_t p = 0; p < p8; p += 8)
            sk_transpose8x8_avx2(q + r * ldq + p, ldq, qt + p * bq + r, bq);
        for (size_t i = 0; i < 8; i++)
            for (size_t p = p8; p < d; p++) qt[p * bq + r + i] = q[(r + i) * ldq + p];
    }
    for (size_t r = r8; r < bq; r++)
        for (size_t p = 0; p < d; p++) qt[p * bq + r] = q[r * ldq + p];
}

static inline __attribute__((always_inline)) void
tile(int MK, size_t d, __m256 vs, const float *k, size_t ldk, const float *qt, size_t bq,
     __m256i m0, __m256i m1, int full, float *st)
{
    __m256 acc[6][2];
#pragma GCC unroll 6
    for (int i = 0; i < MK; i++) {
        acc[i][0] = _mm256_setzero_ps();
        acc[i][1] = _mm256_setzero_ps();
    }
    for (size_t p = 0; p < d; p++) {
        __m256 q0, q1;
        if (full) {
            q0 = _mm256_loadu_ps(qt + p * bq);
            q1 = _mm256_loadu_ps(qt + p * bq + 8);
        } else {
            q0 = _mm256_maskload_ps(qt + p * bq, m0);
            q1 = _mm256_maskload_ps(qt + p * bq + 8, m1);
        }
#pragma GCC unroll 6
        for (int i = 0; i < MK; i++) {
            const __m256 kb = _mm256_broadcast_ss(k + i * ldk + p);
            acc[i][0] = _mm256_fmadd_ps(kb, q0, acc[i][0]);
            acc[i][1] = _mm256_fmadd_ps(kb, q1, acc[i][1]);
        }
    }
#pragma GCC unroll 6
    for (int i = 0; i < MK; i++) {
        if (full) {
            _mm256_storeu_ps(st + i * bq, _mm256_mul_ps(acc[i][0], vs));
            _mm256_storeu_ps(st + i * bq + 8, _mm256_mul_ps(acc[i][1], vs));
        } else {
            _mm256_maskstore_ps(st + i * bq, m0, _mm256_mul_ps(acc[i][0], vs));
            _mm256_maskstore_ps(st + i * bq + 8, m1, _mm256_mul_ps(acc[i][1], vs));
        }
    }
}

/* MK keys x 32 rows (4 row vectors) of a block of bq rows: every K element read once per 32 rows */
static inline __attribute__((always_inline)) void
tile32(int MK, size_t d, __m256 vs, const float *k, size_t ldk, const float *qt, size_t bq,
       float *st)
{
    __m256 acc[3][4];
#pragma GCC unroll 3
    for (int i = 0; i < MK; i++)
#pragma GCC unroll 4
        for (int t = 0; t < 4; t++) acc[i][t] = _mm256_setzero_ps();
    for (size_t p = 0; p < d; p++) {
        __m256 qv[4];
#pragma GCC unroll 4
        for (int t = 0; t < 4; t++) qv[t] = _mm256_loadu_ps(qt + p * bq + 8 * t);
#pragma GCC unroll 3
        for (int i = 0; i < MK; i++) {
            const __m256 kb = _mm256_broadcast_ss(k + i * ldk + p);
#pragma GCC unroll 4
            for (int t = 0; t < 4; t++) acc[i][t] = _mm256_fmadd_ps(kb, qv[t], acc[i][t]);
        }
    }
#pragma GCC unroll 3
    for (int i = 0; i < MK; i++)
#pragma GCC unroll 4
        for (int t = 0; t < 4; t++)
            _mm256_storeu_ps(st + i * bq + 8 * t, _mm256_mul_ps(acc[i][t], vs));
}

static void score_dot(size_t bk, size_t d, float scale, const float *k, size_t ldk, const float *q,
                      float *st)
{
    const __m256 vs = _mm256_set1_ps(scale);
    const size_t dfull = d & ~(size_t)7;
    const __m256i dm = sk_tail8_avx2(d - dfull);
    for (size_t j0 = 0; j0 < bk; j0 += 8) {
        const size_t nk = bk - j0 < 8 ? bk - j0 : 8;
        const float *kj = k + j0 * ldk;
        __m256 acc[8];
        for (int i = 0; i < 8; i++) acc[i] = _mm256_setzero_ps();
        if (nk == 8) {
            for (size_t p = 0; p < dfull; p += 8) {
                const __m256 qv = _mm256_loadu_ps(q + p);
#pragma GCC unroll 8
                for (int i = 0; i < 8; i++)
                    acc[i] = _mm256_fmadd_ps(_mm256_loadu_ps(kj + i * ldk + p), qv, acc[i]);
            }
            if (dfull < d) {
                const __m256 qv = _mm256_maskload_ps(q + dfull, dm);
#pragma GCC unroll 8
                for (int i = 0; i < 8; i++)
                    acc[i] =
                        _mm256_fmadd_ps(_mm256_maskload_ps(kj + i * ldk + dfull, dm), qv, acc[i]);
            }
            _mm256_storeu_ps(st + j0, _mm256_mul_ps(sk_reduce8_avx2(acc), vs));
        } else {
            for (size_t p = 0; p < d; p += 8) {
                const __m256i m = sk_tail8_avx2(d - p);
                const __m256 qv = _mm256_maskload_ps(q + p, m);
                for (size_t i = 0; i < nk; i++)
                    acc[i] = _mm256_fmadd_ps(_mm256_maskload_ps(kj + i * ldk + p, m), qv, acc[i]);
            }
            _mm256_maskstore_ps(st + j0, sk_tail8_avx2(nk),
                                _mm256_mul_ps(sk_reduce8_avx2(acc), vs));
        }
    }
}

void sk_attn_score_avx2(const struct sk_gemm_dsp *gemm, size_t bk, size_t bq, size_t d, float scale,
                        const float *k, size_t ldk, const float *q, size_t ldq, const float *qt,
                        float *st)
{
    (void)gemm; (void)ldq;
    if (bq == 1) { score_dot(bk, d, scale, k, ldk, q, st); return; }
    const __m256 vs = _mm256_set1_ps(scale);
    if (bq % 32 == 0) {
        for (size_t r0 = 0; r0 < bq; r0 += 32) {
            size_t j = 0;
            for (; j + 3 <= bk; j += 3)
                tile32(3, d, vs, k + j * ldk, ldk, qt + r0, bq, st + j * bq + r0);
            for (; j < bk; j++) tile32(1, d, vs, k + j * ldk, ldk, qt + r0, bq, st + j * bq + r0);
        }
        return;
    }
    for (size_t r0 = 0; r0 < bq; r0 += 16) {
        const size_t nr = bq - r0 < 16 ? bq - r0 : 16;
        const __m256i m0 = sk_tail8_avx2(nr), m1 = sk_tail8_avx2(nr > 8 ? nr - 8 : 0);
        const float *qr = qt + r0;
        float *sr = st + r0;
        size_t j = 0;
        if (nr == 16) {
            for (; j + 6 <= bk; j += 6)
                tile(6, d, vs, k + j * ldk, ldk, qr, bq, m0, m1, 1, sr + j * bq);
            for (; j < bk; j++) tile(1, d, vs, k + j * ldk, ldk, qr, bq, m0, m1, 1, sr + j * bq);
        } else {
            for (; j + 6 <= bk; j += 6)
                tile(6, d, vs, k + j * ldk, ldk, qr, bq, m0, m1, 0, sr + j * bq);
            for (; j < bk; j++) tile(1, d, vs, k + j * ldk, ldk, qr, bq, m0, m1, 0, sr + j * bq);
        }
    }
}
