/* Attention: sk_attention, sk_mha and the table init. (Stub: issue 5 fills it in.) */
#include "dsp.h"
#include "common.h"

void sk_attn_dsp_init(sk_attn_dsp *d, sk_isa isa)
{
    (void)isa;
    d->reserved = 0;
}

sk_status sk_attention(size_t n_q, size_t n_kv, size_t d_k, size_t d_v,
                       const float *q, size_t ldq, const float *k, size_t ldk,
                       const float *v, size_t ldv, float scale, const sk_mask *mask,
                       float *out, size_t ldo, float *weights)
{
    (void)n_q; (void)n_kv; (void)d_k; (void)d_v; (void)q; (void)ldq; (void)k; (void)ldk;
    (void)v; (void)ldv; (void)scale; (void)mask; (void)out; (void)ldo; (void)weights;
    return SK_EUNSUPPORTED;
}

sk_status sk_mha(size_t n_heads, size_t n_q, size_t n_kv, size_t d_head,
                 const float *q, size_t ldq, const float *k, size_t ldk, const float *v, size_t ldv,
                 float scale, const sk_mask *mask, float *out, size_t ldo, float *weights)
{
    (void)n_heads; (void)n_q; (void)n_kv; (void)d_head; (void)q; (void)ldq; (void)k; (void)ldk;
    (void)v; (void)ldv; (void)scale; (void)mask; (void)out; (void)ldo; (void)weights;
    return SK_EUNSUPPORTED;
}
