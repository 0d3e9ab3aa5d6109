/* Softmax family, the portable reference: double precision throughout (scale*x is exact in
 * double, exp via sk_exp_core_d, the row sum in double), so its error is a few float roundings. */
#include <math.h>
#include <stdint.h>
#include "vmath.h"

float sk_max_scalar(size_t n, const float *x)
{
    float m = -INFINITY;
    int nan = 0;
    for (size_t i = 0; i < n; i++) {
        nan |= x[i] != x[i];
        if (x[i] > m) m = x[i];
    }
    return nan ? NAN : m;
}

static double exp_d(double d) /* d <= ~0 (or NaN) */
{
    if (d != d) return d;
    if (d < -745.0) return 0.0;
    if (d < -104.0) return 0.0;   /* below every float's reach: irrelevant next to the max term */
    return sk_exp_core_d(d);
}

float sk_expsum_scalar(size_t n, const float *x, float bias, float *y)
{
    double s = 0.0;
    for (size_t i = 0; i < n; i++) {
        const float e = sk_exp1_scalar(x[i] - bias);
        y[i] = e;
        s += e;
    }
    return (float)s;
}

/* 1 when column c is attended; mrow is the mask row (KEYS: the key vector). */
static int attended(sk_mask_kind kind, const void *mrow, size_t c)
{
    switch (kind) {
    case SK_MASK_KEYS:
    case SK_MASK_BOOL: return ((const uint8_t *)mrow)[c] != 0;
    case SK_MASK_ADD: return ((const float *)mrow)[c] != -INFINITY; /* -inf: masked (NaN attends) */
    default: return 1;
    }
}

float sk_scale_mask_max_scalar(size_t n, float scale, const float *x, const sk_mask *mask, size_t r,
                               float *y)
{
    const sk_mask_kind kind = mask ? mask->kind : SK_MASK_NONE;
    const void *mrow = sk_mask_row(mask, r);
    const size_t natt = kind == SK_MASK_CAUSAL ? sk_causal_len(r, n, mask->offset) : n;
    float m = -INFINITY;
    int nan = 0;
    for (size_t c = 0; c < n; c++) {
        float v = -INFINITY;
        if (c < natt && attended(kind, mrow, c)) {
            /* one rounding, like the vector paths' FMA */
            v = kind == SK_MASK_ADD ? (float)((double)scale * x[c] + ((const float *)mrow)[c])
                                    : scale * x[c];
            nan |= v != v;
            if (v > m) m = v;
        }
        y[c] = v;
    }
    return nan ? NAN : m;
}

/* Row r of a softmax with mask (r in the mask's coordinates), in double throughout. A NaN or +inf
   among the attended scores makes every attended position NaN (+inf - +inf); masked positions are
   0 in every row. */
void sk_softmax_row_scalar(size_t cols, float scale, const float *x, const sk_mask *mask, size_t r,
                           float *y)
{
    const sk_mask_kind kind = mask ? mask->kind : SK_MASK_NONE;
    const void *mrow = sk_mask_row(mask, r);
    const size_t natt = kind == SK_MASK_CAUSAL ? sk_causal_len(r, cols, mask->offset) : cols;
    double m = -INFINITY;
    int nan = 0;
    for (size_t c = 0; c < natt; c++) {
        if (!attended(kind, mrow, c)) continue;
        double v = (double)scale * x[c];
        if (kind == SK_MASK_ADD) v += ((const float *)mrow)[c];
        nan |= v != v;
        if (v > m) m = v;
    }
    if (nan || m == INFINITY) { /* NaN (or +inf, inf - inf) in an attended position */
        for (size_t c = 0; c < cols; c++) y[c] = c < natt && attended(kind, mrow, c) ? NAN : 0.f;
        return;
    }
    if (m == -INFINITY) { /* nothing attended */
        for (size_t c = 0; c < cols; c++) y[c] = 0.f;
        return;
    }
    double s = 0.0;
    for (size_t c = 0; c < natt; c++) {
        double e = 0.0;
        if (attended(kind, mrow, c)) {
            double v = (double)scale * x[c];
            if (kind == SK_MASK_ADD) v += ((const float *)mrow)[c];
            e = exp_d(v - m);
        }
        s += e;
        y[c] = (float)e;
    }
    for (size_t c = natt; c < cols; c++) y[c] = 0.f;
    const double inv = 1.0 / s;
    for (size_t c = 0; c < natt; c++) y[c] = (float)(y[c] * inv);
}

void sk_scale_mask_softmax_scalar(size_t rows, size_t cols, float scale, const float *x, size_t ldx,
                                  const sk_mask *mask, float *y, size_t ldy)
{
    for (size_t r = 0; r < rows; r++)
        sk_softmax_row_scalar(cols, scale, x + r * ldx, mask, r, y + r * ldy);
}

void sk_softmax_scalar(size_t rows, size_t cols, const float *x, size_t ldx, float *y, size_t ldy)
{
    sk_scale_mask_softmax_scalar(rows, cols, 1.f, x, ldx, NULL, y, ldy);
}
