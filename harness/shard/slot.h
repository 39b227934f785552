/* slot.h: how one verdict of a check shard was made (check_shard.h) and the
 * record of a shard's slots: what the shard writer, its reader and merge,
 * and the fitted model's part (check_shard_fit.h) share. */
#ifndef PECHECK_SLOT_H
#define PECHECK_SLOT_H

#include <stddef.h>
#include "harness/engine/accuracy.h"
#include "harness/engine/fitmodel.h"
#include "harness/io/json.h"
#include "harness/io/jsonread.h"
#include "harness/base/status.h"
#include "harness/formats/verdict.h"
#include "properties/params.h"

enum pc_slot_mode { PC_SLOT_SAME = 0, PC_SLOT_CASES, PC_SLOT_OWNER, PC_SLOT_ACCURACY,
                   PC_SLOT_FITTED };

/* How one verdict of a shard was made. */
typedef struct pc_slot {
    int mode;                /* enum pc_slot_mode */
    pc_case_split split;     /* CASES, OWNER */
    /* ACCURACY: the engine's result and what its verdict's text needs */
    pc_acc_cfg cfg;          /* pointers other than family and base_from (the run's spec) cleared */
    pc_acc_result res;
    int sched, storage;      /* a RoPE schedule was in force; DTYPE is a storage type */
    char sched_note[256];
    char context[1200];      /* a table's lines (gate.c) */
    int likely_set;          /* LIKELY was computed (the shard failed) */
    char likely[2000];
    char own[400];           /* the source's own values at its worst witness (gate.c) */
    char coord[64];          /* its coordinate text (pc_acc_coord_text; "" : none) */
    /* the family's strict class (cfg.form, cleared in CFG), its arrays
     * and text copied into FORM_BUF (owned; NULL: none) */
    pc_acc_form form;
    void *form_buf;
    /* FITTED: the fit's constants and this shard's sums (owned), or the
     * reason it has none (FIT NULL); its seconds */
    pc_fitm fitm;
    struct pc_fitp *fit;
    char fit_note[200];
    double fit_seconds;
} pc_slot;

/* The slots of one shard, indexed like its verdicts. */
typedef struct pc_shard_rec {
    int k, n;
    pc_slot *slots;
    int cap;
} pc_shard_rec;

/* Slot INDEX (grown and zeroed: SAME), NULL when out of memory. */
pc_slot *pc_shard_rec_slot(pc_shard_rec *rec, int index);
/* S as the writer writes a binary64 (%a: "0x1.8p+0", "-0x0p+0", "nan",
 * "inf") into *X: 0, or -1 for any other text (blanks, decimals, "NaN",
 * "Infinity", upper case, a longer mantissa). */
int pc_check_shard_hex(const char *s, double *x);

/* S (a name or note from a file) for a message, in BUF: printable ASCII,
 * any other byte as '?', cut to LEN - 1 bytes. */
const char *pc_check_shard_shown(const char *s, char *buf, size_t len);

/* What merge knows of the run when it reads a FITTED slot: the merged
 * accuracy gate's configuration just before it (d, base, dtype, positions,
 * class, storage; SCHED set when a schedule was in force, which the shard
 * does not record) and each shard's own accuracy result (RES[j], shard
 * j + 1), where its faults and declined calls are. */
typedef struct pc_fit_ctx {
    const struct pc_acc_cfg *cfg;
    const struct pc_acc_result *const *res;
} pc_fit_ctx;
#endif
