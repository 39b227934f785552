/* v2args.h: the argument structs of plugin ABI version 2
 * (include/pecheck_plugin.h) on pecheck's side: their sizes, their
 * validation, and the calls that take one.
 *
 * A v2 call goes through the hook table like any other (hooks.def,
 * PC_HOOK_ARGS): pecheck hands the struct's members over one by one, the
 * arrays copied into the plugin host's shared memory and OUT between its
 * canaries; the worker rebuilds the struct and calls FINISH before the
 * plugin.  A struct that describes more than its buffers hold (a stride
 * out of range, overlapping views, an unknown dtype, a SIZE that is not
 * this pecheck's) is refused twice before the plugin runs: by pc_*_v2_call
 * in pecheck (an error with its reason, nothing called), and by FINISH in
 * the worker (the worker exits: a fault naming the call). */
#ifndef PECHECK_V2ARGS_H
#define PECHECK_V2ARGS_H

#include <stddef.h>
#include <stdint.h>
#include "hook.h"

/* Bytes of one element of DTYPE (PECHECK_DTYPE_*), 0 for an unknown one. */
size_t pc_v2_esize(int dtype);
/* The elements a [N, HEADS, HEAD_DIM] view with these strides spans from
 * its first element: (N-1) ST_TOK + (HEADS-1) ST_HEAD + HEAD_DIM; SIZE_MAX
 * when a count or stride is negative or the sum overflows (0 for N = 0). */
size_t pc_v2_rope_span(size_t n, int heads, int64_t st_tok, int64_t st_head, int head_dim);
/* strlen(S) + 1, 0 for NULL. */
size_t pc_v2_strsize(const char *s);
/* The columns of pecheck_rope_args.pos_axes: N_AXES when it is 1 to 4,
 * else 0 (the argument check refuses the call). */
size_t pc_v2_axes(int n_axes);

/* Whether A is a struct this pecheck would pass, with OUT_ROOM bytes of
 * OUT from A->out on (SIZE_MAX: unknown): 0, or nonzero with the reason in
 * WHY.  Checks SIZE, the dims, layout, dtypes, that the views of the heads
 * and tokens do not overlap, and that the span fits OUT_ROOM. */
int pc_rope_v2_invalid(const pecheck_rope_args *a, size_t out_room, char *why, size_t len);
int pc_sinusoidal_v2_invalid(const pecheck_sinusoidal_args *a, size_t out_room, char *why,
                             size_t len);

/* The worker's FINISH (hooks.def): X NULL becomes OUT (in place); 0 when
 * valid. */
int pc_rope_v2_finish(pecheck_rope_args *a, size_t out_room);
int pc_sinusoidal_v2_finish(pecheck_sinusoidal_args *a, size_t out_room);

/* ---- tensors of the v2 gates (families/rope/gate_v2.c, sinusoidal) ---- */

/* The pc_dtype (opts.h) of a PECHECK_DTYPE_*, and its name ("f32"). */
int pc_v2_dt(int pecheck_dtype);
const char *pc_v2_dtype_name(int pecheck_dtype);
/* Element K of BUF (of DTYPE) as its bits, and widened to binary32. */
uint32_t pc_v2_bits(const unsigned char *buf, int dtype, size_t k);
float pc_v2_value(const unsigned char *buf, int dtype, size_t k);
/* Store the bits U, or V rounded to DTYPE (nearest even), at K. */
void pc_v2_put_bits(unsigned char *buf, int dtype, size_t k, uint32_t u);
void pc_v2_put(unsigned char *buf, int dtype, size_t k, float v);
/* What the gates put between the views (padding): a quiet NaN of DTYPE
 * with a payload of pecheck's own, so that a kernel that reads it outputs
 * NaN (the accuracy check reports it) and a NaN it writes there differs. */
uint32_t pc_v2_pad_bits(int dtype);

/* Call IMPL's v2 entry point with *A (A->x == A->out: in place).  An
 * invalid A is refused before anything is called: returns
 * PC_V2_REFUSED with FAULT clear and the reason in FAULT->cause.
 * Otherwise as pc_call_NAME (hook.h). */
#define PC_V2_REFUSED (-4242)
int pc_rope_v2_call(const pc_impl *impl, pc_fault *fault, const pecheck_rope_args *a);
int pc_sinusoidal_v2_call(const pc_impl *impl, pc_fault *fault, const pecheck_sinusoidal_args *a);

#endif
