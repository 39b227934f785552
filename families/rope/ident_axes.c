/* ident_axes.c: `pecheck identify` on rows at position ids of several
 * axes (M-RoPE, axial RoPE; docs/identify.md): which axis each pair
 * follows under the given frequencies, else the split, base and angle
 * scale that explain every pair. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "harness/engine/accuracy.h"
#include "harness/base/dtype.h"
#include "harness/sources/table.h"
#include "families/spec_sched.h"
#include "ident_run.h"
#include "axes_match.h"
#include "options.h"

/* Rows with position ids of several axes: which axis each pair follows,
 * with the frequencies of SPEC's schedule at R's width (its base, its
 * config, its split), found when every pair follows one (and, WANT not
 * NULL, the axis WANT gives it; a split given, R->split_given, the axis
 * the schedule gives it, as check holds it). */
static pc_status axes_under(ident_run *r, const pc_spec *spec, const int *want, pc_err *err)
{
    pc_acc_cfg cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.d = r->d; cfg.base = spec->base; cfg.pos_lo = r->lo; cfg.pos_hi = r->hi;
    pc_spec_sched hold;
    pc_status st = pc_spec_schedule(spec, &cfg, &hold, err);
    if (st != PC_OK) return st;
    const pc_rope_params *p = hold.own;
    const pc_rope_axes *ax = p->axes;
    pc_freqs *fr = pc_freqs_new(r->d, hold.s);
    double *omega = malloc((size_t)(r->d / 2) * sizeof *omega);
    if (!r->follow) r->follow = malloc((size_t)(r->d / 2) * sizeof *r->follow);
    r->n_axes = ax->n_axes;
    /* float16 angles (--rope-angle-dtype): the schedule hands the angle
     * itself to the reference (its omega is 1); the pairs turn at the
     * float16 frequencies OMEGA_S, their angles rounded */
    for (int i = 0; fr && omega && i < r->d / 2; i++)
        omega[i] = p->angle_dtype ? p->omega_s[i] : pc_freqs_omega(fr, i);
    if (!fr || !omega || !r->follow) st = pc_seterr(err, PC_ENOMEM, "out of memory");
    else if (pc_rope_axes_follow(r->impl, ax, omega, p->angle_dtype != 0, r->d, r->base,
                                 r->layout, r->lo, r->hi, r->follow) != 0)
        st = pc_seterr(err, PC_EINPUT, "%s: its rows cannot be read", r->impl->name);
    if (st == PC_OK) {
        if (!want && r->split_given) want = ax->axis;
        int h = r->d / 2, moved = want ? pc_rope_axes_moved(ax, r->lo, r->hi, r->follow, want, h) : 0;
        r->axes_found = !moved;
        for (int i = 0; i < h; i++) r->axes_found &= r->follow[i] >= 0;
        r->permuted = !r->axes_found && moved
                      && pc_rope_axes_permuted(r->follow, want, h, ax->n_axes, r->perm);
        pc_rope_axes_describe_follow(r->follow, r->d / 2, ax->n_axes, r->sections,
                                     sizeof r->sections);
    }
    free(omega);
    pc_freqs_free(fr);
    pc_spec_sched_release(&hold);
    return st;
}

/* 1 when axes A and B of RS's ids hold the same position in every row. */
static int axis_pair_alike(const pc_rope_spec *rs, int a, int b)
{
    int A = rs->n_id_axes;
    int64_t k = 0;
    /* real coordinates: the ids are -1 throughout, the coordinates differ */
    while (k < rs->n_ids && (rs->coords ? rs->coords[k * A + a] == rs->coords[k * A + b]
                                        : rs->ids[k * A + a] == rs->ids[k * A + b]))
        k++;
    return k == rs->n_ids;
}

/* 2 when every axis of RS's ids holds the same position in every row (the
 * rows of text tokens under M-RoPE: any split explains them), 1 when two
 * of them do (no split of the pairs between those two can be told: the
 * first such two into PAIR), 0 when none. */
static int axes_alike(const pc_rope_spec *rs, int *pair)
{
    int A = rs->n_id_axes, all = 1, some = 0;
    for (int a = 0; a < A; a++)
        for (int b = a + 1; b < A; b++) {
            int same = axis_pair_alike(rs, a, b);
            if (same && !some) { pair[0] = a; pair[1] = b; }
            some |= same;
            all &= same;
        }
    return all ? 2 : some;
}

/* The axial dims tried for A axes at width D (FLUX's axes_dim 16,56,56;
 * equal dims, a 2-D ViT's d/2, d/2) into DIMS (PC_ROPE_AXES_MAX each);
 * how many. */
static int axial_candidates(int A, int d, int dims[][PC_ROPE_AXES_MAX])
{
    int n = 0;
    if (A == 3 && d == 128) { dims[n][0] = 16; dims[n][1] = 56; dims[n][2] = 56; n++; }
    if (d % (2 * A) == 0) {
        for (int a = 0; a < A; a++) dims[n][a] = d / A;
        n++;
    }
    return n;
}

/* ---- how the frequencies and angles are stored ---------------------------- */

/* The storages tried when none is given: the schedule's values as
 * computed, the frequencies float16 values (inv_freq.half(): ChatGLM-6B's
 * RotaryEmbedding), the angles float16 values too (the model run in
 * float16: t, inv_freq and their product in half). */
enum { ST_EXACT, ST_FREQ16, ST_ANGLE16, ST_N };
#define F16_MAX 65504  /* float16's largest finite value: a larger position overflows */

/* T (a copy of RS) under storage S: 0 when S does not apply (given
 * already, a rope_scaling or an angle scale, which --rope-freq-dtype and
 * --rope-angle-dtype refuse, real coordinates, positions past float16). */
static int storage_set(pc_rope_spec *t, const pc_rope_spec *rs, int s)
{
    t->p.freq_dtype = rs->p.freq_dtype;
    t->p.angle_dtype = rs->p.angle_dtype;
    if (s == ST_EXACT) return 1;
    if (rs->p.type != PC_ROPE_DEFAULT || rs->p.scale_k > 0.0 || rs->coords || rs->p.angle_dtype)
        return 0;
    if (s == ST_FREQ16) {
        t->p.freq_dtype = PC_DT_F16;
        return !rs->p.freq_dtype;
    }
    t->p.freq_dtype = t->p.angle_dtype = PC_DT_F16;
    return rs->max_id <= F16_MAX;
}

/* Under SPEC (whose rope spec is T, a copy of RS) and each storage in
 * turn: R->axes_found when one explains every pair (WANT: as WANT's axes;
 * R->permuted when it does with the axes in another order),
 * R->storage_found which.  A storage's schedule that cannot be prepared
 * is one that does not explain the rows; the first's error is returned. */
static pc_status under_storages(ident_run *r, const pc_spec *spec, pc_rope_spec *t,
                                const pc_rope_spec *rs, const int *want, pc_err *err)
{
    int more = 0;  /* a storage other than the computed one tried */
    r->storage_found = ST_EXACT;
    for (int s = ST_EXACT; s < ST_N; s++) {
        pc_err e2 = { "" };
        if (!storage_set(t, rs, s)) continue;
        more |= s != ST_EXACT;
        r->axes_found = 0;
        pc_status st = axes_under(r, spec, want, s == ST_EXACT ? err : &e2);
        if (st != PC_OK && s == ST_EXACT) return st;
        if (st == PC_OK && (r->axes_found || r->permuted)) {
            r->storage_found = s;
            break;
        }
    }
    if (r->axes_found || r->permuted || !more) return PC_OK;
    /* none does: R's pairs described as computed, not as the last storage tried */
    pc_err e3 = { "" };
    storage_set(t, rs, ST_EXACT);
    (void)axes_under(r, spec, want, &e3);
    return PC_OK;
}

/* WANT (H pairs): the axis of each pair of axial DIMS (A axes) in turn. */
static void dims_want(const int *dims, int A, int h, int *want)
{
    for (int a = 0, j = 0; a < A; a++)
        for (int l = 0; l < dims[a] / 2 && j < h; l++) want[j++] = a;
}

/* DIMS (A of them) as --rope-axes-dim's value into R->split. */
static void dims_split(ident_run *r, const int *dims, int A)
{
    for (int a = 0, v = 0; a < A && v >= 0 && (size_t)v < sizeof r->split; a++)
        v += snprintf(r->split + v, sizeof r->split - (size_t)v, "%s%d", a ? "," : "", dims[a]);
}

/* The pairs of R's FOLLOW on WANT's axis. */
static int on_axis(const ident_run *r, const int *want)
{
    int n = 0;
    for (int i = 0; i < r->d / 2; i++) n += r->follow[i] >= 0 && r->follow[i] == want[i];
    return n;
}

/* ---- the closest split, when none explains every pair -------------------- */

/* The kinds of split axes_guess tries: M-RoPE sections (pairs an axis,
 * one schedule), axial dims (each axis a schedule of its own), each
 * axis' dims in a half layout of its own (--rope-axes-halves). */
enum { CL_SECTIONS, CL_AXIAL, CL_HALVES };

/* The split tried under which the largest share of the pairs follows its
 * axis as computed (SHARE; -1: none yet): its kind, its values (sections
 * or dims, one an axis), shared by parity. */
typedef struct closest {
    double share;
    int kind, parity;
    int v[PC_ROPE_AXES_MAX];
} closest;

/* WANT (H pairs) of a split of KIND with values V (A axes). */
static void split_want(int kind, const int *v, int A, int h, int *want)
{
    int dims[PC_ROPE_AXES_MAX];
    for (int a = 0; a < A; a++) dims[a] = kind == CL_SECTIONS ? 2 * v[a] : v[a];
    dims_want(dims, A, h, want);
}

/* The split just tried (KIND, V of A axes, PARITY; WANT its pairs' axes)
 * kept in CL when a larger share of R's pairs follows it than CL's (a
 * share: the halves read the columns as fewer pairs than the (n, d/2)
 * reading). */
static void closest_keep(closest *cl, const ident_run *r, const int *want, int kind,
                         const int *v, int A, int parity)
{
    double share = (double)on_axis(r, want) / (r->d / 2);
    if (share <= cl->share) return;
    cl->share = share;
    cl->kind = kind;
    cl->parity = parity;
    memcpy(cl->v, v, (size_t)A * sizeof *v);
}

/* T's split: sections SEC (A axes) under the one schedule. */
static void sections_set(pc_rope_spec *t, const int *sec, int A)
{
    memset(t->sections, 0, sizeof t->sections);
    memcpy(t->sections, sec, (size_t)A * sizeof *sec);
    t->n_sections = A;
    t->sections_interleaved = 0;
    t->n_axes_dim = 0;
    t->axes_parity = 0;
}

/* T's split: axial DIMS (A axes), shared by PARITY or not. */
static void axial_set(pc_rope_spec *t, const int *dims, int A, int parity)
{
    t->n_sections = 0;
    t->n_axes_dim = A;
    t->axes_parity = parity;
    memcpy(t->axes_dim, dims, (size_t)A * sizeof *dims);
}

/* The sections given for check when the rows cannot tell one: Qwen2-VL's
 * mrope_section 16,24,24 at 64 pairs and 3 axes, else the H pairs shared
 * in turn as evenly as the width allows (the first axis the remainder). */
static void default_sections(int A, int h, int *sec)
{
    for (int a = 0; a < A; a++) sec[a] = h / A + (a == 0 ? h % A : 0);
    if (A == 3 && h == 64) { sec[0] = 16; sec[1] = 24; sec[2] = 24; }
}

/* The columns of R's table that hold the axes' dims (an (n, d) cache's
 * width; a table read as (n, d/2), d/2), 0 when each axis' dims in a half
 * layout of its own cannot be read from it. */
static int halves_cols(const ident_run *r, const pc_rope_spec *rs)
{
    const pc_table_info *ti = pc_table_info_of(r->impl);
    if (!ti || rs->n_id_axes > PC_SPEC_BLOCKS_MAX || (ti->full_width && ti->layout != 1)) return 0;
    return ti->full_width ? ti->d : ti->d / 2;
}

/* R's table read again in the column blocks DIMS (A axes) of its COLS
 * columns, each axis' dims in a half layout of its own (pc_table_read_blocked),
 * T's split those dims; 0 when it cannot be read so. */
static int halves_set(ident_run *r, pc_rope_spec *t, const int *dims, int A, int cols)
{
    if (!cols || pc_table_read_blocked(r->impl, dims, A) != 0) return 0;
    r->d = cols;
    r->layout = 1;  /* the blocks are read into the whole width's half layout */
    axial_set(t, dims, A, 0);
    t->axes_halves = 1;
    return 1;
}

/* Each axis' dims in a half layout of its own (--rope-axes-halves:
 * ChatGLM-6B's position_encoding_2d, one rotate_half per half of the
 * head): the table read again in the blocks of each axial split of its
 * columns, under each storage; 1 when one explains every pair, or does
 * with the ids' columns in another order (R's width, layout and split then
 * those), else the table's reading and R's restored, CL the closest. */
static int halves_try(ident_run *r, const pc_spec *spec, pc_rope_spec *t, const pc_rope_spec *rs,
                      closest *cl, pc_err *err)
{
    int A = rs->n_id_axes, d0 = r->d, l0 = r->layout, cols = halves_cols(r, rs);
    int want[PC_D_MAX / 2], dims[2][PC_ROPE_AXES_MAX] = { { 0 } };
    int nc = cols ? axial_candidates(A, cols, dims) : 0;
    for (int c = 0; c < nc; c++) {
        if (!halves_set(r, t, dims[c], A, cols)) continue;
        dims_want(dims[c], A, cols / 2, want);
        if (under_storages(r, spec, t, rs, want, err) == PC_OK) {
            if (r->axes_found || r->permuted) {
                r->halves_found = 1;
                r->split_opt = "--rope-axes-dim";
                dims_split(r, dims[c], A);
                return 1;
            }
            closest_keep(cl, r, want, CL_HALVES, dims[c], A, 0);
        }
        pc_table_read_blocked(r->impl, NULL, 0);
        r->d = d0;
        r->layout = l0;
        t->axes_halves = rs->axes_halves;
    }
    return 0;
}

/* Each axial split of axial_candidates at R's width, then its equal dims
 * with the frequencies shared by parity (--rope-axes-parity: Pixtral's
 * vision RoPE, freqs[::2] for the rows, freqs[1::2] for the columns; its
 * pairs follow the axes as the split's do), each under the storages: R's
 * split when one explains every pair (or does with the ids' columns in
 * another order), else CL the closest; TRIED (LEN) lists them, *NC counts
 * the candidates. */
static pc_status axial_try(ident_run *r, const pc_spec *spec, pc_rope_spec *t,
                           const pc_rope_spec *rs, char *tried, size_t len, int *nc, closest *cl,
                           pc_err *err)
{
    int A = rs->n_id_axes, h = r->d / 2, dims[2][PC_ROPE_AXES_MAX] = { { 0 } }, want[PC_D_MAX / 2];
    *nc = axial_candidates(A, r->d, dims);
    for (int c = 0; c < 2 * *nc; c++) {
        int dc = c % *nc, parity = c >= *nc;
        if (parity && dims[dc][0] != r->d / A) continue;
        size_t u = strlen(tried);
        axial_set(t, dims[dc], A, parity);
        for (int a = 0; a < A; a++)
            u += (size_t)snprintf(tried + u, len - u, "%s%d", a ? "," : c ? "; " : "", dims[dc][a]);
        dims_want(dims[dc], A, h, want);
        if (parity && u < len) snprintf(tried + u, len - u, " by parity");
        pc_status st = under_storages(r, spec, t, rs, want, err);
        if (st != PC_OK) return st;
        if (r->axes_found || r->permuted) {
            r->split_parity = parity;
            r->split_opt = "--rope-axes-dim";
            dims_split(r, dims[dc], A);
            return PC_OK;
        }
        closest_keep(cl, r, want, CL_AXIAL, dims[dc], A, parity);
    }
    return PC_OK;
}

/* Every axis holds the same position in every row (text tokens under
 * M-RoPE): every split explains the rows, and none can be found from
 * them.  The pairs held to default_sections, a split that check takes;
 * R->split_any says the split is given, not found.  When no storage
 * explains the pairs either, the split is still given for check (it fails
 * there with its own cause), R->closest says so. */
static pc_status axes_any(ident_run *r, const pc_spec *spec, pc_rope_spec *t,
                          const pc_rope_spec *rs, pc_err *err)
{
    int A = rs->n_id_axes, h = r->d / 2, sec[PC_ROPE_AXES_MAX], want[PC_D_MAX / 2];
    default_sections(A, h, sec);
    sections_set(t, sec, A);
    pc_status st = under_storages(r, spec, t, rs, NULL, err);
    if (st != PC_OK) return st;
    r->split_any = 1;
    r->split_opt = "--rope-sections";
    dims_split(r, sec, A);
    if (!r->axes_found) {
        r->closest = 1;
        for (int i = 0; i < h; i++) r->closest_pairs += r->follow[i] >= 0;
        snprintf(r->tried, sizeof r->tried, "no frequencies tried explain the pairs (the one "
                 "schedule's, with the frequencies and the angles as computed, then float16 "
                 "values)");
        return PC_OK;
    }
    /* the pairs follow every axis alike: each is given the split's */
    split_want(CL_SECTIONS, sec, A, h, want);
    memcpy(r->follow, want, (size_t)h * sizeof *want);
    snprintf(r->sections, sizeof r->sections, "any split (every axis holds the same position in "
             "every row); sections %s given for check", r->split);
    return PC_OK;
}

/* Every pair at the one schedule's frequency (M-RoPE): the pairs' axes
 * read as sections in turn or interleaved, else in turn with the ids'
 * columns in another order (R->permuted); R->split_opt set when one is;
 * FIRST (LEN) what the pairs follow, for the closest's note. */
static pc_status one_schedule(ident_run *r, const pc_spec *spec, pc_rope_spec *t,
                              const pc_rope_spec *rs, char *first, size_t len, pc_err *err)
{
    int A = rs->n_id_axes, h = r->d / 2, sec[PC_ROPE_AXES_MAX] = { 0 };
    sec[0] = h;                /* every pair at the one schedule's frequency */
    sections_set(t, sec, A);
    pc_status st = under_storages(r, spec, t, rs, NULL, err);
    if (st != PC_OK) return st;
    snprintf(first, len, "%s", r->sections);
    int kind = r->axes_found ? pc_rope_axes_sections_of(r->follow, h, A, r->split, sizeof r->split) : 0;
    if (!kind && r->axes_found
        && pc_rope_axes_runs_permuted(r->follow, h, A, r->split, sizeof r->split, r->perm)) {
        r->permuted = 1;
        r->axes_found = 0;
        kind = 1;
    }
    if (!kind) return PC_OK;
    r->split_opt = "--rope-sections";
    r->split_interleaved = kind == 2;
    return PC_OK;
}

/* default_sections as a split tried (Qwen2-VL's 16,24,24): R's split when
 * it explains every pair, else CL the closest. */
static pc_status sections_try(ident_run *r, const pc_spec *spec, pc_rope_spec *t,
                              const pc_rope_spec *rs, closest *cl, pc_err *err)
{
    int A = rs->n_id_axes, h = r->d / 2, sec[PC_ROPE_AXES_MAX], want[PC_D_MAX / 2];
    default_sections(A, h, sec);
    sections_set(t, sec, A);
    split_want(CL_SECTIONS, sec, A, h, want);
    pc_status st = under_storages(r, spec, t, rs, want, err);
    if (st != PC_OK) return st;
    if (r->axes_found || r->permuted) {
        r->split_opt = "--rope-sections";
        dims_split(r, sec, A);
        /* pairs on two axes alike follow the first as much as the split's: the split's said */
        if (r->axes_found && r->split_any == 2) {
            memcpy(r->follow, want, (size_t)h * sizeof *want);
            pc_rope_axes_describe_follow(r->follow, h, A, r->sections, sizeof r->sections);
        }
        return PC_OK;
    }
    closest_keep(cl, r, want, CL_SECTIONS, sec, A, 0);
    return PC_OK;
}

/* No split explains every pair: R under the closest CL (A axes), its
 * pairs' axes as computed, the split given for check (which fails there
 * with its own cause), R->closest set. */
static pc_status closest_apply(ident_run *r, const pc_spec *spec, pc_rope_spec *t,
                               const pc_rope_spec *rs, const closest *cl, pc_err *err)
{
    int A = rs->n_id_axes, want[PC_D_MAX / 2];
    if (cl->kind == CL_HALVES && !halves_set(r, t, cl->v, A, halves_cols(r, rs)))
        return pc_seterr(err, PC_EINPUT, "%s: its columns cannot be read again in blocks",
                         r->impl->name);
    if (cl->kind == CL_SECTIONS) sections_set(t, cl->v, A);
    if (cl->kind == CL_AXIAL) axial_set(t, cl->v, A, cl->parity);
    split_want(cl->kind, cl->v, A, r->d / 2, want);
    pc_status st = under_storages(r, spec, t, rs, want, err);
    if (st != PC_OK) return st;
    r->closest = 1;
    r->closest_pairs = on_axis(r, want);
    r->split_opt = cl->kind == CL_SECTIONS ? "--rope-sections" : "--rope-axes-dim";
    r->split_parity = cl->parity;
    r->halves_found = cl->kind == CL_HALVES;
    dims_split(r, cl->v, A);
    return PC_OK;
}

/* R's split and what was tried, cleared before a split is sought. */
static void split_reset(ident_run *r)
{
    r->split_opt = NULL;
    r->split_any = r->split_parity = r->split_interleaved = 0;
    r->halves_found = r->storage_found = 0;
    r->closest = r->closest_pairs = r->permuted = r->split_given = 0;
    r->tried[0] = '\0';
}

/* No split given: the pairs' axes under the one schedule's frequencies,
 * read as M-RoPE sections (in turn or interleaved: one_schedule), else
 * default_sections, each axial split of axial_candidates, then each with
 * its axes' dims in half layouts of their own (halves_try), each under
 * the storages of under_storages; the first that explains every pair is
 * reported (its options in check_args), or the first that does with the
 * ids' columns in another order (R->permuted), else the closest (the
 * largest share of pairs on their axes; R->closest, R->tried naming what
 * was tried).  Axes that hold one position in every row: axes_any. */
static pc_status axes_guess(ident_run *r, const pc_spec *spec, const pc_rope_spec *rs, pc_err *err)
{
    int alike = axes_alike(rs, r->alike);
    pc_rope_spec t = *rs;
    pc_spec s2 = *spec;
    s2.own = &t;
    if (alike == 2) return axes_any(r, &s2, &t, rs, err);
    /* two axes alike (Qwen2-VL's ids of an image one patch tall, (t0, t0,
     * t0 + w)): a pair follows either, so no split between them can be
     * found; default_sections first, a split check takes whose pairs on
     * either are held to it (pc_rope_axes_moved), and R->split_any says so */
    r->split_any = alike == 1 ? 2 : 0;
    char first[400] = "", tried[200] = "";  /* the pairs under the one schedule; the axial dims */
    closest cl = { -1.0, CL_SECTIONS, 0, { 0 } };
    int nc = 0;
    pc_status st = alike == 1 ? sections_try(r, &s2, &t, rs, &cl, err) : PC_OK;
    if (st == PC_OK && !r->split_opt) st = one_schedule(r, &s2, &t, rs, first, sizeof first, err);
    if (st == PC_OK && !r->split_opt && alike != 1) st = sections_try(r, &s2, &t, rs, &cl, err);
    if (st == PC_OK && !r->split_opt) st = axial_try(r, &s2, &t, rs, tried, sizeof tried, &nc, &cl, err);
    if (st != PC_OK || r->split_opt || halves_try(r, &s2, &t, rs, &cl, err)) return st;
    snprintf(r->tried, sizeof r->tried, "no split tried explains every pair: M-RoPE sections "
             "under the one schedule (the pairs follow: %.120s)%s%s, each axis' dims in a half "
             "layout of its own (--rope-axes-halves), each with the frequencies and the angles as "
             "computed, then float16 values", first, nc ? ", axial dims " : "", tried);
    return closest_apply(r, &s2, &t, rs, &cl, err);
}

/* R's table read as it was opened (R->d0, R->layout0), not in the blocks
 * of a split tried before (closest_apply leaves the closest's). */
static void reading_reset(ident_run *r)
{
    if (r->d == r->d0 && r->layout == r->layout0) return;
    pc_table_read_blocked(r->impl, NULL, 0);
    r->d = r->d0;
    r->layout = r->layout0;
}

/* Under SPEC: the split given, else the split found (axes_guess). */
static pc_status axes_split(ident_run *r, const pc_spec *spec, const pc_rope_spec *rs, pc_err *err)
{
    reading_reset(r);
    split_reset(r);
    if (!rs->n_sections && !rs->n_axes_dim) return axes_guess(r, spec, rs, err);
    pc_rope_spec t = *rs;
    pc_spec s2 = *spec;
    s2.own = &t;
    r->split_given = 1;  /* FOUND only as check holds the pairs: on the given split's axes */
    return under_storages(r, &s2, &t, rs, NULL, err);
}

/* The bases of released models with position axes, tried when nothing
 * gives one: Qwen2-VL's and Qwen2.5-VL's 1e6, Qwen3-VL's 5e6, FLUX's and
 * 2-D ViTs' 10000 (the default), then the other common ones (identify.c's
 * list), then DINOv3's period base 100 (RopePositionEmbedding's default,
 * dinov3/layers/rope_position_encoding.py). */
static const double released_bases[] = { 1e6, 5e6, 1e4, 5e5, 1e5, 5e4, 1e7, 100 };

/* The angle scales of released code at real coordinates, tried when none
 * is given: none (1), DINOv3's 2 pi (angles 2 pi coords / periods, with
 * coordinates normalized to [-1, 1]), pi.  As --rope-angle-scale K pi^PI
 * (positions.c pc_rope_scale_parse); TEXT is the option's value. */
static const struct { double k; int pi; const char *text; } released_scales[] = {
    { 0.0, 0, NULL }, { 2.0, 1, "2pi" }, { 1.0, 1, "pi" }
};
#define N_BASES (sizeof released_bases / sizeof released_bases[0])
#define N_SCALES (sizeof released_scales / sizeof released_scales[0])

/* Under base B (0: the spec's own) and angle scale SC (an index of
 * released_scales; -1: the spec's own): 1 when a split explains every
 * pair, or does with the ids' columns in another order (R's split and
 * axes then those). */
static int axes_try_scale(ident_run *r, const pc_spec *spec, const pc_rope_spec *rs, double b,
                          double k, int pi, const char *text);
static int axes_try(ident_run *r, const pc_spec *spec, const pc_rope_spec *rs, double b, int sc)
{
    if (sc >= 0)
        return axes_try_scale(r, spec, rs, b, released_scales[sc].k, released_scales[sc].pi,
                              released_scales[sc].text);
    return axes_try_scale(r, spec, rs, b, -1.0, 0, NULL);
}

/* The same under the angle scale K pi^PI (K < 0: the spec's own), TEXT
 * its --rope-angle-scale value (NULL: none to give). */
static int axes_try_scale(ident_run *r, const pc_spec *spec, const pc_rope_spec *rs, double b,
                          double k, int pi, const char *text)
{
    pc_spec sb = *spec;
    pc_rope_spec tb = *rs;   /* the schedule's base and scale are the rope spec's */
    pc_err e2 = { "" };
    if (b > 0) {
        sb.base = tb.p.base = b;
        sb.base_set = tb.have_base = 1;
    }
    if (k >= 0) {
        tb.p.scale_k = k;
        tb.p.scale_pi = pi;
    }
    sb.own = &tb;
    if (axes_split(r, &sb, &tb, &e2) != PC_OK || !(r->axes_found || r->permuted)) return 0;
    if (b > 0) {
        r->spec_base = b;
        r->spec_base_set = 1;
        r->base_searched = 1;
    }
    if (text) {
        snprintf(r->scale_text, sizeof r->scale_text, "%s", text);
        r->scale_found = r->scale_text;
    }
    return 1;
}

/* ---- axial frequencies fitted at the ids (no base or scale tried
 * explains the pairs) ----------------------------------------------------- */

#define FIT_MIN_ANGLE 0.05  /* a pair's angle read below this is not used: a bfloat16
                             * pair's is good to 2^-8 rad (axes_freqs.c's AF_MIN_ANGLE) */
#define FIT_SNAP 1e-3       /* a scale within 0.1% of K pi or of a whole K is that */

/* The row among R's with the smallest positive position on axis A of
 * RS's ids (-1: none). */
static int64_t smallest_row(const ident_run *r, const pc_rope_spec *rs, int a)
{
    int64_t best = -1;
    double bx = 0;
    for (int64_t k = r->lo; k <= r->hi && k < rs->n_ids; k++) {
        double x = rs->coords ? rs->coords[k * rs->n_id_axes + a]
                              : (double)rs->ids[k * rs->n_id_axes + a];
        if (x > 0 && (best < 0 || x < bx)) { best = k; bx = x; }
    }
    return best;
}

/* Axial dims DIMS (A axes, each pair of axis a at local j turning at
 * S B^(-2j/dims[a])): S and B fitted by least squares on ln w over the
 * pairs, w a pair's angle over its axis' smallest positive position p
 * (p w < pi: the row nearest the origin on that axis).  0 when fewer than
 * two exponents are read. */
static int fit_axial(const ident_run *r, const pc_rope_spec *rs, const int *dims, double *S,
                     double *B)
{
    int A = rs->n_id_axes, h = r->d / 2, lay = r->layout, n = 0;
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    float *y = malloc((size_t)r->d * sizeof *y);
    for (int a = 0, i0 = 0; y && a < A; i0 += dims[a] / 2, a++) {
        int64_t row = smallest_row(r, rs, a);
        if (row < 0 || pc_rope_ident_rows_at(r, lay, row, 1, y) != 0) continue;
        double p = rs->coords ? rs->coords[row * A + a] : (double)rs->ids[row * A + a];
        for (int j = 0; j < dims[a] / 2 && i0 + j < h; j++) {
            int i = i0 + j;
            double ang = atan2((double)y[lay ? i + h : 2 * i + 1], (double)y[lay ? i : 2 * i]);
            if (!(ang >= FIT_MIN_ANGLE)) continue;
            double x = 2.0 * j / dims[a], v = log(ang / p);
            sx += x; sy += v; sxx += x * x; sxy += x * v; n++;
        }
    }
    free(y);
    double den = (double)n * sxx - sx * sx;
    if (n < 2 || !(den > 0)) return 0;
    double slope = ((double)n * sxy - sx * sy) / den;
    *S = exp((sy - slope * sx) / n);
    *B = exp(-slope);
    return isfinite(*S) && isfinite(*B) && *B > 1.0;
}

/* S as --rope-angle-scale: K pi (K whole, "pi", "2pi") or a whole K
 * within FIT_SNAP, else S itself; K and PI of it. */
static void scale_text(double S, double *k, int *pi, char *buf, size_t len)
{
    double kp = round(S / M_PI), kw = round(S);
    if (kp >= 1 && fabs(S / (kp * M_PI) - 1.0) < FIT_SNAP) {
        *k = kp; *pi = 1;
        if (kp == 1) snprintf(buf, len, "pi"); else snprintf(buf, len, "%.0fpi", kp);
    } else {
        *k = kw >= 1 && fabs(S / kw - 1.0) < FIT_SNAP ? kw : S;
        *pi = 0;
        snprintf(buf, len, "%.9g", *k);
    }
}

/* Each axial split of axial_candidates: its base and angle scale fitted
 * (fit_axial; the base rounded as identify.c rounds one), kept when every
 * pair then follows its axis.  1 when one is. */
static int axes_fit(ident_run *r, const pc_spec *spec, const pc_rope_spec *rs)
{
    int dims[2][PC_ROPE_AXES_MAX] = { { 0 } };
    int nc = axial_candidates(rs->n_id_axes, r->d, dims);
    for (int c = 0; c < nc; c++) {
        double S, B, k;
        int pi;
        char text[40];
        if (!fit_axial(r, rs, dims[c], &S, &B)) continue;
        double br = pc_rope_round_base(B);
        scale_text(S, &k, &pi, text, sizeof text);
        if (axes_try_scale(r, spec, rs, isnan(br) ? B : br, k, pi, k == 1 && !pi ? NULL : text)) {
            r->base_fitted_axes = 1;
            return 1;
        }
    }
    return 0;
}

/* Rows with position ids of several axes: under the split given, else
 * the split found (axes_guess); without a base, config or factors, under
 * the released_bases too; at real coordinates without --rope-angle-scale,
 * under the released_scales too (each base under each scale). */
pc_status pc_rope_identify_axes(ident_run *r, const pc_spec *spec, pc_err *err)
{
    const pc_rope_spec *rs = pc_rope_spec_of(spec);
    r->given = &rs->given;
    r->d0 = r->d;
    r->layout0 = r->layout;
    r->spec_base = spec->base;
    r->spec_base_set = spec->base_set;
    pc_status st = axes_split(r, spec, rs, err);
    /* nothing says the frequencies (no --base, config, rope_scaling or
     * factors): the bases of released models are tried too (Qwen2-VL's
     * 1e6, Qwen3-VL's 5e6), each kept only when every pair follows an axis
     * under it, and given in check_args; nothing says the angle scale of
     * real coordinates: DINOv3's 2 pi and pi too (a scale S multiplies
     * every frequency, S B^(-2j/dim) of no other base and scale) */
    const pc_rope_opts *g = &rs->given;
    int base_given = spec->base_set || g->config || g->inline_json || g->freqs_path;
    int scales = rs->coords && !g->angle_scale ? (int)N_SCALES : 1;
    if ((st == PC_OK && (r->axes_found || r->permuted)) || (base_given && scales == 1)) return st;
    for (int sc = 0; sc < scales; sc++) {
        if (sc > 0 && axes_try(r, spec, rs, 0.0, sc)) return PC_OK;
        for (size_t k = 0; !base_given && k < N_BASES; k++)
            if (released_bases[k] != rs->p.base
                && axes_try(r, spec, rs, released_bases[k], scales > 1 ? sc : -1))
                return PC_OK;
    }
    /* at real coordinates with nothing given: the base and scale fitted
     * from the pairs' angles (DINOv3's periods of another base) */
    if (rs->coords && !base_given && scales > 1 && axes_fit(r, spec, rs)) return PC_OK;
    st = axes_split(r, spec, rs, err);  /* the first answer, as it was */
    size_t u = strlen(r->tried);
    if (st == PC_OK && r->closest && u + 1 < sizeof r->tried)
        snprintf(r->tried + u, sizeof r->tried - u, " (also tried: %s%s)",
                 base_given ? "" : "the bases of released models 1e6, 5e6, 1e4, 5e5, 1e5, 5e4, "
                 "1e7, 100", scales > 1 ? (base_given ? "the angle scales 2pi, pi"
                                           : ", each under the angle scales 1, 2pi, pi, then a "
                                             "base and scale fitted per axial split") : "");
    return st;
}

