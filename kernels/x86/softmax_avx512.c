/* Softmax family, AVX-512. Per row, three sweeps over the (cache-resident) row:
 *   1. the max of scale*x (+ mask) over attended columns (reads x and the mask),
 *   2. e = exp(scale*x - max) with the softmax exp, masked lanes forced to 0, written to y, summed
 *      (float lanes, flushed into a double every 1024 columns),
 *   3. y *= 1/sum.
 * Scale and mask are fused into sweeps 1 and 2; tails run under a __mmask16, never past the row.
 * A NaN reaching an attended lane makes the sum NaN, so the whole row comes out NaN; masked lanes
 * never enter the max or the sum, so NaN under the mask does not leak. */
#include <math.h>
#include <stdint.h>
#include "exp_avx512.h"
#include "vmath.h"
#include "common.h"

#define AI static inline __attribute__((always_inline))

AI __mmask16 tail16(size_t rem) { return rem >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << rem) - 1); }

/* The attended lanes among k at column c, and (ADD) the additive mask values. */
AI __mmask16 att16(int kind, const void *mrow, size_t c, __mmask16 k, __m512 *add)
{
    if (kind == SK_MASK_KEYS || kind == SK_MASK_BOOL) {
        const __m128i b = _mm_maskz_loadu_epi8(k, (const uint8_t *)mrow + c);
        return _mm_test_epi8_mask(b, b);
    }
    if (kind == SK_MASK_ADD) {
        *add = _mm512_maskz_loadu_ps(k, (const float *)mrow + c);
        return _mm512_mask_cmp_ps_mask(k, *add, _mm512_set1_ps(-INFINITY), _CMP_NEQ_UQ);
    }
    return k;
}

AI float hmax16(__m512 v) { return _mm512_reduce_max_ps(v); }

/* One row of n attended-or-masked columns. */
AI void row16(size_t n, float scale, const float *x, int kind, const void *mrow, float *y)
{
    const __m512 vs = _mm512_set1_ps(scale);
    __m512 add = _mm512_setzero_ps();
    __m512 m0 = _mm512_set1_ps(-INFINITY), m1 = m0;
    size_t c = 0;
    for (; c + 32 <= n; c += 32) {
        __m512 a0 = add, a1 = add;
        const __mmask16 k0 = att16(kind, mrow, c, 0xffff, &a0);
        const __mmask16 k1 = att16(kind, mrow, c + 16, 0xffff, &a1);
        __m512 v0 = _mm512_mul_ps(vs, _mm512_loadu_ps(x + c));
        __m512 v1 = _mm512_mul_ps(vs, _mm512_loadu_ps(x + c + 16));
        if (kind == SK_MASK_ADD) {
            v0 = _mm512_fmadd_ps(vs, _mm512_loadu_ps(x + c), a0);
            v1 = _mm512_fmadd_ps(vs, _mm512_loadu_ps(x + c + 16), a1);
        }
        m0 = _mm512_mask_max_ps(m0, k0, m0, v0);
        m1 = _mm512_mask_max_ps(m1, k1, m1, v1);
    }
    for (; c < n; c += 16) {
        const __mmask16 t = tail16(n - c);
        const __mmask16 k = att16(kind, mrow, c, t, &add);
        const __m512 xv = _mm512_maskz_loadu_ps(t, x + c);
        const __m512 v = kind == SK_MASK_ADD ? _mm512_fmadd_ps(vs, xv, add) : _mm512_mul_ps(vs, xv);
        m0 = _mm512_mask_max_ps(m0, k, m0, v);
    }
    const float m = hmax16(_mm512_max_ps(m0, m1));
    if (m == -INFINITY) {
        /* nothing attended, unless a NaN got lost in the max: rescan for it */
        int nan = 0;
        for (c = 0; c < n; c += 16) {
            const __mmask16 t = tail16(n - c);
            const __mmask16 k = att16(kind, mrow, c, t, &add);
            const __m512 xv = _mm512_maskz_loadu_ps(t, x + c);
            const __m512 v = kind == SK_MASK_ADD ? _mm512_fmadd_ps(vs, xv, add) : _mm512_mul_ps(vs, xv);
            nan |= _mm512_mask_cmp_ps_mask(k, v, v, _CMP_UNORD_Q) != 0;
        }
        const __m512 fillv = _mm512_set1_ps(nan ? NAN : 0.f);
        for (c = 0; c < n; c += 16) _mm512_mask_storeu_ps(y + c, tail16(n - c), fillv);
        return;
    }
    /* sweep 2: e = exp(scale*x - m) */
    const __m512 negm = _mm512_set1_ps(-m);
    double sum = 0.0;
    for (c = 0; c < n;) {
        const size_t end = n - c > 1024 ? c + 1024 : n;
        __m512 s0 = _mm512_setzero_ps(), s1 = s0;
        for (; c + 32 <= end; c += 32) {
            __m512 a0 = add, a1 = add;
            const __mmask16 k0 = att16(kind, mrow, c, 0xffff, &a0);
            const __mmask16 k1 = att16(kind, mrow, c + 16, 0xffff, &a1);
            __m512 d0, d1;
            if (kind == SK_MASK_ADD) {
                d0 = _mm512_add_ps(_mm512_fmadd_ps(vs, _mm512_loadu_ps(x + c), a0), negm);
                d1 = _mm512_add_ps(_mm512_fmadd_ps(vs, _mm512_loadu_ps(x + c + 16), a1), negm);
            } else {
                d0 = _mm512_fmadd_ps(vs, _mm512_loadu_ps(x + c), negm);
                d1 = _mm512_fmadd_ps(vs, _mm512_loadu_ps(x + c + 16), negm);
            }
            const __m512 e0 = _mm512_maskz_mov_ps(k0, sk_exp_neg_ps_avx512(d0));
            const __m512 e1 = _mm512_maskz_mov_ps(k1, sk_exp_neg_ps_avx512(d1));
            _mm512_storeu_ps(y + c, e0);
            _mm512_storeu_ps(y + c + 16, e1);
            s0 = _mm512_add_ps(s0, e0);
            s1 = _mm512_add_ps(s1, e1);
        }
        for (; c < end; c += 16) {
            const __mmask16 t = tail16(end - c);
            const __mmask16 k = att16(kind, mrow, c, t, &add);
            const __m512 xv = _mm512_maskz_loadu_ps(t, x + c);
            const __m512 d = kind == SK_MASK_ADD ? _mm512_add_ps(_mm512_fmadd_ps(vs, xv, add), negm)
                                                 : _mm512_fmadd_ps(vs, xv, negm);
            const __m512 e = _mm512_maskz_mov_ps(k, sk_exp_neg_ps_avx512(d));
            _mm512_mask_storeu_ps(y + c, t, e);
            s0 = _mm512_add_ps(s0, e);
        }
        sum += (double)_mm512_reduce_add_ps(_mm512_add_ps(s0, s1));
    }
    /* sweep 3: normalise (a NaN sum turns the whole row NaN) */
    const __m512 inv = _mm512_set1_ps((float)(1.0 / sum));
    for (c = 0; c + 16 <= n; c += 16) _mm512_storeu_ps(y + c, _mm512_mul_ps(_mm512_loadu_ps(y + c), inv));
    if (c < n) {
        const __mmask16 t = tail16(n - c);
        _mm512_mask_storeu_ps(y + c, t, _mm512_mul_ps(_mm512_maskz_loadu_ps(t, y + c), inv));
    }
}

static void zero16(size_t n, float *y)
{
    for (size_t c = 0; c < n; c += 16) _mm512_mask_storeu_ps(y + c, tail16(n - c), _mm512_setzero_ps());
}

#define ROWS(KIND)                                                                                 \
    for (size_t r = 0; r < rows; r++) {                                                            \
        const void *mrow = KIND == SK_MASK_KEYS ? mask->data                                       \
                         : KIND == SK_MASK_BOOL ? (const void *)((const uint8_t *)mask->data + r * mask->ld) \
                         : KIND == SK_MASK_ADD  ? (const void *)((const float *)mask->data + r * mask->ld)   \
                         : NULL;                                                                   \
        row16(cols, scale, x + r * ldx, KIND, mrow, y + r * ldy);                                  \
    }

void sk_scale_mask_softmax_avx512(size_t rows, size_t cols, float scale, const float *x, size_t ldx,
                                  const sk_mask *mask, float *y, size_t ldy)
{
    switch (mask ? mask->kind : SK_MASK_NONE) {
    case SK_MASK_KEYS: ROWS(SK_MASK_KEYS); break;
    case SK_MASK_BOOL: ROWS(SK_MASK_BOOL); break;
    case SK_MASK_ADD: ROWS(SK_MASK_ADD); break;
    case SK_MASK_CAUSAL:
        for (size_t r = 0; r < rows; r++) {
            const size_t na = sk_causal_len(r, cols, mask->offset);
            float *yr = y + r * ldy;
            if (na) row16(na, scale, x + r * ldx, SK_MASK_NONE, NULL, yr);
            if (na && yr[0] != yr[0]) /* NaN row: NaN everywhere */
                for (size_t c = na; c < cols; c++) yr[c] = NAN;
            else
                zero16(cols - na, yr + na);
        }
        break;
    default: ROWS(SK_MASK_NONE); break;
    }
}

void sk_softmax_avx512(size_t rows, size_t cols, const float *x, size_t ldx, float *y, size_t ldy)
{
    for (size_t r = 0; r < rows; r++) row16(cols, 1.f, x + r * ldx, SK_MASK_NONE, NULL, y + r * ldy);
}

float sk_max_avx512(size_t n, const float *x)
{
    __m512 m0 = _mm512_set1_ps(-INFINITY), m1 = m0;
    __mmask16 nan = 0;
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        const __m512 a = _mm512_loadu_ps(x + i), b = _mm512_loadu_ps(x + i + 16);
        nan |= _mm512_cmp_ps_mask(a, b, _CMP_UNORD_Q);
        m0 = _mm512_max_ps(m0, a);
        m1 = _mm512_max_ps(m1, b);
    }
    for (; i < n; i += 16) {
        const __mmask16 t = tail16(n - i);
        const __m512 a = _mm512_maskz_loadu_ps(t, x + i);
        nan |= _mm512_mask_cmp_ps_mask(t, a, a, _CMP_UNORD_Q);
        m0 = _mm512_mask_max_ps(m0, t, m0, a);
    }
    return nan ? NAN : hmax16(_mm512_max_ps(m0, m1));
}

float sk_expsum_avx512(size_t n, const float *x, float bias, float *y)
{
    const __m512 nb = _mm512_set1_ps(-bias);
    double sum = 0.0;
    for (size_t i = 0; i < n;) {
        const size_t end = n - i > 1024 ? i + 1024 : n;
        __m512 s0 = _mm512_setzero_ps(), s1 = s0;
        for (; i + 32 <= end; i += 32) {
            const __m512 e0 = sk_exp_neg_ps_avx512(_mm512_add_ps(_mm512_loadu_ps(x + i), nb));
            const __m512 e1 = sk_exp_neg_ps_avx512(_mm512_add_ps(_mm512_loadu_ps(x + i + 16), nb));
            _mm512_storeu_ps(y + i, e0);
            _mm512_storeu_ps(y + i + 16, e1);
            s0 = _mm512_add_ps(s0, e0);
            s1 = _mm512_add_ps(s1, e1);
        }
        for (; i < end; i += 16) {
            const __mmask16 t = tail16(end - i);
            const __m512 e = _mm512_maskz_mov_ps(t, sk_exp_neg_ps_avx512(_mm512_add_ps(_mm512_maskz_loadu_ps(t, x + i), nb)));
            _mm512_mask_storeu_ps(y + i, t, e);
            s0 = _mm512_add_ps(s0, e);
        }
        sum += (double)_mm512_reduce_add_ps(_mm512_add_ps(s0, s1));
    }
    return (float)sum;
}
