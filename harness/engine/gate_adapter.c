/* gate_adapter.c: pc_gate_run_adapter (gate.h), the accuracy engine's run
 * of an ABI v2 gate's adapter (families/NAME/gate_v2.c), and the fault its
 * calls met. */
#include <stdio.h>
#include "accuracy.h"
#include "gate.h"

pc_status pc_gate_run_adapter(const pc_impl *impl, const pc_family *fam, const pc_impl *hooks,
                              const pc_acc_cfg *cfg, pc_acc_result *res, pc_err *err)
{
    pc_impl ad = *hooks;
    ad.name = impl->name;
    ad.description = impl->description;
    ad.family_hint = fam->name;
    ad.expect_pass = 1;
    return pc_accuracy_run(&ad, cfg, res, err);
}

void pc_adapter_fault_note(pc_adapter_fault *f, const char *cause, int64_t pos0)
{
    if (f->faulted && pos0 >= f->pos) return;
    f->faulted = 1;
    f->pos = pos0;
    snprintf(f->cause, sizeof f->cause, "%s", cause);
}

/* The fault of a call within the block whose error ended the run (the
 * engine calls a block's positions in two calls: acc_block.c pc_blk_call). */
int pc_adapter_fault_apply(const pc_adapter_fault *f, pc_acc_result *res)
{
    if (!f->faulted || res->impl_rc == 0 || f->pos < res->impl_rc_lo || f->pos > res->impl_rc_hi)
        return 0;
    res->status = PC_FAIL;
    res->faulted = 1;
    if (res->impl_alone)
        pc_acc_alone_note(res->note, sizeof res->note, f->cause, res->impl_rc_hi, res->impl_rc_lo);
    else
        snprintf(res->note, sizeof res->note, "%.250s", f->cause);
    return 1;
}
