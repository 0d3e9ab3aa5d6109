/* checkasm driver:
 *   checkasm [--test=NAME] [--isa=NAME] [--seed=N] [--quick] [--bench] [--verbose]
 * Runs each family test once per ISA that is available (or just --isa); exits 77 (meson's "skip")
 * when the requested ISA is not available on this host, 1 on any failure. */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "checkasm.h"

static struct {
    sk_isa isa;
    uint64_t seed;
    uint64_t s[4];
    char func[160];
    int failures, printed, verbose, quick, bench;
} st;

sk_isa ck_isa(void) { return st.isa; }
uint64_t ck_seed(void) { return st.seed; }
int ck_failures(void) { return st.failures; }
int ck_verbose(void) { return st.verbose; }
int ck_quick(void) { return st.quick; }
int ck_bench(void) { return st.bench; }

static void select_or_die(sk_isa isa)
{
    if (sk_isa_select(isa) != SK_OK) {
        fprintf(stderr, "checkasm: cannot select %s\n", sk_isa_name(isa));
        exit(1);
    }
}
void ck_ref(void) { select_or_die(SK_ISA_SCALAR); }
void ck_new(void) { select_or_die(st.isa); }

void ck_func(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(st.func, sizeof st.func, fmt, ap);
    va_end(ap);
}

int ck_fail(const char *fmt, ...)
{
    st.failures++;
    if (st.printed++ < 20) {
        va_list ap;
        fprintf(stderr, "FAIL [%s] %s: ", sk_isa_name(st.isa), st.func);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
    }
    return 0;
}

/* xoshiro256** */
static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
uint64_t ck_rand64(void)
{
    uint64_t *s = st.s;
    const uint64_t r = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3]; s[2] ^= t; s[3] = rotl(s[3], 45);
    return r;
}
static void seed_rng(uint64_t seed)
{
    for (int i = 0; i < 4; i++) { /* splitmix64 */
        uint64_t z = (seed += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        st.s[i] = z ^ (z >> 31);
    }
}
uint32_t ck_rand_u32(uint32_t n) { return n ? (uint32_t)((ck_rand64() >> 32) % n) : 0; }
float ck_randf(float lo, float hi)
{
    return lo + (hi - lo) * (float)((ck_rand64() >> 40) * 0x1p-24);
}
float ck_randn(void)
{
    double u1 = ((ck_rand64() >> 11) + 1) * 0x1p-53, u2 = (ck_rand64() >> 11) * 0x1p-53;
    return (float)(sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2));
}
void ck_fill(float *p, size_t n, float lo, float hi)
{
    for (size_t i = 0; i < n; i++) p[i] = ck_randf(lo, hi);
}

/* guarded buffers: [header: n, guard][GUARD floats][n floats][GUARD floats]. Every buffer's
   guard is a quiet NaN of its own payload: a kernel that reads past one buffer and writes past
   another would otherwise copy the first one's guard (NaN payloads propagate) into the second's
   and pass. Padding inside matrices is one more payload, never a guard's. */
#define GUARD 64
static const uint32_t POISON = 0x7fc0dead; /* padding: a quiet NaN with a recognisable payload */
static uint32_t g_guard_count;
static float nan_of(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static float poison_f(void) { return nan_of(POISON); }
static int is_poison(float f) { uint32_t u; memcpy(&u, &f, 4); return u == POISON; }

float *ck_buf_alloc(size_t n)
{
    float *base = malloc((n + 2 * GUARD + 4) * sizeof(float));
    if (!base) { fprintf(stderr, "checkasm: out of memory\n"); exit(1); }
    /* quiet NaNs 0x7fa00001.. (never POISON): a fresh payload per buffer */
    const uint32_t guard = 0x7fa00001u + (g_guard_count++ & 0xfffffu);
    memcpy(base, &n, sizeof n);
    memcpy((char *)base + sizeof n, &guard, sizeof guard);
    float *p = base + 4 + GUARD;
    for (size_t i = 0; i < GUARD; i++) p[-1 - (ptrdiff_t)i] = p[n + i] = nan_of(guard);
    for (size_t i = 0; i < n; i++) p[i] = 0.f;
    return p;
}
int ck_buf_check(const float *p, const char *what)
{
    size_t n;
    uint32_t guard, u;
    memcpy(&n, p - GUARD - 4, sizeof n);
    memcpy(&guard, (const char *)(p - GUARD - 4) + sizeof n, sizeof guard);
    for (size_t i = 0; i < GUARD; i++) {
        memcpy(&u, &p[-1 - (ptrdiff_t)i], 4);
        if (u != guard) return ck_fail("%s: write %zu before the buffer", what, i + 1);
        memcpy(&u, &p[n + i], 4);
        if (u != guard) return ck_fail("%s: write %zu after the buffer", what, i);
    }
    return 1;
}
void ck_buf_free(float *p) { if (p) free(p - GUARD - 4); }

void ck_mat_poison_pad(float *p, size_t rows, size_t cols, size_t ld)
{
    for (size_t r = 0; r < rows; r++)
        for (size_t c = cols; c < ld; c++) p[r * ld + c] = poison_f();
}
int ck_mat_pad_check(const float *p, size_t rows, size_t cols, size_t ld, const char *what)
{
    for (size_t r = 0; r < rows; r++)
        for (size_t c = cols; c < ld; c++)
            if (!is_poison(p[r * ld + c]))
                return ck_fail("%s: write into padding at (%zu,%zu)", what, r, c);
    return 1;
}

int64_t ck_ulp_diff(float a, float b)
{
    if (isnan(a) || isnan(b)) return (isnan(a) && isnan(b)) ? 0 : INT64_MAX;
    if (a == b) return 0;
    int32_t ia, ib;
    memcpy(&ia, &a, 4); memcpy(&ib, &b, 4);
    int64_t la = ia < 0 ? (int64_t)INT32_MIN - ia : ia; /* map to a monotonic integer line */
    int64_t lb = ib < 0 ? (int64_t)INT32_MIN - ib : ib;
    return la > lb ? la - lb : lb - la;
}
int ck_same_nan(float a, float b) { return !!isnan(a) == !!isnan(b); }

static const struct { const char *name; void (*fn)(void); } g_tests[] = {
    { "gemm", ck_test_gemm },
    { "exp", ck_test_exp },
    { "softmax", ck_test_softmax },
    { "attention", ck_test_attention },
    { "slots", ck_test_slots },
};

int main(int argc, char **argv)
{
    const char *only_test = NULL, *only_isa = NULL;
    st.seed = (uint64_t)time(NULL) ^ ((uint64_t)clock() << 32);
    for (int i = 1; i < argc; i++) {
        if (!strncmp(argv[i], "--test=", 7)) only_test = argv[i] + 7;
        else if (!strncmp(argv[i], "--isa=", 6)) only_isa = argv[i] + 6;
        else if (!strncmp(argv[i], "--seed=", 7)) st.seed = strtoull(argv[i] + 7, NULL, 0);
        else if (!strcmp(argv[i], "--quick")) st.quick = 1;
        else if (!strcmp(argv[i], "--bench")) st.bench = 1;
        else if (!strcmp(argv[i], "--verbose") || !strcmp(argv[i], "-v")) st.verbose = 1;
        else {
            fprintf(stderr, "usage: %s [--test=gemm|exp|softmax|attention|slots]"
                            " [--isa=scalar|avx2|avx512|neon] [--seed=N] [--quick] [--bench]"
                            " [--verbose]\n", argv[0]);
            return 2;
        }
    }
    if (getenv("CHECKASM_QUICK")) st.quick = 1;
    printf("checkasm: seed %" PRIu64 " (replay with --seed=%" PRIu64 ")\n", st.seed, st.seed);

    int ran = 0, found_isa = only_isa == NULL;
    for (int isa = 0; isa < SK_ISA_COUNT; isa++) {
        if (only_isa && strcmp(only_isa, sk_isa_name((sk_isa)isa))) continue;
        found_isa = 1;
        if (!sk_isa_available((sk_isa)isa)) {
            if (only_isa) {
                printf("checkasm: %s not available here: skipped\n", only_isa);
                return 77;
            }
            continue;
        }
        st.isa = (sk_isa)isa;
        for (size_t t = 0; t < sizeof g_tests / sizeof g_tests[0]; t++) {
            if (only_test && strcmp(only_test, g_tests[t].name)) continue;
            int before = st.failures;
            seed_rng(st.seed);
            ck_func("%s", g_tests[t].name);
            ck_new();
            g_tests[t].fn();
            printf("  %-10s %-7s %s\n", g_tests[t].name, sk_isa_name(st.isa),
                   st.failures == before ? "ok" : "FAILED");
            ran++;
        }
    }
    if (!found_isa) { fprintf(stderr, "checkasm: unknown ISA %s\n", only_isa); return 2; }
    if (!ran) { fprintf(stderr, "checkasm: nothing ran\n"); return 2; }
    if (st.failures) {
        printf("checkasm: %d failures (seed %" PRIu64 ")\n", st.failures, st.seed);
        return 1;
    }
    printf("checkasm: all %d tests passed\n", ran);
    return 0;
}
