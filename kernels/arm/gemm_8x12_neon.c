/* NEON GEMM kernels: the 8x12 register tile (24 q accumulators, three B vectors, two A vectors
 * used by lane) in 1..8-row variants, and the m == 1 matrix-vector kernels. */
#include <arm_neon.h>

#include "gemm.h"

#define MR 8
#define NR 12

/* r x 12 tile: A(i,p) = a[p*csa + i] (a[0..7] readable: a packed panel), B(p, 0..11) = b[p*rsb]. */
static inline __attribute__((always_inline)) void
ukr_body(const int R, size_t k, const float *a, size_t csa, const float *b, size_t rsb, float *c,
         size_t ldc, float alpha, float beta)
{
    float32x4_t c0[MR], c1[MR], c2[MR];
    for (int i = 0; i < MR; i++) c0[i] = c1[i] = c2[i] = vdupq_n_f32(0.f);
    for (size_t p = 0; p < k; p++) {
        const float32x4_t b0 = vld1q_f32(b), b1 = vld1q_f32(b + 4), b2 = vld1q_f32(b + 8);
        const float32x4_t a0 = vld1q_f32(a);
        const float32x4_t a1 = R > 4 ? vld1q_f32(a + 4) : a0;
#define ROW(i, av, l)                                                                              \
    if (R > i) {                                                                                   \
        c0[i] = vfmaq_laneq_f32(c0[i], b0, av, l);                                                 \
        c1[i] = vfmaq_laneq_f32(c1[i], b1, av, l);                                                 \
        c2[i] = vfmaq_laneq_f32(c2[i], b2, av, l);                                                 \
    }
        ROW(0, a0, 0) ROW(1, a0, 1) ROW(2, a0, 2) ROW(3, a0, 3)
        ROW(4, a1, 0) ROW(5, a1, 1) ROW(6, a1, 2) ROW(7, a1, 3)
#undef ROW
        a += csa;
        b += rsb;
    }
    const float32x4_t va = vdupq_n_f32(alpha), vb = vdupq_n_f32(beta);
    for (int i = 0; i < R; i++) {
        float *ci = c + i * ldc;
        float32x4_t r0 = vmulq_f32(va, c0[i]), r1 = vmulq_f32(va, c1[i]), r2 = vmulq_f32(va, c2[i]);
        if (beta != 0.f) {
            r0 = vfmaq_f32(r0, vb, vld1q_f32(ci));
            r1 = vfmaq_f32(r1, vb, vld1q_f32(ci + 4));
            r2 = vfmaq_f32(r2, vb, vld1q_f32(ci + 8));
        }
        vst1q_f32(ci, r0);
        vst1q_f32(ci + 4, r1);
        vst1q_f32(ci + 8, r2);
    }
}

#define UKR(R)                                                                                     \
    static void ukr_##R##x12(size_t k, const float *a, size_t csa, const float *b, size_t rsb,   \
                             float *c, size_t ldc, float alpha, float beta)                       \
    {                                                                                              \
        ukr_body(R, k, a, csa, b, rsb, c, ldc, alpha, beta);                                      \
    }
UKR(1) UKR(2) UKR(3) UKR(4) UKR(5) UKR(6) UKR(7) UKR(8)

static inline float finish1(float s, float alpha, float beta, const float *c)
{
    return beta == 0.f ? alpha * s : alpha * s + beta * *c;
}

/* c[j] = alpha sum_p a[p] b[p*ldb + j] + beta c[j]: 32 columns at a time, then 4, then 1. */
static void gemv_n(size_t n, size_t k, float alpha, const float *a, const float *b, size_t ldb,
                   float beta, float *c)
{
    const float32x4_t va = vdupq_n_f32(alpha), vb = vdupq_n_f32(beta);
    size_t j = 0;
    for (; j + 32 <= n; j += 32) {
        float32x4_t s[8];
        for (int v = 0; v < 8; v++) s[v] = vdupq_n_f32(0.f);
        const float *bp = b + j;
        for (size_t p = 0; p < k; p++, bp += ldb)
            for (int v = 0; v < 8; v++) s[v] = vfmaq_n_f32(s[v], vld1q_f32(bp + 4 * v), a[p]);
        for (int v = 0; v < 8; v++) {
            float32x4_t r = vmulq_f32(va, s[v]);
            if (beta != 0.f) r = vfmaq_f32(r, vb, vld1q_f32(c + j + 4 * v));
            vst1q_f32(c + j + 4 * v, r);
        }
    }
    for (; j + 4 <= n; j += 4) {
        float32x4_t s = vdupq_n_f32(0.f);
        for (size_t p = 0; p < k; p++) s = vfmaq_n_f32(s, vld1q_f32(b + p * ldb + j), a[p]);
        float32x4_t r = vmulq_f32(va, s);
        if (beta != 0.f) r = vfmaq_f32(r, vb, vld1q_f32(c + j));
        vst1q_f32(c + j, r);
    }
    for (; j < n; j++) {
        float s = 0.f;
        for (size_t p = 0; p < k; p++) s = __builtin_fmaf(a[p], b[p * ldb + j], s);
        c[j] = finish1(s, alpha, beta, c + j);
    }
}

/* c[j] = alpha dot(a, b + j*ldb) + beta c[j]: four rows of B at a time. */
static void gemv_t(size_t n, size_t k, float alpha, const float *a, const float *b, size_t ldb,
                   float beta, float *c)
{
    for (size_t j = 0; j < n; j += 4) {
        const size_t w = n - j < 4 ? n - j : 4;
        const float *r[4];
        for (size_t q = 0; q < 4; q++) r[q] = b + (j + (q < w ? q : 0)) * ldb;
        float32x4_t s[4];
        for (int q = 0; q < 4; q++) s[q] = vdupq_n_f32(0.f);
        size_t p = 0;
        for (; p + 4 <= k; p += 4) {
            const float32x4_t av = vld1q_f32(a + p);
            for (int q = 0; q < 4; q++) s[q] = vfmaq_f32(s[q], av, vld1q_f32(r[q] + p));
        }
        float t[4];
        for (int q = 0; q < 4; q++) {
            t[q] = vaddvq_f32(s[q]);
            for (size_t pp = p; pp < k; pp++) t[q] = __builtin_fmaf(a[pp], r[q][pp], t[q]);
        }
        for (size_t q = 0; q < w; q++) c[j + q] = finish1(t[q], alpha, beta, c + j + q);
    }
}

void sk_gemm_init_neon(sk_gemm_dsp *d)
{
    static const sk_gemm_ukr_fn ukr[MR] = { ukr_1x12, ukr_2x12, ukr_3x12, ukr_4x12,
                                            ukr_5x12, ukr_6x12, ukr_7x12, ukr_8x12 };
    for (int i = 0; i < SK_GEMM_MR_MAX; i++) d->ukr[i] = i < MR ? ukr[i] : NULL;
    d->gemv_n = gemv_n;
    d->gemv_t = gemv_t;
    d->mr = MR;
    d->nr = NR;
    /* typical Arm cores: L1d 64 KiB (B micro-panel KC x 12 = 12 KiB), L2 1 MiB (A block 128 KiB) */
    d->kc = 256;
    d->mc = 128;
    d->nc = 4092;
}
