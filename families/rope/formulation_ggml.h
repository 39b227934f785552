/* formulation_ggml.h: the ggml tolerance class of RoPE (--formulation
 * ggml): llama.cpp's CPU rope (ggml-cpu ops.cpp ggml_rope_cache_init,
 * ggml_mrope_cache_init, rope_yarn, rope_yarn_ramp; ggml.c
 * ggml_rope_yarn_corr_dims), followed in binary32 operation by operation,
 * its phase constant kappa_i computed per pair (docs/precision-model.md,
 * "The ggml class: llama.cpp's CPU rope"). */
#ifndef PECHECK_ROPE_FORMULATION_GGML_H
#define PECHECK_ROPE_FORMULATION_GGML_H

#include <stddef.h>
#include "scaling.h"
#include "harness/engine/accuracy.h"

/* One pair's reading of the ggml formulation: K, the largest relative
 * distance, in units of u, of the angle's exact factor (ggml's binary32
 * theta_scale raised to the pair's index, divided by the pair's binary32
 * rope_freqs factor, times rope_yarn's binary32 scale and mix) to the
 * exact omega_i; KAPPA, the largest relative distance of the computed
 * angle to pos * omega_i with the pair's roundings (the cumulative
 * product's i, the division by the factor, rope_yarn's products and sum)
 * added, in units of u, the position's own rounding left to the model;
 * N, those roundings. */
typedef struct pc_rope_ggml_pair {
    double k, kappa;
    int n;
} pc_rope_ggml_pair;

/* The pairs of P's schedule (NULL P: the default rotary embedding of BASE
 * over D dims) into OUT[d/2].  Returns 0, or -1 when llama.cpp does not
 * implement the schedule (dynamic NTK scaling, HunYuan's alpha, YaRN with
 * an untruncated correction range, axial positions, xPos, an angle scale,
 * half-precision frequencies or angles): WHY says which. */
int pc_rope_ggml_pairs(const pc_rope_params *p, double base, int d, pc_rope_ggml_pair *out,
                       char *why, size_t len);

/* --formulation ggml for CFG (after its schedule P, NULL: the geometric
 * one): sets CFG->form (its memory into *OWN, the caller's to free);
 * PC_EINPUT saying why for a schedule llama.cpp does not implement. */
struct pc_acc_cfg;
pc_status pc_rope_ggml_apply(const pc_rope_params *p, struct pc_acc_cfg *cfg, void **own,
                             pc_err *err);

#endif
