/* torch_peer: a shared object for bench/torch_mhca.py, which loads it with ctypes and times the
 * module next to PyTorch in one process. Each function runs `iters` calls back to back and returns
 * the elapsed seconds, so that no Python overhead lands on simdkern's side: wall time
 * (CLOCK_MONOTONIC), or after skb_use_cpu_clock(1) the calling thread's CPU time
 * (CLOCK_THREAD_CPUTIME_ID: time spent waiting for a CPU on a shared machine left out).
 * Only these functions are exported; the library itself is linked in (static, hidden symbols). */
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include "simdkern.h"
#include "fma_peak.h"

#define SKB_EXPORT __attribute__((visibility("default")))

static int g_cpu_clock;

SKB_EXPORT void skb_use_cpu_clock(int on) { g_cpu_clock = on; }

static double now(void)
{
    struct timespec t;
    clock_gettime(g_cpu_clock ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The layer from its fields (d_enc 0 = d_model; biases NULL = none). Built with
   -DSKB_SIX_FIELDS against a tree whose sk_mhca has no d_enc and biases (a baseline), those are
   left out: callers pass d_enc 0 and NULL biases. */
static sk_mhca layer(size_t d, size_t h, const float *const w[4], size_t d_enc,
                     const float *const b[4])
{
#ifdef SKB_SIX_FIELDS
    (void)d_enc;
    (void)b;
    sk_mhca L = { .d_model = d, .n_heads = h, .w_q = w[0], .w_k = w[1], .w_v = w[2], .w_o = w[3] };
#else
    sk_mhca L = { .d_model = d, .n_heads = h, .w_q = w[0], .w_k = w[1], .w_v = w[2], .w_o = w[3],
                  .d_enc = d_enc, .b_q = b[0], .b_k = b[1], .b_v = b[2], .b_o = b[3] };
#endif
    return L;
}

/* sk_mhca_forward, weights NULL, caller workspace (sk_mhca_workspace_size bytes); -1 on error. */
SKB_EXPORT double skb_time_forward(size_t d, size_t h, const float *const w[4], size_t d_enc,
                                   const float *const b[4], size_t n_dec, const float *dec,
                                   size_t n_enc, const float *enc, float *out, void *ws,
                                   long iters)
{
    const sk_mhca L = layer(d, h, w, d_enc, b);
    const double t0 = now();
    for (long i = 0; i < iters; i++)
        if (sk_mhca_forward(&L, n_dec, dec, n_enc, enc, NULL, out, NULL, ws) != SK_OK) return -1;
    return now() - t0;
}

/* sk_mhca_forward_kv on a kv buffer already projected, weights NULL; -1 on error. */
SKB_EXPORT double skb_time_step(size_t d, size_t h, const float *const w[4], size_t d_enc,
                                const float *const b[4], size_t n_dec, const float *dec,
                                size_t n_enc, const float *kv, float *out, void *ws, long iters)
{
    const sk_mhca L = layer(d, h, w, d_enc, b);
    const double t0 = now();
    for (long i = 0; i < iters; i++)
        if (sk_mhca_forward_kv(&L, n_dec, dec, n_enc, kv, NULL, out, NULL, ws) != SK_OK) return -1;
    return now() - t0;
}

/* sk_mhca_project_kv once (the K/V cache of the steps); 0 or the sk_status. */
SKB_EXPORT int skb_project_kv(size_t d, size_t h, const float *const w[4], size_t d_enc,
                              const float *const b[4], size_t n_enc, const float *enc, float *kv)
{
    const sk_mhca L = layer(d, h, w, d_enc, b);
    return (int)sk_mhca_project_kv(&L, n_enc, enc, kv);
}

/* Bytes of workspace for forward (n_enc > 0) or the steps (n_enc == 0). */
SKB_EXPORT size_t skb_workspace(size_t d, size_t h, const float *const w[4], size_t d_enc,
                                const float *const b[4], size_t n_dec, size_t n_enc)
{
    const sk_mhca L = layer(d, h, w, d_enc, b);
    return n_enc ? sk_mhca_workspace_size(&L, n_dec, n_enc)
                 : sk_mhca_forward_kv_workspace_size(&L, n_dec);
}

SKB_EXPORT const char *skb_isa(void) { return sk_isa_name(sk_isa_active()); }

/* `flops` floating-point operations of FMAs at the active path's width (avx2: 8 lanes, avx512:
   16), `iters` times back to back: the time the FMA peak allows for that many flops; -1 where
   the active path has no such loop (scalar, NEON). */
SKB_EXPORT double skb_time_fma_peak(double flops, long iters)
{
#if defined(__x86_64__)
    const sk_isa isa = sk_isa_active();
    if (isa != SK_ISA_AVX2 && isa != SK_ISA_AVX512) return -1;
    const int width = isa == SK_ISA_AVX512 ? 16 : 8;
    const size_t steps = skb_fma_steps(flops, width);
    volatile float x = 0.999f, y = 1e-3f, sink = 0.f;
    const double t0 = now();
    for (long i = 0; i < iters; i++) sink += skb_fma_chains(width, steps, x, y);
    (void)sink;
    return now() - t0;
#else
    (void)flops;
    (void)iters;
    return -1;
#endif
}
