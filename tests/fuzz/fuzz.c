/* The shared pieces of the fuzz targets (see fuzz.h). */
#define _DEFAULT_SOURCE
#include "fuzz.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

char fz_case[512];

uint8_t fz_u8(fz_in *in)
{
    if (!in->n) return 0;
    in->n--;
    return *in->p++;
}
uint16_t fz_u16(fz_in *in)
{
    const uint16_t lo = fz_u8(in);
    return (uint16_t)(lo | (uint16_t)fz_u8(in) << 8);
}
uint32_t fz_u32(fz_in *in)
{
    const uint32_t lo = fz_u16(in);
    return lo | (uint32_t)fz_u16(in) << 16;
}
uint64_t fz_u64(fz_in *in)
{
    const uint64_t lo = fz_u32(in);
    return lo | (uint64_t)fz_u32(in) << 32;
}
float fz_f32(fz_in *in)
{
    const uint32_t u = fz_u32(in);
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}
size_t fz_upto(fz_in *in, size_t hi)
{
    const size_t v = hi < 256 ? fz_u8(in) : fz_u16(in);
    return v % (hi + 1);
}

uint64_t fz_next(fz_rng *r)
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
double fz_unif(fz_rng *r)
{
    return (double)(fz_next(r) >> 11) * 0x1p-53;
}
void fz_fill(fz_rng *r, float *p, size_t n, float amp, int quant)
{
    for (size_t i = 0; i < n; i++) {
        double u = 2.0 * fz_unif(r) - 1.0;
        if (quant) u = nearbyint(u * 8.0) / 8.0;
        p[i] = (float)(u * amp);
    }
}
float fz_amp(uint8_t byte, int lo, int hi)
{
    return ldexpf(1.f, lo + (int)(byte % (unsigned)(hi - lo + 1)));
}

int fz_patch(fz_in *in, fz_patch_t *p)
{
    if (in->n < 9) return 0;
    p->which = fz_u8(in);
    p->index = fz_u32(in);
    p->value = fz_f32(in);
    return 1;
}

/* ---- guarded buffers ------------------------------------------------------------------------- */
void fz_buf_alloc(fz_buf *b, size_t bytes, int at_start)
{
    const size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    const size_t body = (bytes + FZ_BAND + pg - 1) / pg * pg;
    memset(b, 0, sizeof *b);
    b->map_bytes = body + pg;
    b->map = mmap(NULL, b->map_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (b->map == MAP_FAILED) {
        fprintf(stderr, "fuzz: mmap of %zu bytes failed\n", b->map_bytes);
        abort();
    }
    unsigned char *m = b->map;
    b->at_start = at_start;
    if (at_start) {
        mprotect(m, pg, PROT_NONE);
        b->p = m + pg;
        memset(m + pg, FZ_SENT, body);
    } else {
        mprotect(m + body, pg, PROT_NONE);
        b->p = m + body - bytes;
        memset(m, FZ_SENT, body);
    }
    b->bytes = bytes;
    b->shadow = NULL;
}

void fz_buf_free(fz_buf *b)
{
    if (b->map) munmap(b->map, b->map_bytes);
    free(b->shadow);
    memset(b, 0, sizeof *b);
}

void fz_buf_snap(fz_buf *b)
{
    free(b->shadow);
    b->shadow = malloc(b->bytes ? b->bytes : 1);
    if (!b->shadow) abort();
    memcpy(b->shadow, b->p, b->bytes);
}

int fz_buf_check(const fz_buf *b, size_t rows, size_t cols, size_t ld, size_t elem)
{
    const unsigned char *p = b->p;
    const unsigned char *band = b->at_start ? p + b->bytes : p - FZ_BAND;
    for (size_t i = 0; i < FZ_BAND; i++)
        if (band[i] != FZ_SENT) return 0;
    if (!b->shadow) return 1;
    for (size_t o = 0; o < b->bytes; o++) {
        if (p[o] == b->shadow[o]) continue;
        const size_t idx = o / elem;
        if (rows == 0 || ld == 0 || idx / ld >= rows || idx % ld >= cols) return 0;
    }
    return 1;
}

/* ---- masks ---------------------------------------------------------------------------------- */
ptrdiff_t fz_pick_offset(uint8_t sel, uint64_t raw, size_t rows, size_t cols, ptrdiff_t edge)
{
    switch (sel % 10) {
    case 0: return 0;
    case 1: return -1;
    case 2: return (ptrdiff_t)(int8_t)raw;
    case 3: return (ptrdiff_t)(raw % (2 * (rows + cols) + 1)) - (ptrdiff_t)(rows + cols);
    case 4: return PTRDIFF_MAX;
    case 5: return PTRDIFF_MAX - 2;
    case 6: return PTRDIFF_MIN;
    case 7: return PTRDIFF_MIN + 1;
    case 8: return edge;
    default: return (ptrdiff_t)raw;
    }
}

sk_mask fz_mask_make(fz_rng *r, int kind, size_t rows, size_t cols, size_t ld, double density,
                     float amp_add, ptrdiff_t offset, uint8_t **mb, float **ma)
{
    const size_t mext = (rows - 1) * ld + cols;
    *mb = NULL;
    *ma = NULL;
    switch (kind) {
    case 1:
        *mb = malloc(cols);
        for (size_t c = 0; c < cols; c++) (*mb)[c] = fz_unif(r) >= density;
        return (sk_mask){ SK_MASK_KEYS, *mb, 0, 0 };
    case 2:
        *mb = malloc(mext);
        for (size_t i = 0; i < mext; i++) (*mb)[i] = fz_unif(r) >= density;
        return (sk_mask){ SK_MASK_BOOL, *mb, ld, 0 };
    case 3:
        *ma = malloc(mext * sizeof **ma);
        for (size_t i = 0; i < mext; i++)
            (*ma)[i] = i % ld >= cols ? NAN
                     : fz_unif(r) < density ? -INFINITY
                     : (float)((2 * fz_unif(r) - 1) * amp_add);
        return (sk_mask){ SK_MASK_ADD, *ma, ld, 0 };
    case 4:
        return (sk_mask){ SK_MASK_CAUSAL, NULL, 0, offset };
    default:
        return (sk_mask){ SK_MASK_NONE, NULL, 0, 0 };
    }
}

/* ---- ISAs and failures ----------------------------------------------------------------------- */
int fz_isas(sk_isa out[SK_ISA_COUNT])
{
    int n = 0;
    for (int i = 0; i < SK_ISA_COUNT; i++)
        if (sk_isa_available((sk_isa)i)) out[n++] = (sk_isa)i;
    return n;
}

void fz_fail(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "\n=== fuzz finding [isa %s]: ", sk_isa_name(sk_isa_active()));
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n=== case: %s\n", fz_case);
    fflush(stderr);
    abort();
}

int fz_isnan(double x)
{
    return x != x;
}
int fz_isfinite(double x)
{
    return x - x == 0.0;
}
