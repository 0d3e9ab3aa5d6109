/* A program outside the project that builds against an installed simdkern (pkg-config or CMake)
 * and checks that the library works: a hand-computed GEMM (called, and planned once), a softmax
 * and one attention head. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <simdkern.h>

int main(void)
{
    int fail = 0;
    /* [1 2; 3 4] [5 6; 7 8] = [19 22; 43 50] */
    const float a[4] = { 1, 2, 3, 4 }, b[4] = { 5, 6, 7, 8 };
    float c[4];
    fail |= sk_sgemm(SK_NOTRANS, SK_NOTRANS, 2, 2, 2, 1.f, a, 2, b, 2, 0.f, c, 2) != SK_OK;
    fail |= c[0] != 19 || c[1] != 22 || c[2] != 43 || c[3] != 50;
    /* the same product planned once: C = 2 A B + C */
    sk_sgemm_plan plan;
    fail |= sk_sgemm_plan_init(&plan, SK_NOTRANS, SK_NOTRANS, 2, 2, 2, 2.f, 2, 2, 1.f, 2) != SK_OK;
    fail |= sk_sgemm_plan_run(&plan, a, b, c) != SK_OK;
    fail |= c[0] != 57 || c[1] != 66 || c[2] != 129 || c[3] != 150;
    /* softmax([0, ln 2, ln 3]) = [1/6, 1/3, 1/2] */
    const float x[3] = { 0.f, logf(2.f), logf(3.f) };
    float y[3];
    fail |= sk_softmax(1, 3, x, 3, y, 3) != SK_OK;
    fail |= fabsf(y[0] - 1.f / 6) > 1e-6f || fabsf(y[1] - 1.f / 3) > 1e-6f ||
            fabsf(y[2] - 0.5f) > 1e-6f;
    /* one query, two keys with equal scores: the output is the mean of the two value rows */
    const float q[2] = { 1, 0 }, k[4] = { 0, 1, 0, 2 }, v[4] = { 2, 4, 6, 8 };
    float o[2];
    fail |= sk_attention(1, 2, 2, 2, q, 2, k, 2, v, 2, 1.f, NULL, o, 2, NULL) != SK_OK;
    fail |= fabsf(o[0] - 4.f) > 1e-6f || fabsf(o[1] - 6.f) > 1e-6f;
    /* the header and the library agree on the version */
    char ver[32];
    snprintf(ver, sizeof ver, "%d.%d.%d", SK_VERSION_MAJOR, SK_VERSION_MINOR, SK_VERSION_PATCH);
    fail |= strcmp(sk_version(), ver) != 0;
    printf("consumer: simdkern %s on %s: %s\n", sk_version(), sk_isa_name(sk_isa_active()),
           fail ? "FAILED" : "ok");
    return fail;
}
