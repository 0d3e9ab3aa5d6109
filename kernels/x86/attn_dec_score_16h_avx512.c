/* Attention decoder-step scores over all heads, AVX-512 (contract in attn.h):
 * st[j * ldst + h] = scale * (k_j[h d ..] . q[h d ..]).
 * Each key row is read whole, its heads in groups of 16: one accumulator per head (16 lanes of
 * partial products, d in steps of 16, the tail masked), then the 16-vector reduction puts head h's
 * sum in lane h, the same additions for every lane: a head's result does not depend on nh or on
 * its place in the group. q (nh d floats) is read from L1 for every row. */
#include <immintrin.h>
#include "x86/attention.h"
#include "x86/avx512_util.h"

static inline __attribute__((always_inline)) void
rows(size_t bk, size_t nh, size_t d, float scale, const float *k, size_t ldk, const float *q,
     float *st, size_t ldst)
{
    const __m512 vs = _mm512_set1_ps(scale);
    const __mmask16 dt = sk_tail16_avx512(d % 16);
    const size_t dv = d - d % 16;
    for (size_t j = 0; j < bk; j++) {
        const float *kr = k + j * ldk;
        if (j + SK_DEC_PF_ROWS < bk) SK_DEC_PREFETCH_ROW(kr + SK_DEC_PF_ROWS * ldk);
        for (size_t g0 = 0; g0 < nh; g0 += 16) {
            const size_t ng = nh - g0 < 16 ? nh - g0 : 16;
            __m512 acc[16];
#pragma GCC unroll 16
            for (size_t h = 0; h < 16; h++) {
                __m512 a = _mm512_setzero_ps();
                if (h < ng) {
                    const float *qh = q + (g0 + h) * d, *kh = kr + (g0 + h) * d;
                    for (size_t p = 0; p < dv; p += 16)
                        a = _mm512_fmadd_ps(_mm512_loadu_ps(qh + p), _mm512_loadu_ps(kh + p), a);
                    if (dt)
                        a = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(dt, qh + dv),
                                            _mm512_maskz_loadu_ps(dt, kh + dv), a);
                }
                acc[h] = a;
            }
            _mm512_storeu_ps(st + j * ldst + g0, _mm512_mul_ps(sk_reduce16_avx512(acc), vs));
        }
    }
}

void sk_attn_dec_score_avx512(size_t bk, size_t nh, size_t d, float scale, const float *k,
                              size_t ldk, const float *q, float *st, size_t ldst)
{
    if (d == 64) rows(bk, nh, 64, scale, k, ldk, q, st, ldst);
    else rows(bk, nh, d, scale, k, ldk, q, st, ldst);
}
