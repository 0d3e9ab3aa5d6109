/* GEMM: the portable BLIS-style framework and the table init (sk_sgemm and its checks: lib.c).
 *
 * C[m x n] = alpha op(A)[m x k] op(B)[k x n] + beta C, row-major. A call is planned, then run:
 * the planner (plan_path, plan_make) picks the path and every blocking and packing choice from
 * the shape and the table's fields alone (tile and block sizes, thresholds: no machine constant
 * here); one loop nest per path runs the plan.
 * Paths: m == 1 goes to the matrix-vector kernels, NT with few rows (plan_dot) to the dot kernel,
 * NN with 2..rows_max rows over a large B (plan_rows) to rows_n (B's rows streamed into C's rows),
 * NT with m <= ukr_t_max to transposed tiles (C^T = B op(A)^T, B's rows in place, k in blocks of at
 * most kc_t), NN with few rows or over whole wide panels (plan_wide) and B's rows at least
 * w_ldb_min apart to the blocked loop nest on the table's wide tile ukr_w (w_mr x w_nr), the rest
 * to the blocked loop nest (run_blocked: NC / k block / MC / NR / row-block loops around the
 * table's micro-kernel). Both transposes and any ld are absorbed by the packing (the table's
 * transposing pack_t).
 * Blocked: k is cut into equal blocks of at most kc; rows of an MC block are split into full
 * MR-row blocks and the rest when the rest is at least 2/3 of MR and, on the main tile, at least
 * the table's mr_rest_min rows (14 = 8 + 6), else into near-equal row blocks (8 = 4 + 4 rather
 * than 6 + 2; 16 = 6 + 5 + 5 on the AVX2 tile); columns past n in the last B panel are zero and
 * that tile goes through a stack tile.
 * B: NN with one MC block reads B in place (the kernels prefetch its rows), and the first row
 * block's kernel also stores the panel it reads to a packed panel, which the other row blocks
 * read from L1 (rows at a stride of cp_stride share a few L1 sets: read in place again, they would
 * come from L2 each time); the second row block's kernel fetches the panel after the next one into
 * L2 as it reads the copy (the first one's may fetch the next), so that B arrives during both.
 * NN over several MC blocks packs the B block either the same way, in the first MC block's
 * kernels, or, from a size on (b_rows_min), row by row in a pass of its own (B then streams in
 * order, not at its stride under the first block's kernels). A table may keep
 * some B strides (b_alias) away from its kernels, and a B too large for the TLB's reach
 * (b_span_min) from in-place reads: B is then packed row by row up front too.
 * NT with one MC block packs each B panel right before use, NT over several MC blocks the whole B
 * block up front.
 * A: when m fits one MC block (or few NR strips reuse A), A is read in place (its rows, or op(A) =
 * A^T by columns) unless its row stride would pile the rows into one L1 set; else each MC block is
 * packed, and the next MC block is prefetched into L2 a slice per B panel while the current one
 * runs.
 * Packing buffers are per thread (tbuf.h), grown on demand, freed at thread exit (pthread key
 * destructor; atexit for the thread that calls exit); if they cannot be allocated the reference
 * path runs instead. */
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "gemm.h"
#include "common.h"
#include "pool.h"
#include "tbuf.h"
#if SK_HAVE_AVX2
#include "x86/gemm.h"
#elif SK_HAVE_NEON
#include "arm/gemm.h"
#endif


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

/* --- packing ---------------------------------------------------------------------------------- */

/* d[0..n) = s[0..n): short rows (one micro-panel row), no call into memcpy. */
static inline void copy_row(float *d, const float *s, size_t n)
{
    for (size_t j = 0; j < n; j++) d[j] = s[j];
}

/* Rows [0, r) x cols [0, kc) of op(A) (already offset) into a micro-panel dst[p*MR + i]. */
static void pack_a(const sk_gemm_dsp *d, sk_trans ta, size_t r, size_t kc, const float *a,
                   size_t lda, float *dst, size_t MR)
{
    if (ta) /* A(i,p) = a[p*lda + i] */
        for (size_t p = 0; p < kc; p++) copy_row(dst + p * MR, a + p * lda, r);
    else /* A(i,p) = a[i*lda + p] */
        d->pack_t(r, kc, a, lda, dst, MR);
}

/* Cols [0, nr) x rows [0, kc) of op(B) (already offset) into a micro-panel dst[p*NR + j], zero for
   nr <= j < NR. */
static void pack_b(const sk_gemm_dsp *d, sk_trans tb, size_t nr, size_t kc, const float *b,
                   size_t ldb, float *dst, size_t NR)
{
    if (!tb) { /* B(p,j) = b[p*ldb + j] */
        for (size_t p = 0; p < kc; p++) {
            copy_row(dst + p * NR, b + p * ldb, nr);
            for (size_t j = nr; j < NR; j++) dst[p * NR + j] = 0.f;
        }
        return;
    }
    d->pack_t(nr, kc, b, ldb, dst, NR); /* B(p,j) = b[j*ldb + p] */
    if (nr < NR)
        for (size_t p = 0; p < kc; p++)
            for (size_t j = nr; j < NR; j++) dst[p * NR + j] = 0.f;
}

/* --- the plan (its types: gemm.h) ----------------------------------------------------------- */

/* a / b and a % b (b > 0) as a shift and a mask when b is a power of two, as most table values
   are (tiles, strides, blocks): the planner's divisions were about 6% of a 32 x 32 x 32 call. */
static inline size_t udiv(size_t a, size_t b)
{
    return (b & (b - 1)) == 0 ? a >> __builtin_ctzll((unsigned long long)b) : a / b;
}
static inline size_t umod(size_t a, size_t b)
{
    return (b & (b - 1)) == 0 ? a & (b - 1) : a % b;
}
static size_t cdiv(size_t a, size_t b) { return udiv(a + b - 1, b); }

/* The shape of the blocked path's direct case on a tile of NR columns: op(A) = A, one MC block,
   one NC block, one k block, whole panels (plan_make adds what A's and B's sources need). */
static int direct_shape(const sk_gemm_dsp *d, sk_trans ta, size_t m, size_t n, size_t k,
                        size_t NR)
{
    return !ta && m <= d->mc && n <= d->nc && k <= d->kc && umod(n, NR) == 0;
}

/* Lanes of op(A)^T packed for the transposed tiles: groups of ukr_t_m rows of op(A), the last
   one rounded up to a multiple of ukr_t_lane. */
static size_t plan_t_lanes(const sk_gemm_dsp *d, size_t m)
{
    const size_t W = d->ukr_t_m, full = udiv(m - 1, W) * W;
    return full + cdiv(m - full, d->ukr_t_lane) * d->ukr_t_lane;
}

/* The transposed tiles two k steps at a time (ukr_tp): one group of lanes, k long enough. */
static int plan_t_pair(const sk_gemm_dsp *d, size_t m, size_t k)
{
    return d->ukr_tp && m <= d->ukr_t_lane && k >= d->ukr_tp_k;
}

/* NT on transposed tiles: ukr_t_min <= m <= ukr_t_max (on ukr_tp from ukr_tp_min rows when k >=
   ukr_tp_min_k); with three or more of ukr_t_lane lanes empty, op(B) spanning n k >= (empty
   lanes - 2) ukr_t_span floats (B's pack in the blocked path is cheap while B is small and has
   few rows); past ukr_t_lane rows, k long enough (C's transposition is per element of C, B's
   pack in the blocked path per row of A) and op(A)^T's last group of rows filling enough of its
   lanes. With at most two lanes empty, where the blocked path would run its direct case and
   transpose B beside its first row block's FMAs (ukr_tcp, op(A) = A), only for op(B) spanning
   n k > ukr_t_direct 4^(empty lanes) floats. */
static int t_tiles_fit(const sk_gemm_dsp *d, sk_trans ta, size_t m, size_t n, size_t k)
{
    const int few = m < d->ukr_t_min; /* only on ukr_tp, with a long k */
    if (!d->ukr_t || m > d->ukr_t_max) return 0;
    if (few && !(plan_t_pair(d, m, k) && m >= d->ukr_tp_min && k >= d->ukr_tp_min_k)) return 0;
    if (d->ukr_t_direct && d->ukr_tcp && m <= d->ukr_t_lane && m + 2 >= d->ukr_t_lane &&
        direct_shape(d, ta, m, n, k, d->nr) &&
        n <= ((size_t)d->ukr_t_direct << 2 * (d->ukr_t_lane - m)) / k)
        return 0;
    if (m + 2 < d->ukr_t_lane && d->ukr_t_span) /* lanes left empty: only for a large op(B) */
        return n >= ((d->ukr_t_lane - m - 2) * (size_t)d->ukr_t_span + k - 1) / k;
    if (m <= d->ukr_t_lane) return 1;
    const size_t full = udiv(m - 1, d->ukr_t_m) * d->ukr_t_m;
    return k >= (size_t)d->ukr_t_k_rows * m &&
           4 * (m - full) >= d->ukr_t_fill * (plan_t_lanes(d, m) - full);
}

/* NN with 2..rows_max rows on rows_n: B's rows streamed whole where the wide tile would walk B down
   its w_nr-column panels at B's row stride. Not for a B past rows_span_max / (m - 2) floats (k x
   ldb; two rows: any), from DRAM, where the wide tile's column walk keeps up; otherwise for partial
   wide panels (n not a multiple of w_nr: the tile's edge goes through a stack tile), for a B of at
   least (m - 1) rows_span floats (from 3 rows (m - 1) rows_span3 where the table sets it; past L2
   the tile's column walk waits on B), and at set_stride multiples from rows_span floats on (its
   rows share the ways of one L1 set). Past rows_few rows (rows_n then passes over B once per group
   of at most rows_group rows) only that last case, for a B of at most rows_span_max / 4 floats,
   and where the tiles would take more than one row block (m > mr: the later ones read B again at
   its stride; one row block reads it once, as rows_n); up to rows_half_max rows also at multiples
   of set_stride / 2 from rows_half_span floats on. */
static int plan_rows(const sk_gemm_dsp *d, sk_trans tb, size_t m, size_t n, size_t k, size_t ldb)
{
    if (tb || m < 2 || m > d->rows_max || !d->rows_n) return 0;
    const double span = (double)k * (double)ldb;
    if (m > d->rows_few) {
        if (m <= d->mr || span > (double)d->rows_span_max / 4) return 0;
        if (umod(ldb, d->set_stride) == 0) return span >= d->rows_span;
        return m <= d->rows_half_max && umod(ldb, d->set_stride / 2) == 0 &&
               span >= d->rows_half_span;
    }
    if (m > 2 && span > (double)d->rows_span_max / (double)(m - 2)) return 0;
    const double rs = sk_gemm_rows_span_of(d, m);
    return (d->rows_edge && d->w_nr && umod(n, d->w_nr) != 0 && ldb >= d->w_ldb_min) ||
           span >= (double)(m - 1) * rs ||
           (umod(ldb, d->set_stride) == 0 && span >= d->rows_span);
}

/* The row counts the wide tile takes over n columns: up to w_few over any n, and from w_many up
   to w_part_max; over whole panels (a partial one goes through a stack tile) up to w_mr
   (>= w_few), and from w_many (0: never). */
static int wide_rows(const sk_gemm_dsp *d, size_t m, size_t n)
{
    if (m <= d->w_few || (d->w_many && m >= d->w_many && m <= d->w_part_max)) return 1;
    return umod(n, d->w_nr) == 0 && (m <= d->w_mr || (d->w_many && m >= d->w_many));
}

/* NN on the wide tile: wide_rows, from w_many rows up to one MC block over a B of at most
   w_span_max floats (k x ldb; 0: any), at most w_set_max of them at a B row stride that is a
   multiple of w_set_stride (0: set_stride); past one MC block with one k block over a B of at
   most w_blocks_span floats, not at such a stride. */
static int plan_wide(const sk_gemm_dsp *d, sk_trans tb, size_t m, size_t n, size_t k, size_t ldb)
{
    if (tb || !d->ukr_w || ldb < d->w_ldb_min || !wide_rows(d, m, n)) return 0;
    if (m <= d->w_mr) return 1;
    const size_t ws = d->w_set_stride ? d->w_set_stride : d->set_stride;
    if (m > d->mc) /* k x ldb within B's validated extent */
        return d->w_blocks_span && k <= d->kc && k <= udiv(d->w_blocks_span, ldb) &&
               umod(ldb, ws) != 0;
    return (!d->w_span_max || k <= udiv(d->w_span_max, ldb)) &&
           (umod(ldb, ws) != 0 || m <= d->w_set_max);
}

/* NT on the dot kernel (op(A) = A): up to dot_few rows, more up to dot_rows for a k and a B that
   the kernel's passes over B read fast, where the transposed tiles would fill less than
   dot_t_fill sixteenths of their lanes, and for k >= ukr_t_k_rows m (below, the blocked path's
   transposition of B is shared by enough row blocks) (gemm.h). */
static int plan_dot(const sk_gemm_dsp *d, size_t m, size_t n, size_t k)
{
    if (!d->dot || m > d->dot_rows) return 0;
    if (m <= d->dot_few) return 1;
    if (k < d->dot_k_min || k > d->dot_k_max || (double)n * (double)k > d->dot_span) return 0;
    return !d->ukr_t ||
           (k >= (size_t)d->ukr_t_k_rows * m && 16 * m < d->dot_t_fill * plan_t_lanes(d, m));
}

/* The path of a whole problem, from ta, tb, m, B's row stride and the table's kernels and their
   limits. */
static enum gemm_path plan_path(const sk_gemm_dsp *d, sk_trans ta, sk_trans tb, size_t m,
                                size_t n, size_t k, size_t ldb)
{
    if (!d->ukr) return PATH_REF;
    if (m == 1 && d->gemv_n) return PATH_ROW;
    if (tb && !ta && plan_dot(d, m, n, k)) return PATH_DOT;
    if (plan_rows(d, tb, m, n, k, ldb)) return PATH_ROWS;
    if (tb && t_tiles_fit(d, ta, m, n, k)) return PATH_NT_ROWS;
    if (plan_wide(d, tb, m, n, k, ldb)) return PATH_WIDE;
    return PATH_BLOCKED;
}

/* mc rows in full MR-row blocks and the rest last when the rest is at least 2/3 of MR and at
   least rest_min rows (14 = 8 + 6), else in near-equal blocks, the first ones one row taller (8 =
   4 + 4, not 6 + 2: a 2-row tile is FMA-latency bound; 16 = 6 + 5 + 5 with rest_min 5). */
static row_split split_rows(size_t mc, size_t MR, size_t rest_min)
{
    const size_t count = cdiv(mc, MR), rest = umod(mc, MR);
    if (3 * rest >= 2 * MR && rest >= rest_min) return (row_split){ count, count - 1, MR, rest };
    const size_t q = udiv(mc, count);
    return (row_split){ count, mc - q * count, q + 1, q };
}

/* Rows of B per transposed tile (ukr_t_n, or ukr_tp_n on ukr_tp): the kernel walks them side by
   side, at most set_rows when they share an L1 set. */
static size_t plan_t_rows(const sk_gemm_dsp *d, size_t m, size_t k, size_t ldb)
{
    const size_t rows = plan_t_pair(d, m, k) ? d->ukr_tp_n : d->ukr_t_n;
    return umod(ldb, d->set_stride) == 0 && rows > d->set_rows ? d->set_rows : rows;
}

/* The r-row kernels of layout lay (sk_gemm_tiles) for the row blocks of rs: f[0] for its first
   `first` blocks, f[1] for the others (the same kernel in both when every block has one height;
   NULL without blocks). */
static void split_tiles(const sk_gemm_tiles *t, int lay, const row_split *rs, sk_gemm_tile_fn f[2])
{
    f[0] = f[1] = NULL;
    if (rs->count == 0) return;
    f[0] = t->by[lay][(rs->first ? rs->hi : rs->lo) - 1];
    f[1] = t->by[lay][(rs->count > rs->first ? rs->lo : rs->hi) - 1];
}

/* The plan of a problem run on `path` (the path of the whole problem, of which this may be a tile
   of C: the pool's tasks keep the call's path). */
static void plan_make(const sk_gemm_dsp *d, enum gemm_path path, sk_trans ta, sk_trans tb,
                      size_t m, size_t n, size_t k, size_t lda, size_t ldb, gemm_plan *p)
{
    const int wide = path == PATH_WIDE;
    const size_t MR = wide ? d->w_mr : d->mr, NR = wide ? d->w_nr : d->nr, MC = d->mc, NC = d->nc;
    /* the transposed tiles' op(A)^T stays kc_t x ukr_t_m floats, whatever its lanes */
    const size_t lanes = path == PATH_NT_ROWS ? plan_t_lanes(d, m) : 0;
    size_t KC = d->kc;
    if (path == PATH_NT_ROWS) {
        KC = (size_t)d->kc_t * d->ukr_t_m / lanes;
        KC = KC ? KC : 1;
    }
    /* every field written once, from locals: a compound literal zeroed the struct with `rep
       stos`, and reading back fields just stored made GCC load two 4-byte fields as one 8-byte
       word, which the stores cannot forward (together most of a 32 x 32 x 32 call's planning on
       AMD Zen 5) */
    static const row_split none = { 0, 0, 0, 0 };
    const size_t kc = k <= KC ? k : cdiv(k, cdiv(k, KC));
    p->path = path;
    p->kc = kc;
    const int pair = path == PATH_NT_ROWS && plan_t_pair(d, m, k);
    p->t_rows = path == PATH_NT_ROWS ? plan_t_rows(d, m, k, ldb) : 0;
    p->t_lanes = lanes;
    p->t_pair = pair;
    p->ukr = wide ? d->ukr_w : d->ukr;
    p->tiles = wide ? d->tiles_w : d->tiles;
    p->tile_hi = p->tile_lo = p->tile_tcp = NULL;
    p->mr = MR, p->nr = NR;
    p->rows_full = p->rows_last = none;
    if (path != PATH_BLOCKED && !wide) {
        p->b = B_IN_PLACE;
        p->copy_b = p->direct_a = p->direct = 0;
        p->rsa = p->csa = p->a_floats = 0;
        p->buf_floats = lanes * kc; /* packed op(A)^T */
        return;
    }
    const int one_ic = m <= MC;
    const size_t mcap = one_ic ? m : MC, ncap = n < NC ? n : NC; /* one A block, one B block */
    enum gemm_b_source b;
    if (tb)
        b = one_ic ? B_PANEL : B_BLOCK_PANELS;
    else if (d->b_alias && umod(ldb, d->b_alias) == 0)
        b = B_BLOCK_ROWS;
    else if (one_ic) /* the wide tile's one row block reads each row of B once: never packed */
        b = d->b_span_min && !wide && (ldb >= d->b_span_min || ldb * k >= d->b_span_min)
          ? B_BLOCK_ROWS : B_IN_PLACE; /* ldb * k: within B's validated extent */
    else
        b = d->b_rows_min && kc * ncap >= d->b_rows_min ? B_BLOCK_ROWS : B_BLOCK_FUSED;
    const size_t rest_min = wide ? 0 : d->mr_rest_min;
    const row_split last = split_rows(one_ic ? m : m - (cdiv(m, MC) - 1) * MC, MR, rest_min);
    p->rows_last = last;
    if (!one_ic) p->rows_full = split_rows(MC, MR, rest_min);
    /* an in-place panel is copied when enough row blocks reuse it (fewer at set_stride
       multiples), its rows are far enough apart (cp_ldb_min) and it would not stay in L1 (B over
       cp_min floats, or rows at a multiple of cp_stride: a few L1 sets); never the wide tile's (a
       kc x w_nr copy would not stay in L1 either) */
    const size_t cp_blocks = umod(ldb, d->set_stride) == 0 ? d->cp_blocks_set : d->cp_blocks;
    const int copy_b = b == B_IN_PLACE && !wide && last.count >= cp_blocks &&
                       ldb >= d->cp_ldb_min && (k * n > d->cp_min || umod(ldb, d->cp_stride) == 0);
    /* A in place when its packing would not pay (m is one block, or few NR strips reuse each A
       block) and the rows the kernel walks do not pile up in one L1 set (a row stride that is a
       multiple of set_stride maps every row to the same set: fine for up to set_rows rows of A
       walked side by side, unless the table says the copy of B fills those sets, not for the kc
       rows of a transposed A) */
    const int a_sets_ok = umod(lda, d->set_stride) != 0 ||
                          (!ta && MR <= d->set_rows && !(copy_b && d->copy_packs_a));
    const int direct_a = (one_ic || n <= d->direct_a_strips * NR) && a_sets_ok;
    const int one_panel = b == B_IN_PLACE || b == B_PANEL;
    const size_t a_floats = direct_a ? 0 : cdiv(mcap, MR) * MR * kc;
    p->b = b;
    p->copy_b = copy_b;
    p->direct_a = direct_a;
    p->rsa = direct_a && !ta ? lda : 1;
    p->csa = !direct_a ? MR : ta ? lda : 1;
    p->direct = ((b == B_IN_PLACE && !copy_b) || b == B_PANEL) && direct_a &&
                direct_shape(d, ta, m, n, k, NR); /* both sources: one MC block */
    if (p->direct) { /* run_direct's kernels: one indirect call per tile, not the entry's two */
        sk_gemm_tile_fn f[2];
        split_tiles(p->tiles, SK_GEMM_TILE_ROWS, &last, f);
        p->tile_hi = f[0], p->tile_lo = f[1];
        if (tb && d->ukr_tcp) {
            split_tiles(d->tiles_tcp, SK_GEMM_TILE_ROWS, &last, f);
            p->tile_tcp = f[0]; /* the first row block's */
        }
    }
    p->a_floats = a_floats;
    p->buf_floats = a_floats + (one_panel ? NR : cdiv(ncap, NR) * NR) * kc;
}

/* --- the blocked loop nest -------------------------------------------------------------------- */

#define TILE_MAX (SK_GEMM_MR_MAX * 64) /* r x NR stack tile, NR <= 64 */
#define RB_MAX 64                      /* row blocks per MC block: mc / mr <= 64 in every table */

/* The r x nr corner of a tile: C = t + beta C (t already carries alpha; beta == 0: C not read). */
static void merge_tile(size_t r, size_t nr, const float *t, size_t NR, float beta, float *c,
                       size_t ldc)
{
    for (size_t i = 0; i < r; i++) {
        float *ci = c + i * ldc;
        const float *ti = t + i * NR;
        if (beta == 0.f)
            for (size_t j = 0; j < nr; j++) ci[j] = ti[j];
        else
            for (size_t j = 0; j < nr; j++) ci[j] = ti[j] + beta * ci[j];
    }
}

/* C[i][j] = bias[j] for i < r, j < nr: the first store of a C tile (then computed with beta = 1),
   right before its first k block, so that the tile is in L1 when the kernel adds to it. */
static void put_bias(size_t r, size_t nr, const float *bias, float *c, size_t ldc)
{
    for (size_t i = 0; i < r; i++) copy_row(c + i * ldc, bias, nr);
}

/* The kc x nc block of op(B) at bsrc packed up front into NR-wide micro-panels (bbuf). */
static void pack_b_block(const sk_gemm_dsp *d, enum gemm_b_source src, sk_trans tb, size_t kc,
                         size_t nc, const float *bsrc, size_t ldb, float *bbuf, size_t NR)
{
    if (src == B_BLOCK_ROWS) {
        /* PACK_ROWS rows at a time, in order (PACK_ROWS streams the prefetchers follow), into one
           contiguous run of each panel: row by row, the stores would go to nc / NR panels
           kc x NR floats apart, all in one L1 set when that is a multiple of 4 KiB */
        enum { PACK_ROWS = 8 };
        for (size_t p0 = 0; p0 < kc; p0 += PACK_ROWS) {
            const size_t pn = kc - p0 < PACK_ROWS ? kc - p0 : PACK_ROWS;
            for (size_t jr = 0; jr < nc; jr += NR) {
                const size_t nr = nc - jr < NR ? nc - jr : NR;
                for (size_t p = p0; p < p0 + pn; p++) {
                    float *dst = bbuf + jr * kc + p * NR;
                    copy_row(dst, bsrc + p * ldb + jr, nr);
                    for (size_t j = nr; j < NR; j++) dst[j] = 0.f;
                }
            }
        }
    } else if (src == B_BLOCK_PANELS) {
        for (size_t jr = 0; jr < nc; jr += NR)
            pack_b(d, tb, nc - jr < NR ? nc - jr : NR, kc, bsrc + jr * ldb, ldb, bbuf + jr * kc,
                   NR);
    }
}

/* The plan p of the blocked path over buf (p->buf_floats). bias NULL, or n floats added to every
   row of C (then beta == 0: C is not read).
 *   jc loop (NC columns of C)  : B block kc x nc (L3), packed up front or as the plan says
 *   pc loop (k blocks)         : beta applies to the first k block only, later blocks add
 *   ic loop (MC rows)          : A block mc x kc packed into MR-row micro-panels (L2), or in place
 *   jr loop (NR)               : one B micro-panel kc x NR (L1)
 *   row blocks                 : the table's micro-kernel on an r x NR tile of C; the last,
 *                                partial panel through a stack tile */
static void run_blocked(const sk_gemm_dsp *d, const gemm_plan *p, float *buf, sk_trans ta,
                        sk_trans tb, size_t m, size_t n, size_t k, float alpha, const float *a,
                        size_t lda, const float *b, size_t ldb, float beta, const float *bias,
                        float *c, size_t ldc)
{
    const size_t MR = p->mr, NR = p->nr, MC = d->mc, NC = d->nc, KC = p->kc, LINE = d->line_floats;
    const size_t rsa = p->rsa, csa = p->csa;
    const sk_gemm_ukr_fn ukr = p->ukr;
    /* the entry's r-row kernels for the row blocks (split_tiles): one indirect call per tile */
    const int lay = csa == 1 ? SK_GEMM_TILE_ROWS : SK_GEMM_TILE_COLS;
    const size_t sa = csa == 1 ? rsa : csa;
    sk_gemm_tile_fn f[2], fc[2]; /* ... and those copying B */
    float *abuf = buf, *bbuf = buf + p->a_floats;
    SK_ALIGN(64) float tile[TILE_MAX];
    struct { /* one row block of the current MC block */
        const float *a; /* its A micro-panel, or its rows of A in place */
        size_t r, coff; /* rows; offset of its C rows from c + jr */
    } rb[RB_MAX];

    for (size_t jc = 0; jc < n; jc += NC) {
        const size_t nc = n - jc < NC ? n - jc : NC;
        for (size_t pc = 0; pc < k; pc += KC) {
            const size_t kc = k - pc < KC ? k - pc : KC;
            const float be = pc == 0 && !bias ? beta : 1.f;
            const float *bb = pc == 0 ? bias : NULL; /* the bias goes in before the first k block */
            const float *bsrc = tb ? b + jc * ldb + pc : b + pc * ldb + jc; /* op(B)(pc, jc) */
            pack_b_block(d, p->b, tb, kc, nc, bsrc, ldb, bbuf, NR);
            for (size_t ic = 0; ic < m; ic += MC) {
                const row_split *rs = ic + MC < m ? &p->rows_full : &p->rows_last;
                const size_t nrb = rs->count;
                const float *asrc = ta ? a + pc * lda + ic : a + ic * lda + pc; /* op(A)(ic, pc) */
                for (size_t q = 0, r0 = 0; q < nrb; q++) { /* the row blocks, A packed or not */
                    const size_t r = q < rs->first ? rs->hi : rs->lo;
                    const float *ai = ta ? asrc + r0 : asrc + r0 * lda;
                    if (p->direct_a) {
                        rb[q].a = ai;
                    } else {
                        rb[q].a = abuf + q * MR * kc;
                        pack_a(d, ta, r, kc, ai, lda, abuf + q * MR * kc, MR);
                    }
                    rb[q].r = r;
                    rb[q].coff = (ic + r0) * ldc + jc;
                    r0 += r;
                }
                split_tiles(p->tiles, lay, rs, f);
                split_tiles(p->tiles, lay + 2, rs, fc);
                /* the next A block is fetched into L2 a slice per B panel, so that its packing
                   (or the first B panel's kernels, with A read in place) does not wait on memory */
                const int pf_a = d->a_prefetch && ic + MC < m;
                const size_t mcn = pf_a ? (m - ic - MC < MC ? m - ic - MC : MC) : 0;
                const size_t pf_rows = ta ? kc : mcn, pf_lines = udiv(ta ? mcn : kc, LINE) + 1;
                const float *pf_src = ta ? asrc + MC : asrc + MC * lda;
                const size_t pf_per = pf_a ? cdiv(pf_rows * pf_lines, cdiv(nc, NR)) : 0;
                size_t pf_next = 0, pf_r = 0, pf_l = 0; /* line pf_l of row pf_r is next */
                for (size_t jr = 0; jr < nc; jr += NR) {
                    for (size_t e = pf_next + pf_per; pf_next < e && pf_next < pf_rows * pf_lines;
                         pf_next++) {
                        __builtin_prefetch(pf_src + pf_r * lda + pf_l * LINE, 0, 2);
                        if (++pf_l == pf_lines) pf_l = 0, pf_r++;
                    }
                    const size_t nr = nc - jr < NR ? nc - jr : NR;
                    float *cj = c + jr;
                    const float *bj = bb ? bb + jc + jr : NULL; /* bias of these columns */
                    /* this panel of op(B): the first row block reads b0 at row stride rs0 (and
                       stores what it reads to cp unless NULL), the others read b1 at rs1 */
                    const float *bin = tb ? bsrc + jr * ldb : bsrc + jr;
                    float *panel = p->b == B_IN_PLACE || p->b == B_PANEL ? bbuf : bbuf + jr * kc;
                    const float *b0 = panel, *b1 = panel;
                    size_t rs0 = NR, rs1 = NR;
                    float *cp = NULL;
                    switch (p->b) {
                    case B_IN_PLACE:
                        if (nr < NR) {
                            pack_b(d, tb, nr, kc, bin, ldb, panel, NR);
                        } else if (p->copy_b) { /* B's scattered rows (L2) once, then the copy */
                            b0 = bin, rs0 = ldb, cp = panel;
                        } else {
                            b0 = b1 = bin, rs0 = rs1 = ldb;
                        }
                        break;
                    case B_BLOCK_FUSED: /* the panel's first use copies it as it is read */
                        if (ic > 0) break;
                        if (nr < NR) pack_b(d, tb, nr, kc, bin, ldb, panel, NR);
                        else b0 = bin, rs0 = ldb, cp = panel;
                        break;
                    case B_PANEL:
                        pack_b(d, tb, nr, kc, bin, ldb, panel, NR);
                        break;
                    case B_BLOCK_ROWS:
                    case B_BLOCK_PANELS: /* packed up front */
                        break;
                    }
                    /* while the second row block reads the copy, the panel after the next one is
                       fetched into L2 (the first row block's kernel may fetch the next one as it
                       reads B): B's rows arrive during both row blocks, not the first alone */
                    const float *pf = cp && jr + 3 * NR <= nc ? bin + 2 * NR : NULL;
                    if (SK_LIKELY(nr == NR)) {
                        for (size_t q = 0; q < nrb; q++) {
                            if (bj) put_bias(rb[q].r, nr, bj, cj + rb[q].coff, ldc);
                            const int lo = q >= rs->first;
                            (q == 0 && cp ? fc[lo] : f[lo])(kc, rb[q].a, sa, q ? b1 : b0,
                                                            q ? rs1 : rs0, cj + rb[q].coff, ldc,
                                                            alpha, be, q ? NULL : cp,
                                                            q == 1 ? pf : NULL, ldb);
                        }
                    } else {
                        for (size_t q = 0; q < nrb; q++) {
                            ukr(rb[q].r, kc, rb[q].a, rsa, csa, b1, rs1, tile, NR, alpha, 0.f,
                                NULL, NULL, 0);
                            if (bj) put_bias(rb[q].r, nr, bj, cj + rb[q].coff, ldc);
                            merge_tile(rb[q].r, nr, tile, NR, be, cj + rb[q].coff, ldc);
                        }
                    }
                }
            }
        }
    }
}

/* The plan's direct case (p->direct): each panel (packed into panel first when B is transposed)
   and its row blocks straight to the kernel, the calls run_blocked makes for such a problem (hence
   the same results) without its per-block bookkeeping, which was a fifth of a 32 x 32 x 32 call. */
static __attribute__((noinline)) void run_direct(const sk_gemm_dsp *d, const gemm_plan *p,
                                                 float *panel, sk_trans tb, size_t n, size_t k,
                                                 float alpha, const float *a, size_t lda,
                                                 const float *b, size_t ldb, float beta,
                                                 const float *bias, float *c, size_t ldc)
{
    const row_split *rs = &p->rows_last;
    const size_t NR = p->nr, hr = rs->hi, lr = rs->lo, nhi = rs->first, nrb = rs->count;
    const float be = bias ? 1.f : beta;
    const sk_gemm_tile_fn hi = p->tile_hi, lo = p->tile_lo;
    /* op(B) = B^T: the first row block transposes each panel as it goes (ukr_tcp), or the panel
       is packed first */
    const int tcp = tb && d->ukr_tcp;
    for (size_t j = 0; j < n; j += NR) {
        const float *bj = b + j, *aq = a;
        size_t rsb = ldb, q = 0;
        float *cq = c + j;
        if (tb) {
            if (!tcp) pack_b(d, tb, NR, k, b + j * ldb, ldb, panel, NR);
            bj = panel, rsb = NR;
        }
        if (tcp) { /* ukr_tcp's kernel for the first block's rows */
            const size_t r = nhi ? hr : lr;
            if (bias) put_bias(r, NR, bias + j, cq, ldc);
            p->tile_tcp(k, aq, lda, b + j * ldb, ldb, cq, ldc, alpha, be, panel, NULL, 0);
            aq += r * lda, cq += r * ldc, q = 1;
        }
        /* the entry's kernels for hr and lr rows of A in place, called straight */
        for (; q < nhi; q++, aq += hr * lda, cq += hr * ldc) {
            if (bias) put_bias(hr, NR, bias + j, cq, ldc);
            hi(k, aq, lda, bj, rsb, cq, ldc, alpha, be, NULL, NULL, 0);
        }
        for (; q < nrb; q++, aq += lr * lda, cq += lr * ldc) {
            if (bias) put_bias(lr, NR, bias + j, cq, ldc);
            lo(k, aq, lda, bj, rsb, cq, ldc, alpha, be, NULL, NULL, 0);
        }
    }
}

/* --- the other paths -------------------------------------------------------------------------- */

/* op(B) = B^T with m <= ukr_t_max: C^T = B op(A)^T. op(A)^T is packed into at, in groups of
   ukr_t_m rows of op(A) (kc x W each, W = ukr_t_m, the last group's W = its rows rounded up to
   ukr_t_lane, zero columns past m), the rows of B are the kernel's broadcast operand, read in
   place (no transposition of B), and the kernel writes each r x W tile of C^T into C transposed;
   each row of tiles runs every group while its rows of B are in L1. */
static void run_nt_rows(const sk_gemm_dsp *d, const gemm_plan *p, float *at, sk_trans ta,
                        size_t m, size_t n, size_t k, float alpha, const float *a, size_t lda,
                        const float *b, size_t ldb, float beta, const float *bias, float *c,
                        size_t ldc)
{
    const size_t W = d->ukr_t_m, KC = p->kc, MR = p->t_rows;
    const size_t last = p->t_lanes - udiv(m - 1, W) * W; /* lanes of the last group */
    const sk_gemm_ukr_t_fn tile = p->t_pair ? d->ukr_tp : d->ukr_t;
    for (size_t pc = 0; pc < k; pc += KC) {
        const size_t kc = k - pc < KC ? k - pc : KC;
        const float be = pc == 0 && !bias ? beta : 1.f;
        for (size_t i0 = 0; i0 < m; i0 += W) {
            const size_t mg = m - i0 < W ? m - i0 : W, wg = mg < W ? last : W;
            float *ag = at + i0 * kc;
            /* columns mg..wg-1 zero (the kernel's lanes past m, never stored): the block cleared
               in one pass, the pack then writes the mg columns (a clear per row was a call per
               row) */
            if (mg < wg) memset(ag, 0, kc * wg * sizeof(float));
            const float *ai = ta ? a + i0 + pc * lda : a + i0 * lda + pc;
            pack_a(d, ta, mg, kc, ai, lda, ag, wg);
        }
        for (size_t j0 = 0, r; j0 < n; j0 += r) {
            /* MR rows of B at a time; the last MR + rest as two near-equal tiles (8 = 4 + 4, not
               6 + 2: a 2-row tile is FMA-latency bound) */
            const size_t left = n - j0;
            r = left <= MR ? left : left < 2 * MR ? (left + 1) / 2 : MR;
            if (bias && pc == 0) put_bias(m, r, bias + j0, c + j0, ldc); /* the m x r tile of C */
            for (size_t i0 = 0; i0 < m; i0 += W) {
                const size_t mg = m - i0 < W ? m - i0 : W, wg = mg < W ? last : W;
                tile(r, kc, b + j0 * ldb + pc, ldb, at + i0 * kc, wg, mg, c + i0 * ldc + j0, ldc,
                     n - j0, alpha, be);
            }
        }
    }
}

/* m == 1: C row = alpha op(A) row . op(B) + beta C row, through the matrix-vector kernels. */
#define GEMV_KC 512 /* op(A) row gathered in chunks of this many (ta == TRANS) */
static void row_product(const sk_gemm_dsp *d, sk_trans ta, sk_trans tb, size_t n, size_t k,
                        float alpha, const float *a, size_t lda, const float *b, size_t ldb,
                        float beta, float *c)
{
    const sk_gemv_fn fn = tb ? d->gemv_t : d->gemv_n;
    if (!ta) {
        fn(n, k, alpha, a, b, ldb, beta, c);
        return;
    }
    SK_ALIGN(64) float arow[GEMV_KC];
    for (size_t pc = 0; pc < k; pc += GEMV_KC) {
        const size_t kc = k - pc < GEMV_KC ? k - pc : GEMV_KC;
        for (size_t p = 0; p < kc; p++) arow[p] = a[(pc + p) * lda];
        fn(n, kc, alpha, arow, tb ? b + pc : b + pc * ldb, ldb, pc == 0 ? beta : 1.f, c);
    }
}

/* m == 1 with op(B) = B of at least gemv_k_min floats: the sum over k in chunks fixed by the shape
   and the table alone (never by a pool): 2, 4 or 8 chunks of at least gemv_k_rows rows of B, and
   past gemv_span when B is (the matrix-vector kernels read a B of at most gemv_span floats in
   another order, from L2: a chunk keeps the whole B's side of it). Chunk 0 goes into the row of C
   (with beta and the bias), each other chunk i into a partial row s_i, and then C += s_1,
   C += s_2, ... in chunk order. A pool runs the chunks side by side, each reading whole rows of B,
   one after another, as a plain read of B would; splitting the columns instead had every thread
   read its piece of every row. The number of chunks (1: no split), the rows per chunk in *kr. */
#define GEMV_K_CHUNKS 8
static size_t row_chunks(const sk_gemm_dsp *d, sk_trans tb, size_t n, size_t k, size_t ldb,
                         size_t *kr)
{
    *kr = k;
    if (tb || !d->gemv_n || !d->gemv_k_rows || d->gemv_group > SK_GEMV_GROUP_MAX ||
        (double)n * (double)k < (double)d->gemv_k_min)
        return 1; /* (a wider gemv_group would not fit row_chunks_nomem's partial rows) */
    size_t need = d->gemv_k_rows;
    if (d->gemv_span && (double)k * (double)ldb > (double)d->gemv_span) {
        const size_t past = udiv(d->gemv_span, ldb) + 1;
        need = need > past ? need : past;
    }
    /* the last chunk, k - (nk - 1) * kr with kr = k / nk rounded up to 16, has need rows too */
    for (size_t nk = GEMV_K_CHUNKS; nk >= 2; nk /= 2) {
        if (udiv(k, nk) < need + 16 * (nk - 1)) continue;
        *kr = cdiv(cdiv(k, nk), 16) * 16;
        return nk;
    }
    return 1;
}

/* Chunk ch (of rows kr) over columns [j0, j1) into dst (column j0 of C for chunk 0, with beta;
   of the chunk's partial row otherwise). */
static void row_chunk(const sk_gemm_dsp *d, sk_trans ta, size_t k, size_t kr, size_t ch,
                      size_t j0, size_t j1, float alpha, const float *a, size_t lda,
                      const float *b, size_t ldb, float beta, float *dst)
{
    const size_t k0 = ch * kr, kc = k - k0 < kr ? k - k0 : kr;
    row_product(d, ta, SK_NOTRANS, j1 - j0, kc, alpha, ta ? a + k0 * lda : a + k0, lda,
                b + k0 * ldb + j0, ldb, ch ? 0.f : beta, dst);
}

/* c[j] += s_1[j], then s_2[j], ... for j < w (the nk - 1 partial rows lds apart from s). */
static void row_merge(float *c, const float *s, size_t lds, size_t nk, size_t w)
{
    for (size_t i = 1; i < nk; i++)
        for (size_t j = 0; j < w; j++) c[j] += s[(i - 1) * lds + j];
}

/* row_chunks' sums without memory for the partial rows: gemv_group columns at a time, the rest
   with the last group (as the parts of a pool: the kernels' arithmetic is the same on each), the
   partial rows on the stack. */
static __attribute__((noinline)) void row_chunks_nomem(const sk_gemm_dsp *d, sk_trans ta,
                                                       size_t n, size_t k, size_t nk, size_t kr,
                                                       float alpha, const float *a, size_t lda,
                                                       const float *b, size_t ldb, float beta,
                                                       float *c)
{
    SK_ALIGN(64) float st[(GEMV_K_CHUNKS - 1) * 2 * SK_GEMV_GROUP_MAX];
    const size_t g = d->gemv_group, lds = 2 * SK_GEMV_GROUP_MAX;
    for (size_t j0 = 0; j0 < n;) {
        const size_t j1 = n - j0 < 2 * g ? n : j0 + g;
        for (size_t ch = 0; ch < nk; ch++)
            row_chunk(d, ta, k, kr, ch, j0, j1, alpha, a, lda, b, ldb, beta,
                      ch ? st + (ch - 1) * lds : c + j0);
        row_merge(c + j0, st, lds, nk, j1 - j0);
        j0 = j1;
    }
}

/* m == 1 with k in chunks (row_chunks): task t runs chunk t / cparts on column part t % cparts
   (gemv_group units, the rest in the last part); the partial rows of chunks 1.. (n floats apart in
   s: the calling thread's GEMM buffer) are added after the tasks, in chunk order. */
typedef struct row_job {
    const sk_gemm_dsp *d;
    sk_trans ta;
    size_t n, k, kr, cparts, lda, ldb;
    float alpha, beta;
    const float *a, *b;
    float *c, *s;
} row_job;

static void row_task(void *arg, size_t t)
{
    const row_job *j = arg;
    const size_t ch = t / j->cparts, ci = t % j->cparts, g = j->d->gemv_group, cn = j->n / g;
    const size_t j0 = sk_part_bound(cn, j->cparts, ci) * g;
    const size_t j1 = ci + 1 == j->cparts ? j->n : sk_part_bound(cn, j->cparts, ci + 1) * g;
    if (j0 >= j1) return;
    row_chunk(j->d, j->ta, j->k, j->kr, ch, j0, j1, j->alpha, j->a, j->lda, j->b, j->ldb, j->beta,
              ch ? j->s + (ch - 1) * j->n + j0 : j->c + j0);
}

/* The nk chunks as nk x cparts tasks on tp (NULL: in order on this thread), then merged. */
static void row_chunked(const sk_threadpool *tp, size_t cparts, const sk_gemm_dsp *d, sk_trans ta,
                        size_t n, size_t k, size_t nk, size_t kr, float alpha, const float *a,
                        size_t lda, const float *b, size_t ldb, float beta, float *c, float *s)
{
    row_job j = { .d = d, .ta = ta, .n = n, .k = k, .kr = kr, .cparts = cparts, .lda = lda,
                  .ldb = ldb, .alpha = alpha, .beta = beta, .a = a, .b = b, .c = c, .s = s };
    sk_tp_run(tp, nk * cparts, row_task, &j);
    row_merge(c, s, n, nk, n);
}

static void run_row(const sk_gemm_dsp *d, sk_trans ta, sk_trans tb, size_t n, size_t k,
                    float alpha, const float *a, size_t lda, const float *b, size_t ldb,
                    float beta, const float *bias, float *c)
{
    if (bias) { /* the row of C starts as the bias; the kernels add to it */
        copy_row(c, bias, n);
        beta = 1.f;
    }
    size_t kr;
    const size_t nk = row_chunks(d, tb, n, k, ldb, &kr);
    if (nk == 1) {
        row_product(d, ta, tb, n, k, alpha, a, lda, b, ldb, beta, c);
        return;
    }
    float *s = sk_tbuf_get(SK_TBUF_GEMM, (nk - 1) * n);
    if (s)
        row_chunked(NULL, 1, d, ta, n, k, nk, kr, alpha, a, lda, b, ldb, beta, c, s);
    else
        row_chunks_nomem(d, ta, n, k, nk, kr, alpha, a, lda, b, ldb, beta, c);
}

/* PATH_ROWS and PATH_DOT: m rows in near-equal groups of at most the kernel's rows (rows_group,
   dot_group; past rows_few or dot_few rows rows_group_many, dot_group_many; 12 = 6 + 6,
   7 = 3 + 4), one call and one pass over B each. */
static void run_row_groups(const sk_gemm_dsp *d, enum gemm_path path, sk_trans ta, size_t m,
                           size_t n, size_t k, float alpha, const float *a, size_t lda,
                           const float *b, size_t ldb, float beta, float *c, size_t ldc)
{
    const int dot = path == PATH_DOT;
    const size_t few = dot ? d->dot_few : d->rows_few;
    const size_t many = dot ? d->dot_group_many : d->rows_group_many;
    const size_t group = m > few && many ? many : dot ? d->dot_group : d->rows_group;
    const size_t rsa = ta ? 1 : lda, groups = cdiv(m, group);
    for (size_t g = 0, i0 = 0; g < groups; g++) {
        const size_t r = (m - i0) / (groups - g);
        if (dot)
            d->dot(r, n, k, alpha, a + i0 * lda, lda, b, ldb, beta, c + i0 * ldc, ldc);
        else
            d->rows_n(r, n, k, alpha, a + i0 * rsa, rsa, ta ? lda : 1, b, ldb, beta, c + i0 * ldc,
                      ldc);
        i0 += r;
    }
}

/* The plan's direct case without a transposed B (no buffer): the small products, run_direct
   called from the entry points themselves rather than through gemm_run_plan, whose frame holds
   every path's state (its prologue and the moves of 15 arguments were 1-3% of a 32 x 32 x 32
   call and 2-5% of 16 x 64 x 64 on AMD Zen 5). The same call as gemm_run_plan makes, hence the
   same results. */
static inline int plan_direct_nn(const gemm_plan *p, sk_trans tb)
{
    return p->direct && !tb;
}

/* Runs a problem (m, n, k >= 1, alpha != 0) by its plan p. Without a packing buffer the
   transposed tiles fall back to the blocked path, the blocked path to the reference. */
static void gemm_run_plan(const sk_gemm_dsp *d, const gemm_plan *p, sk_trans ta, sk_trans tb,
                          size_t m, size_t n, size_t k, float alpha, const float *a, size_t lda,
                          const float *b, size_t ldb, float beta, const float *bias, float *c,
                          size_t ldc)
{
    gemm_plan blocked; /* the transposed tiles' fallback */
    float *buf = NULL;
    switch (p->path) {
    case PATH_ROW:
        run_row(d, ta, tb, n, k, alpha, a, lda, b, ldb, beta, bias, c);
        return;
    case PATH_ROWS: /* C starts as the bias, the products are added */
    case PATH_DOT:
        if (bias) put_bias(m, n, bias, c, ldc);
        run_row_groups(d, p->path, ta, m, n, k, alpha, a, lda, b, ldb, bias ? 1.f : beta, c, ldc);
        return;
    case PATH_NT_ROWS:
        if ((buf = sk_tbuf_get(SK_TBUF_GEMM, p->buf_floats))) {
            run_nt_rows(d, p, buf, ta, m, n, k, alpha, a, lda, b, ldb, beta, bias, c, ldc);
            return;
        }
        plan_make(d, PATH_BLOCKED, ta, tb, m, n, k, lda, ldb, &blocked);
        p = &blocked;
        /* fall through */
    case PATH_BLOCKED:
    case PATH_WIDE:
        if (plan_direct_nn(p, tb) || (buf = sk_tbuf_get(SK_TBUF_GEMM, p->buf_floats))) {
            if (p->direct)
                run_direct(d, p, buf, tb, n, k, alpha, a, lda, b, ldb, beta, bias, c, ldc);
            else
                run_blocked(d, p, buf, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, bias, c,
                            ldc);
            return;
        }
        /* no memory for packing: the unpacked reference, C starts as the bias */
        if (bias) put_bias(m, n, bias, c, ldc);
        sk_sgemm_ref(ta, tb, m, n, k, alpha, a, lda, b, ldb, bias ? 1.f : beta, c, ldc);
        return;
    case PATH_REF: /* C starts as the bias, the product is added */
        if (bias) put_bias(m, n, bias, c, ldc);
        sk_sgemm_ref(ta, tb, m, n, k, alpha, a, lda, b, ldb, bias ? 1.f : beta, c, ldc);
        return;
    }
}

/* Runs a problem (m, n, k >= 1, alpha != 0) on `path`: makes its plan, then runs it. */
static void gemm_run_path(const sk_gemm_dsp *d, enum gemm_path path, sk_trans ta, sk_trans tb,
                          size_t m, size_t n, size_t k, float alpha, const float *a, size_t lda,
                          const float *b, size_t ldb, float beta, const float *bias, float *c,
                          size_t ldc)
{
    gemm_plan p;
    plan_make(d, path, ta, tb, m, n, k, lda, ldb, &p);
    gemm_run_plan(d, &p, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, bias, c, ldc);
}

/* --- table and entry points ------------------------------------------------------------------- */

void sk_gemm_dsp_init(sk_gemm_dsp *d, sk_isa isa, uint64_t features)
{
    /* the scalar table: the framework with the portable micro-kernel and rows_n and small blocks
       (every block edge within reach of small tests), no matrix-vector or transposed-tile
       kernels */
    sk_gemm_dsp_init_ref(d);
#if SK_HAVE_AVX2
    sk_gemm_dsp_init_x86(d, isa, features);
#elif SK_HAVE_NEON
    (void)features;
    sk_gemm_dsp_init_arm(d, isa);
#else
    (void)isa, (void)features;
#endif
}

/* An operand with one row never uses its ld (which may be anything, even near SIZE_MAX). */
#define GEMM_LD1()                                                                                 \
    do {                                                                                           \
        lda = sk_ld1(ta ? k : m, ta ? m : k, lda);                                                 \
        ldb = sk_ld1(tb ? n : k, tb ? k : n, ldb);                                                 \
        ldc = sk_ld1(m, n, ldc);                                                                   \
    } while (0)

/* The columns of a call that run as a call of their own before the rest (0: none): NN with 2..mc
   rows whose B starts off a cache line by a whole number of floats that is not a multiple of
   realign_floats (the kernels' vector: its loads split across two lines), at a row stride that is a
   multiple of a line (every row of B as far off), a B of at least realign_span floats, and after
   the first line boundary at least realign_rows_n columns on the rows_n path or realign_n on the
   blocked path (the path of the whole call): those columns reach the boundary, and the rest of
   the call reads whole lines of B (sk_gemm_dsp, realign_n). Read from the operands, not the plan:
   the plain call, the pool's and a prepared call split alike. */
static __attribute__((noinline)) size_t realign_cols_off(const sk_gemm_dsp *d, sk_trans ta,
                                                          sk_trans tb, size_t m, size_t n,
                                                          size_t k, uintptr_t at, size_t ldb)
{
    if (at % sizeof(float) != 0) return 0;
    const size_t LINE = d->line_floats, bytes = LINE * sizeof(float);
    if ((!d->realign_n && !d->realign_rows_n) || tb || m < 2 || m > d->mc || !LINE || !ldb ||
        umod(ldb, LINE) != 0)
        return 0;
    const size_t off = (size_t)(at % bytes);
    /* k x ldb >= realign_span, within B's validated extent (k rows of ldb >= n floats) */
    if (k < udiv(d->realign_span, ldb) + (umod(d->realign_span, ldb) != 0)) return 0;
    const size_t h = LINE - off / sizeof(float);
    const enum gemm_path path = plan_path(d, ta, tb, m, n, k, ldb);
    const size_t need = path == PATH_ROWS      ? d->realign_rows_n
                      : path == PATH_BLOCKED ? d->realign_n
                                             : 0;
    return need && n > h && n - h >= need ? h : 0;
}

static inline size_t realign_cols(const sk_gemm_dsp *d, sk_trans ta, sk_trans tb, size_t m,
                                  size_t n, size_t k, const float *b, size_t ldb)
{
    /* inline, what an aligned B fails: a mask (realign_floats: a power of 2) */
    const uintptr_t vec = (uintptr_t)d->realign_floats * sizeof(float), at = (uintptr_t)b;
    return vec && (at & (vec - 1)) != 0 ? realign_cols_off(d, ta, tb, m, n, k, at, ldb) : 0;
}

/* The plan of this thread's last product, and what it was made from: a plan is a function of the
   table, the transposes, the sizes and the strides of A and B alone, so a call that repeats them
   (a decoder's projections at every step, a head's products in a loop) runs the plan it already
   has instead of planning again. gemm_run_plan never comes back here, so the plan it runs stays
   in place until the next call on this thread. */
typedef struct plan_memo_t {
    const sk_gemm_dsp *d;
    sk_trans ta, tb;
    size_t m, n, k, lda, ldb;
    gemm_plan plan;
} plan_memo_t;
static _Thread_local plan_memo_t t_memo;

/* The memo's plan made again (not inlined: the call that repeats its shape never comes here) */
static __attribute__((noinline)) void plan_memo_make(plan_memo_t *s, const sk_gemm_dsp *d,
                                                     sk_trans ta, sk_trans tb, size_t m, size_t n,
                                                     size_t k, size_t lda, size_t ldb)
{
    s->d = NULL; /* not a plan until it is made */
    plan_make(d, plan_path(d, ta, tb, m, n, k, ldb), ta, tb, m, n, k, lda, ldb, &s->plan);
    s->ta = ta, s->tb = tb;
    s->m = m, s->n = n, s->k = k, s->lda = lda, s->ldb = ldb;
    s->d = d;
}

static inline const gemm_plan *plan_memo(const sk_gemm_dsp *d, sk_trans ta, sk_trans tb,
                                         size_t m, size_t n, size_t k, size_t lda, size_t ldb)
{
    plan_memo_t *s = &t_memo;
    if (s->d != d || s->m != m || s->n != n || s->k != k || s->lda != lda || s->ldb != ldb ||
        s->ta != ta || s->tb != tb)
        plan_memo_make(s, d, ta, tb, m, n, k, lda, ldb);
    return &s->plan;
}

/* The calls that run no plan of their own: empty, C scaled or set to the bias alone (k == 0 or
   alpha == 0: A and B not read, BLAS semantics), or split at B's first line boundary. Not inlined
   into sk_gemm_run_bias, whose frame then holds only what a planned product needs. lda, ldb and
   ldc as GEMM_LD1 leaves them. */
static __attribute__((noinline)) void run_unplanned(const sk_gemm_dsp *d, sk_trans ta,
                                                    sk_trans tb, size_t m, size_t n, size_t k,
                                                    float alpha, const float *a, size_t lda,
                                                    const float *b, size_t ldb, float beta,
                                                    const float *bias, float *c, size_t ldc,
                                                    size_t h)
{
    if (m == 0 || n == 0) return;
    if (k == 0 || alpha == 0.f) {
        if (bias) put_bias(m, n, bias, c, ldc);
        else scale_c(m, n, beta, c, ldc);
        return;
    }
    /* the columns up to B's first line boundary, then the rest */
    sk_gemm_run_bias(d, ta, tb, m, h, k, alpha, a, lda, b, ldb, beta, bias, c, ldc);
    sk_gemm_run_bias(d, ta, tb, m, n - h, k, alpha, a, lda, b + h, ldb, beta,
                     bias ? bias + h : NULL, c + h, ldc);
}

void sk_gemm_run_bias(const sk_gemm_dsp *d, sk_trans ta, sk_trans tb, size_t m, size_t n, size_t k,
                      float alpha, const float *a, size_t lda, const float *b, size_t ldb,
                      float beta, const float *bias, float *c, size_t ldc)
{
    GEMM_LD1();
    size_t h = 0;
    if (m == 0 || n == 0 || k == 0 || alpha == 0.f ||
        (h = realign_cols(d, ta, tb, m, n, k, b, ldb)) != 0) {
        run_unplanned(d, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, bias, c, ldc, h);
        return;
    }
    const gemm_plan *p = plan_memo(d, ta, tb, m, n, k, lda, ldb);
    if (plan_direct_nn(p, tb))
        run_direct(d, p, NULL, tb, n, k, alpha, a, lda, b, ldb, beta, bias, c, ldc);
    else
        gemm_run_plan(d, p, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, bias, c, ldc);
}

void sk_gemm_run(const sk_gemm_dsp *d, sk_trans ta, sk_trans tb, size_t m, size_t n, size_t k,
                 float alpha, const float *a, size_t lda, const float *b, size_t ldb, float beta,
                 float *c, size_t ldc)
{
    sk_gemm_run_bias(d, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, NULL, c, ldc);
}

void sk_gemm_prepare(const sk_gemm_dsp *d, sk_trans ta, sk_trans tb, size_t m, size_t n, size_t k,
                     float alpha, size_t lda, size_t ldb, float beta, size_t ldc,
                     sk_gemm_prepared *g)
{
    GEMM_LD1();
    g->d = d;
    g->ta = ta, g->tb = tb;
    g->m = m, g->n = n, g->k = k;
    g->lda = lda, g->ldb = ldb, g->ldc = ldc;
    g->alpha = alpha, g->beta = beta;
    g->work = m == 0 || n == 0 ? SK_GEMM_NOTHING
            : k == 0 || alpha == 0.f ? SK_GEMM_SCALE_C : SK_GEMM_PRODUCT;
    if (g->work == SK_GEMM_PRODUCT)
        plan_make(d, plan_path(d, ta, tb, m, n, k, ldb), ta, tb, m, n, k, lda, ldb, &g->plan);
}

void sk_gemm_run_prepared_tp(const sk_threadpool *tp, const sk_gemm_prepared *g, const float *a,
                             const float *b, float *c)
{
    switch (g->work) {
    case SK_GEMM_NOTHING:
        return;
    case SK_GEMM_SCALE_C:
        scale_c(g->m, g->n, g->beta, c, g->ldc);
        return;
    case SK_GEMM_PRODUCT:
        /* split as the call; on a pool, its partition plans each tile of C itself */
        if (realign_cols(g->d, g->ta, g->tb, g->m, g->n, g->k, b, g->ldb) || sk_tp_threads(tp) > 1)
            sk_gemm_run_bias_tp(tp, g->d, g->ta, g->tb, g->m, g->n, g->k, g->alpha, a, g->lda,
                                b, g->ldb, g->beta, NULL, c, g->ldc);
        else if (plan_direct_nn(&g->plan, g->tb))
            run_direct(g->d, &g->plan, NULL, g->tb, g->n, g->k, g->alpha, a, g->lda, b, g->ldb,
                       g->beta, NULL, c, g->ldc);
        else
            gemm_run_plan(g->d, &g->plan, g->ta, g->tb, g->m, g->n, g->k, g->alpha, a, g->lda,
                          b, g->ldb, g->beta, NULL, c, g->ldc);
        return;
    }
}

/* --- partition over the caller's thread pool ----------------------------------------------------
 * A layer above the plan: each task runs the path of the whole problem on a tile of C, so every
 * element sees the arithmetic of the single-threaded call.
 *   blocked: columns at multiples of NR inside one NC block (the partial panels of the call, at
 *            the end of an NC block and at n, stay where they are: the edge tiles merge through
 *            a stack tile), rows at multiples of MC (the same MC blocks, hence the same row
 *            blocks and kernels); k is never split.
 *   m == 1, dot, rows_n: columns in groups of the table's gemv_group (a multiple of every
 *            matrix-vector kernel's column group), the rest in the last task.
 *   NT, few rows: columns at multiples of the kernel's row count, at least one such group in the
 *            last task (the near-equal split of the last tiles is the call's).
 *   reference: any rows (every element is its own sum).
 * Each task packs into its own thread's buffers; a pool is woken only for at least the table's
 * tp_min_flops per task (tp_min_flops_row on the memory-bound m == 1 and dot paths). */
typedef struct gemm_job {
    const sk_gemm_dsp *d;
    enum gemm_path path;
    sk_trans ta, tb;
    size_t m, n, k;
    float alpha, beta;
    const float *a, *b, *bias;
    float *c;
    size_t lda, ldb, ldc;
    size_t ru, rn, rparts;       /* row unit (rows), row units, row parts */
    size_t cu, cn, cparts, upb;  /* column unit, column units, column parts, units per NC block */
} gemm_job;

/* Column of the start of column unit u (clamped to n). */
static size_t gemm_col(const gemm_job *j, size_t u)
{
    const size_t nc = j->d->nc;
    const size_t col = j->upb ? u / j->upb * nc + u % j->upb * j->cu : u * j->cu;
    return col < j->n ? col : j->n;
}

static void gemm_task(void *arg, size_t t)
{
    const gemm_job *j = arg;
    const size_t ri = t / j->cparts, ci = t % j->cparts;
    const size_t r0 = sk_part_bound(j->rn, j->rparts, ri) * j->ru;
    const size_t r1 = ri + 1 == j->rparts ? j->m : sk_part_bound(j->rn, j->rparts, ri + 1) * j->ru;
    const size_t c0 = gemm_col(j, sk_part_bound(j->cn, j->cparts, ci));
    const size_t c1 =
        ci + 1 == j->cparts ? j->n : gemm_col(j, sk_part_bound(j->cn, j->cparts, ci + 1));
    if (r0 >= r1 || c0 >= c1) return;
    const float *a = j->ta ? j->a + r0 : j->a + r0 * j->lda;
    /* one call per NC block the columns touch (blocked path): the panels of an NC block start at
       its first column, as in the whole call */
    const size_t nc = j->upb ? j->d->nc : j->n;
    for (size_t s = c0, e; s < c1; s = e) {
        e = (s / nc + 1) * nc < c1 ? (s / nc + 1) * nc : c1;
        const float *b = j->tb ? j->b + s * j->ldb : j->b + s;
        gemm_run_path(j->d, j->path, j->ta, j->tb, r1 - r0, e - s, j->k, j->alpha, a, j->lda, b,
                      j->ldb, j->beta, j->bias ? j->bias + s : NULL, j->c + r0 * j->ldc + s,
                      j->ldc);
    }
}

/* 1 when the call ran as chunks on tp (else the caller runs it as one task). */
static int run_row_tp(const sk_threadpool *tp, const sk_gemm_dsp *d, sk_trans ta, size_t n,
                      size_t k, size_t nk, size_t kr, size_t parts, float alpha, const float *a,
                      size_t lda, const float *b, size_t ldb, float beta, const float *bias,
                      float *c)
{
    float *s = parts > 1 ? sk_tbuf_get(SK_TBUF_GEMM, (nk - 1) * n) : NULL;
    if (!s) return 0; /* one task: the plain call's sums (its own fallback without memory) */
    if (bias) {
        copy_row(c, bias, n);
        beta = 1.f;
    }
    const size_t cn = udiv(n, d->gemv_group);
    size_t cp = nk >= parts ? 1 : cdiv(parts, nk);
    cp = cp < cn ? cp : cn ? cn : 1;
    row_chunked(tp, cp, d, ta, n, k, nk, kr, alpha, a, lda, b, ldb, beta, c, s);
    return 1;
}

void sk_gemm_run_bias_tp(const sk_threadpool *tp, const sk_gemm_dsp *d, sk_trans ta, sk_trans tb,
                         size_t m, size_t n, size_t k, float alpha, const float *a, size_t lda,
                         const float *b, size_t ldb, float beta, const float *bias, float *c,
                         size_t ldc)
{
    if (m == 0 || n == 0 || k == 0 || alpha == 0.f || sk_tp_threads(tp) == 1) {
        sk_gemm_run_bias(d, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, bias, c, ldc);
        return;
    }
    GEMM_LD1();
    const size_t h = realign_cols(d, ta, tb, m, n, k, b, ldb);
    if (h) { /* as the plain call: the columns up to B's first line boundary, then the rest */
        sk_gemm_run_bias_tp(tp, d, ta, tb, m, h, k, alpha, a, lda, b, ldb, beta, bias, c, ldc);
        sk_gemm_run_bias_tp(tp, d, ta, tb, m, n - h, k, alpha, a, lda, b + h, ldb, beta,
                            bias ? bias + h : NULL, c + h, ldc);
        return;
    }
    const enum gemm_path path = plan_path(d, ta, tb, m, n, k, ldb);
    gemm_job j = { .d = d, .path = path, .ta = ta, .tb = tb, .m = m, .n = n, .k = k,
                   .alpha = alpha, .beta = beta, .a = a, .b = b, .bias = bias, .c = c,
                   .lda = lda, .ldb = ldb, .ldc = ldc, .ru = 1, .rn = 1, .cu = 1, .cn = 1,
                   .upb = 0 };
    const double flops = 2.0 * (double)m * (double)n * (double)k;
    const int rowlike = j.path == PATH_ROW || j.path == PATH_DOT || j.path == PATH_ROWS;
    size_t tasks = sk_tp_tasks(tp, flops, rowlike ? d->tp_min_flops_row : d->tp_min_flops);
    size_t kr, nk;
    if (j.path == PATH_ROW && (nk = row_chunks(d, tb, n, k, ldb, &kr)) > 1) {
        const size_t nt = sk_tp_threads(tp);
        if (!run_row_tp(tp, d, ta, n, k, nk, kr, tasks < nt ? tasks : nt, alpha, a, lda, b, ldb,
                        beta, bias, c))
            sk_gemm_run_bias(d, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, bias, c, ldc);
        return;
    }
    switch (j.path) {
    case PATH_REF:
        j.ru = 1, j.rn = m;
        break;
    case PATH_ROW:
    case PATH_DOT:
    case PATH_ROWS:
        j.cu = d->gemv_group, j.cn = n / d->gemv_group;
        break;
    case PATH_NT_ROWS:
        j.cu = plan_t_rows(d, m, k, ldb); /* as the plan of the call */
        j.cn = n / j.cu;
        break;
    case PATH_BLOCKED:
    case PATH_WIDE: { /* the tile of the call's path */
        const size_t nr = j.path == PATH_WIDE ? d->w_nr : d->nr;
        j.ru = d->mc, j.rn = cdiv(m, d->mc);
        j.cu = nr, j.upb = cdiv(d->nc, nr);
        j.cn = n / d->nc * j.upb + cdiv(n % d->nc, nr);
        break;
    }
    }
    /* The longer side of C is cut first (a column part packs all of A again, a row part all of
       B), into a part per thread, the other side into the threads left. More parts than threads
       (sk_tp_tasks) only where they cost no packing: the columns of a call whose rows are one
       unit (one MC block: A in place, each B panel read once, whichever part reads it), and not
       on the memory-bound m == 1 and dot paths: there each part reads its columns' piece of
       every row of B, and four pieces of 1 KB per 4-8 KB row, read at different times, ran
       slower on 2 threads than one (1x2048x2048 0.77-1.07x on Zen 1; a part per thread 1.48-1.67x,
       docs/bench/gemm-tuning.md). */
    const int rows_first = (j.path == PATH_BLOCKED || j.path == PATH_WIDE) && m > n;
    const size_t u1 = rows_first ? j.rn : j.cn, u2 = rows_first ? j.cn : j.rn;
    const size_t nt = sk_tp_threads(tp), one = tasks < nt ? tasks : nt;
    size_t p1 = u1 < one ? u1 : one;
    p1 = p1 ? p1 : 1;
    size_t p2 = one / p1 < u2 ? one / p1 : u2;
    p2 = p2 ? p2 : 1;
    if (!rows_first && j.rn == 1 && u1 > p1 && !rowlike) p1 = u1 < tasks ? u1 : tasks;
    j.rparts = rows_first ? p1 : p2;
    j.cparts = rows_first ? p2 : p1;
    tasks = j.rparts * j.cparts;
    if (tasks == 1) {
        sk_gemm_run_bias(d, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, bias, c, ldc);
        return;
    }
    sk_tp_run(tp, tasks, gemm_task, &j);
}


/* --- op(B) packed once -------------------------------------------------------------------------
 * A B that many calls share (a layer's weights) is packed once into the tile's panels, each
 * panel's k rows contiguous (gemm.h): a call reads it in order, a panel after the other, whatever
 * B's row stride was (no L1 set conflicts at 4 KiB strides, no per-call pack, NT as fast as NN).
 *   one MC block with its rows of A read in place (the plan's rule for A's rows): each r x nr tile
 *       of C is one kernel call over the whole k, panel after panel;
 *   otherwise: k in the table's kc blocks (beta on the first), each MC x kc block of A packed;
 *   m == 1 with a contiguous op(A): the matrix-vector kernel on each panel;
 *   A in place, panels as wide as the wide tile, the rows it takes (wide_rows; any B stride: the
 *       packed B has none): the wide tile, a row block at a time. */

size_t sk_gemm_packed_floats(const sk_gemm_dsp *d, size_t k, size_t n)
{
    const size_t PW = d->pack_nr;
    size_t cols, f;
    if (!sk_add_ok(n, PW - 1, &cols)) return 0;
    cols = udiv(cols, PW) * PW;
    /* with the caller's 64-byte header the buffer stays within the largest object */
    if (!sk_mul_ok(cols, k, &f) || f > SK_ELEMS_MAX - 16) return 0;
    return f;
}

void sk_gemm_pack_b(const sk_gemm_dsp *d, sk_trans tb, size_t k, size_t n, const float *b,
                    size_t ldb, float *pb)
{
    const size_t PW = d->pack_nr;
    for (size_t j = 0; j < n; j += PW, pb += k * PW)
        pack_b(d, tb, n - j < PW ? n - j : PW, k, tb ? b + j * ldb : b + j, ldb, pb, PW);
}

typedef struct packed_plan {
    int row;              /* m == 1, op(A) contiguous: gemv_n on each panel */
    int direct;           /* A read in place, whole k per kernel call */
    int wide;             /* A in place, panels w_nr wide, wide_rows: the wide tile */
    row_split rows_wide;  /* its row blocks */
    size_t kc;            /* k block */
    row_split rows_full;  /* row blocks of a full MC block */
    row_split rows_last;  /* row blocks of the last MC block */
} packed_plan;

static void packed_plan_make(const sk_gemm_dsp *d, sk_trans ta, size_t m, size_t n, size_t k,
                             size_t lda, packed_plan *p)
{
    static const row_split none = { 0, 0, 0, 0 };
    const size_t MR = d->mr, MC = d->mc;
    const int direct = m <= MC && (umod(lda, d->set_stride) != 0 || (!ta && MR <= d->set_rows));
    p->row = m == 1 && d->gemv_n && (!ta || lda == 1);
    p->direct = direct;
    p->wide = direct && d->ukr_w && d->w_nr == d->pack_nr && wide_rows(d, m, n);
    p->rows_wide = p->wide ? split_rows(m, d->w_mr, 0) : none;
    p->kc = direct || k <= d->kc ? k : cdiv(k, cdiv(k, d->kc));
    p->rows_last = split_rows(m <= MC ? m : m - (cdiv(m, MC) - 1) * MC, MR, d->mr_rest_min);
    p->rows_full = m > MC ? split_rows(MC, MR, d->mr_rest_min) : none;
}

/* Panels wider than the tile, read by several MC blocks: the tile reads its nr-wide part of each
   panel row at the panel's stride, pack_nr floats, so a kc x nr part covers a fraction nr /
   pack_nr of L1's sets; from pk_copy_rows rows on, the first MC block's kernels copy each part
   they read into a kc x nr panel of its own (as sk_gemm_ukr_fn's bp), which the later MC blocks
   read contiguous. */
static int packed_copies(const sk_gemm_dsp *d, const packed_plan *p, size_t m)
{
    return !p->row && !p->direct && d->pack_nr > d->nr && d->pk_copy_rows &&
           m >= d->pk_copy_rows;
}

/* The packed path's NC block: whole panels, at least one. */
static size_t packed_nc(const sk_gemm_dsp *d)
{
    const size_t PW = d->pack_nr;
    return d->nc > PW ? udiv(d->nc, PW) * PW : PW;
}

/* The packed A blocks' floats (A packed: not p->row, not p->direct). */
static size_t packed_a_floats(const sk_gemm_dsp *d, const packed_plan *p, size_t m)
{
    return cdiv(m < d->mc ? m : d->mc, d->mr) * d->mr * p->kc;
}

/* The packed A blocks' floats (0: A in place), then the copies' (packed_copies: a kc x nc block
   of op(B), nc at most the NC block). */
static size_t packed_buf_floats(const sk_gemm_dsp *d, const packed_plan *p, size_t m, size_t n)
{
    if (p->row || p->direct) return 0;
    const size_t af = packed_a_floats(d, p, m), NCP = packed_nc(d);
    if (!packed_copies(d, p, m)) return af;
    return af + (n < NCP ? cdiv(n, d->nr) * d->nr : NCP) * p->kc;
}

/* m, n, k >= 1, alpha != 0. buf: packed_buf_floats, or NULL: A read in place (the same kernel
   arithmetic as packed, slower at some strides) and no copies of the panels' parts. */
static void run_packed(const sk_gemm_dsp *d, const packed_plan *p, float *buf, sk_trans ta,
                       size_t m, size_t n, size_t k, float alpha, const float *a, size_t lda,
                       const float *pb, float beta, const float *bias, float *c, size_t ldc)
{
    const size_t MR = d->mr, NR = d->nr, PW = d->pack_nr, MC = d->mc, KC = p->kc;
    float *abuf = buf; /* then the copies (packed_copies) */
    float *bbuf = buf && packed_copies(d, p, m) ? buf + packed_a_floats(d, p, m) : NULL;
    if (p->row) {
        if (bias) copy_row(c, bias, n); /* the row of C starts as the bias; the kernels add */
        for (size_t j = 0; j < n; j += PW, pb += k * PW)
            d->gemv_n(n - j < PW ? n - j : PW, k, alpha, a, pb, PW, bias ? 1.f : beta, c + j);
        return;
    }
    const int in_place = p->direct || !abuf;
    const size_t rsa = !in_place ? 1 : ta ? 1 : lda, csa = !in_place ? MR : ta ? lda : 1;
    SK_ALIGN(64) float tile[TILE_MAX];
    /* the entry's r-row kernels for the row blocks (split_tiles): one indirect call per tile */
    const int lay = csa == 1 ? SK_GEMM_TILE_ROWS : SK_GEMM_TILE_COLS;
    const size_t sa = csa == 1 ? rsa : csa;
    sk_gemm_tile_fn f[2], fc[2]; /* ... and those copying B */
    if (p->wide) { /* rows of A in place: one wide tile per panel and row block, whole k */
        const float be = bias ? 1.f : beta;
        const row_split *rs = &p->rows_wide;
        split_tiles(d->tiles_w, lay, rs, f);
        for (size_t j = 0; j < n; j += PW, pb += k * PW) {
            const size_t nr = n - j < PW ? n - j : PW;
            if (bias) put_bias(m, nr, bias + j, c + j, ldc);
            for (size_t q = 0, i = 0; q < rs->count; q++) {
                const size_t r = q < rs->first ? rs->hi : rs->lo;
                const float *ai = ta ? a + i : a + i * lda;
                float *ci = c + i * ldc + j;
                if (SK_LIKELY(nr == PW)) {
                    (q < rs->first ? f[0] : f[1])(k, ai, sa, pb, PW, ci, ldc, alpha, be, NULL,
                                                  NULL, 0);
                } else {
                    d->ukr_w(r, k, ai, rsa, csa, pb, PW, tile, PW, alpha, 0.f, NULL, NULL, 0);
                    merge_tile(r, nr, tile, PW, be, ci, ldc);
                }
                i += r;
            }
        }
        return;
    }
    const float *ar[RB_MAX];
    /* NC blocks of whole panels: each MC block reuses the kc x nc block of B from L2 / L3, where
       the whole of a large B would come from memory again for every MC block */
    const size_t NCP = packed_nc(d);
    for (size_t jc = 0; jc < n; jc += NCP) {
        const size_t jn = n - jc < NCP ? n : jc + NCP; /* columns [jc, jn) */
        for (size_t pc = 0; pc < k; pc += KC) {
            const size_t kc = k - pc < KC ? k - pc : KC;
            const float be = pc == 0 && !bias ? beta : 1.f;
            const float *bb = pc == 0 ? bias : NULL; /* the bias goes in before the first k block */
            for (size_t ic = 0; ic < m; ic += MC) {
                const row_split *rs = ic + MC < m ? &p->rows_full : &p->rows_last;
                const float *asrc = ta ? a + pc * lda + ic : a + ic * lda + pc; /* op(A)(ic, pc) */
                split_tiles(d->tiles, lay, rs, f);
                split_tiles(d->tiles, lay + 2, rs, fc);
                for (size_t q = 0, r0 = 0; q < rs->count; q++) {
                    const size_t r = q < rs->first ? rs->hi : rs->lo;
                    ar[q] = ta ? asrc + r0 : asrc + r0 * lda;
                    if (!in_place) {
                        pack_a(d, ta, r, kc, ar[q], lda, abuf + q * MR * kc, MR);
                        ar[q] = abuf + q * MR * kc;
                    }
                    r0 += r;
                }
                for (size_t j = jc; j < jn; j += NR) { /* the nr-wide parts of each panel */
                    const size_t jp = udiv(j, PW) * PW; /* its panel's first column */
                    const float *panel = pb + jp * k + pc * PW + (j - jp); /* row pc, column j */
                    const size_t nr = n - j < NR ? n - j : NR;
                    float *cj = c + ic * ldc + j;
                    /* a whole part's copy: made by the first MC block's first row block */
                    float *cp = bbuf && nr == NR ? bbuf + (j - jc) * kc : NULL;
                    for (size_t q = 0; q < rs->count; q++) {
                        const size_t r = q < rs->first ? rs->hi : rs->lo;
                        if (bb) put_bias(r, nr, bb + j, cj, ldc);
                        if (SK_LIKELY(nr == NR)) {
                            const int from_copy = cp && (ic > 0 || q > 0), lo = q >= rs->first;
                            const float *bq = from_copy ? cp : panel;
                            const size_t rsb = from_copy ? NR : PW;
                            float *bp = cp && !from_copy ? cp : NULL;
                            (bp ? fc[lo] : f[lo])(kc, ar[q], sa, bq, rsb, cj, ldc, alpha, be,
                                                  bp, NULL, 0);
                        } else {
                            d->ukr(r, kc, ar[q], rsa, csa, panel, PW, tile, NR, alpha, 0.f, NULL,
                                   NULL, 0);
                            merge_tile(r, nr, tile, NR, be, cj, ldc);
                        }
                        cj += r * ldc;
                    }
                }
            }
        }
    }
}

/* Partition over the pool: rows at multiples of MC (the same MC blocks, hence the same row blocks
   and kernels), columns at multiples of pack_nr (whole panels); k never split. */
typedef struct packed_job {
    const sk_gemm_dsp *d;
    packed_plan p;
    sk_trans ta;
    size_t m, n, k, lda, ldc;
    float alpha, beta;
    const float *a, *pb, *bias;
    float *c;
    size_t rn, cn, rparts, cparts; /* MC blocks, panels, and the parts of each */
} packed_job;

static void packed_task(void *arg, size_t t)
{
    const packed_job *j = arg;
    const sk_gemm_dsp *d = j->d;
    const size_t ri = t / j->cparts, ci = t % j->cparts;
    const size_t r0 = sk_part_bound(j->rn, j->rparts, ri) * d->mc;
    const size_t r1 = ri + 1 == j->rparts ? j->m : sk_part_bound(j->rn, j->rparts, ri + 1) * d->mc;
    const size_t c0 = sk_part_bound(j->cn, j->cparts, ci) * d->pack_nr;
    const size_t c1 =
        ci + 1 == j->cparts ? j->n : sk_part_bound(j->cn, j->cparts, ci + 1) * d->pack_nr;
    if (r0 >= r1 || c0 >= c1) return;
    packed_plan p = j->p;
    if (r1 < j->m) p.rows_last = p.rows_full; /* this part's last MC block is a full one */
    const size_t bf = packed_buf_floats(d, &p, r1 - r0, c1 - c0);
    float *buf = bf ? sk_tbuf_get(SK_TBUF_GEMM, bf) : NULL;
    run_packed(d, &p, buf, j->ta, r1 - r0, c1 - c0, j->k, j->alpha,
               j->ta ? j->a + r0 : j->a + r0 * j->lda, j->lda, j->pb + c0 * j->k, j->beta,
               j->bias ? j->bias + c0 : NULL, j->c + r0 * j->ldc + c0, j->ldc);
}

void sk_gemm_run_packed_bias_tp(const sk_threadpool *tp, const sk_gemm_dsp *d, sk_trans ta,
                                size_t m, size_t n, size_t k, float alpha, const float *a,
                                size_t lda, const float *pb, float beta, const float *bias,
                                float *c, size_t ldc)
{
    if (m == 0 || n == 0) return;
    lda = sk_ld1(ta ? k : m, ta ? m : k, lda);
    ldc = sk_ld1(m, n, ldc);
    if (k == 0 || alpha == 0.f) { /* A and B not read (BLAS semantics) */
        if (bias) put_bias(m, n, bias, c, ldc);
        else scale_c(m, n, beta, c, ldc);
        return;
    }
    packed_plan p;
    packed_plan_make(d, ta, m, n, k, lda, &p);
    const size_t rn = cdiv(m, d->mc), cn = cdiv(n, d->pack_nr);
    size_t rparts = 1, cparts = 1;
    if (sk_tp_threads(tp) > 1) {
        const double flops = 2.0 * (double)m * (double)n * (double)k;
        const size_t tasks = sk_tp_tasks(tp, flops, p.row ? d->tp_min_flops_row : d->tp_min_flops);
        const size_t nt = sk_tp_threads(tp), one = tasks < nt ? tasks : nt;
        /* one MC block: columns only, up to `tasks` parts (A in place or packed per part);
           several: rows first (a row part reads all of B, a column part packs all of A) */
        if (rn == 1) {
            cparts = cn < tasks ? cn : tasks;
        } else {
            rparts = rn < one ? rn : one;
            cparts = one / rparts < cn ? one / rparts : cn;
            cparts = cparts ? cparts : 1;
        }
    }
    if (rparts * cparts > 1) {
        packed_job j = { .d = d, .p = p, .ta = ta, .m = m, .n = n, .k = k, .lda = lda,
                         .ldc = ldc, .alpha = alpha, .beta = beta, .a = a, .pb = pb,
                         .bias = bias, .c = c, .rn = rn, .cn = cn, .rparts = rparts,
                         .cparts = cparts };
        sk_tp_run(tp, rparts * cparts, packed_task, &j);
        return;
    }
    /* one task: no job (zeroing it and reading its fields back cost more than the partition) */
    const size_t bf = packed_buf_floats(d, &p, m, n);
    run_packed(d, &p, bf ? sk_tbuf_get(SK_TBUF_GEMM, bf) : NULL, ta, m, n, k, alpha, a, lda, pb,
               beta, bias, c, ldc);
}
