/* report_plot.c: drawing the report's plots with gnuplot.
 *
 * The scripts live in reports/NAME.gp (found next to the binary's folder,
 * in PREFIX/share/pecheck/reports/ of an installed binary, or in
 * $PECHECK_REPORTS), a family's own plots in families/FAMILY/NAME.gp
 * beside that reports/ folder; each is copied into the report folder with the
 * run's parameters prepended, so `cd DIR && gnuplot NAME.gp` redraws
 * NAME.png from the data files beside it.  gnuplot is $PECHECK_GNUPLOT or
 * `gnuplot` on PATH; when it cannot be run the plots are marked "not drawn"
 * and everything else is still written. */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "harness/io/output.h"
#include "report.h"
#include "harness/base/version.h"

#define PC_GNUPLOT_INSTALL "apt-get install gnuplot-nox"

static int readable(const char *dir, const char *name)
{
    char path[PC_REP_FPATH + 64];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return access(path, R_OK) == 0;
}

/* The folders, relative to the binary's own folder, that hold reports/:
 * the source tree's build folder (build/pecheck -> reports/) and an
 * installed prefix (PREFIX/bin/pecheck -> PREFIX/share/pecheck/reports/,
 * `make install`; a wheel's pecheck/bin/pecheck -> pecheck/reports/). */
static const char *const scripts_beside_exe[] = { "../reports", "../share/pecheck/reports" };

/* SCRIPTS = the first folder of scripts_beside_exe, beside the running
 * binary, that holds PROBE; 0 when none does. */
static int find_beside_exe(char *scripts, size_t len, const char *probe)
{
    char exe[PC_REP_PATH];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return 0;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash) return 0;
    *slash = '\0';
    for (size_t k = 0; k < sizeof scripts_beside_exe / sizeof scripts_beside_exe[0]; k++) {
        char cand[PC_REP_FPATH];
        snprintf(cand, sizeof cand, "%s/%s", exe, scripts_beside_exe[k]);
        if (readable(cand, probe) && strlen(cand) < len) {
            snprintf(scripts, len, "%s", cand);
            return 1;
        }
    }
    return 0;
}

pc_status pc_report_find_scripts(pc_report *r, pc_err *err)
{
    const char *probe = "error_vs_position.gp";
    const char *env = getenv("PECHECK_REPORTS");
    if (env && *env) {
        if (!readable(env, probe))
            return pc_seterr(err, PC_EINPUT, "PECHECK_REPORTS=%s: no %s there", env, probe);
        snprintf(r->scripts, sizeof r->scripts, "%s", env);
        return PC_OK;
    }
    if (find_beside_exe(r->scripts, sizeof r->scripts, probe)) return PC_OK;
    if (readable("reports", probe)) {
        snprintf(r->scripts, sizeof r->scripts, "reports");
        return PC_OK;
    }
    return pc_seterr(err, PC_EINPUT, "cannot find the gnuplot scripts (reports/%s next to the "
                     "binary's folder, share/pecheck/reports/ of its prefix, or the current "
                     "folder); set PECHECK_REPORTS=DIR", probe);
}

/* Run ARGV[0] with ARGV in folder DIR, output appended to LOG (NULL: into
 * a pipe whose first line goes to OUT).  Returns the wait status, or -1. */
static int run_prog(const char *dir, char *const argv[], const char *log, char *out, size_t outlen)
{
    int fd[2] = { -1, -1 };
    if (!log && pipe(fd) != 0) return -1;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        if (!log) { close(fd[0]); close(fd[1]); }
        return -1;
    }
    if (pid == 0) {
        int nul = open("/dev/null", O_RDONLY);
        if (nul >= 0) dup2(nul, 0);
        if (dir && chdir(dir) != 0) _exit(126);
        int o = log ? open(log, O_WRONLY | O_CREAT | O_APPEND, 0644) : fd[1];
        if (o >= 0) { dup2(o, 1); dup2(o, 2); }
        if (!log) close(fd[0]);
        execvp(argv[0], argv);
        _exit(127);
    }
    pc_out_set_child(pid); /* killed before a signal removes the report folder */
    if (!log) {
        close(fd[1]);
        size_t k = 0;
        ssize_t got;
        char drain[256];
        for (;;) { /* read to EOF so the child never blocks on a full pipe */
            int room = k + 1 < outlen;
            got = read(fd[0], room ? out + k : drain, room ? outlen - 1 - k : sizeof drain);
            if (got < 0 && errno == EINTR) continue;
            if (got <= 0) break;
            if (room) k += (size_t)got;
        }
        out[k] = '\0';
        char *nl = strchr(out, '\n');
        if (nl) *nl = '\0';
        close(fd[0]);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) { pc_out_set_child(0); return -1; }
    pc_out_set_child(0);
    return status;
}

static void probe_gnuplot(pc_report *r)
{
    const char *env = getenv("PECHECK_GNUPLOT");
    r->gnuplot = env && *env ? env : "gnuplot";
    char *argv[] = { (char *)r->gnuplot, "--version", NULL };
    char out[128] = "";
    int status = run_prog(NULL, argv, NULL, out, sizeof out);
    if (status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 && out[0]) {
        snprintf(r->gnuplot_version, sizeof r->gnuplot_version, "%s", out);
        return;
    }
    if (status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 127)
        snprintf(r->gnuplot_missing, sizeof r->gnuplot_missing, "gnuplot is not installed "
                 "(cannot run '%s'%s); install it with `%s`", r->gnuplot,
                 env && *env ? ", from PECHECK_GNUPLOT" : "", PC_GNUPLOT_INSTALL);
    else
        snprintf(r->gnuplot_missing, sizeof r->gnuplot_missing, "'%s --version' failed; "
                 "install gnuplot with `%s`", r->gnuplot, PC_GNUPLOT_INSTALL);
}

/* The script of plot ID: SCRIPTS/ID.gp, else SCRIPTS/../families/ * /ID.gp
 * (a family's own plot); SRC gets the path tried last, SHOWN its place in
 * the source tree ("reports/ID.gp", "families/NAME/ID.gp"). */
static void script_path(const pc_report *r, const char *id, char *src, size_t len,
                        char *shown, size_t shown_len)
{
    snprintf(src, len, "%s/%s.gp", r->scripts, id);
    snprintf(shown, shown_len, "reports/%s.gp", id);
    if (access(src, R_OK) == 0) return;
    char pat[PC_REP_FPATH];
    snprintf(pat, sizeof pat, "%s/../families/*/%s.gp", r->scripts, id);
    glob_t g;
    if (glob(pat, 0, NULL, &g) == 0 && g.gl_pathc > 0) {
        snprintf(src, len, "%s", g.gl_pathv[0]);
        snprintf(shown, shown_len, "%s", g.gl_pathv[0] + strlen(r->scripts) + strlen("/../"));
    }
    globfree(&g);
}

/* Copy the plot's NAME.gp into the report with the run's variables first. */
static pc_status copy_script(pc_report *r, pc_rep_plot *p, pc_err *err)
{
    char src[PC_REP_FPATH], name[96], shown[160];
    script_path(r, p->id, src, sizeof src, shown, sizeof shown);
    snprintf(name, sizeof name, "%s.gp", p->id);
    FILE *in = fopen(src, "r");
    if (!in) return pc_seterr(err, PC_EINPUT, "cannot read the gnuplot script %s", src);
    pc_status st;
    FILE *out = pc_report_fopen(r, name, err, &st);
    if (!out) { fclose(in); return st; }
    fprintf(out, "# %s: %s\n# written by %s %s from %s; redraw %s.png with\n"
            "#   gnuplot %s.gp\n# in this folder (the data files are beside it).\n"
            "# ---- parameters of this run ----\n%s# ----\n",
            name, p->title, PC_TOOL, PC_VERSION, shown, p->id, p->id, p->vars);
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        fwrite(buf, 1, n, out);
    int bad = ferror(in);
    fclose(in);
    st = pc_report_fclose(r, out, name, err);
    if (st == PC_OK && bad) st = pc_seterr(err, PC_EIO, "error reading %s", src);
    return st;
}

/* NAME.png is a PNG with a non-empty IHDR (8-byte signature, then the
 * IHDR chunk: length 13, "IHDR", width, height). */
static int png_ok(const pc_report *r, const char *id, char *why, size_t len)
{
    char path[PC_REP_FPATH];
    snprintf(path, sizeof path, "%s/%s.png", r->dir, id);
    FILE *f = fopen(path, "rb");
    unsigned char h[24];
    size_t n = f ? fread(h, 1, sizeof h, f) : 0;
    if (f) fclose(f);
    static const unsigned char sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
    if (!f) { snprintf(why, len, "gnuplot wrote no %s.png (see gnuplot.log)", id); return 0; }
    if (n < 24 || memcmp(h, sig, 8) || memcmp(h + 12, "IHDR", 4)) {
        snprintf(why, len, "%s.png is not a PNG (see gnuplot.log)", id);
        return 0;
    }
    unsigned long w = (unsigned long)h[16] << 24 | (unsigned long)h[17] << 16 | (unsigned long)h[18] << 8 | h[19];
    unsigned long ht = (unsigned long)h[20] << 24 | (unsigned long)h[21] << 16 | (unsigned long)h[22] << 8 | h[23];
    if (w == 0 || ht == 0) { snprintf(why, len, "%s.png is empty", id); return 0; }
    return 1;
}

pc_status pc_report_draw(pc_report *r, pc_err *err)
{
    probe_gnuplot(r);
    char log[PC_REP_FPATH];
    snprintf(log, sizeof log, "%s/gnuplot.log", r->dir);
    int n_missing = 0;
    for (int k = 0; k < PC_REP_PLOTS; k++) {
        pc_rep_plot *p = &r->plots[k];
        if (!p->has_data) {
            snprintf(p->why, sizeof p->why, "no data for this selection");
            continue;
        }
        pc_status st = copy_script(r, p, err);
        if (st != PC_OK) return st;
        if (r->gnuplot_missing[0]) {
            snprintf(p->why, sizeof p->why, "gnuplot missing");
            n_missing++;
            continue;
        }
        FILE *lf = fopen(log, "a");
        if (lf) { fprintf(lf, "== gnuplot %s.gp\n", p->id); fclose(lf); }
        char script[96];
        snprintf(script, sizeof script, "%s.gp", p->id);
        char *argv[] = { (char *)r->gnuplot, script, NULL };
        int status = run_prog(r->dir, argv, log, NULL, 0);
        if (status < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
            snprintf(p->why, sizeof p->why, "gnuplot failed on %s.gp (exit status %d; see gnuplot.log)",
                     p->id, status >= 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        else
            p->drawn = png_ok(r, p->id, p->why, sizeof p->why);
        if (!p->drawn) {
            /* no half-drawn image is left to look like a result */
            char png[PC_REP_FPATH];
            snprintf(png, sizeof png, "%s/%s.png", r->dir, p->id);
            unlink(png);
            n_missing++;
        }
    }
    if (n_missing) {
        fprintf(stderr, "pecheck report: %d plot%s not drawn:", n_missing, n_missing > 1 ? "s" : "");
        for (int k = 0; k < PC_REP_PLOTS; k++)
            if (r->plots[k].has_data && !r->plots[k].drawn) fprintf(stderr, " %s.png", r->plots[k].id);
        fputc('\n', stderr);
        if (r->gnuplot_missing[0])
            fprintf(stderr, "pecheck report: %s; the data, scripts and index.html are written: "
                    "draw them later with `cd %s && for f in *.gp; do gnuplot $f; done`\n",
                    r->gnuplot_missing, r->final_dir);
        else
            fprintf(stderr, "pecheck report: see %s/gnuplot.log\n", r->final_dir);
    }
    return PC_OK;
}
