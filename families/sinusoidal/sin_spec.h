/* sin_spec.h: the sinusoidal family's encoding spec (families/spec.h) as
 * the libraries write the encoding (docs/sinusoidal.md): the frequency
 * denominator d/2 - S, the order of sin and cos, and the presets that name
 * them (--preset t2t, fairseq, whisper, marian, adm, diffusers, vaswani). */
#ifndef PECHECK_SIN_SPEC_H
#define PECHECK_SIN_SPEC_H

#include "families/spec.h"
#include "reference/schedule.h"
#include "harness/sandbox/impl.h"

/* The parameters of the timescale schedule (schedule_timescale.c). */
typedef struct pc_sin_sched {
    int shift;              /* S: omega_i = base^(-i / (d/2 - S)), 0 or 1 */
    /* M, tensor2tensor's min_timescale: omega_i = M (base/M)^(-i/(d/2 - S))
     * (get_timing_signal_1d multiplies by it); 0 or 1: none */
    double min_ts;
} pc_sin_sched;

/* P's M (1 when none). */
static inline double pc_sin_min_timescale(const pc_sin_sched *p)
{
    return p->min_ts > 0.0 ? p->min_ts : 1.0;
}

/* A preset: one library's formula. */
typedef struct pc_sin_preset {
    const char *name;       /* --preset NAME */
    const char *follows;    /* the function and version it follows */
    int shift;              /* S */
    int layout;             /* 0 interleaved, 1 half */
    int cos_first;          /* [cos | sin] (or (cos, sin) pairs) */
    int pos_start;          /* the position of a table's first row as the library reads it */
    int timesteps;          /* a timestep embedding's library (diffusers, ADM) */
} pc_sin_preset;

extern const pc_sin_preset pc_sin_presets[];
extern const int pc_sin_n_presets;
/* The preset NAME, or NULL. */
const pc_sin_preset *pc_sin_preset_find(const char *name);
/* The presets whose formula is (SHIFT, LAYOUT, COS_FIRST), as "a, b and
 * c" into BUF ("" when none). */
void pc_sin_presets_of(int shift, int layout, int cos_first, char *buf, size_t len);

typedef struct pc_sin_spec {
    const pc_sin_preset *preset;  /* --preset (NULL: none) */
    pc_sin_sched sched;
    int shift_set;                /* --freq-shift given */
    int min_set;                  /* --min-timescale given */
    int cos_first, order_set;     /* --order cos-sin given (or the preset's) */
    /* --timesteps T.npy: row r of a table is the embedding of timestep
     * T[r] (N_T values, exact binary64); NULL: rows of positions */
    const char *timesteps_path;
    double *t;
    size_t n_t;
    double angle_scale;           /* --angle-scale K (diffusers' scale; 1 by default) */
    int scale_set;
    /* --grid H,W: row CLS + i W + j of a table is [PE_{d/2}(j) | PE_{d/2}(i)]
     * (MAE's get_2d_sincos_pos_embed), each half sin block then cos
     * block; --cls-rows CLS: its leading rows, all zeros (grid.c); 0: no grid */
    int64_t grid_h, grid_w, cls_rows;
} pc_sin_spec;

extern const pc_spec_kind pc_sin_spec_kind;
/* SPEC's sinusoidal part (NULL: the paper's formula, no option given). */
const pc_sin_spec *pc_sin_spec_of(const pc_spec *spec);

/* The schedule omega_i = M (BASE/M)^(-i / (d/2 - P->shift)), M = P's
 * min_timescale; P alive as long as the schedule. */
pc_schedule pc_sin_schedule(const pc_sin_sched *p, double base);
/* The certified sin and cos of K T omega_i (omega_i of schedule S for D;
 * T and K exact binary64), correctly rounded (timestep_ref.c). */
pc_status pc_sin_timestep_ref(const pc_schedule *s, int d, int i, double t, double k,
                              pc_ref2 *sv, pc_ref2 *cv);
/* `check`'s gate of a table of timestep embeddings (--timesteps,
 * timestep.c): the verdict "accuracy". */
struct pc_gate;
struct pc_family;
pc_status pc_sin_timestep_gate(struct pc_gate *g, const pc_impl *impl,
                               const struct pc_family *fam);

/* `check`'s gate of a table of 2-D grid positions (--grid, grid.c): the
 * verdict "accuracy". */
pc_status pc_sin_grid_gate(struct pc_gate *g, const pc_impl *impl, const struct pc_family *fam);

/* The shift S of schedule S (0 for the geometric one, NULL). */
int pc_sin_schedule_shift(const pc_schedule *s);
/* The min_timescale M of schedule S (1 for the geometric one, NULL). */
double pc_sin_schedule_min(const pc_schedule *s);
/* X_i = i ln(base/M) / (d/2 - S), the exponent's magnitude. */
double pc_sin_exponent(const pc_sin_sched *p, double base, int d, int i);

#endif
