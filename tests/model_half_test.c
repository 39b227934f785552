/* model_half_test.c: the bound of a RoPE kernel computing in the half
 * dtype (harness/engine/model.h pc_model_element_half; derived in
 * docs/schedules.md, "A kernel computing in half precision"):
 *
 *   s A (R u + min(phi, 2) + (1 + R u) ((1 + u_s)^3 - 1)) + u_min (sqrt(2) s + 3)
 *
 * - the function against the formula evaluated here in long double at a
 *   few points (pair 0, a clamped phase, a YaRN factor, a pair so small
 *   that the subnormal term leads), and the formula's constants u_s and
 *   u_min against the formats' definitions;
 * - simulated kernels on inputs aligned with (cos, -sin), where the
 *   derivation's Cauchy-Schwarz steps are equalities: one that rounds
 *   three times (the cos/sin cache, each product, the sum, the attention
 *   factor applied in binary32 before the cache is rounded, as HF does)
 *   stays within the bound at f16 and bf16; one that rounds once more (the
 *   attention factor applied to the half cache, in the dtype: four
 *   roundings on each path, the derivation budgets three) exceeds it at
 *   f16.  Its witness is printed.  TAP, plan at the end. */
#include <math.h>
#include <stdio.h>
#include "harness/engine/model.h"
#include "harness/cli/opts.h"

static int n_tests, n_fail;

static void ok(int cond, const char *what)
{
    n_tests++;
    if (!cond) n_fail++;
    printf("%s %d - %s\n", cond ? "ok" : "not ok", n_tests, what);
}

#define U32 0x1p-24 /* binary32 unit roundoff, the model's u */

/* The documented formula in long double (64-bit significand). */
static long double formula(long double R, long double phi, long double us, long double umin,
                           long double att, long double s)
{
    long double ru = R * (long double)U32, three = (1 + us) * (1 + us) * (1 + us) - 1;
    long double ph = phi < 2 ? phi : 2;
    return s * att * (ru + ph + (1 + ru) * three) + umin * (sqrtl(2) * s + 3);
}

/* pc_model_element_half at (R, PHI, DTYPE, ATT, S) equals the formula to
 * 2^-48 relative: about 12 binary64 operations, each within 2^-53, err by
 * less than 2^-49; the long double evaluation by 2^11 times less. */
static int same(double R, double phi, int dtype, double att, double s)
{
    double us = pc_model_u_storage(dtype), umin = pc_model_u_min(dtype);
    double got = pc_model_element_half(R, phi, us, umin, att, s);
    typedef long double ld;
    ld want = formula((ld)R, (ld)phi, (ld)us, (ld)umin, (ld)att, (ld)s);
    long double rel = fabsl((long double)got - want) / want;
    printf("# R %g phi %g dtype %d A %g s %g: %a (want %La, rel %Lg)\n", R, phi, dtype, att, s,
           got, want, rel);
    return rel <= 0x1p-48L;
}

static void formula_points(void)
{
    /* binary16: 11 significand bits, smallest subnormal 2^-24; bfloat16:
     * 8 bits, 2^-133 (IEEE 754-2008; binary32's exponent range) */
    ok(pc_model_u_storage(PC_DT_F16) == 0x1p-11 && pc_model_u_storage(PC_DT_BF16) == 0x1p-8,
       "u_s: 2^-11 (f16), 2^-8 (bf16)");
    ok(pc_model_u_min(PC_DT_F16) == 0x1p-25 && pc_model_u_min(PC_DT_BF16) == 0x1p-134,
       "u_min: half the smallest subnormal, 2^-25 (f16), 2^-134 (bf16)");
    ok(same(5, 0, PC_DT_F16, 1, 1), "f16, R 5, pair 0 (phi 0), |pair| 1: the formula");
    /* YaRN x4's attention factor 0.1 ln 4 + 1 */
    ok(same(7, 1e-3, PC_DT_BF16, 0.1 * log(4.0) + 1, 2.5),
       "bf16, R 7, phi 1e-3, A 1.1386, |pair| 2.5: the formula");
    ok(same(5, 3.0, PC_DT_F16, 1, 0.5), "f16, phi 3 clamped to 2, |pair| 0.5: the formula");
    ok(same(5, 0, PC_DT_F16, 1, 0x1p-20), "f16, |pair| 2^-20 (the subnormal term leads): the formula");
}

/* Round X to nearest, ties to even, with P significand bits and smallest
 * normal exponent EMIN (subnormals below 2^EMIN); the formats' ranges are
 * not exceeded here (|x| < 4). */
static double rn(double x, int p, int emin)
{
    int e;
    frexp(x, &e); /* |x| in [2^(e-1), 2^e) */
    e = e - 1 < emin ? emin : e - 1;
    double q = ldexp(1.0, e - (p - 1));
    return nearbyint(x / q) * q; /* x / q and the product: powers of two, exact */
}

typedef struct fmt { int p, emin, dtype; const char *name; } fmt;

/* The first member of the rotation of (XA, XB) by the binary32 values
 * (C32, S32) of cos, sin, with attention factor A: FOUR == 0, the cache
 * fl(A c) rounded from binary32, then each product and the sum rounded
 * (three roundings); FOUR == 1, the cache fl(c) scaled by A in the dtype
 * (one more).  Each operation on two half values is exact in binary64
 * (22 or 16 bits a product; a difference of nearby exponents) and rounded
 * once, as a kernel computing in float and storing the dtype does. */
static double kernel(const fmt *f, int four, double a, float c32, float s32, double xa, double xb)
{
    double c, s;
    if (four) {
        c = rn(a * rn((double)c32, f->p, f->emin), f->p, f->emin);
        s = rn(a * rn((double)s32, f->p, f->emin), f->p, f->emin);
    } else {
        float a32 = (float)a;
        c = rn((double)(a32 * c32), f->p, f->emin);
        s = rn((double)(a32 * s32), f->p, f->emin);
    }
    double p1 = rn(xa * c, f->p, f->emin), p2 = rn(xb * s, f->p, f->emin);
    return rn(p1 - p2, f->p, f->emin);
}

/* Angles of one quadrant on a grid and inputs x = fl(r (cos, -sin)),
 * r = 1 + j/32: the largest |got - exact| / bound of the kernel (FOUR as
 * in kernel()), its witness in *WT, *WR. */
#define N_ANGLES 20000 /* grid steps over (0, pi/2) */
#define N_RADII 32     /* r = 1 + j / 32, j < 32: one binade of |pair| */
static double worst(const fmt *f, int four, double a, double *wt, double *wr)
{
    double R = pc_model_radial(1, a), us = pc_model_u_storage(f->dtype);
    double umin = pc_model_u_min(f->dtype), top = 0;
    for (int j = 0; j < N_RADII; j++)
        for (int k = 1; k <= N_ANGLES; k++) {
            double r = 1 + j / 32.0, t = k / (N_ANGLES + 1.0) * (M_PI / 2);
            double xa = rn(r * cos(t), f->p, f->emin), xb = rn(-r * sin(t), f->p, f->emin);
            double exact = a * (xa * cos(t) - xb * sin(t));
            double got = kernel(f, four, a, (float)cos(t), (float)sin(t), xa, xb);
            /* the angle is exact: phase 0; the binary32 cos, sin within R u */
            double b = pc_model_element_half(R, 0, us, umin, a, hypot(xa, xb));
            double q = fabs(got - exact) / b;
            if (q > top) { top = q; *wt = t; *wr = r; }
        }
    return top;
}

static void kernels(void)
{
    /* binary16: 11 bits, normals from 2^-14; bfloat16: 8 bits, from 2^-126 */
    static const fmt f16 = { 11, -14, PC_DT_F16, "f16" }, bf16 = { 8, -126, PC_DT_BF16, "bf16" };
    /* an attention factor (YaRN's 0.1 ln s + 1 for s = 3.49) that is a
     * binary16 number, so the extra rounding is the product's alone */
    const double a = 1.125;
    double t, r;
    double q3h = worst(&f16, 0, a, &t, &r);
    printf("# f16, three roundings: worst err/bound %.4f at theta %a, r %g\n", q3h, t, r);
    double q3b = worst(&bf16, 0, a, &t, &r);
    printf("# bf16, three roundings: worst err/bound %.4f at theta %a, r %g\n", q3b, t, r);
    ok(q3h <= 1 && q3b <= 1, "a kernel rounding three times (cache, products, sum) is within the "
                             "bound at f16 and bf16");
    double q4 = worst(&f16, 1, a, &t, &r);
    printf("# f16, four roundings: worst err/bound %.4f at theta %a, r %g\n", q4, t, r);
    ok(q4 > 1, "f16: a kernel rounding once more (the attention factor on the half cache) "
               "exceeds the bound");
}

int main(void)
{
    formula_points();
    kernels();
    printf("1..%d\n", n_tests);
    return n_fail != 0;
}
