/* acc_verdict.h: an accuracy gate's result as a verdict (verdict.h), the
 * one result model every format writes (format.h). */
#ifndef PECHECK_ACC_VERDICT_H
#define PECHECK_ACC_VERDICT_H

#include "accuracy.h"
#include "harness/formats/verdict.h"

/* Fill V's status, numbers, summary, details (the gate's text report after
 * "cause: FAULT" and CONTEXT lines when given) and json (the gate's fields,
 * after "cause" when FAULT) from RES of IMPL under CFG.  V's identity
 * (check, family, implementation, layout, seed) is the caller's; FAULT
 * and CONTEXT may be NULL. */
void pc_acc_verdict(const pc_impl *impl, const pc_acc_cfg *cfg, const pc_acc_result *res,
                    const char *fault, const char *context, pc_verdict *v);

/* The same with V's identity from IMPL and CFG, without fault or context:
 * what `pecheck accuracy` and `pecheck merge` report. */
void pc_acc_gate_verdict(const pc_impl *impl, const pc_acc_cfg *cfg, const pc_acc_result *res,
                         pc_verdict *v);

#endif
