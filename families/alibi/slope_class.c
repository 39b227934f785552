/* slope_class.c: the tolerance classes of ALiBi slopes (alibi.h), derived
 * in docs/relative.md ("Slopes computed in binary32").
 *
 * strict: one ulp of the exact slope.  The paper's get_slopes computes in
 * binary64 (a few ulps of 2^-53) and rounds once to binary32: within half
 * an ulp plus 2^-29 ulp.
 *
 * default: the slopes of a binary32 formulation.  The slope of head h is
 * r^K (pc_alibi_power: r = 2^(-B/C) or 2^(-B/(2C)), K = h + 1 or 2m + 1).
 * BLOOM's build_alibi_tensor rounds r to binary32 (from a binary64 value:
 * |r~ - r| <= u0 r, u0 = 2^-24 + 2^-51) and raises it with torch.pow in
 * binary32: r~^K = r^K (1 + e)^K, then the pow's own error, at most 4 ulps
 * (8u relative: CUDA's documented powf bound; glibc 0.82, SLEEF 1 ulp).
 * MPT's gen_slopes computes 1 / torch.pow(2, m) with m = K B/N exact: the
 * pow's 8u and the reciprocal's u.  exp2f of a rounded exponent
 * (|x~ - x| <= u |x|, |x| = B K / C) is off by ln 2 |x| u <= K u when
 * C >= 0.7 B; for B a power of two a smaller C divides B and the exponent
 * is an integer, which exp2f returns exactly.
 * The largest of these: BLOOM's (1 + u0)^K (1 + 8u) (MPT's (1 + 8u)(1 + u)
 * is below it, u0 > u and K >= 1; exp2f's K u and the paper's half ulp
 * too), hence
 *   |s~ - s| <= ((1 + u0)^K (1 + 8u) - 1) |s|.
 * (With a binary32 pow of one ulp, glibc's and SLEEF's on the CPU, BLOOM's
 * is (1 + u0)^K (1 + 2u): the 4 ulps are CUDA's, where BLOOM's tensors
 * live on a GPU.)
 * The bound is evaluated in binary64 with log1p and expm1 (relative error
 * a few 2^-53 of a quantity >= 9u) and raised by 2^-40 of itself. */
#include <math.h>
#include "alibi.h"
#include "harness/engine/model.h"

#define U32 0x1p-24                  /* binary32's unit roundoff */
#define U0 (0x1p-24 + 0x1p-51)       /* a binary64 ratio rounded to binary32 */
#define POW_ULPS PC_MODEL_POWF_ULPS /* a binary32 pow: CUDA powf's 4 ulps (model.h) */

double pc_alibi_slope_beta(int heads, int h, double s, double ulp32, int strict)
{
    if (strict) return ulp32 / fabs(s);
    double k = (double)pc_alibi_power(heads, h);
    double l = k * log1p(U0) + log1p(2.0 * POW_ULPS * U32);
    return expm1(l) * (1.0 + 0x1p-40);
}

double pc_alibi_value_bound(double exact, double beta, int64_t k, double u_s)
{
    double prod = k == 1 || k == -1 ? 0.0 : U32; /* m * K rounded once (K != +-1) */
    return fabs(exact) * ((1.0 + beta) * (1.0 + prod) * (1.0 + u_s) - 1.0) * (1.0 + 0x1p-40);
}

const char *pc_alibi_class_name(int strict)
{
    return strict ? "strict (1 ulp of the exact slope)"
                  : "default (binary32 powers of a rounded ratio: ((1+u0)^K (1+8u) - 1) |m|)";
}
