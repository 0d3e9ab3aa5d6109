/* Attention P·V with the online rescale folded in, AVX-512:
 * o[r, :] = corr[r] * o[r, :] + sum_j st[j * bq + r] * v[j, :].
 * Micro-tiles of MR query rows x NV*16 output columns (6 x 64: 24 accumulators), V rows loaded once
 * per key and shared by the MR rows, P entries broadcast from the transposed tile. A single row
 * (decoder step) splits the keys over two accumulator sets to keep two FMA chains in flight. */
#include <immintrin.h>
#include "x86/attention.h"
#include "x86/avx512_util.h"

static inline __attribute__((always_inline)) void
tile(int MR, int NV, size_t bq, size_t bk, const float *st, const float *v, size_t ldv,
     const float *corr, float *o, size_t ldo, const __mmask16 *cm)
{
    __m512 acc[6][4];
#pragma GCC unroll 6
    for (int r = 0; r < MR; r++) {
        const __m512 c = _mm512_set1_ps(corr[r]);
#pragma GCC unroll 4
        for (int t = 0; t < NV; t++)
            acc[r][t] = _mm512_mul_ps(c, _mm512_maskz_loadu_ps(cm[t], o + r * ldo + 16 * t));
    }
    for (size_t j = 0; j < bk; j++) {
        __m512 vv[4];
#pragma GCC unroll 4
        for (int t = 0; t < NV; t++) vv[t] = _mm512_maskz_loadu_ps(cm[t], v + j * ldv + 16 * t);
#pragma GCC unroll 6
        for (int r = 0; r < MR; r++) {
            const __m512 p = _mm512_set1_ps(st[j * bq + r]);
#pragma GCC unroll 4
            for (int t = 0; t < NV; t++) acc[r][t] = _mm512_fmadd_ps(p, vv[t], acc[r][t]);
        }
    }
#pragma GCC unroll 6
    for (int r = 0; r < MR; r++)
#pragma GCC unroll 4
        for (int t = 0; t < NV; t++) _mm512_mask_storeu_ps(o + r * ldo + 16 * t, cm[t], acc[r][t]);
}

/* one row, two accumulator sets (even / odd keys) */
static inline __attribute__((always_inline)) void
row1(int NV, size_t bk, const float *st, const float *v, size_t ldv, float corr, float *o,
     const __mmask16 *cm)
{
    __m512 a[4], b[4];
    const __m512 c = _mm512_set1_ps(corr);
#pragma GCC unroll 4
    for (int t = 0; t < NV; t++) {
        a[t] = _mm512_mul_ps(c, _mm512_maskz_loadu_ps(cm[t], o + 16 * t));
        b[t] = _mm512_setzero_ps();
    }
    size_t j = 0;
    for (; j + 2 <= bk; j += 2) {
        const __m512 p0 = _mm512_set1_ps(st[j]), p1 = _mm512_set1_ps(st[j + 1]);
#pragma GCC unroll 4
        for (int t = 0; t < NV; t++) {
            a[t] = _mm512_fmadd_ps(p0, _mm512_maskz_loadu_ps(cm[t], v + j * ldv + 16 * t), a[t]);
            b[t] =
                _mm512_fmadd_ps(p1, _mm512_maskz_loadu_ps(cm[t], v + (j + 1) * ldv + 16 * t), b[t]);
        }
    }
    if (j < bk) {
        const __m512 p0 = _mm512_set1_ps(st[j]);
#pragma GCC unroll 4
        for (int t = 0; t < NV; t++)
            a[t] = _mm512_fmadd_ps(p0, _mm512_maskz_loadu_ps(cm[t], v + j * ldv + 16 * t), a[t]);
    }
#pragma GCC unroll 4
    for (int t = 0; t < NV; t++)
        _mm512_mask_storeu_ps(o + 16 * t, cm[t], _mm512_add_ps(a[t], b[t]));
}

#define ROWS(NV)                                                                                   \
    do {                                                                                           \
        if (bq == 1) {                                                                             \
            row1(NV, bk, st, vc, ldv, corr[0], oc, cm);                                            \
            break;                                                                                 \
        }                                                                                          \
        size_t r = 0;                                                                              \
        for (; r + 6 <= bq; r += 6)                                                                \
            tile(6, NV, bq, bk, st + r, vc, ldv, corr + r, oc + r * ldo, ldo, cm);                 \
        if (r + 4 <= bq) {                                                                         \
            tile(4, NV, bq, bk, st + r, vc, ldv, corr + r, oc + r * ldo, ldo, cm);                 \
            r += 4;                                                                                \
        }                                                                                          \
        if (r + 2 <= bq) {                                                                         \
            tile(2, NV, bq, bk, st + r, vc, ldv, corr + r, oc + r * ldo, ldo, cm);                 \
            r += 2;                                                                                \
        }                                                                                          \
        if (r < bq) tile(1, NV, bq, bk, st + r, vc, ldv, corr + r, oc + r * ldo, ldo, cm);         \
    } while (0)

void sk_attn_pv_avx512(const struct sk_gemm_dsp *gemm, size_t bq, size_t bk, size_t dv,
                       const float *st, const float *v, size_t ldv, const float *corr, float *o,
                       size_t ldo)
{
    (void)gemm;
    for (size_t c0 = 0; c0 < dv; c0 += 64) {
        const size_t nc = dv - c0 < 64 ? dv - c0 : 64;
        __mmask16 cm[4];
        for (int t = 0; t < 4; t++) cm[t] = nc > 16u * t ? sk_tail16_avx512(nc - 16u * t) : 0;
        const float *vc = v + c0;
        float *oc = o + c0;
        switch ((nc + 15) / 16) {
        case 1: ROWS(1); break;
        case 2: ROWS(2); break;
        case 3: ROWS(3); break;
        default: ROWS(4); break;
        }
    }
}
