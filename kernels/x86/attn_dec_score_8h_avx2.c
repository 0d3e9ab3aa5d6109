/* Attention decoder-step scores over all heads, AVX2 + FMA (contract in attn.h):
 * st[j * ldst + h] = scale * (k_j[h d ..] . q[h d ..]).
 * Each key row is read whole, its heads in groups of 8: one accumulator per head (8 lanes of
 * partial products, d in steps of 8, the tail masked), then the 8-vector reduction puts head h's
 * sum in lane h, the same additions for every lane: a head's result does not depend on nh or on
 * its place in the group. q (nh d floats) is read from L1 for every row. */
#include <immintrin.h>
#include "x86/attention.h"
#include "x86/avx2_util.h"

static inline __attribute__((always_inline)) void
rows(size_t bk, size_t nh, size_t d, float scale, const float *k, size_t ldk, const float *q,
     float *st, size_t ldst)
{
    const __m256 vs = _mm256_set1_ps(scale);
    const size_t dv = d - d % 8;
    const __m256i dt = sk_tail8_avx2(d % 8);
    for (size_t j = 0; j < bk; j++) {
        const float *kr = k + j * ldk;
        if (j + SK_DEC_PF_ROWS < bk) SK_DEC_PREFETCH_ROW(kr + SK_DEC_PF_ROWS * ldk);
        for (size_t g0 = 0; g0 < nh; g0 += 8) {
            const size_t ng = nh - g0 < 8 ? nh - g0 : 8;
            __m256 acc[8];
#pragma GCC unroll 8
            for (size_t h = 0; h < 8; h++) {
                __m256 a = _mm256_setzero_ps();
                if (h < ng) {
                    const float *qh = q + (g0 + h) * d, *kh = kr + (g0 + h) * d;
                    for (size_t p = 0; p < dv; p += 8)
                        a = _mm256_fmadd_ps(_mm256_loadu_ps(qh + p), _mm256_loadu_ps(kh + p), a);
                    if (d % 8)
                        a = _mm256_fmadd_ps(_mm256_maskload_ps(qh + dv, dt),
                                            _mm256_maskload_ps(kh + dv, dt), a);
                }
                acc[h] = a;
            }
            _mm256_storeu_ps(st + j * ldst + g0, _mm256_mul_ps(sk_reduce8_avx2(acc), vs));
        }
    }
}

void sk_attn_dec_score_avx2(size_t bk, size_t nh, size_t d, float scale, const float *k,
                            size_t ldk, const float *q, float *st, size_t ldst)
{
    if (d == 64) rows(bk, nh, 64, scale, k, ldk, q, st, ldst);
    else rows(bk, nh, d, scale, k, ldk, q, st, ldst);
}
