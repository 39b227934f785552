/* half.c: binary16 and bfloat16 conversions (half.h). */
#include <math.h>
#include <string.h>
#include "half.h"
#include "dtype.h"

uint16_t pc_f16_of(float v)
{
    uint32_t u;
    memcpy(&u, &v, 4);
    uint16_t sign = (uint16_t)(u >> 16 & 0x8000u);
    double a = fabs((double)v); /* exact */
    if (a != a) return (uint16_t)(sign | 0x7E00u);
    /* 65520 = 65504 + half an ulp (2^4): at or above it, RNE overflows */
    if (a >= 65520.0) return (uint16_t)(sign | 0x7C00u);
    if (a < 0x1p-14) /* subnormal: a multiple of 2^-24, rounded by nearbyint (RNE) */
        return (uint16_t)(sign | (uint16_t)nearbyint(a * 0x1p24));
    int e;
    double m = frexp(a, &e); /* a = m 2^e, m in [0.5, 1) */
    double q = nearbyint(m * 2048.0); /* 11 significant bits, exact scaling */
    if (q == 2048.0) { q = 1024.0; e++; }
    if (e + 14 >= 31) return (uint16_t)(sign | 0x7C00u);
    return (uint16_t)(sign | (uint16_t)((unsigned)(e + 14) << 10) | (uint16_t)(q - 1024.0));
}

float pc_f16_value(uint16_t h)
{
    unsigned e = h >> 10 & 0x1Fu, m = h & 0x3FFu;
    double v = e == 0 ? ldexp((double)m, -24)
             : e == 31 ? (m ? (double)NAN : (double)INFINITY)
             : ldexp((double)(m | 0x400u), (int)e - 25);
    return (float)(h & 0x8000u ? -v : v); /* exact */
}

uint16_t pc_bf16_of(float v)
{
    uint32_t u;
    memcpy(&u, &v, 4);
    if ((u & 0x7FFFFFFFu) > 0x7F800000u) return (uint16_t)(u >> 16 | 0x40u); /* quiet NaN */
    u += 0x7FFFu + (u >> 16 & 1u); /* RNE on the low half; overflow carries to infinity */
    return (uint16_t)(u >> 16);
}

float pc_bf16_value(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float v;
    memcpy(&v, &u, 4);
    return v;
}

float pc_round_to(int dtype, float v)
{
    if (dtype == PC_DT_F16) return pc_f16_value(pc_f16_of(v));
    if (dtype == PC_DT_BF16) return pc_bf16_value(pc_bf16_of(v));
    return v;
}
