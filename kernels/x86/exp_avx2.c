/* sk_exp, AVX2 + FMA: 16 floats per iteration, the tail through _mm256_maskload_ps /
 * _mm256_maskstore_ps (never past the end). */
#include "exp_avx2.h"
#include "x86/math.h"
#include "common.h"

void sk_exp_avx2(size_t n, const float *x, float *y)
{
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m256 a = _mm256_loadu_ps(x + i), b = _mm256_loadu_ps(x + i + 8);
        const __m256i fast = _mm256_and_si256(sk_exp_fast_lanes_avx2(a), sk_exp_fast_lanes_avx2(b));
        if (SK_LIKELY(_mm256_testc_si256(fast, _mm256_set1_epi32(-1)))) {
            _mm256_storeu_ps(y + i, sk_exp_fast_avx2(a));
            _mm256_storeu_ps(y + i + 8, sk_exp_fast_avx2(b));
            continue;
        }
        if (sk_exp_all_flush_avx2(a, b)) { /* every result below FLT_MIN: 0, no exp */
            _mm256_storeu_ps(y + i, _mm256_setzero_ps());
            _mm256_storeu_ps(y + i + 8, _mm256_setzero_ps());
            continue;
        }
        /* subnormal x read as 0 (exp = 1 either way); only x > 87 and NaN need the slow path */
        const __m256 fa = sk_flush_subnormal_avx2(a), fb = sk_flush_subnormal_avx2(b);
        const __m256 lim = _mm256_set1_ps(SK_EXPF_FAST);
        const __m256 big = _mm256_or_ps(_mm256_cmp_ps(fa, lim, _CMP_NLE_UQ),
                                        _mm256_cmp_ps(fb, lim, _CMP_NLE_UQ));
        if (_mm256_movemask_ps(big)) {
            _mm256_storeu_ps(y + i, sk_exp_slow_avx2(a));
            _mm256_storeu_ps(y + i + 8, sk_exp_slow_avx2(b));
        } else { /* x <= 87, some below -87 (flushed below FLT_MIN), or zeros */
            _mm256_storeu_ps(y + i, sk_exp_fast_low_avx2(fa));
            _mm256_storeu_ps(y + i + 8, sk_exp_fast_low_avx2(fb));
        }
    }
    for (; i < n; i += 8) {
        const __m256i k = sk_tail8_avx2(n - i);
        _mm256_maskstore_ps(y + i, k, sk_exp_rr2_p6_avx2(_mm256_maskload_ps(x + i, k)));
    }
}
