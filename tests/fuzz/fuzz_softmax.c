/* Fuzz target: sk_softmax and sk_scale_mask_softmax (every mask kind, causal offsets up to the ends
 * of ptrdiff_t), on every available ISA, against a double-precision reference written here.
 *
 * Per row, with v_c = scale * x_c + add_c (add = the ADD mask value, else 0; sk_softmax: scale 1)
 * in double over the attended positions c, and T = max over attended c with finite v_c of
 * |scale * x_c| + |add_c|:
 *   - attended v_c all finite (or -inf):
 *     |y_c - exact_c| <= (1e-5 + expm1(2^-22 T)) exact_c + 1e-9 (the header's bound),
 *     where a v_c of -inf has exact_c = 0; nothing attended (or every v_c = -inf): the row is
 *     all zeros;
 *   - any attended v_c NaN or +inf: every attended y_c is NaN;
 *   - masked positions are exactly 0, in every row (NaN rows too);
 *   - nothing outside the rows x cols elements of y changes (ld padding, guard band, a PROT_NONE
 *     page right after the last element), x is not written (unless y == x).
 * Every ISA is held to the same reference, so a SIMD path gives what the scalar path gives wherever
 * the scalar result is right (a NaN where the reference is finite fails).
 *
 * Input: header (below), then patches: which 0 = x[i], 1 = mask element i (ADD value, or KEYS /
 * BOOL byte = value != 0). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "../ref_mask.h"

enum { MAX_ROWS = 16, MAX_COLS = 300, BIG_COLS = 65536 };

static const float k_scales[] = { 1.f, -8.f, 0.125f, 0.17677669f, 0.3f, -1.7f, 1e-3f, 0.f, 7.3f };
#define N_SCALES (sizeof k_scales / sizeof k_scales[0])

/* The reference of row r into e[] (exact weights), le[] (their natural logarithms, finite where a
   weight underflows to 0 in double), st[] (0 masked, 1 attended, 2 attended in a NaN row);
   returns T. */
static double ref_row(size_t r, size_t cols, double scale, const float *x, const sk_mask *m,
                      double *e, double *le, unsigned char *st)
{
    double mx = -INFINITY, T = 0;
    int nan = 0;
    for (size_t c = 0; c < cols; c++) {
        double add;
        st[c] = (unsigned char)ref_attended(m, r, c, &add);
        if (!st[c]) { e[c] = -INFINITY; continue; }
        const double sx = scale * (double)x[c], v = sx + add;
        e[c] = v;
        if (v != v || v == INFINITY) nan = 1;
        else if (v > mx) mx = v;
        if (fz_isfinite(v) && fabs(sx) + fabs(add) > T) T = fabs(sx) + fabs(add);
    }
    if (nan) {
        for (size_t c = 0; c < cols; c++) st[c] = st[c] ? 2 : 0;
        return T;
    }
    double sum = 0;
    for (size_t c = 0; c < cols; c++) {
        le[c] = (st[c] && mx != -INFINITY) ? e[c] - mx : -INFINITY;
        e[c] = exp(le[c]);
        sum += e[c];
    }
    for (size_t c = 0; c < cols; c++) { /* sum >= 1 when anything is attended (the max's term) */
        e[c] = sum > 0 ? e[c] / sum : 0.0;
        le[c] = sum > 0 ? le[c] - log(sum) : -INFINITY;
    }
    return T;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_in in = { data, size };
    const uint8_t fk = fz_u8(&in), flags = fz_u8(&in);
    const int masked_fn = fk & 1, kind = (fk >> 1) % 5;
    const int inplace = flags & 1, quant = flags & 2, big = flags & 4, at_start = (flags >> 3) & 1;
    const int none_struct = flags & 16;
    size_t rows = 1 + fz_u8(&in) % MAX_ROWS;
    size_t cols = fz_u16(&in);
    if (big) {
        cols = 1 + cols; /* up to 65536 columns, the documented row length */
        rows = 1 + rows % 2;
    } else {
        cols = 1 + cols % MAX_COLS;
    }
    const size_t padx = fz_u8(&in) % 8, pady = fz_u8(&in) % 8, padm = fz_u8(&in) % 8;
    const float amp = fz_amp(fz_u8(&in), -4, 14), amp_add = fz_amp(fz_u8(&in), -4, 10);
    const double density = fz_u8(&in) / 255.0; /* fraction of masked positions */
    const uint8_t ssel = fz_u8(&in);
    const float sraw = fz_f32(&in);
    const uint8_t osel = fz_u8(&in);
    const uint64_t oraw = fz_u64(&in);
    fz_rng rng = { fz_u32(&in) };

    const float scale = !masked_fn ? 1.f : ssel % (N_SCALES + 1) == N_SCALES ? sraw
                                         : k_scales[ssel % (N_SCALES + 1)];
    size_t ldx = cols + padx, ldy = inplace ? ldx : cols + pady;
    const size_t ldm = cols + padm;

    /* x: NaN in the ld padding (a kernel reading it turns its row NaN) */
    float *x = malloc(rows * ldx * sizeof *x);
    for (size_t r = 0; r < rows; r++) {
        fz_fill(&rng, x + r * ldx, cols, amp, quant);
        for (size_t c = cols; c < ldx; c++) x[r * ldx + c] = NAN;
    }
    /* the mask */
    sk_mask mask = { SK_MASK_NONE, NULL, 0, 0 };
    uint8_t *mb = NULL;
    float *ma = NULL;
    const size_t mext = (rows - 1) * ldm + cols;
    if (masked_fn)
        mask = fz_mask_make(&rng, kind, rows, cols, ldm, density, amp_add,
                            fz_pick_offset(osel, oraw, rows, cols, -(ptrdiff_t)cols), &mb,
                            &ma);
    const sk_mask *mp = masked_fn && (kind != 0 || none_struct) ? &mask : NULL;

    fz_patch_t pt;
    while (fz_patch(&in, &pt)) {
        const size_t i = pt.index % (rows * cols), r = i / cols, c = i % cols;
        if (pt.which % 2 == 0) x[r * ldx + c] = pt.value;
        else if (ma) ma[r * ldm + c] = pt.value;
        else if (mb) mb[kind == 1 ? c : r * ldm + c] = pt.value != 0.f;
    }

    /* the exact mask extent in guarded buffers, so that mask over-reads fault too */
    fz_buf bm = { 0 };
    if (mb || ma) {
        const size_t mbytes = mb ? (kind == 1 ? cols : mext) : mext * sizeof(float);
        fz_buf_alloc(&bm, mbytes, at_start);
        memcpy(bm.p, mb ? (void *)mb : (void *)ma, mbytes);
        mask.data = bm.p;
    }

    snprintf(fz_case, sizeof fz_case,
             "%s rows=%zu cols=%zu ldx=%zu ldy=%zu scale=%a mask=%d ld=%zu offset=%td inplace=%d",
             masked_fn ? "sk_scale_mask_softmax" : "sk_softmax", rows, cols, ldx, ldy, scale,
             mp ? (int)mask.kind : -1, mask.ld, mask.offset, inplace);

    /* the reference, row by row */
    double *e = malloc(2 * rows * cols * sizeof *e), *le = e + rows * cols;
    double *T = malloc(rows * sizeof *T);
    unsigned char *st = malloc(rows * cols);
    for (size_t r = 0; r < rows; r++)
        T[r] = ref_row(r, cols, scale, x + r * ldx, mp, e + r * cols, le + r * cols,
                       st + r * cols);

    const size_t xext = (rows - 1) * ldx + cols, yext = (rows - 1) * ldy + cols;
    fz_buf bx, by;
    fz_buf_alloc(&bx, xext * sizeof(float), at_start);
    fz_buf_alloc(&by, yext * sizeof(float), !at_start);
    sk_isa isas[SK_ISA_COUNT];
    const int nisa = fz_isas(isas);
    const sk_isa before = sk_isa_active();
    for (int ii = 0; ii < nisa; ii++) {
        sk_isa_select(isas[ii]);
        fz_buf *yb = inplace ? &bx : &by;
        memcpy(bx.p, x, xext * sizeof(float));
        if (!inplace) memset(by.p, FZ_SENT, by.bytes);
        fz_buf_snap(&bx);
        fz_buf_snap(&by);
        const float *xp = bx.p;
        float *y = yb->p;
        const sk_status s = masked_fn
            ? sk_scale_mask_softmax(rows, cols, scale, xp, ldx, mp, y, ldy)
            : sk_softmax(rows, cols, xp, ldx, y, ldy);
        if (s != SK_OK) fz_fail("status %s on a valid call", sk_status_str(s));
        if (!fz_buf_check(yb, rows, cols, ldy, sizeof(float)))
            fz_fail("wrote outside the rows x cols elements of y");
        if (!inplace && !fz_buf_check(&bx, 0, 0, 0, 1)) fz_fail("wrote into x");
        if (bm.p && !fz_buf_check(&bm, 0, 0, 0, 1)) fz_fail("wrote into the mask");
        for (size_t r = 0; r < rows; r++)
            for (size_t c = 0; c < cols; c++) {
                const float got = y[r * ldy + c];
                const double ex = e[r * cols + c];
                const unsigned char a = st[r * cols + c];
                if (a == 0 && got != 0.f)
                    fz_fail("row %zu col %zu: masked position is %a, not 0", r, c, got);
                if (a == 2 && got == got)
                    fz_fail("row %zu col %zu: %a in a row with an attended NaN / +inf (want NaN)",
                            r, c, got);
                if (a != 1) continue;
                /* rel * exact as exp(log rel + log exact): where T is large enough for ties in
                   float between scores that differ in double, the exact weight underflows to 0
                   while rel overflows; their product is what bounds the error */
                const double y = 0x1p-22 * T[r];
                const double lrel = y > 700 ? y : log(1e-5 + expm1(y));
                const double tol = exp(lrel + le[r * cols + c]) + 1e-9;
                if (!(fabs(got - ex) <= tol))
                    fz_fail("row %zu col %zu: got %.9g, exact %.9g, |err| %.3g > bound %.3g "
                            "(T = %.6g, x = %a)", r, c, got, ex, fabs(got - ex), tol, T[r],
                            x[r * ldx + c]);
            }
    }
    sk_isa_select(before);
    fz_buf_free(&bx);
    fz_buf_free(&by);
    fz_buf_free(&bm);
    free(x);
    free(mb);
    free(ma);
    free(e);
    free(T);
    free(st);
    return 0;
}
