/* narrow.c: binary64 to binary16 / bfloat16 bit patterns (narrow.h), by
 * integer operations on the binary64 encoding: the value's 53-bit
 * significand is shifted to the narrow format's quantum and rounded to
 * nearest, ties to even, from the bits shifted out. */
#include <string.h>
#include "narrow.h"

/* The narrow format: P significand bits, smallest normal exponent EMIN,
 * exponent bias, and the all-ones exponent field (infinity) INF_EXP
 * (IEEE 754-2008 binary16; bfloat16 is binary32's upper half). */
typedef struct fmt16 { int p, emin, bias, inf_exp; } fmt16;
static const fmt16 F16 = { 11, -14, 15, 31 }, BF16 = { 8, -126, 127, 255 };

/* binary64's encoding: 52 fraction bits, an 11-bit exponent field
 * (all ones: infinity or NaN) and its bias 1023 (IEEE 754-2008). */
#define B64_FRAC 52
#define B64_EXP_MASK 0x7ff
#define B64_BIAS 1023

/* RN of the significand SIG (< 2^53) times 2^-S, S >= 1, as an integer;
 * *TIE is 1 when the bits shifted out are exactly one half.  Adding
 * half - 1 and the kept last bit carries into the kept bits exactly when
 * the rest is above one half, or is one half and the last bit odd (ties
 * to even), without a branch on random bits.  For S > 53 the value is
 * below one half (SIG < 2^53): 0, no tie. */
static uint64_t rn_shift(uint64_t sig, int s, int *tie)
{
    if (s > B64_FRAC + 1) { *tie = 0; return 0; }
    uint64_t half = UINT64_C(1) << (s - 1);
    *tie = (sig & (2 * half - 1)) == half;
    return (sig + (half - 1) + ((sig >> s) & 1)) >> s;
}

/* RN of Y to the format F as its bit pattern in *BITS; 1 unless Y is a
 * midpoint of F (narrow.h).  Inlined with F a constant in the callers. */
static inline int narrow(double y, const fmt16 *f, uint16_t *bits)
{
    int mb = f->p - 1;
    uint64_t u;
    memcpy(&u, &y, sizeof u);
    uint16_t sign = (uint16_t)(u >> 63 << 15);
    int ef = (int)(u >> B64_FRAC) & B64_EXP_MASK;
    uint64_t frac = u & ((UINT64_C(1) << B64_FRAC) - 1);
    uint16_t inf = (uint16_t)(f->inf_exp << mb);
    if (ef == B64_EXP_MASK) { /* infinity, or a quiet NaN */
        *bits = (uint16_t)(sign | inf | (frac ? 1 << (mb - 1) : 0));
        return 1;
    }
    /* a binary64 subnormal (ef 0, far below either format's range) is
     * taken with exponent -1022 and no implicit bit: it rounds to zero */
    uint64_t sig = ef ? frac | (UINT64_C(1) << B64_FRAC) : frac;
    int ea = (ef ? ef : 1) - B64_BIAS; /* |y| = sig * 2^(ea - 52) */
    int e = ea < f->emin ? f->emin : ea;
    /* |y| in units of the quantum 2^(e - mb) is sig * 2^-s, s >= 53 - P */
    int tie;
    uint64_t r = rn_shift(sig, B64_FRAC - mb + e - ea, &tie);
    /* R in [0, 2^P]: below 2^mb a subnormal (e = EMIN, exponent field 0);
     * 2^P carries into the exponent field, as the addition does */
    uint64_t mag = ((uint64_t)(e + f->bias - 1) << mb) + r;
    *bits = (uint16_t)(sign | (mag >= inf ? inf : mag));
    return !tie;
}

int pc_narrow16(double y, int bf16, uint16_t *bits)
{
    return bf16 ? narrow(y, &BF16, bits) : narrow(y, &F16, bits);
}

/* binary32's encoding: 23 fraction bits, exponent bias 127, the
 * exponent field's mask (all ones: infinity or NaN) in place. */
#define B32_FRAC 23
#define B32_BIAS 127
#define B32_EXP_FIELD 0x7f800000u

/* RN of the binary32 value X to F, where |X| is a normal number of F or
 * above it (finite): both formats' binades then hold 2^23 and 2^mb values
 * apart from the exponent, so after moving the exponent field from
 * binary32's bias to F's, the bits past F's mb are one fixed shift away
 * (S = 23 - mb); the rounding and its tie as in rn_shift, a carry into
 * the exponent field included; past F's largest finite, infinity.  The
 * caller sends every other X through narrow(). */
static inline int narrow32_normal(uint32_t u, const fmt16 *f, uint16_t *bits)
{
    int mb = f->p - 1, s = B32_FRAC - mb;
    uint32_t inf = (uint32_t)f->inf_exp << mb, half = 1u << (s - 1);
    uint32_t b = (u & 0x7fffffffu) - ((uint32_t)(B32_BIAS - f->bias) << B32_FRAC);
    uint32_t r = (b + (half - 1) + ((b >> s) & 1)) >> s;
    *bits = (uint16_t)((u >> 16 & 0x8000u) | (r >= inf ? inf : r));
    return (b & (2 * half - 1)) != half;
}

/* The binary32 row loop of pc_narrow16_row for the format F: the fixed
 * shift where it applies, narrow() for F's subnormals, zeros, infinities
 * and NaNs (rare in a table, so the branch is predicted). */
static int narrow_row32(const float *x, size_t n, const fmt16 *f, uint16_t *out)
{
    /* F's smallest normal 2^EMIN as binary32 bits */
    uint32_t lo = (uint32_t)(f->emin + B32_BIAS) << B32_FRAC;
    int dec = 1;
    for (size_t j = 0; j < n; j++) {
        uint32_t u;
        memcpy(&u, &x[j], sizeof u);
        uint32_t a = u & 0x7fffffffu; /* |x|: the sign bit cleared */
        if (a >= lo && a < B32_EXP_FIELD)
            dec &= narrow32_normal(u, f, &out[j]);
        else
            dec &= narrow((double)x[j], f, &out[j]);
    }
    return dec;
}

/* The binary64 row loop of pc_narrow16_row for the format F. */
static int narrow_row64(const double *x, size_t n, const fmt16 *f, uint16_t *out)
{
    int dec = 1;
    for (size_t j = 0; j < n; j++)
        dec &= narrow(x[j], f, &out[j]);
    return dec;
}

int pc_narrow16_row(const float *x32, const double *x64, size_t n, int bf16, uint16_t *out)
{
    if (x32)
        return bf16 ? narrow_row32(x32, n, &BF16, out) : narrow_row32(x32, n, &F16, out);
    return bf16 ? narrow_row64(x64, n, &BF16, out) : narrow_row64(x64, n, &F16, out);
}
