/* Internal: the GEMM family.
 *
 * Design (BLIS style): a portable framework in gemm.c blocks for the caches (NC / KC / MC loops),
 * packs op(A) into MR-row micro-panels and op(B) into NR-column micro-panels (absorbing both
 * transposes and any ld), and calls the table's one register-tile micro-kernel, which takes the
 * row count and the strides. Small shapes skip the B packing (NN reads B in place), m == 1 goes to
 * matrix-vector kernels, NT with few rows to a transposed tile, NN with few rows to a wider tile
 * (more accumulators than the few rows of the main tile give). Block sizes and the planner's
 * thresholds are per-ISA fields of the table. The loop nests call the kernels behind the entry
 * for their row blocks' heights (sk_gemm_tiles), resolved once per plan in the direct case (the
 * small products) and once per MC block otherwise. */
#ifndef SK_GEMM_H
#define SK_GEMM_H

#include <stddef.h>
#include <stdint.h>
#include "simdkern.h"
#include "pool.h"

/* The micro-kernel: an r x NR tile of C (1 <= r <= mr),
 *   C[i][j] = alpha * sum_p A(i,p) B(p,j) + beta * C[i][j]   (beta == 0: C not read)
 * with A(i,p) = a[i*rsa + p*csa]: a packed micro-panel (rsa = 1, csa = mr), the rows of A in place
 * (rsa = lda, csa = 1) or op(A) = A^T in place (rsa = 1, csa = lda); B(p,j) = b[p*rsb + j] with
 * j < NR read whole: a packed micro-panel (rsb = NR) or B in place. bp non-NULL (B in place): the
 * NR columns of B it reads are also stored to the packed micro-panel bp[p*NR + j], which the row
 * blocks after it read from L1. pf non-NULL (B packed): a hint, the rows pf[p*pfs + 0..NR) for
 * p < k, which the tile may fetch into L2 as it goes, one row per k step (a later panel of an
 * in-place B, during the row blocks that read only the copy of this one); it never reads them.
 * k >= 1. The per-row-count and per-layout specialisations are the ISA file's business. */
typedef void (*sk_gemm_ukr_fn)(size_t r, size_t k, const float *a, size_t rsa, size_t csa,
                               const float *b, size_t rsb, float *c, size_t ldc, float alpha,
                               float beta, float *bp, const float *pf, size_t pfs);

/* The r-row kernels behind a micro-kernel entry, one per layout and row count, each the entry's
 * call with that layout and r fixed (bitwise the same results): A by columns, A(i,p) = a[i + p*s]
 * (s = csa, rsa = 1), or the rows of A in place, a[i*s + p] (s = rsa, csa = 1); B packed or in
 * place, copied to bp or not. A plan resolves the kernels its loops call once (one indirect call
 * per tile, not the entry's two). by[layout][r - 1], NULL past the entry's rows. */
typedef void (*sk_gemm_tile_fn)(size_t k, const float *a, size_t s, const float *b, size_t rsb,
                                float *c, size_t ldc, float alpha, float beta, float *bp,
                                const float *pf, size_t pfs);
#define SK_GEMM_MR_MAX 16
enum { SK_GEMM_TILE_COLS, SK_GEMM_TILE_ROWS, SK_GEMM_TILE_COLS_COPY, SK_GEMM_TILE_ROWS_COPY };
typedef struct sk_gemm_tiles {
    sk_gemm_tile_fn by[4][SK_GEMM_MR_MAX];
} sk_gemm_tiles;

/* m == 1: c[j] = alpha * sum_p a[p] B(p,j) + beta * c[j] for j < n (beta == 0: c not read), with
 * B(p,j) = b[p*ldb + j] (gemv_n) or b[j*ldb + p] (gemv_t). a contiguous; n, k >= 1. */
typedef void (*sk_gemv_fn)(size_t n, size_t k, float alpha, const float *a, const float *b,
                           size_t ldb, float beta, float *c);

/* NN with a few rows (1 <= m <= rows_group), op(A)(i,p) = a[i*rsa + p*csa]:
 *   C[i*ldc + j] = alpha * sum_p op(A)(i,p) b[p*ldb + j] + beta * C[i*ldc + j]
 * for i < m, j < n (beta == 0: C not read). n, k >= 1. */
typedef void (*sk_gemm_rows_fn)(size_t m, size_t n, size_t k, float alpha, const float *a,
                                size_t rsa, size_t csa, const float *b, size_t ldb, float beta,
                                float *c, size_t ldc);

/* NT with a few rows of A in place (m <= dot_group): dot products of contiguous rows,
 *   C[i*ldc + j] = alpha * sum_p a[i*lda + p] b[j*ldb + p] + beta * C[i*ldc + j]
 * for i < m, j < n (beta == 0: C not read). m, n, k >= 1. */
typedef void (*sk_gemm_dot_fn)(size_t m, size_t n, size_t k, float alpha, const float *a,
                               size_t lda, const float *b, size_t ldb, float beta, float *c,
                               size_t ldc);

/* Transposed-tile kernel for NT with few rows, C^T = B op(A)^T with the rows of B read in place:
 * for q < r (1 <= r <= ukr_t_n) and i < w (w <= ukr_t_m),
 *   C[i*ldc + q] = alpha * sum_p a[q*rsa + p] b[p*rsb + i] + beta * C[i*ldc + q]
 * (beta == 0: C not read); b[p*rsb + 0..ukr_t_m-1] readable (packed op(A)^T). k >= 1. room: the
 * columns C[i*ldc + 0..room-1] may be written (later tiles overwrite those past r): with beta == 0
 * a kernel may store whole vectors past its r columns there. */
typedef void (*sk_gemm_ukr_t_fn)(size_t r, size_t k, const float *a, size_t rsa, const float *b,
                                 size_t rsb, size_t w, float *c, size_t ldc, size_t room,
                                 float alpha, float beta);

/* Transposing pack, behind op(B) = B^T panels and op(A) = A panels: dst[p*ld + j] = src[j*lds + p]
 * for j < w, p < kc; w <= ld; the columns w..ld-1 of dst may be written too. */
typedef void (*sk_gemm_pack_fn)(size_t w, size_t kc, const float *src, size_t lds, float *dst,
                                size_t ld);

typedef struct sk_gemm_dsp {
    sk_gemm_ukr_fn ukr;                 /* the r x nr tile; NULL: sk_sgemm_ref, unblocked */
    const sk_gemm_tiles *tiles;         /* ukr's r-row kernels (with ukr) */
    sk_gemm_ukr_fn ukr_w;               /* the wide tile, r x w_nr (r <= w_mr): NN with few rows
                                           (more accumulators), see w_few; NULL: none */
    const sk_gemm_tiles *tiles_w;       /* ukr_w's r-row kernels (with ukr_w) */
    sk_gemm_ukr_t_fn ukr_t;             /* the transposed tile; NULL: none */
    sk_gemm_ukr_t_fn ukr_tp;            /* the same contract with r <= ukr_tp_n, w <= ukr_t_lane,
                                           two k steps of op(A)^T at a time (more accumulators
                                           and fewer loads per FMA); NULL: none */
    sk_gemv_fn gemv_n, gemv_t;          /* m == 1; NULL: the blocked path */
    sk_gemm_dot_fn dot;                 /* NT, op(A) = A, 1 <= m <= dot_group; NULL: none */
    sk_gemm_rows_fn rows_n;             /* NN, 1 <= m <= rows_group, B streamed by rows into C's
                                           rows held in L1 (the planner's rows_span); NULL: none */
    sk_gemm_ukr_fn ukr_tcp;             /* ukr's mr x nr tile over op(B) = B^T read in place,
                                           B(p,j) = b[j*rsb + p], storing it to the packed panel
                                           bp[p*nr + j] as it goes (bp required): the
                                           transposition beside the FMAs; NULL: the panel packed by
                                           pack_t first */
    const sk_gemm_tiles *tiles_tcp;     /* ukr_tcp's r-row kernels, A by columns or its rows in
                                           place (with ukr_tcp) */
    sk_gemm_pack_fn pack_t;             /* the transposing pack */
    unsigned mr, nr;                    /* register tile */
    unsigned mr_rest_min;               /* an MC block's rows past its full mr-row blocks run as a
                                           block of their own only from this many rows (and 2/3
                                           of mr); fewer: near-equal blocks (gemm.c, split_rows;
                                           0: from 2/3 of mr) */
    unsigned w_mr, w_nr;                /* the wide tile (w_nr <= 64) */
    unsigned w_few, w_many, w_set_max;  /* NN on the wide tile: m <= w_few over any n; over whole
                                           w_nr panels m <= w_mr, and w_many <= m <= mc (w_many 0:
                                           never), m <= w_set_max of them at a B row stride that
                                           is a multiple of w_set_stride (gemm.c, plan_wide) */
    unsigned w_set_stride;              /* ... (0: set_stride) */
    unsigned w_span_max;                /* ... and from w_many rows only over a B of at most this
                                           many floats, k x ldb (0: any) */
    unsigned w_part_max;                /* ... and w_many <= m <= w_part_max rows over any n (a
                                           partial last panel) too (0: none) */
    unsigned w_blocks_span;             /* ... and from w_many rows over several MC blocks too,
                                           with one k block (k <= kc) and a B of at most this
                                           many floats (k x ldb), not at a w_set_stride multiple
                                           (0: never) */
    unsigned w_ldb_min;                 /* ukr_w only for B rows at least this many floats apart
                                           (0: any) */
    unsigned pack_nr;                   /* a packed B's panel width (sk_gemm_pack_b), a multiple of
                                           nr: the tile reads its nr-wide parts; m == 1 runs
                                           gemv_n on one panel at a time, whose accumulators nr
                                           columns alone may leave too few (AVX2: 2 for 16);
                                           pack_nr == w_nr: m <= w_few rows run ukr_w over whole
                                           panels */
    unsigned pk_copy_rows;              /* a packed B read by the tile in nr-wide parts of wider
                                           panels (pack_nr > nr), over several MC blocks: from this
                                           many rows of C on, the first MC block's kernels copy
                                           each whole part they read into a contiguous kc x nr
                                           panel, which the later MC blocks read (gemm.c,
                                           packed_copies; 0: never) */
    unsigned mc, kc, nc;                /* cache blocks: A block mc x kc (L2), B block kc x nc (L3),
                                           B micro-panel kc x nr (L1) */
    unsigned ukr_t_m, ukr_t_n;          /* ukr_t: at most C rows (lanes) x C columns per call */
    unsigned ukr_t_lane;                /* op(A)^T is packed in groups of ukr_t_m rows of op(A),
                                           the last one's lanes a multiple of ukr_t_lane (zero
                                           past m): ukr_t's w and rsb */
    unsigned ukr_t_min, ukr_t_max;      /* NT with ukr_t_min <= m <= ukr_t_max: transposed tiles
                                           (m > ukr_t_m: a call per group and row of tiles); with
                                           fewer rows the lanes left empty cost more than the
                                           blocked path's pack of B */
    unsigned ukr_t_span;                /* ... with m + 2 < ukr_t_lane only when op(B) spans
                                           n k >= (ukr_t_lane - m - 2) ukr_t_span floats (0:
                                           always): below, B's pack costs less than the lanes */
    unsigned ukr_t_direct;              /* ... and, with ukr_t_lane - 2 <= m <= ukr_t_lane, where
                                           the blocked path runs its direct case with ukr_tcp,
                                           only when op(B) spans n k > ukr_t_direct 4^(ukr_t_lane
                                           - m) floats (0: always): below, the transposition of
                                           B beside the first row block's FMAs costs less than
                                           that of C */
    unsigned ukr_t_k_rows, ukr_t_fill;  /* ... past ukr_t_lane rows only when k >= ukr_t_k_rows m
                                           (C's transposition, per element, against B's pack per
                                           row of A) and the last group of rows fills at least
                                           ukr_t_fill quarters of its lanes */
    unsigned kc_t;                      /* ukr_t's k block for ukr_t_m lanes: op(A)^T packed
                                           kc_t x ukr_t_m (L2), each row of B read kc_t floats at
                                           a time; with more lanes, kc_t ukr_t_m / lanes */
    unsigned ukr_tp_n, ukr_tp_k;        /* ukr_tp: rows of B per call; NT on transposed tiles
                                           with m <= ukr_t_lane and k >= ukr_tp_k runs on it */
    unsigned ukr_tp_min, ukr_tp_min_k;  /* ... and takes ukr_tp_min <= m < ukr_t_min rows to
                                           transposed tiles too when k >= ukr_tp_min_k (the
                                           span rule of ukr_t_span still applies) */
    unsigned dot_rows, dot_few;         /* NT with op(A) = A on dot: up to dot_few rows at any
                                           k, up to dot_rows only with dot_k_min <= k <=
                                           dot_k_max, op(B) spanning n k <= dot_span floats
                                           (op(A)'s rows reread from L1 for every few rows of B;
                                           B read once per group of the kernel's rows) and where
                                           the transposed tiles would fill less than dot_t_fill
                                           sixteenths of their lanes */
    unsigned dot_k_min, dot_k_max, dot_span, dot_t_fill;
    unsigned dot_group;                 /* rows per call of dot (more: calls on near-equal groups
                                           of rows, a pass over B each) */
    unsigned dot_group_many;            /* ... past dot_few rows at most this many per call (0:
                                           dot_group) */
    unsigned rows_max, rows_group;      /* NN rows on rows_n, and per call of it (more: calls on
                                           near-equal groups of rows, a pass over B each) */
    unsigned rows_group_many;           /* ... past rows_few rows at most this many per call (0:
                                           rows_group) */
    unsigned rows_span, rows_span_max;  /* rows_n's planner thresholds, floats of B (k x ldb),
                                           and rows_edge (1: rows_n for partial wide panels
                                           too): gemm.c, plan_rows */
    unsigned rows_edge;
    unsigned rows_span3;                /* from 3 rows, rows_span in the rule for a few rows at
                                           strides off set_stride ((m - 1) rows_span3 floats of
                                           B; 0: rows_span) */
    unsigned rows_few;                  /* plan_rows' rule for a few rows up to this many (at
                                           most rows_group); past it, its rule for groups */
    unsigned rows_half_max, rows_half_span; /* ... past rows_few rows also at B row strides
                                           that are multiples of set_stride / 2 (rows in two
                                           L1 sets), up to rows_half_max rows (0: never)
                                           and from rows_half_span floats of B (0: any B) */
    /* the planner's thresholds (floats, rows, blocks):
       set_stride  row strides that are multiples of this map every row to one L1 set
       set_rows    rows at such a stride, walked side by side, that stay in L1: A read in place
                   at such a stride only when mr <= set_rows (and not transposed); a transposed
                   tile walks at most set_rows rows of B at such a stride
       b_alias     NN: B row strides that are multiples of this are packed in a pass of their own,
                   not read in place by the kernels (0: any stride)
       b_span_min  NN with one MC block on the main tile (the wide tile's one row block reads B
                   once: in place): a B that spans at least this many floats (k x ldb) is
                   packed row by row, a kc x nc block at a time, in a pass of its own, not read
                   in place (0: never): past the TLB's reach, B's rows at a 4 KiB-multiple
                   stride, read down a panel, each cost a page walk
       b_rows_min  NN over several MC blocks: a kc x nc block of B of at least this many floats
                   is packed row by row in a pass of its own (0: never); a smaller one is copied
                   by the first MC block's kernels as they read it in place
       cp_min, cp_stride, cp_blocks  an in-place B panel is copied by the first row block's
                   kernel for the others when at least cp_blocks row blocks read it and k x n
                   exceeds cp_min or ldb is a multiple of cp_stride
       cp_ldb_min  and only when ldb is at least this (0: any stride)
       cp_blocks_set  the same from this many row blocks on when ldb is a multiple of set_stride
                   (each row block reading the panel in place again would find it in L2 at best)
       direct_a_strips  over several MC blocks, A is read in place (not packed) when n spans at
                   most this many NR strips: too few reuses of A to pay for its packing
       copy_packs_a  1: with an in-place B panel copied (copy_b), A at a set_stride multiple is
                   packed, not read in place: its rows would share L1 sets that the copy already
                   fills (0: A as without the copy)
       line_floats  a cache line
       a_prefetch  1: over several MC blocks, the next A block is prefetched into L2 line by line,
                   a slice per B panel, while the current one runs (0: left to the hardware) */
    unsigned set_stride, set_rows, b_alias, b_span_min, b_rows_min, cp_min, cp_stride, cp_blocks;
    unsigned cp_blocks_set, cp_ldb_min, direct_a_strips, copy_packs_a, line_floats, a_prefetch;
    /* B off a cache line (gemm.c, realign_cols): NN with 2..mc rows whose op(B) = B starts a
       number of floats past a line boundary that is not a multiple of realign_floats (the
       kernels' vector; a power of 2, 0: never), at a row stride that is a multiple of
       line_floats (every row as far off), over a B of at least realign_span floats (k x ldb),
       runs the columns before the next boundary as a call of their own when at least
       realign_rows_n columns follow them on the rows_n path, realign_n on the blocked path (0:
       never on that path); the rest of the call then reads whole lines of B */
    unsigned realign_n, realign_rows_n, realign_span, realign_floats;
    /* the partition over a thread pool:
       gemv_group  columns per unit of the m == 1 and dot paths (a multiple of the matrix-vector
                   and dot kernels' column groups; at most SK_GEMV_GROUP_MAX)
       tp_min_flops, tp_min_flops_row  flops per task below which fewer tasks run (a pool's wake-up
                   costs more than it saves), blocked and transposed paths / m == 1 and dot */
    unsigned gemv_group, tp_min_flops, tp_min_flops_row;
    /* m == 1 with op(B) = B of at least gemv_k_min floats: the sum over k in chunks of at least
       gemv_k_rows rows of B (0: never), summed apart and added in order, on one thread as on a
       pool (gemm.c, row_chunks); gemv_span: gemv_n reads a B that spans at most this many floats
       (k x ldb) in another order (0: none), and a chunk of a larger B spans more */
    unsigned gemv_k_rows, gemv_k_min, gemv_span;
} sk_gemm_dsp;

#define SK_GEMV_GROUP_MAX 256

/* The floats of B per row of C past the first in plan_rows' rule for m (2 <= m <= rows_few) rows
   at strides off set_stride: rows_span3 from 3 rows where the table sets it, else rows_span. */
static inline unsigned sk_gemm_rows_span_of(const sk_gemm_dsp *d, size_t m)
{
    return m > 2 && d->rows_span3 ? d->rows_span3 : d->rows_span;
}

/* Fills d with the scalar table (kernels/scalar/gemm_ref.c): the framework with the portable
   micro-kernel and rows_n and small blocks (every block edge within reach of small tests), no
   matrix-vector, dot or transposed-tile kernels. sk_gemm_dsp_init starts from it. */
void sk_gemm_dsp_init_ref(sk_gemm_dsp *d);

/* The table of isa; features (sk_cpu_detect's SK_CPU_* bits) select per-microarchitecture
   values of its fields. */
void sk_gemm_dsp_init(sk_gemm_dsp *d, sk_isa isa, uint64_t features);

/* The portable reference (kernels/scalar/gemm_ref.c): each C element is a float sum over p in
 * order, then alpha * s + beta * c; deterministic in every build. */
void sk_sgemm_ref(sk_trans ta, sk_trans tb, size_t m, size_t n, size_t k, float alpha,
                  const float *a, size_t lda, const float *b, size_t ldb, float beta,
                  float *c, size_t ldc);

/* The scalar table's micro-kernel (kernels/scalar/gemm_ref.c): an r x SK_GEMM_REF_NR tile,
 * r <= SK_GEMM_REF_MR, each element a float sum over p in order. */
#define SK_GEMM_REF_MR 4
#define SK_GEMM_REF_NR 8
void sk_gemm_ukr_ref(size_t r, size_t k, const float *a, size_t rsa, size_t csa, const float *b,
                     size_t rsb, float *c, size_t ldc, float alpha, float beta, float *bp,
                     const float *pf, size_t pfs);
extern const sk_gemm_tiles sk_gemm_tiles_ref; /* its r-row kernels */
/* The portable rows_n (see sk_gemm_rows_fn), m <= SK_GEMM_REF_MR. */
void sk_gemm_rows_ref(size_t m, size_t n, size_t k, float alpha, const float *a, size_t rsa,
                      size_t csa, const float *b, size_t ldb, float beta, float *c, size_t ldc);
/* The portable transposing pack (see sk_gemm_pack_fn). */
void sk_gemm_pack_t_ref(size_t w, size_t kc, const float *src, size_t lds, float *dst, size_t ld);

/* ---- the plan of a call (gemm.c) ----
 * Everything the loop nests decide, made from the shape (ta, tb, m, n, k, lda, ldb) and the
 * table's fields only, before any of them runs. */

/* The code path of a problem (m, n, k >= 1, alpha != 0). */
enum gemm_path {
    PATH_REF,     /* no micro-kernel: sk_sgemm_ref */
    PATH_ROW,     /* m == 1: the matrix-vector kernels */
    PATH_DOT,     /* NT, op(A) = A, m <= dot_rows (plan_dot): dot products of the rows of A and B */
    PATH_ROWS,    /* NN, m <= rows_max, a large B: B streamed by rows into C's rows in L1 */
    PATH_NT_ROWS, /* NT, m <= ukr_t_max: C^T = B op(A)^T by transposed tiles, B's rows in place */
    PATH_BLOCKED, /* the blocked loop nest */
    PATH_WIDE     /* NN, ldb >= w_ldb_min, m <= w_few (more over whole panels: plan_wide): the
                     blocked loop nest on the wide tile */
};

/* Where the blocked path's kernels read op(B) from, per kc x nc block of B. */
enum gemm_b_source {
    B_IN_PLACE,     /* NN, one MC block: the full panels read in place (the kernels prefetch B's
                       rows), the last, partial panel packed right before use */
    B_PANEL,        /* NT, one MC block: each panel packed right before use */
    B_BLOCK_ROWS,   /* NN, B at a stride the table keeps from its kernels (b_alias), a B that
                       spans more than the TLB reaches (b_span_min), or a large block over
                       several MC blocks (b_rows_min): the whole block packed up front, row by
                       row (B streams in order) */
    B_BLOCK_PANELS, /* NT over several MC blocks: the whole block packed up front */
    B_BLOCK_FUSED   /* NN over several MC blocks otherwise: the whole block packed by the first
                       MC block's first row block, whose kernels store each full panel as they
                       read it in place (partial panels: packed right before use) */
};

/* The row blocks of an MC block: `count` blocks, the first `first` of them `hi` rows tall, the
   others `lo`. */
typedef struct row_split {
    size_t count, first, hi, lo;
} row_split;

typedef struct gemm_plan {
    enum gemm_path path;
    size_t kc;             /* k block: k cut into equal blocks of at most the table's kc */
    size_t buf_floats;     /* packing buffer */
    /* PATH_NT_ROWS */
    size_t t_rows;         /* rows of B per transposed tile */
    size_t t_lanes;        /* lanes of packed op(A)^T (plan_t_lanes) */
    int t_pair;            /* the table's ukr_tp instead of ukr_t (one group of lanes) */
    /* PATH_BLOCKED, PATH_WIDE */
    sk_gemm_ukr_fn ukr;    /* the register tile: ukr, mr x nr */
    size_t mr, nr;
    const sk_gemm_tiles *tiles;       /* ukr's r-row kernels */
    sk_gemm_tile_fn tile_hi, tile_lo; /* direct: ukr's kernels for the rows_last blocks of hi and
                                         lo rows of A in place */
    sk_gemm_tile_fn tile_tcp;         /* direct, op(B) = B^T with ukr_tcp: its kernel for the
                                         first row block */
    enum gemm_b_source b;
    int copy_b;            /* B_IN_PLACE: the first row block's kernel stores each full panel it
                              reads, and the other row blocks read that copy (from L1) */
    int direct_a;          /* A read in place (its rows, or op(A) = A^T by columns), not packed */
    int direct;            /* one block of every kind (m <= mc, n <= nc, k <= kc), the rows of A
                              read in place, B's panels full (n a multiple of nr) and read in
                              place without a copy, or (NT) each packed right before use:
                              run_direct */
    size_t rsa, csa;       /* the kernels' A(i,p) = a[i*rsa + p*csa] */
    size_t a_floats;       /* the A block's part of the buffer (B's follows) */
    row_split rows_full;   /* row blocks of a full MC block */
    row_split rows_last;   /* row blocks of the last MC block (the only one when m <= mc) */
} gemm_plan;

/* Unchecked GEMM through table d (same semantics as sk_sgemm); for other families (attention).
 * Any sizes (m, n or k may be 0); never allocates on small shapes after a thread's first call. */
void sk_gemm_run(const sk_gemm_dsp *d, sk_trans ta, sk_trans tb, size_t m, size_t n, size_t k,
                 float alpha, const float *a, size_t lda, const float *b, size_t ldb, float beta,
                 float *c, size_t ldc);

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

/* A call of one shape planned once (sk_sgemm_plan): its arguments but the operands, what it does
 * (beta C alone when k == 0 or alpha == 0, as sk_gemm_run) and the plan it runs. Made by
 * sk_gemm_prepare (any sizes, strides as sk_gemm_run takes them); sk_gemm_run_prepared_tp then
 * runs it on a, b and c, bitwise identical to sk_gemm_run_tp with the same arguments (without a
 * pool: the same kernels on the same blocks, the planning skipped). */
enum sk_gemm_work { SK_GEMM_NOTHING, SK_GEMM_SCALE_C, SK_GEMM_PRODUCT };
typedef struct sk_gemm_prepared {
    const sk_gemm_dsp *d;
    sk_trans ta, tb;
    enum sk_gemm_work work;
    size_t m, n, k, lda, ldb, ldc;
    float alpha, beta;
    gemm_plan plan; /* work == SK_GEMM_PRODUCT */
} sk_gemm_prepared;
void sk_gemm_prepare(const sk_gemm_dsp *d, sk_trans ta, sk_trans tb, size_t m, size_t n, size_t k,
                     float alpha, size_t lda, size_t ldb, float beta, size_t ldc,
                     sk_gemm_prepared *g);
void sk_gemm_run_prepared_tp(const sk_threadpool *tp, const sk_gemm_prepared *g, const float *a,
                             const float *b, float *c);

/* op(B) packed once (sk_sgemm_pack_b): panels of the table's pack_nr (PW) columns, panel q
 * holding columns [q PW, q PW + PW) of op(B) as k rows of PW floats, pb[q k PW + p PW + j] =
 * op(B)(p, q PW + j), zero past column n. The floats of such a B (0 when it overflows size_t or
 * exceeds the largest operand, SK_ELEMS_MAX, less the 16 floats of a header): */
size_t sk_gemm_packed_floats(const sk_gemm_dsp *d, size_t k, size_t n);
/* Pack op(B) (k x n, k, n >= 1) into pb (sk_gemm_packed_floats(d, k, n) floats). */
void sk_gemm_pack_b(const sk_gemm_dsp *d, sk_trans tb, size_t k, size_t n, const float *b,
                    size_t ldb, float *pb);
/* C = alpha op(A) op(B) + beta C from such a pb, unchecked, any sizes (as sk_gemm_run); bias
 * NULL, or n floats added to every row of C, which is then not read (as sk_gemm_run_bias: each
 * tile of C starts as the bias). On the caller's pool tp (NULL: on this thread), bitwise
 * identical to the call without one. */
void sk_gemm_run_packed_bias_tp(const sk_threadpool *tp, const sk_gemm_dsp *d, sk_trans ta,
                                size_t m, size_t n, size_t k, float alpha, const float *a,
                                size_t lda, const float *pb, float beta, const float *bias,
                                float *c, size_t ldc);
static inline void sk_gemm_run_packed_tp(const sk_threadpool *tp, const sk_gemm_dsp *d,
                                         sk_trans ta, size_t m, size_t n, size_t k, float alpha,
                                         const float *a, size_t lda, const float *pb, float beta,
                                         float *c, size_t ldc)
{
    sk_gemm_run_packed_bias_tp(tp, d, ta, m, n, k, alpha, a, lda, pb, beta, NULL, c, ldc);
}
/* A B packed once and the table that packed it (pb NULL: none). */
typedef struct sk_gemm_packed_b {
    const sk_gemm_dsp *d;
    const float *pb;
} sk_gemm_packed_b;

/* sk_gemm_run on the caller's pool tp (NULL: on this thread), bitwise identical to it (the
 * partition in gemm.c). A pool of one thread goes straight to sk_gemm_run: the two calls of 15
 * arguments in between were 3% of a 32 x 32 x 32 call. */
static inline void sk_gemm_run_tp(const sk_threadpool *tp, const sk_gemm_dsp *d, sk_trans ta,
                                  sk_trans tb, size_t m, size_t n, size_t k, float alpha,
                                  const float *a, size_t lda, const float *b, size_t ldb,
                                  float beta, float *c, size_t ldc)
{
    if (sk_tp_threads(tp) == 1)
        sk_gemm_run(d, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    else
        sk_gemm_run_bias_tp(tp, d, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, NULL, c, ldc);
}

#endif
