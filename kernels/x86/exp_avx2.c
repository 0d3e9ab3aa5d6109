/* sk_exp, AVX2 + FMA: 16 floats per iteration, the tail through _mm256_maskload_ps /
 * _mm256_maskstore_ps (never past the end). */
#include "exp_avx2.h"
#include "vmath.h"
#include "common.h"

static const int32_t tail_tbl[16] = { -1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0 };

void sk_exp_avx2(size_t n, const float *x, float *y)
{
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m256 a = _mm256_loadu_ps(x + i), b = _mm256_loadu_ps(x + i + 8);
        const __m256 sgn = _mm256_set1_ps(-0.f), lim = _mm256_set1_ps(SK_EXPF2_FAST);
        const __m256 bad = _mm256_or_ps(_mm256_cmp_ps(_mm256_andnot_ps(sgn, a), lim, _CMP_NLE_UQ),
                                        _mm256_cmp_ps(_mm256_andnot_ps(sgn, b), lim, _CMP_NLE_UQ));
        if (SK_UNLIKELY(_mm256_movemask_ps(bad))) { /* |x| > 87 or NaN somewhere: exact slow path */
            _mm256_storeu_ps(y + i, sk_exp_ps_avx2(a));
            _mm256_storeu_ps(y + i + 8, sk_exp_ps_avx2(b));
        } else {
            _mm256_storeu_ps(y + i, sk_exp_fast_avx2(a));
            _mm256_storeu_ps(y + i + 8, sk_exp_fast_avx2(b));
        }
    }
    for (; i < n; i += 8) {
        const size_t rem = n - i >= 8 ? 8 : n - i;
        const __m256i k = _mm256_loadu_si256((const __m256i *)(tail_tbl + 8 - rem));
        _mm256_maskstore_ps(y + i, k, sk_exp_ps_avx2(_mm256_maskload_ps(x + i, k)));
    }
}
