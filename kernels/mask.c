#include "common.h"

sk_status sk_mask_check(const sk_mask *mask, size_t rows, size_t cols)
{
    if (!mask) return SK_OK;
    switch (mask->kind) {
    case SK_MASK_NONE:
    case SK_MASK_CAUSAL:
        return SK_OK;
    case SK_MASK_KEYS:
        /* cols flags: an operand of cols elements, whose extent must fit like any other's */
        return (cols == 0 || rows == 0 || (mask->data && cols <= SK_ELEMS_MAX)) ? SK_OK
                                                                                : SK_EINVAL;
    case SK_MASK_BOOL:
    case SK_MASK_ADD:
        return sk_mat_ok(mask->data, rows, cols, mask->ld) ? SK_OK : SK_EINVAL;
    }
    return SK_EINVAL; /* unknown kind */
}

/* offset + r0 - c0, saturated to the ptrdiff_t range: every row of a sub-matrix (fewer than
   SK_ELEMS_MAX rows and columns) attends the same columns under the saturated offset as under the
   exact one. */
static ptrdiff_t causal_shift(ptrdiff_t offset, size_t r0, size_t c0)
{
    ptrdiff_t d, out;
    if (r0 >= c0) {
        if (r0 - c0 > (size_t)PTRDIFF_MAX) return PTRDIFF_MAX;
        d = (ptrdiff_t)(r0 - c0);
        return __builtin_add_overflow(offset, d, &out) ? PTRDIFF_MAX : out;
    }
    if (c0 - r0 > (size_t)PTRDIFF_MAX) return PTRDIFF_MIN;
    d = (ptrdiff_t)(c0 - r0);
    return __builtin_sub_overflow(offset, d, &out) ? PTRDIFF_MIN : out;
}

const sk_mask *sk_mask_sub(const sk_mask *mask, size_t r0, size_t c0, sk_mask *tmp)
{
    if (!mask || (r0 == 0 && c0 == 0)) return mask;
    *tmp = *mask;
    switch (mask->kind) {
    case SK_MASK_KEYS:
        tmp->data = (const uint8_t *)mask->data + c0;
        break;
    case SK_MASK_BOOL:
        tmp->data = (const uint8_t *)mask->data + r0 * mask->ld + c0;
        break;
    case SK_MASK_ADD:
        tmp->data = (const float *)mask->data + r0 * mask->ld + c0;
        break;
    case SK_MASK_CAUSAL:
        /* r attends c <= r + offset: in sub coordinates c' <= r' + offset + r0 - c0 */
        tmp->offset = causal_shift(mask->offset, r0, c0);
        break;
    default:
        break;
    }
    return tmp;
}
