/* Attention P·V with the online rescale folded in, AVX2 + FMA:
 * o[r, :] = corr[r] * o[r, :] + sum_j st[j * bq + r] * v[j, :].
 * Micro-tiles of MR query rows x 32 output columns (3 x 32: 12 accumulators + 4 V vectors; 2 x 32
 * and 1 x 32 for the last rows of a block), V rows loaded once per key and shared by the rows. A
 * single row (decoder step) takes 64 columns per pass (8 accumulators: each V row segment read
 * whole, once), then 32-column passes with the keys split over two accumulator sets. Column tails
 * use maskload/maskstore. */
#include <immintrin.h>
#include "x86/attention.h"
#include "x86/avx2_util.h"

/* 8 columns t of a 32-column row segment: whole (FULL) or under the tail mask cm[t] */
static inline __attribute__((always_inline)) __m256 load8(int FULL, const float *p,
                                                          const __m256i *cm, int t)
{
    return FULL ? _mm256_loadu_ps(p + 8 * t) : _mm256_maskload_ps(p + 8 * t, cm[t]);
}
static inline __attribute__((always_inline)) void store8(int FULL, float *p, const __m256i *cm,
                                                         int t, __m256 x)
{
    if (FULL) _mm256_storeu_ps(p + 8 * t, x);
    else _mm256_maskstore_ps(p + 8 * t, cm[t], x);
}

/* MR rows x 32 columns; FULL: all 32 columns, unmasked (cm unused), else the columns of cm */
static inline __attribute__((always_inline)) void
tile(int MR, int FULL, size_t bq, size_t bk, const float *st, const float *v, size_t ldv,
     const float *corr, float *o, size_t ldo, const __m256i *cm)
{
    __m256 acc[3][4];
#pragma GCC unroll 3
    for (int r = 0; r < MR; r++) {
        const __m256 c = _mm256_set1_ps(corr[r]);
#pragma GCC unroll 4
        for (int t = 0; t < 4; t++) acc[r][t] = _mm256_mul_ps(c, load8(FULL, o + r * ldo, cm, t));
    }
    for (size_t j = 0; j < bk; j++) {
        __m256 vv[4];
#pragma GCC unroll 4
        for (int t = 0; t < 4; t++) vv[t] = load8(FULL, v + j * ldv, cm, t);
#pragma GCC unroll 3
        for (int r = 0; r < MR; r++) {
            const __m256 p = _mm256_broadcast_ss(st + j * bq + r);
#pragma GCC unroll 4
            for (int t = 0; t < 4; t++) acc[r][t] = _mm256_fmadd_ps(p, vv[t], acc[r][t]);
        }
    }
#pragma GCC unroll 3
    for (int r = 0; r < MR; r++)
#pragma GCC unroll 4
        for (int t = 0; t < 4; t++) store8(FULL, o + r * ldo, cm, t, acc[r][t]);
}

/* one row, full 32 columns, keys split even / odd over two accumulator sets */
static void row1_full(size_t bk, const float *st, const float *v, size_t ldv, float corr, float *o)
{
    __m256 a[4], b[4];
    const __m256 c = _mm256_set1_ps(corr);
    for (int t = 0; t < 4; t++) {
        a[t] = _mm256_mul_ps(c, _mm256_loadu_ps(o + 8 * t));
        b[t] = _mm256_setzero_ps();
    }
    size_t j = 0;
    for (; j + 2 <= bk; j += 2) {
        const __m256 p0 = _mm256_broadcast_ss(st + j), p1 = _mm256_broadcast_ss(st + j + 1);
#pragma GCC unroll 4
        for (int t = 0; t < 4; t++) {
            a[t] = _mm256_fmadd_ps(p0, _mm256_loadu_ps(v + j * ldv + 8 * t), a[t]);
            b[t] = _mm256_fmadd_ps(p1, _mm256_loadu_ps(v + (j + 1) * ldv + 8 * t), b[t]);
        }
    }
    if (j < bk) {
        const __m256 p0 = _mm256_broadcast_ss(st + j);
        for (int t = 0; t < 4; t++)
            a[t] = _mm256_fmadd_ps(p0, _mm256_loadu_ps(v + j * ldv + 8 * t), a[t]);
    }
    for (int t = 0; t < 4; t++) _mm256_storeu_ps(o + 8 * t, _mm256_add_ps(a[t], b[t]));
}

/* one row, full 64 columns: each V row segment read whole in one pass (8 independent chains) */
static void row1_full64(size_t bk, const float *st, const float *v, size_t ldv, float corr,
                        float *o)
{
    __m256 a[8];
    const __m256 c = _mm256_set1_ps(corr);
    for (int t = 0; t < 8; t++) a[t] = _mm256_mul_ps(c, _mm256_loadu_ps(o + 8 * t));
    for (size_t j = 0; j < bk; j++) {
        const __m256 p = _mm256_broadcast_ss(st + j);
#pragma GCC unroll 8
        for (int t = 0; t < 8; t++)
            a[t] = _mm256_fmadd_ps(p, _mm256_loadu_ps(v + j * ldv + 8 * t), a[t]);
    }
    for (int t = 0; t < 8; t++) _mm256_storeu_ps(o + 8 * t, a[t]);
}

void sk_attn_pv_avx2(const struct sk_gemm_dsp *gemm, size_t bq, size_t bk, size_t dv,
                     const float *st, const float *v, size_t ldv, const float *corr, float *o,
                     size_t ldo)
{
    (void)gemm;
    size_t c64 = 0;
    if (bq == 1) /* a single row (decoder step): 64 columns per pass over V */
        for (; c64 + 64 <= dv; c64 += 64) row1_full64(bk, st, v + c64, ldv, corr[0], o + c64);
    for (size_t c0 = c64; c0 < dv; c0 += 32) {
        const size_t nc = dv - c0 < 32 ? dv - c0 : 32;
        const float *vc = v + c0;
        float *oc = o + c0;
        size_t r = 0;
        if (nc == 32) {
            if (bq == 1) { row1_full(bk, st, vc, ldv, corr[0], oc); continue; }
            for (; r + 3 <= bq; r += 3)
                tile(3, 1, bq, bk, st + r, vc, ldv, corr + r, oc + r * ldo, ldo, NULL);
            if (r + 2 <= bq) {
                tile(2, 1, bq, bk, st + r, vc, ldv, corr + r, oc + r * ldo, ldo, NULL);
                r += 2;
            }
            if (r < bq) tile(1, 1, bq, bk, st + r, vc, ldv, corr + r, oc + r * ldo, ldo, NULL);
        } else {
            __m256i cm[4];
            for (int t = 0; t < 4; t++) cm[t] = sk_tail8_avx2(nc > 8u * t ? nc - 8u * t : 0);
            for (; r + 3 <= bq; r += 3)
                tile(3, 0, bq, bk, st + r, vc, ldv, corr + r, oc + r * ldo, ldo, cm);
            if (r + 2 <= bq) {
                tile(2, 0, bq, bk, st + r, vc, ldv, corr + r, oc + r * ldo, ldo, cm);
                r += 2;
            }
            if (r < bq) tile(1, 0, bq, bk, st + r, vc, ldv, corr + r, oc + r * ldo, ldo, cm);
        }
    }
}
