/* axes_match.c: which position axis each pair of a source follows, when
 * its rows have position ids of several axes (axes_match.h): the likely
 * cause of a failed M-RoPE or axial cache (sections swapped, the other
 * order), and what `pecheck identify` says of the sections.
 *
 * The rotation of (1, 0) on every pair gives each pair's angle at up to
 * AM_ROWS rows spread over the run; against each axis a the mean
 * |angle - pos_a omega_i| (wrapped to (-pi, pi]) over those rows, omega_i
 * the schedule's; a pair follows the axis with the smallest mean when that
 * mean is below AM_TOL (a stored bfloat16 pair's angle is good to 2^-8:
 * far below 0.05 rad, far above a wrong axis' random phases, about
 * pi / 2 on average). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "axes_match.h"
#include "harness/sandbox/call.h"
#include "harness/base/dtype.h"
#include "harness/base/half.h"

#define AM_ROWS 512
#define AM_TOL PC_AXES_TOL

/* The angle of every pair of row ROW into ANG (H of them); 0, or the call failed. */
static int angles(const pc_impl *impl, int d, double base, int layout, int64_t row, float *x,
                  float *y, double *ang)
{
    int h = d / 2;
    pc_fault fault = { 0, "" };
    int rc = pc_call_rope(impl, &fault, &row, 1, d, base, layout, x, y);
    if (rc || fault.faulted) return -1;
    for (int i = 0; i < h; i++) {
        int a = layout ? i : 2 * i, b = layout ? i + h : 2 * i + 1;
        ang[i] = atan2((double)y[b], (double)y[a]);
    }
    return 0;
}

/* The angle of a pair at axis position X and frequency W: X W, or under
 * HALF the float16 angle fl16(fl16(X) W) of a model run in float16 (W a
 * float16 value then; the product of two 11-bit numbers is exact in
 * binary32, rounded once: schedule_axes.c's half_angle). */
static double angle_at(double x, double w, int half)
{
    if (!half) return x * w;
    return (double)pc_round_to(PC_DT_F16, pc_round_to(PC_DT_F16, (float)x) * (float)w);
}

/* ERR[i * A + a] += |angle_i - pos_a omega_i| of row ROW (wrapped). */
static void add_errors(const pc_rope_axes *ax, const double *omega, int half, int h, int64_t row,
                       const double *ang, double *err)
{
    for (int i = 0; i < h; i++)
        for (int a = 0; a < ax->n_axes; a++) {
            double t = angle_at(pc_rope_axes_x(ax, row, a), omega[i], half);
            err[i * ax->n_axes + a] += fabs(remainder(ang[i] - t, 2.0 * M_PI));
        }
}

int pc_rope_axes_follow(const pc_impl *impl, const pc_rope_axes *ax, const double *omega, int half,
                        int d, double base, int layout, int64_t lo, int64_t hi, int *follow)
{
    int h = d / 2, A = ax->n_axes;
    size_t dd = (size_t)d;
    float *x = calloc(dd, sizeof *x), *y = malloc(dd * sizeof *y);
    double *ang = malloc((size_t)h * sizeof *ang), *err = calloc((size_t)h * (size_t)A, sizeof *err);
    int64_t n = hi - lo + 1, step = n > AM_ROWS ? n / AM_ROWS : 1, used = 0;
    int rc = !x || !y || !ang || !err || lo < 0 || hi >= ax->n ? -1 : 0;
    for (int i = 0; rc == 0 && i < h; i++) x[layout ? i : 2 * i] = 1.0f;
    for (int64_t row = lo; rc == 0 && row <= hi; row += step, used++)
        if ((rc = angles(impl, d, base, layout, row, x, y, ang)) == 0)
            add_errors(ax, omega, half, h, row, ang, err);
    for (int i = 0; rc == 0 && i < h; i++) {
        int best = 0;
        for (int a = 1; a < A; a++)
            if (err[i * A + a] < err[i * A + best]) best = a;
        follow[i] = err[i * A + best] / (double)used < AM_TOL ? best : -1;
    }
    free(x); free(y); free(ang); free(err);
    return rc;
}

/* FOLLOW's pairs as sections in HF's order ("24,16,24"): 1, or 0 when
 * they are not consecutive runs of the axes 0, 1, ... in turn. */
static int as_sections(const int *follow, int h, int A, char *buf, size_t len)
{
    int count[PC_ROPE_AXES_MAX] = { 0 }, axis = 0;
    for (int j = 0; j < h; j++) {
        if (follow[j] < 0) return 0;
        while (axis < A && follow[j] != axis) axis++;
        if (axis >= A) return 0;
        count[axis]++;
    }
    size_t u = 0;
    for (int a = 0; a < A && u < len; a++)
        u += (size_t)snprintf(buf + u, len - u, "%s%d", a ? "," : "", count[a]);
    return 1;
}

int pc_rope_axes_permuted(const int *follow, const int *want, int h, int A, int *perm)
{
    int seen[PC_ROPE_AXES_MAX] = { 0 }, moved = 0;
    for (int a = 0; a < A; a++) perm[a] = -1;
    for (int j = 0; j < h; j++) {
        int a = want[j], c = follow[j];
        if (c < 0 || a < 0 || a >= A || (perm[a] >= 0 && perm[a] != c)) return 0;
        if (perm[a] < 0 && seen[c]++) return 0;  /* two of the split's axes on one column */
        perm[a] = c;
        moved |= c != a;
    }
    return moved;
}

int pc_rope_axes_runs_permuted(const int *follow, int h, int A, char *buf, size_t len, int *perm)
{
    int want[PC_D_MAX / 2], runs = 0;
    size_t u = 0;
    buf[0] = '\0';
    for (int j = 0; j < h && j < PC_D_MAX / 2; j++) {
        if (j > 0 && follow[j] != follow[j - 1]) runs++;
        want[j] = runs;
    }
    if (h > PC_D_MAX / 2 || runs + 1 != A || !pc_rope_axes_permuted(follow, want, h, A, perm))
        return 0;
    for (int j = 0, k = 0; j < h && u < len; j = k) {
        while (k < h && follow[k] == follow[j]) k++;
        u += (size_t)snprintf(buf + u, len - u, "%s%d", j ? "," : "", k - j);
    }
    return 1;
}

/* FOLLOW as runs: "pairs 0..15 axis 0, 16..39 axis 1, ..." */
static void as_runs(const int *follow, int h, char *buf, size_t len)
{
    size_t u = 0;
    buf[0] = '\0';
    for (int j = 0; j < h && u + 40 < len;) {
        int k = j;
        while (k + 1 < h && follow[k + 1] == follow[j]) k++;
        if (follow[j] < 0)
            u += (size_t)snprintf(buf + u, len - u, "%spairs %d..%d none", u ? ", " : "", j, k);
        else
            u += (size_t)snprintf(buf + u, len - u, "%spairs %d..%d axis %d", u ? ", " : "", j, k,
                                  follow[j]);
        j = k + 1;
    }
}

/* FOLLOW's pairs as sections in the interleaved order of the newer
 * Qwen-VL (positions.c): 1 with them in BUF, 0 when not that order. */
static int as_interleaved(const int *follow, int h, int A, char *buf, size_t len)
{
    int count[PC_ROPE_AXES_MAX] = { 0 };
    if (A != 3) return 0;
    for (int j = 0; j < h; j++) {
        if (follow[j] < 0) return 0;
        count[follow[j]]++;
    }
    for (int j = 0; j < h; j++) {
        int m = j % 3, want = m > 0 && j < 3 * count[m] ? m : 0;
        if (follow[j] != want) return 0;
    }
    snprintf(buf, len, "%d,%d,%d", count[0], count[1], count[2]);
    return 1;
}

int pc_rope_axes_sections_of(const int *follow, int h, int A, char *buf, size_t len)
{
    if (as_sections(follow, h, A, buf, len)) return 1;
    return as_interleaved(follow, h, A, buf, len) ? 2 : 0;
}

void pc_rope_axes_describe_follow(const int *follow, int h, int A, char *buf, size_t len)
{
    char sec[64];
    if (as_sections(follow, h, A, sec, sizeof sec))
        snprintf(buf, len, "sections %s (in turn)", sec);
    else if (as_interleaved(follow, h, A, sec, sizeof sec))
        snprintf(buf, len, "sections %s in the interleaved order (mrope_interleaved)", sec);
    else
        as_runs(follow, h, buf, len);
}

/* Whether ROW's position is 0 on every axis (a class or register token's
 * row: angle 0, cos 1 and sin 0 in every pair). */
static int at_origin(const pc_rope_axes *ax, int64_t row)
{
    for (int a = 0; a < ax->n_axes; a++)
        if (pc_rope_axes_x(ax, row, a) != 0.0) return 0;
    return 1;
}

/* Every pair follows its axis, yet the check failed: a row whose ids are 0
 * on every axis (the class token's, which the model leaves unrotated) that
 * turns by more than AM_TOL in some pair is named, with that pair. */
static void origin_cause(const pc_impl *impl, const pc_acc_cfg *cfg, const pc_rope_axes *ax,
                         char *buf, size_t len)
{
    int d = cfg->d, h = d / 2, lay = cfg->layout;
    float *x = calloc((size_t)d, sizeof *x), *y = malloc((size_t)d * sizeof *y);
    double *ang = malloc((size_t)h * sizeof *ang);
    for (int i = 0; x && i < h; i++) x[lay ? i : 2 * i] = 1.0f;
    for (int64_t row = cfg->pos_lo; x && y && ang && row <= cfg->pos_hi && row < ax->n; row++) {
        if (!at_origin(ax, row) || angles(impl, d, cfg->base, lay, row, x, y, ang) != 0) continue;
        int worst = 0;
        for (int i = 1; i < h; i++)
            if (fabs(ang[i]) > fabs(ang[worst])) worst = i;
        if (fabs(ang[worst]) <= AM_TOL) continue;
        snprintf(buf, len, "row %lld has position ids 0 on every axis (a class or register token, "
                 "which the model leaves unrotated: angle 0) but its pairs turn (pair %d by %.3g "
                 "rad), while every pair of the other rows follows its axis: the token given a "
                 "position (a patch's, or the grid's next)?", (long long)row, worst, ang[worst]);
        break;
    }
    free(x); free(y); free(ang);
}

int pc_rope_axes_moved(const pc_rope_axes *ax, int64_t lo, int64_t hi, const int *follow,
                       const int *want, int h)
{
    int A = ax->n_axes, same[PC_ROPE_AXES_MAX][PC_ROPE_AXES_MAX], wrong = 0;
    for (int a = 0; a < A; a++)
        for (int b = 0; b < A; b++) {
            int64_t row = lo;
            while (row <= hi && row < ax->n && pc_rope_axes_x(ax, row, a) == pc_rope_axes_x(ax, row, b))
                row++;
            same[a][b] = row > hi || row >= ax->n;
        }
    for (int i = 0; i < h; i++)
        wrong += follow[i] >= 0 && want[i] >= 0 && want[i] < A && !same[follow[i]][want[i]];
    return wrong;
}

static int moved_pairs(const pc_rope_axes *ax, const pc_acc_cfg *cfg, const int *follow)
{
    return pc_rope_axes_moved(ax, cfg->pos_lo, cfg->pos_hi, follow, ax->axis, cfg->d / 2);
}

/* The pairs that follow another axis than the check's (moved_pairs), every
 * pair following one (FOLLOW): the axes or sections exchanged, into BUF;
 * 0 ("" in BUF) when some pair follows none or none is moved. */
static int exchanged_cause(const pc_rope_axes *ax, const pc_acc_cfg *cfg, const int *follow,
                           char *buf, size_t len)
{
    int wrong = moved_pairs(ax, cfg, follow), h = cfg->d / 2;
    buf[0] = '\0';
    for (int i = 0; i < h; i++)
        if (follow[i] < 0) return 0;
    if (!wrong) return 0;
    char got[400];
    pc_rope_axes_describe_follow(follow, h, ax->n_axes, got, sizeof got);
    snprintf(buf, len, "the pairs follow the position axes as %s, not as the check's "
             "(%d pairs on another axis): %s", got, wrong, ax->axial
             ? "the axes exchanged (the rows' positions for the columns', h and w "
             "swapped or the grid transposed)?" : "sections swapped, or the other "
             "order (--rope-sections, mrope_interleaved)?");
    return 1;
}

/* Under --rope-angle-dtype f16: the axes exchanged when every pair follows
 * one at the float16 angles (ChatGLM-6B's ids saved as (block position,
 * position)), else the storage's cause (pc_rope_axes_half_cause). */
static void half_axes_cause(const pc_impl *impl, const pc_acc_cfg *cfg, char *buf, size_t len)
{
    const pc_rope_params *p = cfg->sched->params;
    int h = cfg->d / 2, *follow = malloc((size_t)h * sizeof *follow);
    int moved = follow && pc_rope_axes_follow(impl, p->axes, p->omega_s, 1, cfg->d, cfg->base,
                                              cfg->layout, cfg->pos_lo, cfg->pos_hi, follow) == 0
                && exchanged_cause(p->axes, cfg, follow, buf, len);
    free(follow);
    if (!moved) pc_rope_axes_half_cause(impl, cfg, buf, len);
}

void pc_rope_axes_cause(const pc_impl *impl, const pc_acc_cfg *cfg, char *buf, size_t len)
{
    const pc_rope_params *p = cfg->sched ? cfg->sched->params : NULL;
    const pc_rope_axes *ax = p ? p->axes : NULL;
    int h = cfg->d / 2;
    buf[0] = '\0';
    if (ax && p->angle_dtype) { half_axes_cause(impl, cfg, buf, len); return; }
    if (!ax || ax->n_axes < 2) return;
    pc_freqs *fr = pc_freqs_new(cfg->d, *cfg->sched);
    double *omega = malloc((size_t)h * sizeof *omega);
    int *follow = malloc((size_t)h * sizeof *follow), wrong = 0, none = 0;
    for (int i = 0; fr && omega && i < h; i++) omega[i] = pc_freqs_omega(fr, i);
    if (fr && omega && follow
        && pc_rope_axes_follow(impl, ax, omega, 0, cfg->d, cfg->base, cfg->layout, cfg->pos_lo,
                               cfg->pos_hi, follow) == 0) {
        for (int i = 0; i < h; i++) none += follow[i] < 0;
        wrong = moved_pairs(ax, cfg, follow);
        char got[400];
        pc_rope_axes_describe_follow(follow, h, ax->n_axes, got, sizeof got);
        if (wrong && !none)
            (void)exchanged_cause(ax, cfg, follow, buf, len);
        else if (none && !pc_rope_axes_storage_cause(impl, cfg, omega, buf, len)
                 && !pc_rope_axes_grid_cause(impl, cfg, omega, buf, len))
            pc_rope_axes_freqs_cause(impl, cfg, omega, buf, len);
        else if (!wrong && !(p->freq_dtype && pc_rope_axes_storage_cause(impl, cfg, omega, buf, len)))
            /* every pair follows its axis: under --rope-freq-dtype the
             * frequencies may be held otherwise (SAM-2's float32 ones),
             * which the follow test's tolerance does not tell apart */
            origin_cause(impl, cfg, ax, buf, len);
        if (none && !buf[0]) pc_rope_axes_more_cause(impl, cfg, omega, buf, len);
        if (none && !buf[0])
            snprintf(buf, len, "%d pairs follow no position axis with the schedule's frequencies "
                     "(%s): another schedule or base, or other position ids?", none, got);
    }
    free(follow);
    free(omega);
    pc_freqs_free(fr);
}
