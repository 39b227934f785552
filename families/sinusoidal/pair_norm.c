/* pair-norm: every (sin, cos) pair of a sinusoidal row lies on the unit
 * circle: sin^2(pos w_i) + cos^2(pos w_i) = 1. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "properties/property.h"

static void gen(pc_prun *r, pc_rng *g, pc_case *c)
{
    c->npos = 1;
    c->pos[0] = pc_p_pos(g, r->lo, r->hi);
}

static int valid(const pc_prun *r, const pc_case *c)
{
    return c->pos[0] >= r->lo && c->pos[0] <= r->hi;
}

static pc_status check(pc_prun *r, const pc_case *c, pc_outcome *oc, pc_err *err)
{
    int d = c->d;
    float *row = malloc((size_t)d * sizeof *row);
    if (!row) return pc_p_nomem(err);
    memset(oc, 0, sizeof *oc);
    oc->pair = -1;
    if (pc_p_sinusoidal(r, &c->pos[0], 1, d, row)) { pc_p_implerr(r, oc); free(row); return PC_OK; }
    oc->score = -1;
    for (int i = 0; i < d / 2; i++) {
        double s = (double)row[pc_p_col(r->layout, d, i, 0)], co = (double)row[pc_p_col(r->layout, d, i, 1)];
        double e = fabs(hypot(s, co) - 1.0);
        /* | |a' + e| - |a| | <= |e| <= sqrt(2) C u for any angle of a'
         * (pc_p_norm_bound_i): the angle's error keeps the norm */
        double b = pc_p_norm_bound_i(r, d, i, 1.0);
        double sc = isnan(e) ? (double)INFINITY : e / b;
        if (sc > oc->score) {
            oc->score = sc; oc->measured = isnan(e) ? (double)INFINITY : e; oc->bound = b; oc->pair = i;
            snprintf(oc->eq, sizeof oc->eq, "sin^2 + cos^2 of pair %d at position %" PRId64
                     " = %.9g, but the unit circle needs 1", i, c->pos[0], s * s + co * co);
        }
    }
    oc->kind = oc->score > 1.0 ? PC_O_FAIL : PC_O_PASS;
    snprintf(oc->where, sizeof oc->where, "pair %d (columns %zu, %zu) of position %" PRId64, oc->pair,
             pc_p_col(r->layout, d, oc->pair, 0), pc_p_col(r->layout, d, oc->pair, 1), c->pos[0]);
    free(row);
    return PC_OK;
}

static void show(pc_prun *r, const pc_case *c, const pc_outcome *oc, FILE *f)
{
    int d = c->d, i = oc->pair < 0 ? 0 : oc->pair;
    float *row = malloc((size_t)d * sizeof *row);
    if (!row || pc_p_sinusoidal(r, &c->pos[0], 1, d, row)) { free(row); return; }
    double s = (double)row[pc_p_col(r->layout, d, i, 0)], co = (double)row[pc_p_col(r->layout, d, i, 1)];
    fprintf(f, "      PE(%" PRId64 ") pair %d = (", c->pos[0], i);
    pc_p_float(f, s); fputs(", ", f); pc_p_float(f, co);
    fprintf(f, ")\n      |pair| = ");
    pc_p_float(f, hypot(s, co));
    fputc('\n', f);
    free(row);
}

static const char *cause(pc_prun *r, const pc_case *c, const pc_outcome *oc, char *buf, size_t len)
{
    int d = c->d, i = oc->pair < 0 ? 0 : oc->pair;
    float *row = malloc((size_t)d * sizeof *row);
    const char *res = NULL;
    if (row && !pc_p_sinusoidal(r, &c->pos[0], 1, d, row)) {
        float s = row[pc_p_col(r->layout, d, i, 0)], co = row[pc_p_col(r->layout, d, i, 1)];
        if (s == co) res = "both members of the pair hold the same value: the cos partner is missing";
        else {
            snprintf(buf, len, "the pair is not (sin a, cos a) for one angle a: mismatched "
                     "frequencies, a shifted column, or a norm that drifts (recurrences)");
            res = buf;
        }
    }
    free(row);
    return res;
}

const pc_property pc_prop_pair_norm = {
    .name = "pair-norm",
    .families = "sinusoidal",
    .title = "every (sin, cos) pair lies on the unit circle",
    /* timestep.c: the gate's pairs_off_unit_circle, pc_model_norm_bound */
    .rows_note_why = "the accuracy gate holds every (sin, cos) pair of every row to the unit "
                     "circle",
    .measured_what = "| |(sin, cos)| - 1 |",
    .expect = "sin^2(pos w_i) + cos^2(pos w_i) = 1 for every pair, within sqrt(2) C u at any angle",
    .pos_names = "p",
    .math = "|(PE(p)_sin_i, PE(p)_cos_i)| = sqrt(sin^2(p w_i) + cos^2(p w_i)) = 1",
    .why =
        "A pair is a point on the unit circle; the norm is what the rotation of linear-shift\n"
        "and the dot product of dot-distance rely on.  A missing cos, mismatched frequencies or\n"
        "an iterated rotation whose rounding errors change the radius break it.",
    .tolerance =
        "sqrt(2) C u, whatever the angle: of B(theta) = C*u*(1+|theta|) per element\n"
        "(harness/engine/model.h) the C*u*|theta| part is the angle's error, which moves the pair\n"
        "along the circle and keeps its norm; C*u, on each of its two elements, is the values' own\n"
        "rounding.  So a pair of norm 0 fails at any position.",
    .concept_impl = "cos-shifted",
    .concept_note = "sin and cos of a pair at different frequencies: sin^2 + cos^2 is 1 only where "
                    "the two waves happen to agree",
    .precision_impl = "rotate-recurrence",
    .precision_note = "PE(p+1) = R(w) PE(p) iterated in binary32: each step's rounding moves the pair "
                      "off the unit circle, and the errors add up",
    .shrink = PC_SH_D | PC_SH_POS,
    .gen = gen,
    .check = check,
    .valid = valid,
    .show = show,
    .cause = cause,
};
