/* GEMM: argument checks, the portable framework and the table init. */
#include "dsp.h"
#include "common.h"

/* C = beta * C (beta == 0: C = 0, C not read). */
static void scale_c(size_t m, size_t n, float beta, float *c, size_t ldc)
{
    for (size_t i = 0; i < m; i++) {
        float *ci = c + i * ldc;
        if (beta == 0.f)
            for (size_t j = 0; j < n; j++) ci[j] = 0.f;
        else if (beta != 1.f)
            for (size_t j = 0; j < n; j++) ci[j] = beta * ci[j];
    }
}

void sk_gemm_dsp_init(sk_gemm_dsp *d, sk_isa isa)
{
    (void)isa;
    *d = (sk_gemm_dsp){ .sgemm = sk_sgemm_ref };
}

void sk_gemm_run(const sk_gemm_dsp *d, sk_trans ta, sk_trans tb, size_t m, size_t n, size_t k,
                 float alpha, const float *a, size_t lda, const float *b, size_t ldb, float beta,
                 float *c, size_t ldc)
{
    if (m == 0 || n == 0) return;
    if (k == 0 || alpha == 0.f) { /* A and B not read (BLAS semantics) */
        scale_c(m, n, beta, c, ldc);
        return;
    }
    d->sgemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

sk_status sk_sgemm(sk_trans ta, sk_trans tb, size_t m, size_t n, size_t k,
                   float alpha, const float *a, size_t lda, const float *b, size_t ldb,
                   float beta, float *c, size_t ldc)
{
    if ((unsigned)ta > SK_TRANS || (unsigned)tb > SK_TRANS) return SK_EINVAL;
    if (!sk_mat_ok(a, ta ? k : m, ta ? m : k, lda)) return SK_EINVAL;
    if (!sk_mat_ok(b, tb ? n : k, tb ? k : n, ldb)) return SK_EINVAL;
    if (!sk_mat_ok(c, m, n, ldc)) return SK_EINVAL;
    sk_gemm_run(&sk_dsp_get()->gemm, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    return SK_OK;
}
