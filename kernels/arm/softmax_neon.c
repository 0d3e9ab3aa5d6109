/* Softmax family, NEON. Same three sweeps per row as kernels/x86/softmax_avx512.c (max of scale*x
 * (+ mask); e = exp(scale*x - max) written to y and summed; y *= 1/sum), scale and mask fused;
 * rows in blocks through the row-block driver of every ISA (softmax_rows.h: row fusion, key
 * padding trimmed); tails (< 4 columns) through small stack copies, never past the row end. FMAX
 * propagates NaN: a NaN in an attended lane reaches the max, and the row goes to the reference. */
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

/* Sweep 1: max of scale*x (+ add) over the attended columns of a row (-inf if none; FMAX: NaN if
   an attended lane is NaN). */
AI float rmax4(size_t n, float scale, const float *x, int kind, const void *mrow)
{
    const float32x4_t vs = vdupq_n_f32(scale), ninf = vdupq_n_f32(-INFINITY);
    float32x4_t add = vdupq_n_f32(0.f), m0 = ninf;
    for (size_t c = 0; c < n; c += 4) {
        const size_t rem = n - c;
        const uint32x4_t k = att4(kind, mrow, c, rem, &add);
        const float32x4_t v = scaled(kind, vs, sk_load4_neon(x + c, rem), add);
        m0 = vmaxq_f32(m0, vbslq_f32(k, v, ninf));
    }
    return vmaxvq_f32(m0);
}

/* Sweep 3: y *= inv. */
AI void rscale4(size_t n, float inv, float *y)
{
    const float32x4_t vi = vdupq_n_f32(inv);
    for (size_t c = 0; c < n; c += 4)
        sk_store4_neon(y + c, vmulq_f32(sk_load4_neon(y + c, n - c), vi), n - c);
}

/* Sweep 2: y = exp(scale*x (+ add) - m) on attended columns, 0 elsewhere; returns the sum (float
   lanes flushed into a double every 1024 columns). Fused with sweep 3 of the previous row
   (yp[0..np) *= invp; yp NULL: none); pf: the row to prefetch. */
AI double rexp4(size_t n, float scale, const float *x, int kind, const void *mrow, float m,
                float *y, const float *pf, float *yp, size_t np, float invp)
{
    const float32x4_t vs = vdupq_n_f32(scale), negm = vdupq_n_f32(-m), vi = vdupq_n_f32(invp);
    float32x4_t add = vdupq_n_f32(0.f);
    size_t done = 0; /* columns of yp already normalised */
    double sum = 0.0;
    for (size_t c = 0; c < n;) {
        const size_t end = n - c > 1024 ? c + 1024 : n;
        float32x4_t s0 = vdupq_n_f32(0.f);
        for (; c < end; c += 4) {
            const size_t rem = end - c;
            if (pf && (c & 15) == 0) __builtin_prefetch(pf + c);
            if (yp && c + 4 <= np) {
                vst1q_f32(yp + c, vmulq_f32(vld1q_f32(yp + c), vi));
                done = c + 4;
            }
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
    if (yp) rscale4(np - done, invp, yp + done);
    return sum;
}

/* Columns [len, cols) of a finished row: 0 (causal / key-padding tail). */
AI void tail4fill(size_t cols, size_t len, float *yr)
{
    for (size_t c = len; c < cols; c += 4) sk_store4_neon(yr + c, vdupq_n_f32(0.f), cols - c);
}

/* The block driver (softmax_rows.h) on this file's row kernels. */
#define SK_ROWS rows4
#define SK_RMAX rmax4
#define SK_REXP rexp4
#define SK_RSCALE rscale4
#define SK_TAILFILL tail4fill
#include "softmax_rows.h"

#define SK_ENTRY_SMX sk_scale_mask_softmax_neon
#define SK_ENTRY_SOFTMAX sk_softmax_neon
#define SK_ENTRY_ROWS rows4
#include "softmax_entry.h"

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
            if (rem < 4)
                e = vreinterpretq_f32_u32(vandq_u32(sk_tail4_neon(rem), vreinterpretq_u32_f32(e)));
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

AI void neginf4(size_t c0, size_t n, float *y)
{
    for (size_t c = c0; c < n; c++) y[c] = -INFINITY;
}

#define SK_ENTRY_SMM sk_scale_mask_max_neon
#define SK_ENTRY_SMMROW smm4
#define SK_ENTRY_NEGFILL neginf4
#include "softmax_entry.h"
