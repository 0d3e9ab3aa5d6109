/* Attention: sk_attention, sk_mha and the table init. (Stub cores: issue 5 replaces them.) */
#include <math.h>
#include <string.h>
#include "dsp.h"
#include "common.h"

void sk_attn_dsp_init(sk_attn_dsp *d, sk_isa isa)
{
    (void)isa;
    d->reserved = 0;
}

static sk_status check_args(size_t n_q, size_t n_kv, size_t d_k, size_t d_v, const float *q,
                            size_t ldq, const float *k, size_t ldk, const float *v, size_t ldv,
                            const sk_mask *mask, const float *out, size_t ldo)
{
    if (!sk_mat_ok(q, n_q, d_k, ldq) || !sk_mat_ok(k, n_kv, d_k, ldk) ||
        !sk_mat_ok(v, n_kv, d_v, ldv) || !sk_mat_ok(out, n_q, d_v, ldo))
        return SK_EINVAL;
    return sk_mask_check(mask, n_q, n_kv);
}

/* Naive reference-style core: one query row at a time through the softmax row kernel. */
static void attention_core(const sk_dsp *dsp, size_t n_q, size_t n_kv, size_t d_k, size_t d_v,
                           const float *q, size_t ldq, const float *k, size_t ldk, const float *v,
                           size_t ldv, float scale, const sk_mask *mask, float *out, size_t ldo,
                           float *weights)
{
    for (size_t r = 0; r < n_q; r++) {
        float *o = out + r * ldo;
        memset(o, 0, d_v * sizeof *o);
        if (n_kv == 0) continue;
        sk_mask tmp;
        const sk_mask *mr = sk_mask_sub(mask, r, 0, &tmp);
        float *w = weights ? weights + r * n_kv : NULL;
        /* online softmax over keys, accumulating into o */
        float m = -INFINITY, l = 0.f;
        for (size_t j = 0; j < n_kv; j++) {
            int att = 1;
            float add = 0.f;
            if (mr) switch (mr->kind) {
                case SK_MASK_KEYS: att = ((const uint8_t *)mr->data)[j] != 0; break;
                case SK_MASK_BOOL: att = ((const uint8_t *)mr->data)[j] != 0; break;
                case SK_MASK_ADD: add = ((const float *)mr->data)[j]; att = add != -INFINITY; break;
                case SK_MASK_CAUSAL: att = (ptrdiff_t)j <= mr->offset; break;
                default: break;
            }
            if (!att) continue;
            float s = 0.f;
            for (size_t p = 0; p < d_k; p++) s += q[r * ldq + p] * k[j * ldk + p];
            s = s * scale + add;
            if (s > m) {
                const float c = expf(m - s);
                for (size_t p = 0; p < d_v; p++) o[p] *= c;
                l *= c;
                m = s;
            }
            const float e = expf(s - m);
            l += e;
            for (size_t p = 0; p < d_v; p++) o[p] += e * v[j * ldv + p];
        }
        if (l == 0.f) memset(o, 0, d_v * sizeof *o);
        else for (size_t p = 0; p < d_v; p++) o[p] /= l;
        if (w) {
            for (size_t j = 0; j < n_kv; j++) {
                float s = 0.f;
                for (size_t p = 0; p < d_k; p++) s += q[r * ldq + p] * k[j * ldk + p];
                w[j] = s;
            }
            dsp->math.scale_mask_softmax(1, n_kv, scale, w, n_kv, mr, w, n_kv);
        }
    }
}

sk_status sk_attention(size_t n_q, size_t n_kv, size_t d_k, size_t d_v,
                       const float *q, size_t ldq, const float *k, size_t ldk,
                       const float *v, size_t ldv, float scale, const sk_mask *mask,
                       float *out, size_t ldo, float *weights)
{
    sk_status st = check_args(n_q, n_kv, d_k, d_v, q, ldq, k, ldk, v, ldv, mask, out, ldo);
    if (st != SK_OK) return st;
    if (n_q == 0) return SK_OK;
    attention_core(sk_dsp_get(), n_q, n_kv, d_k, d_v, q, ldq, k, ldk, v, ldv, scale, mask, out, ldo,
                   weights);
    return SK_OK;
}

sk_status sk_mha(size_t n_heads, size_t n_q, size_t n_kv, size_t d_head,
                 const float *q, size_t ldq, const float *k, size_t ldk, const float *v, size_t ldv,
                 float scale, const sk_mask *mask, float *out, size_t ldo, float *weights)
{
    if (n_heads == 0) return SK_EINVAL;
    const size_t w = n_heads * d_head;
    if (d_head && w / d_head != n_heads) return SK_EINVAL; /* overflow */
    sk_status st = check_args(n_q, n_kv, w, w, q, ldq, k, ldk, v, ldv, mask, out, ldo);
    if (st != SK_OK) return st;
    if (n_q == 0) return SK_OK;
    const sk_dsp *dsp = sk_dsp_get();
    for (size_t h = 0; h < n_heads; h++) {
        const size_t c0 = h * d_head;
        attention_core(dsp, n_q, n_kv, d_head, d_head, q ? q + c0 : q, ldq, k ? k + c0 : k, ldk,
                       v ? v + c0 : v, ldv, scale, mask, out + c0, ldo,
                       weights ? weights + h * n_q * n_kv : NULL);
    }
    return SK_OK;
}
