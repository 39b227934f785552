/* relative_data.c: data files for the report's relative-position plots
 * (families/t5/t5_buckets.gp, families/alibi/alibi_bias.gp).  The numbers are the
 * exact references; gnuplot only draws them. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "relative.h"
#include "harness/sandbox/hook.h"
#include "harness/sandbox/call.h"
#include "harness/io/output.h"

#define T5_PLOT_R 200         /* distances -200 .. 200: past max_distance 128 */
#define ALIBI_PLOT_D 64       /* distances 0 .. 64 */

static pc_status t5_file(const char *dir, const pc_impl *const *impls, int n_impls, pc_err *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/t5_buckets.dat", dir);
    pc_out out;
    pc_status st = pc_out_open(&out, path, err);
    if (st != PC_OK) return st;
    int32_t got[2][2 * T5_PLOT_R + 1];
    int64_t rel[2 * T5_PLOT_R + 1];
    for (int k = 0; k <= 2 * T5_PLOT_R; k++) rel[k] = k - T5_PLOT_R;
    fprintf(out.f, "j-i exact_bidirectional exact_causal");
    for (int i = 0; i < n_impls; i++)
        if (impls[i]->t5_bucket)
            fprintf(out.f, " %s_bidirectional %s_causal", impls[i]->name, impls[i]->name);
    fputc('\n', out.f);
    /* implementation columns: computed first, an error leaves no file */
    int32_t (*cols)[2][2 * T5_PLOT_R + 1] = NULL;
    if (n_impls > 0) {
        cols = calloc((size_t)n_impls, sizeof *cols);
        if (!cols) { pc_out_close(&out, 0, err); return pc_seterr(err, PC_ENOMEM, "out of memory"); }
    }
    for (int i = 0; i < n_impls; i++) {
        if (!impls[i]->t5_bucket) continue;
        for (int m = 0; m < 2; m++) {
            pc_fault fault;
            int rc = pc_call_t5_bucket(impls[i], &fault, rel, 2 * T5_PLOT_R + 1, m == 0,
                                       PC_T5_HF_BUCKETS, PC_T5_HF_MAXDIST, cols[i][m]);
            if (rc || fault.faulted) {
                free(cols);
                pc_out_close(&out, 0, err);
                return pc_seterr(err, PC_EINPUT, "%s: %s %s", impls[i]->name,
                                 pc_hook_symbol(PC_HOOK_t5_bucket),
                                 fault.faulted ? fault.cause : "failed");
            }
        }
    }
    for (int k = 0; k <= 2 * T5_PLOT_R; k++) {
        for (int m = 0; m < 2; m++)
            if ((st = pc_ref_t5_bucket(rel[k], m == 0, PC_T5_HF_BUCKETS, PC_T5_HF_MAXDIST,
                                       &got[m][k])) != PC_OK) {
                free(cols);
                pc_out_close(&out, 0, err);
                return pc_seterr(err, PC_EINTERNAL, "t5 reference failed at %" PRId64, rel[k]);
            }
        fprintf(out.f, "%" PRId64 " %d %d", rel[k], (int)got[0][k], (int)got[1][k]);
        for (int i = 0; i < n_impls; i++)
            if (impls[i]->t5_bucket)
                fprintf(out.f, " %d %d", (int)cols[i][0][k], (int)cols[i][1][k]);
        fputc('\n', out.f);
    }
    free(cols);
    return pc_out_close(&out, 1, err);
}

static pc_status alibi_file(const char *dir, pc_err *err)
{
    static const int heads[2] = { 8, 12 };
    char path[4096];
    snprintf(path, sizeof path, "%s/alibi_bias.dat", dir);
    pc_out out;
    pc_status st = pc_out_open(&out, path, err);
    if (st != PC_OK) return st;
    fprintf(out.f, "distance");
    for (int g = 0; g < 2; g++)
        for (int h = 0; h < heads[g]; h++) {
            long a, b;
            pc_alibi_exponent(heads[g], h, &a, &b);
            fprintf(out.f, " H%d_h%d_2^-%ld/%ld", heads[g], h, a, b);
        }
    fputc('\n', out.f);
    for (int dist = 0; dist <= ALIBI_PLOT_D; dist++) {
        fprintf(out.f, "%d", dist);
        for (int g = 0; g < 2; g++)
            for (int h = 0; h < heads[g]; h++) {
                pc_ref2 r;
                if ((st = pc_ref_alibi_bias(heads[g], h, dist, &r)) != PC_OK) {
                    pc_out_close(&out, 0, err);
                    return pc_seterr(err, PC_EINTERNAL, "alibi reference failed");
                }
                fprintf(out.f, " %.17g", r.f64);
            }
        fputc('\n', out.f);
    }
    return pc_out_close(&out, 1, err);
}

/* alibi_slopes.dat: head h, the exact slope m_h for H = ALIBI_SLOPE_H (not
 * a power of two, where the paper's interleaving rule applies), then each
 * implementation's binary32 slope (those whose alibi_slopes call succeeds). */
#define ALIBI_SLOPE_H 12

static pc_status alibi_slopes_file(const char *dir, const pc_impl *const *impls, int n_impls,
                                   pc_err *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/alibi_slopes.dat", dir);
    float (*got)[ALIBI_SLOPE_H] = n_impls > 0 ? calloc((size_t)n_impls, sizeof *got) : NULL;
    int *use = n_impls > 0 ? calloc((size_t)n_impls, sizeof *use) : NULL;
    if (n_impls > 0 && (!got || !use)) { free(got); free(use); return pc_seterr(err, PC_ENOMEM, "out of memory"); }
    for (int i = 0; i < n_impls; i++) {
        pc_fault fault; /* a crash leaves it out of the plot (its verdicts say why) */
        use[i] = impls[i]->alibi_slopes &&
                 pc_call_alibi_slopes(impls[i], &fault, ALIBI_SLOPE_H, got[i]) == 0 && !fault.faulted;
    }
    pc_out out;
    pc_status st = pc_out_open(&out, path, err);
    if (st == PC_OK) {
        fprintf(out.f, "head exact");
        for (int i = 0; i < n_impls; i++)
            if (use[i]) fprintf(out.f, " %s", impls[i]->name);
        fputc('\n', out.f);
        for (int h = 0; h < ALIBI_SLOPE_H && st == PC_OK; h++) {
            pc_ref2 m;
            st = pc_ref_alibi_slope(ALIBI_SLOPE_H, h, &m);
            fprintf(out.f, "%d %.17g", h, m.f64);
            for (int i = 0; i < n_impls; i++)
                if (use[i]) fprintf(out.f, " %.9g", (double)got[i][h]);
            fputc('\n', out.f);
        }
        if (st != PC_OK) {
            pc_out_close(&out, 0, err);
            st = pc_seterr(err, PC_EINTERNAL, "alibi slope reference failed");
        } else
            st = pc_out_close(&out, 1, err);
    }
    free(got);
    free(use);
    return st;
}

pc_status pc_relative_plot_data(const char *dir, const pc_impl *const *impls, int n_impls,
                                pc_err *err)
{
    pc_status st = t5_file(dir, impls, n_impls, err);
    if (st == PC_OK) st = alibi_file(dir, err);
    if (st == PC_OK) st = alibi_slopes_file(dir, impls, n_impls, err);
    return st;
}
