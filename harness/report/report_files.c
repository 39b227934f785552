/* report_files.c: what every part of the report's data shares: its
 * files (opened in the report's folder, closed with their errors named),
 * the data files a plot lists, the implementations' column names and
 * numbers, and which implementations a plot draws. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "report.h"
#include "families/family.h"

FILE *pc_report_fopen(const pc_report *r, const char *name, pc_err *err, pc_status *st)
{
    char path[PC_REP_FPATH];
    snprintf(path, sizeof path, "%s/%s", r->dir, name);
    FILE *f = fopen(path, "w");
    if (!f) *st = pc_seterr(err, PC_EIO, "cannot write %s/%s", r->final_dir, name);
    else *st = PC_OK;
    return f;
}

pc_status pc_report_fclose(const pc_report *r, FILE *f, const char *name, pc_err *err)
{
    errno = 0;
    int bad = fflush(f) != 0 || ferror(f);
    if (fclose(f) != 0 || bad)
        return pc_seterr(err, PC_EWRITE, "error writing %s/%s: %s", r->final_dir, name,
                         errno ? strerror(errno) : "I/O error");
    return PC_OK;
}

void pc_report_add_data(pc_rep_plot *plot, const char *name, long rows)
{
    if (plot->n_data >= PC_REP_FILES) return;
    pc_rep_data *d = &plot->data[plot->n_data++];
    snprintf(d->name, sizeof d->name, "%s", name);
    d->rows = rows;
    plot->has_data = 1;
}

void pc_report_colname(const pc_impl *impl, const char *family, char *buf, size_t len)
{
    /* plugin and table names are paths: keep the file name only.  The name
     * goes into data-file headers (one whitespace-separated word) and into
     * gnuplot strings, where a newline ends the command (the next line
     * would run, `!cmd` included), a backquote runs a shell command, and a
     * backslash or quote ends the string: only [A-Za-z0-9._+-] is kept,
     * any other byte becomes '_'.  The HTML page shows the full name. */
    const char *s = impl->name, *slash = strrchr(s, '/');
    if (slash && slash[1]) s = slash + 1;
    size_t k = 0;
    for (; *s && k + 1 < len; s++) {
        char c = *s;
        int keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                   || c == '.' || c == '_' || c == '+' || c == '-';
        buf[k++] = keep ? c : '_';
    }
    buf[k] = '\0';
    if (k == 0) snprintf(buf, len, "impl");
    if (family && k + 1 < len) snprintf(buf + k, len - k, ":%s", family);
}

/* A number for a data file: "NaN" where there is no value. */
void pc_report_put_num(FILE *f, double v)
{
    if (isnan(v)) fputs(" NaN", f);
    else fprintf(f, " %.9g", v);
}

void pc_report_header_impls(FILE *f, const pc_report *r, const int *sel, int n_sel, const char *prefix)
{
    char name[96];
    for (int k = 0; k < n_sel; k++) {
        const pc_rep_impl *ri = &r->impls[sel[k]];
        pc_report_colname(ri->impl, ri->multi ? ri->family : NULL, name, sizeof name);
        fprintf(f, " %s%s", prefix, name);
    }
}

/* Whether plot ID draws RI's family (pc_family.plots). */
int pc_report_draws(const pc_rep_impl *ri, const char *id)
{
    const pc_family *f = pc_family_find(ri->family);
    for (const char *const *p = f ? f->plots : NULL; p && *p; p++)
        if (!strcmp(*p, id)) return 1;
    return 0;
}

/* The positions an implementation serves (impl.h: 0, 0 = unlimited). */
int pc_report_in_range(const pc_impl *impl, int64_t pos)
{
    return !impl->pos_bounded || (pos >= impl->pos_min && pos <= impl->pos_max);
}

