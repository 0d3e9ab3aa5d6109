/* checkasm-style harness: every kernel, on every ISA the host supports, against the scalar
 * reference (and, per family, a double-precision reference), on seeded random data.
 *
 * A family test is `void ck_test_<family>(void)`, run once per ISA: ck_isa() tells which. Inside,
 * ck_ref() selects the scalar path and ck_new() the ISA under test, so that
 *     ck_ref(); sk_foo(ref...); ck_new(); sk_foo(new...);
 * calls both on the same data. ck_fail() records a failure with a printf-style message (the first
 * few are printed). Buffers from ck_buf_alloc() carry guard bands; ck_buf_check() reports writes
 * outside the requested region. */
#ifndef CHECKASM_H
#define CHECKASM_H

#include <stddef.h>
#include <stdint.h>
#include "simdkern.h"

/* --- run state --- */
sk_isa ck_isa(void);          /* the ISA under test */
void ck_ref(void);            /* select the scalar reference path */
void ck_new(void);            /* select the ISA under test */
uint64_t ck_seed(void);

/* Name the current function/case; failures are reported under it. */
void ck_func(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Record a failure (returns 0 so `return ck_fail(...)` reads well). */
int ck_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* ck_check(cond, ...): ck_fail(...) unless cond; returns cond. */
#define ck_check(cond, ...) ((cond) ? 1 : ck_fail(__VA_ARGS__))
int ck_failures(void);
int ck_verbose(void);         /* --verbose */
int ck_quick(void);           /* --quick: smaller sweeps (e.g. under qemu) */
int ck_bench(void);           /* --bench: also time the slots (tests/checkasm/slots.c) */

/* --- random numbers (xoshiro256**, seeded from --seed) --- */
uint64_t ck_rand64(void);
uint32_t ck_rand_u32(uint32_t n);                 /* uniform in [0, n) */
float ck_randf(float lo, float hi);               /* uniform in [lo, hi) */
float ck_randn(void);                             /* standard normal */
void ck_fill(float *p, size_t n, float lo, float hi);

/* --- guarded buffers: n floats, guard bands before and after, each buffer's a quiet NaN of its
   own payload (a write past one buffer of what was read past another still shows) --- */
float *ck_buf_alloc(size_t n);
/* 1 when guard bands are intact; reports through ck_fail with `what` otherwise. */
int ck_buf_check(const float *p, const char *what);
void ck_buf_free(float *p);
/* A 2-D view: rows x cols inside a rows x ld buffer; cells in [cols, ld) are poisoned with a
   sentinel and checked by ck_mat_pad_check. */
void ck_mat_poison_pad(float *p, size_t rows, size_t cols, size_t ld);
int ck_mat_pad_check(const float *p, size_t rows, size_t cols, size_t ld, const char *what);

/* --- float comparison --- */
/* |a - b| in ulps; NaN vs NaN = 0; NaN vs num = huge */
int64_t ck_ulp_diff(float a, float b);
int ck_same_nan(float a, float b);                /* both NaN, or both not */

/* families */
void ck_test_gemm(void);
void ck_test_gemm_packed(void); /* run by ck_test_gemm */
void ck_test_gemm_plan(void);   /* run by ck_test_gemm */
void ck_test_exp(void);
void ck_test_softmax(void);
void ck_test_attention(void);
void ck_test_slots(void);

#endif
