/* half.h: binary16 and bfloat16 to and from binary32, as bit patterns.
 *
 * The conversions to half precision round to nearest, ties to even (IEEE
 * 754's default, what CUDA's __float2half_rn, PyTorch's .half() and
 * .bfloat16() do); NaN stays a quiet NaN, overflow goes to infinity.  The
 * widenings are exact. */
#ifndef PECHECK_HALF_H
#define PECHECK_HALF_H

#include <stdint.h>

uint16_t pc_f16_of(float v);
float pc_f16_value(uint16_t h);
uint16_t pc_bf16_of(float v);
float pc_bf16_value(uint16_t h);
/* V rounded to the storage type DTYPE (enum pc_dtype: F16, BF16; any
 * other: V itself). */
float pc_round_to(int dtype, float v);

#endif
