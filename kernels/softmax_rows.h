/* The row-block driver of the softmax family, ISA-neutral, shared by x86/softmax_avx2.c,
 * x86/softmax_avx512.c and arm/softmax_neon.c: rows in blocks of up to 8 that stay in L1
 * together (each sweep runs over the whole block, so one row's reductions and division overlap
 * the next row's sweep), and for rows up to 2048 columns the
 * normalisation of a row fused into the next row's exp sweep. Included after the includer defines
 * AI and its row kernels under these names:
 *   SK_ROWS      the driver's name          SK_RMAX     scale + mask + max sweep
 *   SK_REXP      exp + sum sweep (fusing the previous row's scale)
 *   SK_RSCALE    the normalisation sweep     SK_TAILFILL columns past a row's length: 0
 * A row whose max is not finite (a NaN or +inf score, scores that overflow float, nothing attended)
 * or whose sum is NaN (a NaN the max reduction passed over) goes through the reference row
 * sk_softmax_row_scalar with the caller's mask ref: every path then gives the reference's result
 * there (NaN at the attended positions, 0 at the masked ones). With y == x the exp sweep has
 * replaced x by then, which keeps what such a row's result depends on: which attended positions
 * are NaN. */
AI void SK_ROWS(size_t rows, size_t cols, float scale, const float *x, size_t ldx,
                const sk_mask *mask, int kind, size_t cap, float *y, size_t ldy, const sk_mask *ref)
{
    size_t rb = 24576 / (cols * 8 + 1); /* x and y rows of the block within ~24 KiB */
    rb = rb < 1 ? 1 : (rb > 8 ? 8 : rb);
    /* the previous row, its sweep 3 still due (fused into the next) */
    float *yp = NULL, invp = 0.f;
    const int fuse = cols <= 2048; /* x row, y row and the previous y row within L1 */
    size_t np = 0;
    for (size_t r0 = 0; r0 < rows; r0 += rb) {
        const size_t nb = rows - r0 < rb ? rows - r0 : rb;
        const void *mr[8];
        size_t len[8];
        float m[8];
        for (size_t i = 0; i < nb; i++) {
            const size_t r = r0 + i;
            mr[i] = sk_mask_row(mask, r);
            len[i] =
                mask && mask->kind == SK_MASK_CAUSAL ? sk_causal_len(r, cols, mask->offset) : cols;
            len[i] = len[i] < cap ? len[i] : cap;
        }
        for (size_t i = 0; i < nb; i++)
            m[i] = len[i] ? SK_RMAX(len[i], scale, x + (r0 + i) * ldx, kind, mr[i]) : -INFINITY;
        for (size_t i = 0; i < nb; i++) {
            const float *xr = x + (r0 + i) * ldx;
            float *yr = y + (r0 + i) * ldy;
            if (len[i] == 0) {
                SK_TAILFILL(cols, 0, yr);
            } else if (!isfinite(m[i])) {
                sk_softmax_row_scalar(cols, scale, xr, ref, r0 + i, yr);
            } else {
                const size_t rn = r0 + nb + i; /* prefetch target: row i of the next block */
                const float *pf = rn < rows && len[i] <= cols ? x + rn * ldx : NULL;
                const double sum =
                    SK_REXP(len[i], scale, xr, kind, mr[i], m[i], yr, pf, yp, np, invp);
                if (yp) SK_TAILFILL(cols, np, yp);
                yp = NULL;
                if (sum != sum) { /* a NaN the max passed over */
                    sk_softmax_row_scalar(cols, scale, xr, ref, r0 + i, yr);
                    continue;
                }
                yp = yr, np = len[i], invp = (float)(1.0 / sum);
                if (!fuse) { /* long rows: normalise while the row is still in L1 */
                    SK_RSCALE(np, invp, yp);
                    SK_TAILFILL(cols, np, yp);
                    yp = NULL;
                }
            }
        }
    }
    if (yp) {
        SK_RSCALE(np, invp, yp);
        SK_TAILFILL(cols, np, yp);
    }
}
