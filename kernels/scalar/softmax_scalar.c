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

static void row(size_t cols, size_t natt, float scale, const float *x, sk_mask_kind kind,
                const void *mrow, float *y)
{
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
        for (size_t c = 0; c < cols; c++) y[c] = NAN;
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
    const sk_mask_kind kind = mask ? mask->kind : SK_MASK_NONE;
    for (size_t r = 0; r < rows; r++) {
        const void *mrow = NULL;
        size_t natt = cols;
        if (kind == SK_MASK_KEYS) mrow = mask->data;
        else if (kind == SK_MASK_BOOL) mrow = (const uint8_t *)mask->data + r * mask->ld;
        else if (kind == SK_MASK_ADD) mrow = (const float *)mask->data + r * mask->ld;
        else if (kind == SK_MASK_CAUSAL) natt = sk_causal_len(r, cols, mask->offset);
        row(cols, natt, scale, x + r * ldx, kind, mrow, y + r * ldy);
    }
}

void sk_softmax_scalar(size_t rows, size_t cols, const float *x, size_t ldx, float *y, size_t ldy)
{
    sk_scale_mask_softmax_scalar(rows, cols, 1.f, x, ldx, NULL, y, ldy);
}
