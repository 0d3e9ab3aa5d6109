/* checkasm: sk_softmax and sk_scale_mask_softmax against a double-precision reference written
 * here (bound |y - exact| <= 1e-5 exact + 1e-9, masked entries exactly 0, NaN rules), against the
 * scalar path, and against hand-computed values. Every mask kind, fully masked rows, ld > cols with
 * poisoned padding in x and y, in place, scales, 65536-column rows. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "checkasm.h"
#include "../ref_mask.h"
#include "dsp.h"

/* exact softmax of one row in double, as the natural logarithms of the weights into e[] (-inf where
   a weight is 0; finite where it underflows in double); returns 1 if the row must be NaN (a NaN or
   +inf score), 2 if fully masked. *t: the row's max over attended positions of |scale x| +
   |mask|, the input magnitude the documented bound grows with. */
static int exact_row(size_t r, size_t cols, float scale, const float *x, const sk_mask *m,
                     double *e, double *t)
{
    double mx = -INFINITY;
    *t = 0;
    for (size_t c = 0; c < cols; c++) {
        e[c] = -INFINITY;
        if (!ref_attended(m, r, c, NULL)) continue;
        double v = (double)scale * x[c], mag = fabs(v);
        if (m && m->kind == SK_MASK_ADD) {
            v += ((const float *)m->data)[r * m->ld + c];
            mag += fabs(((const float *)m->data)[r * m->ld + c]);
        }
        if (isnan(v) || v == INFINITY) return 1;
        if (mag > *t) *t = mag;
        e[c] = v;
        if (v > mx) mx = v;
    }
    if (mx == -INFINITY) return 2;
    double s = 0;
    for (size_t c = 0; c < cols; c++) s += exp(e[c] - mx);
    for (size_t c = 0; c < cols; c++) e[c] = e[c] - mx - log(s); /* s >= 1: the max's term */
    return 0;
}

/* Checks y (rows x cols, stride ldy) for input x (stride ldx). */
static int check_rows(size_t rows, size_t cols, float scale, const float *x, size_t ldx,
                      const sk_mask *m, const float *y, size_t ldy, const char *what)
{
    double *e = malloc(cols * sizeof(double));
    int ok = 1;
    for (size_t r = 0; r < rows && ok; r++) {
        double t;
        const int k = exact_row(r, cols, scale, x + r * ldx, m, e, &t);
        /* the documented bound, rel * exact evaluated as exp(log rel + log exact): where T lets
           scores that differ in double tie in float, exact underflows to 0 and rel overflows */
        const double tt = 0x1p-22 * t, lrel = tt > 700 ? tt : log(1e-5 + expm1(tt));
        for (size_t c = 0; c < cols && ok; c++) {
            const float v = y[r * ldy + c];
            const double ex = exp(e[c]);
            if (k == 2 || !ref_attended(m, r, c, NULL)) {
                if (v != 0.f) ok = ck_fail("%s: masked y[%zu,%zu] = %a, want 0", what, r, c, v);
            } else if (k == 1) {
                if (!isnan(v)) ok = ck_fail("%s: row %zu must be NaN, y[%zu] = %a", what, r, c, v);
            } else if (!(fabs(v - ex) <= exp(lrel + e[c]) + 1e-9)) {
                ok = ck_fail("%s: y[%zu,%zu] = %.9g, exact %.9g", what, r, c, v, ex);
            }
        }
    }
    free(e);
    return ok;
}

typedef struct {
    sk_mask m;
    void *data;
} mask_buf;

static void make_mask(mask_buf *mb, sk_mask_kind kind, size_t rows, size_t cols)
{
    memset(mb, 0, sizeof *mb);
    mb->m.kind = kind;
    const size_t ld = cols + ck_rand_u32(3);
    const int all_off = ck_rand_u32(5) == 0; /* now and then a fully masked row */
    switch (kind) {
    case SK_MASK_KEYS: {
        uint8_t *d = malloc(cols + 1);
        for (size_t c = 0; c < cols; c++)
            d[c] = all_off ? 0 : (ck_rand_u32(10) < 7 ? (uint8_t)(1 + ck_rand_u32(255)) : 0);
        const uint32_t layout = ck_rand_u32(3); /* key padding: a masked suffix of random length, */
        const size_t pad = cols ? ck_rand_u32((uint32_t)cols + 1) : 0; /* after a dense (1) or */
        if (layout == 1 && !all_off) /* random (2) prefix */
            for (size_t c = 0; c < cols - pad; c++) d[c] = (uint8_t)(1 + ck_rand_u32(255));
        if (layout) for (size_t c = cols - pad; c < cols; c++) d[c] = 0;
        mb->data = d;
        break;
    }
    case SK_MASK_BOOL: {
        uint8_t *d = malloc(rows * ld + 1);
        for (size_t i = 0; i < rows * ld; i++)
            d[i] = ck_rand_u32(10) < 7 ? (uint8_t)(1 + ck_rand_u32(255)) : 0;
        if (all_off) memset(d, 0, cols); /* row 0 fully masked */
        mb->data = d;
        mb->m.ld = ld;
        break;
    }
    case SK_MASK_ADD: {
        float *d = malloc((rows * ld + 1) * sizeof(float));
        for (size_t i = 0; i < rows * ld; i++)
            d[i] = ck_rand_u32(10) < 3 ? -INFINITY : ck_randf(-4.f, 4.f);
        if (all_off) for (size_t c = 0; c < cols; c++) d[c] = -INFINITY;
        mb->data = d;
        mb->m.ld = ld;
        break;
    }
    case SK_MASK_CAUSAL:
        mb->m.offset =
            (ptrdiff_t)ck_rand_u32(5) - 2 + (ck_rand_u32(4) == 0 ? (ptrdiff_t)cols / 2 : 0);
        break;
    default:
        break;
    }
    mb->m.data = mb->data;
}

static const char *kind_name(sk_mask_kind k)
{
    static const char *n[] = { "none", "keys", "bool", "add", "causal" };
    return n[k];
}

/* One case: random x, ref and new, double check, padding and guard checks, in place. */
/* amp: the spread of x (scores up to ~amp |scale|, the T of the bound); add_amp > 0: ADD mask
   values in [-add_amp, add_amp] instead of [-4, 4]. */
static void run_case_amp(size_t rows, size_t cols, size_t ldx, size_t ldy, float scale,
                         sk_mask_kind kind, int nan_mode, float amp, float add_amp)
{
    ck_func("%s %zux%zu ldx=%zu ldy=%zu scale=%g nan=%d amp=%g add=%g", kind_name(kind), rows, cols,
            ldx, ldy, scale, nan_mode, amp, add_amp);
    mask_buf mb;
    make_mask(&mb, kind, rows, cols);
    if (kind == SK_MASK_ADD && add_amp > 0.f)
        for (size_t i = 0; i < rows * mb.m.ld; i++) {
            float *d = (float *)mb.data + i;
            if (*d != -INFINITY) *d = *d * (add_amp / 4.f);
        }
    const sk_mask *m = kind == SK_MASK_NONE ? (ck_rand_u32(2) ? &mb.m : NULL) : &mb.m;
    float *x = ck_buf_alloc(rows * ldx), *yr = ck_buf_alloc(rows * ldy),
          *yn = ck_buf_alloc(rows * ldy);
    for (size_t i = 0; i < rows * ldx; i++) x[i] = amp * ck_randn();
    ck_mat_poison_pad(x, rows, cols, ldx);   /* NaN padding: reading it would poison a row */
    ck_mat_poison_pad(yr, rows, cols, ldy);
    ck_mat_poison_pad(yn, rows, cols, ldy);
    if (nan_mode) { /* a NaN in a random position of some rows: attended -> NaN row, else no leak */
        for (size_t r = 0; r < rows; r++)
            if (ck_rand_u32(2)) x[r * ldx + ck_rand_u32((uint32_t)cols)] = NAN;
    }
    ck_ref();
    sk_scale_mask_softmax(rows, cols, scale, x, ldx, m, yr, ldy);
    ck_new();
    if (sk_scale_mask_softmax(rows, cols, scale, x, ldx, m, yn, ldy) != SK_OK) ck_fail("status");
    check_rows(rows, cols, scale, x, ldx, m, yn, ldy, "new vs exact");
    if (ck_isa() != SK_ISA_SCALAR)
        check_rows(rows, cols, scale, x, ldx, m, yr, ldy, "ref vs exact");
    double *e = malloc(cols * sizeof(double));
    for (size_t r = 0; r < rows; r++) {
        double t;
        exact_row(r, cols, scale, x + r * ldx, m, e, &t);
        const double rel = 2e-5 + 0x1p-21 * t; /* both within the bound of exact */
        for (size_t c = 0; c < cols; c++) {
            const float a = yr[r * ldy + c], b = yn[r * ldy + c];
            if (!ck_same_nan(a, b) || fabs(a - b) > rel * fabsf(a) + 2e-9) {
                ck_fail("ref %a new %a at (%zu,%zu)", a, b, r, c);
                r = rows;
                break;
            }
        }
    }
    free(e);
    ck_buf_check(yn, "y");
    ck_mat_pad_check(yn, rows, cols, ldy, "y");
    if (kind == SK_MASK_NONE && !m && scale == 1.f) { /* sk_softmax is the same thing */
        float *ys = ck_buf_alloc(rows * ldy);
        sk_softmax(rows, cols, x, ldx, ys, ldy);
        for (size_t r = 0; r < rows; r++)
            if (memcmp(ys + r * ldy, yn + r * ldy, cols * sizeof(float))) {
                ck_fail("sk_softmax differs");
                break;
            }
        ck_buf_free(ys);
    }
    /* in place (ldx is the stride of both) */
    float *xi = ck_buf_alloc(rows * ldx);
    memcpy(xi, x, rows * ldx * sizeof(float));
    sk_scale_mask_softmax(rows, cols, scale, xi, ldx, m, xi, ldx);
    check_rows(rows, cols, scale, x, ldx, m, xi, ldx, "in place");
    ck_mat_pad_check(xi, rows, cols, ldx, "in place");
    ck_buf_check(xi, "in place");
    ck_buf_free(xi);
    ck_buf_free(x); ck_buf_free(yr); ck_buf_free(yn);
    free(mb.data);
}

static void run_case(size_t rows, size_t cols, size_t ldx, size_t ldy, float scale,
                     sk_mask_kind kind, int nan_mode)
{
    run_case_amp(rows, cols, ldx, ldy, scale, kind, nan_mode, 3.f, 0.f);
}

/* Scores of large magnitude (T up to 1e4), non-power-of-two scales, every mask kind: the bound
   (1e-5 + expm1(2^-22 T)) exact + 1e-9 on every path. */
static void test_large_scores(void)
{
    static const float scales[] = { -8.f, 0.1f, 0.57735027f, 3.7f, 1.f };
    static const size_t shapes[][2] = { { 11, 101 }, { 3, 17 }, { 5, 64 }, { 2, 1000 } };
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (size_t i = 0; i < sizeof scales / sizeof scales[0]; i++)
            for (int kind = SK_MASK_NONE; kind <= SK_MASK_CAUSAL; kind++) {
                const float scale = scales[i], t = ck_rand_u32(2) ? 300.f : 1e4f;
                const size_t rows = shapes[s][0], cols = shapes[s][1];
                run_case_amp(rows, cols, cols + 3, cols + 1, scale, (sk_mask_kind)kind, 0,
                             t / 3.f / fabsf(scale), kind == SK_MASK_ADD ? t / 2.f : 0.f);
            }
}

/* Rows whose scores overflow float, +inf and NaN rows, causal offsets at the ends of ptrdiff_t:
   every path gives what the double-precision reference gives. */
static void test_edges(void)
{
    ck_func("scale * x overflows float");
    {
        /* row 0: 1e40 - 2e40 in double: 0 1 0 0; row 1: every score below -FLT_MAX: 1 0 (and the
           third column masked in the key mask case); row 2: a normal row in the same block */
        const float x[12] = { 1e10f, 2e10f, 1e10f, 0.f, -1e10f, -2e10f, -3e10f, -4e10f,
                              0.5f, 1.f, 0.25f, 0.f };
        const uint8_t keys[4] = { 1, 1, 0, 1 };
        const sk_mask km = { SK_MASK_KEYS, keys, 0, 0 };
        for (int k = 0; k < 2; k++) {
            float y[12];
            sk_scale_mask_softmax(3, 4, 1e30f, x, 4, k ? &km : NULL, y, 4);
            if (y[0] != 0.f || y[1] != 1.f || y[2] != 0.f || y[3] != 0.f)
                ck_fail("row 0: %g %g %g %g, want 0 1 0 0", y[0], y[1], y[2], y[3]);
            if (y[4] != 1.f || y[5] != 0.f || y[6] != 0.f || y[7] != 0.f)
                ck_fail("row 1: %g %g %g %g, want 1 0 0 0", y[4], y[5], y[6], y[7]);
            check_rows(3, 4, 1e30f, x, 4, k ? &km : NULL, y, 4, "overflowing scores");
        }
    }
    ck_func("near-tied scores of magnitude 1e5..4e9 (the exponential regime of the bound)");
    {
        /* x = c + a few units: the float scores of a row are off by up to 2^-24 c, so weights
           move by factors (at c = 4e9: the float scores of a row tie whole); scores far below
           the max must still give weights near 0, masked ones exactly 0 */
        static const float offs[] = { 1e5f, 3e6f, 6e7f, 4e9f };
        static const float scales[] = { 1.f, 0.3f, -1.7f };
        const size_t rows = 3, cols = 45;
        float *x = ck_buf_alloc(rows * cols), *y = ck_buf_alloc(rows * cols);
        uint8_t keys[45];
        for (size_t c = 0; c < cols; c++) keys[c] = (uint8_t)(c % 7 != 3);
        const sk_mask km = { SK_MASK_KEYS, keys, 0, 0 };
        for (size_t o = 0; o < sizeof offs / sizeof offs[0]; o++)
            for (size_t s = 0; s < sizeof scales / sizeof scales[0]; s++)
                for (int k = 0; k < 2; k++) {
                    for (size_t i = 0; i < rows * cols; i++)
                        x[i] = offs[o] + (float)(int)ck_rand_u32(16) - 8.f +
                               (i % 11 == 0 ? -200.f : 0.f);
                    sk_scale_mask_softmax(rows, cols, scales[s], x, cols, k ? &km : NULL, y,
                                          cols);
                    check_rows(rows, cols, scales[s], x, cols, k ? &km : NULL, y, cols,
                               "near-tied large scores");
                }
        ck_buf_free(x); ck_buf_free(y);
    }
    ck_func("+inf and NaN rows: attended NaN, masked exactly 0");
    {
        const float x[8] = { 1.f, INFINITY, 2.f, NAN, NAN, 1.f, 2.f, 3.f };
        const uint8_t keys[4] = { 1, 1, 1, 0 };
        const sk_mask km = { SK_MASK_KEYS, keys, 0, 0 };
        float y[8];
        sk_scale_mask_softmax(2, 4, 0.5f, x, 4, &km, y, 4);
        for (int r = 0; r < 2; r++)
            if (!isnan(y[4 * r]) || !isnan(y[4 * r + 1]) || !isnan(y[4 * r + 2]) ||
                y[4 * r + 3] != 0.f)
                ck_fail("row %d: %g %g %g %g, want NaN NaN NaN 0", r, y[4 * r], y[4 * r + 1],
                        y[4 * r + 2], y[4 * r + 3]);
    }
    ck_func("causal offsets near PTRDIFF_MAX / PTRDIFF_MIN");
    {
        const ptrdiff_t offs[] = { PTRDIFF_MAX, PTRDIFF_MAX - 2, PTRDIFF_MIN, PTRDIFF_MIN + 3 };
        const size_t rows = 9, cols = 37;
        float *x = ck_buf_alloc(rows * cols), *y = ck_buf_alloc(rows * cols);
        for (size_t i = 0; i < rows * cols; i++) x[i] = ck_randn();
        for (size_t i = 0; i < sizeof offs / sizeof offs[0]; i++) {
            const sk_mask cm = { SK_MASK_CAUSAL, NULL, 0, offs[i] };
            sk_scale_mask_softmax(rows, cols, 0.3f, x, cols, &cm, y, cols);
            check_rows(rows, cols, 0.3f, x, cols, &cm, y, cols, "huge causal offset");
            const float want = offs[i] > 0 ? 1.f : 0.f; /* every row unmasked / fully masked */
            double s = 0;
            for (size_t c = 0; c < cols; c++) s += y[c];
            if (fabs(s - want) > 1e-5) ck_fail("offset %td: row 0 sums to %g", offs[i], s);
        }
        ck_buf_free(x); ck_buf_free(y);
    }
}

static void test_hand(void)
{
    ck_func("softmax [0, ln2, ln3]");
    const float x[3] = { 0.f, 0.69314718f, 1.09861229f };
    float y[3];
    sk_softmax(1, 3, x, 3, y, 3);
    for (int i = 0; i < 3; i++)
        if (fabsf(y[i] - (float)(i + 1) / 6.f) > 1e-6f)
            ck_fail("y[%d] = %.9g, want %d/6", i, y[i], i + 1);
    ck_func("causal 3x3");
    const float z[9] = { 0 };
    float w[9];
    const sk_mask cm = { SK_MASK_CAUSAL, NULL, 0, 0 };
    sk_scale_mask_softmax(3, 3, 1.f, z, 3, &cm, w, 3);
    const float want[9] = { 1, 0, 0, 0.5f, 0.5f, 0, 1.f / 3, 1.f / 3, 1.f / 3 };
    for (int i = 0; i < 9; i++)
        if (fabsf(w[i] - want[i]) > 1e-6f || (want[i] == 0 && w[i] != 0.f))
            ck_fail("w[%d] = %.9g, want %.9g", i, w[i], want[i]);
    ck_func("keys mask with NaN under the mask");
    const float xn[4] = { 1.f, NAN, 1.f, INFINITY };
    const uint8_t keys[4] = { 1, 0, 1, 0 };
    const sk_mask km = { SK_MASK_KEYS, keys, 0, 0 };
    float yn[4];
    sk_scale_mask_softmax(1, 4, 0.125f, xn, 4, &km, yn, 4);
    if (yn[0] != 0.5f || yn[1] != 0.f || yn[2] != 0.5f || yn[3] != 0.f)
        ck_fail("got %g %g %g %g", yn[0], yn[1], yn[2], yn[3]);
}

static void test_long_rows(void)
{
    const size_t cols = 65536;
    for (int k = 0; k < 2; k++) {
        ck_func("1x%zu %s", cols, k ? "keys" : "none");
        float *x = ck_buf_alloc(cols), *y = ck_buf_alloc(cols);
        /* many terms of similar size: the hard case for the running sum */
        for (size_t i = 0; i < cols; i++) x[i] = k ? ck_randf(-2.f, 2.f) : ck_randf(-0.5f, 0.f);
        uint8_t *keys = malloc(cols);
        for (size_t i = 0; i < cols; i++) keys[i] = ck_rand_u32(8) != 0;
        const sk_mask km = { SK_MASK_KEYS, keys, 0, 0 };
        const sk_mask *m = k ? &km : NULL;
        sk_scale_mask_softmax(1, cols, k ? 3.f : 1.f, x, cols, m, y, cols);
        check_rows(1, cols, k ? 3.f : 1.f, x, cols, m, y, cols, "long row");
        ck_buf_check(y, "y");
        free(keys);
        ck_buf_free(x); ck_buf_free(y);
    }
}

/* Outputs of 16 MiB and more take the streaming-store path on some ISAs. */
static void test_big(void)
{
    const size_t rows = 1025, cols = 4096, ld = 4100;
    for (int k = 0; k < 2; k++) {
        ck_func("big %zux%zu %s", rows, cols, k ? "causal in place" : "keys");
        float *x = ck_buf_alloc(rows * ld), *y = ck_buf_alloc(rows * ld);
        for (size_t i = 0; i < rows * ld; i++) x[i] = 2.f * ck_randn();
        ck_mat_poison_pad(x, rows, cols, ld);
        ck_mat_poison_pad(y, rows, cols, ld);
        uint8_t *keys = malloc(cols);
        for (size_t i = 0; i < cols; i++) keys[i] = ck_rand_u32(8) != 0;
        const sk_mask km = { SK_MASK_KEYS, keys, 0, 0 }, cm = { SK_MASK_CAUSAL, NULL, 0, -5 };
        if (k) {
            memcpy(y, x, rows * ld * sizeof(float));
            sk_scale_mask_softmax(rows, cols, 0.5f, y, ld, &cm, y, ld);
            check_rows(rows, cols, 0.5f, x, ld, &cm, y, ld, "big causal in place");
        } else {
            sk_scale_mask_softmax(rows, cols, 0.125f, x, ld, &km, y, ld);
            check_rows(rows, cols, 0.125f, x, ld, &km, y, ld, "big keys");
        }
        ck_mat_pad_check(y, rows, cols, ld, "big y");
        ck_buf_check(y, "big y");
        free(keys);
        ck_buf_free(x); ck_buf_free(y);
    }
}

/* The scale_mask_max slot (the fused first sweep attention builds its online softmax from). */
static void test_scale_mask_max(void)
{
    const sk_math_dsp *md = &sk_dsp_for(ck_isa())->math;
    for (int kind = SK_MASK_NONE; kind <= SK_MASK_CAUSAL; kind++) {
        for (size_t n = 1; n < 90; n += 1 + (n > 20) * 6) {
            const size_t rows = 4, r = ck_rand_u32(4);
            ck_func("scale_mask_max %s n=%zu r=%zu", kind_name((sk_mask_kind)kind), n, r);
            mask_buf mb;
            make_mask(&mb, (sk_mask_kind)kind, rows, n);
            const sk_mask *m = kind == SK_MASK_NONE ? NULL : &mb.m;
            float *x = ck_buf_alloc(n), *y = ck_buf_alloc(n);
            const float scale = ck_randf(0.1f, 2.f) * (ck_rand_u32(4) ? 1.f : -1.f);
            for (size_t c = 0; c < n; c++) x[c] = 3.f * ck_randn();
            int want_nan = 0;
            if (ck_rand_u32(3) == 0) {
                const size_t at = ck_rand_u32((uint32_t)n);
                x[at] = NAN;
                want_nan = ref_attended(m, r, at, NULL);
            }
            const float got = md->scale_mask_max(n, scale, x, m, r, y);
            ck_buf_check(y, "y");
            double want = -INFINITY;
            int bad = 0;
            for (size_t c = 0; c < n; c++) {
                if (!ref_attended(m, r, c, NULL)) {
                    if (y[c] != -INFINITY && !bad++) ck_fail("masked y[%zu] = %a", c, y[c]);
                    continue;
                }
                double v = (double)scale * x[c];
                if (m && m->kind == SK_MASK_ADD) v += ((const float *)m->data)[r * m->ld + c];
                if (isnan(v)) continue;
                if (v > want) want = v;
                if (!(fabs(y[c] - v) <= 0x1p-24 * fabs(v)) && !bad++)
                    ck_fail("y[%zu] = %a, want %a", c, y[c], v);
            }
            if (want_nan ? !isnan(got) : !(got == want || fabs(got - want) <= 0x1p-24 * fabs(want)))
                ck_fail("max %a, want %a (nan %d)", got, want, want_nan);
            float *yi = ck_buf_alloc(n); /* in place */
            memcpy(yi, x, n * sizeof(float));
            md->scale_mask_max(n, scale, yi, m, r, yi);
            if (memcmp(yi, y, n * sizeof(float))) ck_fail("in place differs");
            ck_buf_free(yi);
            ck_buf_free(x); ck_buf_free(y);
            free(mb.data);
        }
    }
}

void ck_test_softmax(void)
{
    test_scale_mask_max();
    if (!ck_quick()) test_big();
    test_hand();
    test_edges();
    test_large_scores();
    const size_t big[] = { 127, 128, 129, 255, 256, 257, 511, 1000, 1025, 4099 };
    const size_t nbig = sizeof big / sizeof big[0];
    const float scales[] = { 1.f, 0.125f, 2.5f };
    for (size_t t = 0; t < 71 + nbig; t++) {
        const size_t cols = t < 71 ? t + 1 - (t == 70) * 71 + (t == 70) * 71 : big[t - 71];
        if (cols == 0) continue;
        if (ck_quick() && t >= 71 && cols > 1100) continue;
        const size_t rows = cols > 1000 ? 2 : 1 + ck_rand_u32(5);
        for (int kind = SK_MASK_NONE; kind <= SK_MASK_CAUSAL; kind++) {
            const size_t pad = ck_rand_u32(3) == 0 ? 0 : 1 + ck_rand_u32(17);
            const float scale =
                kind == SK_MASK_NONE && ck_rand_u32(2) ? 1.f : scales[ck_rand_u32(3)];
            run_case(rows, cols, cols + pad, cols + ck_rand_u32(5), scale, (sk_mask_kind)kind, 0);
            run_case(rows, cols, cols + pad, cols + pad, scale, (sk_mask_kind)kind, 1);
        }
    }
    test_long_rows();
}
