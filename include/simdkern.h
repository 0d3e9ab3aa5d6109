/* simdkern — SIMD compute kernels for attention on CPUs.
 *
 * One public header. Every external symbol is prefixed sk_ / SK_. All matrices are row-major
 * float32; every ld* is a row stride in elements and must be >= the row length it strides over.
 *
 * Errors: bad input (NULL with nonzero sizes, ld too small, unknown enum value, n_heads == 0,
 * d_model % n_heads != 0, sizes whose products overflow or whose extent (rows - 1)·ld + cols
 * exceeds PTRDIFF_MAX / 4 elements, outputs overlapping inputs where stated) returns SK_EINVAL and
 * writes nothing. Zero sizes return SK_OK. Size queries return 0 when a size overflows.
 * Nothing aborts, asserts on user input, or prints on a normal call.
 *
 * Threads: any function may be called from many threads at once, including the first call.
 * sk_isa_select is a process-wide setting meant for tests and benchmarks. The _tp variants run a
 * call on the caller's thread pool, with results bitwise identical to the plain call (below).
 */
#ifndef SIMDKERN_H
#define SIMDKERN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SK_VERSION_MAJOR 0
#define SK_VERSION_MINOR 1
#define SK_VERSION_PATCH 0
const char *sk_version(void);               /* "0.1.0" */

typedef enum sk_status {
    SK_OK = 0,
    /* bad argument: NULL with nonzero size, ld too small, unknown enum, d_model % n_heads != 0 */
    SK_EINVAL,
    SK_ENOMEM,       /* scratch allocation failed */
    SK_EUNSUPPORTED, /* ISA not built in, or not supported by this CPU and OS */
} sk_status;
const char *sk_status_str(sk_status s);

/* ---- ISA dispatch ------------------------------------------------------------------------ */
typedef enum sk_isa {
    SK_ISA_SCALAR = 0,
    SK_ISA_AVX2,
    SK_ISA_AVX512,
    SK_ISA_NEON,
    SK_ISA_COUNT
} sk_isa;
const char *sk_isa_name(sk_isa isa);        /* "scalar", "avx2", "avx512", "neon" */
int         sk_isa_available(sk_isa isa);   /* built in AND usable on this CPU and OS */
sk_isa      sk_isa_active(void);            /* the path calls use now */
sk_status   sk_isa_select(sk_isa isa);      /* force a path; SK_EUNSUPPORTED if not available */
/* sk_isa_select returns SK_EINVAL for a value outside the enum.
   Environment: SIMDKERN_ISA=scalar|avx2|avx512|neon (lower case, exact) picks the path at first
   use. An unknown or unavailable value is ignored: the best available path is used. */

/* ---- GEMM -------------------------------------------------------------------------------- */
typedef enum sk_trans { SK_NOTRANS = 0, SK_TRANS = 1 } sk_trans;
/* Row-major. C[m x n] = alpha * op(A)[m x k] * op(B)[k x n] + beta * C. beta == 0: C is not read.
   op(A) = A (m x k, lda >= k) or A^T (A is k x m, lda >= m); likewise op(B).
   Error bound, every path, every k >= 1 (the + 4 counts the roundings of the alpha and beta
   products and of the final add, which dominate for small k):
     |C - exact| <= (2·k + 4)·2^-24·(|alpha|·|op(A)|·|op(B)| + |beta|·|C0|)   elementwise,
   plus (2·k + 4)·2^-149·max(1, |alpha|) for roundings in the subnormal range. The products are
   summed before alpha scales them (as in every BLAS): the bound holds while the unscaled sums
   |op(A)|·|op(B)| stay below 2^126; beyond that a sum may overflow to inf.
   An operand with one row (m == 1 for C, k == 1 for B, ...) never uses its ld (any value >= its
   row length is accepted).
   Operands whose rows start on 64-byte boundaries run fastest. NN with few rows (up to a row
   cache block) and a B that starts off a boundary, at a row stride that is a multiple of 16
   floats, runs the columns before B's first boundary as a call of their own where the rest is
   wide enough to gain (on AMD Zen 5, AVX-512, B 16 to 48 bytes off: 8x1024x1024 1.4x faster than
   without the split, 2x512x512 1.1-1.3x); the split follows from the operands alone, so the _tp
   and planned calls make it too. */
sk_status sk_sgemm(sk_trans ta, sk_trans tb, size_t m, size_t n, size_t k,
                   float alpha, const float *a, size_t lda, const float *b, size_t ldb,
                   float beta, float *c, size_t ldc);

/* GEMM with op(B) packed once: for a B that many calls share (a layer's weights: x @ W at every
   decoder step). sk_sgemm_pack_b copies op(B) (k x n) into the layout the active path's register
   tile reads (panels of one or two tiles' width, each panel's k rows contiguous, zero-padded to
   whole panels, after a 64-byte header that records the path, k and n); sk_sgemm_packed then
   computes
     C[m x n] = alpha * op(A)[m x k] * op(B)[k x n] + beta * C
   from it, reading the panels in order whatever B's row stride was and without packing B again
   (NT and NN alike). Same semantics, error bound and NaN rules as sk_sgemm (the summation order
   may differ from sk_sgemm's: results agree within the bound, not bit for bit).
   The packed buffer: packed_bytes >= sk_sgemm_pack_b_size(k, n) for the path active when it is
   packed, aligned to 4 bytes at least (64: fastest); SK_EINVAL for a misaligned, NULL or smaller
   one (as when sk_isa_select changed the path between the size query and the pack). It may be
   copied or moved, and shared by any number of concurrent calls. A call runs on the path the
   buffer was packed for, whatever sk_isa_select says since: SK_EUNSUPPORTED when that path is
   not available here (a buffer packed on another machine), SK_EINVAL when the buffer's header
   does not hold this k and n (or is not a packed B). */
size_t    sk_sgemm_pack_b_size(size_t k, size_t n); /* bytes; 0 when the size overflows */
sk_status sk_sgemm_pack_b(sk_trans tb, size_t k, size_t n, const float *b, size_t ldb,
                          void *packed, size_t packed_bytes);
sk_status sk_sgemm_packed(sk_trans ta, size_t m, size_t n, size_t k, float alpha, const float *a,
                          size_t lda, const void *packed, float beta, float *c, size_t ldc);

/* GEMM planned once: for products of one shape run many times (per-head products, a decoder's
   per-step projections), as a JIT library's dispatched kernel is. sk_sgemm_plan_init checks the
   transposes, sizes, strides, alpha and beta once and picks the path, blocks and kernels for them
   on the active path; sk_sgemm_plan_run then computes
     C[m x n] = alpha * op(A)[m x k] * op(B)[k x n] + beta * C
   on the operands it is given, checking only the plan and that a, b and c are not NULL where
   their sizes are nonzero (as sk_sgemm). Its result is bit for bit that of sk_sgemm with the same
   arguments on the plan's path (the same kernels on the same blocks), hence the same bound and
   NaN rules. A plan owns no memory: it may be copied, shared by concurrent runs and dropped
   without a call; it keeps the path active at its init, whatever sk_isa_select says since.
   Init writes the plan only when it returns SK_OK; a run of anything that is not a plan (or a
   copy of one) made by sk_sgemm_plan_init returns SK_EINVAL when it can tell (a zeroed struct).
   What it saves is per call: on 32 x 32 x 32 about 5% of sk_sgemm's time. */
typedef struct sk_sgemm_plan {
    uint64_t opaque[64];
} sk_sgemm_plan;
sk_status sk_sgemm_plan_init(sk_sgemm_plan *plan, sk_trans ta, sk_trans tb, size_t m, size_t n,
                             size_t k, float alpha, size_t lda, size_t ldb, float beta,
                             size_t ldc);
sk_status sk_sgemm_plan_run(const sk_sgemm_plan *plan, const float *a, const float *b, float *c);

/* ---- exp and softmax --------------------------------------------------------------------- */
/* y[i] = exp(x[i]); y may equal x. <= 1 ulp wherever the result is a normal float (results
   below FLT_MIN may flush to 0); exp(-inf) = 0, exp(+inf) = +inf, overflow -> +inf, NaN -> NaN.
   Subnormals: the x86 vector paths flush results below FLT_MIN to 0 and read subnormal x as 0
   (exp = 1 either way), so that no instruction touches a subnormal (microcode assists: 10-100x);
   the softmax family reads subnormal x as 0 there too (a score moves by < |scale|·2^-126).
   The AVX2 path sets MXCSR's FTZ and DAZ bits for the call and restores them before returning. */
sk_status sk_exp(size_t n, const float *x, float *y);

/* y = softmax over each row of x; y may equal x. Rows up to 65536 columns:
     |y - exact| <= (1e-5 + expm1(2^-22·T))·exact + 1e-9,  T = the row's max of |x| (with a scale
   and a mask below: of |scale·x| + |mask| over the attended positions); expm1(2^-22·T) is about
   2^-22·T while that is small. The T term is the rounding of the scores to float before the max
   is subtracted (every float implementation has it): scores off by up to 2^-23·T move a weight
   by a factor within exp of twice that, so once T is large enough for float scores to be off by
   whole units (T >~ 2^23), weights can be off by whole factors. The scalar path computes in
   double and stays far inside the bound. Every path gives the scalar
   path's result on rows whose scores overflow float (scale·x beyond FLT_MAX): they are computed
   in double there. A NaN, or +inf (inf - inf), in a row makes that row NaN. */
sk_status sk_softmax(size_t rows, size_t cols, const float *x, size_t ldx, float *y, size_t ldy);

typedef enum sk_mask_kind {
    SK_MASK_NONE = 0,
    SK_MASK_KEYS,     /* data: uint8_t[cols], nonzero = attend (key padding), same for every row */
    SK_MASK_BOOL,     /* data: uint8_t rows x ld, nonzero = attend */
    SK_MASK_ADD,      /* data: float rows x ld, added after scaling; -INFINITY = masked */
    SK_MASK_CAUSAL,   /* row r attends to columns c <= r + offset */
} sk_mask_kind;
typedef struct sk_mask {
    sk_mask_kind kind;
    const void *data;
    size_t ld;
    ptrdiff_t offset;
} sk_mask;

/* y[r,:] = softmax(scale * x[r,:] (+ mask)); masked positions are exactly 0 in every row; a row
   with every position masked is all zeros (never NaN). mask may be NULL. y may equal x.
   Bound as sk_softmax, T = the row's max over attended positions of |scale·x| + |mask|.
   A NaN or +inf score in an attended position makes that row's attended positions NaN (its
   masked positions stay 0); NaN or inf in a masked-out position (BOOL/KEYS/CAUSAL, or an ADD
   value of -inf) does not leak. Any CAUSAL offset is valid (PTRDIFF_MAX: nothing masked). */
sk_status sk_scale_mask_softmax(size_t rows, size_t cols, float scale, const float *x, size_t ldx,
                                const sk_mask *mask, float *y, size_t ldy);

/* ---- attention --------------------------------------------------------------------------- */
/* One head: out[n_q x d_v] = softmax(scale * q k^T + mask) v. weights NULL: not written, and the
   n_q x n_kv score matrix is never formed whole; else weights[n_q x n_kv] (row stride n_kv).
   The mask is indexed [query row, key column]. A fully masked query row gives a zero output row.
   A masked key's row of v is multiplied by an exact zero weight, as in a GEMM: v rows of masked
   keys must be finite (a NaN or Inf there reaches the output as 0·NaN), padding need not be
   zeroed.
   Bounds (every path), T = the row's max over attended keys of |scale|·sum_p |q_p k_p| + |mask|,
   E = expm1((d_k + 1)·2^-22·T) (about (d_k + 1)·2^-22·T while that is small):
     weights: |w - exact| <= (1e-5 + E)·exact + 1e-9, masked weights exactly 0;
     out:     |out - exact| <= (1e-5 + E)·sum_j w_j·|v_j| + 1e-6·max_j |v_j|.
   (the d_k term is the score GEMM's bound, the rest the softmax family's: scores off by up to
   (d_k + 1)·2^-23·T move a weight by a factor within exp of twice that, so where T is large
   enough for the float scores to be off by whole units, weights can be off by whole factors.)
   NaN and inf follow the softmax rules per query row; scores are computed in float, so where
   |scale|·sum_p |q_p k_p| + |mask| (or sum_p |q_p k_p|) exceeds FLT_MAX / 2 a score may overflow
   to inf and the row be NaN (unlike the softmax family, whose inputs are the scores). scale == 0:
   every score is 0 (+ mask) and q and k are not read, as alpha == 0 in a GEMM (a NaN or inf in
   them does not reach the result). Aliasing: out and weights must not overlap q, k, v or each
   other (SK_EINVAL, nothing written: the extents [p, p + (rows - 1)·ld + cols) are compared, so an
   out interleaved column-wise with q in one buffer is refused too); q, k and v may overlap each
   other. */
sk_status sk_attention(size_t n_q, size_t n_kv, size_t d_k, size_t d_v,
                       const float *q, size_t ldq, const float *k, size_t ldk,
                       const float *v, size_t ldv, float scale, const sk_mask *mask,
                       float *out, size_t ldo, float *weights);

/* Heads side by side in each row: head h is columns [h*d_head, (h+1)*d_head) of q, k, v and out.
   weights NULL or [n_heads x n_q x n_kv] contiguous. The same mask applies to every head.
   Bounds, NaN and aliasing rules as sk_attention (with d_k = d_head). */
sk_status sk_mha(size_t n_heads, size_t n_q, size_t n_kv, size_t d_head,
                 const float *q, size_t ldq, const float *k, size_t ldk, const float *v, size_t ldv,
                 float scale, const sk_mask *mask, float *out, size_t ldo, float *weights);

/* Multi-head cross-attention module: Q = dec W_q + b_q, K = enc W_k + b_k, V = enc W_v + b_v,
   n_heads heads of d_model / n_heads columns, scale 1/sqrt(d_head), out = concat(heads) W_o + b_o.
   dec rows are d_model wide, enc rows d_enc wide (0: d_model, like an encoder of the same width);
   Q, K, V, the concat and out are d_model wide. A NULL bias is none (0). An initializer of the
   first six fields only leaves d_enc, the biases and the packed weights zero: the bias-free,
   d_enc = d_model module reading its weights in place.
   Weights are applied as x @ W: a PyTorch nn.Linear / nn.MultiheadAttention weight (out x in,
   applied as x @ W^T) is stored here transposed. */
typedef struct sk_mhca {
    size_t d_model, n_heads;
    const float *w_q, *w_k, *w_v, *w_o;  /* w_q, w_o: d_model x d_model; w_k, w_v: d_enc x d_model
                                            (row-major, applied as x @ W) */
    size_t d_enc;                        /* width of the encoder rows; 0 = d_model */
    const float *b_q, *b_k, *b_v, *b_o;  /* NULL or d_model floats each, added after the product */
    /* NULL, or the weight of the same name packed once (sk_sgemm_pack_b(SK_NOTRANS, rows, d_model,
       W, d_model, buf, sk_sgemm_pack_b_size(rows, d_model)); rows = d_model for w_q and w_o, d_enc
       for w_k and w_v): that projection then reads the packed copy, on the path it was packed for,
       as sk_sgemm_packed does (a decoder step with its weights in cache ran 1.0-1.14x faster on
       AMD Zen 5; from DRAM both read at a plain read's speed: docs/bench/gemm-tuning.md). The
       weights themselves stay required (the few-query-rows path of sk_mhca_forward reads w_k and
       w_v per head). A compute call with a packed weight of another shape or not made by
       sk_sgemm_pack_b returns SK_EINVAL, one packed for a path this CPU lacks SK_EUNSUPPORTED,
       nothing written; the size queries ignore these fields. Results: within the same bounds as
       with the weights, not bit for bit the same. */
    const void *w_q_packed, *w_k_packed, *w_v_packed, *w_o_packed;
} sk_mhca;
/* Versus PyTorch nn.MultiheadAttention(d_model, n_heads, bias=, kdim=d_enc, vdim=d_enc,
   batch_first=True) in eval mode, same weights (transposed), enc_mask[j] = !key_padding_mask[j],
   need_weights=True, average_attn_weights=False: out and weights agree up to float rounding, with
   one difference on purpose: a decoder row that attends to no key (every source position padded,
   or n_enc == 0) gets all-zero weights and a zero attention result, hence out = b_o (zero without
   b_o), where PyTorch gives NaN. */
/* Bytes of workspace sk_mhca_forward needs for n_dec decoder and n_enc encoder rows; 0 for a bad
   layer, or when a buffer of the call (K and V, Q, the head concat, the encoder rows n_enc x d_enc)
   would exceed PTRDIFF_MAX bytes. The workspace may have any alignment: the module sizes include 64
   bytes of slack and skip up to 60 of them to start on a 64-byte boundary. The 2 * n_enc rows of K
   and V and the 2 * n_dec rows of Q and the concat are stored at a padded row stride: d_model
   rounded up to an odd number of 16-float cache lines, at most d_model + 31 floats (rows a
   multiple of 4 KiB apart would put a head's column slice into a few cache sets; d_model itself
   when the padded size would exceed PTRDIFF_MAX). So the size is at most
   4 * (2 * n_enc + 2 * n_dec) * (d_model + 31) + 64 bytes. */
size_t    sk_mhca_workspace_size(const sk_mhca *layer, size_t n_dec, size_t n_enc);
/* A bad layer (SK_EINVAL, sizes 0): NULL, n_heads == 0, d_model % n_heads != 0, a NULL weight
   matrix (d_model > 0), or a weight extent (d_model or d_enc times d_model) that overflows.
   dec: n_dec x d_model, enc: n_enc x d_enc, both row-major and packed (row stride = width).
   The buffers a module call writes (out, weights, workspace; kv in sk_mhca_project_kv) must not
   overlap each other or the ones it reads (dec, enc, kv): SK_EINVAL, nothing written. */
sk_status sk_mhca_forward(const sk_mhca *layer, size_t n_dec, const float *dec, size_t n_enc,
                          const float *enc, const uint8_t *enc_mask /* NULL or [n_enc] */,
                          float *out /* n_dec x d_model */,
                          float *weights /* NULL or n_heads x n_dec x n_enc */,
                          void *workspace /* NULL: allocated inside */);

/* ---- decoder-step API: encoder K/V projected once, reused at every step ---------------------
   An inference engine decodes one target position (or a few) at a time while the source sequence,
   hence K = enc W_k + b_k and V = enc W_v + b_v, stays the same. Project them once into a caller
   buffer:
     kv = [K (n_enc x d_model) | V (n_enc x d_model)], row-major, sk_mhca_kv_size() bytes;
   then run any number of sk_mhca_forward_kv() calls (any n_dec; typically 1 per step) on it. The
   result equals sk_mhca_forward() on the same rows up to rounding (sk_mhca_forward is project_kv +
   forward_kv, except with few query rows per head, n_heads * n_dec <= d_model / 2, where it folds
   W_k and W_v into the query and output sides instead of projecting every encoder row: the same
   result up to rounding, with about half the work for a short target against a long source). Same
   error rules: SK_EINVAL and nothing written on bad input (a bad layer, NULL with nonzero sizes);
   zero sizes return SK_OK. */

/* Bytes of the kv buffer for n_enc encoder positions (2 * n_enc * d_model floats, whatever d_enc);
   0 for a bad layer or a size that overflows. */
size_t    sk_mhca_kv_size(const sk_mhca *layer, size_t n_enc);
/* kv = [enc W_k + b_k | enc W_v + b_v] (see above; enc: n_enc x d_enc, biases when present).
   kv: sk_mhca_kv_size(layer, n_enc) bytes. */
sk_status sk_mhca_project_kv(const sk_mhca *layer, size_t n_enc, const float *enc, float *kv);
/* Bytes of workspace sk_mhca_forward_kv needs for n_dec rows: Q and the concat at the padded row
   stride above, with the same 64 bytes of slack (at most 4 * 2 * n_dec * (d_model + 31) + 64);
   0 for a bad layer. kv is read in place: a 64-byte-aligned kv, with d_model a multiple of 16,
   keeps the rows of V on cache lines (about 10% faster attention on the x86 paths). */
size_t    sk_mhca_forward_kv_workspace_size(const sk_mhca *layer, size_t n_dec);
/* out = concat_h(softmax(Q_h K_h^T / sqrt(d_head) + mask) V_h) W_o with Q = dec W_q and K, V taken
   from kv (sk_mhca_project_kv of the n_enc encoder rows), b_q and b_o added when present. enc_mask
   NULL or [n_enc] (nonzero = attend); a fully padded source gives out = b_o (zero without b_o).
   weights NULL or n_heads x n_dec x n_enc.
   workspace NULL (allocated inside) or sk_mhca_forward_kv_workspace_size(layer, n_dec) bytes. */
sk_status sk_mhca_forward_kv(const sk_mhca *layer, size_t n_dec, const float *dec, size_t n_enc,
                             const float *kv, const uint8_t *enc_mask, float *out, float *weights,
                             void *workspace);
/* Memory of the attention calls (sk_attention / sk_mha with weights NULL, and the module's
   attention step): a fixed stack frame of about 81 KB of scratch (a 64-row block of Q^T and a
   4096-float score tile), independent of n_q and n_kv. Heads whose K or V rows are a multiple of
   128 floats apart (a head's slice of a 512- or 1024-wide matrix), over two or more 64-row query
   blocks and at least 2048 keys read in all, first copy their K and V (up to 1 MiB) into a
   per-thread buffer like GEMM's packing buffers: allocated on a thread's first such call, reused,
   freed at thread exit; without memory for it they are read in place (the same results either
   way). sk_mhca_forward / sk_mhca_forward_kv with workspace NULL allocate their workspace
   (projections) once per call. */
/* ---- end of the decoder-step API ---- */

/* ---- threads: the caller's thread pool --------------------------------------------------- */
/* simdkern never creates a thread. Every compute function has a _tp variant whose first argument
   is the caller's pool, followed by exactly the plain function's arguments; the plain function is
   the _tp one with tp == NULL. tp == NULL or n_threads == 1 runs on the calling thread (the pool's
   parallel_for is not called). A tp with a NULL parallel_for or n_threads == 0 is SK_EINVAL, and
   nothing is written. include/simdkern_pthreadpool.h adapts a pthreadpool_t.

   Bitwise identity: the result of every _tp call equals the plain call's bit for bit, for any pool,
   any n_threads and any order in which the pool runs the tasks. The work is split only where no
   element's arithmetic changes, and each task runs the code path the whole problem would take
   (where the plain call first splits off the columns before B's first 64-byte boundary, see
   sk_sgemm, the _tp call makes the same split and partitions each part):
     sk_sgemm_tp          tiles of C: columns at multiples of the register tile's width inside one
                          column cache block (NC), rows at multiples of the row cache block (MC);
                          never a split of k, except: m == 1 (matrix-vector) with op(B) = B of
                          1 MiB or more sums k in 2, 4 or 8 chunks fixed by the shape and the
                          ISA path (never by n_threads), each apart, then adds them in chunk
                          order; the plain call runs the same chunks. Then columns in groups of
                          256. op(B) = B^T with few rows: columns at multiples of the kernel's
                          row count.
     sk_sgemm_packed_tp   tiles of C: columns at multiples of the packed panels' width, rows at
                          multiples of the row cache block (MC); k is never split. (Packing,
                          sk_sgemm_pack_b, is a copy done once: it has no _tp variant.)
     sk_sgemm_plan_run_tp as sk_sgemm_tp with the plan's arguments (its result: sk_sgemm's).
     sk_exp_tp            contiguous ranges at multiples of 1024 elements.
     sk_softmax_tp,
     sk_scale_mask_softmax_tp  rows, at multiples of 8.
     sk_attention_tp      blocks of 64 query rows (weights NULL); with weights, the two GEMMs and
                          the softmax above.
     sk_mha_tp            heads x blocks of 64 query rows; with weights, heads (fewer heads than
                          threads: each head's GEMMs and softmax as above). The decoder step
                          (n_q == 1, weights NULL) splits the keys into chunks fixed by n_kv and
                          d_head alone (never by n_threads: at least 512 keys, at most 8 chunks)
                          whose running max, sum and partial output are merged in chunk order, and
                          heads (a head's arithmetic does not depend on which heads share its
                          task); the plain call runs the same chunks on one thread.
     sk_mhca_*_tp         their GEMMs and sk_mha as above.
   Below a size measured on the development machine a call runs as one task on the calling
   thread (small shapes do not pay for waking a pool). A large call gives the pool up to 4 tasks
   per thread where smaller tasks cost no extra work (attention's heads and query blocks, exp and
   softmax ranges, GEMM columns when m fits one row cache block; a GEMM over several row blocks
   gets a task per thread, as each more would pack A or B again): a pool that hands tasks to its
   threads as they free up (pthreadpool, OpenMP's dynamic schedule) then evens out threads that
   run at different speeds. Scratch stays per task (the task's stack and
   per-thread buffers, GEMM's packing and attention's K/V copy, which the pool's worker threads get
   on first use and free at their exit); the workspace sizes above suffice for the _tp calls. The
   decoder step keeps its chunks' partial results on the calling thread's stack (about 33 KB
   besides the attention frame above), with or without a pool. Many threads may each run _tp calls
   at once, on one pool or on several. A pool whose threads are busy elsewhere delays the call by
   as long as its tasks wait for them. */
typedef void (*sk_task_fn)(void *arg, size_t task);
typedef struct sk_threadpool {
    /* Runs task(arg, t) exactly once for every t < n_tasks, on any threads (the caller's included),
       in any order, and returns when all have finished. */
    void (*parallel_for)(void *pool, size_t n_tasks, sk_task_fn task, void *arg);
    void *pool;          /* passed back as the first argument */
    size_t n_threads;    /* how many tasks may run at once (>= 1): sizes the partition */
} sk_threadpool;

sk_status sk_sgemm_tp(const sk_threadpool *tp, sk_trans ta, sk_trans tb, size_t m, size_t n,
                      size_t k, float alpha, const float *a, size_t lda, const float *b, size_t ldb,
                      float beta, float *c, size_t ldc);
sk_status sk_sgemm_packed_tp(const sk_threadpool *tp, sk_trans ta, size_t m, size_t n, size_t k,
                             float alpha, const float *a, size_t lda, const void *packed,
                             float beta, float *c, size_t ldc);
sk_status sk_sgemm_plan_run_tp(const sk_threadpool *tp, const sk_sgemm_plan *plan, const float *a,
                               const float *b, float *c);
sk_status sk_exp_tp(const sk_threadpool *tp, size_t n, const float *x, float *y);
sk_status sk_softmax_tp(const sk_threadpool *tp, size_t rows, size_t cols, const float *x,
                        size_t ldx, float *y, size_t ldy);
sk_status sk_scale_mask_softmax_tp(const sk_threadpool *tp, size_t rows, size_t cols, float scale,
                                   const float *x, size_t ldx, const sk_mask *mask, float *y,
                                   size_t ldy);
sk_status sk_attention_tp(const sk_threadpool *tp, size_t n_q, size_t n_kv, size_t d_k, size_t d_v,
                          const float *q, size_t ldq, const float *k, size_t ldk,
                          const float *v, size_t ldv, float scale, const sk_mask *mask,
                          float *out, size_t ldo, float *weights);
sk_status sk_mha_tp(const sk_threadpool *tp, size_t n_heads, size_t n_q, size_t n_kv, size_t d_head,
                    const float *q, size_t ldq, const float *k, size_t ldk, const float *v,
                    size_t ldv, float scale, const sk_mask *mask, float *out, size_t ldo,
                    float *weights);
sk_status sk_mhca_forward_tp(const sk_threadpool *tp, const sk_mhca *layer, size_t n_dec,
                             const float *dec, size_t n_enc, const float *enc,
                             const uint8_t *enc_mask, float *out, float *weights, void *workspace);
sk_status sk_mhca_project_kv_tp(const sk_threadpool *tp, const sk_mhca *layer, size_t n_enc,
                                const float *enc, float *kv);
sk_status sk_mhca_forward_kv_tp(const sk_threadpool *tp, const sk_mhca *layer, size_t n_dec,
                                const float *dec, size_t n_enc, const float *kv,
                                const uint8_t *enc_mask, float *out, float *weights,
                                void *workspace);

#ifdef __cplusplus
}
#endif
#endif /* SIMDKERN_H */
