/* checkasm: the attention family (sk_attention, sk_mha, sk_mhca_* and the decoder-step API).
 *
 * Every case runs on the scalar path and on the ISA under test with the same inputs, and both are
 * compared against a double-precision reference written here (independent of the library's cores):
 *   out[r] = sum_j w[r,j] v[j],
 *   w[r,:] = softmax over the attended keys of scale * q_r.k_j (+ add),
 *   masked weights exactly 0, a row with every key masked -> zero weights and a zero output row.
 * Bounds: a float score carries up to ~dk·2^-24·|scale|·sum_p|q_p k_p| of error (the GEMM bound),
 * which becomes a relative error of the same size in the weights; rounding the score and the added
 * mask to float adds 2^-22·(|scale·q.k| + |mask|) (the softmax family's T term); the exp and the
 * sums add a few 1e-7. The tolerance of each case is 3e-6 + dk·2^-22·|scale|·sum_p|q_p k_p| +
 * 2^-22·(|scale q.k| + |mask|), maximised over the case's attended pairs, relative (weights) or
 * relative to sum_j w_j |v_j| (outputs, + 1e-6 max|v|). It is within the bound the header states,
 * (1e-5 + expm1((dk + 1)·2^-22·T)), T = max over attended keys of |scale|·sum_p|q_p k_p| +
 * |mask|. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "checkasm.h"
#include "../ref_mask.h"

/* sk_mhca initializers of its first six fields (d_model .. w_o) are kept on purpose: source written
   for the original struct must still compile and mean the bias-free, d_enc = d_model module. */
#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#endif

static double g_tol = 3e-6; /* set per case by ref_attention */
#define WTOL g_tol /* relative, weights */
#define OTOL g_tol /* relative to sum_j w_j |v_j|, outputs */

typedef struct {
    size_t n_q, n_kv, dk, dv;
    size_t ldq, ldk, ldv, ldo;
    float scale;
    sk_mask mask;      /* kind NONE = pass NULL */
    int use_mask;
    uint8_t *mb;       /* KEYS (n_kv) or BOOL (n_q x ld) data */
    float *ma;         /* ADD data */
    float amp;         /* q and k in [-amp, amp] (0: 1), ADD values in [-3 amp^2, 3 amp^2] */
} acase;

/* Double reference of one head. wd: n_q x n_kv, od: n_q x dv, omag: n_q x dv (sum w |v|). */
static void ref_attention(size_t n_q, size_t n_kv, size_t dk, size_t dv, const float *q, size_t ldq,
                          const float *k, size_t ldk, const float *v, size_t ldv, double scale,
                          const sk_mask *m, double *wd, double *od, double *omag)
{
    double *s = malloc((n_kv + 1) * sizeof *s);
    g_tol = 3e-6;
    for (size_t r = 0; r < n_q; r++) {
        double mx = -INFINITY;
        int any = 0;
        for (size_t j = 0; j < n_kv; j++) {
            double add;
            if (!ref_attended(m, r, j, &add)) { s[j] = -INFINITY; continue; }
            double acc = 0, mag = 0;
            for (size_t p = 0; p < dk; p++) {
                acc += (double)q[r * ldq + p] * k[j * ldk + p];
                mag += fabs((double)q[r * ldq + p] * k[j * ldk + p]);
            }
            s[j] = scale * acc + add;
            const double tol = 3e-6 + 4.0 * (double)dk * 0x1p-24 * fabs(scale) * mag +
                               0x1p-22 * (fabs(scale * acc) + fabs(add));
            if (tol > g_tol) g_tol = tol;
            if (s[j] > mx) mx = s[j];
            any = 1;
        }
        double sum = 0;
        for (size_t j = 0; j < n_kv; j++) {
            s[j] = (any && s[j] != -INFINITY) ? exp(s[j] - mx) : 0.0;
            sum += s[j];
        }
        for (size_t j = 0; j < n_kv; j++) wd[r * n_kv + j] = any ? s[j] / sum : 0.0;
        for (size_t c = 0; c < dv; c++) {
            double o = 0, g = 0;
            for (size_t j = 0; j < n_kv; j++) {
                o += wd[r * n_kv + j] * v[j * ldv + c];
                g += wd[r * n_kv + j] * fabs(v[j * ldv + c]);
            }
            od[r * dv + c] = o;
            omag[r * dv + c] = g;
        }
    }
    free(s);
}

static float *alloc_mat(size_t rows, size_t cols, size_t ld, float lo, float hi)
{
    float *p = ck_buf_alloc(rows * ld + 1);
    ck_fill(p, rows * ld, lo, hi);
    ck_mat_poison_pad(p, rows, cols, ld); /* a kernel reading the padding turns NaN */
    return p;
}

/* Compare one call's out/weights against the double reference. */
static int check_out(const char *who, size_t n_q, size_t n_kv, size_t dv, const float *out,
                     size_t ldo, const float *w, const double *wd, const double *od,
                     const double *omag, const sk_mask *m)
{
    for (size_t r = 0; r < n_q; r++) {
        for (size_t c = 0; c < dv; c++) {
            const double e = od[r * dv + c], g = omag[r * dv + c];
            const float x = out[r * ldo + c];
            if (!(fabs(x - e) <= OTOL * g + 1e-6))
                return ck_fail("%s: out[%zu,%zu] = %.9g, expected %.9g (mag %.3g)", who, r, c, x, e,
                               g);
        }
        if (!w) continue;
        for (size_t j = 0; j < n_kv; j++) {
            double add;
            const double e = wd[r * n_kv + j];
            const float x = w[r * n_kv + j];
            if (!ref_attended(m, r, j, &add) && x != 0.f)
                return ck_fail("%s: masked weight [%zu,%zu] = %g, not 0", who, r, j, x);
            if (!(fabs(x - e) <= WTOL * e + 1e-9))
                return ck_fail("%s: weight[%zu,%zu] = %.9g, expected %.9g", who, r, j, x, e);
        }
    }
    return 1;
}

static void make_mask(acase *t, sk_mask_kind kind)
{
    t->use_mask = 1;
    t->mask.kind = kind;
    t->mask.data = NULL;
    t->mask.ld = 0;
    t->mask.offset = 0;
    const size_t n_q = t->n_q, n_kv = t->n_kv;
    /* density: mostly attended, sometimes sparse, and sometimes whole rows/keys gone */
    const uint32_t keep = 1 + ck_rand_u32(4); /* masked with probability ~1/(keep+1) */
    switch (kind) {
    case SK_MASK_NONE:
        if (ck_rand_u32(2)) t->use_mask = 0;
        break;
    case SK_MASK_KEYS:
        t->mb = malloc(n_kv + 1);
        for (size_t j = 0; j < n_kv; j++) t->mb[j] = ck_rand_u32(keep + 1) != 0;
        if (ck_rand_u32(6) == 0) memset(t->mb, 0, n_kv); /* every key padded: all rows zero */
        t->mask.data = t->mb;
        break;
    case SK_MASK_BOOL:
        t->mask.ld = n_kv + ck_rand_u32(5);
        t->mb = malloc(n_q * t->mask.ld + 1);
        for (size_t i = 0; i < n_q * t->mask.ld; i++)
            t->mb[i] = (uint8_t)(ck_rand_u32(keep + 1) ? 1 + ck_rand_u32(255) : 0);
        for (size_t r = 0; r < n_q; r++)
            if (ck_rand_u32(5) == 0) memset(t->mb + r * t->mask.ld, 0, n_kv); /* fully masked row */
        t->mask.data = t->mb;
        break;
    case SK_MASK_ADD:
        t->mask.ld = n_kv + ck_rand_u32(5);
        t->ma = malloc((n_q * t->mask.ld + 1) * sizeof(float));
        for (size_t i = 0; i < n_q * t->mask.ld; i++)
            t->ma[i] = ck_rand_u32(keep + 1)
                           ? ck_randf(-3.f, 3.f) * (t->amp ? t->amp * t->amp : 1.f)
                           : -INFINITY;
        for (size_t r = 0; r < n_q; r++)
            if (ck_rand_u32(5) == 0)
                for (size_t j = 0; j < n_kv; j++) t->ma[r * t->mask.ld + j] = -INFINITY;
        t->mask.data = t->ma;
        break;
    case SK_MASK_CAUSAL: {
        const uint32_t sel = ck_rand_u32(5);
        ptrdiff_t off = sel == 0 ? 0 : sel == 1 ? -(ptrdiff_t)ck_rand_u32((uint32_t)n_q + 2)
                      : sel == 2 ? (ptrdiff_t)n_kv - (ptrdiff_t)n_q
                      : (ptrdiff_t)ck_rand_u32((uint32_t)n_kv + 3) - 2;
        t->mask.offset = off;
        break;
    }
    }
}

static void free_mask(acase *t)
{
    free(t->mb);
    free(t->ma);
    t->mb = NULL;
    t->ma = NULL;
}

/* One sk_attention case on both paths. */
static void run_attention(acase *t, int with_weights)
{
    const size_t n_q = t->n_q, n_kv = t->n_kv, dk = t->dk, dv = t->dv;
    const float amp = t->amp ? t->amp : 1.f;
    float *q = alloc_mat(n_q, dk, t->ldq, -amp, amp);
    float *k = alloc_mat(n_kv, dk, t->ldk, -amp, amp);
    float *v = alloc_mat(n_kv, dv, t->ldv, -1.f, 1.f);
    float *o[2], *w[2];
    double *wd = malloc((n_q * n_kv + 1) * sizeof *wd);
    double *od = malloc((n_q * dv + 1) * sizeof *od), *om = malloc((n_q * dv + 1) * sizeof *om);
    const sk_mask *m = t->use_mask ? &t->mask : NULL;
    ref_attention(n_q, n_kv, dk, dv, q, t->ldq, k, t->ldk, v, t->ldv, t->scale, m, wd, od, om);
    for (int i = 0; i < 2; i++) {
        o[i] = ck_buf_alloc(n_q * t->ldo + 1);
        ck_mat_poison_pad(o[i], n_q, dv, t->ldo);
        for (size_t r = 0; r < n_q; r++)
            for (size_t c = 0; c < dv; c++) o[i][r * t->ldo + c] = 1e30f; /* stale garbage */
        w[i] = with_weights ? ck_buf_alloc(n_q * n_kv + 1) : NULL;
        if (w[i]) for (size_t j = 0; j < n_q * n_kv; j++) w[i][j] = -7.f;
        if (i == 0) ck_ref(); else ck_new();
        sk_status st = sk_attention(n_q, n_kv, dk, dv, q, t->ldq, k, t->ldk, v, t->ldv, t->scale, m,
                                    o[i], t->ldo, w[i]);
        ck_check(st == SK_OK, "status %d", (int)st);
        const char *who = i ? sk_isa_name(ck_isa()) : "scalar";
        check_out(who, n_q, n_kv, dv, o[i], t->ldo, w[i], wd, od, om, m);
        ck_mat_pad_check(o[i], n_q, dv, t->ldo, "out padding");
        ck_buf_check(o[i], "out");
        if (w[i]) ck_buf_check(w[i], "weights");
    }
    ck_new();
    /* the ISA path against the scalar path: both within the bounds above, so within twice them */
    for (size_t r = 0; r < n_q; r++)
        for (size_t c = 0; c < dv; c++) {
            const float a = o[0][r * t->ldo + c], b = o[1][r * t->ldo + c];
            if (!(fabs((double)a - b) <= 2 * OTOL * om[r * dv + c] + 2e-6)) {
                ck_fail("scalar vs isa: out[%zu,%zu] %.9g vs %.9g", r, c, a, b);
                r = n_q;
                break;
            }
        }
    ck_buf_check(q, "q"); ck_buf_check(k, "k"); ck_buf_check(v, "v");
    for (int i = 0; i < 2; i++) { ck_buf_free(o[i]); ck_buf_free(w[i]); }
    ck_buf_free(q); ck_buf_free(k); ck_buf_free(v);
    free(wd); free(od); free(om);
}

static size_t pick_ld(size_t cols)
{
    const uint32_t s = ck_rand_u32(4);
    return s == 0 ? cols : s == 1 ? cols + 1 : s == 2 ? cols + ck_rand_u32(17) : cols + 16;
}

static void rand_case(acase *t, size_t n_q, size_t n_kv, size_t dk, size_t dv)
{
    memset(t, 0, sizeof *t);
    t->n_q = n_q; t->n_kv = n_kv; t->dk = dk; t->dv = dv;
    t->ldq = pick_ld(dk); t->ldk = pick_ld(dk); t->ldv = pick_ld(dv); t->ldo = pick_ld(dv);
    t->scale = dk ? 1.f / sqrtf((float)dk) : 1.f;
    if (ck_rand_u32(8) == 0) t->scale = ck_randf(-2.f, 4.f);
}

static void test_attention_sweep(void)
{
    static const sk_mask_kind kinds[] = { SK_MASK_NONE, SK_MASK_KEYS, SK_MASK_BOOL, SK_MASK_ADD,
                                          SK_MASK_CAUSAL };
    /* explicit tile edges: rows around 1/4/8/16/32, keys around 16/64/128, d around 16/64 */
    static const size_t edges[][4] = {
        { 1, 1, 1, 1 },      { 1, 64, 64, 64 },   { 1, 300, 64, 64 },   { 1, 2049, 64, 64 },
        { 1, 2100, 80, 80 }, { 2, 129, 17, 33 },  { 3, 65, 64, 64 },    { 4, 64, 16, 16 },
        { 5, 63, 15, 15 },   { 7, 127, 48, 48 },  { 8, 128, 64, 64 },   { 9, 129, 65, 65 },
        { 15, 17, 31, 1 },   { 16, 16, 32, 32 },  { 17, 300, 80, 80 },  { 31, 191, 63, 64 },
        { 32, 256, 64, 64 }, { 33, 257, 64, 64 }, { 37, 300, 80, 7 },   { 70, 150, 40, 40 },
        { 3, 40, 300, 5 },   { 6, 33, 257, 257 }, { 2, 5, 0, 3 },       { 3, 7, 4, 0 },
        { 100, 90, 64, 64 }, { 130, 70, 32, 20 }, { 97, 200, 129, 16 }, /* 3..5 query blocks */
    };
    const size_t ne = sizeof edges / sizeof edges[0];
    const int nrand = ck_quick() ? 40 : 160;
    for (int it = 0; it < (int)ne + nrand; it++) {
        acase t;
        if (it < (int)ne) rand_case(&t, edges[it][0], edges[it][1], edges[it][2], edges[it][3]);
        else {
            const size_t dk = 1 + ck_rand_u32(80);
            rand_case(&t, 1 + ck_rand_u32(37), 1 + ck_rand_u32(300), dk,
                      ck_rand_u32(3) ? dk : 1 + ck_rand_u32(80));
        }
        const sk_mask_kind kind = kinds[it % 5];
        make_mask(&t, kind);
        const int ww = (it / 5) % 2;
        ck_func("sk_attention %zux%zu dk %zu dv %zu mask %d off %td ld %zu/%zu/%zu/%zu weights %d",
                t.n_q, t.n_kv, t.dk, t.dv, t.use_mask ? (int)kind : -1, t.mask.offset, t.ldq, t.ldk,
                t.ldv, t.ldo, ww);
        run_attention(&t, ww);
        free_mask(&t);
    }
    /* large scores (|scale q.k| and |mask| in the hundreds), non-power-of-two scales */
    for (int it = 0; it < 20; it++) {
        acase t;
        rand_case(&t, 1 + ck_rand_u32(40), 1 + ck_rand_u32(300), 64, 1 + ck_rand_u32(70));
        t.amp = 12.f;
        t.scale = it % 2 ? -0.3f : 0.1f;
        const sk_mask_kind kind = kinds[it % 5];
        make_mask(&t, kind);
        ck_func("sk_attention large scores %zux%zu dk 64 dv %zu mask %d scale %g weights %d", t.n_q,
                t.n_kv, t.dv, t.use_mask ? (int)kind : -1, t.scale, it / 5 % 2);
        run_attention(&t, it / 5 % 2);
        free_mask(&t);
    }
}

/* Hand-checked: 1 query, 2 keys with scores 0 and ln 3 -> weights 1/4, 3/4. */
static void test_attention_hand(void)
{
    ck_func("sk_attention hand case");
    const float q[1] = { 1.f }, k[2] = { 0.f, logf(3.f) }, v[4] = { 4.f, 8.f, -4.f, 0.f };
    float out[2], w[2];
    ck_new();
    sk_attention(1, 2, 1, 2, q, 1, k, 1, v, 2, 1.f, NULL, out, 2, w);
    ck_check(fabsf(w[0] - 0.25f) < 1e-6f && fabsf(w[1] - 0.75f) < 1e-6f, "weights %g %g", w[0],
             w[1]);
    ck_check(fabsf(out[0] - -2.f) < 1e-5f && fabsf(out[1] - 2.f) < 1e-5f, "out %g %g", out[0],
             out[1]);
}

/* NaN: an attended NaN score poisons its row (weights and output); a NaN key behind a mask does
   not. */
static void test_attention_nan(void)
{
    ck_new();
    const size_t n_q = 3, n_kv = 70, d = 8;
    float *q = alloc_mat(n_q, d, d, -1.f, 1.f), *k = alloc_mat(n_kv, d, d, -1.f, 1.f);
    float *v = alloc_mat(n_kv, d, d, -1.f, 1.f), *o = ck_buf_alloc(n_q * d),
          *w = ck_buf_alloc(n_q * n_kv);
    uint8_t keys[70];
    for (size_t j = 0; j < n_kv; j++) keys[j] = j != 40;
    k[40 * d + 3] = NAN;
    sk_mask km = { SK_MASK_KEYS, keys, 0, 0 };
    for (int ww = 0; ww < 2; ww++) {
        ck_func("sk_attention NaN behind a KEYS mask, weights %d", ww);
        sk_attention(n_q, n_kv, d, d, q, d, k, d, v, d, 0.5f, &km, o, d, ww ? w : NULL);
        for (size_t i = 0; i < n_q * d; i++)
            if (isnan(o[i])) {
                ck_fail("NaN leaked into out[%zu]", i);
                break;
            }
        if (ww) ck_check(w[40] == 0.f && !isnan(w[41]), "weights %g %g", w[40], w[41]);
        ck_func("sk_attention attended NaN, weights %d", ww);
        sk_attention(n_q, n_kv, d, d, q, d, k, d, v, d, 0.5f, NULL, o, d, ww ? w : NULL);
        for (size_t r = 0; r < n_q; r++)
            for (size_t c = 0; c < d; c++)
                if (!isnan(o[r * d + c])) {
                    ck_fail("out[%zu,%zu] not NaN", r, c);
                    r = n_q;
                    break;
                }
        if (ww) ck_check(isnan(w[0]) && isnan(w[n_kv * 2 + 5]), "weights not NaN");
    }
    ck_buf_free(q); ck_buf_free(k); ck_buf_free(v); ck_buf_free(o); ck_buf_free(w);
}

/* sk_mha: heads side by side, against the per-head double reference. */
static void test_mha(void)
{
    const int n = ck_quick() ? 8 : 24, n_strided = ck_quick() ? 4 : 8;
    for (int it = 0; it < n + n_strided; it++) {
        /* n_q == 1 without weights is the decoder-step path (key blocks outer, heads inner; the
           it == 2 case is big enough for its prefetching branch). The last n_strided cases have
           two or more query blocks and K or V rows a multiple of 128 floats apart: the fused core
           then reads each head's K and V from a packed per-thread copy (keys up to the causal
           limit of the rows). */
        const int strided = it >= n;
        const size_t H = it == 2 ? 8 : strided ? 2 + ck_rand_u32(7) : 1 + ck_rand_u32(5),
                     dh = it == 2 ? 64 : strided ? (it % 2 ? 64 : 1 + ck_rand_u32(70))
                                                 : 1 + ck_rand_u32(it < 4 ? 70 : 24);
        const size_t n_q = strided ? 65 + ck_rand_u32(160)
                         : (it % 3 == 0 || it == 2) ? 1 : 1 + ck_rand_u32(37);
        const size_t n_kv = it == 2                ? 1100
                          : strided && it % 2 == 1 ? 1024 + ck_rand_u32(1100) /* copied */
                                                   : 1 + ck_rand_u32(it == 1 ? 2100 : 600);
        const size_t W = H * dh, W128 = (W + 127) / 128 * 128;
        size_t ldq = pick_ld(W), ldk = pick_ld(W), ldv = pick_ld(W), ldo = pick_ld(W);
        if (strided) { /* K, V or both at a multiple of 128 floats */
            const uint32_t which = 1 + ck_rand_u32(3);
            if (which & 1) ldk = W128 + 128 * ck_rand_u32(2);
            if (which & 2) ldv = W128 + 128 * ck_rand_u32(2);
        }
        acase t;
        memset(&t, 0, sizeof t);
        t.n_q = n_q; t.n_kv = n_kv;
        make_mask(&t, (sk_mask_kind)ck_rand_u32(5));
        const sk_mask *m = t.use_mask ? &t.mask : NULL;
        const int ww = it == 2 ? 0 : (it / 3) % 2;
        ck_func("sk_mha H %zu dh %zu %zux%zu mask %d weights %d", H, dh, n_q, n_kv,
                m ? (int)m->kind : -1, ww);
        float *q = alloc_mat(n_q, W, ldq, -1.f, 1.f), *k = alloc_mat(n_kv, W, ldk, -1.f, 1.f);
        float *v = alloc_mat(n_kv, W, ldv, -1.f, 1.f);
        double *wd = malloc(H * n_q * n_kv * sizeof *wd), *od = malloc(H * n_q * dh * sizeof *od);
        double *om = malloc(H * n_q * dh * sizeof *om);
        const float scale = 1.f / sqrtf((float)dh);
        double tol = 0;
        for (size_t h = 0; h < H; h++) {
            ref_attention(n_q, n_kv, dh, dh, q + h * dh, ldq, k + h * dh, ldk, v + h * dh, ldv,
                          scale, m, wd + h * n_q * n_kv, od + h * n_q * dh, om + h * n_q * dh);
            if (g_tol > tol) tol = g_tol;
        }
        g_tol = tol;
        for (int i = 0; i < 2; i++) {
            float *o = ck_buf_alloc(n_q * ldo + 1), *w = ww ? ck_buf_alloc(H * n_q * n_kv) : NULL;
            ck_mat_poison_pad(o, n_q, W, ldo);
            if (i == 0) ck_ref(); else ck_new();
            sk_status st = sk_mha(H, n_q, n_kv, dh, q, ldq, k, ldk, v, ldv, scale, m, o, ldo, w);
            ck_check(st == SK_OK, "status %d", (int)st);
            for (size_t h = 0; h < H; h++)
                if (!check_out(i ? "mha isa" : "mha scalar", n_q, n_kv, dh, o + h * dh, ldo,
                               w ? w + h * n_q * n_kv : NULL, wd + h * n_q * n_kv,
                               od + h * n_q * dh, om + h * n_q * dh, m))
                    break;
            ck_mat_pad_check(o, n_q, W, ldo, "mha out padding");
            ck_buf_check(o, "mha out");
            if (w) ck_buf_check(w, "mha weights");
            ck_buf_free(o); ck_buf_free(w);
        }
        ck_new();
        ck_buf_free(q); ck_buf_free(k); ck_buf_free(v);
        free(wd); free(od); free(om);
        free_mask(&t);
    }
}

/* The decoder step (sk_mha, n_q == 1, no weights): up to 16 heads at a time, then rounds of
   heads; n_kv around the key blocks (256) and the chunk edges (512 keys, up to 8
   chunks), heads around the 16 of one call, d_head around the vector widths, every mask kind. */
static void decoder_case(size_t H, size_t dh, size_t n_kv, int it)
{
    const size_t W = H * dh;
    const size_t ldq = pick_ld(W), ldk = pick_ld(W), ldv = pick_ld(W), ldo = pick_ld(W);
    acase t;
    memset(&t, 0, sizeof t);
    t.n_q = 1;
    t.n_kv = n_kv;
    make_mask(&t, (sk_mask_kind)((size_t)it % 5));
    const sk_mask *m = t.use_mask ? &t.mask : NULL;
    ck_func("decoder step H %zu dh %zu n_kv %zu mask %d", H, dh, n_kv, m ? (int)m->kind : -1);
    float *q = alloc_mat(1, W, ldq, -1.f, 1.f), *k = alloc_mat(n_kv, W, ldk, -1.f, 1.f);
    float *v = alloc_mat(n_kv, W, ldv, -1.f, 1.f);
    double *wd = malloc(H * n_kv * sizeof *wd), *od = malloc(W * sizeof *od);
    double *om = malloc(W * sizeof *om);
    const float scale = 1.f / sqrtf((float)dh);
    double tol = 0;
    int none = 1; /* every key masked for the row: the output is exactly 0 */
    for (size_t j = 0; j < n_kv && none; j++) {
        double add;
        if (ref_attended(m, 0, j, &add) && add != -INFINITY) none = 0;
    }
    for (size_t h = 0; h < H; h++) {
        ref_attention(1, n_kv, dh, dh, q + h * dh, ldq, k + h * dh, ldk, v + h * dh, ldv, scale, m,
                      wd + h * n_kv, od + h * dh, om + h * dh);
        if (g_tol > tol) tol = g_tol;
    }
    g_tol = tol;
    for (int i = 0; i < 2; i++) {
        float *o = ck_buf_alloc(ldo + 1);
        ck_mat_poison_pad(o, 1, W, ldo);
        if (i == 0)
            ck_ref();
        else
            ck_new();
        sk_status st = sk_mha(H, 1, n_kv, dh, q, ldq, k, ldk, v, ldv, scale, m, o, ldo, NULL);
        ck_check(st == SK_OK, "status %d", (int)st);
        for (size_t h = 0; h < H; h++)
            if (!check_out(i ? "decoder isa" : "decoder scalar", 1, n_kv, dh, o + h * dh, ldo, NULL,
                           wd + h * n_kv, od + h * dh, om + h * dh, m))
                break;
        for (size_t c = 0; c < W && none; c++)
            if (o[c] != 0.f) {
                ck_fail("every key masked: out[%zu] = %g, not 0", c, o[c]);
                break;
            }
        ck_mat_pad_check(o, 1, W, ldo, "decoder out padding");
        ck_buf_check(o, "decoder out");
        ck_buf_free(o);
    }
    ck_new();
    ck_buf_free(q);
    ck_buf_free(k);
    ck_buf_free(v);
    free(wd);
    free(od);
    free(om);
    free_mask(&t);
}

static void test_mha_decoder(void)
{
    static const size_t nkv[] = { 1, 3, 255, 256, 257, 511, 512, 513, 1023, 1025, 2049, 4097 };
    static const size_t hs[] = { 1, 2, 5, 8, 15, 16, 17, 20 };
    static const size_t dhs[] = { 1, 7, 16, 17, 33, 64, 65 };
    /* The walk by rows (every head of a key row at once): K and V of 4 MiB or more over 4 heads
       or more, and heads that fill whole vectors of the path (4 NEON, 8 AVX2, 16 AVX-512) at any
       size; heads around the vector widths, d_head off them, every mask kind */
    static const size_t rows[][3] = {
        { 4, 64, 2049 }, { 17, 17, 1900 }, { 5, 33, 3200 }, { 20, 64, 1025 }, { 9, 7, 8400 },
        { 16, 64, 1 },   { 16, 17, 300 },  { 8, 33, 513 },  { 32, 16, 100 },  { 24, 8, 257 },
        { 12, 64, 64 }
    };
    const int per = ck_quick() ? 2 : 5;
    for (size_t ni = 0; ni < sizeof nkv / sizeof nkv[0]; ni++)
        for (int it = 0; it < per; it++) {
            const size_t n_kv = nkv[ni], H = hs[ck_rand_u32(8)];
            decoder_case(H, n_kv > 1100 && it ? 64 : dhs[ck_rand_u32(7)], n_kv, it);
        }
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        for (int it = 0; it < 5; it++)
            decoder_case(rows[i][0], rows[i][1], rows[i][2], it);
}

/* ---- the module, following the seeds' definition step by step in double precision ---- */
/* With encoder rows de wide (w_k, w_v: de x d) and biases b[0..3] = b_q, b_k, b_v, b_o (NULL: none)
   added after each product; kvd (NULL or 2 x n_enc x d): K and V. */
static void ref_mhca_full(size_t d, size_t de, size_t H, size_t n_dec, const float *dec,
                          size_t n_enc, const float *enc, const uint8_t *mask, const float *wq,
                          const float *wk, const float *wv, const float *wo,
                          const float *const b[4], double *out, double *wts /* H x n_dec x n_enc */,
                          double *kvd)
{
    const size_t dh = d / H;
    double *Q = calloc(n_dec * d + 1, sizeof *Q), *K = calloc(n_enc * d + 1, sizeof *K);
    double *V = calloc(n_enc * d + 1, sizeof *V), *C = calloc(n_dec * d + 1, sizeof *C);
    /* projections x @ W + b */
    for (size_t i = 0; i < n_dec; i++)
        for (size_t c = 0; c < d; c++) {
            for (size_t p = 0; p < d; p++) Q[i * d + c] += (double)dec[i * d + p] * wq[p * d + c];
            if (b[0]) Q[i * d + c] += b[0][c];
        }
    for (size_t i = 0; i < n_enc; i++)
        for (size_t c = 0; c < d; c++) {
            for (size_t p = 0; p < de; p++) {
                K[i * d + c] += (double)enc[i * de + p] * wk[p * d + c];
                V[i * d + c] += (double)enc[i * de + p] * wv[p * d + c];
            }
            if (b[1]) K[i * d + c] += b[1][c];
            if (b[2]) V[i * d + c] += b[2][c];
            if (kvd) {
                kvd[i * d + c] = K[i * d + c];
                kvd[(n_enc + i) * d + c] = V[i * d + c];
            }
        }
    /* reshape (n, H, dh) and transpose to (H, n, dh): head h, position i, column c ->
       [i*d + h*dh + c] */
    const double scale = 1.0 / sqrt((double)dh);
    double *s = malloc((n_enc + 1) * sizeof *s);
    for (size_t h = 0; h < H; h++)
        for (size_t i = 0; i < n_dec; i++) {
            double mx = -INFINITY;
            for (size_t j = 0; j < n_enc; j++) {
                double acc = 0;
                for (size_t c = 0; c < dh; c++)
                    acc += Q[i * d + h * dh + c] * K[j * d + h * dh + c];
                s[j] = (mask && !mask[j]) ? -INFINITY : acc * scale;
                if (s[j] > mx) mx = s[j];
            }
            double sum = 0;
            for (size_t j = 0; j < n_enc; j++)
                sum += (s[j] = mx == -INFINITY || s[j] == -INFINITY ? 0 : exp(s[j] - mx));
            for (size_t j = 0; j < n_enc; j++) {
                const double wgt = sum > 0 ? s[j] / sum : 0;
                if (wts) wts[(h * n_dec + i) * n_enc + j] = wgt;
                /* head output, then concat: back to (n_dec, H*dh) */
                for (size_t c = 0; c < dh; c++)
                    C[i * d + h * dh + c] += wgt * V[j * d + h * dh + c];
            }
        }
    for (size_t i = 0; i < n_dec; i++)
        for (size_t c = 0; c < d; c++) {
            double acc = 0;
            for (size_t p = 0; p < d; p++) acc += C[i * d + p] * wo[p * d + c];
            out[i * d + c] = acc + (b[3] ? b[3][c] : 0.0);
        }
    free(Q); free(K); free(V); free(C); free(s);
}

static void ref_mhca(size_t d, size_t H, size_t n_dec, const float *dec, size_t n_enc,
                     const float *enc, const uint8_t *mask, const float *wq, const float *wk,
                     const float *wv, const float *wo, double *out,
                     double *wts /* H x n_dec x n_enc */)
{
    const float *const none[4] = { NULL, NULL, NULL, NULL };
    ref_mhca_full(d, d, H, n_dec, dec, n_enc, enc, mask, wq, wk, wv, wo, none, out, wts, NULL);
}

static float *xavier(size_t d)
{
    float *w = ck_buf_alloc(d * d);
    const float sd = sqrtf(2.f / (float)(2 * d));
    for (size_t i = 0; i < d * d; i++) w[i] = sd * ck_randn();
    return w;
}

/* Decoder step i's weights wsv (H x n_enc) against the reference of every row, wd (H x n_dec x
   n_enc); the first difference fails. */
static void check_step_weights(size_t i, size_t H, size_t n_dec, size_t n_enc, const float *wsv,
                               const double *wd)
{
    for (size_t h = 0; h < H; h++)
        for (size_t j = 0; j < n_enc; j++) {
            const double e = wd[(h * n_dec + i) * n_enc + j];
            if (!(fabs(wsv[h * n_enc + j] - e) <= 1e-4 * e + 1e-8)) {
                ck_fail("step %zu: weight[%zu,%zu] %.9g vs %.9g", i, h, j, wsv[h * n_enc + j], e);
                return;
            }
        }
}

static void test_mhca(void)
{
    static const size_t shapes[][4] = { /* d_model, heads, n_dec, n_enc */
        { 16, 1, 2, 4 }, { 32, 4, 2, 4 }, { 32, 4, 1, 1 }, { 48, 3, 5, 37 }, { 64, 8, 9, 70 },
        { 24, 2, 1, 131 }, { 40, 5, 17, 3 }, { 12, 12, 3, 9 }, { 128, 2, 3, 65 },
    };
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
        for (int variant = 0; variant < 4; variant++) {
            const size_t d = shapes[si][0], H = shapes[si][1], n_dec = shapes[si][2],
                         n_enc = shapes[si][3];
            const int use_mask = variant & 1, own_ws = variant >> 1;
            ck_func("sk_mhca_forward d %zu H %zu dec %zu enc %zu mask %d ws %d", d, H, n_dec, n_enc,
                    use_mask, own_ws);
            float *wq = xavier(d), *wk = xavier(d), *wv = xavier(d), *wo = xavier(d);
            float *dec = ck_buf_alloc(n_dec * d), *enc = ck_buf_alloc(n_enc * d);
            for (size_t i = 0; i < n_dec * d; i++) dec[i] = ck_randn();
            for (size_t i = 0; i < n_enc * d; i++) enc[i] = ck_randn();
            uint8_t *mask = NULL;
            if (use_mask) {
                mask = malloc(n_enc);
                for (size_t j = 0; j < n_enc; j++) mask[j] = ck_rand_u32(3) != 0;
                if (si == 2 || si == 7) memset(mask, 0, n_enc); /* all padded: output exactly 0 */
            }
            double *od = malloc(n_dec * d * sizeof *od),
                   *wd = malloc(H * n_dec * n_enc * sizeof *wd);
            ref_mhca(d, H, n_dec, dec, n_enc, enc, mask, wq, wk, wv, wo, od, wd);
            /* magnitude for the bound: sum |C| |W_o| is ~ sqrt(d)*O(1); use a relative+absolute
               mix */
            const sk_mhca L = { d, H, wq, wk, wv, wo };
            const size_t wsz = sk_mhca_workspace_size(&L, n_dec, n_enc);
            ck_check(wsz > 0, "workspace size 0");
            float *out = ck_buf_alloc(n_dec * d), *w = ck_buf_alloc(H * n_dec * n_enc);
            float *ws = own_ws ? ck_buf_alloc(wsz / sizeof(float) + 1) : NULL;
            sk_status st = sk_mhca_forward(&L, n_dec, dec, n_enc, enc, mask, out, w, ws);
            ck_check(st == SK_OK, "status %d", (int)st);
            for (size_t i = 0; i < n_dec * d; i++)
                if (!(fabs(out[i] - od[i]) <= 1e-4 * (1 + fabs(od[i])))) {
                    ck_fail("out[%zu] = %.9g, expected %.9g", i, out[i], od[i]);
                    break;
                }
            for (size_t i = 0; i < H * n_dec * n_enc; i++)
                if (!(fabs(w[i] - wd[i]) <= 1e-4 * wd[i] + 1e-8) || (wd[i] == 0 && w[i] != 0)) {
                    ck_fail("weights[%zu] = %.9g, expected %.9g", i, w[i], wd[i]);
                    break;
                }
            if (mask && (si == 2 || si == 7))
                for (size_t i = 0; i < n_dec * d; i++)
                    if (out[i] != 0.f) {
                        ck_fail("all padded: out[%zu] = %g", i, out[i]);
                        break;
                    }
            /* weights NULL gives the same output */
            float *out2 = ck_buf_alloc(n_dec * d);
            st = sk_mhca_forward(&L, n_dec, dec, n_enc, enc, mask, out2, NULL, ws);
            ck_check(st == SK_OK, "status %d", (int)st);
            for (size_t i = 0; i < n_dec * d; i++)
                if (!(fabs(out2[i] - od[i]) <= 1e-4 * (1 + fabs(od[i])))) {
                    ck_fail("weights NULL: out[%zu] = %.9g, expected %.9g", i, out2[i], od[i]);
                    break;
                }

            /* decoder-step API: K/V projected once, then one target position at a time */
            ck_func("decoder step d %zu H %zu dec %zu enc %zu mask %d", d, H, n_dec, n_enc,
                    use_mask);
            const size_t kvsz = sk_mhca_kv_size(&L, n_enc);
            ck_check(kvsz == 2 * n_enc * d * sizeof(float), "kv size %zu", kvsz);
            float *kv = ck_buf_alloc(kvsz / sizeof(float) + 1);
            st = sk_mhca_project_kv(&L, n_enc, enc, kv);
            ck_check(st == SK_OK, "project status %d", (int)st);
            const size_t sws = sk_mhca_forward_kv_workspace_size(&L, 1);
            float *sw = own_ws ? ck_buf_alloc(sws / sizeof(float) + 1) : NULL;
            float *os = ck_buf_alloc(d), *wsv = ck_buf_alloc(H * n_enc);
            double maxdiff = 0;
            for (size_t i = 0; i < n_dec; i++) {
                st = sk_mhca_forward_kv(&L, 1, dec + i * d, n_enc, kv, mask, os, wsv, sw);
                ck_check(st == SK_OK, "step status %d", (int)st);
                for (size_t c = 0; c < d; c++) {
                    const double e = fabs((double)os[c] - out[i * d + c]);
                    if (e > maxdiff) maxdiff = e;
                    if (!(fabs(os[c] - od[i * d + c]) <= 1e-4 * (1 + fabs(od[i * d + c])))) {
                        ck_fail("step %zu: out[%zu] = %.9g, expected %.9g", i, c, os[c],
                                od[i * d + c]);
                        break;
                    }
                }
                check_step_weights(i, H, n_dec, n_enc, wsv, wd);
            }
            ck_check(maxdiff <= 1e-5, "step vs all-at-once: max |diff| %g", maxdiff);
            ck_buf_check(kv, "kv"); ck_buf_check(os, "step out"); ck_buf_check(wsv, "step weights");
            if (sw) ck_buf_check(sw, "step workspace");
            ck_buf_check(out, "out"); ck_buf_check(w, "weights");
            if (ws) ck_buf_check(ws, "workspace");
            ck_buf_free(kv); ck_buf_free(sw); ck_buf_free(os); ck_buf_free(wsv);
            ck_buf_free(out); ck_buf_free(out2); ck_buf_free(w); ck_buf_free(ws);
            ck_buf_free(wq); ck_buf_free(wk); ck_buf_free(wv); ck_buf_free(wo);
            ck_buf_free(dec); ck_buf_free(enc);
            free(mask); free(od); free(wd);
        }
}

static float *xavier2(size_t rows, size_t cols)
{
    float *w = ck_buf_alloc(rows * cols);
    const float sd = sqrtf(2.f / (float)(rows + cols));
    for (size_t i = 0; i < rows * cols; i++) w[i] = sd * ck_randn();
    return w;
}

static int close_to(double x, double e) { return fabs(x - e) <= 1e-4 * (1 + fabs(e)); }

/* The module with biases and an encoder width d_enc != d_model: sk_mhca_forward (weights and not),
   sk_mhca_project_kv (K and V with their biases) and sk_mhca_forward_kv one step at a time, against
   the double reference; a fully padded source or n_enc == 0 gives exactly b_o; zero biases and
   d_enc == d_model spelled out give the six-field layer's result. */
static void test_mhca_bias(void)
{
    static const size_t shapes[][5] = { /* d_model, d_enc, heads, n_dec, n_enc */
        { 16, 16, 1, 2, 4 }, { 32, 24, 4, 2, 4 }, { 32, 80, 4, 1, 1 }, { 48, 17, 3, 5, 37 },
        { 64, 128, 8, 9, 70 }, { 24, 1, 2, 1, 131 }, { 40, 40, 5, 17, 3 }, { 64, 32, 2, 33, 300 },
        { 128, 96, 4, 1, 65 }, { 96, 256, 6, 3, 20 },
    };
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
        for (int variant = 0; variant < 4; variant++) {
            const size_t d = shapes[si][0], de = shapes[si][1], H = shapes[si][2];
            const size_t n_dec = shapes[si][3], n_enc = shapes[si][4];
            /* biases: all four, Whisper's (q, v, o), k only, o only; the mask on odd variants */
            static const int which[4][4] = {
                { 1, 1, 1, 1 }, { 1, 0, 1, 1 }, { 0, 1, 0, 0 }, { 0, 0, 0, 1 }
            };
            const int use_mask = variant & 1;
            ck_func("mhca bias d %zu d_enc %zu H %zu dec %zu enc %zu biases %d%d%d%d mask %d", d,
                    de, H, n_dec, n_enc, which[variant][0], which[variant][1], which[variant][2],
                    which[variant][3], use_mask);
            float *wq = xavier2(d, d), *wk = xavier2(de, d), *wv = xavier2(de, d),
                  *wo = xavier2(d, d);
            float *bias[4];
            const float *bq[4];
            for (int i = 0; i < 4; i++) {
                bias[i] = which[variant][i] ? ck_buf_alloc(d) : NULL;
                if (bias[i]) ck_fill(bias[i], d, -1.f, 1.f);
                bq[i] = bias[i];
            }
            float *dec = ck_buf_alloc(n_dec * d), *enc = ck_buf_alloc(n_enc * de);
            for (size_t i = 0; i < n_dec * d; i++) dec[i] = ck_randn();
            for (size_t i = 0; i < n_enc * de; i++) enc[i] = ck_randn();
            uint8_t *mask = NULL;
            if (use_mask) {
                mask = malloc(n_enc);
                for (size_t j = 0; j < n_enc; j++) mask[j] = ck_rand_u32(3) != 0;
                if (si == 2 || si == 6) memset(mask, 0, n_enc); /* all padded: out = b_o */
            }
            double *od = malloc(n_dec * d * sizeof *od),
                   *wd = malloc(H * n_dec * n_enc * sizeof *wd);
            double *kvd = malloc(2 * n_enc * d * sizeof *kvd);
            ref_mhca_full(d, de, H, n_dec, dec, n_enc, enc, mask, wq, wk, wv, wo, bq, od, wd, kvd);
            sk_mhca L = { d, H, wq, wk, wv, wo };
            L.d_enc = de == d && (si & 1) ? 0 : de; /* 0 = d_model */
            L.b_q = bias[0]; L.b_k = bias[1]; L.b_v = bias[2]; L.b_o = bias[3];
            const size_t wsz = sk_mhca_workspace_size(&L, n_dec, n_enc);
            /* the header's row stride: d rounded up to an odd number of 16-float lines */
            const size_t lines = (d + 15) / 16, ldw = 16 * (lines | 1);
            ck_check(wsz == (2 * n_enc * ldw + 2 * n_dec * ldw) * sizeof(float) + 64,
                     "workspace size %zu", wsz); /* + 64: the slack that aligns its start */
            float *ws = variant & 2 ? ck_buf_alloc(wsz / sizeof(float)) : NULL;
            float *out = ck_buf_alloc(n_dec * d), *w = ck_buf_alloc(H * n_dec * n_enc);
            ck_check(sk_mhca_forward(&L, n_dec, dec, n_enc, enc, mask, out, w, ws) == SK_OK,
                     "forward");
            for (size_t i = 0; i < n_dec * d; i++)
                if (!close_to(out[i], od[i])) {
                    ck_fail("out[%zu] = %.9g, expected %.9g", i, out[i], od[i]);
                    break;
                }
            for (size_t i = 0; i < H * n_dec * n_enc; i++)
                if (!(fabs(w[i] - wd[i]) <= 1e-4 * wd[i] + 1e-8) || (wd[i] == 0 && w[i] != 0)) {
                    ck_fail("weights[%zu] = %.9g, expected %.9g", i, w[i], wd[i]);
                    break;
                }
            if (mask && (si == 2 || si == 6))
                for (size_t i = 0; i < n_dec * d; i++)
                    if (out[i] != (bias[3] ? bias[3][i % d] : 0.f)) {
                        ck_fail("all padded: out[%zu] = %g, not b_o", i, out[i]);
                        break;
                    }
            float *out2 = ck_buf_alloc(n_dec * d);
            ck_check(sk_mhca_forward(&L, n_dec, dec, n_enc, enc, mask, out2, NULL, ws) == SK_OK,
                     "fwd");
            for (size_t i = 0; i < n_dec * d; i++)
                if (!close_to(out2[i], od[i])) {
                    ck_fail("weights NULL: out[%zu] = %.9g, expected %.9g", i, out2[i], od[i]);
                    break;
                }
            /* n_enc == 0: nothing to attend to, out = b_o */
            ck_check(sk_mhca_forward(&L, n_dec, dec, 0, NULL, NULL, out2, NULL, NULL) == SK_OK,
                     "n_enc 0");
            for (size_t i = 0; i < n_dec * d; i++)
                if (out2[i] != (bias[3] ? bias[3][i % d] : 0.f)) {
                    ck_fail("n_enc 0: out[%zu] = %g, not b_o", i, out2[i]);
                    break;
                }
            /* the decoder-step API: kv holds K and V with their biases */
            ck_func("mhca bias steps d %zu d_enc %zu H %zu dec %zu enc %zu variant %d", d, de, H,
                    n_dec, n_enc, variant);
            const size_t kvsz = sk_mhca_kv_size(&L, n_enc);
            ck_check(kvsz == 2 * n_enc * d * sizeof(float), "kv size %zu", kvsz);
            float *kv = ck_buf_alloc(2 * n_enc * d);
            ck_check(sk_mhca_project_kv(&L, n_enc, enc, kv) == SK_OK, "project_kv");
            for (size_t i = 0; i < 2 * n_enc * d; i++)
                if (!(fabs(kv[i] - kvd[i]) <= 1e-5 * (1 + fabs(kvd[i])))) {
                    ck_fail("kv[%zu] = %.9g, expected %.9g", i, kv[i], kvd[i]);
                    break;
                }
            float *os = ck_buf_alloc(d), *wsv = ck_buf_alloc(H * n_enc);
            for (size_t i = 0; i < n_dec; i++) {
                const sk_status st =
                    sk_mhca_forward_kv(&L, 1, dec + i * d, n_enc, kv, mask, os, wsv, NULL);
                ck_check(st == SK_OK, "step status %d", (int)st);
                for (size_t c = 0; c < d; c++)
                    if (!close_to(os[c], od[i * d + c]) ||
                        fabs(os[c] - out[i * d + c]) > 1e-5 * (1 + fabs(out[i * d + c]))) {
                        ck_fail("step %zu: out[%zu] = %.9g, expected %.9g (all at once %.9g)", i, c,
                                os[c], od[i * d + c], out[i * d + c]);
                        break;
                    }
                check_step_weights(i, H, n_dec, n_enc, wsv, wd);
            }
            /* zero biases and d_enc == d_model spelled out: the six-field layer's result */
            if (de == d) {
                ck_func("mhca zero biases d %zu H %zu", d, H);
                float *zero = ck_buf_alloc(d);
                memset(zero, 0, d * sizeof(float));
                const sk_mhca L6 = { d, H, wq, wk, wv, wo };
                sk_mhca Lz = L6;
                Lz.d_enc = d;
                Lz.b_q = Lz.b_k = Lz.b_v = Lz.b_o = zero;
                const sk_status s6 =
                    sk_mhca_forward(&L6, n_dec, dec, n_enc, enc, mask, out, NULL, NULL);
                const sk_status sz =
                    sk_mhca_forward(&Lz, n_dec, dec, n_enc, enc, mask, out2, NULL, NULL);
                ck_check(s6 == SK_OK && sz == SK_OK, "status %d / %d", (int)s6, (int)sz);
                for (size_t i = 0; i < n_dec * d; i++)
                    if (out[i] != out2[i]) {
                        ck_fail("zero biases: out[%zu] = %.9g, bias-free %.9g", i, out2[i], out[i]);
                        break;
                    }
                ck_buf_check(zero, "zero bias");
                ck_buf_free(zero);
            }
            ck_buf_check(kv, "kv"); ck_buf_check(os, "step out"); ck_buf_check(wsv, "step weights");
            ck_buf_check(out, "out"); ck_buf_check(out2, "out2"); ck_buf_check(w, "weights");
            if (ws) ck_buf_check(ws, "workspace");
            ck_buf_free(kv); ck_buf_free(os); ck_buf_free(wsv); ck_buf_free(out); ck_buf_free(out2);
            ck_buf_free(w); ck_buf_free(ws); ck_buf_free(wq); ck_buf_free(wk); ck_buf_free(wv);
            ck_buf_free(wo); ck_buf_free(dec); ck_buf_free(enc);
            for (int i = 0; i < 4; i++) ck_buf_free(bias[i]);
            free(mask); free(od); free(wd); free(kvd);
        }
}

/* w (rows x d) packed by sk_sgemm_pack_b on the active path, in a guarded buffer. */
static void *pack_weight(size_t rows, size_t d, const float *w)
{
    const size_t bytes = sk_sgemm_pack_b_size(rows, d);
    float *pk = ck_buf_alloc((bytes + 3) / 4);
    ck_check(bytes && sk_sgemm_pack_b(SK_NOTRANS, rows, d, w, d, pk, bytes) == SK_OK,
             "pack %zu x %zu", rows, d);
    return pk;
}

/* The module with its weights packed once (sk_mhca.w_*_packed, packed on the path under test,
   or on the scalar path while this one runs the rest): sk_mhca_forward (both of its paths),
   sk_mhca_project_kv and sk_mhca_forward_kv against the double reference with the bounds of the
   unpacked module, and within 1e-5 of the unpacked module's result; a packed weight of another
   shape, a corrupted one and one of a path not available here: SK_EINVAL / SK_EUNSUPPORTED,
   nothing written. */
static void test_mhca_packed(void)
{
    static const size_t shapes[][5] = { /* d_model, d_enc, heads, n_dec, n_enc */
        { 16, 16, 1, 2, 4 }, { 40, 24, 4, 3, 9 }, { 64, 128, 8, 1, 70 }, { 96, 40, 6, 17, 33 },
        { 128, 96, 4, 1, 65 }, { 32, 80, 2, 33, 5 },
    };
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
        for (int scalar_pack = 0; scalar_pack < 2; scalar_pack++) {
            const size_t d = shapes[si][0], de = shapes[si][1], H = shapes[si][2];
            const size_t n_dec = shapes[si][3], n_enc = shapes[si][4];
            ck_func("mhca packed d %zu d_enc %zu H %zu dec %zu enc %zu scalar pack %d", d, de, H,
                    n_dec, n_enc, scalar_pack);
            float *wq = xavier2(d, d), *wk = xavier2(de, d), *wv = xavier2(de, d),
                  *wo = xavier2(d, d);
            float *bias[4];
            for (int i = 0; i < 4; i++) {
                bias[i] = i == 1 && (si & 1) ? NULL : ck_buf_alloc(d);
                if (bias[i]) ck_fill(bias[i], d, -1.f, 1.f);
            }
            const float *const bq[4] = { bias[0], bias[1], bias[2], bias[3] };
            float *dec = ck_buf_alloc(n_dec * d), *enc = ck_buf_alloc(n_enc * de);
            for (size_t i = 0; i < n_dec * d; i++) dec[i] = ck_randn();
            for (size_t i = 0; i < n_enc * de; i++) enc[i] = ck_randn();
            uint8_t *mask = malloc(n_enc);
            for (size_t j = 0; j < n_enc; j++) mask[j] = ck_rand_u32(4) != 0;
            mask[0] = 1;
            double *od = malloc(n_dec * d * sizeof *od),
                   *wd = malloc(H * n_dec * n_enc * sizeof *wd);
            double *kvd = malloc(2 * n_enc * d * sizeof *kvd);
            ref_mhca_full(d, de, H, n_dec, dec, n_enc, enc, mask, wq, wk, wv, wo, bq, od, wd, kvd);
            sk_mhca L = { d, H, wq, wk, wv, wo };
            L.d_enc = de;
            L.b_q = bias[0]; L.b_k = bias[1]; L.b_v = bias[2]; L.b_o = bias[3];
            const sk_mhca plain = L;
            if (scalar_pack) sk_isa_select(SK_ISA_SCALAR);
            void *pq = pack_weight(d, d, wq), *pk = pack_weight(de, d, wk);
            void *pv = pack_weight(de, d, wv), *po = pack_weight(d, d, wo);
            if (scalar_pack) sk_isa_select(ck_isa());
            L.w_q_packed = pq; L.w_k_packed = pk; L.w_v_packed = pv; L.w_o_packed = po;
            float *out = ck_buf_alloc(n_dec * d), *ref = ck_buf_alloc(n_dec * d);
            float *w = ck_buf_alloc(H * n_dec * n_enc);
            for (int with_w = 0; with_w < 2; with_w++) { /* weights NULL: the folded path too */
                float *ww = with_w ? w : NULL;
                ck_check(sk_mhca_forward(&L, n_dec, dec, n_enc, enc, mask, out, ww, NULL) == SK_OK,
                         "forward");
                ck_check(sk_mhca_forward(&plain, n_dec, dec, n_enc, enc, mask, ref, NULL, NULL) ==
                             SK_OK, "forward unpacked");
                for (size_t i = 0; i < n_dec * d; i++)
                    if (!close_to(out[i], od[i]) ||
                        fabs(out[i] - ref[i]) > 1e-5 * (1 + fabs(ref[i]))) {
                        ck_fail("weights %d: out[%zu] = %.9g, expected %.9g (unpacked %.9g)",
                                with_w, i, out[i], od[i], ref[i]);
                        break;
                    }
            }
            for (size_t i = 0; i < H * n_dec * n_enc; i++)
                if (!(fabs(w[i] - wd[i]) <= 1e-4 * wd[i] + 1e-8) || (wd[i] == 0 && w[i] != 0)) {
                    ck_fail("weights[%zu] = %.9g, expected %.9g", i, w[i], wd[i]);
                    break;
                }
            float *kv = ck_buf_alloc(2 * n_enc * d);
            ck_check(sk_mhca_project_kv(&L, n_enc, enc, kv) == SK_OK, "project_kv");
            for (size_t i = 0; i < 2 * n_enc * d; i++)
                if (!(fabs(kv[i] - kvd[i]) <= 1e-5 * (1 + fabs(kvd[i])))) {
                    ck_fail("kv[%zu] = %.9g, expected %.9g", i, kv[i], kvd[i]);
                    break;
                }
            /* the packed copies are what the projections read: W_q <-> W_o swapped in the
               packed fields only (W_k <-> W_v for project_kv; the folded path of forward reads
               w_k and w_v themselves) give the unpacked layer with them swapped */
            sk_mhca S = L, Sp = plain;
            S.w_q_packed = po; S.w_o_packed = pq;
            Sp.w_q = wo; Sp.w_o = wq;
            const sk_status s1 = sk_mhca_forward(&S, n_dec, dec, n_enc, enc, mask, out, NULL, NULL);
            const sk_status s2 =
                sk_mhca_forward(&Sp, n_dec, dec, n_enc, enc, mask, ref, NULL, NULL);
            ck_check(s1 == SK_OK && s2 == SK_OK, "swapped: status %d / %d", (int)s1, (int)s2);
            for (size_t i = 0; i < n_dec * d; i++)
                if (fabs(out[i] - ref[i]) > 1e-5 * (1 + fabs(ref[i]))) {
                    ck_fail("swapped: out[%zu] = %.9g, unpacked %.9g", i, out[i], ref[i]);
                    break;
                }
            S = L; Sp = plain;
            S.w_k_packed = pv; S.w_v_packed = pk;
            Sp.w_k = wv; Sp.w_v = wk;
            float *kv2 = ck_buf_alloc(2 * n_enc * d);
            ck_check(sk_mhca_project_kv(&S, n_enc, enc, kv) == SK_OK &&
                         sk_mhca_project_kv(&Sp, n_enc, enc, kv2) == SK_OK, "swapped kv");
            for (size_t i = 0; i < 2 * n_enc * d; i++)
                if (fabs(kv[i] - kv2[i]) > 1e-5 * (1 + fabs(kv2[i]))) {
                    ck_fail("swapped: kv[%zu] = %.9g, unpacked %.9g", i, kv[i], kv2[i]);
                    break;
                }
            ck_buf_check(kv2, "kv2");
            ck_buf_free(kv2);
            ck_check(sk_mhca_project_kv(&L, n_enc, enc, kv) == SK_OK, "project_kv");
            float *os = ck_buf_alloc(d);
            for (size_t i = 0; i < n_dec; i++) {
                ck_check(sk_mhca_forward_kv(&L, 1, dec + i * d, n_enc, kv, mask, os, NULL, NULL) ==
                             SK_OK, "step");
                for (size_t c = 0; c < d; c++)
                    if (!close_to(os[c], od[i * d + c])) {
                        ck_fail("step %zu: out[%zu] = %.9g, expected %.9g", i, c, os[c],
                                od[i * d + c]);
                        break;
                    }
            }
            /* bad packed weights: nothing written */
            ck_func("mhca packed bad d %zu d_enc %zu", d, de);
            for (size_t i = 0; i < n_dec * d; i++) out[i] = 3.f;
            for (size_t i = 0; i < 2 * n_enc * d; i++) kv[i] = 3.f;
            sk_mhca B = L;
            B.w_q_packed = pk; /* w_k's shape: d_enc x d_model */
            const sk_status want = de == d ? SK_OK : SK_EINVAL;
            if (de != d) {
                ck_check(sk_mhca_forward(&B, n_dec, dec, n_enc, enc, mask, out, NULL, NULL) == want,
                         "w_q packed as d_enc x d_model");
                B = L;
                B.w_k_packed = pq;
                ck_check(sk_mhca_project_kv(&B, n_enc, enc, kv) == SK_EINVAL,
                         "w_k packed as d_model x d_model");
            }
            B = L;
            B.w_o_packed = (const char *)po + 2; /* misaligned */
            ck_check(sk_mhca_forward_kv(&B, 1, dec, n_enc, kv, mask, out, NULL, NULL) == SK_EINVAL,
                     "misaligned");
            B.w_o_packed = wo; /* not a packed buffer */
            ck_check(sk_mhca_forward(&B, n_dec, dec, n_enc, enc, mask, out, NULL, NULL) ==
                         SK_EINVAL,
                     "not packed");
            const size_t pbytes = sk_sgemm_pack_b_size(d, d);
            unsigned char *forged = (unsigned char *)ck_buf_alloc((pbytes + 3) / 4);
            memcpy(forged, po, 64);
            B.w_o_packed = forged;
            for (int isa = 0; isa <= SK_ISA_COUNT; isa++) {
                if (isa < SK_ISA_COUNT && sk_isa_available((sk_isa)isa)) continue;
                const uint32_t v = (uint32_t)isa;
                memcpy(forged + 4, &v, 4); /* the path it claims */
                const sk_status st =
                    sk_mhca_forward(&B, n_dec, dec, n_enc, enc, mask, out, NULL, NULL);
                ck_check(st == (isa < SK_ISA_COUNT ? SK_EUNSUPPORTED : SK_EINVAL),
                         "packed for path %d: status %d", isa, (int)st);
            }
            for (size_t i = 0; i < n_dec * d; i++)
                if (out[i] != 3.f) { ck_fail("bad packed weight: out written"); break; }
            for (size_t i = 0; i < 2 * n_enc * d; i++)
                if (kv[i] != 3.f) { ck_fail("bad packed weight: kv written"); break; }
            ck_buf_check(pq, "packed w_q"); ck_buf_check(pk, "packed w_k");
            ck_buf_check(pv, "packed w_v"); ck_buf_check(po, "packed w_o");
            ck_buf_check(out, "out"); ck_buf_check(ref, "ref"); ck_buf_check(w, "weights");
            ck_buf_check(kv, "kv"); ck_buf_check(os, "step out");
            ck_buf_free(pq); ck_buf_free(pk); ck_buf_free(pv); ck_buf_free(po);
            ck_buf_free((float *)forged); ck_buf_free(out); ck_buf_free(ref); ck_buf_free(w);
            ck_buf_free(kv); ck_buf_free(os); ck_buf_free(wq); ck_buf_free(wk); ck_buf_free(wv);
            ck_buf_free(wo); ck_buf_free(dec); ck_buf_free(enc);
            for (int i = 0; i < 4; i++) ck_buf_free(bias[i]);
            free(mask); free(od); free(wd); free(kvd);
        }
}

/* Bad input: SK_EINVAL and nothing written. */
static int untouched(const float *p, size_t n)
{
    for (size_t i = 0; i < n; i++) if (p[i] != 3.f) return 0;
    return 1;
}

static void test_bad_input(void)
{
    ck_func("bad input");
    float q[64], k[64], v[64], o[64], w[64];
    for (int i = 0; i < 64; i++) { q[i] = k[i] = v[i] = 0.5f; o[i] = w[i] = 3.f; }
    const sk_mask bad_kind = { (sk_mask_kind)99, NULL, 0, 0 };
    const sk_mask bool_null = { SK_MASK_BOOL, NULL, 4, 0 };
    const uint8_t mb[16] = { 1 };
    const sk_mask bool_ld = { SK_MASK_BOOL, mb, 2, 0 };
    const sk_mask keys_null = { SK_MASK_KEYS, NULL, 0, 0 };
#define BAD(call)                                                                 \
    do {                                                                          \
        sk_status s_ = (call);                                                    \
        ck_check(s_ == SK_EINVAL, "%s: status %d", #call, (int)s_);               \
        ck_check(untouched(o, 64) && untouched(w, 64), "%s wrote output", #call); \
    } while (0)
    BAD(sk_attention(2, 3, 4, 4, NULL, 4, k, 4, v, 4, 1.f, NULL, o, 4, w));
    BAD(sk_attention(2, 3, 4, 4, q, 4, NULL, 4, v, 4, 1.f, NULL, o, 4, w));
    BAD(sk_attention(2, 3, 4, 4, q, 4, k, 4, NULL, 4, 1.f, NULL, o, 4, w));
    BAD(sk_attention(2, 3, 4, 4, q, 4, k, 4, v, 4, 1.f, NULL, NULL, 4, w));
    BAD(sk_attention(2, 3, 4, 4, q, 3, k, 4, v, 4, 1.f, NULL, o, 4, w));
    BAD(sk_attention(2, 3, 4, 4, q, 4, k, 3, v, 4, 1.f, NULL, o, 4, w));
    BAD(sk_attention(2, 3, 4, 4, q, 4, k, 4, v, 3, 1.f, NULL, o, 4, w));
    BAD(sk_attention(2, 3, 4, 4, q, 4, k, 4, v, 4, 1.f, NULL, o, 3, w));
    BAD(sk_attention(2, 3, 4, 4, q, 4, k, 4, v, 4, 1.f, &bad_kind, o, 4, w));
    BAD(sk_attention(2, 3, 4, 4, q, 4, k, 4, v, 4, 1.f, &bool_null, o, 4, w));
    BAD(sk_attention(2, 3, 4, 4, q, 4, k, 4, v, 4, 1.f, &bool_ld, o, 4, w));
    BAD(sk_attention(2, 3, 4, 4, q, 4, k, 4, v, 4, 1.f, &keys_null, o, 4, w));
    BAD(sk_mha(0, 2, 3, 4, q, 4, k, 4, v, 4, 1.f, NULL, o, 4, w));
    BAD(sk_mha(2, 2, 3, 2, q, 3, k, 4, v, 4, 1.f, NULL, o, 4, w));
    BAD(sk_mha(2, 2, 3, 2, q, 4, k, 4, v, 4, 1.f, NULL, o, 3, w));
    BAD(sk_mha(2, 2, 3, 2, q, 4, k, 4, v, 4, 1.f, &bad_kind, o, 4, w));
    BAD(sk_mha((size_t)1 << 62, 2, 3, 8, q, 4, k, 4, v, 4, 1.f, NULL, o, 4, w));
    float W[64];
    for (int i = 0; i < 64; i++) W[i] = 0.1f;
    const sk_mhca ok = { 4, 2, W, W, W, W }, h0 = { 4, 0, W, W, W, W }, div = { 6, 4, W, W, W, W };
    const sk_mhca nul = { 4, 2, W, NULL, W, W };
    BAD(sk_mhca_forward(NULL, 2, q, 3, k, NULL, o, w, NULL));
    BAD(sk_mhca_forward(&h0, 2, q, 3, k, NULL, o, w, NULL));
    BAD(sk_mhca_forward(&div, 2, q, 3, k, NULL, o, w, NULL));
    BAD(sk_mhca_forward(&nul, 2, q, 3, k, NULL, o, w, NULL));
    BAD(sk_mhca_forward(&ok, 2, NULL, 3, k, NULL, o, w, NULL));
    BAD(sk_mhca_forward(&ok, 2, q, 3, NULL, NULL, o, w, NULL));
    BAD(sk_mhca_forward(&ok, 2, q, 3, k, NULL, NULL, w, NULL));
    BAD(sk_mhca_project_kv(&div, 3, k, o));
    BAD(sk_mhca_project_kv(&ok, 3, NULL, o));
    BAD(sk_mhca_project_kv(&ok, 3, k, NULL));
    BAD(sk_mhca_forward_kv(&h0, 1, q, 3, k, NULL, o, w, NULL));
    BAD(sk_mhca_forward_kv(&ok, 1, NULL, 3, k, NULL, o, w, NULL));
    BAD(sk_mhca_forward_kv(&ok, 1, q, 3, NULL, NULL, o, w, NULL));
    BAD(sk_mhca_forward_kv(&ok, 1, q, 3, k, NULL, NULL, w, NULL));
    /* d_enc: w_k, w_v are d_enc x d_model (extent overflow: a bad layer), enc is n_enc x d_enc */
    sk_mhca wide = ok;
    wide.d_enc = SIZE_MAX / 2;
    BAD(sk_mhca_forward(&wide, 2, q, 3, k, NULL, o, w, NULL));
    BAD(sk_mhca_project_kv(&wide, 3, k, o));
    BAD(sk_mhca_forward_kv(&wide, 1, q, 3, k, NULL, o, w, NULL));
    ck_check(sk_mhca_workspace_size(&wide, 2, 3) == 0 && sk_mhca_kv_size(&wide, 3) == 0 &&
                 sk_mhca_forward_kv_workspace_size(&wide, 1) == 0,
             "sizes with an overflowing d_enc not 0");
    sk_mhca narrow = ok;
    narrow.d_enc = (size_t)1 << 40; /* a valid layer; n_enc x d_enc of encoder rows overflows */
    BAD(sk_mhca_forward(&narrow, 2, q, (size_t)1 << 22, k, NULL, o, NULL, NULL));
    BAD(sk_mhca_project_kv(&narrow, (size_t)1 << 22, k, o));
    sk_mhca biased = ok;
    biased.d_enc = 3;
    biased.b_q = biased.b_k = biased.b_v = biased.b_o = W;
    biased.w_v = NULL;
    BAD(sk_mhca_forward(&biased, 2, q, 3, k, NULL, o, w, NULL));
    BAD(sk_mhca_project_kv(&biased, 3, k, o));
    biased.w_v = W;
    BAD(sk_mhca_forward(&biased, 2, q, 3, NULL, NULL, o, w, NULL));
    BAD(sk_mhca_project_kv(&biased, 3, k, NULL));
    /* weights of n_heads x n_dec x n_enc that overflow */
    BAD(sk_mhca_forward_kv(&ok, 2, q, (size_t)1 << 62, k, NULL, o, w, NULL));
#undef BAD
    ck_check(sk_mhca_workspace_size(&div, 2, 3) == 0 && sk_mhca_kv_size(NULL, 3) == 0 &&
             sk_mhca_forward_kv_workspace_size(&h0, 1) == 0, "sizes of a bad layer not 0");
    /* zero sizes are fine and write nothing */
    ck_check(sk_attention(0, 3, 4, 4, q, 4, k, 4, v, 4, 1.f, NULL, o, 4, w) == SK_OK &&
                 untouched(o, 64),
             "n_q 0");
    ck_check(sk_mha(2, 0, 3, 2, q, 4, k, 4, v, 4, 1.f, NULL, o, 4, w) == SK_OK && untouched(o, 64),
             "mha n_q 0");
    /* empty operands may be NULL: d_k == 0 gives uniform weights over the keys */
    {
        float w3[6], o2[4], vv[6] = { 1.f, 2.f, 3.f, 4.f, 5.f, 9.f };
        sk_status st = sk_attention(2, 3, 0, 0, NULL, 0, NULL, 0, NULL, 0, 1.f, NULL, NULL, 0, w3);
        ck_check(st == SK_OK && fabsf(w3[0] - 1.f / 3) < 1e-6f && fabsf(w3[5] - 1.f / 3) < 1e-6f,
                 "d_k = d_v = 0 with NULLs");
        st = sk_attention(2, 3, 0, 2, NULL, 0, NULL, 0, vv, 2, 1.f, NULL, o2, 2, NULL);
        ck_check(st == SK_OK && fabsf(o2[0] - 3.f) < 1e-5f && fabsf(o2[3] - 5.f) < 1e-5f,
                 "d_k = 0: mean of v (%g %g)", o2[0], o2[3]);
        ck_check(sk_mha(2, 1, 3, 0, NULL, 0, NULL, 0, NULL, 0, 1.f, NULL, NULL, 0, NULL) == SK_OK,
                 "mha d_head 0");
        for (int i = 0; i < 4; i++) o2[i] = 7.f;
        ck_check(sk_mha(2, 2, 0, 1, vv, 2, NULL, 2, NULL, 2, 1.f, NULL, o2, 2, NULL) == SK_OK &&
                     o2[0] == 0.f && o2[3] == 0.f,
                 "mha n_kv 0");
    }
    /* n_kv 0: nothing to attend to, a zero output */
    ck_check(sk_attention(2, 0, 4, 4, q, 4, NULL, 4, NULL, 4, 1.f, NULL, o, 4, NULL) == SK_OK &&
             o[0] == 0.f && o[7] == 0.f && o[8] == 3.f, "n_kv 0");
}

void ck_test_attention(void)
{
    test_attention_hand();
    test_attention_sweep();
    test_attention_nan();
    test_mha();
    test_mha_decoder();
    test_mhca();
    test_mhca_bias();
    test_mhca_packed();
    test_bad_input();
}
