/* options.h: the RoPE schedule options of a command (--hf-config,
 * --rope-scaling, --rope-freqs, --seq-len, --rotary-dim), for the
 * commands and the accuracy gate. */
#ifndef PECHECK_ROPE_OPTIONS_H
#define PECHECK_ROPE_OPTIONS_H

#include "scaling.h"
#include "harness/cli/opts.h"

/* Parse O's schedule options into O->rope (left NULL when none is given);
 * a config's rope_theta becomes O->base.  PC_EINPUT naming the problem. */
pc_status pc_rope_opts_resolve(pc_opts *o, pc_err *err);
void pc_rope_opts_release(pc_opts *o);

/* The schedule SPEC (pc_opts.rope) for dimension D (SEQ_DEFAULT: see
 * pc_rope_instantiate): *P its parameters (free with
 * pc_rope_params_free), *S the schedule, NOTE one line for the output.
 * Returns PC_SKIP (P untouched) when O has no schedule. */
pc_status pc_rope_opts_schedule(const void *spec, int d, double seq_default, pc_rope_params *p,
                                pc_schedule *s, char *note, size_t len, pc_err *err);


/* The accuracy gate's schedule: for a family whose rows rotate an input
 * (RoPE) and options with a schedule, CFG->sched, sched_note and base
 * point into RC (which must stay in place while CFG is used).  The
 * sequence length defaults to CFG's last position + 1. */
#include "harness/engine/accuracy.h"
typedef struct pc_rope_cfg {
    pc_rope_params p;
    pc_schedule s;
    char note[600];
    int set;
} pc_rope_cfg;
pc_status pc_rope_cfg_apply(const pc_opts *o, pc_acc_cfg *cfg, pc_rope_cfg *rc, pc_err *err);
/* The same from the parsed schedule SPEC (pc_opts.rope; NULL: none). */
pc_status pc_rope_cfg_apply_spec(const void *spec, pc_acc_cfg *cfg, pc_rope_cfg *rc, pc_err *err);
void pc_rope_cfg_release(pc_rope_cfg *rc);

#endif
