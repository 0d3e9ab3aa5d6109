/* sk_exp, AVX-512: 32 floats per iteration, the tail under a __mmask16 (never past the end). */
#include "exp_avx512.h"
#include "x86/math.h"

void sk_exp_avx512(size_t n, const float *x, float *y)
{
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        const __m512 a = _mm512_loadu_ps(x + i), b = _mm512_loadu_ps(x + i + 16);
        _mm512_storeu_ps(y + i, sk_exp_rr2_p6_avx512(a));
        _mm512_storeu_ps(y + i + 16, sk_exp_rr2_p6_avx512(b));
    }
    for (; i < n; i += 16) {
        const __mmask16 k = n - i >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (n - i)) - 1);
        _mm512_mask_storeu_ps(y + i, k, sk_exp_rr2_p6_avx512(_mm512_maskz_loadu_ps(k, x + i)));
    }
}
