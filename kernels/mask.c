#include "common.h"

sk_status sk_mask_check(const sk_mask *mask, size_t rows, size_t cols)
{
    if (!mask) return SK_OK;
    switch (mask->kind) {
    case SK_MASK_NONE:
    case SK_MASK_CAUSAL:
        return SK_OK;
    case SK_MASK_KEYS:
        return (cols == 0 || rows == 0 || mask->data) ? SK_OK : SK_EINVAL;
    case SK_MASK_BOOL:
    case SK_MASK_ADD:
        return sk_mat_ok(mask->data, rows, cols, mask->ld) ? SK_OK : SK_EINVAL;
    }
    return SK_EINVAL; /* unknown kind */
}
