/* The public API's contract at its edges: bad input of every kind to every function returns
 * SK_EINVAL and writes nothing; zero sizes return SK_OK; names and status strings; dispatch
 * (sk_isa_select / sk_isa_active / sk_isa_available against the compiler's own CPU detection).
 *
 *   test_api                      all of the above
 *   test_api --env-isa=VALUE      run with SIMDKERN_ISA=VALUE in the environment: the path active
 *                                 at first use is VALUE when that ISA is available, else the best
 *                                 one
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simdkern.h"
#include "config.h"
#include "cpu.h" /* internal: sk_cpu_features */

/* sk_mhca initializers of its first six fields (d_model .. w_o) are kept on purpose: source written
   for the original struct must still compile and mean the bias-free, d_enc = d_model module. */
#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#endif

static int g_fail, g_checks;
static const char *g_fn = "";

#define CHECK(cond, ...)                                                          \
    do {                                                                          \
        g_checks++;                                                               \
        if (!(cond)) {                                                            \
            g_fail++;                                                             \
            fprintf(stderr, "FAIL %s:%d [%s] ", __FILE__, __LINE__, g_fn);        \
            fprintf(stderr, __VA_ARGS__);                                         \
            fputc('\n', stderr);                                                  \
        }                                                                         \
    } while (0)

/* ---- output buffers: filled with a sentinel byte; "untouched" = every byte still the sentinel */
#define SENT 0xA5
enum { BUF = 4096 };
static float g_out[BUF], g_w[BUF], g_ws[BUF];

static void poison(void)
{
    memset(g_out, SENT, sizeof g_out);
    memset(g_w, SENT, sizeof g_w);
    memset(g_ws, SENT, sizeof g_ws);
}
static int untouched(const void *p, size_t bytes)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < bytes; i++)
        if (b[i] != SENT) return 0;
    return 1;
}
static int all_untouched(void)
{
    return untouched(g_out, sizeof g_out) && untouched(g_w, sizeof g_w) &&
           untouched(g_ws, sizeof g_ws);
}

/* Inputs: small distinct values, never NaN. */
static float g_a[BUF], g_b[BUF], g_c[BUF];
static uint8_t g_u8[BUF];
static void fill_inputs(void)
{
    for (int i = 0; i < BUF; i++) {
        g_a[i] = (float)((i * 7) % 13 - 6) * 0.125f;
        g_b[i] = (float)((i * 5) % 11 - 5) * 0.25f;
        g_c[i] = (float)((i * 3) % 7 - 3) * 0.5f;
        g_u8[i] = (uint8_t)(i % 3 != 0);
    }
}

static const sk_trans k_bad_trans[] = { (sk_trans)2, (sk_trans)-1, (sk_trans)0x7fffffff };
static const sk_mask_kind k_bad_kinds[] = { (sk_mask_kind)5, (sk_mask_kind)-1, (sk_mask_kind)1000 };

/* Runs `call` on poisoned outputs; expects status `want` and, for SK_EINVAL, no write anywhere. */
#define EXPECT(want, call, ...)                                                                  \
    do {                                                                                         \
        poison();                                                                                \
        const sk_status st_ = (call);                                                            \
        const int wrote_ = (want) == SK_EINVAL && !all_untouched();                              \
        g_checks++;                                                                              \
        if (st_ != (want) || wrote_) {                                                           \
            g_fail++;                                                                            \
            fprintf(stderr, "FAIL %s:%d [%s] got %s, want %s%s: ", __FILE__, __LINE__, g_fn,     \
                    sk_status_str(st_), sk_status_str(want), wrote_ ? ", output written" : "");  \
            fprintf(stderr, __VA_ARGS__);                                                        \
            fputc('\n', stderr);                                                                 \
        }                                                                                        \
    } while (0)

/* ---------------------------------------------------------------------------------------------- */
typedef struct {
    sk_trans ta, tb;
    size_t m, n, k;
    float alpha;
    const float *a; size_t lda;
    const float *b; size_t ldb;
    float beta;
    float *c; size_t ldc;
} gemm_args;
static sk_status gemm(gemm_args g)
{
    return sk_sgemm(g.ta, g.tb, g.m, g.n, g.k, g.alpha, g.a, g.lda, g.b, g.ldb, g.beta, g.c, g.ldc);
}

static void test_sgemm(void)
{
    g_fn = "sk_sgemm";
    /* A good call first, checked by hand: [1 2; 3 4] * [5 6; 7 8] = [19 22; 43 50] */
    const float a2[4] = { 1, 2, 3, 4 }, b2[4] = { 5, 6, 7, 8 };
    float c2[4] = { 1, 1, 1, 1 };
    CHECK(sk_sgemm(SK_NOTRANS, SK_NOTRANS, 2, 2, 2, 1.f, a2, 2, b2, 2, 0.f, c2, 2) == SK_OK,
          "good call");
    CHECK(c2[0] == 19 && c2[1] == 22 && c2[2] == 43 && c2[3] == 50, "2x2 product %g %g %g %g",
          c2[0], c2[1], c2[2], c2[3]);
    /* A^T B^T with alpha, beta: (A^T B^T)^T = B A */
    float c3[4] = { 1, 2, 3, 4 };
    CHECK(sk_sgemm(SK_TRANS, SK_TRANS, 2, 2, 2, 2.f, a2, 2, b2, 2, 1.f, c3, 2) == SK_OK, "TT call");
    /* A^T = [1 3; 2 4], B^T = [5 7; 6 8]: A^T B^T = [23 31; 34 46] */
    CHECK(c3[0] == 47 && c3[1] == 64 && c3[2] == 71 && c3[3] == 96, "TT product %g %g %g %g",
          c3[0], c3[1], c3[2], c3[3]);

    const size_t m = 3, n = 4, k = 5;
    for (int ta = 0; ta < 2; ta++)
        for (int tb = 0; tb < 2; tb++) {
            /* the row length each leading dimension strides over */
            const size_t a_cols = ta ? m : k, b_cols = tb ? k : n;
            const gemm_args good = { (sk_trans)ta, (sk_trans)tb, m, n, k, 1.f, g_a, a_cols, g_b,
                                     b_cols, 0.5f, g_out, n };
            gemm_args g;
            poison();
            CHECK(gemm(good) == SK_OK, "good call ta=%d tb=%d", ta, tb);
            CHECK(!untouched(g_out, m * n * sizeof(float)), "good call wrote nothing");
            CHECK(untouched(g_out + m * n, sizeof g_out - m * n * sizeof(float)),
                  "good call wrote past C");

            for (size_t i = 0; i < sizeof k_bad_trans / sizeof k_bad_trans[0]; i++) {
                g = good; g.ta = k_bad_trans[i];
                EXPECT(SK_EINVAL, gemm(g), "ta=%d", (int)k_bad_trans[i]);
                g = good; g.tb = k_bad_trans[i];
                EXPECT(SK_EINVAL, gemm(g), "tb=%d", (int)k_bad_trans[i]);
            }
            g = good; g.a = NULL;
            EXPECT(SK_EINVAL, gemm(g), "a NULL ta=%d tb=%d", ta, tb);
            g = good; g.b = NULL;
            EXPECT(SK_EINVAL, gemm(g), "b NULL ta=%d tb=%d", ta, tb);
            g = good; g.c = NULL;
            EXPECT(SK_EINVAL, gemm(g), "c NULL ta=%d tb=%d", ta, tb);
            g = good; g.lda = a_cols - 1;
            EXPECT(SK_EINVAL, gemm(g), "lda small ta=%d tb=%d", ta, tb);
            g = good; g.ldb = b_cols - 1;
            EXPECT(SK_EINVAL, gemm(g), "ldb small ta=%d tb=%d", ta, tb);
            g = good; g.ldc = n - 1;
            EXPECT(SK_EINVAL, gemm(g), "ldc small ta=%d tb=%d", ta, tb);
            g = good; g.lda = 0;
            EXPECT(SK_EINVAL, gemm(g), "lda 0 ta=%d tb=%d", ta, tb);
            /* the leading dimension follows the transpose: for op(A) = A^T, lda >= m, not k */
            /* m = 3 < k = 5: A (3x5) needs lda >= 5, A^T (A is 5x3) needs lda >= 3 */
            g = good; g.ta = (sk_trans)!ta;
            EXPECT(ta ? SK_EINVAL : SK_OK, gemm(g), "lda %zu for the other transpose ta=%d", g.lda,
                   ta);
            g = good; g.ta = (sk_trans)!ta; g.lda = k;
            EXPECT(SK_OK, gemm(g), "lda=k ta=%d", !ta);
            g = good; g.tb = (sk_trans)!tb; /* B 5x4 needs ldb >= 4, B^T 4x5 needs ldb >= 5 */
            EXPECT(tb ? SK_OK : SK_EINVAL, gemm(g), "ldb %zu for the other transpose tb=%d", g.ldb,
                   tb);

            /* zero sizes: OK with NULL pointers and any ld, nothing written */
            g = good; g.m = 0; g.a = NULL; g.c = NULL; g.lda = g.ldc = 0;
            EXPECT(SK_OK, gemm(g), "m=0");
            g = good; g.n = 0; g.b = NULL; g.c = NULL; g.ldb = g.ldc = 0;
            EXPECT(SK_OK, gemm(g), "n=0");
            g = good; g.m = g.n = g.k = 0; g.a = g.b = NULL; g.c = NULL;
            EXPECT(SK_OK, gemm(g), "m=n=k=0");
        }

    /* k == 0: C = beta * C, A and B may be NULL; beta == 0 does not read C (NaN in C disappears) */
    g_fn = "sk_sgemm k=0";
    float c4[6] = { 1, 2, 3, 4, 5, NAN };
    CHECK(sk_sgemm(SK_NOTRANS, SK_NOTRANS, 2, 2, 0, 1.f, NULL, 0, NULL, 0, 2.f, c4, 3) == SK_OK,
          "k=0");
    CHECK(c4[0] == 2 && c4[1] == 4 && c4[2] == 3 && c4[3] == 8 && c4[4] == 10 && isnan(c4[5]),
          "k=0 beta=2: %g %g %g %g %g", c4[0], c4[1], c4[2], c4[3], c4[4]);
    float c5[4] = { NAN, NAN, NAN, NAN };
    CHECK(sk_sgemm(SK_NOTRANS, SK_TRANS, 2, 2, 0, 1.f, NULL, 0, NULL, 0, 0.f, c5, 2) == SK_OK,
          "k=0");
    CHECK(c5[0] == 0 && c5[1] == 0 && c5[2] == 0 && c5[3] == 0, "k=0 beta=0 must give zeros");
    /* beta == 0 with NaN in C: C not read */
    float c6[4] = { NAN, NAN, NAN, NAN };
    CHECK(sk_sgemm(SK_NOTRANS, SK_NOTRANS, 2, 2, 2, 1.f, a2, 2, b2, 2, 0.f, c6, 2) == SK_OK,
          "beta=0");
    CHECK(c6[0] == 19 && c6[3] == 50, "beta=0 read C: %g %g", c6[0], c6[3]);
}

/* ---------------------------------------------------------------------------------------------- */
static void test_exp(void)
{
    g_fn = "sk_exp";
    poison();
    CHECK(sk_exp(7, g_a, g_out) == SK_OK, "good call");
    CHECK(g_out[0] == expf(g_a[0]) || fabsf(g_out[0] - expf(g_a[0])) <= 1e-6f * expf(g_a[0]),
          "exp value");
    CHECK(untouched(g_out + 7, sizeof g_out - 7 * sizeof(float)), "wrote past y");
    EXPECT(SK_EINVAL, sk_exp(7, NULL, g_out), "x NULL");
    EXPECT(SK_EINVAL, sk_exp(7, g_a, NULL), "y NULL");
    EXPECT(SK_EINVAL, sk_exp(1, NULL, NULL), "both NULL");
    EXPECT(SK_OK, sk_exp(0, NULL, NULL), "n=0");
    EXPECT(SK_OK, sk_exp(0, g_a, g_out), "n=0");
    CHECK(all_untouched(), "n=0 wrote");
    /* in place */
    float x[3] = { 0.f, -INFINITY, INFINITY };
    CHECK(sk_exp(3, x, x) == SK_OK && x[0] == 1.f && x[1] == 0.f && x[2] == INFINITY, "in place");
}

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
/* sk_exp leaves the caller's MXCSR control bits (rounding, FTZ, DAZ, exception masks) as they
   were, whatever the inputs (subnormal, flushed, overflowing: every path of the loop and tail),
   starting from the default state and from one with FTZ and DAZ already set. */
static void test_exp_mxcsr(void)
{
    g_fn = "sk_exp (MXCSR)";
    enum { N = 45 };
    float x[N], y[N];
    for (int i = 0; i < N; i++) x[i] = -95.f + 0.5f * (float)i; /* normal, flushed results */
    x[3] = 1e-40f;                                                /* a subnormal input */
    x[40] = 100.f;                                                /* overflow: the slow path */
    const unsigned ctl = 0xffc0u, start = _mm_getcsr();
    const unsigned states[2] = { start & ~0x8040u, start | 0x8040u };
    volatile float tiny = 1e-20f; /* tiny * tiny = 1e-40: subnormal, 0 under FTZ */
    for (int s = 0; s < 2; s++) {
        _mm_setcsr(states[s]);
        const sk_status st = sk_exp(N, x, y);
        const unsigned after = _mm_getcsr();
        const float sub = tiny * tiny * 1e10f; /* in the caller's state after the call */
        _mm_setcsr(start);
        CHECK(st == SK_OK, "status");
        CHECK((after & ctl) == (states[s] & ctl), "MXCSR %#x -> %#x", states[s], after);
        CHECK((sub != 0.f) == (s == 0), "FTZ %s after the call", s == 0 ? "set" : "cleared");
        CHECK(y[3] == 1.f && y[40] == INFINITY && y[0] <= FLT_MIN, "values %g %g %g", y[3], y[40],
              y[0]);
    }
}
#else
static void test_exp_mxcsr(void) {}
#endif

/* ---------------------------------------------------------------------------------------------- */
typedef struct {
    size_t rows, cols;
    float scale;
    const float *x; size_t ldx;
    const sk_mask *mask;
    float *y; size_t ldy;
} smx_args;
static sk_status softmax(smx_args s)
{
    return sk_softmax(s.rows, s.cols, s.x, s.ldx, s.y, s.ldy);
}
static sk_status smsoftmax(smx_args s)
{
    return sk_scale_mask_softmax(s.rows, s.cols, s.scale, s.x, s.ldx, s.mask, s.y, s.ldy);
}

static void softmax_common(sk_status (*fn)(smx_args), const char *name)
{
    g_fn = name;
    const size_t rows = 3, cols = 5;
    const smx_args good = { rows, cols, 0.5f, g_a, 6, NULL, g_out, 7 };
    smx_args s;
    poison();
    CHECK(fn(good) == SK_OK, "good call");
    float sum = 0;
    for (size_t c = 0; c < cols; c++) sum += g_out[7 + c];
    CHECK(fabsf(sum - 1.f) < 1e-5f, "row 1 sums to %g", sum);
    CHECK(untouched(g_out + 5, 2 * sizeof(float)), "wrote into the ld padding");
    s = good; s.x = NULL;       EXPECT(SK_EINVAL, fn(s), "x NULL");
    s = good; s.y = NULL;       EXPECT(SK_EINVAL, fn(s), "y NULL");
    s = good; s.ldx = cols - 1; EXPECT(SK_EINVAL, fn(s), "ldx < cols");
    s = good; s.ldy = cols - 1; EXPECT(SK_EINVAL, fn(s), "ldy < cols");
    s = good; s.ldx = 0;        EXPECT(SK_EINVAL, fn(s), "ldx 0");
    s = good; s.ldy = 0;        EXPECT(SK_EINVAL, fn(s), "ldy 0");
    s = good; s.rows = 1; s.ldx = 0; s.ldy = 0; EXPECT(SK_EINVAL, fn(s), "ld 0 with one row");
    s = good; s.rows = 0; s.x = NULL; s.y = NULL; s.ldx = s.ldy = 0;
    EXPECT(SK_OK, fn(s), "rows=0");
    s = good; s.cols = 0; s.x = NULL; s.y = NULL; s.ldx = s.ldy = 0;
    EXPECT(SK_OK, fn(s), "cols=0");
    s = good; s.rows = 0;       EXPECT(SK_OK, fn(s), "rows=0, buffers given");
    CHECK(all_untouched(), "rows=0 wrote");
}

static void test_softmax(void)
{
    softmax_common(softmax, "sk_softmax");
    /* hand-computed: softmax([0, ln 2, ln 3]) = [1/6, 2/6, 3/6] */
    float x[3] = { 0.f, logf(2.f), logf(3.f) }, y[3];
    CHECK(sk_softmax(1, 3, x, 3, y, 3) == SK_OK, "good call");
    CHECK(fabsf(y[0] - 1.f / 6) < 1e-6f && fabsf(y[1] - 2.f / 6) < 1e-6f &&
              fabsf(y[2] - 3.f / 6) < 1e-6f,
          "softmax [0, ln2, ln3] = %g %g %g", y[0], y[1], y[2]);
}

static void test_scale_mask_softmax(void)
{
    softmax_common(smsoftmax, "sk_scale_mask_softmax");
    g_fn = "sk_scale_mask_softmax masks";
    const size_t rows = 3, cols = 5;
    static const float add[3 * 8] = { 0 };
    const sk_mask m_keys = { SK_MASK_KEYS, g_u8, 0, 0 };
    const sk_mask m_bool = { SK_MASK_BOOL, g_u8, 6, 0 };
    const sk_mask m_add = { SK_MASK_ADD, add, 8, 0 };
    const sk_mask m_causal = { SK_MASK_CAUSAL, NULL, 0, -1 };
    const sk_mask m_none = { SK_MASK_NONE, NULL, 0, 0 };
    const sk_mask *goods[] = { NULL, &m_keys, &m_bool, &m_add, &m_causal, &m_none };
    for (size_t i = 0; i < sizeof goods / sizeof goods[0]; i++) {
        const smx_args good = { rows, cols, 0.5f, g_a, 6, goods[i], g_out, 7 };
        EXPECT(SK_OK, smsoftmax(good), "good mask %zu", i);
    }
    /* causal with offset -1: row 0 is fully masked and must be exactly zeros */
    {
        const smx_args s = { rows, cols, 1.f, g_a, 6, &m_causal, g_out, 7 };
        poison();
        CHECK(smsoftmax(s) == SK_OK, "causal");
        for (size_t c = 0; c < cols; c++)
            CHECK(g_out[c] == 0.f && !signbit(g_out[c]), "fully masked row 0 col %zu = %g", c,
                  g_out[c]);
        CHECK(g_out[7] == 1.f && g_out[8] == 0.f, "row 1 attends only col 0: %g %g", g_out[7],
              g_out[8]);
    }
    sk_mask bad;
    const smx_args base = { rows, cols, 0.5f, g_a, 6, NULL, g_out, 7 };
    smx_args s = base;
    s.mask = &bad;
    for (size_t i = 0; i < sizeof k_bad_kinds / sizeof k_bad_kinds[0]; i++) {
        bad = (sk_mask){ k_bad_kinds[i], g_u8, 8, 0 };
        EXPECT(SK_EINVAL, smsoftmax(s), "unknown mask kind %d", (int)k_bad_kinds[i]);
    }
    bad = m_keys; bad.data = NULL;   EXPECT(SK_EINVAL, smsoftmax(s), "KEYS data NULL");
    bad = m_bool; bad.data = NULL;   EXPECT(SK_EINVAL, smsoftmax(s), "BOOL data NULL");
    bad = m_bool; bad.ld = cols - 1; EXPECT(SK_EINVAL, smsoftmax(s), "BOOL ld < cols");
    bad = m_bool; bad.ld = 0;        EXPECT(SK_EINVAL, smsoftmax(s), "BOOL ld 0");
    bad = m_add; bad.data = NULL;    EXPECT(SK_EINVAL, smsoftmax(s), "ADD data NULL");
    bad = m_add; bad.ld = cols - 1;  EXPECT(SK_EINVAL, smsoftmax(s), "ADD ld < cols");
    /* a bad mask together with zero rows/cols is still fine when the mask needs no data */
    s.rows = 0; s.x = NULL; s.y = NULL;
    bad = m_bool; bad.data = NULL;   EXPECT(SK_OK, smsoftmax(s), "BOOL NULL, rows=0");
}

/* ---------------------------------------------------------------------------------------------- */
typedef struct {
    size_t n_heads; /* 0: sk_attention */
    size_t n_q, n_kv, d_k, d_v;
    const float *q; size_t ldq;
    const float *k; size_t ldk;
    const float *v; size_t ldv;
    float scale;
    const sk_mask *mask;
    float *out; size_t ldo;
    float *weights;
} attn_args;
static sk_status attention(attn_args t)
{
    return sk_attention(t.n_q, t.n_kv, t.d_k, t.d_v, t.q, t.ldq, t.k, t.ldk, t.v, t.ldv, t.scale,
                        t.mask, t.out, t.ldo, t.weights);
}
static sk_status mha(attn_args t)
{
    return sk_mha(t.n_heads, t.n_q, t.n_kv, t.d_k, t.q, t.ldq, t.k, t.ldk, t.v, t.ldv, t.scale,
                  t.mask, t.out, t.ldo, t.weights);
}

static void attn_bad_common(sk_status (*fn)(attn_args), attn_args good, size_t wq, size_t wv)
{
    attn_args t;
    for (int w = 0; w < 2; w++) {
        good.weights = w ? g_w : NULL;
        poison();
        CHECK(fn(good) == SK_OK, "good call weights=%d", w);
        CHECK(!untouched(g_out, sizeof(float)), "good call wrote nothing");
        CHECK(untouched(g_w, sizeof g_w) == !w, "weights written iff given");
        t = good; t.q = NULL;     EXPECT(SK_EINVAL, fn(t), "q NULL");
        t = good; t.k = NULL;     EXPECT(SK_EINVAL, fn(t), "k NULL");
        t = good; t.v = NULL;     EXPECT(SK_EINVAL, fn(t), "v NULL");
        t = good; t.out = NULL;   EXPECT(SK_EINVAL, fn(t), "out NULL");
        t = good; t.ldq = wq - 1; EXPECT(SK_EINVAL, fn(t), "ldq small");
        t = good; t.ldk = wq - 1; EXPECT(SK_EINVAL, fn(t), "ldk small");
        t = good; t.ldv = wv - 1; EXPECT(SK_EINVAL, fn(t), "ldv small");
        t = good; t.ldo = wv - 1; EXPECT(SK_EINVAL, fn(t), "ldo small");
        t = good; t.ldq = t.ldk = t.ldv = t.ldo = 0; EXPECT(SK_EINVAL, fn(t), "all ld 0");
        sk_mask bad;
        t = good; t.mask = &bad;
        for (size_t i = 0; i < sizeof k_bad_kinds / sizeof k_bad_kinds[0]; i++) {
            bad = (sk_mask){ k_bad_kinds[i], g_u8, 64, 0 };
            EXPECT(SK_EINVAL, fn(t), "unknown mask kind %d", (int)k_bad_kinds[i]);
        }
        bad = (sk_mask){ SK_MASK_KEYS, NULL, 0, 0 };
        EXPECT(SK_EINVAL, fn(t), "KEYS NULL");
        bad = (sk_mask){ SK_MASK_BOOL, NULL, 64, 0 };
        EXPECT(SK_EINVAL, fn(t), "BOOL NULL");
        bad = (sk_mask){ SK_MASK_BOOL, g_u8, good.n_kv - 1, 0 };
        EXPECT(SK_EINVAL, fn(t), "BOOL ld < n_kv");
        bad = (sk_mask){ SK_MASK_ADD, NULL, 64, 0 };
        EXPECT(SK_EINVAL, fn(t), "ADD NULL");
        bad = (sk_mask){ SK_MASK_ADD, g_c, good.n_kv - 1, 0 };
        EXPECT(SK_EINVAL, fn(t), "ADD ld < n_kv");
        /* zero sizes */
        t = good; t.n_q = 0; t.q = NULL; t.out = NULL; t.ldq = t.ldo = 0;
        EXPECT(SK_OK, fn(t), "n_q=0");
        CHECK(all_untouched(), "n_q=0 wrote");
    }
    /* n_kv == 0: every query row attends to nothing -> zero output rows */
    t = good; t.n_kv = 0; t.k = NULL; t.v = NULL; t.ldk = t.ldv = 0; t.weights = NULL;
    poison();
    CHECK(fn(t) == SK_OK, "n_kv=0");
    for (size_t r = 0; r < good.n_q; r++)
        for (size_t c = 0; c < wv; c++)
            CHECK(g_out[r * good.ldo + c] == 0.f, "n_kv=0: out[%zu,%zu] = %g", r, c,
                  g_out[r * good.ldo + c]);
    /* d_k == 0: all scores 0 -> uniform weights, out = column means of v */
    if (fn == attention) {
        t = good; t.d_k = 0; t.q = NULL; t.k = NULL; t.ldq = t.ldk = 0;
        t.weights = g_w; t.mask = NULL;
        poison();
        CHECK(fn(t) == SK_OK, "d_k=0");
        CHECK(fabsf(g_w[0] - 1.f / (float)good.n_kv) < 1e-6f, "d_k=0: weight %g", g_w[0]);
    }
}

static void test_attention(void)
{
    g_fn = "sk_attention";
    const size_t n_q = 3, n_kv = 5, d_k = 4, d_v = 6;
    const sk_mask keys = { SK_MASK_KEYS, g_u8 + 1, 0, 0 };
    const attn_args good = { 0, n_q, n_kv, d_k, d_v, g_a, 5, g_b, 4, g_c, 7, 0.5f,
                             &keys, g_out, 8, NULL };
    attn_bad_common(attention, good, d_k, d_v);
    /* d_v == 0: out has no columns; NULL v is fine */
    attn_args t = good; t.d_v = 0; t.v = NULL; t.ldv = t.ldo = 0;
    EXPECT(SK_OK, attention(t), "d_v=0");
    t.out = NULL;
    EXPECT(SK_OK, attention(t), "d_v=0, out NULL");
}

static void test_mha(void)
{
    g_fn = "sk_mha";
    const size_t h = 3, n_q = 2, n_kv = 5, dh = 4, w = h * dh;
    const attn_args good = { h, n_q, n_kv, dh, dh, g_a, w, g_b, w + 1, g_c, w + 3, 0.25f,
                             NULL, g_out, w, NULL };
    attn_bad_common(mha, good, w, w);
    attn_args t = good;
    t.n_heads = 0;            EXPECT(SK_EINVAL, mha(t), "n_heads=0");
    t.weights = g_w;          EXPECT(SK_EINVAL, mha(t), "n_heads=0 with weights");
    t = good; t.n_heads = 0; t.n_q = 0; t.n_kv = 0; t.d_k = 0; t.q = t.k = t.v = NULL; t.out = NULL;
    EXPECT(SK_EINVAL, mha(t), "n_heads=0 even when everything else is empty");
    /* one head too many for the leading dimensions */
    t = good; t.n_heads = h + 1; EXPECT(SK_EINVAL, mha(t), "n_heads*d_head > ld");
    /* n_heads * d_head overflows size_t: must not wrap into a small width */
    t = good; t.n_heads = ((size_t)1 << (sizeof(size_t) * 8 - 2)) + 1; t.d_k = 4;
    EXPECT(SK_EINVAL, mha(t), "n_heads*d_head overflow");
    t = good; t.d_k = 0; t.q = t.k = t.v = NULL;
    EXPECT(SK_OK, mha(t), "d_head=0");
    t.out = NULL;
    EXPECT(SK_OK, mha(t), "d_head=0, out NULL");
}

/* ---------------------------------------------------------------------------------------------- */
static void test_mhca(void)
{
    g_fn = "sk_mhca";
    enum { D = 8, H = 2, ND = 3, NE = 4 };
    const sk_mhca good = { D, H, g_a, g_b, g_c, g_a + 64 };
    CHECK(sk_mhca_workspace_size(&good, ND, NE) > 0, "workspace size");
    CHECK(sk_mhca_workspace_size(&good, ND, NE) <= sizeof g_ws, "workspace size %zu > test buffer",
          sk_mhca_workspace_size(&good, ND, NE));
    CHECK(sk_mhca_workspace_size(NULL, ND, NE) == 0, "workspace size of NULL layer");
    for (int w = 0; w < 2; w++)
        for (int ws = 0; ws < 2; ws++) {
            float *wts = w ? g_w : NULL;
            void *wsp = ws ? (void *)g_ws : NULL;
            poison();
            CHECK(sk_mhca_forward(&good, ND, g_b, NE, g_c, g_u8, g_out, wts, wsp) == SK_OK,
                  "good call");
            CHECK(!untouched(g_out, sizeof(float)), "good call wrote nothing");
            CHECK(untouched(g_out + ND * D, sizeof g_out - ND * D * sizeof(float)),
                  "wrote past out");
            sk_mhca L;
#define MHCA_BAD(what, ...)                                                                        \
    EXPECT(SK_EINVAL, sk_mhca_forward(__VA_ARGS__), what " (weights=%d ws=%d)", w, ws)
            MHCA_BAD("layer NULL", NULL, ND, g_b, NE, g_c, g_u8, g_out, wts, wsp);
            L = good; L.n_heads = 0;
            MHCA_BAD("n_heads=0", &L, ND, g_b, NE, g_c, g_u8, g_out, wts, wsp);
            CHECK(sk_mhca_workspace_size(&L, ND, NE) == 0, "workspace size with n_heads=0");
            L = good; L.n_heads = 3;
            MHCA_BAD("d_model %% n_heads != 0", &L, ND, g_b, NE, g_c, g_u8, g_out, wts, wsp);
            CHECK(sk_mhca_workspace_size(&L, ND, NE) == 0,
                  "workspace size with d_model %% n_heads");
            L = good; L.w_q = NULL;
            MHCA_BAD("w_q NULL", &L, ND, g_b, NE, g_c, g_u8, g_out, wts, wsp);
            L = good; L.w_k = NULL;
            MHCA_BAD("w_k NULL", &L, ND, g_b, NE, g_c, g_u8, g_out, wts, wsp);
            L = good; L.w_v = NULL;
            MHCA_BAD("w_v NULL", &L, ND, g_b, NE, g_c, g_u8, g_out, wts, wsp);
            L = good; L.w_o = NULL;
            MHCA_BAD("w_o NULL", &L, ND, g_b, NE, g_c, g_u8, g_out, wts, wsp);
            MHCA_BAD("dec NULL", &good, ND, NULL, NE, g_c, g_u8, g_out, wts, wsp);
            MHCA_BAD("enc NULL", &good, ND, g_b, NE, NULL, g_u8, g_out, wts, wsp);
            MHCA_BAD("out NULL", &good, ND, g_b, NE, g_c, g_u8, NULL, wts, wsp);
#undef MHCA_BAD
            EXPECT(SK_OK, sk_mhca_forward(&good, 0, NULL, NE, g_c, g_u8, NULL, NULL, wsp),
                   "n_dec=0");
            CHECK(all_untouched(), "n_dec=0 wrote");
        }
    /* n_enc == 0: nothing to attend to -> zero heads -> out = 0 W_o = 0 */
    poison();
    CHECK(sk_mhca_forward(&good, ND, g_b, 0, NULL, NULL, g_out, NULL, NULL) == SK_OK, "n_enc=0");
    for (int i = 0; i < ND * D; i++) CHECK(g_out[i] == 0.f, "n_enc=0: out[%d] = %g", i, g_out[i]);
    /* every encoder position masked out: same */
    static const uint8_t none[NE] = { 0 };
    poison();
    CHECK(sk_mhca_forward(&good, ND, g_b, NE, g_c, none, g_out, g_w, NULL) == SK_OK, "all masked");
    for (int i = 0; i < ND * D; i++)
        CHECK(g_out[i] == 0.f, "all masked: out[%d] = %g", i, g_out[i]);
    for (int i = 0; i < H * ND * NE; i++)
        CHECK(g_w[i] == 0.f, "all masked: weight[%d] = %g", i, g_w[i]);
    /* d_model == 0 is an empty layer: OK, nothing to do */
    const sk_mhca empty = { 0, 1, NULL, NULL, NULL, NULL };
    EXPECT(SK_OK, sk_mhca_forward(&empty, ND, NULL, NE, NULL, NULL, NULL, NULL, NULL), "d_model=0");
}

/* d_enc and the biases: every sk_mhca_* function, good calls and bad input. */
static void test_mhca_enc_bias(void)
{
    g_fn = "sk_mhca d_enc/bias";
    enum { D = 8, DE = 5, H = 2, ND = 3, NE = 4 };
    sk_mhca good = { D, H, g_a, g_b, g_c, g_a + 64 };
    good.d_enc = DE;
    good.b_q = g_b + 100; good.b_v = g_c + 200; good.b_o = g_a + 300; /* b_k NULL */
    CHECK(sk_mhca_kv_size(&good, NE) == 2 * NE * D * sizeof(float), "kv size %zu",
          sk_mhca_kv_size(&good, NE));
    /* K and V, Q and the concat at the padded row stride (8 floats: one cache line, odd, so 16),
       and 64 bytes of slack to align the start */
    enum { LDW = 16 };
    CHECK(sk_mhca_workspace_size(&good, ND, NE) ==
              (2 * NE * LDW + 2 * ND * LDW) * sizeof(float) + 64,
          "workspace size %zu", sk_mhca_workspace_size(&good, ND, NE));
    CHECK(sk_mhca_forward_kv_workspace_size(&good, ND) == 2 * ND * LDW * sizeof(float) + 64,
          "step ws size");
    for (int w = 0; w < 2; w++) {
        float *wts = w ? g_w : NULL;
        poison();
        CHECK(sk_mhca_forward(&good, ND, g_b, NE, g_c, g_u8, g_out, wts, NULL) == SK_OK,
              "good call");
        CHECK(!untouched(g_out, ND * D * sizeof(float)), "good call wrote nothing");
        CHECK(untouched(g_out + ND * D, sizeof g_out - ND * D * sizeof(float)), "wrote past out");
        sk_mhca L;
#define EB_BAD(what, ...) EXPECT(SK_EINVAL, sk_mhca_forward(__VA_ARGS__), what " (weights=%d)", w)
        L = good; L.w_k = NULL; EB_BAD("w_k NULL", &L, ND, g_b, NE, g_c, g_u8, g_out, wts, NULL);
        L = good; L.d_enc = SIZE_MAX / 4;
        EB_BAD("d_enc x d_model overflows", &L, ND, g_b, NE, g_c, g_u8, g_out, wts, NULL);
        CHECK(sk_mhca_workspace_size(&L, ND, NE) == 0 && sk_mhca_kv_size(&L, NE) == 0 &&
              sk_mhca_forward_kv_workspace_size(&L, ND) == 0, "sizes with d_enc overflowing not 0");
        L = good; L.d_enc = (size_t)1 << 40;
        EB_BAD("n_enc x d_enc overflows", &L, ND, g_b, (size_t)1 << 22, g_c, NULL, g_out, NULL,
               NULL);
        EB_BAD("enc NULL", &good, ND, g_b, NE, NULL, g_u8, g_out, wts, NULL);
#undef EB_BAD
    }
    /* the kv buffer: K and V with the encoder width and b_v, then the steps */
    static float kv[2 * NE * D], all[ND * D], step[D];
    poison();
    EXPECT(SK_OK, sk_mhca_project_kv(&good, NE, g_c, g_out), "project_kv");
    poison();
    CHECK(sk_mhca_project_kv(&good, NE, g_c, g_out) == SK_OK, "project_kv");
    CHECK(untouched((char *)g_out + sizeof kv, sizeof g_out - sizeof kv), "project_kv extent");
    memcpy(kv, g_out, sizeof kv);
    /* by hand: K[0][c] = sum_p enc[0][p] w_k[p][c] (no b_k), V[0][c] = ... + b_v[c] */
    for (int c = 0; c < D; c++) {
        double k0 = 0, v0 = g_c[200 + c];
        for (int p = 0; p < DE; p++) {
            k0 += (double)g_c[p] * g_b[p * D + c];
            v0 += (double)g_c[p] * g_c[p * D + c];
        }
        CHECK(fabs(kv[c] - k0) <= 1e-5 * (1 + fabs(k0)), "K[0][%d] = %g, expected %g", c, kv[c],
              k0);
        CHECK(fabs(kv[NE * D + c] - v0) <= 1e-5 * (1 + fabs(v0)), "V[0][%d] = %g, expected %g", c,
              kv[NE * D + c], v0);
    }
    sk_mhca L = good;
    L.d_enc = SIZE_MAX / 4;
    EXPECT(SK_EINVAL, sk_mhca_project_kv(&L, NE, g_c, g_out), "project_kv with d_enc overflowing");
    EXPECT(SK_EINVAL, sk_mhca_forward_kv(&L, ND, g_b, NE, kv, g_u8, g_out, NULL, NULL),
           "forward_kv with d_enc overflowing");
    L = good; L.d_enc = (size_t)1 << 40;
    EXPECT(SK_EINVAL, sk_mhca_project_kv(&L, (size_t)1 << 22, g_c, g_out),
           "project_kv n_enc x d_enc");
    EXPECT(SK_EINVAL,
           sk_mhca_forward_kv(&good, ND, g_b, (size_t)1 << 62, kv, NULL, g_out, g_w, NULL),
           "weights n_heads x n_dec x n_enc overflows");
    CHECK(sk_mhca_forward(&good, ND, g_b, NE, g_c, g_u8, all, NULL, NULL) == SK_OK, "forward");
    for (int r = 0; r < ND; r++) {
        CHECK(sk_mhca_forward_kv(&good, 1, g_b + r * D, NE, kv, g_u8, step, NULL, NULL) == SK_OK,
              "step");
        for (int c = 0; c < D; c++)
            CHECK(fabsf(step[c] - all[r * D + c]) <= 1e-5f * (1.f + fabsf(all[r * D + c])),
                  "step %d col %d: %g vs %g", r, c, step[c], all[r * D + c]);
    }
    /* every source position padded, or none: out = b_o exactly */
    static const uint8_t none[NE] = { 0 };
    CHECK(sk_mhca_forward(&good, ND, g_b, NE, g_c, none, all, NULL, NULL) == SK_OK, "all padded");
    for (int i = 0; i < ND * D; i++)
        CHECK(all[i] == good.b_o[i % D], "all padded: out[%d] = %g", i, all[i]);
    CHECK(sk_mhca_forward(&good, ND, g_b, 0, NULL, NULL, all, NULL, NULL) == SK_OK, "n_enc 0");
    for (int i = 0; i < ND * D; i++)
        CHECK(all[i] == good.b_o[i % D], "n_enc 0: out[%d] = %g", i, all[i]);
    /* d_model == 0 with a d_enc: an empty layer (nothing written), whose encoder rows still have
       d_enc floats: NULL enc with n_enc > 0 is bad input */
    sk_mhca empty = { 0, 1, NULL, NULL, NULL, NULL };
    empty.d_enc = 7;
    EXPECT(SK_OK, sk_mhca_forward(&empty, ND, NULL, NE, g_c, NULL, NULL, NULL, NULL),
           "d_model=0, d_enc 7");
    CHECK(all_untouched(), "d_model=0 wrote");
    EXPECT(SK_EINVAL, sk_mhca_forward(&empty, ND, NULL, NE, NULL, NULL, NULL, NULL, NULL),
           "d_model=0, d_enc 7, enc NULL");
}

/* The decoder-step API: K/V projected once, then any number of forward_kv calls. */
static void test_mhca_kv(void)
{
    g_fn = "sk_mhca_kv";
    enum { D = 8, H = 2, ND = 3, NE = 4 };
    const sk_mhca good = { D, H, g_a, g_b, g_c, g_a + 64 };
    const size_t kvb = sk_mhca_kv_size(&good, NE);
    CHECK(kvb == 2 * NE * D * sizeof(float), "sk_mhca_kv_size = %zu", kvb);
    CHECK(sk_mhca_kv_size(NULL, NE) == 0, "kv size of NULL layer");
    CHECK(sk_mhca_forward_kv_workspace_size(NULL, ND) == 0, "workspace size of NULL layer");
    CHECK(sk_mhca_forward_kv_workspace_size(&good, ND) <= sizeof g_ws,
          "workspace too big for the test");
    static float kv[2 * NE * D];
    poison();
    CHECK(sk_mhca_project_kv(&good, NE, g_c, g_out) == SK_OK, "project_kv");
    CHECK(!untouched(g_out, kvb) && untouched((char *)g_out + kvb, sizeof g_out - kvb),
          "project_kv extent");
    memcpy(kv, g_out, sizeof kv);
    sk_mhca L;
#define KV_BAD(what, ...) EXPECT(SK_EINVAL, sk_mhca_project_kv(__VA_ARGS__), what)
    KV_BAD("layer NULL", NULL, NE, g_c, g_out);
    L = good; L.n_heads = 0; KV_BAD("n_heads=0", &L, NE, g_c, g_out);
    CHECK(sk_mhca_kv_size(&L, NE) == 0, "kv size with n_heads=0");
    L = good; L.n_heads = 3; KV_BAD("d_model %% n_heads", &L, NE, g_c, g_out);
    L = good; L.w_k = NULL;  KV_BAD("w_k NULL", &L, NE, g_c, g_out);
    L = good; L.w_v = NULL;  KV_BAD("w_v NULL", &L, NE, g_c, g_out);
    KV_BAD("enc NULL", &good, NE, NULL, g_out);
    KV_BAD("kv NULL", &good, NE, g_c, NULL);
#undef KV_BAD
    EXPECT(SK_OK, sk_mhca_project_kv(&good, 0, NULL, NULL), "n_enc=0");
    for (int w = 0; w < 2; w++)
        for (int ws = 0; ws < 2; ws++) {
            float *wts = w ? g_w : NULL;
            void *wsp = ws ? (void *)g_ws : NULL;
            poison();
            CHECK(sk_mhca_forward_kv(&good, ND, g_b, NE, kv, g_u8, g_out, wts, wsp) == SK_OK,
                  "good call");
            CHECK(!untouched(g_out, sizeof(float)), "good call wrote nothing");
#define FKV_BAD(what, ...)                                                                         \
    EXPECT(SK_EINVAL, sk_mhca_forward_kv(__VA_ARGS__), what " (weights=%d ws=%d)", w, ws)
            FKV_BAD("layer NULL", NULL, ND, g_b, NE, kv, g_u8, g_out, wts, wsp);
            L = good; L.n_heads = 0;
            FKV_BAD("n_heads=0", &L, ND, g_b, NE, kv, g_u8, g_out, wts, wsp);
            L = good; L.n_heads = 3;
            FKV_BAD("d_model %% n_heads", &L, ND, g_b, NE, kv, g_u8, g_out, wts, wsp);
            L = good; L.w_q = NULL;
            FKV_BAD("w_q NULL", &L, ND, g_b, NE, kv, g_u8, g_out, wts, wsp);
            L = good; L.w_o = NULL;
            FKV_BAD("w_o NULL", &L, ND, g_b, NE, kv, g_u8, g_out, wts, wsp);
            FKV_BAD("dec NULL", &good, ND, NULL, NE, kv, g_u8, g_out, wts, wsp);
            FKV_BAD("kv NULL", &good, ND, g_b, NE, NULL, g_u8, g_out, wts, wsp);
            FKV_BAD("out NULL", &good, ND, g_b, NE, kv, g_u8, NULL, wts, wsp);
#undef FKV_BAD
            EXPECT(SK_OK, sk_mhca_forward_kv(&good, 0, NULL, NE, kv, g_u8, NULL, NULL, wsp),
                   "n_dec=0");
            CHECK(all_untouched(), "n_dec=0 wrote");
        }
    /* one step at a time gives the all-at-once rows (same kernels: equal up to rounding) */
    static float all[ND * D], step[D];
    CHECK(sk_mhca_forward(&good, ND, g_b, NE, g_c, g_u8, all, NULL, NULL) == SK_OK, "forward");
    for (int r = 0; r < ND; r++) {
        CHECK(sk_mhca_forward_kv(&good, 1, g_b + r * D, NE, kv, g_u8, step, NULL, NULL) == SK_OK,
              "step");
        for (int c = 0; c < D; c++)
            CHECK(fabsf(step[c] - all[r * D + c]) <= 1e-5f * (1.f + fabsf(all[r * D + c])),
                  "step %d col %d: %g vs %g", r, c, step[c], all[r * D + c]);
    }
}

/* ---------------------------------------------------------------------------------------------- */
static void test_names(void)
{
    g_fn = "names";
    const char *st[4];
    for (int s = 0; s < 4; s++) {
        st[s] = sk_status_str((sk_status)s);
        CHECK(st[s] && st[s][0], "sk_status_str(%d) empty", s);
        for (int t = 0; t < s; t++)
            CHECK(strcmp(st[s], st[t]), "status %d and %d share a string", s, t);
    }
    const int bad_status[] = { 4, 99, -1, 0x7fffffff };
    for (size_t i = 0; i < sizeof bad_status / sizeof bad_status[0]; i++) {
        const char *p = sk_status_str((sk_status)bad_status[i]);
        CHECK(p && p[0], "sk_status_str(%d) gives no string", bad_status[i]);
        for (int t = 0; t < 4 && p; t++)
            CHECK(strcmp(p, st[t]), "status %d looks like %d", bad_status[i], t);
    }
    static const char *const names[SK_ISA_COUNT] = { "scalar", "avx2", "avx512", "neon" };
    for (int i = 0; i < SK_ISA_COUNT; i++)
        CHECK(sk_isa_name((sk_isa)i) && !strcmp(sk_isa_name((sk_isa)i), names[i]),
              "sk_isa_name(%d)", i);
    const int bad_isa[] = { SK_ISA_COUNT, 99, -1, 0x7fffffff };
    for (size_t i = 0; i < sizeof bad_isa / sizeof bad_isa[0]; i++) {
        const char *p = sk_isa_name((sk_isa)bad_isa[i]);
        CHECK(p && p[0], "sk_isa_name(%d) gives no string", bad_isa[i]);
        for (int t = 0; t < SK_ISA_COUNT && p; t++)
            CHECK(strcmp(p, names[t]), "isa %d named %s", bad_isa[i], p);
    }
    char v[32];
    snprintf(v, sizeof v, "%d.%d.%d", SK_VERSION_MAJOR, SK_VERSION_MINOR, SK_VERSION_PATCH);
    CHECK(sk_version() && !strcmp(sk_version(), v), "sk_version %s != %s", sk_version(), v);
}

/* What the CPU offers, from the compiler's own detection (libgcc checks CPUID and XCR0 too):
   an oracle independent of kernels/cpu.c. */
static int expect_available(sk_isa isa)
{
    switch (isa) {
    case SK_ISA_SCALAR: return 1;
#if SK_ARCH_X86_64 && defined(__GNUC__)
    case SK_ISA_AVX2:
        return SK_HAVE_AVX2 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case SK_ISA_AVX512:
        return SK_HAVE_AVX512 && __builtin_cpu_supports("avx512f") &&
               __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx512dq");
#endif
    case SK_ISA_NEON: return SK_ARCH_AARCH64 && SK_HAVE_NEON;
    default: return -1; /* unknown: do not compare */
    }
}

/* The recorded CPU features against the same oracle (internal API, read by later kernels). */
static void test_cpu_features(void)
{
    g_fn = "sk_cpu_features";
    const uint64_t f = sk_cpu_features();
    uint64_t mask_f = 0;
    CHECK(sk_cpu_detect(&mask_f) == sk_cpu_isa_mask() && mask_f == f, "detect is not repeatable");
#if SK_ARCH_X86_64 && defined(__GNUC__)
    static const struct { uint64_t bit; const char *name; } x[] = {
        { SK_CPU_X86_AVX2, "avx2" }, { SK_CPU_X86_FMA, "fma" }, { SK_CPU_X86_AVX512F, "avx512f" },
        { SK_CPU_X86_AVX512DQ, "avx512dq" }, { SK_CPU_X86_AVX512BW, "avx512bw" },
        { SK_CPU_X86_AVX512VL, "avx512vl" }, { SK_CPU_X86_AVX512VNNI, "avx512vnni" },
    };
    const int has[] = { __builtin_cpu_supports("avx2"), __builtin_cpu_supports("fma"),
                        __builtin_cpu_supports("avx512f"), __builtin_cpu_supports("avx512dq"),
                        __builtin_cpu_supports("avx512bw"), __builtin_cpu_supports("avx512vl"),
                        __builtin_cpu_supports("avx512vnni") };
    for (size_t i = 0; i < sizeof x / sizeof x[0]; i++)
        CHECK(!!(f & x[i].bit) == !!has[i], "%s: recorded %d, CPU says %d", x[i].name,
              !!(f & x[i].bit), !!has[i]);
    /* gcc's own CPUID decoding: znver1 = AMD family 17h below model 30h (Zen, Zen+) */
    CHECK(!!(f & SK_CPU_X86_ZEN1) == !!__builtin_cpu_is("znver1"), "zen1: recorded %d, CPU says %d",
          !!(f & SK_CPU_X86_ZEN1), !!__builtin_cpu_is("znver1"));
    /* and Sapphire Rapids (model 8Fh) is one of the SPR class's models */
    CHECK(!__builtin_cpu_is("sapphirerapids") || (f & SK_CPU_X86_SPR),
          "sapphirerapids without the SPR class");
    CHECK(!(f & SK_CPU_X86_SPR) || __builtin_cpu_is("intel"), "SPR class on a non-Intel CPU");
    CHECK(!(f >> 32), "arm bits on x86: %#llx", (unsigned long long)f);
#elif SK_ARCH_AARCH64
    CHECK(f & SK_CPU_ARM_ASIMD, "aarch64 without Advanced SIMD");
    CHECK(!(f & 0xffffffffull), "x86 bits on aarch64: %#llx", (unsigned long long)f);
#endif
}

static sk_isa best_isa(void)
{
    sk_isa best = SK_ISA_SCALAR;
    for (int i = 0; i < SK_ISA_COUNT; i++)
        if (sk_isa_available((sk_isa)i)) best = (sk_isa)i;
    return best;
}

static void test_dispatch(void)
{
    g_fn = "dispatch";
    const char *env = getenv("SIMDKERN_ISA");
    const sk_isa first = sk_isa_active();
    const sk_isa best = best_isa();
    if (!env)
        CHECK(first == best, "default path %s, best available %s", sk_isa_name(first),
              sk_isa_name(best));
#if SK_ARCH_AARCH64 && SK_HAVE_NEON
    if (!env)
        CHECK(first == SK_ISA_NEON, "aarch64 default path is %s, not neon", sk_isa_name(first));
#endif
    CHECK(sk_isa_available(SK_ISA_SCALAR), "scalar not available");
    for (int i = 0; i < SK_ISA_COUNT; i++) {
        const int e = expect_available((sk_isa)i);
        if (e >= 0)
            CHECK(sk_isa_available((sk_isa)i) == e, "sk_isa_available(%s) = %d, CPU says %d",
                  sk_isa_name((sk_isa)i), sk_isa_available((sk_isa)i), e);
    }
#if SK_ARCH_X86_64
    CHECK(!sk_isa_available(SK_ISA_NEON), "neon available on x86");
#elif SK_ARCH_AARCH64
    CHECK(!sk_isa_available(SK_ISA_AVX2) && !sk_isa_available(SK_ISA_AVX512), "x86 ISA on aarch64");
#endif
    const int bad_isa[] = { SK_ISA_COUNT, 99, -1 };
    for (size_t i = 0; i < sizeof bad_isa / sizeof bad_isa[0]; i++)
        CHECK(!sk_isa_available((sk_isa)bad_isa[i]), "sk_isa_available(%d)", bad_isa[i]);

    /* select every ISA in both directions; refused ones leave the active path alone */
    for (int pass = 0; pass < 2; pass++)
        for (int j = 0; j < SK_ISA_COUNT; j++) {
            const sk_isa isa = (sk_isa)(pass ? SK_ISA_COUNT - 1 - j : j);
            const sk_isa before = sk_isa_active();
            const sk_status s = sk_isa_select(isa);
            if (sk_isa_available(isa)) {
                CHECK(s == SK_OK, "select %s: %s", sk_isa_name(isa), sk_status_str(s));
                CHECK(sk_isa_active() == isa, "select %s: active %s", sk_isa_name(isa),
                      sk_isa_name(sk_isa_active()));
                /* and the path works */
                float x[2] = { 0.f, 1.f }, y[2];
                CHECK(sk_exp(2, x, y) == SK_OK && y[0] == 1.f && fabsf(y[1] - 2.7182817f) < 1e-6f,
                      "exp on %s", sk_isa_name(isa));
            } else {
                CHECK(s == SK_EUNSUPPORTED, "select unavailable %s: %s", sk_isa_name(isa),
                      sk_status_str(s));
                CHECK(sk_isa_active() == before, "refused select of %s changed the path",
                      sk_isa_name(isa));
            }
        }
    for (size_t i = 0; i < sizeof bad_isa / sizeof bad_isa[0]; i++) {
        const sk_isa before = sk_isa_active();
        const sk_status s = sk_isa_select((sk_isa)bad_isa[i]);
        CHECK(s == SK_EINVAL || s == SK_EUNSUPPORTED, "select(%d): %s", bad_isa[i],
              sk_status_str(s));
        CHECK(sk_isa_active() == before, "select(%d) changed the path", bad_isa[i]);
    }
    CHECK(sk_isa_select(first) == SK_OK && sk_isa_active() == first, "restore %s",
          sk_isa_name(first));
}

/* SIMDKERN_ISA=VALUE set by the test runner: the first-use path is VALUE if available, else the
   best. */
static int env_mode(const char *value)
{
    g_fn = "SIMDKERN_ISA";
    const char *env = getenv("SIMDKERN_ISA");
    CHECK(env && !strcmp(env, value), "SIMDKERN_ISA is '%s', expected '%s'", env ? env : "(unset)",
          value);
    const sk_isa active = sk_isa_active(); /* the first call into the library */
    sk_isa want = best_isa();
    for (int i = 0; i < SK_ISA_COUNT; i++)
        if (!strcmp(value, sk_isa_name((sk_isa)i)) && sk_isa_available((sk_isa)i)) want = (sk_isa)i;
    CHECK(active == want, "SIMDKERN_ISA=%s: active %s, want %s", value, sk_isa_name(active),
          sk_isa_name(want));
    /* sk_isa_select still overrides the environment */
    CHECK(sk_isa_select(SK_ISA_SCALAR) == SK_OK && sk_isa_active() == SK_ISA_SCALAR,
          "select after env");
    printf("test_api: SIMDKERN_ISA=%s -> %s: %s\n", value, sk_isa_name(active),
           g_fail ? "FAILED" : "ok");
    return g_fail != 0;
}

/* Sizes whose products or sums overflow: size queries return 0, calls SK_EINVAL (never a wrapped
   small size, never a read past the buffers). */
static void test_size_overflow(void)
{
    g_fn = "size overflow";
    const size_t big50 = (size_t)1 << 50, big60 = (size_t)1 << 60, dm = (size_t)1 << 20;
    const sk_mhca wide = { dm, 1, g_a, g_b, g_c, g_a };
    CHECK(sk_mhca_workspace_size(&wide, 1, big50) == 0, "workspace n_enc = 2^50: %zu",
          sk_mhca_workspace_size(&wide, 1, big50));
    CHECK(sk_mhca_workspace_size(&wide, big50, 1) == 0, "workspace n_dec = 2^50: %zu",
          sk_mhca_workspace_size(&wide, big50, 1));
    CHECK(sk_mhca_kv_size(&wide, big50) == 0, "kv size n_enc = 2^50");
    CHECK(sk_mhca_forward_kv_workspace_size(&wide, big50) == 0,
          "forward_kv workspace n_dec = 2^50");
    const sk_mhca small = { 16, 2, g_a, g_b, g_c, g_a };
    CHECK(sk_mhca_workspace_size(&small, 1, big60) == 0, "workspace d 16, n_enc = 2^60");
    EXPECT(SK_EINVAL, sk_mhca_forward(&small, 1, g_b, big60, g_c, NULL, g_out, NULL, g_ws),
           "forward n_enc = 2^60");
    EXPECT(SK_EINVAL, sk_mhca_forward(&small, 1, g_b, big60, g_c, NULL, g_out, NULL, NULL),
           "forward n_enc = 2^60, no workspace");
    EXPECT(SK_EINVAL, sk_mhca_forward_kv(&small, 1, g_b, big60, g_c, NULL, g_out, NULL, g_ws),
           "forward_kv n_enc = 2^60");
    EXPECT(SK_EINVAL, sk_mhca_project_kv(&small, big60, g_c, g_out), "project_kv n_enc = 2^60");
    /* encoder rows n_enc x d_enc beyond the address space, though K and V (n_enc x d_model) fit */
    const sk_mhca wenc = { 6, 2, g_a, g_b, g_c, g_a, (size_t)1 << 32 };
    CHECK(sk_mhca_workspace_size(&wenc, 5, (size_t)1 << 40) == 0 &&
              sk_mhca_workspace_size(&wenc, 5, (size_t)1 << 30) == 0,
          "workspace d_enc = 2^32, n_enc = 2^40 / 2^30: %zu / %zu",
          sk_mhca_workspace_size(&wenc, 5, (size_t)1 << 40),
          sk_mhca_workspace_size(&wenc, 5, (size_t)1 << 30));
    CHECK(sk_mhca_workspace_size(&wenc, 5, 3) > 0, "workspace d_enc = 2^32, n_enc = 3");
    EXPECT(SK_EINVAL, sk_mhca_forward(&wenc, 1, g_b, (size_t)1 << 30, g_c, NULL, g_out, NULL, NULL),
           "forward d_enc = 2^32, n_enc = 2^30");
    /* matrices whose extent (rows - 1) ld + cols does not fit the address space */
    EXPECT(SK_EINVAL,
           sk_sgemm(SK_NOTRANS, SK_NOTRANS, big60, 2, 2, 1.f, g_a, 4, g_b, 2, 0.f, g_out, 2),
           "sgemm m = 2^60");
    EXPECT(SK_EINVAL, sk_softmax(4, 2, g_a, SIZE_MAX / 2, g_out, 2), "softmax ldx = SIZE_MAX / 2");
    EXPECT(SK_EINVAL, sk_exp(SIZE_MAX / 2, g_a, g_out), "exp n = SIZE_MAX / 2");
    EXPECT(SK_EINVAL,
           sk_attention(big60, 2, 2, 2, g_a, 2, g_b, 2, g_c, 2, 1.f, NULL, g_out, 2, NULL),
           "attention n_q = 2^60");
    EXPECT(SK_EINVAL,
           sk_attention(2, big60, 2, 2, g_a, 2, g_b, 2, g_c, 2, 1.f, NULL, g_out, 2, g_w),
           "attention n_kv = 2^60 with weights");
    EXPECT(SK_EINVAL, sk_mha(4, big50, big50, 1, g_a, 4, g_b, 4, g_c, 4, 1.f, NULL, g_out, 4, g_w),
           "mha weights n_q * n_kv overflows");
    /* one-row operands: their ld is never used and may be anything >= cols */
    poison();
    CHECK(sk_softmax(1, 3, g_a, SIZE_MAX, g_out, SIZE_MAX) == SK_OK,
          "softmax one row, ld SIZE_MAX");
    CHECK(sk_attention(1, 1, 2, 2, g_a, SIZE_MAX, g_b, SIZE_MAX, g_c, SIZE_MAX, 1.f, NULL, g_out,
                       SIZE_MAX, NULL) == SK_OK, "attention one row, ld SIZE_MAX");
    CHECK(g_out[0] == g_c[0] && g_out[1] == g_c[1], "attention one key: out = v (%g %g)", g_out[0],
          g_out[1]);
}

/* Outputs that overlap inputs (or each other) in sk_attention / sk_mha: SK_EINVAL, nothing written.
 */
static void test_aliasing(void)
{
    g_fn = "aliasing";
    enum { NQ = 3, NKV = 5, D = 4 };
    float q[NQ * D], k[NKV * D], v[NKV * D], w[NQ * NKV];
    for (int i = 0; i < NQ * D; i++) q[i] = g_a[i];
    for (int i = 0; i < NKV * D; i++) k[i] = g_b[i], v[i] = g_c[i];
    float qc[NQ * D];
    memcpy(qc, q, sizeof q);
    CHECK(sk_attention(NQ, NKV, D, D, q, D, k, D, v, D, 0.5f, NULL, q, D, NULL) == SK_EINVAL,
          "out == q");
    CHECK(!memcmp(q, qc, sizeof q), "out == q: q written");
    CHECK(sk_attention(NQ, NKV, D, D, q, D, k, D, v, D, 0.5f, NULL, v + D, D, NULL) == SK_EINVAL,
          "out inside v");
    CHECK(sk_attention(NQ, NKV, D, D, q, D, k, D, v, D, 0.5f, NULL, g_out, D, k + 2) == SK_EINVAL,
          "weights inside k");
    CHECK(sk_attention(NQ, NKV, D, D, q, D, k, D, v, D, 0.5f, NULL, w, D, w) == SK_EINVAL,
          "weights == out");
    CHECK(sk_mha(2, NQ, NKV, 2, q, D, k, D, v, D, 0.5f, NULL, q + 2, D, NULL) == SK_EINVAL,
          "mha: out interleaved with q");
    CHECK(!memcmp(q, qc, sizeof q), "mha: q written");
    /* the module: outputs (out, weights, workspace, kv) must not overlap its inputs or each other
     */
    {
        enum { MD = 8, MH = 2, ND = 3, NE = 4 };
        const sk_mhca L = { MD, MH, g_a, g_b, g_c, g_a + 64 };
        static float dec[ND * MD], enc[NE * MD], out[ND * MD], wts[MH * ND * NE], kv[2 * NE * MD];
        static float ws[4096];
        for (int i = 0; i < ND * MD; i++) dec[i] = g_b[i];
        for (int i = 0; i < NE * MD; i++) enc[i] = g_c[i];
        CHECK(sk_mhca_workspace_size(&L, ND, NE) <= sizeof ws, "module workspace too big");
        CHECK(sk_mhca_forward(&L, ND, dec, NE, enc, NULL, out, wts, ws) == SK_OK, "module good");
        CHECK(sk_mhca_forward(&L, ND, dec, NE, enc, NULL, dec, NULL, ws) == SK_EINVAL,
              "out == dec");
        CHECK(sk_mhca_forward(&L, ND, dec, NE, enc, NULL, out, ws + 8, ws) == SK_EINVAL,
              "weights inside the workspace");
        CHECK(sk_mhca_forward(&L, ND, dec, NE, enc, NULL, out, NULL, enc) == SK_EINVAL,
              "workspace == enc");
        CHECK(sk_mhca_project_kv(&L, NE, enc, kv) == SK_OK, "project_kv good");
        CHECK(sk_mhca_project_kv(&L, NE, kv, kv) == SK_EINVAL, "kv == enc");
        CHECK(sk_mhca_forward_kv(&L, ND, dec, NE, kv, NULL, out, kv + 4, ws) == SK_EINVAL,
              "weights inside kv");
        CHECK(sk_mhca_forward_kv(&L, ND, dec, NE, kv, NULL, out, wts, out) == SK_EINVAL,
              "workspace == out");
    }
    /* scale == 0: the scores are 0 whatever q and k hold (not read): uniform weights */
    {
        float qn[2 * D], kn[NKV * D], o2[2 * D], w2[2 * NKV];
        for (int i = 0; i < 2 * D; i++) qn[i] = i == 1 ? NAN : 1.f;
        for (int i = 0; i < NKV * D; i++) kn[i] = i == 3 ? INFINITY : 0.5f;
        for (int wt = 0; wt < 2; wt++) {
            CHECK(sk_attention(2, NKV, D, D, qn, D, kn, D, v, D, 0.f, NULL, o2, D, wt ? w2 : NULL)
                  == SK_OK, "scale 0");
            for (int c = 0; c < D; c++) {
                double mean = 0;
                for (int j = 0; j < NKV; j++) mean += v[j * D + c] / NKV;
                CHECK(fabs(o2[c] - mean) <= 1e-6, "scale 0 (weights %d): out[%d] = %g, want %g", wt,
                      c, o2[c], mean);
            }
            CHECK(sk_mha(2, 1, NKV, 2, qn, D, kn, D, v, D, 0.f, NULL, o2, D, wt ? w2 : NULL) ==
                      SK_OK,
                  "mha scale 0");
            CHECK(o2[0] == o2[0] && o2[3] == o2[3], "mha scale 0: NaN out (weights %d)", wt);
        }
    }
    /* inputs may overlap each other (one packed buffer for q, k and v) */
    CHECK(sk_attention(NQ, NKV, D, D, k, D, k, D, k, D, 0.5f, NULL, g_out, D, w) == SK_OK,
          "q == k == v");
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strncmp(argv[1], "--env-isa=", 10)) return env_mode(argv[1] + 10);
    if (argc != 1) {
        fprintf(stderr, "usage: %s [--env-isa=VALUE]\n", argv[0]);
        return 2;
    }
    fill_inputs();
    test_dispatch();
    test_cpu_features();
    test_names();
    /* the argument checks run in front of every path: exercise them on each available ISA */
    const sk_isa first = sk_isa_active();
    for (int i = 0; i < SK_ISA_COUNT; i++) {
        if (!sk_isa_available((sk_isa)i)) continue;
        sk_isa_select((sk_isa)i);
        test_sgemm();
        test_exp();
        test_exp_mxcsr();
        test_softmax();
        test_scale_mask_softmax();
        test_attention();
        test_mha();
        test_mhca();
        test_mhca_kv();
        test_mhca_enc_bias();
        test_size_overflow();
        test_aliasing();
    }
    sk_isa_select(first);
    printf("test_api: %d checks, %d failures\n", g_checks, g_fail);
    return g_fail != 0;
}
