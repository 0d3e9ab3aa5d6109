/* mhca_driver: runs sk_mhca cases described on stdin and writes the results to stdout, for the
 * PyTorch oracle test (tests/torch/oracle.py), which builds the cases from nn.MultiheadAttention.
 *
 *   mhca_driver --isas     prints the names of the ISA paths this CPU runs, one a line
 *   mhca_driver            reads cases until end of input
 *
 * A case (native byte order): 8 uint64 isa, d_model, d_enc, n_heads, n_dec, n_enc, flags, mode;
 * then floats w_q (d_model x d_model), w_k and w_v (d_enc x d_model), w_o, the biases that flags
 * name (d_model each), dec (n_dec x d_model), enc (n_enc x d_enc); then n_enc mask bytes when flags
 * has MASK. Weights are x @ W (already transposed from PyTorch's layout); flags PACKED: the layer
 * also holds the four weights packed by sk_sgemm_pack_b (w_*_packed). mode 0: sk_mhca_forward;
 * mode 1: sk_mhca_project_kv, then sk_mhca_forward_kv one decoder row at a time.
 * The answer: int64 status, then (status 0) out (n_dec x d_model floats) and, with flags WEIGHTS,
 * the weights (n_heads x n_dec x n_enc floats). Exits 0 after the last case, 2 on malformed
 * input. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "simdkern.h"

enum { F_BQ = 1, F_BK = 2, F_BV = 4, F_BO = 8, F_MASK = 16, F_WEIGHTS = 32, F_PACKED = 64 };
#define LIMIT ((uint64_t)1 << 26) /* floats per array: far above any test case */

static float *read_floats(uint64_t n, int *bad)
{
    if (n > LIMIT) {
        *bad = 1;
        return NULL;
    }
    float *p = malloc((size_t)(n ? n : 1) * sizeof(float));
    if (!p || fread(p, sizeof(float), (size_t)n, stdin) != n) *bad = 1;
    return p;
}

/* L's four weights packed once into pk[0..3] (the caller frees them) and set in L. */
static int64_t pack_weights(sk_mhca *L, void *pk[4])
{
    const float *w[4] = { L->w_q, L->w_k, L->w_v, L->w_o };
    const void **dst[4] = { &L->w_q_packed, &L->w_k_packed, &L->w_v_packed, &L->w_o_packed };
    for (int i = 0; i < 4; i++) {
        const size_t rows = i == 1 || i == 2 ? L->d_enc : L->d_model;
        const size_t bytes = sk_sgemm_pack_b_size(rows, L->d_model);
        if (!(pk[i] = malloc(bytes))) return SK_ENOMEM;
        const sk_status st = sk_sgemm_pack_b(SK_NOTRANS, rows, L->d_model, w[i], L->d_model, pk[i],
                                             bytes);
        if (st != SK_OK) return st;
        *dst[i] = pk[i];
    }
    return SK_OK;
}

static int run_case(const uint64_t h[8])
{
    const size_t d = h[1], de = h[2], H = h[3], n_dec = h[4], n_enc = h[5];
    const uint64_t fl = h[6], mode = h[7];
    int bad = d > 4096 || de > 4096 || n_dec > 4096 || n_enc > 4096 || H == 0 || mode > 1;
    if (bad) return 0;
    float *wq = read_floats(d * d, &bad), *wk = read_floats(de * d, &bad);
    float *wv = read_floats(de * d, &bad), *wo = read_floats(d * d, &bad);
    float *b[4] = { NULL, NULL, NULL, NULL };
    for (int i = 0; i < 4; i++)
        if (fl & (1u << i)) b[i] = read_floats(d, &bad);
    float *dec = read_floats(n_dec * d, &bad), *enc = read_floats(n_enc * de, &bad);
    uint8_t *mask = NULL;
    if (fl & F_MASK) {
        mask = malloc(n_enc + 1);
        if (!mask || fread(mask, 1, n_enc, stdin) != n_enc) bad = 1;
    }
    float *out = calloc(n_dec * d + 1, sizeof(float));
    float *w = (fl & F_WEIGHTS) ? calloc(H * n_dec * n_enc + 1, sizeof(float)) : NULL;
    int64_t st = SK_ENOMEM;
    if (!bad && out && (w || !(fl & F_WEIGHTS))) {
        sk_mhca L = { .d_model = d, .n_heads = H, .w_q = wq, .w_k = wk, .w_v = wv, .w_o = wo,
                      .d_enc = de, .b_q = b[0], .b_k = b[1], .b_v = b[2], .b_o = b[3] };
        void *pk[4] = { NULL, NULL, NULL, NULL };
        if (sk_isa_select((sk_isa)h[0]) != SK_OK) {
            st = SK_EUNSUPPORTED;
        } else if ((fl & F_PACKED) && (st = pack_weights(&L, pk)) != SK_OK) {
            /* st: the pack's status */
        } else if (mode == 0) {
            st = sk_mhca_forward(&L, n_dec, dec, n_enc, enc, mask, out, w, NULL);
        } else {
            float *kv = malloc(sk_mhca_kv_size(&L, n_enc) + sizeof(float));
            float *ws = w ? malloc(H * n_enc * sizeof(float) + sizeof(float)) : NULL;
            st = kv && (ws || !w) ? sk_mhca_project_kv(&L, n_enc, enc, kv) : SK_ENOMEM;
            for (size_t i = 0; i < n_dec && st == SK_OK; i++) {
                st = sk_mhca_forward_kv(&L, 1, dec + i * d, n_enc, kv, mask, out + i * d, ws, NULL);
                for (size_t hh = 0; ws && hh < H; hh++) /* step weights H x 1 x n_enc into place */
                    memcpy(w + (hh * n_dec + i) * n_enc, ws + hh * n_enc, n_enc * sizeof(float));
            }
            free(kv);
            free(ws);
        }
        for (int i = 0; i < 4; i++) free(pk[i]);
    }
    fwrite(&st, sizeof st, 1, stdout);
    if (st == SK_OK) {
        fwrite(out, sizeof(float), n_dec * d, stdout);
        if (w) fwrite(w, sizeof(float), H * n_dec * n_enc, stdout);
    }
    fflush(stdout);
    free(wq); free(wk); free(wv); free(wo);
    for (int i = 0; i < 4; i++) free(b[i]);
    free(dec); free(enc); free(mask); free(out); free(w);
    return !bad;
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "--isas")) {
        for (int i = 0; i < SK_ISA_COUNT; i++)
            if (sk_isa_available((sk_isa)i)) printf("%d %s\n", i, sk_isa_name((sk_isa)i));
        return 0;
    }
    if (argc != 1) {
        fprintf(stderr, "usage: %s [--isas] < cases > results\n", argv[0]);
        return 2;
    }
    uint64_t h[8];
    while (fread(h, sizeof h, 1, stdin) == 1)
        if (!run_case(h)) {
            fprintf(stderr, "mhca_driver: malformed case\n");
            return 2;
        }
    return 0;
}
