/* narrow.h: a correctly rounded binary64 value to binary16 or bfloat16,
 * decided only where double rounding cannot err.
 *
 * Let y = RN_G(z) be the rounding of a real z to a format G (binary32 or
 * binary64) in which every midpoint m of the narrow format F (binary16:
 * 11 bits, bfloat16: 8 bits) is representable (m needs p_F + 1 bits; the
 * smallest, half of F's smallest subnormal, is 2^-25 for binary16 and 2^-134
 * for bfloat16, both binary32 numbers).  RN_G is monotone and
 * RN_G(m) = m, so z < m gives y <= m and z > m gives y >= m: whenever y is
 * not itself a midpoint of F, y and z lie between the same two midpoints
 * and RN_F(y) = RN_F(z).  When y is a midpoint the side of z is lost, and
 * the rounding is not decided here (docs/reference.md). */
#ifndef PECHECK_NARROW_H
#define PECHECK_NARROW_H

#include <stddef.h>
#include <stdint.h>

/* RN of Y to bfloat16 (BF16 != 0) or binary16 as its bit pattern in *BITS
 * (ties to even, overflow to infinity, subnormals kept, the sign of zero
 * kept); 1 when Y is not a midpoint of that format, else 0 (*BITS holds
 * RN(Y) all the same). */
int pc_narrow16(double y, int bf16, uint16_t *bits);

/* pc_narrow16 of the N values of X32 (binary32), or of X64 (binary64)
 * when X32 is NULL, into OUT; 1 when every value is decided, else 0. */
int pc_narrow16_row(const float *x32, const double *x64, size_t n, int bf16, uint16_t *out);

#endif
