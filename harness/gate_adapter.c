/* gate_adapter.c: pc_gate_run_adapter (gate.h), the accuracy engine's run
 * of an ABI v2 gate's adapter (families/NAME/gate_v2.c). */
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
