/* formulation_hf.h: the hf tolerance class of RoPE (--formulation hf, and
 * --strict where no formulation is named): transformers' float32
 * frequency code of each schedule (modeling_rope_utils.py), emulated in
 * binary32 operation by operation, its phase constant kappa_i computed per
 * pair rather than bounded by a formula (docs/precision-model.md, "The hf
 * class: transformers' own float32 frequencies"). */
#ifndef PECHECK_ROPE_FORMULATION_HF_H
#define PECHECK_ROPE_FORMULATION_HF_H

#include <stddef.h>
#include "scaling.h"
#include "harness/engine/accuracy.h"

/* One pair's reading of the hf formulation: the binary32 frequencies
 * transformers' code can produce, ascending, the last repeated where there
 * are fewer (one where the power it raises is a binary32 value, torch's
 * pow returning it exactly; two from pow's two neighbours; four for
 * dynamic scaling, whose base' transformers computes in binary64 at
 * initialisation and in binary32 tensors when the cache grows), their
 * largest relative distance K to the exact omega_i in units of u, and the
 * phase constant KAPPA = K + 1 + (2K + 2) u. */
typedef struct pc_rope_hf_pair {
    float cand[PC_ACC_FORM_CANDS];
    double k, kappa;
} pc_rope_hf_pair;

/* The pairs of P's schedule (NULL P: the default rotary embedding of BASE
 * over D dims, HF's _compute_default_rope_parameters) into OUT[d/2].
 * Returns 0, or -1 when transformers has no float32 code for the schedule
 * (llama.cpp's rope_freqs, HunYuan's alpha, axial or xPos positions, an
 * angle scale): WHY says which. */
int pc_rope_hf_pairs(const pc_rope_params *p, double base, int d, pc_rope_hf_pair *out,
                     char *why, size_t len);

/* RoPE's strict class for CFG (after its schedule P, NULL: the geometric
 * one): a named formulation's (CFG->formulation), or hf for a bare
 * --strict, where transformers has code for the schedule (else cr, which
 * the output names).  Sets CFG->strict and, for hf, CFG->form (its memory
 * into *OWN, the caller's to free).  --formulation hf of a schedule without
 * transformers code: PC_EINPUT saying why. */
/* The two binary32 neighbours of B^E (B, E binary32): C[0] <= C[1], the
 * same value twice where B^E is a binary32 value (a powf within one ulp,
 * glibc's, numpy's, Sleef's, returns one of them). */
void pc_rope_pow_cands(float b, float e, float c[2]);

struct pc_acc_cfg;
pc_status pc_rope_form_apply(const pc_rope_params *p, struct pc_acc_cfg *cfg, void **own,
                             pc_err *err);

#endif
