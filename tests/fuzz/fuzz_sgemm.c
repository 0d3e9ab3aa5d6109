/* Fuzz target: sk_sgemm, sk_sgemm_packed from B packed once (a packed buffer of exactly its
 * size, at a PROT_NONE page) and sk_sgemm_plan_run (a plan made for the call; its result must be
 * sk_sgemm's bit for bit), on every available ISA against the exact product (double; each
 * product of two floats is exact in double and the sums of at most ~600 terms add < 2^-43
 * relative).
 *
 * Checked elementwise, with mag = |alpha| sum_p |op(A)_ip op(B)_pj| + |beta| |C0_ij|:
 *   |C - exact| <= (2k + 4) 2^-24 mag + (2k + 4) 2^-149 max(1, |alpha|)
 * (the documented bound; the last term is the absolute error of roundings in the subnormal range,
 * which no relative bound covers: the sum is accumulated before alpha scales it), where alpha == 0
 * means A and B are not read and beta == 0 means C0 is not read (C0 is NaN then: reading it shows).
 * Checked when mag < 2^126 and the unscaled sum_p |op(A)_ip op(B)_pj| < 2^126 (the kernels, like
 * every BLAS, accumulate the products before alpha scales them: a sum beyond float's range may
 * overflow to inf though alpha would bring the result back into range).
 * With NaN / inf among the inputs: an exact NaN must come out NaN, an exact +-inf the same inf.
 * Nothing outside the m x n elements of C changes (ld padding, a sentinel band, a PROT_NONE page at
 * the end, or at the start), A and B are not written. One stored row of an operand may come with a
 * leading dimension near SIZE_MAX (the stride is never used: any such pointer arithmetic is UB).
 *
 * Input: header (below), then patches: which 0 = A, 1 = B, 2 = C0 element (index modulo size). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

enum { MAX_D = 64, BIG_D = 520 };

static const float k_coef[] = { 0.f, 1.f, -1.f, 0.5f, 2.f, 1.7f, -0.3f, 1.00000012f };
#define N_COEF (sizeof k_coef / sizeof k_coef[0])

static float pick_coef(uint8_t sel, float raw, fz_rng *rng)
{
    const unsigned s = sel % (N_COEF + 2);
    if (s < N_COEF) return k_coef[s];
    if (s == N_COEF) return (float)(4 * fz_unif(rng) - 2);
    return raw;
}

/* elements of a stored matrix: rows x cols, stride ld (ld may be huge when rows == 1) */
static size_t extent(size_t rows, size_t cols, size_t ld)
{
    return rows && cols ? (rows - 1) * ld + cols : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_in in = { data, size };
    const uint8_t flags = fz_u8(&in);
    const sk_trans ta = (sk_trans)(flags & 1), tb = (sk_trans)((flags >> 1) & 1);
    const int quant = flags & 4, big = flags & 8, at_start = (flags >> 4) & 1, huge_ld = flags & 32;
    size_t dim[3];
    for (int i = 0; i < 3; i++) dim[i] = fz_u8(&in) % (MAX_D + 1);
    const uint8_t bigsel = fz_u8(&in);
    const uint16_t bigval = fz_u16(&in);
    if (big) dim[bigsel % 3] = bigval % (BIG_D + 1);
    const size_t m = dim[0], n = dim[1], k = dim[2];
    const size_t pa = fz_u8(&in) % 8, pb = fz_u8(&in) % 8, pc = fz_u8(&in) % 8;
    const uint8_t asel = fz_u8(&in), bsel = fz_u8(&in);
    const float araw = fz_f32(&in), braw = fz_f32(&in);
    const float amp_a = fz_amp(fz_u8(&in), -8, 8), amp_b = fz_amp(fz_u8(&in), -8, 8);
    const float amp_c = fz_amp(fz_u8(&in), -8, 8);
    fz_rng rng = { fz_u32(&in) };
    const float alpha = pick_coef(asel, araw, &rng), beta = pick_coef(bsel, braw, &rng);

    /* stored shapes */
    const size_t ar = ta ? k : m, ac = ta ? m : k, br = tb ? n : k, bc = tb ? k : n;
    size_t lda = ac + pa, ldb = bc + pb, ldc = n + pc;
    if (huge_ld) { /* a single stored row: its stride is never needed */
        if (ar == 1) lda = SIZE_MAX - pa;
        if (br == 1) ldb = SIZE_MAX - pb;
        if (m == 1) ldc = SIZE_MAX - pc;
    }
    if (lda < ac) lda = ac; /* ac + pa cannot wrap: ac <= 520 */
    const size_t ea = extent(ar, ac, lda), eb = extent(br, bc, ldb), ec = extent(m, n, ldc);

    fz_buf ba, bb, bc0;
    fz_buf_alloc(&ba, ea * sizeof(float), at_start);
    fz_buf_alloc(&bb, eb * sizeof(float), !at_start);
    fz_buf_alloc(&bc0, ec * sizeof(float), at_start);
    float *A = ba.p, *B = bb.p, *C = bc0.p;
    float *c0 = malloc((ec ? ec : 1) * sizeof *c0);
    /* padding cells: NaN (reading them shows in the result) */
    for (size_t i = 0; i < ea; i++) A[i] = NAN;
    for (size_t i = 0; i < eb; i++) B[i] = NAN;
    for (size_t i = 0; i < ec; i++) c0[i] = NAN;
    for (size_t r = 0; r < ar && ac; r++) fz_fill(&rng, A + r * lda, ac, amp_a, quant);
    for (size_t r = 0; r < br && bc; r++) fz_fill(&rng, B + r * ldb, bc, amp_b, quant);
    if (beta != 0.f)
        for (size_t r = 0; r < m && n; r++) fz_fill(&rng, c0 + r * ldc, n, amp_c, quant);
    fz_patch_t pt;
    while (fz_patch(&in, &pt)) {
        const unsigned w = pt.which % 3;
        const size_t rows = w == 0 ? ar : w == 1 ? br : m, cols = w == 0 ? ac : w == 1 ? bc : n;
        const size_t ld = w == 0 ? lda : w == 1 ? ldb : ldc;
        if (!rows || !cols) continue;
        const size_t i = pt.index % (rows * cols), at = (i / cols) * ld + i % cols;
        (w == 0 ? A : w == 1 ? B : c0)[at] = pt.value;
    }
    snprintf(fz_case, sizeof fz_case,
             "sk_sgemm ta=%d tb=%d m=%zu n=%zu k=%zu alpha=%a beta=%a lda=%zu ldb=%zu ldc=%zu",
             (int)ta, (int)tb, m, n, k, alpha, beta, lda, ldb, ldc);

    /* the exact result and its magnitude */
    const size_t mn = m * n;
    double *ex = malloc((mn ? mn : 1) * sizeof *ex), *mag = malloc((mn ? mn : 1) * sizeof *mag);
    int *special = malloc((mn ? mn : 1) * sizeof *special);
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++) {
            double s = 0, g = 0, gfin = 0, graw = 0;
            int nonfinite = 0;
            if (alpha != 0.f)
                for (size_t p = 0; p < k; p++) {
                    const double a = ta ? A[p * lda + i] : A[i * lda + p];
                    const double b = tb ? B[j * ldb + p] : B[p * ldb + j];
                    s += a * b;
                    g += fabs(a * b);
                    if (fz_isfinite(a) && fz_isfinite(b)) gfin += fabs(a * b);
                    else nonfinite = 1;
                }
            double e = (double)alpha * s, gm = fabs((double)alpha) * g;
            graw = gfin; /* the unscaled sum the kernels accumulate before alpha */
            gfin *= fabs((double)alpha);
            if (!fz_isfinite(alpha)) nonfinite = 1;
            if (beta != 0.f) {
                const double cv = c0[i * ldc + j];
                e += (double)beta * cv;
                gm += fabs((double)beta) * fabs(cv);
                if (fz_isfinite(cv) && fz_isfinite(beta)) gfin += fabs((double)beta * cv);
                else nonfinite = 1;
            }
            ex[i * n + j] = e;
            mag[i * n + j] = gm;
            /* 0: bound; 1: special value rule; 2: no check (the float result may overflow) */
            special[i * n + j] = !(gfin < 0x1p126) || !(graw < 0x1p126) ? 2 : nonfinite ? 1 : 0;
        }

    const double amax1 = fabs((double)alpha) > 1 ? fabs((double)alpha) : 1;
    sk_isa isas[SK_ISA_COUNT];
    const int nisa = fz_isas(isas);
    const sk_isa before = sk_isa_active();
    fz_buf_snap(&ba);
    fz_buf_snap(&bb);
    float *cs = malloc((ec ? ec : 1) * sizeof(float)); /* sk_sgemm's C on this ISA */
    if (!cs) fz_fail("malloc");
    for (int ii = 0; ii < 3 * nisa; ii++) {
        /* sk_sgemm, sk_sgemm_packed from B packed once, sk_sgemm_plan_run */
        const int packed = ii % 3 == 1, planned = ii % 3 == 2;
        const char *what = packed ? "packed: " : planned ? "plan: " : "";
        sk_isa_select(isas[ii / 3]);
        memcpy(C, c0, ec * sizeof(float));
        fz_buf_snap(&bc0);
        sk_status s;
        if (packed) {
            fz_buf bp; /* exactly the size asked for, at a PROT_NONE page */
            const size_t pkb = sk_sgemm_pack_b_size(k, n);
            fz_buf_alloc(&bp, pkb, at_start);
            s = sk_sgemm_pack_b(tb, k, n, B, ldb, bp.p, pkb);
            if (s != SK_OK) fz_fail("pack: status %s on a valid call", sk_status_str(s));
            s = sk_sgemm_packed(ta, m, n, k, alpha, A, lda, bp.p, beta, C, ldc);
            fz_buf_free(&bp);
        } else if (planned) {
            sk_sgemm_plan plan;
            s = sk_sgemm_plan_init(&plan, ta, tb, m, n, k, alpha, lda, ldb, beta, ldc);
            if (s == SK_OK) s = sk_sgemm_plan_run(&plan, A, B, C);
        } else {
            s = sk_sgemm(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
        }
        if (s != SK_OK)
            fz_fail("%s: status %s on a valid call",
                    packed ? "packed" : planned ? "plan" : "sgemm", sk_status_str(s));
        if (!fz_buf_check(&bc0, m, n, ldc, sizeof(float))) fz_fail("wrote outside the m x n of C");
        if (!fz_buf_check(&ba, 0, 0, 0, 1) || !fz_buf_check(&bb, 0, 0, 0, 1))
            fz_fail("wrote into A or B");
        if (ii % 3 == 0) memcpy(cs, C, ec * sizeof(float));
        for (size_t i = 0; planned && i < m; i++)
            if (memcmp(C + i * ldc, cs + i * ldc, n * sizeof(float)))
                fz_fail("plan: row %zu of C is not sk_sgemm's bit for bit", i);
        for (size_t i = 0; i < m; i++)
            for (size_t j = 0; j < n; j++) {
                const float got = C[i * ldc + j];
                const double e = ex[i * n + j];
                const int sp = special[i * n + j];
                if (sp == 2) continue;
                if (sp == 1 && !fz_isfinite(e)) {
                    if (fz_isnan(e) ? got == got : got != e)
                        fz_fail("%sC[%zu,%zu] = %a, exact %a", what, i, j, got, e);
                    continue;
                }
                const double tol = (double)(2 * k + 4) *
                                   (0x1p-24 * mag[i * n + j] + 0x1p-149 * amax1);
                if (!(fabs(got - e) <= tol))
                    fz_fail("%sC[%zu,%zu] = %.9g, exact %.9g, |err| %.3g > bound %.3g (%.3g x)",
                            what, i, j, got, e, fabs(got - e), tol, fabs(got - e) / tol);
            }
    }
    sk_isa_select(before);
    free(cs);
    fz_buf_free(&ba);
    fz_buf_free(&bb);
    fz_buf_free(&bc0);
    free(c0);
    free(ex);
    free(mag);
    free(special);
    return 0;
}
