/* spec_sched.h: a spec's frequency schedule for the accuracy engine
 * (pc_spec_kind.schedule, spec.h), held while the engine runs. */
#ifndef PECHECK_SPEC_SCHED_H
#define PECHECK_SPEC_SCHED_H

#include "spec.h"
#include "reference/schedule.h"

/* A family's schedule for the accuracy engine, held while the engine runs
 * (the configuration points into it). */
typedef struct pc_spec_sched {
    pc_schedule s;
    char note[1400];          /* what the reference follows, for the verdict */
    void *own;               /* the family's parameters behind S */
    void *form_own;          /* the family's strict class (pc_acc_cfg.form), freed on release */
    char class_note[200];    /* why the strict class is not the one named (pc_acc_cfg.class_note) */
    int set;
    const struct pc_spec_kind *kind; /* whose (its release) */
} pc_spec_sched;

/* The schedule of SPEC's family for CFG (pc_spec_kind.schedule), or none. */
pc_status pc_spec_schedule(const pc_spec *spec, struct pc_acc_cfg *cfg, pc_spec_sched *hold,
                           pc_err *err);
void pc_spec_sched_release(pc_spec_sched *hold);
#endif
