/* Attention decoder-step P·V over all heads, AVX2 + FMA (contract in attn.h):
 * o[h d + x] = corr[h] * o[h d + x] + sum_j st[j * ldst + h] * v_j[h d + x].
 * Each value row is read whole: the output of every head (nh d floats, in L1) is loaded, updated
 * with one FMA per 8 floats and stored back, row after row; d in steps of 8, the tail masked. */
#include <immintrin.h>
#include "x86/attention.h"
#include "x86/avx2_util.h"

static inline __attribute__((always_inline)) void rows(size_t bk, size_t nh, size_t d,
                                                       const float *st, size_t ldst, const float *v,
                                                       size_t ldv, const float *corr, float *o)
{
    const size_t dv = d - d % 8;
    const __m256i dt = sk_tail8_avx2(d % 8);
    for (size_t h = 0; h < nh; h++) {
        const __m256 c = _mm256_set1_ps(corr[h]);
        float *oh = o + h * d;
        for (size_t x = 0; x < dv; x += 8)
            _mm256_storeu_ps(oh + x, _mm256_mul_ps(c, _mm256_loadu_ps(oh + x)));
        if (d % 8)
            _mm256_maskstore_ps(oh + dv, dt, _mm256_mul_ps(c, _mm256_maskload_ps(oh + dv, dt)));
    }
    for (size_t j = 0; j < bk; j++) {
        const float *vr = v + j * ldv;
        if (j + SK_DEC_PF_ROWS < bk) SK_DEC_PREFETCH_ROW(vr + SK_DEC_PF_ROWS * ldv);
        for (size_t h = 0; h < nh; h++) {
            const __m256 p = _mm256_set1_ps(st[j * ldst + h]);
            const float *vh = vr + h * d;
            float *oh = o + h * d;
            for (size_t x = 0; x < dv; x += 8)
                _mm256_storeu_ps(
                    oh + x, _mm256_fmadd_ps(p, _mm256_loadu_ps(vh + x), _mm256_loadu_ps(oh + x)));
            if (d % 8)
                _mm256_maskstore_ps(oh + dv, dt,
                                    _mm256_fmadd_ps(p, _mm256_maskload_ps(vh + dv, dt),
                                                    _mm256_maskload_ps(oh + dv, dt)));
        }
    }
}

void sk_attn_dec_pv_avx2(size_t bk, size_t nh, size_t d, const float *st, size_t ldst,
                         const float *v, size_t ldv, const float *corr, float *o)
{
    if (d == 64)
        rows(bk, nh, 64, st, ldst, v, ldv, corr, o);
    else
        rows(bk, nh, d, st, ldst, v, ldv, corr, o);
}
