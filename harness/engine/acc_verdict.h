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

/* " (the pair's position X)" for the witness W when CFG's schedule maps
 * rows to real coordinates, else "" (into BUF of LEN). */
void pc_acc_coord_text(const pc_acc_cfg *cfg, const pc_witness *w, char *buf, size_t len);

/* The same with OWN ("" or NULL: none), the source's own values at the
 * witness (rows that rotate an input: its cos and sin there, gate.c), put
 * in the failure's summary before the rotated vector's element. */
void pc_acc_verdict_own(const pc_impl *impl, const pc_acc_cfg *cfg, const pc_acc_result *res,
                        const char *fault, const char *context, const char *own, pc_verdict *v);

/* What CFG holds the rows to, one line for people (pc_verdict.against):
 * the schedule as its note says it, else the geometric one, and the base
 * with where it came from ("base 10000 (fitted from the table)"). */
void pc_acc_against(const pc_acc_cfg *cfg, char *buf, size_t len);

/* The same with V's identity from IMPL and CFG, without fault or context:
 * what `pecheck accuracy` and `pecheck merge` report. */
void pc_acc_gate_verdict(const pc_impl *impl, const pc_acc_cfg *cfg, const pc_acc_result *res,
                         pc_verdict *v);

#endif
