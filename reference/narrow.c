/* narrow.c: binary64 to binary16 / bfloat16 bit patterns (narrow.h). */
#include <math.h>
#include "narrow.h"

/* The narrow format: P significand bits, smallest normal exponent EMIN,
 * exponent bias, and the all-ones exponent field (infinity) INF_EXP
 * (IEEE 754-2008 binary16; bfloat16 is binary32's upper half). */
typedef struct fmt16 { int p, emin, bias, inf_exp; } fmt16;
static const fmt16 F16 = { 11, -14, 15, 31 }, BF16 = { 8, -126, 127, 255 };

/* R * 2^(E - (P-1)), R an integer in [0, 2^P] (subnormal below 2^(P-1)
 * when E = EMIN), as the format's bits without the sign. */
static uint16_t encode(const fmt16 *f, double r, int e)
{
    int mb = f->p - 1;
    double top = ldexp(1.0, mb);
    if (r < top) /* subnormal (E = EMIN) or zero: exponent field 0 */
        return (uint16_t)r;
    if (r >= 2.0 * top) { r = top; e++; } /* rounded up to the next binade */
    int biased = e + f->bias;
    if (biased >= f->inf_exp)
        return (uint16_t)(f->inf_exp << mb);
    return (uint16_t)((biased << mb) | (int)(r - top));
}

int pc_narrow16(double y, int bf16, uint16_t *bits)
{
    const fmt16 *f = bf16 ? &BF16 : &F16;
    uint16_t sign = signbit(y) ? 0x8000u : 0u;
    double a = fabs(y);
    if (isnan(y)) { /* a quiet NaN */
        *bits = (uint16_t)(sign | (f->inf_exp << (f->p - 1)) | (1 << (f->p - 2)));
        return 1;
    }
    if (isinf(y) || a == 0.0) {
        *bits = (uint16_t)(sign | (a == 0.0 ? 0 : f->inf_exp << (f->p - 1)));
        return 1;
    }
    int e;
    frexp(a, &e);   /* a in [2^(e-1), 2^e) */
    e -= 1;
    if (e < f->emin) e = f->emin;
    /* a in units of the quantum 2^(e-(P-1)): a power-of-two scaling, exact
     * (t < 2^P, and t >= 2^-1074 * 2^(P-1-EMIN) is far from underflow) */
    double t = ldexp(a, f->p - 1 - e);
    double r = nearbyint(t); /* the default mode: to nearest, ties to even */
    *bits = (uint16_t)(sign | encode(f, r, e));
    return t - floor(t) != 0.5;
}
