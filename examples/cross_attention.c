/* cross_attention: encoder-decoder cross-attention with simdkern, on the translation example
 *   English source "The quick brown fox" (4 encoder positions)
 *   French target so far "Le renard" (2 decoder positions)
 * 1. one head, d_model = d_k = d_v = 16, through sk_attention;
 * 2. four heads, d_model = 32, through the module sk_mhca_forward;
 * 3. incremental decoding: the encoder's K/V projected once (sk_mhca_project_kv), then the target
 *    positions attended one step at a time (sk_mhca_forward_kv), checked against the all-at-once
 *    call;
 * 4. a Whisper-shaped layer (whisper-tiny: d_model 384, 6 heads, 1500 encoder frames) with biases
 *    on q, v and the output projection and none on k, decoded step by step;
 * 5. an encoder narrower than the decoder (d_enc = 24, d_model = 32) with biases on all four
 *    projections, as Marian / NLLB have them, and a padded source position.
 * Representations are random and projections Xavier-initialised (normal, std
 * sqrt(2/(fan_in+fan_out))) from a fixed seed, so the weights show the mechanics, not a trained
 * alignment. Exits non-zero if a call fails or the step-by-step result disagrees with the
 * all-at-once one. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "simdkern.h"

static const char *const SRC[] = { "The", "quick", "brown", "fox" };
static const char *const TGT[] = { "Le", "renard" };
enum { N_SRC = 4, N_TGT = 2 };

/* aligned_alloc with the size rounded up to a multiple of the alignment, as C11 requires */
static float *alloc64(size_t bytes)
{
    return aligned_alloc(64, (bytes + 63) / 64 * 64);
}

/* splitmix64 -> uniform -> Box-Muller normal; a fixed seed gives the same run everywhere */
static uint64_t rng_state = 0x5eed2025u;
static double uniform01(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    z ^= z >> 31;
    return ((z >> 11) + 0.5) * (1.0 / 9007199254740992.0); /* (0, 1) */
}
static float normal(void)
{
    return (float)(sqrt(-2.0 * log(uniform01())) * cos(6.283185307179586 * uniform01()));
}
static void fill_normal(float *p, size_t n, float std)
{
    for (size_t i = 0; i < n; i++) p[i] = std * normal();
}
/* Xavier (Glorot) normal for a fan_in x fan_out matrix */
static void xavier(float *w, size_t fan_in, size_t fan_out)
{
    fill_normal(w, fan_in * fan_out, sqrtf(2.f / (float)(fan_in + fan_out)));
}

static int ok(sk_status s, const char *what)
{
    if (s == SK_OK) return 1;
    fprintf(stderr, "%s failed: %s\n", what, sk_status_str(s));
    return 0;
}

/* target x source table of weights w (row stride N_SRC) */
static void print_table(const float *w)
{
    printf("  %-8s", "");
    for (int j = 0; j < N_SRC; j++) printf(" %7s", SRC[j]);
    printf("\n");
    for (int i = 0; i < N_TGT; i++) {
        printf("  %-8s", TGT[i]);
        int best = 0;
        for (int j = 0; j < N_SRC; j++) {
            printf(" %7.3f", w[i * N_SRC + j]);
            if (w[i * N_SRC + j] > w[i * N_SRC + best]) best = j;
        }
        printf("   -> %s\n", SRC[best]);
    }
}

/* max |a - b| over n floats (NaN: infinity) */
static double max_diff(const float *a, const float *b, size_t n)
{
    double m = 0;
    for (size_t i = 0; i < n; i++) {
        const double e = fabs((double)a[i] - b[i]);
        if (isnan(e)) return INFINITY;
        if (e > m) m = e;
    }
    return m;
}

/* 4. whisper-tiny's cross-attention: d_model 384, 6 heads, 1500 encoder frames (30 s of audio),
   biases on q, v, o (PyTorch: q_proj, v_proj, out_proj have them, k_proj has bias=False). The
   encoder's K/V are projected once; three decoder tokens are then attended one step at a time and
   checked against the three attended in one call. */
static int whisper_layer(void)
{
    enum { DW = 384, HW = 6, NE = 1500, ND = 3 };
    /* 64-byte aligned, as an engine allocates them: the rows of K/V (DW a multiple of 16) then
       start on cache lines, which the attention reading kv in place runs faster on */
    float *w = alloc64(sizeof(float) * (4 * DW * DW + 3 * DW + (size_t)NE * DW + ND * DW * 3));
    float *kv = alloc64(2 * sizeof(float) * NE * DW);
    if (!w || !kv) {
        free(w);
        free(kv);
        return ok(SK_ENOMEM, "whisper_layer");
    }
    float *wq = w, *wk = wq + DW * DW, *wv = wk + DW * DW, *wo = wv + DW * DW;
    float *bq = wo + DW * DW, *bv = bq + DW, *bo = bv + DW, *enc = bo + DW;
    float *dec = enc + (size_t)NE * DW, *out = dec + ND * DW, *step = out + ND * DW;
    xavier(wq, DW, DW);
    xavier(wk, DW, DW);
    xavier(wv, DW, DW);
    xavier(wo, DW, DW);
    fill_normal(bq, 3 * DW, 0.1f); /* b_q, b_v, b_o */
    fill_normal(enc, (size_t)NE * DW, 1.f);
    fill_normal(dec, ND * DW, 1.f);
    /* b_k NULL (none); d_enc 0: the encoder rows are d_model wide */
    const sk_mhca layer = { .d_model = DW, .n_heads = HW,
                            .w_q = wq, .w_k = wk, .w_v = wv, .w_o = wo,
                            .b_q = bq, .b_v = bv, .b_o = bo };
    int good = ok(sk_mhca_project_kv(&layer, NE, enc, kv), "sk_mhca_project_kv") &&
               ok(sk_mhca_forward_kv(&layer, ND, dec, NE, kv, NULL, out, NULL, NULL),
                  "sk_mhca_forward_kv");
    for (int i = 0; good && i < ND; i++)
        good =
            ok(sk_mhca_forward_kv(&layer, 1, dec + i * DW, NE, kv, NULL, step + i * DW, NULL, NULL),
               "sk_mhca_forward_kv");
    const double e = good ? max_diff(step, out, ND * DW) : INFINITY;
    printf("Whisper-shaped layer (whisper-tiny): d_model %d, %d heads, %d encoder frames, biases "
           "on q, v, o\n"
           "  K/V of the encoder projected once (%zu bytes, b_k none), %d decoder tokens one step "
           "at a time\n"
           "  max |step-by-step - three in one call| %.3g (tolerance 1e-5): %s\n\n",
           DW, HW, NE, sk_mhca_kv_size(&layer, NE), ND, e, e <= 1e-5 ? "agree" : "DISAGREE");
    free(w);
    free(kv);
    return good && e <= 1e-5;
}

/* 5. an encoder narrower than the decoder: source rows of d_enc = 24 features, decoder d_model =
   32, 4 heads, biases on all four projections; "fox" padded out. The padded position gets weight 0
   in every head; a source with every position padded gives out = b_o exactly. */
static int narrow_encoder(void)
{
    enum { D = 32, DE = 24, H = 4 };
    static float wq[D * D], wk[DE * D], wv[DE * D], wo[D * D], b[4 * D];
    static float enc[N_SRC * DE], dec[N_TGT * D], out[N_TGT * D], w[H * N_TGT * N_SRC];
    xavier(wq, D, D);
    xavier(wk, DE, D);
    xavier(wv, DE, D);
    xavier(wo, D, D);
    fill_normal(b, 4 * D, 0.1f);
    fill_normal(enc, N_SRC * DE, 1.f);
    fill_normal(dec, N_TGT * D, 1.f);
    const sk_mhca layer = { .d_model = D, .n_heads = H,
                            .w_q = wq, .w_k = wk, .w_v = wv, .w_o = wo,
                            .d_enc = DE,
                            .b_q = b, .b_k = b + D, .b_v = b + 2 * D, .b_o = b + 3 * D };
    static const uint8_t keep[N_SRC] = { 1, 1, 1, 0 }, none[N_SRC] = { 0 };
    if (!ok(sk_mhca_forward(&layer, N_TGT, dec, N_SRC, enc, keep, out, w, NULL), "sk_mhca_forward"))
        return 0;
    printf("Narrower encoder: source rows of d_enc = %d, decoder d_model = %d, %d heads, biases on "
           "q, k, v, o,\n"
           "\"fox\" padded out (enc_mask 1 1 1 0)\n  head 1 pattern:\n",
           DE, D, H);
    print_table(w);
    int good = 1;
    for (int i = 0; i < H * N_TGT; i++) good &= w[i * N_SRC + 3] == 0.f;
    if (!ok(sk_mhca_forward(&layer, N_TGT, dec, N_SRC, enc, none, out, NULL, NULL),
            "sk_mhca_forward"))
        return 0;
    for (int i = 0; i < N_TGT * D; i++) good &= out[i] == b[3 * D + i % D];
    printf("  padded position weight 0 in every head; every position padded: out = b_o: %s\n",
           good ? "yes" : "NO");
    return good;
}

int main(void)
{
    printf("simdkern %s, ISA: %s\n\n", sk_version(), sk_isa_name(sk_isa_active()));

    /* ---- 1. single head, d = 16 -------------------------------------------------------------- */
    enum { D1 = 16 };
    float enc1[N_SRC * D1], dec1[N_TGT * D1], wq1[D1 * D1], wk1[D1 * D1], wv1[D1 * D1];
    float q1[N_TGT * D1], k1[N_SRC * D1], v1[N_SRC * D1], out1[N_TGT * D1], w1[N_TGT * N_SRC];
    fill_normal(enc1, N_SRC * D1, 1.f);
    fill_normal(dec1, N_TGT * D1, 1.f);
    xavier(wq1, D1, D1);
    xavier(wk1, D1, D1);
    xavier(wv1, D1, D1);
    /* Q = decoder W_q, K = encoder W_k, V = encoder W_v */
    if (!ok(sk_sgemm(SK_NOTRANS, SK_NOTRANS, N_TGT, D1, D1, 1.f, dec1, D1, wq1, D1, 0.f, q1, D1),
            "sk_sgemm") ||
        !ok(sk_sgemm(SK_NOTRANS, SK_NOTRANS, N_SRC, D1, D1, 1.f, enc1, D1, wk1, D1, 0.f, k1, D1),
            "sk_sgemm") ||
        !ok(sk_sgemm(SK_NOTRANS, SK_NOTRANS, N_SRC, D1, D1, 1.f, enc1, D1, wv1, D1, 0.f, v1, D1),
            "sk_sgemm"))
        return 1;
    if (!ok(sk_attention(N_TGT, N_SRC, D1, D1, q1, D1, k1, D1, v1, D1, 1.f / sqrtf((float)D1), NULL,
                         out1, D1, w1),
            "sk_attention"))
        return 1;
    printf("Single-head cross-attention (d_model = d_k = d_v = %d)\n", D1);
    printf("  encoder (%d, %d), decoder (%d, %d), output (%d, %d), weights (%d, %d)\n", N_SRC, D1,
           N_TGT, D1, N_TGT, D1, N_TGT, N_SRC);
    printf("  attention weights (target x source; each row sums to 1):\n");
    print_table(w1);
    printf("\n");

    /* ---- 2. multi-head, d_model = 32, 4 heads ------------------------------------------------ */
    enum { D = 32, H = 4 };
    static float enc[N_SRC * D], dec[N_TGT * D], wq[D * D], wk[D * D], wv[D * D], wo[D * D];
    static float out[N_TGT * D], w[H * N_TGT * N_SRC];
    fill_normal(enc, N_SRC * D, 1.f);
    fill_normal(dec, N_TGT * D, 1.f);
    xavier(wq, D, D);
    xavier(wk, D, D);
    xavier(wv, D, D);
    xavier(wo, D, D);
    const sk_mhca layer = { .d_model = D, .n_heads = H, .w_q = wq, .w_k = wk, .w_v = wv,
                            .w_o = wo }; /* no biases, d_enc = d_model */
    if (!ok(sk_mhca_forward(&layer, N_TGT, dec, N_SRC, enc, NULL, out, w, NULL), "sk_mhca_forward"))
        return 1;
    printf("Multi-head cross-attention with %d heads (d_model = %d, d_head = %d):\n", H, D, D / H);
    printf("  Input encoder shape:  (%d, %d)\n", N_SRC, D);
    printf("  Input decoder shape:  (%d, %d)\n", N_TGT, D);
    printf("  Output shape:         (%d, %d)\n", N_TGT, D);
    printf("  Attention weights:    (%d, %d, %d) (heads x target x source)\n", H, N_TGT, N_SRC);
    for (int h = 0; h < H; h++) {
        printf("  head %d pattern:\n", h + 1);
        print_table(w + h * N_TGT * N_SRC);
    }
    printf("\n");

    /* ---- 3. decoder-step API: encoder projected once, one target token per step -------------- */
    /* ws: the header's bound for one row (Q and the concat at a row stride of at most
       d_model + 31 floats, and 64 bytes of slack) */
    static float kv[2 * N_SRC * D], out_step[N_TGT * D], w_step[H * N_SRC],
                 ws[2 * (D + 31) + 16], out_fused[D];
    if (sk_mhca_kv_size(&layer, N_SRC) != sizeof kv ||
        sk_mhca_forward_kv_workspace_size(&layer, 1) > sizeof ws) {
        fprintf(stderr, "unexpected buffer sizes\n");
        return 1;
    }
    if (!ok(sk_mhca_project_kv(&layer, N_SRC, enc, kv), "sk_mhca_project_kv")) return 1;
    printf("Incremental decoding: encoder K/V projected once (%zu bytes), then one target token "
           "per step\n"
           "(each step run with weights and without: the fused path)\n",
           sk_mhca_kv_size(&layer, N_SRC));
    double max_out = 0, max_w = 0;
    int nan = 0;
    for (int i = 0; i < N_TGT; i++) {
        if (!ok(sk_mhca_forward_kv(&layer, 1, dec + i * D, N_SRC, kv, NULL, out_step + i * D,
                                   w_step, ws),
                "sk_mhca_forward_kv"))
            return 1;
        for (int c = 0; c < D; c++) {
            const double e = fabs((double)out_step[i * D + c] - out[i * D + c]);
            if (isnan(e)) nan = 1;
            if (e > max_out) max_out = e;
        }
        /* the same step without weights: the fused path, as an engine runs it */
        if (!ok(sk_mhca_forward_kv(&layer, 1, dec + i * D, N_SRC, kv, NULL, out_fused, NULL, ws),
                "sk_mhca_forward_kv"))
            return 1;
        for (int c = 0; c < D; c++) {
            const double e = fabs((double)out_fused[c] - out[i * D + c]);
            if (isnan(e)) nan = 1;
            if (e > max_out) max_out = e;
        }
        for (int h = 0; h < H; h++)
            for (int j = 0; j < N_SRC; j++) {
                const double e =
                    fabs((double)w_step[h * N_SRC + j] - w[(h * N_TGT + i) * N_SRC + j]);
                if (isnan(e)) nan = 1;
                if (e > max_w) max_w = e;
            }
        printf("  step %d (\"%s\"): head 1 weights", i + 1, TGT[i]);
        for (int j = 0; j < N_SRC; j++) printf(" %s=%.3f", SRC[j], w_step[j]);
        printf("\n");
    }
    const double tol = 1e-5;
    const int agree = !nan && max_out <= tol && max_w <= tol;
    printf("  max |step-by-step - all-at-once|: output %.3g, weights %.3g (tolerance %g): %s\n\n",
           max_out, max_w, tol, agree ? "agree" : "DISAGREE");
    return agree && whisper_layer() && narrow_encoder() ? 0 : 1;
}
