/* checkasm: sk_exp and the row primitives the attention family uses (max, expsum).
 * sk_exp is checked against double-precision exp (<= 1 ulp where the result is a normal float,
 * results below FLT_MIN in [0, FLT_MIN]), against the scalar path (<= 2 ulp apart), on special
 * values, in place, at every length 0..70 and around vector widths, with guard bands and
 * misaligned starts; against SLEEF's Sleef_expf_u10 when it was found. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "checkasm.h"
#include "dsp.h"
#if CK_HAVE_SLEEF
#include <sleef.h>
#endif

/* Error of y against the exact e in units of the float ulp at e (e a normal float). */
static double ulp_err(float y, double e)
{
    int ex;
    frexp(e, &ex);                   /* e = f * 2^ex, f in [0.5, 1) */
    return fabs((double)y - e) / ldexp(1.0, ex - 24);
}

/* Checks y = exp(x) for n values; returns the max ulp error seen over normal results. */
static double check_exp(const float *x, const float *y, size_t n, const char *what)
{
    double worst = 0;
    for (size_t i = 0; i < n; i++) {
        const double e = exp((double)x[i]);
        if (isnan(x[i])) {
            if (!isnan(y[i])) { ck_fail("%s: exp(NaN) = %a", what, y[i]); return worst; }
        } else if (e > FLT_MAX) {
            /* overflow unless the exact value rounds to FLT_MAX */
            if (!(y[i] == INFINITY || (y[i] == FLT_MAX && e < (double)FLT_MAX + ldexp(1.0, 103)))) {
                ck_fail("%s: exp(%a) = %a, want +inf", what, x[i], y[i]);
                return worst;
            }
        } else if (e < FLT_MIN) {
            if (!(y[i] >= 0.f && y[i] <= FLT_MIN)) {
                ck_fail("%s: exp(%a) = %a, want in [0, FLT_MIN]", what, x[i], y[i]);
                return worst;
            }
        } else {
            const double u = ulp_err(y[i], e);
            if (u > worst) worst = u;
            if (!(u <= 1.0)) {
                ck_fail("%s: exp(%a) = %a (%.9g), exact %.17g: %.3f ulp", what, x[i], y[i], y[i], e,
                        u);
                return worst;
            }
        }
    }
    return worst;
}

static void fill_exp_input(float *x, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const uint32_t k = ck_rand_u32(16);
        if (k < 10) x[i] = ck_randf(-87.f, 88.f);
        else if (k < 13) x[i] = ck_randf(-1.f, 1.f);
        else if (k == 13) x[i] = ck_randf(-110.f, -85.f);  /* subnormal / underflow range */
        else if (k == 14) x[i] = ck_randf(87.f, 95.f);     /* overflow boundary */
        else {
            static const float sp[] = { 0.f, -0.f, INFINITY, -INFINITY, NAN, -NAN, 1e-30f, -1e-30f,
                                        0x1.62e43p+6f /* 88.72284 */, 0x1.62e42ep+6f,
                                        -0x1.5d589ep+6f, -0x1.9fe368p+6f, 127.f, -1e30f };
            x[i] = sp[ck_rand_u32(sizeof sp / sizeof sp[0])];
        }
    }
}

static void test_exp_lengths(void)
{
    const size_t big[] = { 127, 128, 129, 255, 256, 257, 1000, 4096, 4099 };
    double worst = 0;
    for (size_t t = 0; t < 71 + sizeof big / sizeof big[0]; t++) {
        const size_t n = t < 71 ? t : big[t - 71];
        for (size_t off = 0; off < 3; off++) {
            ck_func("exp n=%zu off=%zu", n, off);
            float *x = ck_buf_alloc(n + 3), *yr = ck_buf_alloc(n + 3), *yn = ck_buf_alloc(n + 3);
            fill_exp_input(x + off, n);
            ck_ref();
            sk_exp(n, x + off, yr + off);
            ck_new();
            if (sk_exp(n, x + off, yn + off) != SK_OK) ck_fail("status");
            ck_buf_check(yn, "y");
            for (size_t i = 0; i < off; i++)
                if (yn[i] != 0.f) ck_fail("write before the start");
            for (size_t i = off + n; i < n + 3; i++)
                if (yn[i] != 0.f) ck_fail("write after the end");
            double w = check_exp(x + off, yn + off, n, ck_isa() == SK_ISA_SCALAR ? "ref" : "new");
            if (w > worst) worst = w;
            for (size_t i = 0; i < n; i++) { /* ref and new each within 1 ulp: at most 2 apart */
                if (!ck_same_nan(yr[off + i], yn[off + i]) ||
                    ck_ulp_diff(yr[off + i], yn[off + i]) > 2) {
                    if (fabs(exp((double)x[off + i])) >= FLT_MIN) {
                        ck_fail("exp(%a): ref %a new %a", x[off + i], yr[off + i], yn[off + i]);
                        break;
                    }
                }
            }
            /* in place */
            memcpy(yn + off, x + off, n * sizeof(float));
            sk_exp(n, yn + off, yn + off);
            for (size_t i = 0; i < n; i++) {
                const float want = yr[off + i];
                float got = yn[off + i], again;
                sk_exp(1, x + off + i, &again); /* same ISA, length 1 (tail path) */
                if (!(got == again || (isnan(got) && isnan(again)))) {
                    ck_fail("in place / tail differs at %zu: %a vs %a", i, got, again);
                    break;
                }
                (void)want;
            }
            ck_buf_free(x); ck_buf_free(yr); ck_buf_free(yn);
        }
    }
    if (ck_verbose())
        printf("    exp %s: max %.4f ulp on random inputs\n", sk_isa_name(ck_isa()), worst);
}

static void test_exp_specials(void)
{
    ck_func("exp specials");
    static const struct { float x, y; } t[] = {
        { 0.f, 1.f }, { -0.f, 1.f }, { INFINITY, INFINITY }, { -INFINITY, 0.f },
        { 89.f, INFINITY }, { 1000.f, INFINITY }, { FLT_MAX, INFINITY }, { -FLT_MAX, 0.f },
        { -104.f, 0.f }, { -1000.f, 0.f }, { 0x1p-30f, 1.f }, { -0x1p-30f, 1.f },
        { 0x1.62e43p+6f, INFINITY }, { 1.f, 0x1.5bf0a8p+1f }, { -1.f, 0x1.78b564p-2f },
    };
    float x[64], y[64];
    const size_t n = sizeof t / sizeof t[0];
    for (size_t rep = 0; rep < 4; rep++) { /* the values at every lane position */
        for (size_t i = 0; i < 64; i++) x[i] = t[(i + rep) % n].x;
        sk_exp(64, x, y);
        for (size_t i = 0; i < 64; i++) {
            const float want = t[(i + rep) % n].y;
            if (!(y[i] == want || ck_ulp_diff(y[i], want) <= 1))
                ck_fail("exp(%a) = %a, want %a", x[i], y[i], want);
        }
    }
    const float nans[] = { NAN, -NAN };
    for (int k = 0; k < 2; k++) {
        for (size_t i = 0; i < 64; i++) x[i] = (i % 7 == 3) ? nans[k] : ck_randf(-5.f, 5.f);
        sk_exp(64, x, y);
        for (size_t i = 0; i < 64; i++)
            if (!ck_same_nan(x[i], y[i])) ck_fail("NaN at %zu: exp(%a) = %a", i, x[i], y[i]);
    }
    /* a dense sweep of the subnormal-result and overflow boundaries */
    float xs[512], ys[512];
    for (size_t i = 0; i < 512; i++) xs[i] = -104.f + 17.f * (float)i / 512.f;
    sk_exp(512, xs, ys);
    check_exp(xs, ys, 512, "underflow sweep");
    for (size_t i = 0; i < 512; i++)
        xs[i] = 88.72283172607421875f - (float)(256 - (int)i) * 0x1p-17f;
    sk_exp(512, xs, ys);
    check_exp(xs, ys, 512, "overflow sweep");
}

/* The slots the attention family builds its online softmax from. */
static void test_rows(void)
{
    const sk_math_dsp *ref = &sk_dsp_for(SK_ISA_SCALAR)->math, *md = &sk_dsp_for(ck_isa())->math;
    for (size_t n = 0; n < 300; n += (n < 70 ? 1 : 37)) {
        ck_func("max n=%zu", n);
        float *x = ck_buf_alloc(n + 1), *y = ck_buf_alloc(n + 1);
        ck_fill(x, n, -50.f, 50.f);
        float want = -INFINITY;
        for (size_t i = 0; i < n; i++) want = x[i] > want ? x[i] : want;
        if (md->max(n, x) != want) ck_fail("max %a, want %a", md->max(n, x), want);
        if (n) {
            const size_t at = ck_rand_u32((uint32_t)n);
            const float keep = x[at];
            x[at] = NAN;
            if (!isnan(md->max(n, x))) ck_fail("max misses a NaN at %zu", at);
            x[at] = -INFINITY;
            if (n == 1 && md->max(n, x) != -INFINITY) ck_fail("max of -inf");
            x[at] = keep;
        }
        ck_func("expsum n=%zu", n);
        const float bias = n ? want : 0.f;
        if (n) x[ck_rand_u32((uint32_t)n)] = -INFINITY;
        float *yr = ck_buf_alloc(n + 1);
        const float sr = ref->expsum(n, x, bias, yr);
        const float sn = md->expsum(n, x, bias, y);
        ck_buf_check(y, "expsum y");
        double sd = 0;
        for (size_t i = 0; i < n; i++) sd += exp((double)(x[i] - bias));
        for (size_t i = 0; i < n; i++) {
            const double e = exp((double)(x[i] - bias)); /* the argument is the float x - bias */
            /* results below FLT_MIN may flush to 0 (the softmax exp contract) */
            if (fabs(y[i] - e) > 4e-7 * e + FLT_MIN) {
                ck_fail("expsum y[%zu] = %a, exact %a", i, y[i], e);
                break;
            }
            if (x[i] == -INFINITY && y[i] != 0.f) ck_fail("expsum exp(-inf) = %a", y[i]);
        }
        /* terms below FLT_MIN may flush to 0 (the exp contract): each may be off by up to
           FLT_MIN */
        const double stol = 1e-6 * sd + (double)n * FLT_MIN;
        if (fabs(sn - sd) > stol || fabs(sr - sd) > stol)
            ck_fail("expsum sum %a (ref %a), exact %a", sn, sr, sd);
        memcpy(yr, x, n * sizeof(float)); /* in place */
        md->expsum(n, yr, bias, yr);
        for (size_t i = 0; i < n; i++)
            if (yr[i] != y[i]) { ck_fail("expsum in place differs at %zu", i); break; }
        ck_buf_free(x); ck_buf_free(y); ck_buf_free(yr);
    }
    /* a long sum: 65536 terms of similar size */
    ck_func("expsum n=65536");
    const size_t n = 65536;
    float *x = ck_buf_alloc(n), *y = ck_buf_alloc(n);
    ck_fill(x, n, -1.f, 0.f);
    double sd = 0;
    for (size_t i = 0; i < n; i++) sd += exp((double)x[i]);
    const float s = md->expsum(n, x, 0.f, y);
    if (fabs(s - sd) > 2e-6 * sd) ck_fail("sum %.9g, exact %.9g", s, sd);
    ck_buf_free(x); ck_buf_free(y);
}

#if CK_HAVE_SLEEF
static void test_exp_sleef(void)
{
    ck_func("exp vs Sleef_expf_u10");
    const size_t n = ck_quick() ? 4096 : 65536;
    float *x = ck_buf_alloc(n), *y = ck_buf_alloc(n);
    fill_exp_input(x, n);
    sk_exp(n, x, y);
    for (size_t i = 0; i < n; i++) {
        const float s = Sleef_expf_u10(x[i]);
        if (fabs(exp((double)x[i])) < FLT_MIN) continue; /* both may flush */
        if (!ck_same_nan(s, y[i]) || ck_ulp_diff(s, y[i]) > 2) {
            ck_fail("exp(%a) = %a, SLEEF %a", x[i], y[i], s);
            break;
        }
    }
    ck_buf_free(x); ck_buf_free(y);
}
#endif

void ck_test_exp(void)
{
    test_exp_specials();
    test_exp_lengths();
    test_rows();
#if CK_HAVE_SLEEF
    test_exp_sleef();
#endif
}
