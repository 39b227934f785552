/* axes_storage.c: likely causes of a failed cache over position ids of
 * several axes that come from how the model stores its frequencies or lays
 * out its columns, each named only when its angles reproduce the cache's
 * at every pair (pc_rope_axes_explains), as axes_causes.c's are:
 *   - the frequencies rounded to float16 (a model holding inv_freq in
 *     half precision: ChatGLM-6B's RotaryEmbedding, inv_freq.half()) where
 *     the check's are not, or not rounded where the check's are
 *     (--rope-freq-dtype f16, ChatGLM-6B's position_encoding_2d);
 *   - the angles themselves float16 values (the model run in half
 *     precision: t, inv_freq and their product in float16, ChatGLM-6B
 *     under .half()): no schedule computes them, the check says so;
 *   - an (n, d) cache in the half layout of the whole head ([a1 a2 | a1
 *     a2], M-RoPE's) where the check reads each axis' dims in a half
 *     layout of its own (--rope-axes-halves), or the other way round: the
 *     cache is read again in the other column layout (pc_table_set_blocks)
 *     and its angles held to the check's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "axes_match.h"
#include "harness/base/dtype.h"
#include "harness/base/half.h"
#include "harness/sources/table.h"
#include "families/spec.h" /* PC_SPEC_BLOCKS_MAX */

#define AS_ROWS 512 /* rows read, as pc_rope_axes_follow reads */

/* A binary64 value rounded to nearest in float16 (through binary32: a
 * double rounding that can differ from the direct one only within 2^-24
 * relative of a float16 midpoint, far below PC_AXES_TOL's angles). */
static double f16(double v)
{
    return (double)pc_round_to(PC_DT_F16, (float)v);
}

/* Frequencies W (one a pair) whose angles are float16's: the position and
 * the frequency float16 values (t and inv_freq in half), their product
 * rounded to float16 (the einsum in half). */
static double half_angle(const void *arg, int64_t row, int i)
{
    const pc_axes_freqs *f = arg;
    return f16(f16(pc_rope_axes_x(f->ax, row, f->ax->axis[i])) * f16(f->w[i]));
}

/* The check's frequencies without its rounding (freq_dtype 0) into W. */
static int unrounded(const pc_acc_cfg *cfg, double *w)
{
    pc_rope_params p = *(const pc_rope_params *)cfg->sched->params;
    p.freq_dtype = 0;
    pc_freqs *fr = pc_freqs_new(cfg->d, pc_rope_schedule(&p));
    for (int i = 0; fr && i < cfg->d / 2; i++) w[i] = pc_freqs_omega(fr, i);
    int ok = fr != NULL;
    pc_freqs_free(fr);
    return ok;
}

/* The frequencies held in float16 where the check's are not, or exact
 * where the check's are rounded; then the angles in float16. */
static int stored(const pc_axes_angles *t, const pc_acc_cfg *cfg, const double *omega,
                  char *buf, size_t len)
{
    const pc_rope_params *rp = cfg->sched->params;
    int h = cfg->d / 2, rounded = rp->freq_dtype == PC_DT_F16, found = 0;
    double *w = malloc((size_t)h * sizeof *w);
    pc_axes_freqs f = { rp->axes, w };
    if (!w || rp->scale_k > 0.0 || (rounded && !unrounded(cfg, w))) { free(w); return 0; }
    for (int i = 0; !rounded && i < h; i++) w[i] = f16(omega[i]);
    if (pc_rope_axes_explains(t, pc_rope_axes_at, &f))
        found = snprintf(buf, len, rounded
                 ? "the frequencies are not rounded to float16: every pair follows its axis at "
                   "the exact omega_i, not at inv_freq.half()'s (the code's .half() left out, or "
                   "a model holding inv_freq in float32: drop --rope-freq-dtype)"
                 : "the frequencies are float16 values: every pair follows its axis at omega_i "
                   "rounded to float16 (inv_freq held in half precision, ChatGLM-6B's "
                   "RotaryEmbedding: pass --rope-freq-dtype f16)") > 0;
    for (int i = 0; rounded && i < h; i++) w[i] = omega[i];
    if (!found && pc_rope_axes_explains(t, half_angle, &f))
        found = snprintf(buf, len, "the angles are float16 values: every pair's angle is "
                         "fl16(fl16(x) fl16(omega_i)), the position, frequency and product in "
                         "float16 (the model run in half precision, ChatGLM-6B's RotaryEmbedding "
                         "under .half(): errors up to half a float16 ulp of the angle, 0.5 rad "
                         "near 2048), which no frequency schedule computes: the cache is that "
                         "of the half-precision model, not of RoPE's angles") > 0;
    free(w);
    return found;
}

/* The cache read in the other column layout: each axis' dims in a half
 * layout of their own (the check's axes' dims as blocks) when the check
 * reads the whole width's, and back; 1 when that explains it, the table's
 * reading restored either way. */
static int columns(const pc_impl *impl, const pc_acc_cfg *cfg, const double *omega, char *buf,
                   size_t len)
{
    const pc_rope_axes *ax = ((const pc_rope_params *)cfg->sched->params)->axes;
    int was[PC_SPEC_BLOCKS_MAX], n = pc_table_blocks(impl, was), found = 0;
    if (!ax->axial || ax->n_axes > PC_SPEC_BLOCKS_MAX) return 0;
    if (pc_table_set_blocks(impl, ax->axes_dim, n ? 0 : ax->n_axes) != 0) return 0;
    pc_axes_freqs f = { ax, omega };
    pc_axes_angles t = { 0 };
    if (pc_rope_axes_angles(impl, cfg, AS_ROWS, &t) == 0 && pc_rope_axes_explains(&t, pc_rope_axes_at, &f))
        found = snprintf(buf, len, n
                 ? "the columns are in the half layout of the whole head, [a1 a2 | a1 a2] "
                   "(M-RoPE's, one cat(freqs, freqs) over both axes), not each axis' dims in a "
                   "half layout of its own: read so, every pair follows its axis (drop "
                   "--rope-axes-halves, or build each half with its own cat(freqs, freqs))"
                 : "each axis' dims are in a half layout of their own, [a a | b b] (ChatGLM-6B's "
                   "position_encoding_2d, one rotate_half per half of the head): read so, every "
                   "pair follows its axis (pass --rope-axes-halves)") > 0;
    pc_rope_axes_angles_free(&t);
    pc_table_set_blocks(impl, was, n);
    return found;
}

void pc_rope_axes_half_cause(const pc_impl *impl, const pc_acc_cfg *cfg, char *buf, size_t len)
{
    const pc_rope_params *rp = cfg->sched->params;
    pc_axes_freqs f = { rp->axes, rp->omega_s };
    pc_axes_angles t = { 0 };
    int exact = pc_rope_axes_angles(impl, cfg, AS_ROWS, &t) == 0
                && pc_rope_axes_explains(&t, pc_rope_axes_at, &f);
    pc_rope_axes_angles_free(&t);
    snprintf(buf, len, exact
             ? "the angles are not float16 values: every pair follows its axis at x omega_i "
               "exactly (the float16 frequencies times the position, not rounded: the model run "
               "in float32, .float()): drop --rope-angle-dtype"
             : "the pairs do not turn at the float16 angles fl16(fl16(x) fl16(omega_i)) of "
               "--rope-angle-dtype f16, nor at x omega_i: another schedule, layout or position ids?");
}

int pc_rope_axes_storage_cause(const pc_impl *impl, const pc_acc_cfg *cfg, const double *omega,
                               char *buf, size_t len)
{
    pc_axes_angles t = { 0 };
    int found = columns(impl, cfg, omega, buf, len);
    if (!found && pc_rope_axes_angles(impl, cfg, AS_ROWS, &t) == 0)
        found = stored(&t, cfg, omega, buf, len);
    pc_rope_axes_angles_free(&t);
    if (!found) buf[0] = '\0';
    return found;
}
