/* The multi-head cross-attention module. (Stub: issue 5 fills it in.) */
#include "dsp.h"
#include "common.h"

size_t sk_mhca_workspace_size(const sk_mhca *layer, size_t n_dec, size_t n_enc)
{
    (void)layer; (void)n_dec; (void)n_enc;
    return 0;
}

sk_status sk_mhca_forward(const sk_mhca *layer, size_t n_dec, const float *dec, size_t n_enc,
                          const float *enc, const uint8_t *enc_mask, float *out, float *weights,
                          void *workspace)
{
    (void)layer; (void)n_dec; (void)dec; (void)n_enc; (void)enc; (void)enc_mask; (void)out;
    (void)weights; (void)workspace;
    return SK_EUNSUPPORTED;
}
