/* Fuzz target: sk_attention and sk_mha (fused core, weights path, the n_q = 1 decoder step of
 * sk_mha), every mask kind, on every available ISA, against a double-precision reference.
 *
 * Tolerance, derived from the documented bounds (u = 2^-24). For query row r and attended key j:
 *   s_j = scale q_r.k_j + add_j (double), g_j = |scale| sum_p |q_rp k_jp|;
 *   the float score carries at most e_j = (2 d_k + 4) u (g_j + |add_j|) + (2 d_k + 4) 2^-149 of
 *   error (the GEMM bound, applied to the dot product, the scaling and the mask add); scores off by
 *   at most D = max_j e_j move every weight by a factor within exp(+-2D); the softmax of the
 *   rounded scores then meets the softmax bound with T = max_j (|scale q_r.k_j| + |add_j|) + D. So
 *     weights: |w - exact| <= rel exact + 1e-9,  rel = 1e-5 + 2^-22 T + expm1(2D);
 *     out:     |o_c - exact_c| <= (rel + (2 n + 4) u (1 + rel)) sum_j w_j |v_jc|
 *                                 + 1e-9 sum_j |v_jc| + (2 n + 4) 2^-149
 *   (n = attended keys: the P.V product's GEMM bound on top of the weights' error).
 * The check is the bound simdkern.h states (with Tq = max_j |scale| g_j + |add_j|,
 * E = expm1((d_k + 1) 2^-22 Tq)):
 *     weights: |w - exact| <= (1e-5 + E) exact + 1e-9,
 *     out:     |o_c - exact_c| <= (1e-5 + E) sum_j w_j |v_jc| + 1e-6 max_j |v_jc|;
 * a failure prints the derived tolerance too: beyond it, the result is wrong; within it, the stated
 * bound is too tight for that case. Masked weights
 *   are exactly 0; a row with nothing attended (or every score -inf) has zero weights and a zero
 *   output row; an attended NaN or +inf score makes the row's attended weights and its outputs
 *   NaN (masked weights stay 0). Nothing outside out's n_q x d_v elements and the weights changes;
 *   q, k, v, the mask are not written. v stays finite (the contract asks for finite v rows).
 *
 * Input: header (below), then patches: which 0 = q, 1 = k, 2 = v (finite values only), 3 = mask
 * element (ADD value, or KEYS / BOOL byte = value != 0). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "../ref_mask.h"

static const float k_scales[] = { 0.125f, 1.f, -8.f, 0.17677669f, 0.3f, 1e-3f, 0.f, 2.5f };
#define N_SCALES (sizeof k_scales / sizeof k_scales[0])

/* One head's reference. w: n_q x n_kv exact weights; st: 0 masked, 1 attended, 2 attended in a NaN
   row; o, otol: n_q x dv exact outputs and their tolerance (otol < 0: the output must be NaN). */
static void ref_head(size_t n_q, size_t n_kv, size_t dk, size_t dv, const float *q, size_t ldq,
                     const float *k, size_t ldk, const float *v, size_t ldv, double scale,
                     const sk_mask *m, double *w, unsigned char *st, double *wrel, double *o,
                     double *otol, double *wdoc, double *odoc)
{
    const double u = 0x1p-24, sub = 0x1p-149;
    for (size_t r = 0; r < n_q; r++) {
        double mx = -INFINITY, T = 0, D = 0, Tq = 0, G = 0;
        int nan = 0;
        size_t natt = 0;
        double *wr = w + r * n_kv;
        unsigned char *sr = st + r * n_kv;
        for (size_t j = 0; j < n_kv; j++) {
            double add;
            sr[j] = (unsigned char)ref_attended(m, r, j, &add);
            if (!sr[j]) { wr[j] = -INFINITY; continue; }
            natt++;
            double dot = 0, g = 0;
            for (size_t p = 0; p < dk; p++) {
                const double t = (double)q[r * ldq + p] * k[j * ldk + p];
                dot += t;
                g += fabs(t);
            }
            /* scale == 0: the scores are 0, q and k not read (the stated rule) */
            const double sq = scale == 0 ? 0 : scale * dot, s = sq + add;
            wr[j] = s;
            if (g > G) G = g;
            if (s != s || s == INFINITY) { nan = 1; continue; }
            if (s > mx) mx = s;
            if (fz_isfinite(s)) {
                const double e = (double)(2 * dk + 4) * (u * (fabs(scale) * g + fabs(add)) + sub);
                if (e > D) D = e;
                if (fabs(sq) + fabs(add) > T) T = fabs(sq) + fabs(add);
                if (fabs(scale) * g + fabs(add) > Tq) Tq = fabs(scale) * g + fabs(add);
            }
        }
        if (!nan && (G > 0x1p126 || Tq > 0x1p126)) {
            /* scores are float: beyond FLT_MAX / 2 a dot product or score may overflow to inf,
               then the NaN / inf rules apply (the header): no bound for this row */
            for (size_t j = 0; j < n_kv; j++) sr[j] = sr[j] ? 3 : 0;
            for (size_t c = 0; c < dv; c++) otol[r * dv + c] = odoc[r * dv + c] = NAN;
            wrel[r] = wdoc[r] = 0;
            continue;
        }
        if (nan) {
            for (size_t j = 0; j < n_kv; j++) sr[j] = sr[j] ? 2 : 0;
            for (size_t c = 0; c < dv; c++) otol[r * dv + c] = -1;
            wrel[r] = wdoc[r] = 0;
            for (size_t c = 0; c < dv; c++) odoc[r * dv + c] = -1;
            continue;
        }
        double sum = 0;
        for (size_t j = 0; j < n_kv; j++) {
            wr[j] = (sr[j] && mx != -INFINITY) ? exp(wr[j] - mx) : 0.0;
            sum += wr[j];
        }
        for (size_t j = 0; j < n_kv; j++) wr[j] = sum > 0 ? wr[j] / sum : 0.0;
        const double rel = 1e-5 + 0x1p-22 * (T + D) + expm1(2 * D);
        const double reld = 1e-5 + expm1((double)(dk + 1) * 0x1p-22 * Tq);
        wrel[r] = rel;
        wdoc[r] = reld;
        for (size_t c = 0; c < dv; c++) {
            double acc = 0, g = 0, va = 0, vmax = 0;
            for (size_t j = 0; j < n_kv; j++) {
                if (!sr[j]) continue;
                const double x = v[j * ldv + c];
                acc += wr[j] * x;
                g += wr[j] * fabs(x);
                va += fabs(x);
                if (fabs(x) > vmax) vmax = fabs(x);
            }
            o[r * dv + c] = acc;
            otol[r * dv + c] = (rel + (double)(2 * natt + 4) * u * (1 + rel)) * g + 1e-9 * va +
                               (double)(2 * natt + 4) * sub;
            odoc[r * dv + c] = reld * g + 1e-6 * vmax;
        }
    }
}

static float *fill_mat(fz_rng *rng, size_t rows, size_t cols, size_t ld, float amp, int quant)
{
    const size_t n = rows && cols ? (rows - 1) * ld + cols : 0;
    float *p = malloc((n ? n : 1) * sizeof *p);
    for (size_t i = 0; i < n; i++) p[i] = NAN; /* padding: NaN */
    for (size_t r = 0; r < rows && cols; r++) fz_fill(rng, p + r * ld, cols, amp, quant);
    return p;
}

/* a guarded copy of n elements of `elem` bytes */
static void *guarded(fz_buf *b, const void *src, size_t n, size_t elem, int at_start)
{
    fz_buf_alloc(b, n * elem, at_start);
    if (n) memcpy(b->p, src, n * elem);
    fz_buf_snap(b);
    return n ? b->p : NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_in in = { data, size };
    const uint8_t flags = fz_u8(&in);
    const int is_mha = flags & 1, with_w = flags & 2, quant = flags & 4;
    const int at_start = (flags >> 3) & 1;
    const int none_struct = flags & 16, big = flags & 32;
    const int kind = fz_u8(&in) % 5;
    const uint8_t qb = fz_u8(&in);
    const uint16_t kvb = fz_u16(&in);
    const uint8_t dkb = fz_u8(&in), dvb = fz_u8(&in), hb = fz_u8(&in);
    size_t n_q = 1 + qb % 40;
    if (qb & 0x80) n_q = 1;
    const size_t n_kv = 1 + kvb % (big ? 1100 : 300);
    size_t n_heads = 1, dk, dv;
    if (is_mha) {
        n_heads = 1 + hb % 6;
        dk = dv = dkb % 33;
    } else {
        dk = big ? (size_t)dkb + dvb % 64 : dkb % 81; /* past the packed-Q limit of 256 too */
        dv = dvb % 81;
    }
    const size_t wq = n_heads * dk, wv = n_heads * dv; /* row lengths of q / k and of v / out */
    const size_t ldq = wq + fz_u8(&in) % 8, ldk = wq + fz_u8(&in) % 8;
    const size_t ldv = wv + fz_u8(&in) % 8, ldo = wv + fz_u8(&in) % 8, ldm = n_kv + fz_u8(&in) % 8;
    const float amp_q = fz_amp(fz_u8(&in), -4, 3), amp_k = fz_amp(fz_u8(&in), -4, 3);
    const float amp_v = fz_amp(fz_u8(&in), -4, 4), amp_add = fz_amp(fz_u8(&in), -4, 8);
    const double density = fz_u8(&in) / 255.0;
    const uint8_t ssel = fz_u8(&in);
    const float sraw = fz_f32(&in);
    const uint8_t osel = fz_u8(&in);
    const uint64_t oraw = fz_u64(&in);
    fz_rng rng = { fz_u32(&in) };
    float scale = ssel % (N_SCALES + 1) == N_SCALES ? sraw : k_scales[ssel % (N_SCALES + 1)];
    if (!fz_isfinite(scale) || fabsf(scale) > 64.f) scale = 0.125f; /* special values: in q, k */

    float *q = fill_mat(&rng, n_q, wq, ldq, amp_q, quant);
    float *k = fill_mat(&rng, n_kv, wq, ldk, amp_k, quant);
    float *v = fill_mat(&rng, n_kv, wv, ldv, amp_v, quant);
    const size_t mext = (n_q - 1) * ldm + n_kv;
    uint8_t *mb;
    float *ma;
    const ptrdiff_t offset =
        fz_pick_offset(osel, oraw, n_q, n_kv, (ptrdiff_t)n_kv - (ptrdiff_t)n_q);
    sk_mask mask = fz_mask_make(&rng, kind, n_q, n_kv, ldm, density, amp_add, offset, &mb, &ma);
    mask.data = NULL; /* the guarded copy, below */
    fz_patch_t pt;
    while (fz_patch(&in, &pt)) {
        const unsigned w = pt.which % 4;
        if (w == 3) {
            const size_t i = pt.index % (n_q * n_kv), r = i / n_kv, c = i % n_kv;
            if (ma) ma[r * ldm + c] = pt.value;
            else if (mb) mb[kind == 1 ? c : r * ldm + c] = pt.value != 0.f;
            continue;
        }
        const size_t rows = w == 1 || w == 2 ? n_kv : n_q, cols = w == 2 ? wv : wq;
        const size_t ld = w == 0 ? ldq : w == 1 ? ldk : ldv;
        if (!cols || (w == 2 && !fz_isfinite(pt.value))) continue;
        const size_t i = pt.index % (rows * cols);
        (w == 0 ? q : w == 1 ? k : v)[(i / cols) * ld + i % cols] = pt.value;
    }

    snprintf(fz_case, sizeof fz_case,
             "%s heads=%zu n_q=%zu n_kv=%zu d_k=%zu d_v=%zu ldq=%zu ldk=%zu ldv=%zu ldo=%zu "
             "scale=%a mask=%d ld=%zu offset=%td weights=%d", is_mha ? "sk_mha" : "sk_attention",
             n_heads, n_q, n_kv, dk, dv, ldq, ldk, ldv, ldo, scale,
             kind || none_struct ? kind : -1, ldm, mask.offset, !!with_w);

    /* guarded copies of every operand */
    fz_buf bq, bk, bv, bm = { 0 }, bo, bw = { 0 };
    const size_t eq = wq ? (n_q - 1) * ldq + wq : 0, ek = wq ? (n_kv - 1) * ldk + wq : 0;
    const size_t ev = wv ? (n_kv - 1) * ldv + wv : 0, eo = wv ? (n_q - 1) * ldo + wv : 0;
    const float *gq = guarded(&bq, q, eq, sizeof(float), at_start);
    const float *gk = guarded(&bk, k, ek, sizeof(float), !at_start);
    const float *gv = guarded(&bv, v, ev, sizeof(float), at_start);
    if (mb) mask.data = guarded(&bm, mb, kind == 1 ? n_kv : mext, 1, at_start);
    if (ma) mask.data = guarded(&bm, ma, mext, sizeof(float), at_start);
    const sk_mask *mp = kind || none_struct ? &mask : NULL;
    fz_buf_alloc(&bo, eo * sizeof(float), !at_start);
    const size_t nw = n_heads * n_q * n_kv;
    if (with_w) fz_buf_alloc(&bw, nw * sizeof(float), at_start);

    /* the reference per head */
    double *w = malloc(nw * sizeof *w), *wrel = malloc(n_heads * n_q * sizeof *wrel);
    unsigned char *st = malloc(nw);
    double *o = malloc((n_heads * n_q * dv + 1) * sizeof *o);
    double *otol = malloc((n_heads * n_q * dv + 1) * sizeof *otol);
    double *odoc = malloc((n_heads * n_q * dv + 1) * sizeof *odoc);
    double *wdoc = malloc(n_heads * n_q * sizeof *wdoc);
    for (size_t h = 0; h < n_heads; h++)
        ref_head(n_q, n_kv, dk, dv, q + h * dk, ldq, k + h * dk, ldk, v + h * dv, ldv, scale, mp,
                 w + h * n_q * n_kv, st + h * n_q * n_kv, wrel + h * n_q, o + h * n_q * dv,
                 otol + h * n_q * dv, wdoc + h * n_q, odoc + h * n_q * dv);

    sk_isa isas[SK_ISA_COUNT];
    const int nisa = fz_isas(isas);
    const sk_isa before = sk_isa_active();
    for (int ii = 0; ii < nisa; ii++) {
        sk_isa_select(isas[ii]);
        memset(bo.p, FZ_SENT, bo.bytes);
        fz_buf_snap(&bo);
        float *wts = NULL;
        if (with_w) {
            memset(bw.p, FZ_SENT, bw.bytes);
            wts = bw.p;
        }
        float *out = eo ? bo.p : NULL;
        const sk_status s = is_mha
            ? sk_mha(n_heads, n_q, n_kv, dk, gq, ldq, gk, ldk, gv, ldv, scale, mp, out, ldo, wts)
            : sk_attention(n_q, n_kv, dk, dv, gq, ldq, gk, ldk, gv, ldv, scale, mp, out, ldo, wts);
        if (s != SK_OK) fz_fail("status %s on a valid call", sk_status_str(s));
        if (!fz_buf_check(&bo, n_q, wv, ldo, sizeof(float))) fz_fail("wrote outside out");
        if (with_w && !fz_buf_check(&bw, 0, 0, 0, 1)) fz_fail("wrote around the weights");
        if (!fz_buf_check(&bq, 0, 0, 0, 1) || !fz_buf_check(&bk, 0, 0, 0, 1) ||
            !fz_buf_check(&bv, 0, 0, 0, 1) || (bm.p && !fz_buf_check(&bm, 0, 0, 0, 1)))
            fz_fail("wrote into an input");
        for (size_t h = 0; h < n_heads; h++)
            for (size_t r = 0; r < n_q; r++) {
                for (size_t c = 0; c < dv && out; c++) {
                    const float got = out[r * ldo + h * dv + c];
                    const size_t i = (h * n_q + r) * dv + c;
                    const double e = o[i], tol = odoc[i];
                    if (tol != tol) continue; /* a row whose float scores may overflow */
                    if (tol < 0 ? got == got : !(fabs(got - e) <= tol))
                        fz_fail("head %zu out[%zu,%zu] = %.9g, exact %.9g, |err| %.3g > stated "
                                "bound %.3g (derived %.3g)", h, r, c, got, e, fabs(got - e), tol,
                                otol[i]);
                }
                for (size_t j = 0; j < n_kv && wts; j++) {
                    const size_t i = (h * n_q + r) * n_kv + j;
                    const float got = wts[i];
                    if (st[i] == 0 && got != 0.f)
                        fz_fail("head %zu weight[%zu,%zu] = %a masked, not 0", h, r, j, got);
                    if (st[i] == 2 && got == got)
                        fz_fail("head %zu weight[%zu,%zu] = %a in a NaN row", h, r, j, got);
                    const double wd = wdoc[h * n_q + r]; /* inf: no bound (E overflows) */
                    const double tol = wd == INFINITY ? wd : wd * w[i] + 1e-9;
                    if (st[i] == 1 && !(fabs(got - w[i]) <= tol))
                        fz_fail("head %zu weight[%zu,%zu] = %.9g, exact %.9g, |err| %.3g > stated "
                                "bound %.3g (derived %.3g)", h, r, j, got, w[i], fabs(got - w[i]),
                                tol, wrel[h * n_q + r] * w[i] + 1e-9);
                }
            }
    }
    sk_isa_select(before);
    fz_buf_free(&bq);
    fz_buf_free(&bk);
    fz_buf_free(&bv);
    fz_buf_free(&bm);
    fz_buf_free(&bo);
    fz_buf_free(&bw);
    free(q);
    free(k);
    free(v);
    free(mb);
    free(ma);
    free(w);
    free(wrel);
    free(st);
    free(o);
    free(otol);
    free(odoc);
    free(wdoc);
    return 0;
}
