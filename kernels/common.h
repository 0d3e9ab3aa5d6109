/* Internal helpers shared by every family: argument checks and mask validation. */
#ifndef SK_COMMON_H
#define SK_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include "simdkern.h"

#if defined(__GNUC__)
#define SK_LIKELY(x) __builtin_expect(!!(x), 1)
#define SK_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define SK_ALIGN(n) __attribute__((aligned(n)))
#else
#define SK_LIKELY(x) (x)
#define SK_UNLIKELY(x) (x)
#define SK_ALIGN(n)
#endif

/* 1 when a rows x cols matrix with row stride ld at p is acceptable: empty, or p != NULL and
   ld >= cols. */
static inline int sk_mat_ok(const void *p, size_t rows, size_t cols, size_t ld)
{
    if (rows == 0 || cols == 0) return 1;
    return p != NULL && ld >= cols;
}

/* SK_OK when mask (may be NULL) is valid for a rows x cols score matrix, else SK_EINVAL. */
sk_status sk_mask_check(const sk_mask *mask, size_t rows, size_t cols);

/* The mask of rows [r0, ...) of a validated mask, as a mask whose row 0 is row r0 (and whose
   columns start at column c0): BOOL/ADD data advanced, CAUSAL offset shifted. NULL stays NULL. */
const sk_mask *sk_mask_sub(const sk_mask *mask, size_t r0, size_t c0, sk_mask *tmp);

#endif
