/* Softmax family, NEON. Same three sweeps per row as kernels/x86/softmax_avx512.c (max of scale*x
 * (+ mask); e = exp(scale*x - max) written to y and summed; y *= 1/sum), scale and mask fused;
 * tails (< 4 columns) through small stack copies, never past the row end. FMAX propagates NaN, so
 * a NaN in an attended lane reaches the max and the whole row comes out NaN. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "exp_neon.h"
#include "neon_util.h"
#include "arm/math.h"

#define AI static inline __attribute__((always_inline))

AI uint32x4_t att4(int kind, const void *mrow, size_t c, size_t rem, float32x4_t *add)
{
    const uint32x4_t t = sk_tail4_neon(rem);
    if (kind == SK_MASK_KEYS || kind == SK_MASK_BOOL) {
        uint32_t u = 0;
        memcpy(&u, (const uint8_t *)mrow + c, rem >= 4 ? 4 : rem);
        const uint16x8_t h = vmovl_u8(vcreate_u8((uint64_t)u));
        const uint32x4_t w = vmovl_u16(vget_low_u16(h));
        return vandq_u32(vtstq_u32(w, w), t);
    }
    if (kind == SK_MASK_ADD) {
        *add = sk_load4_neon((const float *)mrow + c, rem);
        return vandq_u32(vmvnq_u32(vceqq_f32(*add, vdupq_n_f32(-INFINITY))), t);
    }
    return t;
}

AI float32x4_t scaled(int kind, float32x4_t vs, float32x4_t xv, float32x4_t add)
{
    return kind == SK_MASK_ADD ? vfmaq_f32(add, vs, xv) : vmulq_f32(vs, xv);
}

/* One row of n columns; 0 (y not normalised) when the row needs the reference row instead: a max
   that is not finite (NaN, +inf, overflowing scores, nothing attended) or a NaN sum. */
AI int row4(size_t n, float scale, const float *x, int kind, const void *mrow, float *y)
{
    const float32x4_t vs = vdupq_n_f32(scale), ninf = vdupq_n_f32(-INFINITY);
    float32x4_t add = vdupq_n_f32(0.f), m0 = ninf;
    for (size_t c = 0; c < n; c += 4) {
        const size_t rem = n - c;
        const uint32x4_t k = att4(kind, mrow, c, rem, &add);
        const float32x4_t v = scaled(kind, vs, sk_load4_neon(x + c, rem), add);
        m0 = vmaxq_f32(m0, vbslq_f32(k, v, ninf));
    }
    const float m = vmaxvq_f32(m0); /* NaN if any attended lane is NaN */
    if (!isfinite(m)) return 0;
    const float32x4_t negm = vdupq_n_f32(-m);
    double sum = 0.0;
    for (size_t c = 0; c < n;) {
        const size_t end = n - c > 1024 ? c + 1024 : n;
        float32x4_t s0 = vdupq_n_f32(0.f);
        for (; c < end; c += 4) {
            const size_t rem = end - c;
            const uint32x4_t k = att4(kind, mrow, c, rem, &add);
            const float32x4_t xv = sk_load4_neon(x + c, rem);
            /* the score rounded as in the max sweep: d <= 0 exactly (an FMA of scale x - m
               could leave d > 0 by half an ulp of a huge finite score) */
            const float32x4_t d = vaddq_f32(scaled(kind, vs, xv, add), negm);
            const float32x4_t e = vreinterpretq_f32_u32(
                vandq_u32(k, vreinterpretq_u32_f32(sk_expneg_rr2_p6_neon(d))));
            sk_store4_neon(y + c, e, rem);
            s0 = vaddq_f32(s0, e);
        }
        sum += (double)vaddvq_f32(s0);
    }
    if (sum != sum) return 0;
    const float32x4_t inv = vdupq_n_f32((float)(1.0 / sum));
    for (size_t c = 0; c < n; c += 4)
        sk_store4_neon(y + c, vmulq_f32(sk_load4_neon(y + c, n - c), inv), n - c);
    return 1;
}

#define ROWS(KIND)                                                                                 \
    for (size_t r = 0; r < rows; r++) {                                                            \
        const void *mrow = KIND == SK_MASK_NONE ? NULL : sk_mask_row(mask, r);                  \
        if (!row4(cols, scale, x + r * ldx, KIND, mrow, y + r * ldy))                              \
            sk_softmax_row_scalar(cols, scale, x + r * ldx, mask, r, y + r * ldy);                 \
    }

void sk_scale_mask_softmax_neon(size_t rows, size_t cols, float scale, const float *x, size_t ldx,
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
            if (na && !row4(na, scale, x + r * ldx, SK_MASK_NONE, NULL, yr)) {
                sk_softmax_row_scalar(cols, scale, x + r * ldx, mask, r, yr);
                continue;
            }
            for (size_t c = na; c < cols; c++) yr[c] = 0.f;
        }
        break;
    default: ROWS(SK_MASK_NONE); break;
    }
}

void sk_softmax_neon(size_t rows, size_t cols, const float *x, size_t ldx, float *y, size_t ldy)
{
    for (size_t r = 0; r < rows; r++)
        if (!row4(cols, 1.f, x + r * ldx, SK_MASK_NONE, NULL, y + r * ldy))
            sk_softmax_row_scalar(cols, 1.f, x + r * ldx, NULL, r, y + r * ldy);
}

float sk_max_neon(size_t n, const float *x)
{
    float32x4_t m0 = vdupq_n_f32(-INFINITY), m1 = m0;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        m0 = vmaxq_f32(m0, vld1q_f32(x + i));
        m1 = vmaxq_f32(m1, vld1q_f32(x + i + 4));
    }
    float m = vmaxvq_f32(vmaxq_f32(m0, m1));
    for (; i < n; i++) m = (x[i] != x[i] || m != m) ? NAN : (x[i] > m ? x[i] : m);
    return m;
}

float sk_expsum_neon(size_t n, const float *x, float bias, float *y)
{
    const float32x4_t nb = vdupq_n_f32(-bias);
    double sum = 0.0;
    for (size_t i = 0; i < n;) {
        const size_t end = n - i > 1024 ? i + 1024 : n;
        float32x4_t s0 = vdupq_n_f32(0.f);
        for (; i < end; i += 4) {
            const size_t rem = end - i;
            float32x4_t e = sk_expneg_rr2_p6_neon(vaddq_f32(sk_load4_neon(x + i, rem), nb));
            if (rem < 4) {
                static const uint32_t tail[8] = { ~0u, ~0u, ~0u, ~0u, 0, 0, 0, 0 };
                e = vreinterpretq_f32_u32(
                    vandq_u32(vld1q_u32(tail + 4 - rem), vreinterpretq_u32_f32(e)));
            }
            sk_store4_neon(y + i, e, rem);
            s0 = vaddq_f32(s0, e);
        }
        sum += (double)vaddvq_f32(s0);
    }
    return (float)sum;
}

/* The fused first sweep for online softmax: y = scale*x (+ add) where attended, -inf elsewhere. */
AI float smm4(size_t n, float scale, const float *x, int kind, const void *mrow, float *y)
{
    const float32x4_t vs = vdupq_n_f32(scale), ninf = vdupq_n_f32(-INFINITY);
    float32x4_t add = vdupq_n_f32(0.f), m0 = ninf;
    for (size_t c = 0; c < n; c += 4) {
        const size_t rem = n - c;
        const uint32x4_t k = att4(kind, mrow, c, rem, &add);
        const float32x4_t v = vbslq_f32(k, scaled(kind, vs, sk_load4_neon(x + c, rem), add), ninf);
        m0 = vmaxq_f32(m0, v); /* FMAX propagates NaN */
        sk_store4_neon(y + c, v, rem);
    }
    return vmaxvq_f32(m0);
}

float sk_scale_mask_max_neon(size_t n, float scale, const float *x, const sk_mask *mask, size_t r,
                             float *y)
{
    switch (mask ? mask->kind : SK_MASK_NONE) {
    case SK_MASK_KEYS: return smm4(n, scale, x, SK_MASK_KEYS, mask->data, y);
    case SK_MASK_BOOL: return smm4(n, scale, x, SK_MASK_BOOL, sk_mask_row(mask, r), y);
    case SK_MASK_ADD: return smm4(n, scale, x, SK_MASK_ADD, sk_mask_row(mask, r), y);
    case SK_MASK_CAUSAL: {
        const size_t na = sk_causal_len(r, n, mask->offset);
        const float m = na ? smm4(na, scale, x, SK_MASK_NONE, NULL, y) : -INFINITY;
        for (size_t c = na; c < n; c++) y[c] = -INFINITY;
        return m;
    }
    default: return smm4(n, scale, x, SK_MASK_NONE, NULL, y);
    }
}
