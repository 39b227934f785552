/* cmd_report.c: `pecheck report --out DIR`: an HTML accuracy report with
 * gnuplot plots for the selected implementations (docs/report.md).
 *
 * The folder is written as DIR.tmp.PID and renamed to DIR only when
 * complete, so an error never leaves a partial report under DIR.  An
 * existing DIR is replaced only when it is a previous report (it holds
 * summary.json) or empty.  Exit 0 when the report was written (whatever
 * the verdicts: `pecheck check` is the gate), 2 for a usage or input
 * error, 3 for an internal error. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"
#include "harness/engine/model.h"
#include "harness/io/output.h"
#include "harness/base/progress.h"
#include "harness/report/report.h"
#include "harness/sources/table.h"
#include "families/family.h"

/* Plots 1-3 scan positions up to max(2^17, --max-pos): 2^17 = 131072 is
 * past the 2^16..2^17 context lengths of current models, and where the
 * binary32 angle's absolute error (about pos * 2^-24) reaches 1e-2. */
#define PC_REP_SCAN_MAX ((int64_t)1 << 17)

static const struct { const char *id, *title, *caption; } plot_defs[PC_REP_PLOTS] = {
    { "error_vs_position", "Error vs position: error/bound, then absolute error",
      "Upper panel (the verdict): every element's error divided by its own bound, maximum over "
      "every dimension of the positions sampled in one bin (8 log-spaced bins per doubling of the "
      "position, up to 8 positions each), one curve per implementation; both axes are "
      "logarithmic. Above the black line at 1 an element fails the gate, so a failing "
      "implementation is a curve above the line and a passing one stays below it everywhere. "
      "Lower panel: the largest |got &minus; exact| per bin, against the line "
      "C&middot;u&middot;(1 + pos), C the Precision model section's: 2 ln(base) + 4, the error an "
      "exp-form frequency and angle can reach on a pair of frequency near 1, or, where a schedule "
      "made the gates' bounds, their largest A&middot;&kappa;<sub>i</sub> (the gate's own budget "
      "is per pair: pair 0, "
      "whose angle is exact, is held to a few u, which is why a failing curve can sit under this "
      "line in the lower panel and still be above 1 in the upper one). How to read it: correct binary32 implementations rise with the position like "
      "the bound (the angle pos&middot;&omega; is rounded to binary32, so its absolute error "
      "grows with pos), while one that computes the angle in binary64 and rounds once stays flat "
      "near half an ulp; the position where a curve crosses 1 in the upper panel is where an "
      "implementation breaks. RoPE implementations rotate unit-norm pairs here, so the same "
      "bound applies to both families." },
    { "error_heatmap", "Error heatmap: position × pair",
      "Colour: log<sub>10</sub> of the largest |error| of the two members of pair i (x axis; "
      "pair 0 has the highest frequency &omega;<sub>0</sub> = 1, the last pair the lowest) over "
      "the sampled positions of a bin (y axis, logarithmic), for the implementation with the "
      "largest error/bound in the scan (left) and a good one (right: the first that passes the "
      "gate and stays within its bound in the scan), on the same colour scale; errors under "
      "10<sup>&minus;10</sup> are drawn at the floor. How to read it: colour that brightens "
      "upwards is an error growing with the position, the mark of an angle pos&middot;&omega;"
      "<sub>i</sub> rounded to binary32 (pair 0, whose frequency 1 is exact, stays darker); a "
      "uniform colour is an offset or a wrong value everywhere; a diagonal or a vertical band "
      "points at particular frequencies; bright cells at the bottom are wrong from the first "
      "positions." },
    { "ulp_histogram", "ULP error histogram",
      "For each implementation, the fraction of the scanned elements (plot 1's positions "
      "&times; every dimension) whose error falls in each bucket, in units in the last place of "
      "the correctly rounded binary32 value: CR = bit-identical to the correctly rounded value; "
      "k = error in (2<sup>k&minus;1</sup>, 2<sup>k</sup>] ulp (k = 0: at most 1 ulp but not "
      "correctly rounded). Both axes are logarithmic. How to read it: a correctly rounded "
      "implementation puts everything in CR and 0; ordinary binary32 formulations spread to "
      "many ulps, because near a zero of sin the ulp of the result is tiny while the error is "
      "set by the angle; that is why the gate bounds the absolute error, not ulps. Compare "
      "the shapes; a bump far right is an error much larger than rounding." },
    { "rope_decay", "RoPE long-term decay",
      "The RoFormer bound on the attention score of two rotated vectors at relative distance r "
      "(RoFormer, section 3.4.3): (1/(d/2)) &Sigma;<sub>j</sub> |S<sub>j</sub>| with "
      "S<sub>j</sub> = &Sigma;<sub>k&lt;j</sub> e<sup>i r &theta;<sub>k</sub></sup>, "
      "&theta;<sub>k</sub> = base<sup>&minus;2k/d</sup>. Left: the exact value for d = 64, 128, "
      "256 and base 10<sup>4</sup> and 5&middot;10<sup>5</sup> against r (log axis): it starts at "
      "(d/2 + 1)/2 at r = 0 and decays with the distance, more slowly with the larger base, which "
      "is why long-context models raise the base. Right: the same bound computed from each RoPE "
      "implementation's own rotation of unit vectors, at the report's d and base, as the absolute "
      "deviation from the exact bound (log&ndash;log): float32 implementations start near "
      "10<sup>&minus;7</sup> and drift up with r (the angles r&middot;&theta; are rounded); a "
      "bfloat16 cos/sin cache is off by about 10<sup>&minus;3</sup> from the first distances." },
    { "dot_product", "Sinusoidal PE(p)·PE(q) vs q − p",
      "Left: the certified sinusoidal PE: the dot product of the rows at p and q = p + k, for "
      "three anchor positions p, against k. It equals &Sigma;<sub>i</sub> cos(k&middot;&omega;"
      "<sub>i</sub>), a function of k alone, so the three curves lie exactly on top of each other: "
      "attention can read the relative distance from absolute PE. Middle: the sin-only "
      "counterexample (both members of a pair are sin): the product also depends on p + q and "
      "the curves separate. Right: mismatched frequencies (the cos member uses base<sup>&minus;"
      "(2i+1)/d</sup> instead of base<sup>&minus;2i/d</sup>): the curves separate too. How to "
      "read it: any spread between the three curves of a panel is a dependence on absolute "
      "position." },
    { "rope_shift", "RoPE shift invariance vs absolute offset",
      "RoPE promises &lang;R<sub>m+&delta;</sub>q, R<sub>m</sub>k&rang; = &lang;R<sub>&delta;"
      "</sub>q, k&rang; for every offset m. Each curve: the largest error of an implementation's "
      "score against the exact score, over 8 random (q, k, &delta;) triples with &delta; in "
      "1..255, relative to |q|&middot;|k|, against m (log&ndash;log). The dashed lines are the "
      "unit roundoffs of binary32 (2<sup>&minus;24</sup>) and bfloat16 (2<sup>&minus;8</sup>). "
      "How to read it: a float32 implementation's error grows with the offset (the angles "
      "m&middot;&theta; lose absolute precision as m grows); an implementation with a bfloat16 "
      "cos/sin cache is far above it from the first positions: the same query&ndash;key pair "
      "gets a different score depending on where it sits in the sequence." },
    { "pe_matrix", "The PE matrix and the wavelength per dimension",
      "Left: the certified sinusoidal PE for positions 0&ndash;50 (y) and dimensions 0&ndash;511 "
      "(x), d = 512, drawn in the half layout: the sin of every pair on the left, the cos of "
      "every pair on the right (the interleaved layout alternates them column by column, which "
      "at 512 columns draws as a moir&eacute;), colour from &minus;1 (blue) to 1 (red). The low pairs "
      "oscillate quickly along the positions; the high ones barely change over 50 positions "
      "(sin stays near 0, cos near 1). "
      "Right: the wavelength 2&pi;&middot;base<sup>2i/d</sup> of each dimension (pair i = "
      "dim/2) on a log axis: a geometric progression from 2&pi; to almost 2&pi;&middot;base, "
      "so the table mixes local and long-range position signals." },
    { "attention_equivariance", "Attention permutation equivariance, with and without PE",
      "Single-head self-attention without a mask is permutation equivariant: T(PX) = "
      "P&middot;T(X). Each point: the largest |T(PX + E) &minus; P&middot;T(X + E)| over the "
      "output, for 4 random permutations P, against the sequence length n (log&ndash;log), with "
      "E = 0 (no PE, solid) and E = the certified sinusoidal PE added by position (with PE, "
      "dashed). How to read it: without PE the difference is only rounding (the sums run in "
      "another order), of the order of binary32 rounding (10<sup>&minus;7</sup> to 10<sup>&minus;6"
      "</sup>): attention cannot see order. With "
      "PE it is of the order of the outputs themselves: the PE is what tells attention where a "
      "token is." },
    { "t5_buckets", "T5 relative-position buckets",
      "The bucket T5 assigns to a key at relative position j &minus; i, at Hugging Face's "
      "defaults (32 buckets, max_distance 128): exact (MPFR, solid) and each selected T5 "
      "implementation (dashed, on top). Left, bidirectional: one bucket per distance for "
      "|j &minus; i| &lt; 8, then logarithmically wider buckets up to the dashed grey lines at "
      "&plusmn;128, then saturation in the last bucket of each side. Right, causal: every key after "
      "the query shares bucket 0. How to read it: a dashed staircase that leaves the solid one is "
      "an implementation that buckets those distances differently (rounding instead of truncating "
      "the log term, a wrong max_exact, no saturation)." },
    { "alibi_bias", "ALiBi bias and slope per head",
      "Left: the bias &minus;m<sub>h</sub>&middot;|j &minus; i| that ALiBi adds to the attention "
      "logits, against the distance, for each of H = 12 heads, with the exact slopes of the "
      "paper's rule: 12 is not a power of two, so the first 8 heads take the H = 8 slopes "
      "2<sup>&minus;(h+1)</sup> (1/2 to 1/256) and heads 8 to 11 (dashed) take "
      "2<sup>&minus;0.5</sup>, 2<sup>&minus;1.5</sup>, 2<sup>&minus;2.5</sup>, 2<sup>&minus;3.5</sup>, "
      "every other slope of the H = 16 rule. Right: the slope of each head (log<sub>2</sub> axis), "
      "exact (black circles) against every selected ALiBi implementation's binary32 slopes. How to "
      "read it: each head is a straight line through 0; steep heads look only at nearby tokens, "
      "flat heads far away. An implementation whose points leave the black circles computes "
      "wrong slopes: one that applies the power-of-two formula 2<sup>&minus;8(h+1)/H</sup> to "
      "every H misses every head of H = 12." },
};

/* Remove the regular files of a flat folder, then the folder. */
static int remove_flat(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return -1;
    struct dirent *e;
    char path[PC_REP_FPATH];
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    closedir(d);
    return rmdir(dir);
}

/* DIR may be replaced: missing, an empty folder, or a previous report. */
static pc_status check_target(const char *dir, int *exists, pc_err *err)
{
    struct stat sb;
    *exists = 0;
    if (stat(dir, &sb) != 0) {
        if (errno == ENOENT) return PC_OK;
        return pc_seterr(err, PC_EIO, "--out %s: %s", dir, strerror(errno));
    }
    if (!S_ISDIR(sb.st_mode))
        return pc_seterr(err, PC_EINPUT, "--out %s: exists and is not a folder", dir);
    *exists = 1;
    char probe[PC_REP_FPATH];
    snprintf(probe, sizeof probe, "%s/summary.json", dir);
    if (access(probe, F_OK) == 0) return PC_OK;
    DIR *d = opendir(dir);
    if (!d) return pc_seterr(err, PC_EIO, "--out %s: %s", dir, strerror(errno));
    struct dirent *e;
    int empty = 1;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) empty = 0;
    closedir(d);
    if (!empty)
        return pc_seterr(err, PC_EINPUT, "--out %s: the folder exists and is not a pecheck report "
                         "(no summary.json); refusing to overwrite it", dir);
    return PC_OK;
}

/* Copy a file (the proof report) into the report; 0 on success. */
static int copy_file(const char *src, const char *dst)
{
    FILE *in = fopen(src, "rb");
    if (!in) return -1;
    FILE *out = fopen(dst, "wb");
    if (!out) { fclose(in); return -1; }
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0) fwrite(buf, 1, n, out);
    int bad = ferror(in) || ferror(out);
    fclose(in);
    if (fclose(out) != 0) bad = 1;
    return bad ? -1 : 0;
}

/* build/prove/report.txt of the ACSL proofs, next to the binary or under
 * the current folder. */
static void copy_proof(pc_report *r)
{
    char cand[2][PC_REP_FPATH], exe[PC_REP_PATH];
    int nc = 0;
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            snprintf(cand[nc++], sizeof cand[0], "%s/prove/report.txt", exe);
        }
    }
    snprintf(cand[nc++], sizeof cand[0], "build/prove/report.txt");
    char dst[PC_REP_FPATH];
    snprintf(dst, sizeof dst, "%s/proof-report.txt", r->dir);
    for (int k = 0; k < nc && !r->has_proof; k++)
        if (access(cand[k], R_OK) == 0 && copy_file(cand[k], dst) == 0) r->has_proof = 1;
}

/* The folder the report is written to, R->dir: DIR.tmp.PID, or
 * DIR.tmp.PID.K (K = 1..7) when that name is taken (a left-over of a
 * crashed run with the same pid, or planted): a folder this run did not make
 * is never written nor removed (as output.c's temporaries). */
#define REPORT_TMP_TRIES 8

static pc_status make_tmp_dir(pc_report *r, pc_err *err)
{
    for (int k = 0; k < REPORT_TMP_TRIES; k++) {
        if (k == 0) snprintf(r->dir, sizeof r->dir, "%s.tmp.%ld", r->final_dir, (long)getpid());
        else snprintf(r->dir, sizeof r->dir, "%s.tmp.%ld.%d", r->final_dir, (long)getpid(), k);
        if (mkdir(r->dir, 0755) == 0) return PC_OK;
        if (errno != EEXIST)
            return pc_seterr(err, PC_EIO, "cannot create %s: %s", r->dir, strerror(errno));
    }
    return pc_seterr(err, PC_EWRITE, "%s: cannot create a temporary folder beside it: %s.tmp.%ld "
                     "and the %d names after it exist (not made by this run: remove them)",
                     r->final_dir, r->final_dir, (long)getpid(), REPORT_TMP_TRIES - 1);
}

static void note(const pc_report *r, const char *msg)
{
    if (!r->o.quiet) fprintf(stderr, "pecheck report: %s\n", msg);
}

/* The report's verdicts and the data of its plots (the calls of the
 * implementations), in the temporary folder; from T0. */
/* The precision model the report states and plot 1's line follow, once
 * the gates ran: where a schedule made a gate's bound (--hf-config, a
 * preset), the gates' own largest A kappa_i (pc_acc_result.C), else the
 * default class at the report's base (make_report). */
static void model_of_gates(pc_report *r)
{
    double kmax = 0.0;
    int sched = 0, klass = PC_CLASS_DEFAULT;
    for (int k = 0; k < r->n_impls; k++) {
        const pc_rep_impl *ri = &r->impls[k];
        if (!ri->has_acc || ri->acc.status == PC_SKIP) continue;
        sched |= ri->sched.set;
        kmax = fmax(kmax, ri->acc.C);
        if (ri->cfg.strict > klass) klass = ri->cfg.strict; /* hf over cr: the report's RoPE */
    }
    /* --strict: the line follows the class the gates held (its C is
     * theirs, not the default class's 2 ln(base) + 4) */
    int strict = r->o.strict || r->o.formulation;
    if (!sched && !(strict && kmax > 0)) return;
    r->C = kmax;
    r->C_sched = 1;
    r->strict = strict;
    pc_model_describe_budget(r->model, sizeof r->model, kmax, klass, PC_DT_F32, -1.0, 0, 1);
}

static pc_status build_data(pc_report *r, double t0, pc_err *err)
{
    char msg[160];
    snprintf(msg, sizeof msg, "accuracy gate and properties for %d implementation%s",
             r->n_impls, r->n_impls == 1 ? "" : "s");
    note(r, msg);
    pc_status st = pc_report_summary(r, err);
    if (st == PC_OK) {
        model_of_gates(r);
        note(r, "computing the data of the plots");
        st = pc_report_data(r, err);
    }
    r->seconds_data = pc_now() - t0;
    return st;
}

/* The plots, the summary and the page, once no implementation is called
 * any more (the plugins' hosts have ended); from T0. */
static pc_status build_files(pc_report *r, double t0, pc_err *err)
{
    double t1 = pc_now();
    note(r, "drawing the plots with gnuplot");
    pc_status st = pc_report_draw(r, err);
    r->seconds_plots = pc_now() - t1;
    if (st == PC_OK) copy_proof(r);
    r->seconds_total = pc_now() - t0;
    if (st == PC_OK) st = pc_report_write_json(r, err);
    if (st == PC_OK) st = pc_report_write_html(r, err);
    return st;
}

/* One report entry per family with a gate of its own that IMPL provides
 * (as `check`); an implementation of the families checked by their
 * properties alone gets one entry, its own family's.  R->impls has room
 * for pc_family_count() entries per implementation. */
static void add_entries(pc_report *r, const pc_impl *impl)
{
    int first = r->n_impls, nf = 0;
    for (size_t f = 0; f < pc_family_count(); f++) {
        const pc_family *fam = pc_family_at(f);
        if (!fam->gate || !fam->provides(impl)) continue;
        pc_rep_impl *ri = &r->impls[r->n_impls++];
        ri->impl = impl;
        ri->family = fam->name;
        nf++;
    }
    if (nf == 0) {
        pc_rep_impl *ri = &r->impls[r->n_impls++];
        ri->impl = impl;
        ri->family = impl->family_hint ? impl->family_hint : "none";
        nf = 1;
    }
    for (int k = first; k < r->n_impls; k++) r->impls[k].multi = nf > 1;
}

/* --out DIR (required), without its trailing slashes, as R->final_dir. */
static pc_status target_dir(pc_report *r, pc_err *err)
{
    if (!r->o.out || !r->o.out[0])
        return pc_seterr(err, PC_EINPUT, "--out DIR is required (the folder to write the report to)");
    size_t len = strlen(r->o.out);
    if (len + 40 >= sizeof r->dir) return pc_seterr(err, PC_EINPUT, "--out: path too long");
    snprintf(r->final_dir, sizeof r->final_dir, "%s", r->o.out);
    while (len > 1 && r->final_dir[len - 1] == '/') r->final_dir[--len] = '\0';
    return PC_OK;
}

/* The report's width and base: --d and --base (every family's), else the
 * tables' width (one for all of them) in every spec. */
static pc_status report_width(pc_report *r, const pc_sources *src, pc_err *err)
{
    const pc_spec *shared = pc_specs_of(&r->specs, NULL);
    int table_d = 0;
    for (int k = 0; !shared->d_set && k < src->n; k++) {
        const pc_table_info *t = pc_table_info_of(src->impl[k]);
        if (!t) continue;
        if (table_d && t->d != table_d)
            return pc_seterr(err, PC_EINPUT, "%s has d = %d, another table d = %d: one report "
                             "compares one width", src->impl[k]->name, t->d, table_d);
        table_d = t->d;
    }
    for (int k = 0; table_d && k < r->specs.n; k++) r->specs.spec[k].d = table_d;
    r->d = shared->d;
    r->base = shared->base;
    return PC_OK;
}

/* The error scan's last position: --positions' end or PC_REP_SCAN_MAX,
 * but no further than the last position any selected source serves (a
 * table's last row): plot 1's axis and the heatmap cover what was checked. */
static int64_t scan_end(const pc_report *r)
{
    int64_t end = r->o.pos_hi > PC_REP_SCAN_MAX ? r->o.pos_hi : PC_REP_SCAN_MAX, served = 0;
    for (int k = 0; k < r->n_impls; k++) {
        const pc_impl *impl = r->impls[k].impl;
        if (!impl->pos_bounded) return end;
        if (impl->pos_max > served) served = impl->pos_max;
    }
    return r->n_impls > 0 && served >= 1 && served < end ? served : end;
}

/* The plots' texts, the model's constants, then the report's data and
 * pages into R->dir. */
static pc_status make_report(pc_report *r, pc_sources *src, pc_err *err)
{
    for (int k = 0; k < PC_REP_PLOTS; k++) {
        r->plots[k].id = plot_defs[k].id;
        r->plots[k].title = plot_defs[k].title;
        r->plots[k].caption = plot_defs[k].caption;
    }
    pc_report_plots_wanted(r);
    r->scan_max = scan_end(r);
    r->u = pc_model_u(PC_DT_F32);
    r->C = pc_model_C(r->base);
    /* kappa_i grows with i: the last pair's is the largest */
    double kmax = pc_model_kappa(PC_CLASS_DEFAULT, r->base, r->d, r->d / 2 - 1);
    pc_model_describe_budget(r->model, sizeof r->model, kmax, PC_CLASS_DEFAULT, PC_DT_F32,
                             -1.0, 0, 0);
    double t0 = pc_now();
    pc_status st = build_data(r, t0, err);
    /* the plugins' hosts and all they started end before the report is
     * drawn, written and put in place */
    pc_sources_stop(src);
    return st == PC_OK ? build_files(r, t0, err) : st;
}

/* The finished R->dir renamed to R->final_dir (an existing report there
 * replaced only then).  *MADE cleared once R->dir is gone. */
static pc_status move_into_place(pc_report *r, int exists, int *made, pc_err *err)
{
    char old[PC_REP_FPATH];
    snprintf(old, sizeof old, "%s.old.%ld", r->final_dir, (long)getpid());
    if (exists && rename(r->final_dir, old) != 0)
        return pc_seterr(err, PC_EIO, "cannot replace %s: %s", r->final_dir, strerror(errno));
    if (rename(r->dir, r->final_dir) != 0) {
        pc_status st = pc_seterr(err, PC_EIO, "cannot rename %s to %s: %s", r->dir, r->final_dir,
                                 strerror(errno));
        if (exists) rename(old, r->final_dir);
        return st;
    }
    *made = 0;
    if (exists && remove_flat(old) != 0)
        fprintf(stderr, "pecheck report: could not remove the previous report %s\n", old);
    return PC_OK;
}

/* Write the report of SRC into R->dir (a new folder, removed on
 * SIGINT/SIGTERM), then move it into place. */
static pc_status write_report(pc_report *r, pc_sources *src, pc_err *err)
{
    int exists = 0, made = 0, slot = -1;
    pc_status st = pc_report_find_scripts(r, err);
    if (st == PC_OK) st = check_target(r->final_dir, &exists, err);
    if (st == PC_OK) {
        /* one entry per implementation and family it provides, as `check` */
        r->impls = calloc((size_t)src->n * pc_family_count() + 1, sizeof *r->impls);
        if (!r->impls) st = pc_seterr(err, PC_ENOMEM, "out of memory");
        for (int k = 0; k < src->n && r->impls; k++) add_entries(r, src->impl[k]);
    }
    if (st == PC_OK) st = make_tmp_dir(r, err);
    if (st == PC_OK) {
        made = 1;
        slot = pc_out_track(r->dir, 1); /* removed on SIGINT/SIGTERM */
    }
    if (st == PC_OK) st = make_report(r, src, err);
    if (st == PC_OK) st = pc_sources_status(src, err); /* a table's file failed */
    if (st == PC_OK) st = move_into_place(r, exists, &made, err);
    if (made) remove_flat(r->dir);
    pc_out_untrack(slot);
    for (int k = 0; r->impls && k < r->n_impls; k++) {
        pc_verdicts_free(&r->impls[k].props);
        pc_spec_sched_release(&r->impls[k].sched);
    }
    free(r->impls);
    return st;
}

int pc_cmd_report(int argc, char **argv)
{
    pc_err err = { "" };
    pc_report *r = calloc(1, sizeof *r);
    if (!r) return pc_cli_fail(pc_seterr(&err, PC_ENOMEM, "out of memory"), &err);
    pc_opts_defaults(&r->o);
    pc_status st = pc_opts_parse(argc, argv, PC_OPTS_REPORT, 0, &r->o, &err);
    if (st == PC_OK) st = target_dir(r, &err);
    int have_specs = 0, have_src = 0;
    if (st == PC_OK) {
        st = pc_specs_resolve(&r->o.given, &r->specs, &err);
        have_specs = st == PC_OK;
    }
    pc_sources src;
    if (st == PC_OK) {
        st = pc_sources_open(&r->o, &r->specs, NULL, &src, &err);
        have_src = st == PC_OK;
        if (have_src) pc_sources_seal_note(&src, r->o.quiet, stderr);
    }
    /* the options held to the sources as accuracy and check hold them: a
     * --formulation ggml, --pos-start or --preset no source takes is exit
     * 2, not a page naming a class its gates did not use */
    if (st == PC_OK) st = pc_sources_options_apply(&r->o, &r->specs, NULL, &src, &err);
    if (st == PC_OK) st = report_width(r, &src, &err);
    if (st == PC_OK) st = write_report(r, &src, &err);
    if (have_src) pc_sources_close(&src);
    if (have_specs) pc_specs_release(&r->specs);
    if (st == PC_OK) printf("report written to %s/index.html\n", r->final_dir);
    int rc = st == PC_OK ? PC_EXIT_PASS : pc_cli_fail(st, &err);
    free(r);
    return rc;
}
