/* The aarch64 kernels of the GEMM family and their init (called by sk_gemm_dsp_init after the
 * portable micro-kernel and blocks). */
#ifndef SK_ARM_GEMM_H
#define SK_ARM_GEMM_H

#include "../gemm.h" /* the family header (this one has its name) */

/* register tiles: mr x nr of the micro-kernel; the transposed tile's C rows (its lanes) x columns
   (rows of B); rows of A of the dot kernel */
#define SK_GEMM_NEON_MR  8
#define SK_GEMM_NEON_NR  12
#define SK_GEMM_NEON_T_M 16
#define SK_GEMM_NEON_T_N 4
#define SK_GEMM_NEON_DOT_ROWS 4

void sk_gemm_ukr_neon(size_t r, size_t k, const float *a, size_t rsa, size_t csa, const float *b,
                      size_t rsb, float *c, size_t ldc, float alpha, float beta, float *bp,
                      const float *pf, size_t pfs);
extern const sk_gemm_tiles sk_gemm_tiles_neon; /* its r-row kernels */
void sk_gemm_ukr_t_neon(size_t r, size_t k, const float *a, size_t rsa, const float *b,
                        size_t rsb, size_t w, float *c, size_t ldc, size_t room, float alpha,
                        float beta);
void sk_gemv_n_neon(size_t n, size_t k, float alpha, const float *a, const float *b, size_t ldb,
                    float beta, float *c);
void sk_gemv_t_neon(size_t n, size_t k, float alpha, const float *a, const float *b, size_t ldb,
                    float beta, float *c);
void sk_gemm_dot_neon(size_t m, size_t n, size_t k, float alpha, const float *a, size_t lda,
                      const float *b, size_t ldb, float beta, float *c, size_t ldc);
void sk_gemm_pack_t_neon(size_t w, size_t kc, const float *src, size_t lds, float *dst, size_t ld);

static inline void sk_gemm_dsp_init_arm(sk_gemm_dsp *d, sk_isa isa)
{
    if (isa != SK_ISA_NEON) return;
    d->ukr = sk_gemm_ukr_neon, d->tiles = &sk_gemm_tiles_neon;
    d->ukr_t = sk_gemm_ukr_t_neon;
    d->pack_t = sk_gemm_pack_t_neon;
    d->ukr_t_m = SK_GEMM_NEON_T_M;
    d->ukr_t_n = SK_GEMM_NEON_T_N;
    d->ukr_t_lane = SK_GEMM_NEON_T_M;
    d->ukr_t_max = SK_GEMM_NEON_T_M;
    d->kc_t = 256; /* kc: no longer block measured on an Arm core */
    d->gemv_n = sk_gemv_n_neon;
    d->rows_n = NULL; /* not the scalar table's: no NEON rows kernel, few rows on the tiles */
    d->gemv_t = sk_gemv_t_neon;
    d->dot = sk_gemm_dot_neon;
    d->dot_rows = d->dot_few = d->dot_group = SK_GEMM_NEON_DOT_ROWS;
    d->mr = SK_GEMM_NEON_MR;
    /* planner: rows at 4 KiB strides share an L1 set, 8 such rows walked side by side stay in
       L1; B at such strides packed row by row (its kernels read kc rows of one set, unprefetched);
       an in-place panel copied past 16 KiB of B or at 2 KiB strides, for two or more row blocks
       after the first; A packed over several MC blocks unless n spans at most 4 NR strips; other
       strides read in place however far B spans, and over several MC blocks copied by the first
       block's kernels whatever its size (no up-front pass measured on an Arm core). The pool
       partition: the scalar table's. */
    d->set_stride = 1024;
    d->set_rows = 8;
    d->b_alias = 1024;
    d->b_span_min = 0;
    d->b_rows_min = 0;
    d->cp_min = 4096;
    d->cp_stride = 512;
    d->cp_blocks = 3;
    d->cp_blocks_set = 3;
    d->cp_ldb_min = 0;
    d->direct_a_strips = 4;
    d->copy_packs_a = 0;
    d->realign_n = d->realign_rows_n = 0; /* B off a line: not measured on an Arm core */
    d->nr = SK_GEMM_NEON_NR;
    d->pack_nr = SK_GEMM_NEON_NR; /* not measured on an Arm core */
    /* typical Arm cores: L1d 64 KiB (B micro-panel KC x 12 = 12 KiB), L2 1 MiB (A block 128 KiB) */
    d->kc = 256;
    d->mc = 128;
    d->nc = 4092;
}

#endif
