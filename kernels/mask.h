/* Internal: the mask helpers of every family: validation, sub-masks, the causal row length, the
 * key-padding trim and the data of one mask row. */
#ifndef SK_MASK_H
#define SK_MASK_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "simdkern.h"

/* SK_OK when mask (may be NULL) is valid for a rows x cols score matrix, else SK_EINVAL. */
sk_status sk_mask_check(const sk_mask *mask, size_t rows, size_t cols);

/* The mask of rows [r0, ...) of a validated mask, as a mask whose row 0 is row r0 (and whose
   columns start at column c0): BOOL/ADD data advanced, CAUSAL offset shifted. NULL stays NULL. */
const sk_mask *sk_mask_sub(const sk_mask *mask, size_t r0, size_t c0, sk_mask *tmp);

/* The data of row r of a validated mask at column 0: the KEYS flags (the same for every row), row
   r of a BOOL or ADD matrix; NULL for NULL, NONE and CAUSAL masks. */
static inline const void *sk_mask_row(const sk_mask *mask, size_t r)
{
    if (!mask) return NULL;
    switch (mask->kind) {
    case SK_MASK_KEYS: return mask->data;
    case SK_MASK_BOOL: return (const uint8_t *)mask->data + r * mask->ld;
    case SK_MASK_ADD: return (const float *)mask->data + r * mask->ld;
    default: return NULL;
    }
}

/* Number of attended columns [0, cols) of row r under a causal mask: clamp(r + offset + 1, 0,
   cols), computed without overflow for every r and offset. */
static inline size_t sk_causal_len(size_t r, size_t cols, ptrdiff_t offset)
{
    if (offset >= 0) {
        const size_t o = (size_t)offset;
        return o >= cols || r > cols - o - 1 ? cols : r + o + 1;
    }
    const size_t neg = (size_t)(-(offset + 1)) + 1; /* -offset, also for PTRDIFF_MIN */
    if (r < neg) return 0;
    return r - neg + 1 > cols ? cols : r - neg + 1;
}

/* Key padding mask k[0..cols): returns 1 + the last attended column (0 if none); *dense = 1 when
   every column before it is attended (then no per-column mask is needed, only a zero tail). */
static inline size_t sk_keys_end(size_t cols, const unsigned char *k, int *dense)
{
    const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
    size_t hi = cols, c = 0;
    uint64_t w;
    for (; hi >= 8; hi -= 8) { /* eight bytes at a time: trailing all-zero words */
        memcpy(&w, k + hi - 8, 8);
        if (w) break;
    }
    while (hi && !k[hi - 1]) hi--;
    for (; c + 8 <= hi; c += 8) { /* words without a zero byte */
        memcpy(&w, k + c, 8);
        if ((w - ones) & ~w & highs) break;
    }
    while (c < hi && k[c]) c++;
    *dense = c == hi;
    return hi;
}

#endif
