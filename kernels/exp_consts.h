/* The constants of the float exp cores of every vector ISA (kernels/x86/exp_avx2.h, exp_avx512.h,
 * kernels/arm/exp_neon.h). Each core: n = round(x log2 e) by the shifter (x log2e + SHIFT rounds
 * to an integer), r = x - n ln2 in two Cody-Waite steps (rr2: LN2HI has 17 bits, so n LN2HI is
 * exact for |n| <= 2^8), exp(r) = 1 + r + r^2 q(r) on |r| <= ln2/2, then 2^n.
 *   p6: q = C2 + C3 r + ... + C6 r^4 (degree 6 in all), the <= 1 ulp exp of sk_exp;
 *   p5: q = S2 + S3 r + S4 r^2 + S5 r^3 (degree 5), relative error <= 2.5e-7: the softmax and
 *       attention exp of x <= 0, one FMA shorter, ample for their 1e-5 bound. */
#ifndef SK_EXP_CONSTS_H
#define SK_EXP_CONSTS_H

#define SK_EXPF_SHIFT  0x1.8p23f          /* 1.5 * 2^23 */
#define SK_EXPF_SHIFTB 12583039.f         /* 1.5 * 2^23 + 127: the low bits of t hold n + 127 */
#define SK_EXPF_LOG2E  0x1.715476p0f
#define SK_EXPF_LN2HI  0x1.62e4p-1f       /* ln2 to 17 bits */
#define SK_EXPF_LN2LO  0x1.7f7d1cp-20f    /* ln2 - LN2HI */
#define SK_EXPF_C2     0x1.fffffep-2f
#define SK_EXPF_C3     0x1.555474p-3f
#define SK_EXPF_C4     0x1.555642p-5f
#define SK_EXPF_C5     0x1.124d2p-7f
#define SK_EXPF_C6     0x1.6c35acp-10f
#define SK_EXPF_S2     0x1.fffd42p-2f
#define SK_EXPF_S3     0x1.55548cp-3f
#define SK_EXPF_S4     0x1.576e1ep-5f
#define SK_EXPF_S5     0x1.1243ap-7f
#define SK_EXPF_HI     89.f               /* exp(89) > FLT_MAX: rounds to inf */
#define SK_EXPF_FAST   87.f               /* |x| <= 87: n in [-126, 126], 2^n and result normal */
#define SK_EXPF_NEGLO  -88.f              /* n = -127 there: 2^n built in the bits is 0.0 */
#define SK_EXPF_LNMIN  -0x1.5d589ep6f     /* -87.33654: the least x with exp(x) >= FLT_MIN */

#endif
