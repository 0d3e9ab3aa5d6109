/* Softmax family, AVX2 + FMA. Same three sweeps per row as softmax_avx512.c (max of scale*x (+
 * mask); e = exp(scale*x - max) written to y and summed; y *= 1/sum, fused into the next row's
 * exp sweep for rows <= 2048 columns), scale and mask fused, key padding trimmed, partial tails
 * through _mm256_maskload_ps / _mm256_maskstore_ps (whole vectors use plain stores: vmaskmovps
 * stores are slow on Zen) and byte masks assembled without reading past the row end. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "exp_avx2.h"
#include "x86/math.h"
#include "common.h"

#define AI static inline __attribute__((always_inline))

/* x as the sweeps read it: subnormals as 0 (sk_flush_subnormal_avx2: no microcode assists; a
   subnormal x moves a score by less than |scale| 2^-126) */
AI __m256 ldx8(const float *p) { return sk_flush_subnormal_avx2(_mm256_loadu_ps(p)); }
AI __m256 ldxm8(const float *p, __m256i t)
{
    return sk_flush_subnormal_avx2(_mm256_maskload_ps(p, t));
}

/* Attended lanes (all-ones) among the lanes of t at column c; (ADD) the additive mask values. */
/* Internal kind: a key mask expanded once per call into 32-bit lane masks (0 / all ones). */
#define KIND_LANES 16

AI __m256 att8(int kind, const void *mrow, size_t c, size_t rem, __m256i t, __m256 *add)
{
    if (kind == KIND_LANES) {
        const int32_t *p = (const int32_t *)mrow + c;
        return _mm256_castsi256_ps(rem >= 8 ? _mm256_loadu_si256((const __m256i *)p)
                                            : _mm256_maskload_epi32(p, t));
    }
    if (kind == SK_MASK_KEYS || kind == SK_MASK_BOOL) {
        const uint8_t *p = (const uint8_t *)mrow + c;
        __m128i b;
        if (rem >= 8) {
            b = _mm_loadl_epi64((const __m128i *)p);
        } else {
            uint64_t u = 0;
            memcpy(&u, p, rem);
            b = _mm_cvtsi64_si128((long long)u);
        }
        const __m256i z = _mm256_cmpeq_epi32(_mm256_cvtepu8_epi32(b), _mm256_setzero_si256());
        return _mm256_castsi256_ps(_mm256_andnot_si256(z, t));
    }
    if (kind == SK_MASK_ADD) {
        *add = _mm256_maskload_ps((const float *)mrow + c, t);
        return _mm256_and_ps(_mm256_cmp_ps(*add, _mm256_set1_ps(-INFINITY), _CMP_NEQ_UQ),
                             _mm256_castsi256_ps(t));
    }
    return _mm256_castsi256_ps(t);
}

AI __m256 scaled(int kind, __m256 vs, __m256 xv, __m256 add)
{
    return kind == SK_MASK_ADD ? _mm256_fmadd_ps(vs, xv, add) : _mm256_mul_ps(vs, xv);
}

/* Sweep 1: max of scale*x (+ add) over the attended columns of a row (-inf if none). */
AI float rmax8(size_t n, float scale, const float *x, int kind, const void *mrow)
{
    const int raw = kind != SK_MASK_ADD && scale > 0.f;
    const __m256 vs = _mm256_set1_ps(scale), ninf = _mm256_set1_ps(-INFINITY);
    const __m256i ones = _mm256_set1_epi32(-1);
    __m256 add = _mm256_setzero_ps(), a1 = add;
    __m256 m0 = ninf, m1 = ninf;
    size_t c = 0;
    for (; c + 16 <= n; c += 16) {
        const __m256 k0 = att8(kind, mrow, c, 8, ones, &add);
        const __m256 k1 = att8(kind, mrow, c + 8, 8, ones, &a1);
        /* scale > 0 and no additive mask: max(RN(scale x)) = RN(scale max(x)), skip the multiply */
        const __m256 v0 = raw ? ldx8(x + c) : scaled(kind, vs, ldx8(x + c), add);
        const __m256 v1 = raw ? ldx8(x + c + 8) : scaled(kind, vs, ldx8(x + c + 8), a1);
        m0 = _mm256_max_ps(m0, _mm256_blendv_ps(ninf, v0, k0)); /* NaN in v: max returns it */
        m1 = _mm256_max_ps(m1, _mm256_blendv_ps(ninf, v1, k1));
    }
    for (; c < n; c += 8) {
        const __m256i t = sk_tail8_avx2(n - c);
        const __m256 k = att8(kind, mrow, c, n - c, t, &add);
        const __m256 xv = ldxm8(x + c, t);
        const __m256 v = raw ? xv : scaled(kind, vs, xv, add);
        m0 = _mm256_max_ps(m0, _mm256_blendv_ps(ninf, v, k));
    }
    const float m = sk_hmax8_avx2(_mm256_max_ps(m0, m1));
    return raw ? scale * m : m;
}

/* Sweep 2: y = exp(scale*x (+ add) - m) on attended columns, 0 elsewhere; the score rounded as in
   sweep 1 (scaled), so that d <= 0 exactly (an FMA of scale x - m could leave d > 0 by half an ulp
   of the score, far beyond the exp's range for huge finite scores); returns the sum (float
   lanes, flushed into a double every 512 columns). Vectors with nothing attended skip the exp. */
AI void rscale8(size_t n, float inv, float *y);

/* Sweep 2, fused with sweep 3 of the previous row (yp[0..np) *= invp; yp NULL: none): the loads,
   multiplies and stores of the normalisation fill the slots the exp leaves free. */
AI double rexp8(size_t n, float scale, const float *x, int kind, const void *mrow, float m,
                float *y, const float *pf, float *yp, size_t np, float invp)
{
    const __m256 vs = _mm256_set1_ps(scale), negm = _mm256_set1_ps(-m), vi = _mm256_set1_ps(invp);
    size_t done = 0; /* columns of yp already normalised */
    const __m256i ones = _mm256_set1_epi32(-1);
    __m256 add = _mm256_setzero_ps();
    double sum = 0.0;
    for (size_t c = 0; c < n;) {
        const size_t end = n - c > 512 ? c + 512 : n;
        __m256 s0 = _mm256_setzero_ps();
        for (; c + 16 <= end; c += 16) { /* two exp chains: four no longer fit 16 ymm registers */
            if (pf) {
                _mm_prefetch((const char *)(pf + c), _MM_HINT_T0); /* next block's row */
            }
            if (yp && c + 16 <= np) {
                for (int j = 0; j < 2; j++)
                    _mm256_storeu_ps(yp + c + 8 * j,
                                     _mm256_mul_ps(_mm256_loadu_ps(yp + c + 8 * j), vi));
                done = c + 16;
            }
            __m256 a[2] = { add, add }, k[2], e[2];
            for (int j = 0; j < 2; j++) k[j] = att8(kind, mrow, c + 8 * j, 8, ones, &a[j]);
            if (kind != SK_MASK_NONE) {
                const __m256 any = _mm256_or_ps(k[0], k[1]);
                if (_mm256_testz_ps(any, any)) { /* nothing attended, e.g. key padding */
                    for (int j = 0; j < 2; j++)
                        _mm256_storeu_ps(y + c + 8 * j, _mm256_setzero_ps());
                    continue;
                }
            }
            for (int j = 0; j < 2; j++) {
                const __m256 xv = ldx8(x + c + 8 * j);
                const __m256 d = _mm256_add_ps(scaled(kind, vs, xv, a[j]), negm);
                e[j] = sk_expneg_rr2_p5_avx2(d);
                if (kind != SK_MASK_NONE) e[j] = _mm256_and_ps(k[j], e[j]);
            }
            for (int j = 0; j < 2; j++) _mm256_storeu_ps(y + c + 8 * j, e[j]);
            /* one accumulator: a second one gets spilled (16 ymm registers), and a sum carried
               through the stack costs a store-forwarding round trip per iteration */
            s0 = _mm256_add_ps(s0, _mm256_add_ps(e[0], e[1]));
        }
        for (; c < end; c += 8) {
            const __m256i t = sk_tail8_avx2(end - c);
            const __m256 k = att8(kind, mrow, c, end - c, t, &add);
            const __m256 xv = ldxm8(x + c, t);
            const __m256 d = _mm256_add_ps(scaled(kind, vs, xv, add), negm);
            const __m256 e = _mm256_and_ps(k, sk_expneg_rr2_p5_avx2(d));
            if (end - c >= 8) _mm256_storeu_ps(y + c, e);
            else _mm256_maskstore_ps(y + c, t, e);
            s0 = _mm256_add_ps(s0, e);
        }
        sum += (double)sk_hsum8_avx2(s0);
    }
    if (yp) rscale8(np - done, invp, yp + done);
    return sum;
}

/* Sweep 3: y *= inv (a NaN inv turns the whole row NaN). */
AI void rscale8(size_t n, float inv, float *y)
{
    const __m256 vi = _mm256_set1_ps(inv);
    size_t c = 0;
    for (; c + 8 <= n; c += 8) _mm256_storeu_ps(y + c, _mm256_mul_ps(_mm256_loadu_ps(y + c), vi));
    if (c < n) {
        const __m256i t = sk_tail8_avx2(n - c);
        _mm256_maskstore_ps(y + c, t, _mm256_mul_ps(_mm256_maskload_ps(y + c, t), vi));
    }
}

/* Columns [len, cols) of a finished row: 0 (causal / key-padding tail). */
AI void tail8fill(size_t cols, size_t len, float *yr)
{
    const __m256 fv = _mm256_setzero_ps();
    size_t c = len;
    for (; c + 8 <= cols; c += 8) _mm256_storeu_ps(yr + c, fv); /* vmaskmovps stores are slow */
    if (c < cols) _mm256_maskstore_ps(yr + c, sk_tail8_avx2(cols - c), fv);
}

/* The block driver (softmax_rows.h) on this file's row kernels. */
#define SK_ROWS rows8
#define SK_RMAX rmax8
#define SK_REXP rexp8
#define SK_RSCALE rscale8
#define SK_TAILFILL tail8fill
#include "softmax_rows.h"

/* A key mask that is not dense: for several rows, its bytes expanded once into 32-bit lane masks
   (one load per vector after). */
static void rows8_keys(size_t rows, size_t cols, float scale, const float *x, size_t ldx,
                       const sk_mask *mask, size_t hi, float *y, size_t ldy)
{
    if (rows == 1 || hi > 4096) {
        rows8(rows, cols, scale, x, ldx, mask, SK_MASK_KEYS, hi, y, ldy, mask);
        return;
    }
    int32_t lanes[4096] SK_ALIGN(32);
    const __m256i ones = _mm256_set1_epi32(-1);
    __m256 unused;
    for (size_t c = 0; c < hi; c += 8) {
        const size_t rem = hi - c;
        const __m256 k = att8(SK_MASK_KEYS, mask->data, c, rem,
                              rem >= 8 ? ones : sk_tail8_avx2(rem), &unused);
        if (rem >= 8) _mm256_storeu_ps((float *)(lanes + c), k);
        else _mm256_maskstore_ps((float *)(lanes + c), sk_tail8_avx2(rem), k);
    }
    const sk_mask lm = { SK_MASK_KEYS, lanes, 0, 0 };
    rows8(rows, cols, scale, x, ldx, &lm, KIND_LANES, hi, y, ldy, mask);
}

#define SK_ENTRY_SMX sk_scale_mask_softmax_avx2
#define SK_ENTRY_SOFTMAX sk_softmax_avx2
#define SK_ENTRY_ROWS rows8
#define SK_ENTRY_KEYS rows8_keys
#include "softmax_entry.h"

float sk_max_avx2(size_t n, const float *x)
{
    const __m256 ninf = _mm256_set1_ps(-INFINITY);
    __m256 m0 = ninf, m1 = ninf, nan = _mm256_setzero_ps();
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m256 a = _mm256_loadu_ps(x + i), b = _mm256_loadu_ps(x + i + 8);
        nan = _mm256_or_ps(nan, _mm256_cmp_ps(a, b, _CMP_UNORD_Q));
        m0 = _mm256_max_ps(m0, a);
        m1 = _mm256_max_ps(m1, b);
    }
    for (; i < n; i += 8) {
        const __m256i t = sk_tail8_avx2(n - i);
        const __m256 a =
            _mm256_blendv_ps(ninf, _mm256_maskload_ps(x + i, t), _mm256_castsi256_ps(t));
        nan = _mm256_or_ps(nan, _mm256_cmp_ps(a, a, _CMP_UNORD_Q));
        m0 = _mm256_max_ps(m0, a);
    }
    return _mm256_movemask_ps(nan) ? NAN : sk_hmax8_avx2(_mm256_max_ps(m0, m1));
}

float sk_expsum_avx2(size_t n, const float *x, float bias, float *y)
{
    const __m256 nb = _mm256_set1_ps(-bias);
    double sum = 0.0;
    for (size_t i = 0; i < n;) {
        const size_t end = n - i > 512 ? i + 512 : n;
        __m256 s0 = _mm256_setzero_ps(), s1 = s0;
        for (; i + 16 <= end; i += 16) {
            const __m256 e0 = sk_expneg_rr2_p5_avx2(_mm256_add_ps(_mm256_loadu_ps(x + i), nb));
            const __m256 e1 = sk_expneg_rr2_p5_avx2(_mm256_add_ps(_mm256_loadu_ps(x + i + 8), nb));
            _mm256_storeu_ps(y + i, e0);
            _mm256_storeu_ps(y + i + 8, e1);
            s0 = _mm256_add_ps(s0, e0);
            s1 = _mm256_add_ps(s1, e1);
        }
        for (; i < end; i += 8) {
            const __m256i t = sk_tail8_avx2(end - i);
            const __m256 e = _mm256_and_ps(
                _mm256_castsi256_ps(t),
                sk_expneg_rr2_p5_avx2(_mm256_add_ps(_mm256_maskload_ps(x + i, t), nb)));
            _mm256_maskstore_ps(y + i, t, e);
            s0 = _mm256_add_ps(s0, e);
        }
        sum += (double)sk_hsum8_avx2(_mm256_add_ps(s0, s1));
    }
    return (float)sum;
}

/* The fused first sweep for online softmax: y = scale*x (+ add) where attended, -inf elsewhere. */
AI float smm8(size_t n, float scale, const float *x, int kind, const void *mrow, float *y)
{
    const __m256 vs = _mm256_set1_ps(scale), ninf = _mm256_set1_ps(-INFINITY);
    __m256 add = _mm256_setzero_ps(), m0 = ninf, nan = _mm256_setzero_ps();
    for (size_t c = 0; c < n; c += 8) {
        const __m256i t = sk_tail8_avx2(n - c);
        const __m256 k = att8(kind, mrow, c, n - c, t, &add);
        const __m256 v = scaled(kind, vs, ldxm8(x + c, t), add);
        const __m256 vm = _mm256_blendv_ps(ninf, v, k);
        nan = _mm256_or_ps(nan, _mm256_cmp_ps(vm, vm, _CMP_UNORD_Q));
        m0 = _mm256_max_ps(m0, vm);
        _mm256_maskstore_ps(y + c, t, vm);
    }
    return _mm256_movemask_ps(nan) ? NAN : sk_hmax8_avx2(m0);
}

AI void neginf8(size_t c0, size_t n, float *y)
{
    for (size_t c = c0; c < n; c += 8)
        _mm256_maskstore_ps(y + c, sk_tail8_avx2(n - c), _mm256_set1_ps(-INFINITY));
}

#define SK_ENTRY_SMM sk_scale_mask_max_avx2
#define SK_ENTRY_SMMROW smm8
#define SK_ENTRY_NEGFILL neginf8
#include "softmax_entry.h"
