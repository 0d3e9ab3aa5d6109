/* The scale_mask_softmax and softmax entries of a softmax kernel file, ISA-neutral. Included at
 * the end of x86/softmax_avx2.c, x86/softmax_avx512.c and arm/softmax_neon.c, which define
 *   SK_ENTRY_SMX, SK_ENTRY_SOFTMAX   the two entries' names
 *   SK_ENTRY_ROWS    the rows driver (softmax_rows.h, or a wrapper of it)
 *   SK_ENTRY_KEYS    optional: runs the rows of a key mask that is not dense (rows, cols, scale,
 *                    x, ldx, mask, hi, y, ldy); default: SK_ENTRY_ROWS with SK_MASK_KEYS.
 * A key mask is the same for every row: columns past the last attended key are only zero-filled,
 * and an all-attended prefix needs no mask at all. Every kind reaches the driver as a constant. */
void SK_ENTRY_SMX(size_t rows, size_t cols, float scale, const float *x, size_t ldx,
                  const sk_mask *mask, float *y, size_t ldy)
{
    switch (mask ? mask->kind : SK_MASK_NONE) {
    case SK_MASK_KEYS: {
        int dense;
        const size_t hi = sk_keys_end(cols, (const uint8_t *)mask->data, &dense);
        if (dense) {
            SK_ENTRY_ROWS(rows, cols, scale, x, ldx, mask, SK_MASK_NONE, hi, y, ldy, mask);
        } else {
#ifdef SK_ENTRY_KEYS
            SK_ENTRY_KEYS(rows, cols, scale, x, ldx, mask, hi, y, ldy);
#else
            SK_ENTRY_ROWS(rows, cols, scale, x, ldx, mask, SK_MASK_KEYS, hi, y, ldy, mask);
#endif
        }
        break;
    }
    case SK_MASK_BOOL:
        SK_ENTRY_ROWS(rows, cols, scale, x, ldx, mask, SK_MASK_BOOL, cols, y, ldy, mask);
        break;
    case SK_MASK_ADD:
        SK_ENTRY_ROWS(rows, cols, scale, x, ldx, mask, SK_MASK_ADD, cols, y, ldy, mask);
        break;
    default: /* NONE, CAUSAL (the driver reads the causal length off the mask) */
        SK_ENTRY_ROWS(rows, cols, scale, x, ldx, mask, SK_MASK_NONE, cols, y, ldy, mask);
        break;
    }
}

void SK_ENTRY_SOFTMAX(size_t rows, size_t cols, const float *x, size_t ldx, float *y, size_t ldy)
{
    SK_ENTRY_ROWS(rows, cols, 1.f, x, ldx, NULL, SK_MASK_NONE, cols, y, ldy, NULL);
}
