/* The x86 kernels of the GEMM family and their init. sk_gemm_dsp_init fills the table with the
 * portable micro-kernel and blocks, then calls sk_gemm_dsp_init_x86, which upgrades the slots and
 * the per-ISA fields tier by tier and returns at the first tier above the ISA asked for. */
#ifndef SK_X86_GEMM_H
#define SK_X86_GEMM_H

#include "../gemm.h" /* the family header (this one has its name) */
#include "x86/cpu.h"
#include "../cpu.h" /* SK_CPU_X86_* */

/* register tiles: mr x nr of the micro-kernel; the transposed tile's C rows (its lanes) x columns
   (rows of B); rows of A of the dot kernel */
#define SK_GEMM_AVX2_MR       6
#define SK_GEMM_AVX2_NR       16
#define SK_GEMM_AVX2_T_M      16
#define SK_GEMM_AVX2_T_N      SK_GEMM_AVX2_MR
#define SK_GEMM_AVX2_DOT_ROWS 12
#define SK_GEMM_AVX2_DOT_GROUP 6 /* rows per call of sk_gemm_dot_avx2 */
#define SK_GEMM_AVX2_W_MR     4 /* the wide tile for few rows */
#define SK_GEMM_AVX2_W_NR     24
#define SK_GEMV_AVX2_ROWS_MIN  256 /* gemv_n streams B's rows whole from this many columns on */
#define SK_GEMV_AVX2_SPAN      (256 * 1024) /* gemv_n: a B of at most this many floats (k x ldb)
                                               eight rows at a time, past it two (to 512 Ki) */
#define SK_GEMV_AVX512_SPAN    (256 * 1024) /* gemv_n: a B of at most this many floats (from
                                               L2) one or two rows at a time, not eight */

#define SK_GEMM_AVX512_MR       8
#define SK_GEMM_AVX512_NR       32
#define SK_GEMM_AVX512_T_M      32
#define SK_GEMM_AVX512_T_N      16
#define SK_GEMM_AVX512_DOT_ROWS 38
#define SK_GEMM_AVX512_DOT_GROUP 6 /* rows per call of sk_gemm_dot_avx512 */
#define SK_GEMM_AVX512_TP_N     12 /* ukr_tp's rows of B at most */
#define SK_GEMM_AVX512_W_MR     6 /* the wide tile's rows (AMD Zen 5: 4 elsewhere) */
#define SK_GEMM_AVX512_W_NR     64
#define SK_GEMM_AVX512_ROWS     4 /* rows of sk_gemm_rows4_avx512 */
#define SK_GEMM_AVX2_ROWS       6 /* rows of sk_gemm_rows6_avx2 */

/* the r-row kernels behind each micro-kernel entry (sk_gemm_tiles): sk_gemm_tiles_X_isa behind
   sk_gemm_ukr_X_isa */
extern const sk_gemm_tiles sk_gemm_tiles_avx2, sk_gemm_tiles_pn_avx2, sk_gemm_tiles_w_avx2;
extern const sk_gemm_tiles sk_gemm_tiles_avx512, sk_gemm_tiles_rbp_avx512;
extern const sk_gemm_tiles sk_gemm_tiles_w_avx512, sk_gemm_tiles_w_rb_avx512,
    sk_gemm_tiles_w_rbp_avx512, sk_gemm_tiles_tcp_avx512;

void sk_gemm_ukr_avx2(size_t r, size_t k, const float *a, size_t rsa, size_t csa, const float *b,
                      size_t rsb, float *c, size_t ldc, float alpha, float beta, float *bp,
                      const float *pf, size_t pfs);
void sk_gemm_ukr_pn_avx2(size_t r, size_t k, const float *a, size_t rsa, size_t csa,
                         const float *b, size_t rsb, float *c, size_t ldc, float alpha, float beta,
                         float *bp, const float *pf, size_t pfs);
void sk_gemm_ukr_w_avx2(size_t r, size_t k, const float *a, size_t rsa, size_t csa,
                        const float *b, size_t rsb, float *c, size_t ldc, float alpha, float beta,
                        float *bp, const float *pf, size_t pfs);
void sk_gemm_ukr_t_avx2(size_t r, size_t k, const float *a, size_t rsa, const float *b,
                        size_t rsb, size_t w, float *c, size_t ldc, size_t room, float alpha,
                        float beta);
void sk_gemm_rows6_avx2(size_t m, size_t n, size_t k, float alpha, const float *a, size_t rsa,
                        size_t csa, const float *b, size_t ldb, float beta, float *c, size_t ldc);
void sk_gemm_rows4_avx512(size_t m, size_t n, size_t k, float alpha, const float *a, size_t rsa,
                          size_t csa, const float *b, size_t ldb, float beta, float *c,
                          size_t ldc);
void sk_gemv_n_avx2(size_t n, size_t k, float alpha, const float *a, const float *b, size_t ldb,
                    float beta, float *c);
void sk_gemv_t_avx2(size_t n, size_t k, float alpha, const float *a, const float *b, size_t ldb,
                    float beta, float *c);
void sk_gemm_dot_avx2(size_t m, size_t n, size_t k, float alpha, const float *a, size_t lda,
                      const float *b, size_t ldb, float beta, float *c, size_t ldc);
void sk_gemm_pack_t_avx2(size_t w, size_t kc, const float *src, size_t lds, float *dst, size_t ld);

void sk_gemm_ukr_avx512(size_t r, size_t k, const float *a, size_t rsa, size_t csa,
                        const float *b, size_t rsb, float *c, size_t ldc, float alpha, float beta,
                        float *bp, const float *pf, size_t pfs);
void sk_gemm_ukr_w_avx512(size_t r, size_t k, const float *a, size_t rsa, size_t csa,
                          const float *b, size_t rsb, float *c, size_t ldc, float alpha,
                          float beta, float *bp, const float *pf, size_t pfs);
void sk_gemm_ukr_tcp_avx512(size_t r, size_t k, const float *a, size_t rsa, size_t csa,
                            const float *b, size_t rsb, float *c, size_t ldc, float alpha,
                            float beta, float *bp, const float *pf, size_t pfs);
/* the wide one with A broadcast to a register once per row over a packed B too (AMD Zen 5) */
void sk_gemm_ukr_w_rb_avx512(size_t r, size_t k, const float *a, size_t rsa, size_t csa,
                             const float *b, size_t rsb, float *c, size_t ldc, float alpha,
                             float beta, float *bp, const float *pf, size_t pfs);
/* the main one with A broadcast once per row over a packed B too and C's lines prefetched spread
   over its k steps over packed A and B (AMD Zen 5, Intel Sapphire / Emerald Rapids); the wide one
   prefetching B's rows from a 4 KiB stride on (Intel) */
void sk_gemm_ukr_rbp_avx512(size_t r, size_t k, const float *a, size_t rsa, size_t csa,
                            const float *b, size_t rsb, float *c, size_t ldc, float alpha,
                            float beta, float *bp, const float *pf, size_t pfs);
void sk_gemm_ukr_w_rbp_avx512(size_t r, size_t k, const float *a, size_t rsa, size_t csa,
                              const float *b, size_t rsb, float *c, size_t ldc, float alpha,
                              float beta, float *bp, const float *pf, size_t pfs);
void sk_gemm_ukr_t_avx512(size_t r, size_t k, const float *a, size_t rsa, const float *b,
                          size_t rsb, size_t w, float *c, size_t ldc, size_t room, float alpha,
                          float beta);
void sk_gemm_ukr_tp_avx512(size_t r, size_t k, const float *a, size_t rsa, const float *b,
                           size_t rsb, size_t w, float *c, size_t ldc, size_t room, float alpha,
                           float beta);
void sk_gemv_n_avx512(size_t n, size_t k, float alpha, const float *a, const float *b, size_t ldb,
                      float beta, float *c);
void sk_gemv_t_avx512(size_t n, size_t k, float alpha, const float *a, const float *b, size_t ldb,
                      float beta, float *c);
void sk_gemm_dot_avx512(size_t m, size_t n, size_t k, float alpha, const float *a, size_t lda,
                        const float *b, size_t ldb, float beta, float *c, size_t ldc);

static inline void sk_gemm_dsp_init_x86(sk_gemm_dsp *d, sk_isa isa, uint64_t features)
{
    if (!sk_x86_tier(isa, SK_ISA_AVX2)) return;
    d->ukr = sk_gemm_ukr_avx2, d->tiles = &sk_gemm_tiles_avx2;
    d->ukr_t = sk_gemm_ukr_t_avx2;
    d->gemv_n = sk_gemv_n_avx2;
    /* NN with 2-6 rows: B's rows streamed into C's rows in L1 where the tiles would walk B down
       their panels at its row stride (gemm.c, plan_rows). AMD Zen 5, against the tiles (in-process,
       fastest of 15): 5 and 6 rows (one pass of the 6-row kernel; two runs) 5x512x2048 1.56-1.70x,
       6x768x768 1.31-1.38x, 5x768x768 1.53-1.57x, 5x512x1024 1.48-1.53x, 6x512x2048 1.36-1.37x,
       5x640x640 1.23-1.29x, 5x1024x256 1.21-1.31x, 5x1024x1024 1.16-1.23x, 6x1024x128 1.12-1.25x,
       5x512x512 1.12-1.14x, 5x1000x1000 1.09-1.12x, 5x2048x512 1.10-1.14x, 6x1024x1024 0.98-1.09x,
       6x2048x512 0.98-1.04x, 6x1536x512 0.92-1.01x, 5x1536x1536 0.91x (B 9 MiB); 2x1024x1024 1.93x,
       3x1024x1024 1.99x, 4x1024x1024 1.57x, 4x1024x256 1.84x, 4x2048x512 1.59x, 4x1024x64 1.43x,
       2x512x512 1.34x, 3x512x512 1.41x, 4x768x768 1.31x, 4x3072x1024 1.32x, 3x4096x1024 1.29x,
       2x4096x4096 1.20x, 4x512x512 1.08-1.28x, 4x4096x1024 1.06x; 4x1000x1000 0.95-1.08x, 4x640x640
       0.99-1.20x, 2x1000x1000 0.92x. Not for the wide tile's partial panels (rows_edge 0: 4x512x128
       0.97x, 4x512x64 0.99x), nor below the span (4x64x64 0.74x, 4x48x48 0.64x, 4x96x96 0.86x,
       2x128x128 0.96x) nor past it (4x4096x4096 0.90x) */
    d->rows_n = sk_gemm_rows6_avx2;
    /* 7-12 rows in two passes over B (gemm.c, plan_rows: B's rows at 4 KiB multiples, B from
       256 KiB to 8 MiB, more rows than the 6x16 tile's one row block), where the tile's second
       row block reads B's 16-column panels again down rows that share an L1 set. AMD Zen 5,
       64-byte aligned operands, against the tiles (in-process, fastest of 15; passes of at most
       4 rows): 7x1024x1024 1.67x, 7x2048x1024 1.75x, 7x1024x64 1.68x, 8x1024x1024 1.51x,
       9x2048x1024 1.39x, 9x1024x1024 1.36x, 10x1024x1024 1.27x, 11x1024x256 1.26x, 11x1024x1024
       1.20x, 12x1024x1024 1.15-1.27x, 12x2048x512 1.17-1.19x, 12x1024x256 1.14-1.20x, 12x1024x64
       1.11-1.12x (B and C at five placements within a page: docs/bench/gemm-tuning.md); two
       passes of at most 6 rows against three of 4, three runs: 12x2048x512 1.08-1.13x,
       11x1024x256 1.03-1.08x, 9x512x1024 1.03-1.08x, 10x1024x1024 1.02-1.05x, 12x1024x1024
       0.97-1.07x, 9x1024x1024 0.97-1.02x. Not past 12 rows (three row blocks: 13x2048x512 0.90x,
       16x1024x1024 0.93x, 14x1024x1024 level), a 12 MiB B (9-11x3072x1024 0.78-0.89x; 7-8 rows
       1.17-1.31x), nor on the AVX-512 tiles, faster than these passes from 5 rows on
       (12x1024x1024 0.66x, 7x1024x1024 0.95x) */
    d->rows_max = 12;
    d->rows_group = SK_GEMM_AVX2_ROWS;
    /* past 6 rows in groups of at most 4 (3 rows of B per pass where 5-6 rows take 2), in-process
       against groups of 6, fastest of 15, two runs: 12x1024x64 1.10-1.25x, 12x1024x1024
       1.03-1.16x, 10x1024x1024 1.01-1.17x, 11x1024x256 1.05-1.15x, 9x1024x1024 1.08-1.09x,
       12x2048x512 1.06-1.10x, 9x512x512 1.01-1.04x */
    d->rows_group_many = 4;
    d->rows_few = 6;
    d->rows_span = 64 * 1024;
    d->rows_span_max = 8 * 1024 * 1024;
    /* 7-9 rows at 2 KiB multiples too (the tile's rows of B, and of C at the same stride, then
       share two L1 sets), for a B of 1 MiB or more. AMD Zen 5, against the tiles (in-process,
       fastest of 15, B and C at six placements within a page: the tiles' speed depends on
       them, the passes' does not): 7x512x512 1.11-1.49x, 8x512x512 0.96-1.20x, 9x512x512
       0.95-1.14x, 7x512x1024 1.59-1.79x, 8x512x1024 1.41-1.52x, 8x512x1536 1.13-1.50x,
       7x1536x512 1.15-1.23x, 7x512x4096 1.25-1.34x, 9x2560x512 0.99-1.03x; not for 10-12 rows
       (10x512x256 and 12x512x128 0.81x, 11x512x512 0.98x, 12x512x2048 0.98x, 12x512x512 1.06x),
       nor for a smaller B (8x512x256 0.94x, 8x512x128 0.95x), nor at other strides (9x384x384
       0.90x, 11x1200x1200 0.84x, 8x256x256 0.95x; 8x640x640 1.29x, 7x768x768 1.17x)
       (docs/bench/gemm-tuning.md) */
    d->rows_half_max = 9;
    d->rows_half_span = 256 * 1024;
    /* gemv_n picks its kernel by the width it is given, and its two kernels sum in different
       orders: with column groups at least SK_GEMV_AVX2_ROWS_MIN wide, every part of a call split
       over a pool is that wide whenever the call is, and takes the call's kernel */
    if (d->gemv_group < SK_GEMV_AVX2_ROWS_MIN) d->gemv_group = SK_GEMV_AVX2_ROWS_MIN;
    d->gemv_span = SK_GEMV_AVX2_SPAN;
    d->gemv_t = sk_gemv_t_avx2;
    d->dot = sk_gemm_dot_avx2;
    /* NT with op(A) = A: up to 6 rows on dot (one pass over B), more up to 12 (two passes) for a
       B of at most 8 MiB and k >= 4 m (the transposed tiles' lanes filled under 13/16). AMD Zen
       5, against the blocked path or the transposed tiles (in-process, fastest of 15):
       5x1024x1024 1.57x, 6x1024x1024 1.48x, 5x4096x1024 1.43x, 6x512x512 1.24x, 5x64x64 1.05x,
       6x64x64 0.98x; past 6 rows 7x64x64 1.38x, 10x512x512 1.29x, 7x1024x1024 1.27x, 8x1024x1024
       1.15x, 12x512x512 1.12x, 12x512x2048 1.02x; left to the others: a 16 MiB B (8x4096x1024
       0.93x, 12x4096x1024 1.01x), 13 rows and more (three passes: 13x512x512 0.97x, 16x512x512
       0.81x) */
    /* the kernel takes 8, 6, 4 and 3 rows of B at a time against 1-4 rows of A, 2 against 5-6
       (12 accumulators at most; 2 rows of B for any count before): NT 3x512x512 1.41x,
       4x512x512 1.26x, 8x512x512 1.33x (two groups of 4), 4x1024x1024 1.19x, 4x4096x1024 1.17x
       (AMD Zen 5, against 2 rows of B, in-process, fastest of 15) */
    d->dot_rows = SK_GEMM_AVX2_DOT_ROWS;
    d->dot_group = SK_GEMM_AVX2_DOT_GROUP;
    /* and past 6 rows in groups of at most 4 (three passes over B for 9-12 rows, not two of 5-6
       rows of A against 2 of B): 10x512x512 1.18-1.20x, 12x512x2048 1.17x, 11x512x512
       1.15-1.18x, 12x512x512 1.15-1.16x, 10x2048x1024 1.11-1.15x, 12x768x768 1.14-1.15x,
       9x512x512 1.11-1.12x, 12x1024x1024 1.09-1.10x, 10x1024x1024 1.08-1.09x, 9x64x64
       1.07-1.08x, 9x1024x1024 1.01-1.03x, 12x64x64 0.97-1.02x (in-process, fastest of 15,
       two runs) */
    d->dot_group_many = 4;
    d->dot_few = 6;
    d->dot_k_min = 1;
    d->dot_k_max = ~0u; /* any k */
    d->dot_span = 2 * 1024 * 1024;
    d->dot_t_fill = 13;
    d->pack_t = sk_gemm_pack_t_avx2;
    d->ukr_t_m = SK_GEMM_AVX2_T_M;
    d->ukr_t_n = SK_GEMM_AVX2_T_N;
    /* past 16 rows of A, the same tile in groups of 16 rows up to 128 rows, when k >= 4 m and
       the last group fills 3/4 of its lanes: B's rows read in place where the blocked path packs
       B transposed. AMD Zen 5, against the blocked path (two builds alternated, fastest of 7):
       32x1024x1024 1.18x, 32x512x512 1.14x, 64x4096x1024 1.14x, 112x1024x1024 1.11x,
       64x1024x1024 1.10x, 128x512x512 1.09x, 32x512x128 1.07x, 64x512x256 1.01x; the AVX-512
       table's limits (docs/bench/gemm-tuning.md) */
    d->ukr_t_lane = SK_GEMM_AVX2_T_M;
    d->ukr_t_max = 128;
    d->ukr_t_k_rows = 4;
    d->ukr_t_fill = 3;
    /* NT with 5 or 6 rows ran 1.07-1.67x faster blocked than on the 8-lane transposed tile (AMD
       Zen 5: 5x64x64, 6x64x64, 6x512x512, 6x1024x1024); 7 rows 1.24x at 64x64, level at
       512x512, 0.86x at 1024x1024 (B's transposing pack from L3), docs/bench/gemm-tuning.md */
    d->ukr_t_min = 7;
    /* NT with few rows: op(A)^T packed 8192 x 16 (512 KiB, L2), so that the kernel reads each row
       of B whole up to 8192 floats instead of in kc pieces at a stride of ldb (a page walk each
       past the TLB's reach). With kc (256) on Zen 1: 16x4096x1024 21.3 -> 32.7 GFLOP/s,
       16x2048x2048 22.3 -> 34.3, 8x4096x1024 8.6 -> 14.6, 16x1024x1024 and 16x512x512 1.07-1.08x
       (docs/bench/gemm-tuning.md) */
    d->kc_t = 8192;
    /* planner: rows at 4 KiB strides share an L1 set, 8 such rows walked side by side stay in
       L1 (8 ways on Zen 4, 12 on Zen 5 and Golden Cove); B read in place at any stride (the
       kernels prefetch its rows into L2); an in-place panel copied for the later row blocks past
       16 KiB of B or at 2 KiB strides, when two or more row blocks after the first read it; over
       several MC blocks, a B block of 1 MiB or more (past L2 on Zen 4) packed row by row up
       front, a smaller one copied by the first MC block's kernels (measured on an Intel Xeon
       with AVX-512: the up-front pass is 4-10% faster on 256-1024 x 1024 x 1024 and 2-4% slower
       on 512 x 512 x 64, docs/bench/gemm-tuning.md); A packed over several MC blocks unless n
       spans at most 4 NR strips. With one MC block, a B of 8 MiB or more (the 2048 4 KiB pages
       an Intel core's second-level TLB maps; Zen 4 maps 3072) packed row by row up front too:
       read in place down each panel, its rows at a 4 KiB-multiple stride each cost a page walk
       (16x4096x1024 and 16x2048x2048 ran 2x faster packed, 16x2048x1024 1.1x, 64 and
       16x1024x1024 read in place within 5%, 4x1024x1024 0.7x packed). The pool partition: the
       scalar table's. */
    d->set_stride = 1024;
    d->set_rows = 8;
    d->b_alias = 0;
    d->b_rows_min = 256 * 1024;
    d->b_span_min = 2 * 1024 * 1024;
    d->cp_min = 4096;
    d->cp_stride = 512;
    d->cp_blocks = 3;
    d->cp_blocks_set = 3;
    d->cp_ldb_min = 0;
    d->direct_a_strips = 4;
    d->copy_packs_a = 0;
    /* B off a cache line, at a row stride that is a multiple of one (every row as far off): each
       load of a panel's row then splits across two lines, and each panel reads one line of the
       next one too. The columns before the first boundary run as a call of their own; the rest
       of the call reads whole lines. AMD Zen 5, B 16 and 48 bytes off, the split against the
       whole call on the same operands (in-process, fastest of 15, 3-11 runs): on rows_n,
       AVX-512 2x512x512 1.11-1.26x, 2x1024x1024 1.02-1.30x, 4x512x512 1.05-1.13x, 4x1024x1024
       1.03-1.28x, AVX2 2x512x512 1.12-1.25x, 2x1024x1024 1.08-1.26x, 8x512x512 1.01-1.11x,
       4x1024x1024 1.05-1.08x, 8x1024x1024 0.97-1.08x, 12x1024x1024 0.98-1.11x; on the blocked
       path from about 1000 columns on, AVX-512 8x1024x1024 1.39-1.41x, 8x2048x1024 1.29-1.53x,
       16x1024x1024 1.06-1.07x, 16x2048x1024 1.08-1.11x, 32x1024x1024 1.01-1.03x, 64x1024x1024
       0.98-1.00x, AVX2 16x1024x1024 1.11-1.21x, 16x2048x1024 1.14-1.19x, 32x1024x1024 1.06x,
       64x1024x1024 1.01-1.04x. Not over fewer columns (the narrow call and
       the rest's partial panel cost a panel more: AVX-512 8x512x512 0.85-0.87x, 16x512x512
       0.90-0.92x, 64x512x512 0.92-0.94x, 16x768x768 0.93x, AVX2 16x512x512 0.93-0.95x), nor on
       the wide tile (AVX-512 12x1024x1024 0.76-0.78x: the rest's partial panel takes it off the
       tile) (docs/bench/gemm-tuning.md) */
    d->realign_rows_n = 256;
    d->realign_n = 1000;
    d->realign_span = 64 * 1024;
    /* 32 bytes off, no 32-byte load splits: AVX2 2x512x512 0.94-0.97x, 4x512x512 0.91-0.95x,
       8x512x512 0.92-0.97x with the split */
    d->realign_floats = 8;
    d->mr = SK_GEMM_AVX2_MR;
    d->nr = SK_GEMM_AVX2_NR;
    /* a 4-row block of the 6x16 tile holds 8 accumulators, just the FMA latency times two pipes:
       m = 6 q + 4 rows run as near-equal blocks (16 = 6 + 5 + 5, 10 = 5 + 5), not q blocks of 6
       and one of 4. AMD Zen 5, the two plans of one library alternated (fastest of 21, three
       runs): 10x512x512 1.03-1.05x, 16x512x512 1.00-1.03x, 16x1024x1024 1.00-1.03x, 64x64x64
       1.00-1.02x, 16x64x64 1.01x, 16x512x64 and 64x512x64 1.00-1.01x, 40x512x512 1.00-1.02x,
       16x4096x1024 1.02x, 64x512x512 and 1024^3 level (docs/bench/gemm-tuning.md) */
    d->mr_rest_min = 5;
    /* two tiles wide: m == 1 over a packed B then keeps 4 accumulators of 8 columns per row; the
       tile's half of a panel is not copied (see the AVX-512 tier's pk_copy_rows) */
    d->pack_nr = 2 * SK_GEMM_AVX2_NR;
    d->pk_copy_rows = 0;
    /* few rows: 4 rows of the 6x16 tile are 8 accumulators, just the FMA latency x two ports;
       the 4x24 tile has 12 */
    d->ukr_w = sk_gemm_ukr_w_avx2, d->tiles_w = &sk_gemm_tiles_w_avx2;
    d->w_mr = d->w_few = SK_GEMM_AVX2_W_MR;
    d->w_nr = SK_GEMM_AVX2_W_NR;
    /* only for B rows 320 floats or more apart (n >= 320 when B is packed tight): below, the
       6x16 tile ran 1.1-2x faster, from the wide tile's partial last panel and its few panels
       (AMD Zen 1, m = 2 and 4: n = 64 1.6-2.0x, 128 1.34x, 256 1.1-1.16x); from 320 on level
       within this VM's noise (n = 320-768, 0.9-1.1x either way); the wide tile ahead on Intel
       (4x512x512) and on Zen 1 for B rows a page or more apart (docs/bench/gemm-tuning.md) */
    d->w_ldb_min = 320;
    /* AMD Zen 4 / Zen 5 and recent Intel cores: L1d 32-48 KiB (B micro-panel KC x 16 = 16 KiB +
       A micro-panel 6 KiB), L2 1-2 MiB (A block MC x KC = 72 KiB), L2 or L3 (B block KC x NC
       = 1 MiB). KC 256 is the fastest; MC 72 (12 row blocks) runs 5-17% faster than 168 on the
       Intel Xeon over several MC blocks; NC about 1024 and 512 are level, 2048 and 4080 up to
       1.4x slower on B blocks packed up front (docs/bench/gemm-tuning.md). */
    d->kc = 256;
    d->mc = 72;
    d->nc = 1024; /* 1008 (63 x 16 = 42 x 24) ran 2-7% slower on n = 4096: one block more */
    /* Zen 1 / Zen+: a large B read in place beat the up-front pack by 1.1-1.4x (16x4096x1024
       1.41x, 16x2048x2048 1.34x, 4x4096x1024 1.36x, 64x4096x1024 1.09x, 4 KiB pages), where the
       Intel Xeon ran 2x faster packed; its 512 KiB L2 does not hold the 1 MiB packed block. Zen 5
       too: AVX-512 8, 16 and 32 x 4096 x 1024 1.59x, 1.30x, 1.17x, 16x2048x2048 1.26x,
       64x4096x1024 1.10x; AVX2 16x4096x1024 1.15x, 32x4096x1024 1.10x, 16x2048x2048 1.12x.
       Intel Emerald Rapids (L2 2 MiB) too, in-process against the pack (fastest of 21, three
       runs): AVX2 16x4096x1024 1.67-1.73x, 16x2048x2048 1.56-1.68x, 32x4096x1024 1.23-1.32x;
       AVX-512 16x4096x1024 2.5-2.6x, 16x2048x2048 2.6-2.7x (docs/bench/gemm-tuning.md) */
    if (features & (SK_CPU_X86_ZEN1 | SK_CPU_X86_ZEN5 | SK_CPU_X86_SPR)) d->b_span_min = 0;
    /* Zen 5 (L2 1 MiB, the size of a B block): the first MC block's kernels copy the B block as
       they read it (no pass of its own) and the hardware prefetchers alone bring the next A
       block: AVX-512 (both, two builds alternated, fastest of 15) 1024^3 1.02x, 2048^3 1.03x,
       256x1024x1024 1.05x, 512x2048x512 1.03x, 512^3 1.01x; each alone 1.00-1.03x; AVX2 1.00-1.03x
       (docs/bench/gemm-tuning.md). The prefetch loop stalled between the tiles: 2% of 1024^3. */
    if (features & SK_CPU_X86_ZEN5) {
        /* B's next panel into L2 at 4 KiB strides and more, not its rows into L1: 1.02-1.25x on
           8-64 x 1024 x 1024, 16x4096x1024, 16x2048x2048; at 2 KiB none (ukr_body in
           gemm_6x16_avx2.c) */
        d->ukr = sk_gemm_ukr_pn_avx2, d->tiles = &sk_gemm_tiles_pn_avx2;
        /* NC 2048 (B block 2 MiB, from L3 as the 1 MiB one mostly was): A packed once per k
           block where n <= 2048, not once per 1024 columns. In-process against NC 1024 (two
           builds alternated, fastest of 15-25, the same bits): 2048^3 1.01-1.03x, 16x2048x2048
           1.04-1.05x, 128x2048x2048 1.03x, 1024x2048x1024 1.01x, 64x2048x2048 0.99-1.05x,
           128x4096x1024 0.99-1.01x, 256x2048x512 and 64x2048x64 level; in a noisier phase
           later 2048^3 1.00-1.03x (docs/bench/gemm-tuning.md) */
        d->nc = 2048;
        d->b_rows_min = 0;
        d->a_prefetch = 0;
        /* A read in place over several MC blocks up to 512 columns (32 strips), not packed:
           in-process A/B on Zen 5, fastest of 15, 512x512x64 1.016x, 256x256x256 1.017x,
           256x512x512 1.008x, 512x512x512 1.007x, 384^3 level (the AVX-512 tile gains more) */
        d->direct_a_strips = 32;
        /* the 4x24 tile from 7 rows up to one MC block over whole 24-column panels (12
           accumulators where 7-8 rows make two 4-row blocks of 8 on the 6x16 tile, and 3 loads
           of B per 12 FMAs), B read in place by every row block; at 2 KiB-multiple strides only
           up to 8 rows (more row blocks' rows of B then share a few L1 sets; the row passes of
           rows_n take 7-9 rows at such strides over larger Bs first). In-process against the 6x16
           tile (two builds alternated, fastest of 15, two runs): 7x768x768 1.22-1.25x,
           8x768x768 1.18-1.21x, 16x960x960 1.12x, 16x480x64 1.08x, 16x480x480 1.05-1.09x,
           32x480x480 1.05-1.09x, 16x768x768 1.04-1.06x, 16x1920x960 1.03-1.06x, 12x480x480
           1.03x, 64x480x480 1.02-1.04x, 32x768x768 1.01-1.03x, 16x768x3072 0.98-1.06x, 12x768x768
           and 48x960x960 level, 64x768x768 0.97-1.01x; at 2 KiB multiples 7x512x200 1.11x,
           8x512x256 1.10-1.11x, 8x1024x60 1.11x, 7x1024x48 1.09x, 8x1024x32 1.05-1.07x, 8x512x64
           1.06x, 8x2048x16 1.04x, but 16x1536x1536 0.92x, 16x3072x768 0.65x; over a partial
           panel at 512 and 1024 columns from 12 rows 0.54-0.95x (docs/bench/gemm-tuning.md) */
        d->w_many = 7;
        d->w_set_max = 8;
        d->w_set_stride = 512;
        /* and over a B of at most 10 MiB: every row block reads B in place where the 6x16
           tile's first one copies each panel for the others and fetches the next one into L2
           (7x768x3072 1.19-1.22x, 16x768x3072 0.98-1.06x; 8x768x4096 1.02-1.10x but 16x768x4096
           0.93x, 8x768x8192 0.91-0.94x, 8x2304x4096 0.80-0.82x) */
        d->w_span_max = 2560 * 1024;
        /* 7-8 rows over a partial last panel too (the 6x16 tile runs them as 4 + 4 rows):
           7x1000x1000 1.18-1.25x, 8x330x330 1.11-1.16x, 8x1100x1100 1.11-1.14x, 8x1000x64
           1.13-1.14x, 8x1280x1280 1.08-1.11x, 8x640x640 1.05-1.07x, 7x320x320 1.04-1.07x,
           8x400x400 1.01-1.03x; not from 12 rows (12x1280x1280 0.93-0.95x, 32x1280x1280
           0.93-0.98x, 64x1000x1000 0.95-0.97x; 16x1000x1000 1.04-1.08x, 16x1280x1280
           0.96-1.00x) */
        d->w_part_max = 8;
    }

    if (!sk_x86_tier(isa, SK_ISA_AVX512)) return;
    d->realign_floats = 16; /* 64-byte loads: every offset splits them */
    d->ukr = sk_gemm_ukr_avx512, d->tiles = &sk_gemm_tiles_avx512;
    /* the AVX2 tile's rule (Zen 5) */
    d->w_many = d->w_set_max = d->w_set_stride = d->w_span_max = d->w_part_max = 0;
    d->w_blocks_span = 0;
    d->ukr_t = sk_gemm_ukr_t_avx512;
    d->gemv_n = sk_gemv_n_avx512; /* rows streamed from SK_GEMV_AVX2_ROWS_MIN columns, as the
                                     AVX2 tier's: gemv_group stays at least that wide */
    d->gemv_span = SK_GEMV_AVX512_SPAN;
    d->gemv_t = sk_gemv_t_avx512;
    d->dot = sk_gemm_dot_avx512;
    /* NN with 2-4 rows: B's rows streamed into C's rows in L1 where the wide tile would walk
       B down its panels (gemm.c, plan_rows). AMD Zen 5, against the wide tile (in-process, fastest
       of 15): 2x1024x1024 1.88x, 3x1024x1024 1.60x, 4x1024x1024 1.53x, 4x2048x512 1.45x,
       4x3072x1024 1.47x, 4x4096x1024 and 4x2048x2048 1.30x, 2x4096x4096 1.37x, 4x1024x256 1.33x,
       4x1024x64 1.18x, 4x768x768 1.17x, 4x640x640 1.10x, 4x512x512 1.03x, 2x256x256 1.19x,
       3x512x512 1.14x; n not a multiple of 64: 4x96x96 1.88x, 4x48x48 2.1x, 4x300x300 1.33x,
       4x1000x1000 1.17x, 3x96x200 1.74x. The wide tile stays ahead on a B in L2 with whole
       panels (4x512x256 0.88x, 4x256x256 0.92x, 3x256x256 0.94x, 2x128x128 0.89x, 4x64x64 0.53x,
       4x1024x32 0.93x) and from 32 MiB on with 4 rows (4x8192x1024 0.88x, 4x4096x4096 0.92x) */
    d->rows_n = sk_gemm_rows4_avx512;
    d->rows_max = d->rows_group = d->rows_few = SK_GEMM_AVX512_ROWS;
    d->rows_group_many = 0;
    d->rows_span = 64 * 1024;
    d->rows_span_max = 8 * 1024 * 1024;
    d->rows_edge = 1;
    /* Intel Emerald Rapids: the wide tile ahead over whole panels up to a B of 32 MiB
       (span >= (m - 1) rows_span and, at 4 KiB multiples, span >= rows_span: rows_n from 2 rows
       over 32 MiB on). Against rows_n (in-process, fastest of 21, the same bits): 4x512x512
       1.21x, 3x512x512 1.15x, 4x768x768 1.12x, 4x1024x1024 0.98-1.07x, 3x1024x1024 1.04x,
       2x1024x1024 1.03-1.05x, 4x2048x2048 1.15x, 2x2048x2048 1.14x, 4x4096x1024 1.13x,
       4x4096x4096 1.15x, 3x2048x2048 and 2x4096x2048 0.99x; 2x4096x4096 0.85-0.97x stays on
       rows_n; n not a multiple of 64 stays there too (rows_edge: 4x96x96 0.31x, 4x1000x1000
       0.87x) (docs/bench/gemm-tuning.md) */
    if (features & SK_CPU_X86_SPR) d->rows_span = 8 * 1024 * 1024;
    /* AMD Zen 4 (and the CPUs without a class of their own): 3 and 4 rows at strides off 4 KiB
       multiples on the wide tile up to a B of 12-16 MiB (4 MiB x (m - 1)). rows_n's speed there
       depends on the process: 4x512x512 ran 106-113 GFLOP/s in some processes and 30-40 in
       others, for the whole process (not explained yet: not the buffers' offsets or pages, the
       accumulator block on the stack moved it within a process but off the stack it still varied;
       libxsmm on the same buffers 104-117 meanwhile). The wide tile ran the same in every
       process. Zen 4, min/median/max of 9 stack offsets, three processes each, rows_n then the
       _rbp wide tile (below): 4x512x512 37/40/99, 34/36/38, 39/80/112 against 105-112;
       3x512x512 29/30/109, 82/88/109, 83/108/111 against 84-100 (the plain wide tile);
       4x1536x1536 48/53/92, 34/62/100, 84/94/102 against 77-98. From B's 12-16 MiB rows_n
       still ahead (4x4096x1024 median 46-56 against 34-35, 3x2048x2048 37-49 against 33-35), and
       at 4 KiB multiples (medians: 3x1024x1024 83-101 against 58-59, 4x1024x2048 61-105 against
       63-67, 4x1024x1024 40-110 against 71-79: set_stride, rows_span). Two rows did not vary
       and stay (2x1024x1024 73-82 against 39-42 on the wide tile); nor did the AVX2 tier's
       rows_n (docs/bench/gemm-tuning.md) */
    d->rows_span3 = 1024 * 1024;
    if (features & SK_CPU_X86_ZEN5) d->rows_span3 = 0; /* rows_span: the figures above */
    /* NT with op(A) = A: up to 6 rows on dot (one pass over B); more, up to 38 (seven passes),
       for 128 <= k <= 1024 and k >= 4 m, a B of at most 8 MiB, and where the transposed tiles
       would fill less than 13/16 of their lanes (7-12, 17-25 and 33-38 rows). AMD Zen 5, against
       the blocked path's transposing tile or the transposed tiles (in-process, fastest of 15):
       5x1024x1024 2.8x, 5x512x512 2.3x, 6x1024x1024 2.4x, 6x4096x1024 1.8x, 5x1024x4096 1.8x,
       5x64x64 1.08x, 6x64x64 0.96x; 9x512x512 1.74x, 8x512x512 1.71x, 10x1024x1024 1.39x,
       12x512x512 1.26x, 12x2048x1024 1.29x, 8x512x128 1.11x, 12x64x128 0.97x; 17x1024x1024
       1.49x, 17x512x512 1.42x, 20x512x512 1.33x, 24x512x512 1.26x, 25x1024x1024 1.15x,
       17x512x128 1.04x; 33x1024x1024 1.22x, 38x300x300 1.20x, 36x512x512 1.16x. Left to the
       others: k = 64 (7-16x64x64 0.69-0.95x), k from 2048 (12x512x2048 0.87x, 8x1024x4096
       0.86x), a 16 MiB B (12x4096x1024 0.83x, 24x4096x1024 0.65x), filled lanes (13-16, 26-32
       and 39-48 rows: 16x512x512 0.96x, 32x1024x1024 0.87x, 28x1024x1024 0.97x), k < 4 m (33-38
       x 512 x 128 0.92-0.96x: the blocked path's transposition shared by 5 row blocks) */
    d->dot_rows = SK_GEMM_AVX512_DOT_ROWS;
    d->dot_group = SK_GEMM_AVX512_DOT_GROUP;
    d->dot_group_many = 0;
    d->dot_few = 6;
    d->dot_k_min = 128;
    d->dot_k_max = 1024;
    d->dot_span = 2 * 1024 * 1024;
    d->dot_t_fill = 13;
    /* pack_t: the AVX2 tier's (its 8-row groups cover these panels) */
    d->ukr_t_m = SK_GEMM_AVX512_T_M;
    d->ukr_t_n = SK_GEMM_AVX512_T_N;
    /* 16 lanes (the 16x16 tile) up to 16 rows, 32 (the 8x32 tile's shape, stored transposed)
       past them, in groups of 32 rows up to 128 rows of A when k >= 4 m and the last group fills
       3/4 of its lanes: B's rows read in place where the blocked path packs B transposed, for a
       transposition of C and of A instead. AMD Zen 5, against the blocked path (two builds
       alternated, fastest of 7-9): 32x1024x1024 1.39x, 32x512x512 1.24x, 64x1024x1024 1.20x,
       64x512x512 1.11x, 64x4096x1024 1.28x, 64x2048x2048 1.25x, 32x4096x4096 1.52x,
       96x1024x1024 1.14x, 128x1024x1024 1.05-1.12x, 24x1024x1024 1.15x; with k < 4 m slower
       (64x512x128 0.94x, 64x1024x128 0.85x, 64x64x64 0.92x, 32x32x32 0.87x), with the last group
       half empty too (20x512x512 0.83x, 40x512x512 0.94x), from 192 rows level or slower
       (512x4096x2048 0.74x) (docs/bench/gemm-tuning.md) */
    d->ukr_t_lane = 16;
    /* 9..13 rows (3..7 of 16 lanes empty) on the transposed tile only for a B of at least
       64 Ki floats per empty lane past two: blocked vs transposed on AMD Zen 5, 12x64x64 1.28x,
       10x128x64 1.27x, 9x512x256 1.19x, 10x512x256 1.13x, 12x512x64 1.11x, 9x2048x128 1.08x,
       10x512x512 1.05x; 10x1024x256 1.01x, 12x512x256 1.00x, 13x256x256 1.02x; 11x1024x512 0.93x,
       13x512x512 0.91x, 9x1024x1024 0.90x, 12x1024x1024 0.83x; 14 rows 0.92-0.98x, 16 rows
       0.86-0.91x (docs/bench/gemm-tuning.md) */
    d->ukr_t_span = 64 * 1024;
    /* up to 16 rows of op(A) (one group of 16 lanes) with k >= 128: two k steps at a time, 8 rows
       of B per call (16 accumulators, 10 loads and 2 unpacks per 16 FMAs where the 16-wide tile
       issues 17 loads; at a 4 KiB-multiple stride that tile walks 8 rows of B: 8 accumulators).
       AMD Zen 5, against ukr_t (two builds alternated, fastest of 9): 16x1024x1024 1.17x,
       16x4096x1024 1.18x, 16x2048x2048 1.17x, 16x1024x4096 1.17x, 12 and 9 x 1024x1024 1.17x,
       16x768x768 1.13x, 16x512x512 1.10x, 14x512x512 1.10x, 16x512x128 1.03x; k = 64 0.95-0.98x,
       k = 17 0.52x (its 16 x 16 transposition stores 8 rows) (docs/bench/gemm-tuning.md) */
    d->ukr_tp = sk_gemm_ukr_tp_avx512;
    d->ukr_tp_n = 8;
    d->ukr_tp_k = 128;
    /* and 6-8 rows on it (half its lanes or more empty) from k = 1024, with the span rule: AMD
       Zen 5 against the blocked path, 8x4096x1024 1.20-1.35x, 8x1024x1024 1.13-1.24x, 7x2048x2048
       1.18x, 7x4096x1024 1.15x, 6x4096x4096 1.24x, 6x1024x1024 1.08-1.10x; with k <= 768
       0.93-1.03x (8x512x768, 6x1024x512, 8x1024x384), 5 rows 0.94x (5x1024x1024) */
    d->ukr_tp_min = 6;
    d->ukr_tp_min_k = 1024;
    d->ukr_t_max = 128;
    d->ukr_t_k_rows = 4;
    d->ukr_t_fill = 3;
    /* up to 8 rows (half the 16 lanes empty or more) blocked: 1.0-1.6x at every size measured on
       AMD Zen 5 (5x64x64 to 8x1024x1024); 9 rows 1.35x at 64x64 but 0.91x at 1024x1024 */
    d->ukr_t_min = 9;
    d->kc_t = 512 * 1024 / 4 / SK_GEMM_AVX512_T_M; /* op(A)^T 512 KiB, as the AVX2 tier */
    /* planner: as the AVX2 tier */
    d->mr = SK_GEMM_AVX512_MR;
    d->mr_rest_min = 0; /* a 6-row rest of the 8x32 tile: 12 accumulators */
    d->nr = SK_GEMM_AVX512_NR;
    /* a packed B in panels of the wide tile's width: up to 4 rows run the 4x64 tile (16
       accumulators) over whole panels, more rows the 8x32 tile over their halves. Against 32-column
       panels, AMD Zen 5, two A/B runs: 4x512x512 1.14-1.15x, 4x1024x1024 1.05-1.07x, 1x512x512
       1.03-1.07x, m >= 16 0.98-1.01x (1024^3 0.98-0.99x) */
    d->pack_nr = SK_GEMM_AVX512_W_NR;
    /* few rows: 4 rows of the 8x32 tile are 8 accumulators, just the FMA latency x two ports;
       the 4x64 tile has 16 and reads 4 lines of each in-place B row */
    /* AMD Zen 4 as Intel Emerald Rapids (below): the _rbp wide tile (A broadcast to a register
       once per row, its loops over an in-place B unrolled by 4; B's rows prefetched from a 4 KiB
       stride on). Zen 4, against the plain wide tile, min/median/max of 9 stack offsets, two
       processes: 4x512x512 105-112 against 86-91, 4x256x256 111-114 against 86-92, 4x512x64
       111-113 against 88-93, 3x128x128 99-112 against 89-100; 4x64x64, 3x768x768, 4x1024x1024
       and 4x4096x1024 level (docs/bench/gemm-tuning.md) */
    d->ukr_w = sk_gemm_ukr_w_rbp_avx512, d->tiles_w = &sk_gemm_tiles_w_rbp_avx512;
    d->w_mr = d->w_few = 4;
    d->w_nr = SK_GEMM_AVX512_W_NR;
    d->w_ldb_min = 0; /* any stride: 4x512x512 ran 1.1-1.3x faster on it (Intel Xeon) */
    /* AMD Zen 5 and Intel Sapphire / Emerald Rapids (two 512-bit FMA ports): A broadcast once
       per row over a packed B too (on Zen 5 the 8x32 tile over a packed panel in L1 at 0.98x the
       FMA peak instead of 0.83x with embedded broadcasts; on Emerald Rapids both at 1.00x), and
       the choices below, measured on Zen 5. On Emerald Rapids, sk_bench's GEMM table with them
       against without: 16x512x64 1.12x, 64x512x64 1.11x, 16x64x64 and 64x512x512 1.08x,
       256x512x512 and 256x1024x1024 1.07x, 32x32x32 1.06x, 64x64x64 and 512x512x64 1.05x,
       16x4096x1024 1.65x (with b_span_min), larger shapes 1.00-1.02x (docs/bench/gemm-tuning.md) */
    if (features & (SK_CPU_X86_ZEN5 | SK_CPU_X86_SPR)) {
        /* the _rbp main tile: C's lines prefetched spread over its k steps over packed A and B
           (gemm_8x32_avx512.c). AMD Zen 5, bench/ab-lib against the same tile prefetching all
           of C's lines at its start (one process, windows of 200-400 ms alternated, median
           new / old over 16, two runs): 2048^3 1.04-1.07x, NT 2048^3 1.08x, sk_sgemm_packed
           2048^3 1.07x, 4096x1024x1024 1.04x, 1024^3 1.02-1.05x, NT 1024^3 and 512x2048x512
           1.02x, 64x1024x1024 1.02x; 256x1024x1024, 256x512x512, 512x512x64 level (A's rows in
           place or k < 128: the same code). Intel: the _rbp wide tile too, with its prefetches
           (B's rows from a 4 KiB stride on) */
        const int zen5 = !!(features & SK_CPU_X86_ZEN5);
        d->ukr = sk_gemm_ukr_rbp_avx512;
        d->tiles = &sk_gemm_tiles_rbp_avx512;
        d->ukr_w = zen5 ? sk_gemm_ukr_w_rb_avx512 : sk_gemm_ukr_w_rbp_avx512;
        d->tiles_w = zen5 ? &sk_gemm_tiles_w_rb_avx512 : &sk_gemm_tiles_w_rbp_avx512;
        /* the wide tile 6 x 64 (24 accumulators, 4 loads of B and 6 broadcasts per 24 FMAs
           where the 8x32 tile has 2 and 8 per 16; libxsmm's tile here): up to 4 rows over any n,
           over whole panels 5-6 rows and from 9 rows up to one MC block, at a B row stride that
           is a multiple of 4 KiB up to 12 (two row blocks), B read in place by every row block
           (gemm.c: the wide tile's panel is not copied). In-process against the 8x32 tile (two
           builds alternated, fastest of 15, the same bits): 6x512x512 1.10-1.15x, 5x512x512
           1.19-1.23x, 6x1024x1024 1.35x, 6x4096x1024 1.21x, 6x256x256 1.04x, 5x64x64 1.07x,
           6x64x64 and 6x512x64 level, 5x1024x1024 0.95x; 9x512x512 1.20-1.31x, 12x512x512
           1.13-1.16x, 12x1536x512 1.19x, 9x64x64 1.08x, 16x512x512 1.01-1.03x, 16x1536x512
           1.035x, 16x1152x1152 1.03x, 32x1536x1536 1.07x, 16x64x64, 16x512x64, 64x64x64,
           64x512x64, 64x512x512 and 128x512x512 1.01-1.04x; at 4 KiB multiples 9x1024x1024
           1.26x, 12x1024x1024 1.31x, 12x1024x64 1.28x, 12x4096x1024 1.17x, 9x1024x4096 1.14x.
           Not: 5-6 rows over partial panels (6x96x96 0.42x, 6x200x200 0.88x), 7-8 rows (two row
           blocks where the 8x32 tile has one: 7x512x64 0.83x, 8x512x64 0.96x), from 16 rows at 4
           KiB multiples (three row blocks reading B in place there: 16x4096x1024 0.89x,
           16x2048x2048 0.88x, 16x1024x4096 0.90x, 32x2048x512 0.94x) (docs/bench/gemm-tuning.md) */
        d->w_mr = SK_GEMM_AVX512_W_MR;
        d->w_many = 9;
        d->w_set_max = 12;
        /* and past one MC block with one k block over a B of up to 1 MiB (in L2), B's panels
           copied by the first MC block's first row block, as the 8x32 tile's: in-process against
           the 8x32 tile (two plans of one library alternated in both orders, fastest of 21, the
           same bits, three runs): 1024x512x64 1.04-1.05x, 256x768x64 1.05-1.06x, 512x1536x64
           1.04-1.06x, 512x768x128 1.03-1.07x, 4096x512x64 and 512x512x64 1.03x, 256x512x64
           1.02-1.04x, 512x512x256 1.02-1.04x, 1024x768x256 1.01-1.03x, 256x256x256 1.01-1.02x;
           over a larger B 0.97-1.01x (512x2560x256 0.97x, 1024x1536x256 0.99x), with several k
           blocks 0.98-1.01x (1024x128x2048, 1024x256x768); the AVX2 wide tile 0.98-1.04x
           (docs/bench/gemm-tuning.md) */
        d->w_blocks_span = 256 * 1024;
        /* two row blocks reading an in-place B at a 4 KiB-multiple stride: the second from the
           first one's copy, 1.2-1.3x (9, 12 and 16 x 1024 x 1024, 16x2048x512, 16x1024x256) */
        d->cp_blocks_set = 2;
        /* and no copy below a row stride of 4 KiB: the row blocks reading the panel in place
           from L2 (its rows prefetched) ran faster than from the first one's copy (the 48 KiB L1
           holding the copy, A's rows and C), in-process A/B, fastest of 15: 24x512x512 1.035x,
           32x512x512 1.02x, 48x512x512 1.02x, 64x512x512 1.01x, 32x768x768 1.025x, 64x896x512
           1.05x, 64x256x256 1.02x, 64x512x256 1.03x; 64x960x512 0.99x; from 4 KiB on the copy
           mostly wins (64x1088x512 1.04x, 64x1152x512 1.05x, 64x1536x512 1.04x, 64x1280x256
           1.03x; 24x1280x1280 0.97x). The AVX2 tile wants the copy at every stride (0.93-1.01x
           without) */
        d->cp_ldb_min = 1024;
        /* A read in place over several MC blocks up to 512 columns (16 strips): in-process A/B,
           both orders, fastest of 15: 512x512x64 1.02-1.03x, 4096x512x64 1.02-1.03x, 256x256x256
           1.03-1.04x, 384^3 1.01x, 256x512x512 1.01x, 512x512x512 1.00-1.01x, 512x512x1536
           1.02-1.03x, 2048x512x512 0.99-1.02x; wider it loses where A's rows are read by many
           panels: 1024x1024x512 0.98x, 1024x2048x1024 0.92x, 2048^3 0.92x */
        d->direct_a_strips = 16;
        /* and A at a 4 KiB-multiple stride packed then, not read in place: the copy's 32 KiB
           fill 8 of the 12 ways of every L1 set, the 8 rows of A would share one of them;
           16x1024x1024 1.06x, 16x4096x1024 1.07x, 16x1024x4096 1.07x, 32x1024x1024 1.03x,
           64x1024x1024 1.02x; 8 and 12 x 1024 x 1024 (no copy, or 4 + 4 rows) level */
        d->copy_packs_a = 1;
    }
    /* Zen 5 only: on the Intel cores (Emerald Rapids) these NT choices ran 0.85-0.88x on
       16x64x64 and 16x512x64 in sk_bench's GEMM table (docs/bench/gemm-tuning.md) */
    if (features & SK_CPU_X86_ZEN5) {
        /* NT on the blocked path's direct case (one MC block, one k block, whole panels): the
           first row block transposes each panel beside its FMAs, where Zen 5 issues the in-lane
           shuffles on pipes of their own (an Intel core with two 512-bit FMA ports shares one
           with them; not measured there): NT 32x32x32 1.06x, 64x64x64 1.02x, 64x512x64 1.03x
           (docs/bench/gemm-tuning.md) */
        d->ukr_tcp = sk_gemm_ukr_tcp_avx512, d->tiles_tcp = &sk_gemm_tiles_tcp_avx512;
        /* and NT with 14-16 rows goes there too, not to the transposed tiles, while op(B) is
           small (n k up to 4096 4^(16 - m) floats): blocked against transposed, in-process A/B,
           fastest of 15: 16x32x32 1.11-1.12x, 16x64x32 1.05x, 16x64x48 1.03x, 16x128x32 1.01x,
           16x64x64 1.01x, then 16x96x64 0.97x, 16x256x32 0.98x, 16x128x64 0.95x; 15x64x64 1.33x,
           15x512x32 1.06x, 15x128x128 1.13x, 15x256x64 1.05x, 15x256x128 1.03x, then 15x512x64
           0.99x, 15x1024x64 0.98x; 14x64x64 1.36x, 14x64x128 1.36x, 14x128x64 1.18x, 14x256x128
           1.07x, 14x512x64 1.05x, 14x256x256 1.03x, 14x1024x64 1.02x, then 14x512x256 0.99x,
           14x2048x64 0.92x, 14x512x512 0.76x (docs/bench/gemm-tuning.md) */
        d->ukr_t_direct = 4096;
        /* 12 rows of B per transposed tile two k steps at a time (24 accumulators: fewer
           transpositions of C per FMA), from k = 64 on: in-process A/B, fastest of 15, against 8
           rows from k = 128 and the 16-wide tile below: 16x512x64 1.03x, 14x256x64 1.03x,
           16x512x96 1.06x, 16x128x64 1.03x, 16x512x128 1.02x, 16x64x64 level; at a 4 KiB-multiple
           stride 8 rows still (set_rows: 16x1024x1024 0.995x with 12) */
        d->ukr_tp_n = SK_GEMM_AVX512_TP_N;
        d->ukr_tp_k = 64;
    }
    /* AMD Zen 4 / Zen 5, Intel Xeon: L1d 32-48 KiB (B micro-panel KC x 32 = 32 KiB, streamed
       against the A micro-panel's 8 KiB; KC 256 is the fastest, docs/bench/gemm-tuning.md), L2
       1-2 MiB (A block MC x KC = 64 KiB: MC 64, 8 row blocks, runs 2-8% faster than 168 and 96
       on the Intel Xeon over several MC blocks), L2 or L3 (B block KC x NC = 1 MiB: NC as the
       AVX2 tier; 1024 = 32 x 32 = 16 x 64: no partial panel at an NC edge). */
    d->kc = 256;
    d->mc = 64;
    d->nc = 1024;
    /* Zen 5: MC 128 (A block 128 KiB), 1.01-1.02x on 1024^3, 2048^3 and 256x1024x1024; 192 and
       256 level with 128, 96 and 64 1-2% slower; KC 192, 384 and 512 and NC 512 2-4% slower.
       NC 2048 (B block 2 MiB; A packed once per k block up to 2048 columns): in-process against
       1024, two builds alternated, fastest of 15: 2048^3 1.01-1.04x (NT 1.01-1.02x),
       64x2048x2048 1.03-1.05x, 128x4096x1024 1.03x, 16x2048x2048 1.02-1.03x, 2048x2048x512
       1.02-1.03x, 1024x1536x1024 1.01-1.02x, 64x2048x64, 16x2048x256, 512x3072x768 level,
       256x2048x512 and 128x1536x256 0.98-1.00x; two threads level on 2048^3. In a noisier
       phase later, 2048^3 0.98-1.03x where 1024^3 (not changed) ran 0.98-1.01x: a gain of 1-2%
       at best, the size of the A packs it saves (docs/bench/gemm-tuning.md) */
    if (features & (SK_CPU_X86_ZEN5 | SK_CPU_X86_SPR)) {
        d->mc = 128;
        d->nc = 2048;
        /* and the B block copied by the first MC block's kernels, as on Zen 5's AVX2 tier (Zen
           5's AVX-512 tier has it from there): Intel Emerald Rapids, in-process against the
           up-front pack (fastest of 21, three runs): 256x1024x1024 1.10-1.11x, 512x2048x512
           1.04x, 1024^3 1.01-1.02x, 2048^3 1.00-1.01x, 128x2048x2048 0.99x (its AVX2 tier level
           on 1024^3, 2048^3, 256x1024x1024) */
        d->b_rows_min = 0;
        /* Intel Emerald Rapids (L2 2 MiB): MC 256, so that up to 256 rows are one MC block (B
           read in place, copied only at a 4 KiB-multiple stride, A in place up to 16 strips).
           The table with one field changed, alternated in one process (fastest of 21, the same
           bits, two runs): 160x1024x1024 1.08-1.10x, 256x512x512 1.03-1.10x, 256x1024x1024
           1.04-1.05x, 256x2048x512 1.08x, 256x4096x1024 1.06-1.09x, 192x512x512 1.03x,
           129x512x512 1.05x, NT 256x512x512 1.04x, NT 256x1024x1024 1.05-1.06x, 768^3 1.03x;
           1024^3 1.00x, 512x512x64 1.00-1.01x, 2048^3 0.99x. MC 384 and 512: 1024^3 0.98x. */
        if (features & SK_CPU_X86_SPR) d->mc = 256;
    }
    /* A packed B (panels of 64, pack_nr) over two MC blocks or more: the 8x32 tile's half of each
       panel row covers half of L1's sets (kc x 32 floats: 16 lines per set where the ways are 8
       to 12), so the first MC block's kernels copy each half into a contiguous panel for the
       others. AMD Zen 5, sk_sgemm_packed in-process against no copy (two builds alternated,
       fastest of 15, the same bits): 1024^3 1.02-1.05x, 2048^3 1.035-1.05x, 256x1024x1024
       1.00-1.02x, 512^3 level; with one row past the first MC block (129x1024x1024) 0.97-1.00x.
       The AVX2 tile's half (16 of 32 floats, one line per row) leaves its sets room: 1024^3 and
       2048^3 1.005-1.012x, 256x1024x1024 0.99x, 144x512x512 0.98-0.99x, not copied there
       (docs/bench/gemm-tuning.md) */
    d->pk_copy_rows = 2 * d->mc;
}

#endif
