/* options.c: the RoPE schedule options (options.h). */
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include "options.h"
#include "families/family.h"

pc_status pc_rope_opts_resolve(pc_opts *o, pc_err *err)
{
    o->rope = NULL;
    if (!o->hf_config && !o->rope_scaling && !o->rope_freqs && !o->rotary_dim && !o->seq_len_set)
        return PC_OK;
    pc_rope_spec *s = calloc(1, sizeof *s);
    if (!s) return pc_seterr(err, PC_ENOMEM, "out of memory");
    pc_rope_opts ro = { o->hf_config, o->rope_scaling, o->rope_freqs, o->base, o->base_set,
                        o->rotary_dim, o->seq_len, o->seq_len_set };
    pc_status st = pc_rope_spec_parse(s, &ro, err);
    if (st != PC_OK) {
        pc_rope_spec_free(s);
        free(s);
        return st;
    }
    if (s->have_base) o->base = s->p.base;
    else s->p.base = o->base;
    if (s->rotary_dim && !o->d_set) o->d = s->rotary_dim;
    o->rope = s;
    return PC_OK;
}

void pc_rope_opts_release(pc_opts *o)
{
    pc_rope_spec *s = (pc_rope_spec *)(uintptr_t)o->rope;
    if (s) pc_rope_spec_free(s);
    free(s);
    o->rope = NULL;
}

pc_status pc_rope_opts_schedule(const void *sp, int d, double seq_default, pc_rope_params *p,
                                pc_schedule *s, char *note, size_t len, pc_err *err)
{
    const pc_rope_spec *spec = sp;
    if (!spec) return PC_SKIP;
    pc_status st = pc_rope_instantiate(spec, d, seq_default, p, err);
    if (st != PC_OK) return st;
    *s = pc_rope_schedule(p);
    char desc[400];
    pc_rope_describe(p, desc, sizeof desc);
    snprintf(note, len, "%s (%s)", desc, spec->source[0] ? spec->source : "options");
    return PC_OK;
}

pc_status pc_rope_cfg_apply(const pc_opts *o, pc_acc_cfg *cfg, pc_rope_cfg *rc, pc_err *err)
{
    return pc_rope_cfg_apply_spec(o->rope, cfg, rc, err);
}

pc_status pc_rope_cfg_apply_spec(const void *spec, pc_acc_cfg *cfg, pc_rope_cfg *rc, pc_err *err)
{
    memset(rc, 0, sizeof *rc);
    const pc_family *fam = pc_family_find(cfg->family);
    if (!spec || !fam || !fam->rows || !fam->rows->input) return PC_OK;
    pc_status st = pc_rope_opts_schedule(spec, cfg->d, (double)cfg->pos_hi + 1.0, &rc->p, &rc->s,
                                         rc->note, sizeof rc->note, err);
    if (st == PC_SKIP) return PC_OK;
    if (st != PC_OK) return st;
    rc->s.params = &rc->p;
    rc->set = 1;
    cfg->sched = &rc->s;
    cfg->sched_note = rc->note;
    cfg->base = rc->p.base;
    return PC_OK;
}

void pc_rope_cfg_release(pc_rope_cfg *rc)
{
    if (rc->set) pc_rope_params_free(&rc->p);
    rc->set = 0;
}
