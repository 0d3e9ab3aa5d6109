/* The dispatch tables: one sk_dsp per available ISA, filled once (pthread_once, no global
 * constructor), and the index of the active one in an atomic so that sk_isa_select is safe to call
 * while other threads run kernels. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "dsp.h"
#include "cpu.h"

sk_dsp sk_dsp_tables[SK_ISA_COUNT];
static unsigned g_avail;
static uint64_t g_features;
atomic_int sk_dsp_active;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
atomic_int sk_dsp_ready; /* set (release) once init_once has filled everything above */

static const char *const g_isa_names[SK_ISA_COUNT] = { "scalar", "avx2", "avx512", "neon" };

static void fill_table(sk_dsp *t, sk_isa isa)
{
    sk_gemm_dsp_init(&t->gemm, isa, g_features);
    sk_math_dsp_init(&t->math, isa);
    sk_attn_dsp_init(&t->attn, isa);
}

static void init_once(void)
{
    g_avail = sk_cpu_detect(&g_features);
    int best = SK_ISA_SCALAR;
    for (int i = 0; i < SK_ISA_COUNT; i++) {
        if (!(g_avail & (1u << i))) continue;
        fill_table(&sk_dsp_tables[i], (sk_isa)i);
        best = i; /* tiers are ordered: a later available ISA is the better one */
    }
    const char *env = getenv("SIMDKERN_ISA");
    if (env) {
        for (int i = 0; i < SK_ISA_COUNT; i++)
            if (!strcmp(env, g_isa_names[i]) && (g_avail & (1u << i))) best = i;
    }
    atomic_store_explicit(&sk_dsp_active, best, memory_order_release);
    atomic_store_explicit(&sk_dsp_ready, 1, memory_order_release);
}

/* After the first call, one acquire load instead of a call into pthread_once on every kernel
   call (about 1% of a 32 x 32 x 32 GEMM). */
static inline void ensure_init(void)
{
    if (__builtin_expect(!atomic_load_explicit(&sk_dsp_ready, memory_order_acquire), 0))
        pthread_once(&g_once, init_once);
}

const sk_dsp *sk_dsp_get_first(void)
{
    ensure_init();
    return &sk_dsp_tables[atomic_load_explicit(&sk_dsp_active, memory_order_acquire)];
}

const sk_dsp *sk_dsp_get_isa(sk_isa *isa)
{
    ensure_init();
    const int i = atomic_load_explicit(&sk_dsp_active, memory_order_acquire);
    *isa = (sk_isa)i;
    return &sk_dsp_tables[i];
}

const sk_dsp *sk_dsp_for(sk_isa isa)
{
    ensure_init();
    if ((unsigned)isa >= SK_ISA_COUNT || !(g_avail & (1u << isa))) return NULL;
    return &sk_dsp_tables[isa];
}

uint64_t sk_cpu_features(void)
{
    ensure_init();
    return g_features;
}

const char *sk_isa_name(sk_isa isa)
{
    return (unsigned)isa < SK_ISA_COUNT ? g_isa_names[isa] : "unknown";
}

int sk_isa_available(sk_isa isa)
{
    ensure_init();
    return (unsigned)isa < SK_ISA_COUNT && (g_avail & (1u << isa)) != 0;
}

sk_isa sk_isa_active(void)
{
    ensure_init();
    return (sk_isa)atomic_load_explicit(&sk_dsp_active, memory_order_acquire);
}

sk_status sk_isa_select(sk_isa isa)
{
    ensure_init();
    if ((unsigned)isa >= SK_ISA_COUNT) return SK_EINVAL;
    if (!(g_avail & (1u << isa))) return SK_EUNSUPPORTED;
    atomic_store_explicit(&sk_dsp_active, (int)isa, memory_order_release);
    return SK_OK;
}

const char *sk_status_str(sk_status s)
{
    switch (s) {
    case SK_OK: return "ok";
    case SK_EINVAL: return "invalid argument";
    case SK_ENOMEM: return "out of memory";
    case SK_EUNSUPPORTED: return "unsupported ISA";
    }
    return "unknown status";
}

const char *sk_version(void)
{
    return SK_VERSION_STRING;
}
