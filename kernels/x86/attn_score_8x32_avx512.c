/* Attention score tile, AVX-512: st[j * bq + r] = scale * k_j . q_r.
 * bq > 1: 8 keys x 32 query rows per micro-tile (16 accumulators), Q^T packed once per query block
 * (rows contiguous), keys broadcast from K rows. bq == 1 (decoder step): 16 keys at a time as dot
 * products along d, the 16 accumulators reduced into one vector by a transpose-add tree. */
#include <immintrin.h>
#include "dsp.h"

/* the AVX2 8x8-transpose packing (AVX-512 implies AVX2): as fast here, an AVX-512 16x16 transpose
   gains nothing at 32 rows */
void sk_attn_pack_q_avx512(size_t bq, size_t d, const float *q, size_t ldq, float *qt)
{
    sk_attn_pack_q_avx2(bq, d, q, ldq, qt);
}

static inline __mmask16 tail16(size_t n) { return n >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << n) - 1); }

/* MK keys x NV vectors of 16 rows; m0/m1 mask the row vectors */
static inline __attribute__((always_inline)) void
tile(int MK, int NV, size_t d, __m512 vs, const float *k, size_t ldk, const float *qt, size_t bq,
     __mmask16 m0, __mmask16 m1, float *st)
{
    __m512 acc[8][2];
#pragma GCC unroll 8
    for (int i = 0; i < MK; i++) { acc[i][0] = _mm512_setzero_ps(); acc[i][1] = _mm512_setzero_ps(); }
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

/* 16 vectors -> one vector of their horizontal sums (lane i = sum of a[i]) */
static inline __m512 reduce16(__m512 a[16])
{
    __m512 t[8], u[4], w[2];
    for (int i = 0; i < 8; i++) /* per 128-bit lane: [a0+a2, b0+b2, a1+a3, b1+b3] */
        t[i] = _mm512_add_ps(_mm512_unpacklo_ps(a[2 * i], a[2 * i + 1]),
                             _mm512_unpackhi_ps(a[2 * i], a[2 * i + 1]));
    for (int i = 0; i < 4; i++) { /* per 128-bit lane: the 4 lane sums of keys 4i..4i+3 */
        const __m512d x = _mm512_castps_pd(t[2 * i]), y = _mm512_castps_pd(t[2 * i + 1]);
        u[i] = _mm512_add_ps(_mm512_castpd_ps(_mm512_unpacklo_pd(x, y)),
                             _mm512_castpd_ps(_mm512_unpackhi_pd(x, y)));
    }
    for (int i = 0; i < 2; i++) /* lanes: [u0 L0+L1, u0 L2+L3, u1 L0+L1, u1 L2+L3] */
        w[i] = _mm512_add_ps(_mm512_shuffle_f32x4(u[2 * i], u[2 * i + 1], 0x88),
                             _mm512_shuffle_f32x4(u[2 * i], u[2 * i + 1], 0xdd));
    return _mm512_add_ps(_mm512_shuffle_f32x4(w[0], w[1], 0x88), _mm512_shuffle_f32x4(w[0], w[1], 0xdd));
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
                const __mmask16 m = tail16(d - p);
                const __m512 qv = _mm512_maskz_loadu_ps(m, q + p);
#pragma GCC unroll 16
                for (int i = 0; i < 16; i++)
                    acc[i] = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, kj + i * ldk + p), qv, acc[i]);
            }
        } else {
            for (size_t p = 0; p < d; p += 16) {
                const __mmask16 m = tail16(d - p);
                const __m512 qv = _mm512_maskz_loadu_ps(m, q + p);
                for (size_t i = 0; i < nk; i++)
                    acc[i] = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, kj + i * ldk + p), qv, acc[i]);
            }
        }
        _mm512_mask_storeu_ps(st + j0, tail16(nk), _mm512_mul_ps(reduce16(acc), vs));
    }
}

void sk_attn_score_avx512(const struct sk_dsp *dsp, size_t bk, size_t bq, size_t d, float scale,
                          const float *k, size_t ldk, const float *q, size_t ldq, const float *qt,
                          float *st)
{
    (void)dsp; (void)ldq;
    if (bq == 1) { score_dot(bk, d, scale, k, ldk, q, st); return; }
    const __m512 vs = _mm512_set1_ps(scale);
    for (size_t r0 = 0; r0 < bq; r0 += 32) {
        const size_t nr = bq - r0 < 32 ? bq - r0 : 32;
        const __mmask16 m0 = tail16(nr), m1 = nr > 16 ? tail16(nr - 16) : 0;
        const float *qr = qt + r0;
        float *sr = st + r0;
        size_t j = 0;
        if (nr > 16) {
            for (; j + 8 <= bk; j += 8) tile(8, 2, d, vs, k + j * ldk, ldk, qr, bq, m0, m1, sr + j * bq);
            for (; j < bk; j++) tile(1, 2, d, vs, k + j * ldk, ldk, qr, bq, m0, m1, sr + j * bq);
        } else {
            for (; j + 8 <= bk; j += 8) tile(8, 1, d, vs, k + j * ldk, ldk, qr, bq, m0, m1, sr + j * bq);
            for (; j < bk; j++) tile(1, 1, d, vs, k + j * ldk, ldk, qr, bq, m0, m1, sr + j * bq);
        }
    }
}
