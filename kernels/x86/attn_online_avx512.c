/* Attention online-softmax tile update, AVX-512 (contract in attn.h). bq > 1: 16 query rows per
 * vector, running down the keys of the transposed tile; bq == 1: one contiguous row of keys. */
#include <math.h>
#include <immintrin.h>
#include "dsp.h"
#include "x86/attn_exp_avx512.h"

static inline __mmask16 tail16(size_t n) { return n >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << n) - 1); }

static void online_row(size_t bk, float *st, float *m, float *l, float *corr)
{
    __m512 mx = _mm512_set1_ps(-INFINITY);
    __mmask16 nan = 0;
    for (size_t j = 0; j < bk; j += 16) {
        const __mmask16 t = tail16(bk - j);
        const __m512 x = _mm512_mask_loadu_ps(_mm512_set1_ps(-INFINITY), t, st + j);
        nan |= _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q);
        mx = _mm512_max_ps(mx, x);
    }
    float mb = _mm512_reduce_max_ps(mx);
    if (nan) mb = NAN;
    const float mo = *m;
    const float mn = (isnan(mo) || isnan(mb)) ? NAN : (mb > mo ? mb : mo);
    if (mn == -INFINITY) {
        for (size_t j = 0; j < bk; j++) st[j] = 0.f;
        *corr = 1.f;
        return;
    }
    const __m512 vm = _mm512_set1_ps(mn);
    __m512 s0 = _mm512_setzero_ps(), s1 = _mm512_setzero_ps();
    size_t j = 0;
    for (; j + 32 <= bk; j += 32) {
        const __m512 e0 = sk_attn_exp_neg_avx512(_mm512_sub_ps(_mm512_loadu_ps(st + j), vm));
        const __m512 e1 = sk_attn_exp_neg_avx512(_mm512_sub_ps(_mm512_loadu_ps(st + j + 16), vm));
        _mm512_storeu_ps(st + j, e0);
        _mm512_storeu_ps(st + j + 16, e1);
        s0 = _mm512_add_ps(s0, e0);
        s1 = _mm512_add_ps(s1, e1);
    }
    for (; j < bk; j += 16) {
        const __mmask16 t = tail16(bk - j);
        const __m512 e = sk_attn_exp_neg_avx512(_mm512_sub_ps(_mm512_maskz_loadu_ps(t, st + j), vm));
        _mm512_mask_storeu_ps(st + j, t, e);
        s0 = _mm512_add_ps(s0, _mm512_maskz_mov_ps(t, e));
    }
    const float c = expf(mo - mn);
    *corr = c;
    *l = *l * c + _mm512_reduce_add_ps(_mm512_add_ps(s0, s1));
    *m = mn;
}

void sk_attn_online_avx512(const struct sk_dsp *dsp, size_t bk, size_t bq, float *st, float *m, float *l,
                           float *corr)
{
    (void)dsp;
    if (bq == 1) { online_row(bk, st, m, l, corr); return; }
    const __m512 ninf = _mm512_set1_ps(-INFINITY);
    for (size_t r0 = 0; r0 < bq; r0 += 16) {
        const __mmask16 t = tail16(bq - r0);
        float *s = st + r0;
        __m512 mx = ninf;
        __mmask16 nan = 0;
        for (size_t j = 0; j < bk; j++) {
            const __m512 x = _mm512_maskz_loadu_ps(t, s + j * bq);
            nan |= _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q);
            mx = _mm512_max_ps(mx, x);
        }
        const __m512 mo = _mm512_maskz_loadu_ps(t, m + r0);
        nan |= _mm512_cmp_ps_mask(mo, mo, _CMP_UNORD_Q);
        __m512 mn = _mm512_max_ps(mo, mx);
        mn = _mm512_mask_mov_ps(mn, nan, _mm512_set1_ps(NAN));
        /* rows with nothing attended so far: exponentiate against 0 (-inf -> 0), corr = 1 */
        const __mmask16 none = _mm512_cmp_ps_mask(mn, ninf, _CMP_EQ_OQ);
        const __m512 me = _mm512_mask_mov_ps(mn, none, _mm512_setzero_ps());
        __m512 c = sk_attn_exp_neg_avx512(_mm512_sub_ps(mo, me));
        c = _mm512_mask_mov_ps(c, none, _mm512_set1_ps(1.f));
        __m512 sum = _mm512_setzero_ps();
        for (size_t j = 0; j < bk; j++) {
            const __m512 e = sk_attn_exp_neg_avx512(_mm512_sub_ps(_mm512_maskz_loadu_ps(t, s + j * bq), me));
            _mm512_mask_storeu_ps(s + j * bq, t, e);
            sum = _mm512_add_ps(sum, e);
        }
        const __m512 lo = _mm512_maskz_loadu_ps(t, l + r0);
        _mm512_mask_storeu_ps(l + r0, t, _mm512_fmadd_ps(lo, c, sum));
        _mm512_mask_storeu_ps(m + r0, t, mn);
        _mm512_mask_storeu_ps(corr + r0, t, c);
    }
}
