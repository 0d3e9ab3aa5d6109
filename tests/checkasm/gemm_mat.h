/* checkasm: the GEMM tests' matrices (tests/checkasm/gemm.c, gemm_packed.c, gemm_plan.c) and their
 * double-precision reference with the contract's bound. */
#ifndef CK_GEMM_MAT_H
#define CK_GEMM_MAT_H

#include <math.h>
#include <stdint.h>
#include "checkasm.h"

typedef struct mat {
    float *p;
    size_t rows, cols, ld;
} mat;

/* rows x cols in [-1, 1) at ld = cols + pad, guarded, the padding poisoned */
static inline mat mat_new(size_t rows, size_t cols, size_t pad)
{
    mat x = { NULL, rows, cols, cols + pad };
    x.p = ck_buf_alloc(rows * x.ld);
    ck_fill(x.p, rows * x.ld, -1.f, 1.f);
    ck_mat_poison_pad(x.p, rows, cols, x.ld);
    return x;
}

/* guard bands and padding untouched */
static inline int mat_intact(const mat *x, const char *what)
{
    return ck_buf_check(x->p, what) && ck_mat_pad_check(x->p, x->rows, x->cols, x->ld, what);
}

/* p advanced to the first float `off` floats past a 64-byte boundary (p: 4-byte aligned, with 15
   floats to spare past what the caller reads there) */
static inline float *ck_past_line(float *p, size_t off)
{
    const size_t at = (size_t)((uintptr_t)p % 64) / sizeof(float);
    return p + (off + 16 - at) % 16;
}

static inline size_t rand_pad(void)
{
    static const size_t pads[4] = { 0, 1, 3, 17 };
    return pads[ck_rand_u32(4)];
}

/* C(i,j) = alpha sum_p op(A)(i,p) op(B)(p,j) + beta C0(i,j) in double (C0 not read when beta == 0),
   and *bound = (2 k + 4) 2^-24 (|alpha| sum_p |op(A)(i,p) op(B)(p,j)| + |beta| |C0(i,j)|). */
static inline double mat_exact(const mat *A, const mat *B, const mat *C0, sk_trans ta,
                               sk_trans tb, size_t i, size_t j, size_t k, float alpha, float beta,
                               double *bound)
{
    double s = 0., sa = 0.;
    for (size_t p = 0; p < k; p++) {
        const double x = ta ? A->p[p * A->ld + i] : A->p[i * A->ld + p];
        const double y = tb ? B->p[j * B->ld + p] : B->p[p * B->ld + j];
        s += x * y;
        sa += fabs(x * y);
    }
    const double c0 = beta == 0.f ? 0. : C0->p[i * C0->ld + j];
    *bound = (2. * (double)k + 4.) * 0x1p-24 * (fabs(alpha) * sa + fabs(beta) * fabs(c0));
    return alpha * s + beta * c0;
}

/* Every element of C (C0 before the call) within mat_exact's bound; the first miss reported. */
static inline int mat_within_bound(const mat *A, const mat *B, const mat *C0, const mat *C,
                                   sk_trans ta, sk_trans tb, size_t k, float alpha, float beta)
{
    int ok = 1;
    for (size_t i = 0; i < C->rows && ok; i++)
        for (size_t j = 0; j < C->cols && ok; j++) {
            double bound;
            const double exact = mat_exact(A, B, C0, ta, tb, i, j, k, alpha, beta, &bound);
            const float v = C->p[i * C->ld + j];
            ok &= ck_check(fabs(v - exact) <= bound, "C(%zu,%zu) = %.9g, exact %.9g, bound %.3g",
                           i, j, v, exact, bound);
        }
    return ok;
}

#endif
