/* identify_form.h: the strict class identify proposes for a float32 RoPE
 * table whose schedule it found (docs/identify.md, "The formulation"):
 * the accuracy gate of check's arguments run again under each computed
 * strict class, transformers' (hf) and llama.cpp's (ggml). */
#ifndef PECHECK_ROPE_IDENTIFY_FORM_H
#define PECHECK_ROPE_IDENTIFY_FORM_H

#include "scaling.h"
#include "harness/engine/accuracy.h"
#include "harness/io/json.h"
#include "harness/sandbox/impl.h"
#include "identify.h"

#define PC_FORM_PROBES 2 /* hf, ggml: the order of a proposal when both pass */

typedef struct pc_rope_form_probe {
    int ran[PC_FORM_PROBES];       /* the class applies to the schedule and the gate ran */
    int pass[PC_FORM_PROBES];
    double ratio[PC_FORM_PROBES];  /* its max |err|/bound */
    char why[PC_FORM_PROBES][200]; /* not ran: why (the schedule has no such code) */
    int proposed;                  /* the class proposed (PC_CLASS_HF, PC_CLASS_GGML), 0: none */
    const char *unprobed;          /* why no class was tried (NULL: they were) */
} pc_rope_form_probe;

/* The gate of CFG (the default class's, which passed on IMPL's rows; P its
 * schedule, NULL for --base alone) under hf and ggml into OUT: the first
 * that passes is proposed.  Not tried for LongRoPE, whose per-pair factors
 * identify fits from the rows: a strict class would hold the rows to the
 * fitted factors, not to the model's (HF's Phi-3.5 cache at 522240 fails
 * hf at 4.99 against them). */
void pc_rope_form_probe_run(const pc_impl *impl, const pc_acc_cfg *cfg, const pc_rope_params *p,
                            pc_rope_form_probe *out);

/* "formulation: ..." for the text, the JSON object "formulation". */
void pc_rope_form_probe_text(FILE *f, const pc_rope_form_probe *pr);
void pc_rope_form_probe_json(pc_json *j, const pc_rope_form_probe *pr);

/* The gate of pc_rope_ident_gate (identify.h) with ID's schedule on table
 * IMPL's rows at positions AT.., run again under each class the probe
 * tries (pc_rope_form_probe_run) into *OUT: 0, or -1 (not run; identify_gate.c). */
int pc_rope_ident_gate_form(const pc_impl *impl, const pc_rope_ident *id, int layout, int dtype,
                            int64_t at, pc_rope_form_probe *out);

#endif
