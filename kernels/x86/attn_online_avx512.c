/* Attention online-softmax tile update, AVX-512 (contract in attn.h). bq > 1: 16 query rows per
 * vector, running down the keys of the transposed tile; bq == 1: one contiguous row of keys. */
#include <math.h>
#include <immintrin.h>
#include "x86/attention.h"
#include "x86/math.h"
#include "x86/exp_avx512.h"
#include "x86/avx512_util.h"

/* One query row (a decoder step): the max and exp-sum of the math family, as the scalar tile. */
static void online_row(size_t bk, float *st, float *m, float *l, float *corr)
{
    const float mb = sk_max_avx512(bk, st), mo = *m;
    const float mn = (isnan(mo) || isnan(mb)) ? NAN : (mb > mo ? mb : mo);
    if (mn == -INFINITY) {
        for (size_t j = 0; j < bk; j++) st[j] = 0.f;
        *corr = 1.f;
        return;
    }
    const float c = expf(mo - mn);
    *corr = c;
    *l = *l * c + sk_expsum_avx512(bk, st, mn, st);
    *m = mn;
}

/* NV vectors of 16 rows (masks t[]) side by side, with even / odd keys in separate max and sum
   chains: the passes are latency-bound otherwise */
static inline __attribute__((always_inline)) void online_rows(int NV, size_t bk, size_t bq,
                                                              float *s, float *m, float *l,
                                                              float *corr, const __mmask16 *t)
{
    const __m512 ninf = _mm512_set1_ps(-INFINITY);
    __m512 mx[2][2], sm[2][2], me[2];
    __mmask16 nan[2] = { 0, 0 };
    for (int v = 0; v < NV; v++) mx[v][0] = mx[v][1] = ninf;
    size_t j = 0;
    for (; j + 2 <= bk; j += 2)
        for (int v = 0; v < NV; v++)
            for (int u = 0; u < 2; u++) {
                const __m512 x = _mm512_maskz_loadu_ps(t[v], s + (j + u) * bq + 16 * v);
                nan[v] |= _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q);
                mx[v][u] = _mm512_max_ps(mx[v][u], x);
            }
    if (j < bk)
        for (int v = 0; v < NV; v++) {
            const __m512 x = _mm512_maskz_loadu_ps(t[v], s + j * bq + 16 * v);
            nan[v] |= _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q);
            mx[v][0] = _mm512_max_ps(mx[v][0], x);
        }
    for (int v = 0; v < NV; v++) {
        const __m512 mo = _mm512_maskz_loadu_ps(t[v], m + 16 * v);
        nan[v] |= _mm512_cmp_ps_mask(mo, mo, _CMP_UNORD_Q);
        __m512 mn = _mm512_max_ps(mo, _mm512_max_ps(mx[v][0], mx[v][1]));
        mn = _mm512_mask_mov_ps(mn, nan[v], _mm512_set1_ps(NAN));
        /* rows with nothing attended so far: exponentiate against 0 (-inf -> 0), corr = 1 */
        const __mmask16 none = _mm512_cmp_ps_mask(mn, ninf, _CMP_EQ_OQ);
        me[v] = _mm512_mask_mov_ps(mn, none, _mm512_setzero_ps());
        __m512 c = sk_expneg_rr2_p5_avx512(_mm512_sub_ps(mo, me[v]));
        c = _mm512_mask_mov_ps(c, none, _mm512_set1_ps(1.f));
        _mm512_mask_storeu_ps(m + 16 * v, t[v], mn);
        _mm512_mask_storeu_ps(corr + 16 * v, t[v], c);
        sm[v][0] = sm[v][1] = _mm512_setzero_ps();
    }
    for (j = 0; j + 2 <= bk; j += 2)
        for (int v = 0; v < NV; v++)
            for (int u = 0; u < 2; u++) {
                float *p = s + (j + u) * bq + 16 * v;
                const __m512 e =
                    sk_expneg_rr2_p5_avx512(_mm512_sub_ps(_mm512_maskz_loadu_ps(t[v], p), me[v]));
                _mm512_mask_storeu_ps(p, t[v], e);
                sm[v][u] = _mm512_add_ps(sm[v][u], e);
            }
    if (j < bk)
        for (int v = 0; v < NV; v++) {
            float *p = s + j * bq + 16 * v;
            const __m512 e =
                sk_expneg_rr2_p5_avx512(_mm512_sub_ps(_mm512_maskz_loadu_ps(t[v], p), me[v]));
            _mm512_mask_storeu_ps(p, t[v], e);
            sm[v][0] = _mm512_add_ps(sm[v][0], e);
        }
    for (int v = 0; v < NV; v++) {
        const __m512 lo = _mm512_maskz_loadu_ps(t[v], l + 16 * v);
        const __m512 c = _mm512_maskz_loadu_ps(t[v], corr + 16 * v);
        _mm512_mask_storeu_ps(l + 16 * v, t[v],
                              _mm512_fmadd_ps(lo, c, _mm512_add_ps(sm[v][0], sm[v][1])));
    }
}

void sk_attn_online_avx512(const struct sk_math_dsp *math, size_t bk, size_t bq, float *st,
                           float *m, float *l, float *corr)
{
    (void)math;
    if (bq == 1) { online_row(bk, st, m, l, corr); return; }
    for (size_t r0 = 0; r0 < bq; r0 += 32) {
        const size_t nr = bq - r0 < 32 ? bq - r0 : 32;
        const __mmask16 t[2] = { sk_tail16_avx512(nr), nr > 16 ? sk_tail16_avx512(nr - 16) : 0 };
        if (nr > 16) online_rows(2, bk, bq, st + r0, m + r0, l + r0, corr + r0, t);
        else online_rows(1, bk, bq, st + r0, m + r0, l + r0, corr + r0, t);
    }
}
