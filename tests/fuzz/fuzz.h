/* Shared pieces of the libFuzzer targets in tests/fuzz: a reader over the fuzz input, a PRNG for
 * the bulk of the values, guarded buffers (exact size, ending at a PROT_NONE page, a sentinel band
 * in front, a shadow copy to tell what a call wrote) and the failure report.
 *
 * Input layout, common to every target: a header of fixed fields read with fz_u8 / fz_u16 / ...
 * (missing bytes read as 0, so every input is valid), then the values: the bulk comes from a PRNG
 * seeded by the header, and the tail of the input is a list of patches (fz_patch: an index and a
 * raw float) that overwrite single elements, which is how exact values and special values get
 * in. */
#ifndef SK_FUZZ_H
#define SK_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include "simdkern.h"

/* ---- the input ------------------------------------------------------------------------------- */
typedef struct fz_in {
    const uint8_t *p;
    size_t n;
} fz_in;

uint8_t fz_u8(fz_in *in);
uint16_t fz_u16(fz_in *in);                  /* little endian */
uint32_t fz_u32(fz_in *in);
uint64_t fz_u64(fz_in *in);
float fz_f32(fz_in *in);                     /* raw bits */
size_t fz_upto(fz_in *in, size_t hi);        /* in [0, hi], from one or two bytes */

/* ---- PRNG (splitmix64) ----------------------------------------------------------------------- */
typedef struct fz_rng {
    uint64_t s;
} fz_rng;
uint64_t fz_next(fz_rng *r);
double fz_unif(fz_rng *r);                   /* [0, 1) */
/* n floats: uniform in [-amp, amp]; quant: rounded to multiples of amp / 8 (ties, equal maxima). */
void fz_fill(fz_rng *r, float *p, size_t n, float amp, int quant);
/* amplitude 2^e for e = lo + (byte % (hi - lo + 1)) */
float fz_amp(uint8_t byte, int lo, int hi);

/* A patch: the target's element `index % count` of one of its arrays gets a raw float.
   fz_patch returns 0 when the input is used up. */
typedef struct fz_patch_t {
    uint8_t which;   /* which array (the target's numbering, modulo its count) */
    uint32_t index;
    float value;
} fz_patch_t;
int fz_patch(fz_in *in, fz_patch_t *p);

/* ---- guarded buffers ------------------------------------------------------------------------- */
/* `bytes` bytes that end exactly at a PROT_NONE page (an over-read or over-write faults), or, with
   at_start, start exactly after one (an under-read faults); FZ_BAND bytes on the open side are a
   sentinel band checked by fz_buf_check. Contents: sentinel bytes (fz_buf_alloc). */
enum { FZ_BAND = 64, FZ_SENT = 0xA5 };
typedef struct fz_buf {
    void *p;           /* the buffer */
    size_t bytes;
    void *map;         /* the mapping */
    size_t map_bytes;
    unsigned char *shadow; /* a copy taken by fz_buf_snap */
    int at_start;
} fz_buf;
void fz_buf_alloc(fz_buf *b, size_t bytes, int at_start);
void fz_buf_free(fz_buf *b);
void fz_buf_snap(fz_buf *b);                 /* remember the contents */
/* 1 when the sentinel band is intact and no byte outside the elements of a rows x cols matrix with
   row stride ld and elements of `elem` bytes changed since fz_buf_snap (rows = 0: no byte may
   change). */
int fz_buf_check(const fz_buf *b, size_t rows, size_t cols, size_t ld, size_t elem);

/* ---- masks ---------------------------------------------------------------------------------- */
/* A causal offset picked by sel % 10: 0, -1, a small or a raw value, the ends of the ptrdiff_t
   range and next to them, or edge (the target's own edge case). */
ptrdiff_t fz_pick_offset(uint8_t sel, uint64_t raw, size_t rows, size_t cols, ptrdiff_t edge);
/* A random mask of kind 0..4 (NONE, KEYS, BOOL, ADD, CAUSAL with offset) for rows x cols scores:
   KEYS, BOOL and ADD draw from r (a position masked with probability density; ADD values uniform
   in [-amp_add, amp_add] or -inf, NaN in the ld padding) into *mb or *ma (malloc'ed, NULL for the
   other kinds), which the mask's data points at; BOOL and ADD rows have stride ld. */
sk_mask fz_mask_make(fz_rng *r, int kind, size_t rows, size_t cols, size_t ld, double density,
                     float amp_add, ptrdiff_t offset, uint8_t **mb, float **ma);

/* ---- ISAs and failures ----------------------------------------------------------------------- */
/* The available ISAs, scalar first; returns how many. */
int fz_isas(sk_isa out[SK_ISA_COUNT]);
/* Print "target: message" and the case description to stderr, then abort (a libFuzzer finding). */
void fz_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* The case description printed by fz_fail: set by each target before its checks. */
extern char fz_case[512];

/* 0 < |x| exact (non-NaN) check helpers */
int fz_isnan(double x);
int fz_isfinite(double x);

#endif
