/* sk_exp, AVX2 + FMA: 16 floats per iteration, the tail through _mm256_maskload_ps /
 * _mm256_maskstore_ps (never past the end), through the same body.
 *
 * The loop runs with MXCSR's flush-to-zero and denormals-are-zero bits set; the caller's control
 * bits are restored before return (the sticky exception flags raised meanwhile are kept):
 * subnormal inputs read as 0 (exp = 1 either way) and results below FLT_MIN come out as 0 from
 * the multiply that forms them, with no microcode assist, so one branch-free body serves normal,
 * flushed and mixed vectors at the same speed. Only vectors holding some x > 87 (+inf included)
 * take the slow path. Normal results are the same bits as without the flags. */
#include "exp_avx2.h"
#include "x86/math.h"
#include "common.h"

#define SK_MXCSR_FTZ_DAZ 0x8040u
#define SK_MXCSR_FLAGS   0x003fu

/* exp(x) for x <= 87 or NaN under FTZ + DAZ: -inf and x below NEGLO clamp to NEGLO, where 2^n
   built in the bits is 0.0; results between 0 and FLT_MIN flush in the final multiply. */
static inline __m256 exp_le87_ftz(__m256 x)
{
    return sk_exp_fast_avx2(_mm256_max_ps(_mm256_set1_ps(SK_EXPF_NEGLO), x)); /* NaN: x */
}

void sk_exp_avx2(size_t n, const float *x, float *y)
{
    const unsigned csr = _mm_getcsr();
    _mm_setcsr(csr | SK_MXCSR_FTZ_DAZ);
    const __m256 lim = _mm256_set1_ps(SK_EXPF_FAST);
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m256 a = _mm256_loadu_ps(x + i), b = _mm256_loadu_ps(x + i + 8);
        const __m256 big = _mm256_or_ps(_mm256_cmp_ps(a, lim, _CMP_GT_OQ),
                                        _mm256_cmp_ps(b, lim, _CMP_GT_OQ));
        if (SK_LIKELY(_mm256_testz_ps(big, big))) {
            _mm256_storeu_ps(y + i, exp_le87_ftz(a));
            _mm256_storeu_ps(y + i + 8, exp_le87_ftz(b));
        } else {
            _mm256_storeu_ps(y + i, sk_exp_slow_avx2(a));
            _mm256_storeu_ps(y + i + 8, sk_exp_slow_avx2(b));
        }
    }
    for (; i < n; i += 8) {
        const __m256i k = sk_tail8_avx2(n - i);
        const __m256 a = _mm256_maskload_ps(x + i, k); /* lanes past the end: 0 */
        const __m256 big = _mm256_cmp_ps(a, lim, _CMP_GT_OQ);
        _mm256_maskstore_ps(y + i, k,
                            _mm256_testz_ps(big, big) ? exp_le87_ftz(a) : sk_exp_slow_avx2(a));
    }
    _mm_setcsr(csr | (_mm_getcsr() & SK_MXCSR_FLAGS)); /* the exception flags raised stay */
}
