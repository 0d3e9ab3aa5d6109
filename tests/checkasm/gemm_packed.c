/* checkasm: GEMM with op(B) packed once (sk_sgemm_pack_b, sk_sgemm_packed) on the ISA under test
 * against a double-precision reference with sk_sgemm's bound
 *   |C - exact| <= (2 k + 4) 2^-24 (|alpha| |op(A)| |op(B)| + |beta| |C0|)   (elementwise),
 * over sizes around the table's tile (MR, NR), the packed panels' width (pack_nr), its MC, KC and
 * NC blocks and the in-place / packed
 * choice for A (set_stride), m = 1 with a contiguous op(A) or not, all four transposes, padded
 * leading dimensions (poisoned padding untouched), alpha in {1, -0.5, 0}, beta in {0, 1, 0.25}
 * (beta == 0 with C full of NaN), guard bands around every buffer including the packed one; the
 * packed buffer run after the scalar path is selected (it keeps its own path), copied to another
 * address, and bad arguments: SK_EINVAL or SK_EUNSUPPORTED with nothing written. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "checkasm.h"
#include "gemm_mat.h"
#include "dsp.h" /* internal: the table under test (tile and block sizes) */

/* A guarded buffer of `bytes` for a packed B (its floats rounded up). */
static void *packed_alloc(size_t bytes)
{
    return ck_buf_alloc((bytes + sizeof(float) - 1) / sizeof(float));
}

/* One case, ld = row length + pad (lda / ldb: the given strides when nonzero). */
static int packed_case(sk_trans ta, sk_trans tb, size_t m, size_t n, size_t k, float alpha,
                       float beta, size_t pa, size_t pb, size_t pc)
{
    ck_func("sgemm_packed %c%c m=%zu n=%zu k=%zu alpha=%g beta=%g lda+%zu ldb+%zu ldc+%zu",
            ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, alpha, beta, pa, pb, pc);
    ck_new();
    mat A = mat_new(ta ? k : m, ta ? m : k, pa);
    mat B = mat_new(tb ? n : k, tb ? k : n, pb);
    mat C0 = mat_new(m, n, pc), C = mat_new(m, n, pc), C2 = mat_new(m, n, pc);
    if (beta == 0.f) /* C must not be read: NaN must not propagate */
        for (size_t i = 0; i < m; i++)
            for (size_t j = 0; j < n; j++) C0.p[i * C0.ld + j] = NAN;
    memcpy(C.p, C0.p, m * C0.ld * sizeof(float));
    memcpy(C2.p, C0.p, m * C0.ld * sizeof(float));
    const size_t bytes = sk_sgemm_pack_b_size(k, n);
    int ok = ck_check(bytes >= 64, "pack size %zu", bytes);
    void *pk = packed_alloc(bytes), *moved = packed_alloc(bytes);
    ok &= ck_check(sk_sgemm_pack_b(tb, k, n, B.p, B.ld, pk, bytes) == SK_OK, "pack status");
    memcpy(moved, pk, bytes);
    ok &= ck_check(sk_sgemm_packed(ta, m, n, k, alpha, A.p, A.ld, pk, beta, C.p, C.ld) == SK_OK,
                   "status");
    /* on the scalar path now: the buffer still runs on the path it was packed for, from any
       address */
    ck_ref();
    ok &= ck_check(sk_sgemm_packed(ta, m, n, k, alpha, A.p, A.ld, moved, beta, C2.p, C2.ld) ==
                   SK_OK, "status (moved, scalar path selected)");
    ck_new();
    ok &= mat_intact(&A, "A") && mat_intact(&B, "B") && mat_intact(&C, "C");
    ok &= ck_buf_check(pk, "packed B") && ck_buf_check(moved, "moved packed B");
    ok &= ck_check(memcmp(C.p, C2.p, m * C.ld * sizeof(float)) == 0,
                   "moved buffer on the scalar path: other results");

    ok = ok && mat_within_bound(&A, &B, &C0, &C, ta, tb, k, alpha, beta);
    ck_buf_free(A.p); ck_buf_free(B.p); ck_buf_free(C0.p); ck_buf_free(C.p); ck_buf_free(C2.p);
    ck_buf_free(pk); ck_buf_free(moved);
    return ok;
}

/* Bad arguments: SK_EINVAL (SK_EUNSUPPORTED for a path not available here), C and the packed
   buffer untouched. */
static void packed_bad_args(void)
{
    ck_func("sgemm_packed bad arguments");
    ck_new();
    enum { M = 3, N = 5, K = 4 };
    float a[M * K], b[K * N], c[M * N], keep[M * N];
    ck_fill(a, M * K, -1.f, 1.f);
    ck_fill(b, K * N, -1.f, 1.f);
    ck_fill(c, M * N, -1.f, 1.f);
    memcpy(keep, c, sizeof c);
    const size_t bytes = sk_sgemm_pack_b_size(K, N);
    char *pk = (char *)packed_alloc(bytes + 4), *pk0 = (char *)packed_alloc(bytes + 4);
    ck_check(sk_sgemm_pack_b(SK_NOTRANS, K, N, b, N, pk, bytes) == SK_OK, "pack");
    memcpy(pk0, pk, bytes);
    /* packing */
    ck_check(sk_sgemm_pack_b((sk_trans)2, K, N, b, N, pk, bytes) == SK_EINVAL, "pack: bad tb");
    ck_check(sk_sgemm_pack_b(SK_NOTRANS, K, N, NULL, N, pk, bytes) == SK_EINVAL, "pack: NULL b");
    ck_check(sk_sgemm_pack_b(SK_NOTRANS, K, N, b, N - 1, pk, bytes) == SK_EINVAL, "pack: ldb < n");
    ck_check(sk_sgemm_pack_b(SK_TRANS, K, N, b, K - 1, pk, bytes) == SK_EINVAL,
             "pack: ldb < k (T)");
    ck_check(sk_sgemm_pack_b(SK_NOTRANS, K, N, b, N, NULL, bytes) == SK_EINVAL, "pack: NULL dst");
    ck_check(sk_sgemm_pack_b(SK_NOTRANS, K, N, b, N, pk + 2, bytes) == SK_EINVAL,
             "pack: misaligned");
    ck_check(sk_sgemm_pack_b(SK_NOTRANS, SIZE_MAX / 2, 3, b, 3, pk, bytes) == SK_EINVAL,
             "pack: size overflows");
    ck_check(sk_sgemm_pack_b(SK_NOTRANS, K, N, b, N, pk, bytes - 4) == SK_EINVAL,
             "pack: buffer 4 bytes short");
    ck_check(sk_sgemm_pack_b(SK_NOTRANS, K, N, b, N, pk, 63) == SK_EINVAL,
             "pack: buffer shorter than the header");
    ck_check(memcmp(pk, pk0, bytes) == 0, "packed buffer written by a refused pack");
    ck_check(sk_sgemm_pack_b_size(SIZE_MAX / 2, 3) == 0, "size: overflow not 0");
    ck_check(sk_sgemm_pack_b_size(SIZE_MAX, SIZE_MAX) == 0, "size: overflow not 0 (max)");
    ck_check(sk_sgemm_pack_b_size(0, 7) == 64 && sk_sgemm_pack_b_size(7, 0) == 64,
             "size of an empty B: the header");
    /* the call */
#define BAD(expect, what, ...)                                                                     \
    do {                                                                                           \
        ck_check(sk_sgemm_packed(__VA_ARGS__) == (expect), "%s: status", what);                    \
        ck_check(memcmp(c, keep, sizeof c) == 0, "%s: C written", what);                           \
    } while (0)
    BAD(SK_EINVAL, "bad ta", (sk_trans)2, M, N, K, 1.f, a, K, pk, 0.f, c, N);
    BAD(SK_EINVAL, "NULL a", SK_NOTRANS, M, N, K, 1.f, NULL, K, pk, 0.f, c, N);
    BAD(SK_EINVAL, "lda < k", SK_NOTRANS, M, N, K, 1.f, a, K - 1, pk, 0.f, c, N);
    BAD(SK_EINVAL, "NULL c", SK_NOTRANS, M, N, K, 1.f, a, K, pk, 0.f, NULL, N);
    BAD(SK_EINVAL, "ldc < n", SK_NOTRANS, M, N, K, 1.f, a, K, pk, 0.f, c, N - 1);
    BAD(SK_EINVAL, "NULL packed", SK_NOTRANS, M, N, K, 1.f, a, K, NULL, 0.f, c, N);
    BAD(SK_EINVAL, "other k", SK_NOTRANS, M, N, K - 1, 1.f, a, K, pk, 0.f, c, N);
    BAD(SK_EINVAL, "other n", SK_NOTRANS, M, N - 1, K, 1.f, a, K, pk, 0.f, c, N);
    memmove(pk + 4, pk, bytes);
    BAD(SK_EINVAL, "misaligned", SK_NOTRANS, M, N, K, 1.f, a, K, pk + 2, 0.f, c, N);
    BAD(SK_EINVAL, "not a packed B", SK_NOTRANS, M, N, K, 1.f, a, K, pk + 4 - 4, 0.f, c, N);
    memcpy(pk, pk0, bytes);
    uint32_t w;
    memcpy(&w, pk + 4, 4); /* the path */
    w = SK_ISA_COUNT;
    memcpy(pk + 4, &w, 4);
    BAD(SK_EINVAL, "unknown path", SK_NOTRANS, M, N, K, 1.f, a, K, pk, 0.f, c, N);
    for (int isa = 0; isa < SK_ISA_COUNT; isa++) {
        if (sk_isa_available((sk_isa)isa)) continue;
        w = (uint32_t)isa;
        memcpy(pk + 4, &w, 4);
        BAD(SK_EUNSUPPORTED, "path not available", SK_NOTRANS, M, N, K, 1.f, a, K, pk, 0.f, c, N);
    }
    memcpy(pk, pk0, bytes);
    memcpy(&w, pk + 24, 4); /* the panel width */
    w += 1;
    memcpy(pk + 24, &w, 4);
    BAD(SK_EINVAL, "other panel width", SK_NOTRANS, M, N, K, 1.f, a, K, pk, 0.f, c, N);
#undef BAD
    memcpy(pk, pk0, bytes);
    /* zero sizes: SK_OK, nothing written; k == 0 or alpha == 0: C = beta C, A and B not read */
    ck_check(sk_sgemm_packed(SK_NOTRANS, 0, N, K, 1.f, NULL, K, pk, 0.f, NULL, N) == SK_OK &&
                 sk_sgemm_packed(SK_NOTRANS, M, 0, K, 1.f, a, K, pk, 0.f, c, N) == SK_EINVAL,
             "m == 0 ok; n other than packed refused");
    ck_check(memcmp(c, keep, sizeof c) == 0, "C written by a zero-size call");
    float pk_empty[16]; /* the header alone */
    float cz[M * N];
    for (int i = 0; i < M * N; i++) cz[i] = 2.f;
    ck_check(sk_sgemm_pack_b(SK_NOTRANS, 0, N, NULL, N, pk_empty, sizeof pk_empty) == SK_OK,
             "pack k == 0");
    ck_check(sk_sgemm_packed(SK_NOTRANS, M, N, 0, 1.f, NULL, 0, pk_empty, 0.5f, cz, N) == SK_OK,
             "k == 0 status");
    for (int i = 0; i < M * N; i++) ck_check(cz[i] == 1.f, "k == 0: C[%d] = %g, want beta C", i,
                                             cz[i]);
    ck_buf_free((float *)pk);
    ck_buf_free((float *)pk0);
}

void ck_test_gemm_packed(void)
{
    static const float al[3] = { 1.f, -0.5f, 0.f }, be[3] = { 0.f, 1.f, 0.25f };
    const sk_dsp *t = sk_dsp_for(ck_isa());
    if (!ck_check(t != NULL, "no table")) return;
    const sk_gemm_dsp *d = &t->gemm;
    const size_t MR = d->mr, NR = d->nr, PW = d->pack_nr, MC = d->mc, KC = d->kc;
    packed_bad_args();

    /* every transpose and alpha / beta on small shapes */
    for (int tt = 0; tt < 4; tt++)
        for (int ai = 0; ai < 3; ai++)
            for (int bi = 0; bi < 3; bi++)
                packed_case((sk_trans)(tt >> 1), (sk_trans)(tt & 1), 1 + ck_rand_u32(2 * MR),
                            1 + ck_rand_u32(2 * NR), 1 + ck_rand_u32(20), al[ai], be[bi],
                            rand_pad(), rand_pad(), rand_pad());

    /* tile edges: m around MR and its multiples and the wide tile's rule (w_few, w_mr, w_many),
       n around NR, the panel width PW (a multiple of NR: the tile reads each panel's NR-wide
       parts) and their multiples, k random */
    const size_t ms[] = { 1,          2,          MR - 1,     MR,          MR + 1,
                          2 * MR - 1, 2 * MR,     2 * MR + 1, 3 * MR + 2,  d->w_few + 1,
                          d->w_mr,    d->w_mr + 1, d->w_many ? d->w_many - 1 : 0, d->w_many };
    const size_t ns[] = { 1,      NR - 1, NR,     NR + 1,     2 * NR - 1, 2 * NR,
                          PW - 1, PW + 1, 2 * PW, 2 * PW + 1, 3 * PW + NR + 5 };
    static const size_t ks[] = { 1, 2, 3, 7, 16, 17, 33, 64, 65 };
    for (size_t im = 0; im < sizeof ms / sizeof *ms; im++)
        for (size_t in = 0; in < sizeof ns / sizeof *ns; in += ck_quick() ? 2 : 1)
            for (int tt = 0; tt < 4; tt++) {
                if (ms[im] == 0 || ns[in] == 0) continue;
                packed_case((sk_trans)(tt >> 1), (sk_trans)(tt & 1), ms[im], ns[in],
                            ks[ck_rand_u32(sizeof ks / sizeof *ks)], al[ck_rand_u32(2)],
                            be[ck_rand_u32(3)], rand_pad(), rand_pad(), rand_pad());
                if (ck_failures() > 50) return;
            }

    /* cache blocks: m around MC (one MC block: A in place, whole k per kernel call; more: A
       packed in MC x KC blocks, k in KC blocks), k around KC and 2 KC */
    const size_t bm[] = { MC - 1, MC, MC + 1, 2 * MC + 3 };
    const size_t bk[] = { KC - 1, KC, KC + 1, 2 * KC + 1 };
    for (size_t im = 0; im < sizeof bm / sizeof *bm; im++)
        for (size_t ik = 0; ik < sizeof bk / sizeof *bk; ik++) {
            const int tt = (int)ck_rand_u32(4);
            if (ck_quick() && (im + ik) % 2) continue;
            packed_case((sk_trans)(tt >> 1), (sk_trans)(tt & 1), bm[im], PW + NR + 3, bk[ik],
                        al[ck_rand_u32(2)], be[ck_rand_u32(3)], rand_pad(), rand_pad(), rand_pad());
        }

    /* the first MC block's copies of the tile's parts of each panel (pk_copy_rows): m at the
       rule's edge, n over one whole part, over whole ones and a partial one, and past the NC
       block (the copies restart at each NC block), two k blocks (the copies hold one) */
    if (d->pk_copy_rows) {
        const size_t CR = d->pk_copy_rows;
        const size_t cm[] = { CR - 1, CR, CR + MR + 1 };
        const size_t cn[] = { NR, PW + NR + 3, d->nc + PW + 5 };
        for (size_t im = 0; im < sizeof cm / sizeof *cm; im++)
            for (size_t in = 0; in < sizeof cn / sizeof *cn; in++) {
                if (in == 2 && im != 1) continue; /* the large n once */
                if (ck_quick() && in < 2 && (im + in) % 2) continue;
                const int tt = (int)ck_rand_u32(4);
                packed_case((sk_trans)(tt >> 1), (sk_trans)(tt & 1), cm[im], cn[in], KC + 3,
                            al[ck_rand_u32(2)], be[ck_rand_u32(3)], rand_pad(), rand_pad(),
                            rand_pad());
            }
    }

    /* n past the NC block (whole panels per block): one MC block (A in place) and several */
    const size_t NC = d->nc, nbig = NC + PW + 3;
    for (int tt = 0; tt < 4; tt++) {
        if (ck_quick() && tt % 2) continue;
        packed_case((sk_trans)(tt >> 1), (sk_trans)(tt & 1), MR + 1, nbig, 9, 1.f, be[tt % 3],
                    rand_pad(), rand_pad(), rand_pad());
        packed_case((sk_trans)(tt >> 1), (sk_trans)(tt & 1), MC + MR + 1, nbig, KC + 2, -0.5f,
                    be[(tt + 1) % 3], rand_pad(), rand_pad(), rand_pad());
    }

    /* row strides at multiples of 4 KiB: A in place at such a stride only for few rows, else
       packed (m in one MC block); B's stride does not matter once packed */
    for (int tt = 0; tt < 4; tt++) {
        const sk_trans ta = (sk_trans)(tt >> 1), tb = (sk_trans)(tt & 1);
        packed_case(ta, tb, MR + 1, 40, 50, 1.f, be[tt % 3], 1024 - (ta ? MR + 1 : 50),
                    1024 - (tb ? 50 : 40), 0);
        packed_case(ta, tb, 2 * MR + 3, 100, 300, -0.5f, be[(tt + 1) % 3],
                    1024 - (ta ? 2 * MR + 3 : 300), 1024 - (tb ? 300 : 100), 0);
        packed_case(ta, tb, 4, 1024, 64, 1.f, be[(tt + 2) % 3], 1024 - (ta ? 4 : 64), 0, 0);
    }

    /* m = 1: the matrix-vector kernel on each panel (op(A) contiguous), or the tile (A^T with a
       row stride) */
    static const size_t vn[] = { 1, 5, 31, 32, 33, 100, 257 };
    static const size_t vk[] = { 1, 4, 17, 64, 65, 300 };
    for (size_t in = 0; in < sizeof vn / sizeof *vn; in++)
        for (size_t ik = 0; ik < sizeof vk / sizeof *vk; ik += ck_quick() ? 2 : 1)
            for (int tt = 0; tt < 4; tt++)
                packed_case((sk_trans)(tt >> 1), (sk_trans)(tt & 1), 1, vn[in], vk[ik],
                            al[ck_rand_u32(2)], be[ck_rand_u32(3)], rand_pad(), rand_pad(),
                            rand_pad());
}
