/* exp, the portable reference. Works in double internally so that it is nearly correctly rounded
 * (<= 0.5 ulp + 2^-30 relative) over the whole float range, subnormal results included, and gives
 * the same bits in every build (plain IEEE double ops, no contraction):
 *   n = round(x log2 e) (shifter trick), r = x - n ln2 in two Cody-Waite steps, |r| <= ln2/2,
 *   exp(r) by a degree-8 Taylor polynomial (truncation < 2^-32 relative), 2^n through the exponent
 *   bits of a double (n in [-150, 129] is always a normal double), one rounding to float at the
 * end. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "vmath.h"

#define SHIFT_D  0x1.8p52                 /* 1.5 * 2^52: adding it rounds to an integer */
#define LOG2E_D  0x1.71547652b82fep0
#define LN2HI_D  0x1.62e42fee00000p-1     /* ln2, 32 bits: n * LN2HI_D exact for |n| < 2^21 */
#define LN2LO_D  0x1.a39ef35793c76p-33    /* ln2 - LN2HI_D */

double sk_exp_core_d(double x)
{
    /* x in [-104, 89]: exp(-104) < 2^-150 rounds to 0, exp(89) > FLT_MAX rounds to inf. */
    const double t = x * LOG2E_D + SHIFT_D;
    const double n = t - SHIFT_D;
    double r = x - n * LN2HI_D;
    r = r - n * LN2LO_D;
    double p = 1.0 / 40320;
    p = p * r + 1.0 / 5040;
    p = p * r + 1.0 / 720;
    p = p * r + 1.0 / 120;
    p = p * r + 1.0 / 24;
    p = p * r + 1.0 / 6;
    p = p * r + 0.5;
    p = p * r + 1.0;
    p = p * r + 1.0;
    const uint64_t bits = (uint64_t)((int64_t)n + 1023) << 52; /* 2^n */
    double s;
    memcpy(&s, &bits, sizeof s);
    return p * s;
}

float sk_exp1_scalar(float x)
{
    if (x != x) return x + x;          /* NaN: quiet it */
    if (x > 89.f) return INFINITY;     /* also +inf */
    if (x < -104.f) return 0.f;        /* also -inf */
    return (float)sk_exp_core_d(x);
}

void sk_exp_scalar(size_t n, const float *x, float *y)
{
    for (size_t i = 0; i < n; i++) y[i] = sk_exp1_scalar(x[i]);
}
