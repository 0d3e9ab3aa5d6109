/* Internal helpers shared by every family: argument checks (the mask helpers: mask.h). */
#ifndef SK_COMMON_H
#define SK_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include "simdkern.h"
#include "mask.h"

#if defined(__GNUC__)
#define SK_LIKELY(x) __builtin_expect(!!(x), 1)
#define SK_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define SK_ALIGN(n) __attribute__((aligned(n)))
#else
#define SK_LIKELY(x) (x)
#define SK_UNLIKELY(x) (x)
#define SK_ALIGN(n)
#endif

/* Checked size arithmetic: 1 and *r = the result, or 0 (and *r = 0) on overflow. */
static inline int sk_mul_ok(size_t a, size_t b, size_t *r)
{
    if (b && a > SIZE_MAX / b) {
        *r = 0;
        return 0;
    }
    *r = a * b;
    return 1;
}
static inline int sk_add_ok(size_t a, size_t b, size_t *r)
{
    if (a > SIZE_MAX - b) {
        *r = 0;
        return 0;
    }
    *r = a + b;
    return 1;
}

/* Largest element count of one operand: its byte size must fit a ptrdiff_t for every element
   type the API takes (float: 4 bytes). */
#define SK_ELEMS_MAX ((size_t)PTRDIFF_MAX / sizeof(float))

/* 1 when a rows x cols matrix with row stride ld is possible: empty, or ld >= cols and its
   extent (rows - 1) * ld + cols elements fits SK_ELEMS_MAX (no object is larger: a bigger extent
   is a wrong size, never a real matrix). */
static inline int sk_extent_ok(size_t rows, size_t cols, size_t ld)
{
    if (rows == 0 || cols == 0) return 1;
    size_t ext;
    if (ld < cols || !sk_mul_ok(rows - 1, ld, &ext) || !sk_add_ok(ext, cols, &ext)) return 0;
    return ext <= SK_ELEMS_MAX;
}
/* 1 when such a matrix at p is acceptable: possible, and p != NULL unless it is empty. */
static inline int sk_mat_ok(const void *p, size_t rows, size_t cols, size_t ld)
{
    return (p || rows == 0 || cols == 0) && sk_extent_ok(rows, cols, ld);
}

/* The row stride to use for a validated rows x cols operand: ld, or cols when there is one row or
   none of its columns is read (cols == 0: its ld is never checked, may be as large as SIZE_MAX,
   and kernels that step a row pointer must not form p + j ld). */
static inline size_t sk_ld1(size_t rows, size_t cols, size_t ld)
{
    return rows <= 1 || cols == 0 ? cols : ld;
}

/* 1 when two validated float matrices (p, rows x cols, stride ld; empty ones never overlap) share
   memory: their extents [p, p + (rows - 1) ld + cols) intersect. Conservative for interleaved
   strided matrices (columns of one between rows of the other count as overlapping). */
static inline int sk_mat_overlap(const float *p, size_t rows, size_t cols, size_t ld,
                                 const float *q, size_t qrows, size_t qcols, size_t qld)
{
    if (!rows || !cols || !qrows || !qcols) return 0;
    const uintptr_t a = (uintptr_t)p, b = (uintptr_t)q;
    const uintptr_t ae = a + ((rows - 1) * ld + cols) * sizeof(float);
    const uintptr_t be = b + ((qrows - 1) * qld + qcols) * sizeof(float);
    return a < be && b < ae;
}

/* a * b * c floats in bytes, or 0 when any step overflows or the count exceeds SK_ELEMS_MAX. */
static inline size_t sk_floats_bytes3(size_t a, size_t b, size_t c)
{
    size_t n;
    if (!sk_mul_ok(a, b, &n) || !sk_mul_ok(n, c, &n) || n > SK_ELEMS_MAX) return 0;
    return n * sizeof(float);
}

#endif
