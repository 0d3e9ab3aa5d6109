/* The mask rule of the test references (checkasm and the fuzz targets), written independently of
 * the library's kernels/mask.h. */
#ifndef SK_TESTS_REF_MASK_H
#define SK_TESTS_REF_MASK_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include "simdkern.h"

/* 1 when score (r, c) is attended under m (NULL: everything); *add = its ADD value, else 0 (add
   may be NULL). An ADD value of -inf masks; a NaN one attends. */
static inline int ref_attended(const sk_mask *m, size_t r, size_t c, double *add)
{
    if (add) *add = 0;
    if (!m) return 1;
    switch (m->kind) {
    case SK_MASK_KEYS: return ((const uint8_t *)m->data)[c] != 0;
    case SK_MASK_BOOL: return ((const uint8_t *)m->data)[r * m->ld + c] != 0;
    case SK_MASK_ADD: {
        const float a = ((const float *)m->data)[r * m->ld + c];
        if (a == -INFINITY) return 0;
        if (add) *add = a;
        return 1;
    }
    case SK_MASK_CAUSAL: {
        /* c <= r + offset, without overflow: compare in the wider of the two signed ranges */
        const ptrdiff_t off = m->offset;
        if (off >= 0) return c <= r || c - r <= (size_t)off;
        const size_t neg = (size_t)0 - (size_t)off; /* -off, also for PTRDIFF_MIN */
        return r >= neg && c <= r - neg;
    }
    default: return 1;
    }
}

#endif
