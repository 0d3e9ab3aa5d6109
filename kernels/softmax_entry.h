/* The mask dispatch of the softmax kernels, ISA-neutral: included by x86/softmax_avx2.c,
 * x86/softmax_avx512.c and arm/softmax_neon.c once per entry pair they define.
 * scale_mask_softmax and softmax, after the rows driver:
 *   SK_ENTRY_SMX, SK_ENTRY_SOFTMAX   the two entries' names
 *   SK_ENTRY_ROWS    the rows driver (softmax_rows.h, or a wrapper of it)
 *   SK_ENTRY_KEYS    optional: runs the rows of a key mask that is not dense (rows, cols, scale,
 *                    x, ldx, mask, hi, y, ldy); default: SK_ENTRY_ROWS with SK_MASK_KEYS.
 * A key mask is the same for every row: columns past the last attended key are only zero-filled,
 * and an all-attended prefix needs no mask at all. Every kind reaches the driver as a constant.
 * scale_mask_max, after its row kernel:
 *   SK_ENTRY_SMM     the entry's name
 *   SK_ENTRY_SMMROW  the row kernel (n, scale, x, kind, mask row, y) -> max
 *   SK_ENTRY_NEGFILL y[c0..n) = -inf (c0, n, y)
 * Each section undefines its names. */
#ifdef SK_ENTRY_SMX
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
#undef SK_ENTRY_SMX
#undef SK_ENTRY_SOFTMAX
#undef SK_ENTRY_ROWS
#undef SK_ENTRY_KEYS
#endif

#ifdef SK_ENTRY_SMM
float SK_ENTRY_SMM(size_t n, float scale, const float *x, const sk_mask *mask, size_t r, float *y)
{
    switch (mask ? mask->kind : SK_MASK_NONE) {
    case SK_MASK_KEYS: return SK_ENTRY_SMMROW(n, scale, x, SK_MASK_KEYS, mask->data, y);
    case SK_MASK_BOOL: return SK_ENTRY_SMMROW(n, scale, x, SK_MASK_BOOL, sk_mask_row(mask, r), y);
    case SK_MASK_ADD: return SK_ENTRY_SMMROW(n, scale, x, SK_MASK_ADD, sk_mask_row(mask, r), y);
    case SK_MASK_CAUSAL: {
        const size_t na = sk_causal_len(r, n, mask->offset);
        const float m = na ? SK_ENTRY_SMMROW(na, scale, x, SK_MASK_NONE, NULL, y) : -INFINITY;
        SK_ENTRY_NEGFILL(na, n, y);
        return m;
    }
    default: return SK_ENTRY_SMMROW(n, scale, x, SK_MASK_NONE, NULL, y);
    }
}
#undef SK_ENTRY_SMM
#undef SK_ENTRY_SMMROW
#undef SK_ENTRY_NEGFILL
#endif
