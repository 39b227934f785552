/* model.c: the precision model (see model.h and docs/precision-model.md). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "model.h"
#include "harness/base/dtype.h"

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

/* ---- the decomposed budget of the element-wise gates ------------------ */

double pc_model_u_storage(int dtype)
{
    /* binary32 values are the computation itself: no storage rounding */
    return dtype == PC_DT_BF16 || dtype == PC_DT_F16 ? pc_model_u(dtype) : 0.0;
}

int pc_model_class_computed(int klass)
{
    return klass == PC_CLASS_HF || klass == PC_CLASS_GGML;
}

const char *pc_model_class_name(int klass)
{
    return klass == PC_CLASS_STRICT ? "cr" : klass == PC_CLASS_HF ? "hf"
         : klass == PC_CLASS_GGML ? "ggml" : "default";
}

int pc_model_class_of(const char *name)
{
    if (!strcmp(name, "cr") || !strcmp(name, "strict")) return PC_CLASS_STRICT;
    if (!strcmp(name, "hf")) return PC_CLASS_HF;
    if (!strcmp(name, "ggml")) return PC_CLASS_GGML;
    return !strcmp(name, "default") ? PC_CLASS_DEFAULT : -1;
}

/* kappa of the formulations the default class holds (docs/precision-model.md,
 * "The phase constant"), X = (2i/d) ln(base) the exponent's magnitude:
 *   exp form   c = fl(-ln(base)/d), fl(2i c), expf (E ulps = 2E u), fl(pos w): 2X + 2E + 1
 *   pow form   fl(2i/d), powf (2P u), 1/y (u), fl(pos w) (HF, Meta):        X + 2P + 2
 * with P = PC_MODEL_POWF_ULPS, E = PC_MODEL_EXPF_ULPS (CUDA's: 4, 2; glibc's 1),
 *   ggml       theta = pos; theta *= fl(powf(base, -2/d)) i times:          3i + X
 * plus 1 for second-order terms; strict: a correctly rounded frequency (u)
 * and angle (u), 2 + u for the product of the two (1 + u)^2. */
double pc_model_kappa_form(int form, double base, int d, int i)
{
    if (i == 0) return 0.0; /* base^0 = 1 and pos * 1 are exact in every formulation */
    double x = 2.0 * (double)i / (double)d * log(base);
    switch (form) {
    case PC_FORM_EXP:  return 2.0 * x + 2.0 * PC_MODEL_EXPF_ULPS + 1.0 + 1.0;
    case PC_FORM_POW:  return x + 2.0 * PC_MODEL_POWF_ULPS + 2.0 + 1.0;
    case PC_FORM_GGML: return 3.0 * (double)i + x + 1.0;
    default:           return 2.0 + PC_MODEL_U32; /* correctly rounded */
    }
}

double pc_model_kappa(int klass, double base, int d, int i)
{
    if (klass == PC_CLASS_STRICT) return pc_model_kappa_form(PC_FORM_CR, base, d, i);
    return fmax(fmax(pc_model_kappa_form(PC_FORM_EXP, base, d, i),
                     pc_model_kappa_form(PC_FORM_POW, base, d, i)),
                pc_model_kappa_form(PC_FORM_GGML, base, d, i));
}

/* R (units of u): sin/cos to one ulp, at most 2u at values up to 1
 * (ulp(1) = 2^-23); RoPE: |x_a| dc + |x_b| ds <= 2 sqrt(2) u |pair|, the two
 * products and the sum 2u |pair| (Cauchy-Schwarz), 4.83 -> 5; an attention
 * factor fl(A) times cos and sin: 2u A more. */
double pc_model_radial(int rotates, double att)
{
    if (!rotates) return 2.0;
    return att != 1.0 ? 7.0 : 5.0;
}

double pc_model_element_half(double R, double phi, double u_s, double u_min, double att, double s)
{
    /* three roundings on each path: the cache, the product, the sum */
    double three = (1.0 + u_s) * (1.0 + u_s) * (1.0 + u_s) - 1.0;
    double ru = R * PC_MODEL_U32;
    return s * att * (ru + fmin(phi, 2.0) + (1.0 + ru) * three) + u_min * (M_SQRT2 * s + 3.0);
}

double pc_model_u_min(int dtype)
{
    switch (dtype) {
    case PC_DT_F16:  return 0x1p-25;  /* subnormal spacing 2^-24 */
    case PC_DT_BF16: return 0x1p-134; /* subnormal spacing 2^-133 */
    default:         return 0x1p-150; /* binary32: subnormal spacing 2^-149 */
    }
}

int64_t pc_model_vacuous_from(double kappa, double omega, double R)
{
    double room = PC_MODEL_VACUOUS - R * PC_MODEL_U32;
    const double two24 = 0x1p24, lim = 0x1p53;
    if (kappa > 0.0) {
        double p = ceil(room / (kappa * PC_MODEL_U32 * omega));
        if (p < two24) return (int64_t)p;
    }
    double p = fmax(ceil(room / ((kappa + 1.0) * PC_MODEL_U32 * omega)), two24);
    return p <= lim ? (int64_t)p : INT64_MAX;
}

void pc_model_describe_budget(char *buf, unsigned len, double kappa_max, int klass, int dtype,
                              double tol_abs, int scaled, int sched)
{
    if (tol_abs >= 0.0) {
        snprintf(buf, len, "|err| <= %g (--tol-abs)", tol_abs);
        return;
    }
    snprintf(buf, len, "|err| <= %sA*((R*u + min(kappa_i*u*|theta|, 2))*(1+u_s) + u_s): "
             "%s class, kappa_i %s (largest %.4g), u = 2^-24, u_s = %s (%s)", scaled ? "|pair|*" : "",
             pc_model_class_name(klass), sched == 2 ? "per pair from the formulation's binary32 "
             "operations (docs/precision-model.md)" : sched ? "per pair from the schedule (docs/schedules.md)"
             : "per pair (docs/precision-model.md)", kappa_max,
             dtype == PC_DT_BF16 ? "2^-8" : dtype == PC_DT_F16 ? "2^-11" : "0",
             dtype == PC_DT_F32 ? "binary32 values" : pc_dtype_name(dtype));
}

double pc_ulp32(float ref)
{
    if (!isfinite(ref)) { /* Inf, NaN: frexpf's exponent, as always */
        int e;
        frexpf(fabsf(ref), &e);
        e -= 1;
        return ldexp(1.0, (e < -126 ? -126 : e) - 23);
    }
    return pc_pow2i(pc_ulp32_exp(ref));
}
