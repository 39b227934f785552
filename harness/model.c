/* model.c: the precision model (see model.h and docs/precision-model.md). */
#include <math.h>
#include <stdio.h>
#include "model.h"
#include "opts.h"

double pc_model_u(int dtype)
{
    switch (dtype) {
    case PC_DT_BF16: return 0x1p-8;  /* 8 significand bits */
    case PC_DT_F16:  return 0x1p-11; /* 11 significand bits */
    case PC_DT_F64:  return 0x1p-53;
    default:         return 0x1p-24; /* binary32: 24 significand bits */
    }
}

double pc_model_C(double base)
{
    return 2.0 * log(base) + 4.0;
}

double pc_model_bound(double C, double u, double theta, double scale, double tol_abs)
{
    if (tol_abs >= 0.0)
        return tol_abs;
    return C * u * (1.0 + fabs(theta)) * scale;
}

void pc_model_describe(char *buf, unsigned len, double C, double u, int dtype, double tol_abs, int scaled)
{
    if (tol_abs >= 0.0)
        snprintf(buf, len, "|err| <= %g (--tol-abs)", tol_abs);
    else
        snprintf(buf, len, "|err| <= C*u*(1+|theta|)%s, C = 2 ln(base) + 4 = %.4g, u = 2^%d (%s)",
                 scaled ? "*|pair|" : "", C, (int)lround(log2(u)), pc_dtype_name(dtype));
}
