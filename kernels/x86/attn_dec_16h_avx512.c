/* Attention decoder-step tile, AVX-512 (contract in attn.h): up to 16 heads of one key row at a
 * time, each K and V row read once and in order, so that the hardware prefetchers follow.
 * Scores: per head a dot product along dh in 16-lane vectors (one accumulator, a masked tail), the
 * 16 heads' accumulators reduced into one vector of 16 head scores by a transpose-add tree.
 * P·V: four V rows at a time into the output row (hn * dh floats, in L1), each output vector
 * loaded once per four rows. */
#include <math.h>
#include <immintrin.h>
#include "x86/attention.h"
#include "x86/avx512_util.h"

/* NF > 0: dh = 16 * NF (known at compile time, unrolled); NF == 0: any dh (full vectors, tail) */
static inline __attribute__((always_inline)) void
score_rows(int NF, size_t bk, size_t hn, size_t dh, __m512 vs, const float *k, size_t ldk,
           const float *q, float *st)
{
    const __m512 ninf = _mm512_set1_ps(-INFINITY);
    const __mmask16 live = sk_tail16_avx512(hn), tm = NF ? 0 : sk_tail16_avx512(dh % 16);
    const size_t nf = NF ? (size_t)NF : dh / 16;
    for (size_t j = 0; j < bk; j++) {
        const float *kj = k + j * ldk;
        __m512 acc[16];
#pragma GCC unroll 16
        for (int h = 0; h < 16; h++) {
            acc[h] = _mm512_setzero_ps();
            if ((size_t)h >= hn) continue;
            const float *kh = kj + (size_t)h * dh, *qh = q + (size_t)h * dh;
#pragma GCC unroll 8
            for (size_t f = 0; f < nf; f++)
                acc[h] = _mm512_fmadd_ps(_mm512_loadu_ps(kh + 16 * f), _mm512_loadu_ps(qh + 16 * f),
                                         acc[h]);
            if (!NF && tm)
                acc[h] = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(tm, kh + 16 * nf),
                                         _mm512_maskz_loadu_ps(tm, qh + 16 * nf), acc[h]);
        }
        const __m512 s = _mm512_mul_ps(sk_reduce16_avx512(acc), vs);
        _mm512_storeu_ps(st + j * SK_ATTN_DEC_H, _mm512_mask_mov_ps(ninf, live, s));
    }
}

void sk_attn_dec_score_avx512(size_t bk, size_t hn, size_t dh, float scale, const float *k,
                              size_t ldk, const float *q, float *st)
{
    const __m512 vs = _mm512_set1_ps(scale);
    switch (dh) {
    case 32: score_rows(2, bk, hn, dh, vs, k, ldk, q, st); break;
    case 64: score_rows(4, bk, hn, dh, vs, k, ldk, q, st); break;
    case 128: score_rows(8, bk, hn, dh, vs, k, ldk, q, st); break;
    default: score_rows(0, bk, hn, dh, vs, k, ldk, q, st); break;
    }
}

/* rows [j, j + R) of P·V into o, every head */
static inline __attribute__((always_inline)) void
pv_rows(int R, int NF, size_t hn, size_t dh, const float *st, const float *v, size_t ldv,
        float *o, __mmask16 tm, size_t dv)
{
    if (NF) dv = 16 * (size_t)NF;
    for (size_t h = 0; h < hn; h++) {
        __m512 p[4];
        const float *vh[4];
#pragma GCC unroll 4
        for (int r = 0; r < R; r++) {
            p[r] = _mm512_set1_ps(st[(size_t)r * SK_ATTN_DEC_H + h]);
            vh[r] = v + (size_t)r * ldv + h * dh;
        }
        float *oh = o + h * dh;
#pragma GCC unroll 8
        for (size_t x = 0; x < dv; x += 16) {
            __m512 a = _mm512_loadu_ps(oh + x);
#pragma GCC unroll 4
            for (int r = 0; r < R; r++) a = _mm512_fmadd_ps(p[r], _mm512_loadu_ps(vh[r] + x), a);
            _mm512_storeu_ps(oh + x, a);
        }
        if (!NF && tm) {
            __m512 a = _mm512_maskz_loadu_ps(tm, oh + dv);
#pragma GCC unroll 4
            for (int r = 0; r < R; r++)
                a = _mm512_fmadd_ps(p[r], _mm512_maskz_loadu_ps(tm, vh[r] + dv), a);
            _mm512_mask_storeu_ps(oh + dv, tm, a);
        }
    }
}

/* every row of the block, four at a time */
#define PV_ALL(NF)                                                                                 \
    do {                                                                                           \
        size_t j = 0;                                                                              \
        for (; j + 4 <= bk; j += 4)                                                                \
            pv_rows(4, NF, hn, dh, st + j * SK_ATTN_DEC_H, v + j * ldv, ldv, o, tm, dv);           \
        for (; j < bk; j++)                                                                        \
            pv_rows(1, NF, hn, dh, st + j * SK_ATTN_DEC_H, v + j * ldv, ldv, o, tm, dv);           \
    } while (0)

void sk_attn_dec_pv_avx512(size_t bk, size_t hn, size_t dh, const float *st, const float *v,
                           size_t ldv, const float *corr, float *o)
{
    const __mmask16 tm = sk_tail16_avx512(dh % 16);
    const size_t dv = dh & ~(size_t)15;
    for (size_t h = 0; h < hn; h++) {
        if (corr[h] == 1.f) continue;
        const __m512 c = _mm512_set1_ps(corr[h]);
        float *oh = o + h * dh;
        for (size_t x = 0; x < dv; x += 16)
            _mm512_storeu_ps(oh + x, _mm512_mul_ps(c, _mm512_loadu_ps(oh + x)));
        if (tm)
            _mm512_mask_storeu_ps(oh + dv, tm,
                                  _mm512_mul_ps(c, _mm512_maskz_loadu_ps(tm, oh + dv)));
    }
    switch (dh) {
    case 32: PV_ALL(2); break;
    case 64: PV_ALL(4); break;
    case 128: PV_ALL(8); break;
    default: PV_ALL(0); break;
    }
}
