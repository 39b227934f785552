/* v2args.c: ABI version 2's argument structs on pecheck's side
 * (v2args.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "harness/base/half.h"
#include "harness/base/dtype.h"
#include "v2args.h"
#include "call.h"

size_t pc_v2_esize(int dtype)
{
    switch (dtype) {
    case PECHECK_DTYPE_F32: return 4;
    case PECHECK_DTYPE_F16: return 2;
    case PECHECK_DTYPE_BF16: return 2;
    default: return 0;
    }
}

/* A + B, SIZE_MAX on overflow or when either is SIZE_MAX. */
static size_t add_sat(size_t a, size_t b)
{
    return a == SIZE_MAX || b == SIZE_MAX || b > SIZE_MAX - 1 - a ? SIZE_MAX : a + b;
}

/* K * S for a count K and a stride S >= 0, SIZE_MAX on overflow. */
static size_t mul_sat(size_t k, int64_t s)
{
    if (s < 0) return SIZE_MAX;
    if (k == 0 || s == 0) return 0;
    return (uint64_t)s > (SIZE_MAX - 1) / k ? SIZE_MAX : k * (size_t)s;
}

size_t pc_v2_rope_span(size_t n, int heads, int64_t st_tok, int64_t st_head, int head_dim)
{
    if (heads < 1 || head_dim < 0 || st_tok < 0 || st_head < 0) return SIZE_MAX;
    if (n == 0) return 0;
    size_t s = add_sat(mul_sat(n - 1, st_tok), mul_sat((size_t)heads - 1, st_head));
    return add_sat(s, (size_t)head_dim);
}

size_t pc_v2_strsize(const char *s)
{
    return s ? strlen(s) + 1 : 0;
}

/* The [N, HEADS] rows of length HD at t*ST + h*SH do not overlap: one of
 * the two nestings (heads within a token, or tokens within a head) holds. */
static int disjoint(size_t n, int heads, int64_t st, int64_t sh, int hd)
{
    if (st < 0 || sh < 0 || hd < 0) return 0;
    size_t d = (size_t)hd, ust = (size_t)st, ush = (size_t)sh;
    if (heads == 1) return n <= 1 || ust >= d;
    if (n <= 1) return ush >= d;
    if (ush >= d && ust >= add_sat(mul_sat((size_t)heads - 1, sh), d)) return 1; /* [t, h, j] */
    return ust >= d && ush >= add_sat(mul_sat(n - 1, st), d);                    /* [h, t, j] */
}

static int bad(char *why, size_t len, const char *msg)
{
    snprintf(why, len, "%s", msg);
    return 1;
}

/* The span of OUT (elements of ESIZE bytes) fits OUT_ROOM bytes. */
static int fits(size_t span, size_t esize, size_t out_room)
{
    return span != SIZE_MAX && span <= (SIZE_MAX >> 2) / 4 &&
           (out_room == SIZE_MAX || span * esize <= out_room);
}

size_t pc_v2_axes(int n_axes)
{
    return n_axes >= 1 && n_axes <= 4 ? (size_t)n_axes : 0;
}

/* Every pair's axis is one of A's N_AXES. */
static int axes_ok(const pecheck_rope_args *a)
{
    for (int i = 0; i < a->rotary_dim / 2; i++)
        if (a->pair_axis[i] < 0 || a->pair_axis[i] >= a->n_axes) return 0;
    return 1;
}

int pc_rope_v2_invalid(const pecheck_rope_args *a, size_t out_room, char *why, size_t len)
{
    if (a->size != sizeof *a)
        return bad(why, len, "the argument struct's size is not this pecheck's");
    if (!a->pos || !a->out || !a->freqs || !a->schedule || !a->schedule_json || !a->pos_axes
        || !a->pair_axis)
        return bad(why, len, "a NULL array");
    if (a->heads < 1 || a->rotary_dim < 2 || a->rotary_dim % 2 || a->head_dim < a->rotary_dim ||
        a->head_dim % 2)
        return bad(why, len, "heads, head_dim or rotary_dim out of range");
    if (!pc_v2_axes(a->n_axes) || !axes_ok(a))
        return bad(why, len, "n_axes or pair_axis out of range");
    if (a->layout != PECHECK_LAYOUT_INTERLEAVED && a->layout != PECHECK_LAYOUT_HALF)
        return bad(why, len, "unknown layout");
    if (!pc_v2_esize(a->dtype_in) || !pc_v2_esize(a->dtype_out))
        return bad(why, len, "unknown dtype");
    if (a->x && a->x == a->out && a->dtype_in != a->dtype_out)
        return bad(why, len, "in place with two dtypes");
    if (!(a->attention_factor > 0) || a->attention_factor == (double)INFINITY)
        return bad(why, len, "attention factor not a positive finite number");
    if (a->stride_token < 0 || a->stride_head < 0 ||
        !disjoint(a->n_tokens, a->heads, a->stride_token, a->stride_head, a->head_dim))
        return bad(why, len, "strides out of range: the views of heads or tokens overlap");
    size_t span = pc_v2_rope_span(a->n_tokens, a->heads, a->stride_token, a->stride_head,
                                  a->head_dim);
    if (!fits(span, pc_v2_esize(a->dtype_out), out_room) ||
        !fits(span, pc_v2_esize(a->dtype_in), SIZE_MAX))
        return bad(why, len, "strides out of range: the view does not fit its buffer");
    return 0;
}

int pc_sinusoidal_v2_invalid(const pecheck_sinusoidal_args *a, size_t out_room, char *why,
                             size_t len)
{
    if (a->size != sizeof *a)
        return bad(why, len, "the argument struct's size is not this pecheck's");
    if (!a->pos || !a->out || !a->freqs || !a->schedule || !a->schedule_json)
        return bad(why, len, "a NULL array");
    if (a->d < 2 || a->d % 2) return bad(why, len, "d out of range");
    if (a->layout != PECHECK_LAYOUT_INTERLEAVED && a->layout != PECHECK_LAYOUT_HALF)
        return bad(why, len, "unknown layout");
    if (!pc_v2_esize(a->dtype_out)) return bad(why, len, "unknown dtype");
    if (!disjoint(a->n, 1, a->stride, 0, a->d))
        return bad(why, len, "stride out of range: rows overlap");
    size_t span = pc_v2_rope_span(a->n, 1, a->stride, 0, a->d);
    if (!fits(span, pc_v2_esize(a->dtype_out), out_room))
        return bad(why, len, "stride out of range: the rows do not fit their buffer");
    return 0;
}

int pc_rope_v2_finish(pecheck_rope_args *a, size_t out_room)
{
    char why[8];
    if (!a->x) a->x = a->out;
    return pc_rope_v2_invalid(a, out_room, why, sizeof why);
}

int pc_sinusoidal_v2_finish(pecheck_sinusoidal_args *a, size_t out_room)
{
    char why[8];
    return pc_sinusoidal_v2_invalid(a, out_room, why, sizeof why);
}

static int refuse(pc_fault *fault, const char *sym, const char *why)
{
    fault->faulted = 0;
    snprintf(fault->cause, sizeof fault->cause, "not called: %s's arguments refused: %s", sym,
             why);
    return PC_V2_REFUSED;
}

int pc_rope_v2_call(const pc_impl *impl, pc_fault *fault, const pecheck_rope_args *a)
{
    char why[160];
    if (pc_rope_v2_invalid(a, SIZE_MAX, why, sizeof why))
        return refuse(fault, pc_hook_symbol(PC_HOOK_rope_v2), why);
    /* in place: X travels as OUT's initial contents */
    const unsigned char *x = a->x == a->out ? NULL : a->x;
    return pc_call_rope_v2(impl, fault, a->size, a->pos, a->n_tokens, a->heads, a->head_dim,
                           a->rotary_dim, a->layout, a->stride_token, a->stride_head,
                           a->dtype_in, a->dtype_out, x, a->out, a->freqs,
                           a->attention_factor, a->schedule, a->schedule_json, a->pos_axes,
                           a->n_axes, a->pair_axis);
}

int pc_sinusoidal_v2_call(const pc_impl *impl, pc_fault *fault,
                          const pecheck_sinusoidal_args *a)
{
    char why[160];
    if (pc_sinusoidal_v2_invalid(a, SIZE_MAX, why, sizeof why))
        return refuse(fault, pc_hook_symbol(PC_HOOK_sinusoidal_v2), why);
    return pc_call_sinusoidal_v2(impl, fault, a->size, a->pos, a->n, a->d, a->layout, a->stride,
                                 a->dtype_out, a->out, a->freqs, a->base, a->schedule,
                                 a->schedule_json);
}

/* ---- tensors of the v2 gates ------------------------------------------- */

int pc_v2_dt(int pecheck_dtype)
{
    return pecheck_dtype == PECHECK_DTYPE_F16 ? PC_DT_F16
         : pecheck_dtype == PECHECK_DTYPE_BF16 ? PC_DT_BF16 : PC_DT_F32;
}

const char *pc_v2_dtype_name(int pecheck_dtype)
{
    return pecheck_dtype == PECHECK_DTYPE_F16 ? "f16"
         : pecheck_dtype == PECHECK_DTYPE_BF16 ? "bf16" : "f32";
}

uint32_t pc_v2_bits(const unsigned char *buf, int dtype, size_t k)
{
    if (dtype == PECHECK_DTYPE_F32) { uint32_t u; memcpy(&u, buf + 4 * k, 4); return u; }
    uint16_t h;
    memcpy(&h, buf + 2 * k, 2);
    return h;
}

float pc_v2_value(const unsigned char *buf, int dtype, size_t k)
{
    uint32_t u = pc_v2_bits(buf, dtype, k);
    if (dtype == PECHECK_DTYPE_F16) return pc_f16_value((uint16_t)u);
    if (dtype == PECHECK_DTYPE_BF16) return pc_bf16_value((uint16_t)u);
    float v;
    memcpy(&v, &u, 4);
    return v;
}

void pc_v2_put_bits(unsigned char *buf, int dtype, size_t k, uint32_t u)
{
    if (dtype == PECHECK_DTYPE_F32) { memcpy(buf + 4 * k, &u, 4); return; }
    uint16_t h = (uint16_t)u;
    memcpy(buf + 2 * k, &h, 2);
}

void pc_v2_put(unsigned char *buf, int dtype, size_t k, float v)
{
    uint32_t u;
    if (dtype == PECHECK_DTYPE_F16) u = pc_f16_of(v);
    else if (dtype == PECHECK_DTYPE_BF16) u = pc_bf16_of(v);
    else memcpy(&u, &v, 4);
    pc_v2_put_bits(buf, dtype, k, u);
}

uint32_t pc_v2_pad_bits(int dtype)
{
    /* quiet NaNs (exponent all ones, top mantissa bit set) with an arbitrary payload */
    return dtype == PECHECK_DTYPE_F32 ? 0x7FC0BEEFu : dtype == PECHECK_DTYPE_F16 ? 0x7E5Au : 0x7FDAu;
}
