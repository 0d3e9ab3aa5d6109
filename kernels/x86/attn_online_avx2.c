/* Attention online-softmax tile update, AVX2 + FMA (contract in attn.h). bq > 1: 8 query rows per
 * vector, running down the keys of the transposed tile; bq == 1: one contiguous row of keys. */
#include <math.h>
#include <immintrin.h>
#include "x86/attention.h"
#include "x86/math.h"
#include "x86/exp_avx2.h"
#include "x86/avx2_util.h"

/* One query row (a decoder step): the max and exp-sum of the math family, as the scalar tile. */
static void online_row(size_t bk, float *st, float *m, float *l, float *corr)
{
    const float mb = sk_max_avx2(bk, st), mo = *m;
    const float mn = (isnan(mo) || isnan(mb)) ? NAN : (mb > mo ? mb : mo);
    if (mn == -INFINITY) {
        for (size_t j = 0; j < bk; j++) st[j] = 0.f;
        *corr = 1.f;
        return;
    }
    const float c = expf(mo - mn);
    *corr = c;
    *l = *l * c + sk_expsum_avx2(bk, st, mn, st);
    *m = mn;
}

/* 8 rows (one vector) of the transposed tile; FULL: no lane masking (maskload / maskstore are
   slow on some cores, so the common full chunk uses plain loads and stores) */
static inline __attribute__((always_inline)) void
online8(int FULL, size_t bk, size_t bq, float *s, float *m, float *l, float *corr, __m256i t)
{
    const __m256 ninf = _mm256_set1_ps(-INFINITY);
#define LD(p) (FULL ? _mm256_loadu_ps(p) : _mm256_maskload_ps((p), t))
#define ST(p, x) (FULL ? _mm256_storeu_ps((p), (x)) : _mm256_maskstore_ps((p), t, (x)))
    __m256 mx = ninf, nan = _mm256_setzero_ps();
    for (size_t j = 0; j < bk; j++) {
        const __m256 x = LD(s + j * bq);
        nan = _mm256_or_ps(nan, _mm256_cmp_ps(x, x, _CMP_UNORD_Q));
        mx = _mm256_max_ps(mx, x);
    }
    const __m256 mo = LD(m);
    nan = _mm256_or_ps(nan, _mm256_cmp_ps(mo, mo, _CMP_UNORD_Q));
    const __m256 mn = _mm256_blendv_ps(_mm256_max_ps(mo, mx), _mm256_set1_ps(NAN), nan);
    /* rows with nothing attended so far: exponentiate against 0 (-inf -> 0), corr = 1 */
    const __m256 none = _mm256_cmp_ps(mn, ninf, _CMP_EQ_OQ);
    const __m256 me = _mm256_andnot_ps(none, mn);
    const __m256 c =
        _mm256_blendv_ps(sk_expneg_rr2_p5_avx2(_mm256_sub_ps(mo, me)), _mm256_set1_ps(1.f), none);
    __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
    size_t j = 0;
    for (; j + 2 <= bk; j += 2) {
        const __m256 e0 = sk_expneg_rr2_p5_avx2(_mm256_sub_ps(LD(s + j * bq), me));
        const __m256 e1 = sk_expneg_rr2_p5_avx2(_mm256_sub_ps(LD(s + (j + 1) * bq), me));
        ST(s + j * bq, e0);
        ST(s + (j + 1) * bq, e1);
        s0 = _mm256_add_ps(s0, e0);
        s1 = _mm256_add_ps(s1, e1);
    }
    if (j < bk) {
        const __m256 e = sk_expneg_rr2_p5_avx2(_mm256_sub_ps(LD(s + j * bq), me));
        ST(s + j * bq, e);
        s0 = _mm256_add_ps(s0, e);
    }
    ST(l, _mm256_fmadd_ps(LD(l), c, _mm256_add_ps(s0, s1)));
    ST(m, mn);
    ST(corr, c);
#undef LD
#undef ST
}

void sk_attn_online_avx2(const struct sk_math_dsp *math, size_t bk, size_t bq, float *st, float *m,
                         float *l, float *corr)
{
    (void)math;
    if (bq == 1) { online_row(bk, st, m, l, corr); return; }
    size_t r0 = 0;
    const __m256i all = _mm256_set1_epi32(-1);
    for (; r0 + 8 <= bq; r0 += 8) online8(1, bk, bq, st + r0, m + r0, l + r0, corr + r0, all);
    if (r0 < bq) online8(0, bk, bq, st + r0, m + r0, l + r0, corr + r0, sk_tail8_avx2(bq - r0));
}
