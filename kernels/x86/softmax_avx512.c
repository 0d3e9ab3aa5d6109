/* Softmax family, AVX-512. Per row, three sweeps over the (cache-resident) row:
 *   1. the max of scale*x (+ mask) over attended columns (reads x and the mask),
 *   2. e = exp(scale*x - max) with the softmax exp, masked lanes forced to 0, written to y, summed
 *      (float lanes, flushed into a double every 1024 columns),
 *   3. y *= 1/sum, for rows <= 2048 columns run inside the next row's sweep 2 (its loads,
 * multiplies and stores fill the slots the exp leaves free). Scale and mask are fused into sweeps 1
 * and 2; tails run under a __mmask16, never past the row. Key padding masks: columns past the last
 * attended key are only zero-filled, and an all-attended prefix runs without a mask (sk_keys_end).
 * A NaN reaching an attended lane makes the sum NaN, so the whole row comes out NaN; masked lanes
 * never enter the max or the sum, so NaN under the mask does not leak. */
#include <math.h>
#include <stdint.h>
#include "exp_avx512.h"
#include "x86/math.h"
#include "common.h"

#define AI static inline __attribute__((always_inline))

/* The attended lanes among k at column c, and (ADD) the additive mask values. */
AI __mmask16 att16(int kind, const void *mrow, size_t c, __mmask16 k, __m512 *add)
{
    if (kind == SK_MASK_KEYS || kind == SK_MASK_BOOL) {
        const __m128i b = _mm_maskz_loadu_epi8(k, (const uint8_t *)mrow + c);
        return _mm_test_epi8_mask(b, b);
    }
    if (kind == SK_MASK_ADD) {
        *add = _mm512_maskz_loadu_ps(k, (const float *)mrow + c);
        return _mm512_mask_cmp_ps_mask(k, *add, _mm512_set1_ps(-INFINITY), _CMP_NEQ_UQ);
    }
    return k;
}

/* x as the sweeps read it: subnormals as 0 (sk_flush_subnormal_avx512: no microcode assists; a
   subnormal x moves a score by less than |scale| 2^-126) */
AI __m512 ldx16(const float *p) { return sk_flush_subnormal_avx512(_mm512_loadu_ps(p)); }
AI __m512 ldxz16(__mmask16 t, const float *p)
{
    return sk_flush_subnormal_avx512(_mm512_maskz_loadu_ps(t, p));
}

AI float hmax16(__m512 v) { return _mm512_reduce_max_ps(v); }

/* Sweep 1: max of scale*x (+ add) over the attended columns of a row (-inf if none). */
AI float rmax16(size_t n, float scale, const float *x, int kind, const void *mrow)
{
    const int raw = kind != SK_MASK_ADD && scale > 0.f;
    const __m512 vs = _mm512_set1_ps(scale);
    __m512 add = _mm512_setzero_ps();
    __m512 m0 = _mm512_set1_ps(-INFINITY), m1 = m0;
    size_t c = 0;
    for (; c + 32 <= n; c += 32) {
        __m512 a0 = add, a1 = add;
        const __mmask16 k0 = att16(kind, mrow, c, 0xffff, &a0);
        const __mmask16 k1 = att16(kind, mrow, c + 16, 0xffff, &a1);
        /* scale > 0 and no additive mask: max(RN(scale x)) = RN(scale max(x)), skip the multiply */
        const __m512 x0 = ldx16(x + c), x1 = ldx16(x + c + 16);
        __m512 v0 = raw ? x0 : _mm512_mul_ps(vs, x0);
        __m512 v1 = raw ? x1 : _mm512_mul_ps(vs, x1);
        if (kind == SK_MASK_ADD) {
            v0 = _mm512_fmadd_ps(vs, x0, a0);
            v1 = _mm512_fmadd_ps(vs, x1, a1);
        }
        m0 = _mm512_mask_max_ps(m0, k0, m0, v0); /* a NaN in v wins the max */
        m1 = _mm512_mask_max_ps(m1, k1, m1, v1);
    }
    for (; c < n; c += 16) {
        const __mmask16 t = sk_tail16_avx512(n - c);
        const __mmask16 k = att16(kind, mrow, c, t, &add);
        const __m512 xv = ldxz16(t, x + c);
        const __m512 v = kind == SK_MASK_ADD ? _mm512_fmadd_ps(vs, xv, add)
                         : raw               ? xv
                                             : _mm512_mul_ps(vs, xv);
        m0 = _mm512_mask_max_ps(m0, k, m0, v);
    }
    const float m = hmax16(_mm512_max_ps(m0, m1));
    return raw ? scale * m : m;
}

/* Sweep 2: y = exp(scale*x (+ add) - m) on attended columns, 0 elsewhere; the score rounded as in
   sweep 1, so that d <= 0 exactly (an FMA of scale x - m could leave d > 0 by half an ulp of the
   score, far beyond the exp's range for huge finite scores); returns the sum (float
   lanes, flushed into a double every 1024 columns). Vectors with nothing attended skip the exp. */
AI void rscale16(size_t n, float inv, float *y);

/* Sweep 2, fused with sweep 3 of the previous row (yp[0..np) *= invp; yp NULL: none): the loads,
   multiplies and stores of the normalisation fill the slots the exp leaves free. */
AI double rexp16(size_t n, float scale, const float *x, int kind, const void *mrow, float m,
                 float *y, const float *pf, float *yp, size_t np, float invp)
{
    const __m512 vs = _mm512_set1_ps(scale), negm = _mm512_set1_ps(-m), vi = _mm512_set1_ps(invp);
    size_t done = 0; /* columns of yp already normalised */
    __m512 add = _mm512_setzero_ps();
    double sum = 0.0;
    for (size_t c = 0; c < n;) {
        const size_t end = n - c > 1024 ? c + 1024 : n;
        __m512 s0 = _mm512_setzero_ps(), s1 = s0;
        for (; c + 64 <= end; c += 64) {
            if (pf) { /* the row of the next block: its sweep 1 then reads from cache */
                _mm_prefetch((const char *)(pf + c), _MM_HINT_T0);
                _mm_prefetch((const char *)(pf + c + 16), _MM_HINT_T0);
                _mm_prefetch((const char *)(pf + c + 32), _MM_HINT_T0);
                _mm_prefetch((const char *)(pf + c + 48), _MM_HINT_T0);
            }
            if (yp && c + 64 <= np) {
                for (int j = 0; j < 4; j++)
                    _mm512_storeu_ps(yp + c + 16 * j,
                                     _mm512_mul_ps(_mm512_loadu_ps(yp + c + 16 * j), vi));
                done = c + 64;
            }
            __m512 a[4] = { add, add, add, add }, e[4];
            __mmask16 k[4];
            for (int j = 0; j < 4; j++) k[j] = att16(kind, mrow, c + 16 * j, 0xffff, &a[j]);
            if (kind != SK_MASK_NONE && !(k[0] | k[1] | k[2] | k[3])) { /* e.g. key padding */
                for (int j = 0; j < 4; j++) _mm512_storeu_ps(y + c + 16 * j, _mm512_setzero_ps());
                continue;
            }
            for (int j = 0; j < 4; j++) {
                const __m512 xv = ldx16(x + c + 16 * j);
                const __m512 d = _mm512_add_ps(kind == SK_MASK_ADD ? _mm512_fmadd_ps(vs, xv, a[j])
                                                                   : _mm512_mul_ps(vs, xv), negm);
                e[j] = sk_expneg_rr2_p5_maskz_avx512(k[j], d);
            }
            for (int j = 0; j < 4; j++) _mm512_storeu_ps(y + c + 16 * j, e[j]);
            s0 = _mm512_add_ps(s0, _mm512_add_ps(e[0], e[1]));
            s1 = _mm512_add_ps(s1, _mm512_add_ps(e[2], e[3]));
        }
        for (; c < end; c += 16) {
            const __mmask16 t = sk_tail16_avx512(end - c);
            const __mmask16 k = att16(kind, mrow, c, t, &add);
            const __m512 xv = ldxz16(t, x + c);
            const __m512 d = _mm512_add_ps(kind == SK_MASK_ADD ? _mm512_fmadd_ps(vs, xv, add)
                                                               : _mm512_mul_ps(vs, xv), negm);
            const __m512 e = sk_expneg_rr2_p5_maskz_avx512(k, d);
            _mm512_mask_storeu_ps(y + c, t, e);
            s0 = _mm512_add_ps(s0, e);
        }
        sum += (double)_mm512_reduce_add_ps(_mm512_add_ps(s0, s1));
    }
    if (yp) rscale16(np - done, invp, yp + done);
    return sum;
}

/* Sweep 3: y *= inv (a NaN inv turns the whole row NaN). */
AI void rscale16(size_t n, float inv, float *y)
{
    const __m512 vi = _mm512_set1_ps(inv);
    size_t c = 0;
    for (; c + 16 <= n; c += 16) _mm512_storeu_ps(y + c, _mm512_mul_ps(_mm512_loadu_ps(y + c), vi));
    if (c < n) {
        const __mmask16 t = sk_tail16_avx512(n - c);
        _mm512_mask_storeu_ps(y + c, t, _mm512_mul_ps(_mm512_maskz_loadu_ps(t, y + c), vi));
    }
}

/* Sweep 3 for outputs far larger than the caches: e was written to an L1 scratch row, y is written
   once with non-temporal stores (no read-for-ownership of y: the bytes moved are those of a copy).
 */
static void rstream16(size_t n, float inv, const float *e, float *y)
{
    const __m512 vi = _mm512_set1_ps(inv);
    size_t c = ((64 - ((uintptr_t)y & 63)) & 63) / 4; /* columns before y + c is 64-byte aligned */
    if (c > n) c = n;
    if (c)
        _mm512_mask_storeu_ps(y, sk_tail16_avx512(c),
                              _mm512_mul_ps(_mm512_maskz_loadu_ps(sk_tail16_avx512(c), e), vi));
    for (; c + 16 <= n; c += 16) _mm512_stream_ps(y + c, _mm512_mul_ps(_mm512_loadu_ps(e + c), vi));
    if (c < n) {
        const __mmask16 t = sk_tail16_avx512(n - c);
        _mm512_mask_storeu_ps(y + c, t, _mm512_mul_ps(_mm512_maskz_loadu_ps(t, e + c), vi));
    }
}

#define STREAM_MIN_ELEMS (4u << 20) /* 16 MiB of output: well past L2, streaming pays */
#define STREAM_MAX_COLS 4096        /* the scratch row: 16 KiB of stack */

/* Columns [len, cols) of a finished row: 0 (causal / key-padding tail). */
AI void tail16fill(size_t cols, size_t len, float *yr)
{
    for (size_t c = len; c < cols; c += 16)
        _mm512_mask_storeu_ps(yr + c, sk_tail16_avx512(cols - c), _mm512_setzero_ps());
}

/* The block driver (softmax_rows.h) on this file's row kernels. */
#define SK_ROWS rows16_blocks
#define SK_RMAX rmax16
#define SK_REXP rexp16
#define SK_RSCALE rscale16
#define SK_TAILFILL tail16fill
#include "softmax_rows.h"

/* Outputs of STREAM_MIN_ELEMS or more with one row per block: each row through an L1 scratch row
   and out with non-temporal stores; everything else through the shared block driver. */
AI void rows16(size_t rows, size_t cols, float scale, const float *x, size_t ldx,
               const sk_mask *mask, int kind, size_t cap, float *y, size_t ldy, const sk_mask *ref)
{
    size_t rb = 24576 / (cols * 8 + 1); /* the block driver's rows per block */
    rb = rb < 1 ? 1 : (rb > 8 ? 8 : rb);
    if (rb == 1 && cols <= STREAM_MAX_COLS && rows * cols >= STREAM_MIN_ELEMS &&
        ((uintptr_t)y & 3) == 0) {
        float scr[STREAM_MAX_COLS] SK_ALIGN(64);
        for (size_t r = 0; r < rows; r++) {
            const void *mr = sk_mask_row(mask, r);
            size_t len =
                mask && mask->kind == SK_MASK_CAUSAL ? sk_causal_len(r, cols, mask->offset) : cols;
            len = len < cap ? len : cap;
            const float *xr = x + r * ldx;
            float *yr = y + r * ldy;
            const float m = len ? rmax16(len, scale, xr, kind, mr) : -INFINITY;
            double sum = NAN;
            if (len && isfinite(m)) {
                const float *pf = r + 1 < rows ? x + (r + 1) * ldx : NULL;
                sum = rexp16(len, scale, xr, kind, mr, m, scr, pf, NULL, 0, 0.f);
            }
            if (len && sum != sum) { /* as in the block driver: the reference row */
                sk_softmax_row_scalar(cols, scale, xr, ref, r, yr);
                continue;
            }
            if (len) rstream16(len, (float)(1.0 / sum), scr, yr);
            tail16fill(cols, len, yr); /* causal / key-padding tail */
        }
        _mm_sfence(); /* order the non-temporal stores before returning */
        return;
    }
    rows16_blocks(rows, cols, scale, x, ldx, mask, kind, cap, y, ldy, ref);
}

#define SK_ENTRY_SMX sk_scale_mask_softmax_avx512
#define SK_ENTRY_SOFTMAX sk_softmax_avx512
#define SK_ENTRY_ROWS rows16
#include "softmax_entry.h"

float sk_max_avx512(size_t n, const float *x)
{
    __m512 m0 = _mm512_set1_ps(-INFINITY), m1 = m0;
    __mmask16 nan = 0;
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        const __m512 a = _mm512_loadu_ps(x + i), b = _mm512_loadu_ps(x + i + 16);
        nan |= _mm512_cmp_ps_mask(a, b, _CMP_UNORD_Q);
        m0 = _mm512_max_ps(m0, a);
        m1 = _mm512_max_ps(m1, b);
    }
    for (; i < n; i += 16) {
        const __mmask16 t = sk_tail16_avx512(n - i);
        const __m512 a = _mm512_maskz_loadu_ps(t, x + i);
        nan |= _mm512_mask_cmp_ps_mask(t, a, a, _CMP_UNORD_Q);
        m0 = _mm512_mask_max_ps(m0, t, m0, a);
    }
    return nan ? NAN : hmax16(_mm512_max_ps(m0, m1));
}

float sk_expsum_avx512(size_t n, const float *x, float bias, float *y)
{
    const __m512 nb = _mm512_set1_ps(-bias);
    double sum = 0.0;
    for (size_t i = 0; i < n;) {
        const size_t end = n - i > 1024 ? i + 1024 : n;
        __m512 s0 = _mm512_setzero_ps(), s1 = s0;
        for (; i + 32 <= end; i += 32) {
            const __m512 e0 = sk_expneg_rr2_p5_avx512(_mm512_add_ps(_mm512_loadu_ps(x + i), nb));
            const __m512 e1 =
                sk_expneg_rr2_p5_avx512(_mm512_add_ps(_mm512_loadu_ps(x + i + 16), nb));
            _mm512_storeu_ps(y + i, e0);
            _mm512_storeu_ps(y + i + 16, e1);
            s0 = _mm512_add_ps(s0, e0);
            s1 = _mm512_add_ps(s1, e1);
        }
        for (; i < end; i += 16) {
            const __mmask16 t = sk_tail16_avx512(end - i);
            const __m512 e = sk_expneg_rr2_p5_maskz_avx512(
                t, _mm512_add_ps(_mm512_maskz_loadu_ps(t, x + i), nb));
            _mm512_mask_storeu_ps(y + i, t, e);
            s0 = _mm512_add_ps(s0, e);
        }
        sum += (double)_mm512_reduce_add_ps(_mm512_add_ps(s0, s1));
    }
    return (float)sum;
}

/* The fused first sweep for online softmax: y = scale*x (+ add) where attended, -inf elsewhere. */
AI float smm16(size_t n, float scale, const float *x, int kind, const void *mrow, float *y)
{
    const __m512 vs = _mm512_set1_ps(scale), ninf = _mm512_set1_ps(-INFINITY);
    __m512 add = _mm512_setzero_ps(), m0 = ninf;
    __mmask16 nan = 0;
    for (size_t c = 0; c < n; c += 16) {
        const __mmask16 t = sk_tail16_avx512(n - c);
        const __mmask16 k = att16(kind, mrow, c, t, &add);
        const __m512 xv = ldxz16(t, x + c);
        const __m512 v = kind == SK_MASK_ADD ? _mm512_fmadd_ps(vs, xv, add) : _mm512_mul_ps(vs, xv);
        nan |= _mm512_mask_cmp_ps_mask(k, v, v, _CMP_UNORD_Q);
        m0 = _mm512_mask_max_ps(m0, k, m0, v);
        _mm512_mask_storeu_ps(y + c, t, _mm512_mask_blend_ps(k, ninf, v));
    }
    return nan ? NAN : hmax16(m0);
}

AI void neginf16(size_t c0, size_t n, float *y)
{
    for (size_t c = c0; c < n; c += 16)
        _mm512_mask_storeu_ps(y + c, sk_tail16_avx512(n - c), _mm512_set1_ps(-INFINITY));
}

#define SK_ENTRY_SMM sk_scale_mask_max_avx512
#define SK_ENTRY_SMMROW smm16
#define SK_ENTRY_NEGFILL neginf16
#include "softmax_entry.h"
