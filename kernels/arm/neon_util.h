/* NEON helpers of the NEON kernels (static inline): tails of fewer than 4 floats through a small
 * stack copy (never past the end of the row) and their lane masks. */
#ifndef SK_NEON_UTIL_H
#define SK_NEON_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <arm_neon.h>

/* Lanes [0, rem) of p (rem clamped to 4), the others 0. */
static inline float32x4_t sk_load4_neon(const float *p, size_t rem)
{
    if (rem >= 4) return vld1q_f32(p);
    float t[4] = { 0.f, 0.f, 0.f, 0.f };
    memcpy(t, p, rem * sizeof(float));
    return vld1q_f32(t);
}

/* Lanes [0, rem) of v to p (rem clamped to 4). */
static inline void sk_store4_neon(float *p, float32x4_t v, size_t rem)
{
    if (rem >= 4) {
        vst1q_f32(p, v);
        return;
    }
    float t[4];
    vst1q_f32(t, v);
    memcpy(p, t, rem * sizeof(float));
}

/* Lanes [0, rem) all-ones (rem clamped to 4). */
static inline uint32x4_t sk_tail4_neon(size_t rem)
{
    static const uint32_t tail[8] = { ~0u, ~0u, ~0u, ~0u, 0, 0, 0, 0 };
    return vld1q_u32(tail + 4 - (rem >= 4 ? 4 : rem));
}

#endif
