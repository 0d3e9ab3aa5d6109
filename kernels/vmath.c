/* exp / softmax: argument checks and the table init. (Stub cores: issue 4 replaces them.) */
#include <math.h>
#include "dsp.h"
#include "common.h"

static void exp_libm(size_t n, const float *x, float *y)
{
    for (size_t i = 0; i < n; i++) y[i] = expf(x[i]);
}

static float max_c(size_t n, const float *x)
{
    float m = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        if (isnan(x[i])) return x[i];
        if (x[i] > m) m = x[i];
    }
    return m;
}

static float expsum_c(size_t n, const float *x, float bias, float *y)
{
    float s = 0.f;
    for (size_t i = 0; i < n; i++) s += (y[i] = expf(x[i] - bias));
    return s;
}

/* 1 when column c of row r is attended. */
static int attended(const sk_mask *m, size_t r, size_t c)
{
    if (!m) return 1;
    switch (m->kind) {
    case SK_MASK_KEYS: return ((const uint8_t *)m->data)[c] != 0;
    case SK_MASK_BOOL: return ((const uint8_t *)m->data)[r * m->ld + c] != 0;
    case SK_MASK_ADD: return ((const float *)m->data)[r * m->ld + c] != -INFINITY;
    case SK_MASK_CAUSAL: return (ptrdiff_t)c <= (ptrdiff_t)r + m->offset;
    default: return 1;
    }
}

static void scale_mask_softmax_c(size_t rows, size_t cols, float scale, const float *x, size_t ldx,
                                 const sk_mask *mask, float *y, size_t ldy)
{
    for (size_t r = 0; r < rows; r++) {
        const float *xr = x + r * ldx;
        float *yr = y + r * ldy;
        float m = -INFINITY;
        int nan = 0;
        for (size_t c = 0; c < cols; c++) {
            float v = -INFINITY;
            if (attended(mask, r, c)) {
                v = scale * xr[c];
                if (mask && mask->kind == SK_MASK_ADD) v += ((const float *)mask->data)[r * mask->ld + c];
                if (isnan(v)) nan = 1;
                if (v > m) m = v;
            }
            yr[c] = v;
        }
        if (nan) { for (size_t c = 0; c < cols; c++) yr[c] = NAN; continue; }
        if (m == -INFINITY) { for (size_t c = 0; c < cols; c++) yr[c] = 0.f; continue; }
        double s = 0;
        for (size_t c = 0; c < cols; c++) s += (yr[c] = expf(yr[c] - m));
        const float inv = (float)(1.0 / s);
        for (size_t c = 0; c < cols; c++) yr[c] *= inv;
    }
}

static void softmax_c(size_t rows, size_t cols, const float *x, size_t ldx, float *y, size_t ldy)
{
    scale_mask_softmax_c(rows, cols, 1.f, x, ldx, NULL, y, ldy);
}

void sk_math_dsp_init(sk_math_dsp *d, sk_isa isa)
{
    (void)isa;
    d->exp = exp_libm;
    d->max = max_c;
    d->expsum = expsum_c;
    d->softmax = softmax_c;
    d->scale_mask_softmax = scale_mask_softmax_c;
}

sk_status sk_exp(size_t n, const float *x, float *y)
{
    if (n && (!x || !y)) return SK_EINVAL;
    if (n) sk_dsp_get()->math.exp(n, x, y);
    return SK_OK;
}

sk_status sk_softmax(size_t rows, size_t cols, const float *x, size_t ldx, float *y, size_t ldy)
{
    if (!sk_mat_ok(x, rows, cols, ldx) || !sk_mat_ok(y, rows, cols, ldy)) return SK_EINVAL;
    if (rows && cols) sk_dsp_get()->math.softmax(rows, cols, x, ldx, y, ldy);
    return SK_OK;
}

sk_status sk_scale_mask_softmax(size_t rows, size_t cols, float scale, const float *x, size_t ldx,
                                const sk_mask *mask, float *y, size_t ldy)
{
    if (!sk_mat_ok(x, rows, cols, ldx) || !sk_mat_ok(y, rows, cols, ldy)) return SK_EINVAL;
    if (sk_mask_check(mask, rows, cols) != SK_OK) return SK_EINVAL;
    if (rows && cols) sk_dsp_get()->math.scale_mask_softmax(rows, cols, scale, x, ldx, mask, y, ldy);
    return SK_OK;
}
