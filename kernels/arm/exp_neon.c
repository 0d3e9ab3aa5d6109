/* sk_exp, NEON: 8 floats per iteration; the tail (< 4) through a small stack copy. */
#include "exp_neon.h"
#include "neon_util.h"
#include "arm/math.h"

void sk_exp_neon(size_t n, const float *x, float *y)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const float32x4_t a = vld1q_f32(x + i), b = vld1q_f32(x + i + 4);
        vst1q_f32(y + i, sk_exp_rr2_p6_neon(a));
        vst1q_f32(y + i + 4, sk_exp_rr2_p6_neon(b));
    }
    for (; i + 4 <= n; i += 4) vst1q_f32(y + i, sk_exp_rr2_p6_neon(vld1q_f32(x + i)));
    if (i < n) sk_store4_neon(y + i, sk_exp_rr2_p6_neon(sk_load4_neon(x + i, n - i)), n - i);
}
