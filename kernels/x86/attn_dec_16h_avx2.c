/* Attention decoder-step tile, AVX2 + FMA (contract in attn.h): up to 16 heads of one key row at a
 * time, each K and V row read once and in order, so that the hardware prefetchers follow.
 * Scores: per head a dot product along dh in 8-lane vectors (one accumulator, a masked tail), the
 * heads in two groups of 8 whose accumulators a transpose-add tree reduces into one vector of 8
 * head scores. P·V: four V rows at a time into the output row (hn * dh floats, in L1), each output
 * vector loaded once per four rows. */
#include <math.h>
#include <immintrin.h>
#include "x86/attention.h"
#include "x86/avx2_util.h"

/* heads [h0, h0 + 8) of row kj (those below hn), scaled, -inf beyond hn. NF > 0: dh = 8 * NF
   (known at compile time, unrolled); NF == 0: any dh (dv floats in full vectors, tail tm). */
static inline __attribute__((always_inline)) __m256
score8(int NF, size_t h0, size_t hn, size_t dh, const float *kj, const float *q, __m256i tm,
       size_t dv, __m256 vs)
{
    if (NF) dv = 8 * (size_t)NF;
    __m256 acc[8];
#pragma GCC unroll 8
    for (int i = 0; i < 8; i++) {
        const size_t h = h0 + (size_t)i;
        acc[i] = _mm256_setzero_ps();
        if (h >= hn) continue;
        const float *kh = kj + h * dh, *qh = q + h * dh;
#pragma GCC unroll 16
        for (size_t p = 0; p < dv; p += 8)
            acc[i] = _mm256_fmadd_ps(_mm256_loadu_ps(kh + p), _mm256_loadu_ps(qh + p), acc[i]);
        if (!NF && dv < dh)
            acc[i] = _mm256_fmadd_ps(_mm256_maskload_ps(kh + dv, tm),
                                     _mm256_maskload_ps(qh + dv, tm), acc[i]);
    }
    const __m256 s = _mm256_mul_ps(sk_reduce8_avx2(acc), vs);
    const __m256 live = _mm256_castsi256_ps(sk_tail8_avx2(hn > h0 ? hn - h0 : 0));
    return _mm256_blendv_ps(_mm256_set1_ps(-INFINITY), s, live);
}

static inline __attribute__((always_inline)) void
score_rows(int NF, size_t bk, size_t hn, size_t dh, __m256 vs, const float *k, size_t ldk,
           const float *q, float *st)
{
    const __m256i tm = sk_tail8_avx2(dh % 8);
    const size_t dv = dh & ~(size_t)7;
    for (size_t j = 0; j < bk; j++) {
        const float *kj = k + j * ldk;
        float *s = st + j * SK_ATTN_DEC_H;
        _mm256_storeu_ps(s, score8(NF, 0, hn, dh, kj, q, tm, dv, vs));
        if (hn > 8) _mm256_storeu_ps(s + 8, score8(NF, 8, hn, dh, kj, q, tm, dv, vs));
        else _mm256_storeu_ps(s + 8, _mm256_set1_ps(-INFINITY));
    }
}

void sk_attn_dec_score_avx2(size_t bk, size_t hn, size_t dh, float scale, const float *k,
                            size_t ldk, const float *q, float *st)
{
    const __m256 vs = _mm256_set1_ps(scale);
    switch (dh) {
    case 32: score_rows(4, bk, hn, dh, vs, k, ldk, q, st); break;
    case 64: score_rows(8, bk, hn, dh, vs, k, ldk, q, st); break;
    case 128: score_rows(16, bk, hn, dh, vs, k, ldk, q, st); break;
    default: score_rows(0, bk, hn, dh, vs, k, ldk, q, st); break;
    }
}

/* rows [j, j + R) of P·V into o, every head */
static inline __attribute__((always_inline)) void
pv_rows(int R, int NF, size_t hn, size_t dh, const float *st, const float *v, size_t ldv,
        float *o, __m256i tm, size_t dv)
{
    if (NF) dv = 8 * (size_t)NF;
    for (size_t h = 0; h < hn; h++) {
        __m256 p[4];
        const float *vh[4];
#pragma GCC unroll 4
        for (int r = 0; r < R; r++) {
            p[r] = _mm256_set1_ps(st[(size_t)r * SK_ATTN_DEC_H + h]);
            vh[r] = v + (size_t)r * ldv + h * dh;
        }
        float *oh = o + h * dh;
#pragma GCC unroll 16
        for (size_t x = 0; x < dv; x += 8) {
            __m256 a = _mm256_loadu_ps(oh + x);
#pragma GCC unroll 4
            for (int r = 0; r < R; r++) a = _mm256_fmadd_ps(p[r], _mm256_loadu_ps(vh[r] + x), a);
            _mm256_storeu_ps(oh + x, a);
        }
        if (!NF && dv < dh) {
            __m256 a = _mm256_maskload_ps(oh + dv, tm);
#pragma GCC unroll 4
            for (int r = 0; r < R; r++)
                a = _mm256_fmadd_ps(p[r], _mm256_maskload_ps(vh[r] + dv, tm), a);
            _mm256_maskstore_ps(oh + dv, tm, a);
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

void sk_attn_dec_pv_avx2(size_t bk, size_t hn, size_t dh, const float *st, const float *v,
                         size_t ldv, const float *corr, float *o)
{
    const __m256i tm = sk_tail8_avx2(dh % 8);
    const size_t dv = dh & ~(size_t)7;
    for (size_t h = 0; h < hn; h++) {
        if (corr[h] == 1.f) continue;
        const __m256 c = _mm256_set1_ps(corr[h]);
        float *oh = o + h * dh;
        for (size_t x = 0; x < dv; x += 8)
            _mm256_storeu_ps(oh + x, _mm256_mul_ps(c, _mm256_loadu_ps(oh + x)));
        if (dv < dh)
            _mm256_maskstore_ps(oh + dv, tm, _mm256_mul_ps(c, _mm256_maskload_ps(oh + dv, tm)));
    }
    switch (dh) {
    case 32: PV_ALL(4); break;
    case 64: PV_ALL(8); break;
    case 128: PV_ALL(16); break;
    default: PV_ALL(0); break;
    }
}
