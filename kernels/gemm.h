/* Internal: the GEMM family (owner: issue 3).
 *
 * Design (BLIS style): a portable framework in gemm.c blocks for the caches (NC / KC / MC loops),
 * packs op(A) into MR-row micro-panels and op(B) into NR-column micro-panels (absorbing both
 * transposes and any ld), and calls one register-tile micro-kernel per ISA. Small shapes skip the
 * B packing (NN reads B in place) and m == 1 goes to matrix-vector kernels. The scalar table keeps
 * the portable reference (sgemm) and no micro-kernel. */
#ifndef SK_GEMM_H
#define SK_GEMM_H

#include <stddef.h>
#include "simdkern.h"

typedef void (*sk_sgemm_fn)(sk_trans ta, sk_trans tb, size_t m, size_t n, size_t k, float alpha,
                            const float *a, size_t lda, const float *b, size_t ldb, float beta,
                            float *c, size_t ldc);

/* Micro-kernel for an r x NR tile (r = 1..MR, one function per r):
 *   C[i][j] = alpha * sum_p A(i,p) B(p,j) + beta * C[i][j]   (beta == 0: C not read)
 * A(i,p) = a[p*csa + i] (a packed micro-panel: csa = MR), B(p,j) = b[p*rsb + j] with j < NR read
 * whole (a packed micro-panel: rsb = NR, or B itself). k >= 1. */
typedef void (*sk_gemm_ukr_fn)(size_t k, const float *a, size_t csa, const float *b, size_t rsb,
                               float *c, size_t ldc, float alpha, float beta);

/* m == 1: c[j] = alpha * sum_p a[p] B(p,j) + beta * c[j] for j < n (beta == 0: c not read), with
 * B(p,j) = b[p*ldb + j] (gemv_n) or b[j*ldb + p] (gemv_t). a contiguous; n, k >= 1. */
typedef void (*sk_gemv_fn)(size_t n, size_t k, float alpha, const float *a, const float *b,
                           size_t ldb, float beta, float *c);

/* As sk_gemm_ukr_fn with B read in place (row stride rsb), and the NR columns of B it reads also
 * copied to the packed micro-panel bp[p*NR + j] (the row blocks after it read that, rsb = NR, from
 * L1 instead of B's scattered rows) while the next panel (b + NR) is prefetched. */
typedef void (*sk_gemm_ukr_cp_fn)(size_t k, const float *a, size_t csa, const float *b, size_t rsb,
                                  float *c, size_t ldc, float alpha, float beta, float *bp);

/* Transposed-tile kernel for NT with few rows, C^T = B op(A)^T with the rows of B read in place:
 * for q < r (r = 1..MR, one function per r) and i < w (w <= rows_nr),
 *   C[i*ldc + q] = alpha * sum_p a[q*rsa + p] b[p*rsb + i] + beta * C[i*ldc + q]
 * (beta == 0: C not read); b[p*rsb + 0..rows_nr-1] readable (packed op(A)^T). k >= 1. room: the
 * columns C[i*ldc + 0..room-1] may be written (later tiles overwrite those past r): with beta == 0
 * a kernel may store whole vectors past its r columns there. */
typedef void (*sk_gemm_ukr_t_fn)(size_t k, const float *a, size_t rsa, const float *b, size_t rsb,
                                 size_t w, float *c, size_t ldc, size_t room, float alpha, float beta);

/* Transposing pack of a B panel (op(B) = B^T): dst[p*NR + j] = b[j*ldb + p] for j < nr, p < kc;
 * zero for nr <= j < NR. */
typedef void (*sk_gemm_pack_fn)(size_t nr, size_t kc, const float *b, size_t ldb, float *dst, size_t NR);

#define SK_GEMM_MR_MAX 16

typedef struct sk_gemm_dsp {
    sk_sgemm_fn sgemm;                  /* portable reference; used when ukr[0] is NULL */
    sk_gemm_ukr_fn ukr[SK_GEMM_MR_MAX]; /* ukr[r-1]: r rows; NULL past mr */
    sk_gemv_fn gemv_n, gemv_t;
    sk_gemm_pack_fn pack_bt;            /* NULL: the portable one */
    sk_gemm_pack_fn pack_an;            /* A panel of exactly mr rows, op(A) = A: dst[p*mr + i] =
                                           a[i*lda + p] (arguments as pack_bt with nr = ld = mr; the
                                           columns past p = kc - 1 are not written); NULL: portable */
    sk_gemm_ukr_fn ukr_r[SK_GEMM_MR_MAX]; /* as ukr with A(i,p) = a[i*csa + p] (A rows in place) */
    sk_gemm_ukr_t_fn ukr_t[SK_GEMM_MR_MAX]; /* ukr_t[r-1]: r rows of B; NULL: none */
    sk_gemm_ukr_cp_fn ukr_cp[SK_GEMM_MR_MAX], ukr_rcp[SK_GEMM_MR_MAX]; /* as ukr, ukr_r, copying B
                                           (the first row block of an in-place B panel); NULL: none */
    unsigned rows_nr, mr_t;             /* lanes and rows of ukr_t: NT path for m <= rows_nr */
    unsigned mr, nr;                    /* register tile */
    /* planner thresholds (floats, rows):
       set_stride  row strides that are multiples of this map every row to one L1 set (4 KiB)
       set_rows    rows at such a stride, walked side by side, that stay in L1
       b_alias     NN: B row strides that are multiples of this are packed in a pass of their own,
                   not read in place by the kernels (0: any stride)
       b_small     NN with one MC block: B of k x n up to this is read in place
       cp_min, cp_stride  an in-place B panel is copied for the later row blocks when k x n
                   exceeds cp_min or ldb is a multiple of cp_stride */
    unsigned set_stride, set_rows, b_alias, b_small, cp_min, cp_stride;
    unsigned mc, kc, nc;                /* cache blocks: A block mc x kc (L2), B block kc x nc (L3),
                                           B micro-panel kc x nr (L1) */
} sk_gemm_dsp;

void sk_gemm_dsp_init(sk_gemm_dsp *d, sk_isa isa);

/* Per-ISA table upgrades (kernels/x86, kernels/arm). */
void sk_gemm_init_avx2(sk_gemm_dsp *d);
void sk_gemm_init_avx512(sk_gemm_dsp *d);
void sk_gemm_init_neon(sk_gemm_dsp *d);

/* The portable reference (kernels/scalar/gemm_ref.c): each C element is a float sum over p in order,
 * then alpha * s + beta * c; deterministic in every build. */
void sk_sgemm_ref(sk_trans ta, sk_trans tb, size_t m, size_t n, size_t k, float alpha,
                  const float *a, size_t lda, const float *b, size_t ldb, float beta,
                  float *c, size_t ldc);

/* Unchecked GEMM through table d (same semantics as sk_sgemm); for other families (attention).
 * Any sizes (m, n or k may be 0); never allocates on small shapes after a thread's first call. */
void sk_gemm_run(const sk_gemm_dsp *d, sk_trans ta, sk_trans tb, size_t m, size_t n, size_t k,
                 float alpha, const float *a, size_t lda, const float *b, size_t ldb, float beta,
                 float *c, size_t ldc);
/* The same on the caller's pool tp (NULL: sk_gemm_run), bitwise identical to sk_gemm_run (the
 * partition in gemm.c). */
void sk_gemm_run_tp(const sk_threadpool *tp, const sk_gemm_dsp *d, sk_trans ta, sk_trans tb,
                    size_t m, size_t n, size_t k, float alpha, const float *a, size_t lda,
                    const float *b, size_t ldb, float beta, float *c, size_t ldc);

/* As sk_gemm_run, plus a bias: C = alpha op(A) op(B) + bias, bias[j] (n floats) added to every row
 * of C; C is not read (beta is ignored). bias NULL: sk_gemm_run. No pass of its own over C: each C
 * tile starts as the bias right before its first k block, which then runs with beta = 1. */
void sk_gemm_run_bias(const sk_gemm_dsp *d, sk_trans ta, sk_trans tb, size_t m, size_t n, size_t k,
                      float alpha, const float *a, size_t lda, const float *b, size_t ldb,
                      float beta, const float *bias, float *c, size_t ldc);
/* sk_gemm_run_bias on the caller's pool tp (NULL: on this thread), bitwise identical to it. */
void sk_gemm_run_bias_tp(const sk_threadpool *tp, const sk_gemm_dsp *d, sk_trans ta, sk_trans tb,
                         size_t m, size_t n, size_t k, float alpha, const float *a, size_t lda,
                         const float *b, size_t ldb, float beta, const float *bias, float *c,
                         size_t ldc);

#endif
