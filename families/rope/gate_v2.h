/* gate_v2.h: the accuracy gate of a RoPE kernel behind plugin ABI version 2
 * (gate_v2.c). */
#ifndef PECHECK_ROPE_GATE_V2_H
#define PECHECK_ROPE_GATE_V2_H

#include "harness/engine/gate.h"
#include "harness/engine/accuracy.h"

/* For each dtype (f32, f16, bf16) and layout: the verdicts "accuracy"
 * (every rotated element against the certified reference) and
 * "passthrough" (every other element bit-identical), of layout
 * "LAYOUT, DTYPE". */
pc_status pc_rope_gate_v2(pc_gate *g, const pc_impl *impl, const pc_family *fam);

/* ---- the adapter: pecheck_rope_v2 behind a rope hook (impl.h) ---------- */

/* The head dim and the rotary dim of SPEC: the rotary dim from
 * --rotary-dim or the config (else --d), the head dim from --d when given,
 * else the config's, else the rotary dim. */
pc_status pc_rope_v2_dims(const pc_spec *spec, int *head_dim, int *rotary, pc_err *err);

/* A call context of kernel IMPL: rows of CFG->d rotary dims in a head of
 * HEAD_DIM (>= CFG->d), in DTYPE (PECHECK_DTYPE_*), 3 heads with padding,
 * the frequencies and attention factor of SPEC's schedule for CFG (its d,
 * base and positions), the other heads' values from SEED.  *OUT is set
 * (free it with pc_rope_v2_ctx_free) even on an error. */
typedef struct pc_rope_v2_ctx pc_rope_v2_ctx;
pc_status pc_rope_v2_ctx_new(const pc_impl *impl, const pc_spec *spec, const pc_acc_cfg *cfg,
                             int head_dim, int dtype, uint64_t seed, pc_rope_v2_ctx **out,
                             pc_err *err);
/* The context's configuration, its schedule set. */
const pc_acc_cfg *pc_rope_v2_ctx_cfg(const pc_rope_v2_ctx *c);
void pc_rope_v2_ctx_free(pc_rope_v2_ctx *c);
/* The rope hook over the context CTX: N rows of D (the context's rotary
 * dim) at positions POS, each written into its head, the kernel called in
 * place, the head read back widened to binary32; nonzero: the kernel's
 * return code, PC_HOOK_FAULTED on a fault. */
int pc_rope_v2_hook(void *ctx, const int64_t *pos, size_t n, int d, double base, int layout,
                    const float *x, float *out);

#endif
