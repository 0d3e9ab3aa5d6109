/* Internal: the GEMM family (owner: issue 3). */
#ifndef SK_GEMM_H
#define SK_GEMM_H

#include "simdkern.h"

typedef void (*sk_sgemm_fn)(sk_trans ta, sk_trans tb, size_t m, size_t n, size_t k, float alpha,
                            const float *a, size_t lda, const float *b, size_t ldb, float beta,
                            float *c, size_t ldc);

typedef struct sk_gemm_dsp {
    sk_sgemm_fn sgemm; /* arguments already validated, sizes nonzero */
} sk_gemm_dsp;

void sk_gemm_dsp_init(sk_gemm_dsp *d, sk_isa isa);

/* Unchecked GEMM through table d (same semantics as sk_sgemm); for other families (attention). */
void sk_gemm_run(const sk_gemm_dsp *d, sk_trans ta, sk_trans tb, size_t m, size_t n, size_t k,
                 float alpha, const float *a, size_t lda, const float *b, size_t ldb, float beta,
                 float *c, size_t ldc);

#endif
