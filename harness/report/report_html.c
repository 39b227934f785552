/* report_html.c: index.html and summary.json of `pecheck report`.
 *
 * index.html is self-contained: inline CSS, images referenced by relative
 * names, no network.  A few lines of JavaScript record, once the page has
 * loaded, whether every plot image decoded (data-loaded on each <img>, and
 * counts on #pc-images) so a headless browser can check the page. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "harness/io/json.h"
#include "report.h"
#include "harness/base/version.h"
#include "harness/sources/table.h"
#include "harness/engine/acc_verdict.h"

/* Whether IMPL is one of pecheck's built-ins (its documentation says what
 * it is); a plugin or a table is the user's own. */
static int builtin(const pc_impl *impl)
{
    return pc_builtin_find(impl->name) == impl;
}

/* What the documentation says of IMPL: a built-in's "correct" or "known
 * bad"; a user's source is marked as such (pecheck documents nothing of it). */
static const char *documented(const pc_impl *impl)
{
    if (!builtin(impl)) return pc_table_info_of(impl) ? "your table" : "your plugin";
    return impl->expect_pass ? "correct" : impl->flaw ? "known bad" : "";
}

/* Text and attribute values: the five HTML specials escaped, control
 * characters but tab and newline, and bytes that are not well-formed UTF-8
 * (a file name's raw bytes), as U+FFFD (the page is UTF-8). */
void pc_html_escape(FILE *f, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; p && *p;) {
        int n = 1;
        switch (*p) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default:
            if ((*p < 0x20 && *p != '\n' && *p != '\t') || *p == 0x7f) fputs("&#xfffd;", f);
            else if ((n = pc_utf8_len(p)) == 0) { fputs("&#xfffd;", f); n = 1; }
            else fwrite(p, 1, (size_t)n, f);
        }
        p += n;
    }
}

static const char *vname(pc_status s)
{
    return s == PC_OK ? "PASS" : s == PC_FAIL ? "FAIL" : s == PC_SKIP ? "SKIP" : "ERROR";
}

static const char *vclass(pc_status s)
{
    return s == PC_OK ? "pass" : s == PC_FAIL ? "fail" : s == PC_SKIP ? "skip" : "error";
}

static const char *layout_name(int layout)
{
    return layout == 0 ? "interleaved" : layout == 1 ? "half" : "";
}

/* The property checks reported by the implementations of FAMILY (every
 * family when NULL), in first-seen order. */
#define MAX_CHECKS 48
static int collect_checks(const pc_report *r, const char *family, const char **names)
{
    int n = 0;
    for (int k = 0; k < r->n_impls; k++) {
        if (family && strcmp(r->impls[k].family, family)) continue;
        for (int v = 0; v < r->impls[k].props.n; v++) {
            const char *c = r->impls[k].props.v[v].check;
            int seen = 0;
            for (int j = 0; j < n && !seen; j++) seen = !strcmp(names[j], c);
            if (!seen && n < MAX_CHECKS) names[n++] = c;
        }
    }
    return n;
}

/* The implementation's overall verdict for its family: any error, else any
 * failure (gate or property), else a pass when something passed, else skip. */
static pc_status overall(const pc_rep_impl *ri)
{
    int pass = 0, fail = 0, error = ri->prop_error[0] != '\0';
    if (ri->has_acc) { /* the gate, its fitted model, the other layout's gate */
        pc_status g[3] = { ri->acc.status, ri->fit.status, ri->has_acc2 ? ri->acc2.status : PC_SKIP };
        for (int k = 0; k < 3; k++) { pass += g[k] == PC_OK; fail += g[k] == PC_FAIL; }
    }
    for (int v = 0; v < ri->props.n; v++) {
        pc_status st = ri->props.v[v].status;
        pass += st == PC_OK;
        fail += st == PC_FAIL;
        error += st != PC_OK && st != PC_FAIL && st != PC_SKIP;
    }
    return error ? PC_EINTERNAL : fail ? PC_FAIL : pass ? PC_OK : PC_SKIP;
}

static const pc_verdict *find_verdict(const pc_rep_impl *ri, const char *check)
{
    for (int v = 0; v < ri->props.n; v++)
        if (!strcmp(ri->props.v[v].check, check)) return &ri->props.v[v];
    return NULL;
}

static const pc_witness *shown_witness(const pc_rep_impl *ri)
{
    return ri->acc.status == PC_FAIL ? &ri->acc.m.worst : &ri->acc.m.worst_abs;
}

static const char *css =
    "body{font-family:'DejaVu Sans',Helvetica,Arial,sans-serif;max-width:1280px;margin:1.5em auto;"
    "padding:0 1em;color:#222;line-height:1.4}\n"
    "h1{font-size:1.6em}h2{font-size:1.25em;margin-top:2em;border-bottom:1px solid #ccc}\n"
    "table{border-collapse:collapse;font-size:.85em}td,th{border:1px solid #ccc;padding:.25em .4em;"
    "vertical-align:top}th{background:#f3f3f3}\n"
    "td.pass{background:#dff0d8;color:#1d5e1d;font-weight:bold}td.fail{background:#f8d7da;"
    "color:#8a1c25;font-weight:bold}td.skip,td.na{background:#f3f3f3;color:#777}"
    "td.error{background:#fff3cd}\n"
    "code,pre,.mono{font-family:'DejaVu Sans Mono',monospace;font-size:.9em}\n"
    "pre{background:#f7f7f7;padding:.5em;overflow-x:auto}\n"
    "img.plot{max-width:100%;border:1px solid #ddd}\n"
    ".scroll{overflow-x:auto}td.mono{white-space:nowrap}\n"
    ".missing{border:2px dashed #c33;padding:1em;background:#fff5f5}\n"
    ".caption{margin:.5em 0}.note{color:#444;font-style:italic}.files{font-size:.85em;color:#555}\n"
    ".warn{border:2px solid #c33;background:#fff5f5;padding:.5em 1em}\n"
    /* a phone (390 px): each summary row a card of labelled cells, nothing
     * cut or hidden beyond a scroll */
    "@media (max-width:640px){body{margin:.5em auto;padding:0 .5em}"
    "table.summary,table.summary tbody,table.summary tr,table.summary td{display:block}"
    "table.summary tr:first-child{display:none}"
    "table.summary tr{border:1px solid #bbb;margin:.6em 0}"
    "table.summary td{border:none;border-bottom:1px solid #eee;white-space:normal;"
    "overflow-wrap:anywhere}"
    "table.summary td::before{content:attr(data-label) \": \";font-weight:bold;color:#555}"
    "pre{white-space:pre-wrap;overflow-wrap:anywhere}h1{font-size:1.3em}}\n";

static const char *js =
    "window.addEventListener('load', function () {\n"
    "  var imgs = document.querySelectorAll('img.plot'), ok = 0, bad = 0;\n"
    "  for (var i = 0; i < imgs.length; i++) {\n"
    "    var good = imgs[i].complete && imgs[i].naturalWidth > 0;\n"
    "    imgs[i].setAttribute('data-loaded', good ? 'yes' : 'no');\n"
    "    if (good) ok++; else bad++;\n"
    "  }\n"
    "  var s = document.getElementById('pc-images');\n"
    "  s.setAttribute('data-total', imgs.length);\n"
    "  s.setAttribute('data-loaded', ok);\n"
    "  s.setAttribute('data-broken', bad);\n"
    "  s.textContent = ok + ' of ' + imgs.length + ' plot images loaded' +\n"
    "    (bad ? ', ' + bad + ' broken' : '') + '.';\n"
    "});\n";

/* The witness in a table cell: position, dimension and the values in
 * decimal; the exact hex values in the cell's title (and in the details). */
static void witness_html(FILE *f, const pc_witness *w)
{
    if (!w->valid) return;
    fprintf(f, "<span title=\"got=%a ref=%a\">pos=%lld dim=%d<br>got %.6g<br>ref %.6g</span>",
            (double)w->got, w->ref, (long long)w->pos, w->dim, (double)w->got, w->ref);
}

/* Does any implementation of FAMILY have an accuracy gate? */
static int family_has_acc(const pc_report *r, const char *family)
{
    for (int k = 0; k < r->n_impls; k++)
        if (!strcmp(r->impls[k].family, family) && r->impls[k].has_acc) return 1;
    return 0;
}

/* An opening <td> labelled LABEL (the narrow layout shows the label). */
static void td_open(FILE *f, const char *cls, const char *label)
{
    fputs("<td", f);
    if (cls) fprintf(f, " class=\"%s\"", cls);
    fputs(" data-label=\"", f);
    pc_html_escape(f, label);
    fputs("\">", f);
}

static void verdict_cell(FILE *f, pc_status st, const char *label, const char *title)
{
    fprintf(f, "<td class=\"%s\" title=\"", vclass(st));
    pc_html_escape(f, title);
    fputs("\" data-label=\"", f);
    pc_html_escape(f, label);
    fprintf(f, "\">%s</td>", vname(st));
}

static void summary_head(FILE *f, const char *family, int acc, const char *const *checks, int nc)
{
    fputs("<div class=\"scroll\"><table class=\"summary\" data-family=\"", f);
    pc_html_escape(f, family);
    fputs("\">\n<tr><th>implementation</th><th>verdict</th><th>documented</th><th>layout</th>", f);
    if (acc) /* err/bound decides (an ulp count near a zero of sin says nothing) */
        fputs("<th>accuracy</th><th>max |err|/bound</th><th>witness</th>"
              "<th>fitted model</th><th>other layout</th>", f);
    for (int c = 0; c < nc; c++) {
        fputs("<th>", f);
        pc_html_escape(f, checks[c]);
        fputs("</th>", f);
    }
    fputs("</tr>\n", f);
}

static void summary_acc_cells(FILE *f, const pc_rep_impl *ri)
{
    if (!ri->has_acc) {
        fputs("<td class=\"na\" colspan=\"5\" data-label=\"accuracy\">no accuracy gate</td>", f);
        return;
    }
    verdict_cell(f, ri->acc.status, "accuracy",
                 ri->acc.note[0] ? ri->acc.note : "accuracy gate, precision model bound");
    if (ri->acc.status == PC_SKIP) {
        fputs("<td class=\"na\" data-label=\"max |err|/bound\">&ndash;</td><td class=\"na\" "
              "data-label=\"witness\">&ndash;</td><td class=\"na\" data-label=\"fitted model\">"
              "&ndash;</td><td class=\"na\" data-label=\"other layout\">&ndash;</td>", f);
        return;
    }
    /* the largest |err| itself is in the details and summary.json */
    td_open(f, NULL, "max |err|/bound");
    fprintf(f, "%.3g</td>", ri->acc.m.max_ratio);
    td_open(f, "mono", "witness");
    witness_html(f, shown_witness(ri));
    fputs("</td>", f);
    verdict_cell(f, ri->fit.status, "fitted model", ri->fit.summary);
    if (!ri->has_acc2) {
        fputs("<td class=\"na\" data-label=\"other layout\" title=\"the source holds one layout\">"
              "one only</td>", f);
        return;
    }
    char t[160];
    snprintf(t, sizeof t, "%s layout: max |err|/bound %.3g", layout_name(ri->layout2),
             ri->acc2.m.max_ratio);
    fprintf(f, "<td class=\"%s\" data-label=\"other layout\" title=\"", vclass(ri->acc2.status));
    pc_html_escape(f, t);
    fprintf(f, "\">%s</td>", vname(ri->acc2.status));
}

static void summary_row(FILE *f, const pc_rep_impl *ri, int acc, const char *const *checks, int nc)
{
    pc_status all = overall(ri);
    fputs("<tr>", f);
    td_open(f, "mono", "implementation");
    pc_html_escape(f, ri->impl->name);
    fprintf(f, "</td><td class=\"%s verdict\" data-verdict=\"%s\" data-label=\"verdict\">%s</td>"
            "<td data-label=\"documented\">%s</td><td data-label=\"layout\">%s</td>",
            vclass(all), vclass(all), vname(all), documented(ri->impl), layout_name(ri->layout));
    if (acc) summary_acc_cells(f, ri);
    for (int c = 0; c < nc; c++) {
        const pc_verdict *v = find_verdict(ri, checks[c]);
        if (v) verdict_cell(f, v->status, checks[c], v->summary);
        else {
            td_open(f, "na", checks[c]);
            fputs("&ndash;</td>", f);
        }
    }
    fputs("</tr>\n", f);
}

/* One table per family (in the order the families first appear), its
 * implementations failing first, with their overall verdict; only the
 * columns that family has. */
static void summary_table(FILE *f, const pc_report *r)
{
    for (int k = 0; k < r->n_impls; k++) {
        const char *family = r->impls[k].family;
        int first = 1;
        for (int j = 0; j < k && first; j++) first = strcmp(r->impls[j].family, family) != 0;
        if (!first) continue;
        const char *checks[MAX_CHECKS];
        int nc = collect_checks(r, family, checks), acc = family_has_acc(r, family);
        fputs("<h3>", f);
        pc_html_escape(f, family);
        fputs("</h3>\n", f);
        summary_head(f, family, acc, checks, nc);
        for (int failing = 1; failing >= 0; failing--) /* failures (and errors) first */
            for (int j = k; j < r->n_impls; j++) {
                const pc_rep_impl *ri = &r->impls[j];
                pc_status all = overall(ri);
                if (!strcmp(ri->family, family) && (all == PC_FAIL || all < 0) == failing)
                    summary_row(f, ri, acc, checks, nc);
            }
        fputs("</table></div>\n", f);
    }
    const char *any[MAX_CHECKS];
    if (collect_checks(r, NULL, any) == 0)
        fputs("<p class=\"note\">The property engine returned no verdicts for these "
              "implementations (only the accuracy gate is shown).</p>\n", f);
}

/* The gate's text explanation and each property's details, per implementation. */
static void details(FILE *f, const pc_report *r)
{
    for (int k = 0; k < r->n_impls; k++) {
        const pc_rep_impl *ri = &r->impls[k];
        int any = ri->has_acc || ri->props.n || ri->prop_error[0];
        if (!any) continue;
        fputs("<details><summary class=\"mono\">", f);
        pc_html_escape(f, ri->impl->name);
        fputs("</summary>\n", f);
        if (ri->impl->flaw) {
            fputs("<p>Known flaw: ", f);
            pc_html_escape(f, ri->impl->flaw);
            fputs("</p>\n", f);
        }
        if (ri->has_acc) {
            char *buf = NULL;
            size_t len = 0;
            FILE *m = open_memstream(&buf, &len);
            if (m) {
                pc_accuracy_print_text(m, ri->impl, &ri->cfg, &ri->acc);
                fclose(m);
                fputs("<pre>", f);
                pc_html_escape(f, buf);
                fputs("</pre>\n", f);
            }
            free(buf);
        }
        if (ri->prop_error[0]) {
            fputs("<p class=\"warn\">The property engine failed: ", f);
            pc_html_escape(f, ri->prop_error);
            fputs("</p>\n", f);
        }
        for (int v = 0; v < ri->props.n; v++) {
            const pc_verdict *vd = &ri->props.v[v];
            fprintf(f, "<p><b>%s</b> ", vname(vd->status));
            pc_html_escape(f, vd->check);
            fputs(": ", f);
            pc_html_escape(f, vd->summary);
            fprintf(f, " (seed %llu)</p>\n", (unsigned long long)vd->seed);
            if (vd->details) {
                fputs("<pre>", f);
                pc_html_escape(f, vd->details);
                fputs("</pre>\n", f);
            }
        }
        fputs("</details>\n", f);
    }
}

/* Plot K's section, numbered N among the shown ones. */
/* The Parameters table's rows of the gates: what each implementation's
 * rows were checked against (schedule, base and where it came from) and
 * the positions its gate covered (a table's: its rows), each distinct
 * text once; the report's own options where no gate ran. */
static void gate_rows(FILE *f, const pc_report *r)
{
    /* a schedule's note and the strict class run past 400 characters */
    char text[2400], last[2400] = "";
    int shown = 0;
    /* the tolerance class the verdicts were held to (--strict: each
     * family's own, named again in "checked against") */
    if (r->o.formulation)
        fprintf(f, "<tr><th>tolerance class</th><td>strict class %s (--formulation %s), as "
                "pecheck check --formulation %s holds it (pecheck help check); what it holds "
                "under checked against</td></tr>\n", pc_model_class_name(r->o.formulation),
                pc_model_class_name(r->o.formulation), pc_model_class_name(r->o.formulation));
    else
        fprintf(f, "<tr><th>tolerance class</th><td>%s</td></tr>\n", r->o.strict
                ? "strict (--strict): each family's strict class, as pecheck check --strict holds "
                  "it (pecheck help check); each implementation's class and what it holds under "
                  "checked against"
                : "default: every mainstream binary32 formulation (--strict: one formulation's)");
    for (int k = 0; k < r->n_impls; k++) {
        const pc_rep_impl *ri = &r->impls[k];
        if (!ri->has_acc) continue;
        pc_acc_against(&ri->cfg, text, sizeof text);
        if (!strcmp(text, last)) continue;
        fputs("<tr><th>checked against</th><td>", f);
        if (r->n_impls > 1) { pc_html_escape(f, ri->impl->name); fputs(": ", f); }
        pc_html_escape(f, text);
        fputs("</td></tr>\n", f);
        snprintf(last, sizeof last, "%s", text);
        shown = 1;
    }
    if (!shown) fprintf(f, "<tr><th>base</th><td>%.17g</td></tr>\n", r->base);
    const char *own = pc_report_rows_note(r, NULL);
    if (!shown && own) { /* rows the family's own gate judged: no positions */
        fputs("<tr><th>accuracy gate rows</th><td>every row of the table, every dimension: ", f);
        pc_html_escape(f, own);
        fputs(" (the formula checked: the accuracy verdict's details)</td></tr>\n", f);
        return;
    }
    long long lo = r->o.pos_lo, hi = r->o.pos_hi;
    for (int k = 0, first = 1; k < r->n_impls; k++) {
        const pc_rep_impl *ri = &r->impls[k];
        if (!ri->has_acc) continue;
        if (first || ri->cfg.pos_lo < lo) lo = ri->cfg.pos_lo;
        if (first || ri->cfg.pos_hi > hi) hi = ri->cfg.pos_hi;
        first = 0;
    }
    fprintf(f, "<tr><th>accuracy gate positions</th><td>%lld..%lld (every position, every "
            "dimension)</td></tr>\n", lo, hi);
}

static void plot_section(FILE *f, const pc_report *r, int k, int n)
{
    const pc_rep_plot *p = &r->plots[k];
    fprintf(f, "<section id=\"%s\">\n<h2>%d. ", p->id, n);
    pc_html_escape(f, p->title);
    fputs("</h2>\n", f);
    if (p->drawn) {
        fprintf(f, "<img class=\"plot\" src=\"%s.png\" alt=\"", p->id);
        pc_html_escape(f, p->title);
        fputs("\">\n", f);
    } else if (p->has_data) {
        fprintf(f, "<div class=\"missing\">Plot not drawn: ");
        pc_html_escape(f, p->why);
        if (r->gnuplot_missing[0])
            fprintf(f, ". Install gnuplot (<code>apt-get install gnuplot-nox</code>) and run "
                    "<code>gnuplot %s.gp</code> in this folder, or rerun <code>pecheck report</code>.", p->id);
        fputs("</div>\n", f);
    } else {
        fputs("<div class=\"missing\">Nothing to draw: ", f);
        pc_html_escape(f, p->note[0] ? p->note : p->why);
        fputs("</div>\n", f);
    }
    fprintf(f, "<p class=\"caption\">%s</p>\n", p->caption);
    if (p->note[0] && p->has_data) {
        fputs("<p class=\"note\">", f);
        pc_html_escape(f, p->note);
        fputs("</p>\n", f);
    }
    if (p->has_data) {
        fputs("<p class=\"files\">Data: ", f);
        for (int d = 0; d < p->n_data; d++)
            fprintf(f, "%s<a href=\"%s\">%s</a> (%ld rows)", d ? ", " : "", p->data[d].name,
                    p->data[d].name, p->data[d].rows);
        fprintf(f, "; script: <a href=\"%s.gp\">%s.gp</a></p>\n", p->id, p->id);
    }
    fputs("</section>\n", f);
}

pc_status pc_report_write_html(pc_report *r, pc_err *err)
{
    pc_status st;
    FILE *f = pc_report_fopen(r, "index.html", err, &st);
    if (!f) return st;
    const pc_opts *o = &r->o;
    int drawn = 0;
    for (int k = 0; k < PC_REP_PLOTS; k++) drawn += r->plots[k].wanted && r->plots[k].drawn;
    fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            "<title>pecheck accuracy report</title>\n<style>\n%s</style>\n<script>\n%s</script>\n"
            "</head>\n<body>\n<h1>pecheck accuracy report</h1>\n", css, js);
    fprintf(f, "<p>%s %s: %d implementation%s compared with the certified MPFR references. "
            "Files: <a href=\"summary.json\">summary.json</a>", PC_TOOL, PC_VERSION, r->n_impls,
            r->n_impls == 1 ? "" : "s");
    if (r->has_proof) fputs(", <a href=\"proof-report.txt\">proof report</a> (Frama-C/WP)", f);
    fputs(".</p>\n", f);
    if (r->gnuplot_missing[0]) {
        fputs("<p class=\"warn\">No plots were drawn: ", f);
        pc_html_escape(f, r->gnuplot_missing);
        fputs(". The data files and gnuplot scripts are in this folder; after installing gnuplot "
              "run <code>for f in *.gp; do gnuplot $f; done</code> here, or rerun "
              "<code>pecheck report</code>.</p>\n", f);
    }
    fputs("<h2>Summary</h2>\n", f);
    fputs("<p class=\"files\">One table per family, failing implementations first; the verdict "
          "column is the implementation's overall verdict (FAIL when its gate or any property "
          "fails).  Hover a verdict for its one-line summary.  Witnesses are shown in decimal "
          "(hover for the exact hex values, also in the details below); for a failed gate the "
          "witness is the element with the largest error/bound, otherwise the one with the "
          "largest absolute error.</p>\n", f);
    summary_table(f, r);
    details(f, r);
    fputs("<h2>Parameters</h2>\n<table>\n", f);
    fprintf(f, "<tr><th>d</th><td>%d</td></tr>\n", r->d);
    gate_rows(f, r);
    if (r->plots[0].has_data)
        fprintf(f, "<tr><th>error scan (plots 1&ndash;3)</th><td>log-spaced positions "
                "1..%lld</td></tr>\n", (long long)r->scan_max);
    else if (r->plots[0].wanted) {
        fputs("<tr><th>error scan (plots 1&ndash;3)</th><td>not drawn: ", f);
        pc_html_escape(f, r->plots[0].note);
        fputs("</td></tr>\n", f);
    }
    fprintf(f, "<tr><th>seed</th><td>%llu (RoPE inputs, permutations, q/k vectors; rerun with "
            "<code>--seed %llu</code>)</td></tr>\n", (unsigned long long)o->seed,
            (unsigned long long)o->seed);
    fputs("<tr><th>working precision</th><td>f32 (binary32)</td></tr>\n", f);
    fputs("<tr><th>gnuplot</th><td>", f);
    pc_html_escape(f, r->gnuplot_version[0] ? r->gnuplot_version : "not found");
    fputs(", terminal pngcairo</td></tr>\n", f);
    fprintf(f, "<tr><th>time</th><td>%.1f s (data %.1f s, plots %.1f s)</td></tr>\n</table>\n",
            r->seconds_total, r->seconds_data, r->seconds_plots);
    fputs("<h2>Precision model</h2>\n<p>", f);
    pc_html_escape(f, r->model);
    fprintf(f, "</p>\n<p>The verdict (upper panels): per element |got &minus; exact| &le; "
            "s&middot;(R&middot;u + &kappa;<sub>i</sub>&middot;u&middot;|&theta;|), a radial part "
            "(sin/cos and the rotation) and a phase part (the frequency's error and the angle's "
            "rounding, 0 for pair 0), &theta; = pos&middot;&omega;<sub>i</sub> the exact angle of "
            "the element's pair, u = 2<sup>&minus;24</sup> = %.3g, s = 1 for sinusoidal PE and the "
            "pair's norm for RoPE.  The lower panel's line: C&middot;u&middot;(1 + pos), "
            "C = %s = %.4g.  The derivation is in docs/precision-model.md%s of the "
            "pecheck sources.</p>\n", r->u, r->strict ? "the gates' largest A&middot;&kappa;"
            "<sub>i</sub>, in the strict class they were held to (--strict)" : r->C_sched
            ? "the gates' largest A&middot;&kappa;"
            "<sub>i</sub>, from the schedules they were checked against" : "2&nbsp;ln(base) + 4",
            r->C, r->C_sched ? " and docs/schedules.md" : "");
    for (int k = 0, n = 0; k < PC_REP_PLOTS; k++) /* only the selection's families' */
        if (r->plots[k].wanted) plot_section(f, r, k, ++n);
    fprintf(f, "<hr>\n<p id=\"pc-images\" data-expected=\"%d\">%d plot image%s (image check needs "
            "JavaScript).</p>\n</body>\n</html>\n", drawn, drawn, drawn == 1 ? "" : "s");
    return pc_report_fclose(r, f, "index.html", err);
}

/* RI's accuracy gate, its fitted model, the other layout's gate and the
 * scan's maxima, as members of the open object J. */
static void gate_json(pc_json *j, const pc_rep_impl *ri)
{
    pc_json_obj(j, "accuracy");
    pc_accuracy_json_fields(j, ri->impl, &ri->cfg, &ri->acc);
    pc_json_end(j);
    pc_json_obj(j, "fitted_model");
    pc_json_str(j, "status", vclass(ri->fit.status));
    pc_json_str(j, "summary", ri->fit.summary);
    pc_json_end(j);
    if (ri->has_acc2) {
        pc_json_obj(j, "other_layout");
        pc_accuracy_json_fields(j, ri->impl, &ri->cfg2, &ri->acc2);
        pc_json_end(j);
    } else {
        pc_json_str(j, "other_layout", NULL);
    }
    pc_json_obj(j, "scan");
    pc_json_num(j, "max_abs", ri->scan_max_abs);
    pc_json_num(j, "max_err_over_bound", ri->scan_max_ratio);
    if (ri->scan_first_over >= 0) pc_json_int(j, "first_over", ri->scan_first_over);
    else pc_json_str(j, "first_over", NULL);
    pc_json_end(j);
}

/* The run's parameters, precision model and gnuplot, members of J. */
static void run_json(pc_json *j, const pc_report *r)
{
    const pc_opts *o = &r->o;
    pc_json_obj(j, "parameters");
    pc_json_int(j, "d", r->d);
    pc_json_num(j, "base", r->base);
    pc_json_int(j, "pos_lo", o->pos_lo);
    pc_json_int(j, "pos_hi", o->pos_hi);
    pc_json_int(j, "scan_max", r->scan_max);
    pc_json_int(j, "seed", (long long)o->seed);
    pc_json_str(j, "dtype", "f32");
    pc_json_end(j);
    pc_json_obj(j, "model");
    pc_json_num(j, "C", r->C);
    pc_json_str(j, "C_from", r->o.formulation ? "the gates' strict class (--formulation)"
                : r->strict ? "the gates' strict classes (--strict)" : r->C_sched
                ? "the gates' schedules" : "2 ln(base) + 4");
    pc_json_str(j, "class", r->o.formulation ? pc_model_class_name(r->o.formulation)
                : r->o.strict ? "strict" : "default");
    pc_json_num(j, "u", r->u);
    pc_json_str(j, "description", r->model);
    pc_json_end(j);
    pc_json_obj(j, "gnuplot");
    pc_json_str(j, "program", r->gnuplot);
    pc_json_bool(j, "found", r->gnuplot_missing[0] == '\0');
    pc_json_str(j, "version", r->gnuplot_version[0] ? r->gnuplot_version : NULL);
    pc_json_str(j, "missing", r->gnuplot_missing[0] ? r->gnuplot_missing : NULL);
    pc_json_str(j, "terminal", "pngcairo");
    pc_json_end(j);
}

/* One implementation entry RI, an object of the array J is in. */
static void impl_json(pc_json *j, const pc_rep_impl *ri)
{
    pc_json_obj(j, NULL);
    pc_json_str(j, "name", ri->impl->name);
    pc_json_str(j, "family", ri->family);
    pc_json_str(j, "layout", ri->layout >= 0 ? layout_name(ri->layout) : NULL);
    pc_json_bool(j, "documented_correct", builtin(ri->impl) && ri->impl->expect_pass);
    pc_json_bool(j, "user_source", !builtin(ri->impl));
    pc_json_str(j, "verdict", vclass(overall(ri)));
    if (ri->has_acc) gate_json(j, ri);
    pc_json_arr(j, "properties");
    for (int v = 0; v < ri->props.n; v++) {
        const pc_verdict *vd = &ri->props.v[v];
        pc_json_obj(j, NULL);
        pc_json_str(j, "check", vd->check);
        pc_json_str(j, "status", vd->status == PC_OK ? "pass" : vd->status == PC_FAIL ? "fail"
                                 : vd->status == PC_SKIP ? "skip" : "error");
        pc_json_num(j, "measured", vd->measured);
        pc_json_num(j, "bound", vd->bound);
        pc_json_str(j, "measured_what", vd->measured_what);
        pc_json_int(j, "seed", (long long)vd->seed);
        pc_json_str(j, "summary", vd->summary);
        pc_json_end(j);
    }
    pc_json_end(j);
    if (ri->prop_error[0]) pc_json_str(j, "property_error", ri->prop_error);
    pc_json_end(j);
}

/* One plot P the page shows, an object of the array J is in. */
static void plot_json(pc_json *j, const pc_rep_plot *p)
{
    char name[96];
    pc_json_obj(j, NULL);
    pc_json_str(j, "id", p->id);
    pc_json_str(j, "title", p->title);
    snprintf(name, sizeof name, "%s.png", p->id);
    pc_json_str(j, "image", p->drawn ? name : NULL);
    pc_json_bool(j, "drawn", p->drawn);
    pc_json_str(j, "why_not_drawn", p->drawn ? NULL : p->why);
    snprintf(name, sizeof name, "%s.gp", p->id);
    pc_json_str(j, "script", p->has_data ? name : NULL);
    pc_json_str(j, "note", p->note[0] ? p->note : NULL);
    pc_json_arr(j, "data");
    for (int d = 0; d < p->n_data; d++) {
        pc_json_obj(j, NULL);
        pc_json_str(j, "file", p->data[d].name);
        pc_json_int(j, "rows", p->data[d].rows);
        pc_json_end(j);
    }
    pc_json_end(j);
    pc_json_end(j);
}

pc_status pc_report_write_json(pc_report *r, pc_err *err)
{
    pc_status st;
    FILE *f = pc_report_fopen(r, "summary.json", err, &st);
    if (!f) return st;
    pc_json j;
    pc_json_init(&j, f);
    pc_json_obj(&j, NULL);
    pc_json_str(&j, "tool", PC_TOOL);
    pc_json_str(&j, "version", PC_VERSION);
    pc_json_str(&j, "command", "report");
    run_json(&j, r);
    pc_json_arr(&j, "implementations");
    for (int k = 0; k < r->n_impls; k++) impl_json(&j, &r->impls[k]);
    pc_json_end(&j);
    pc_json_arr(&j, "plots"); /* the ones the page shows: the selection's families' */
    for (int k = 0; k < PC_REP_PLOTS; k++)
        if (r->plots[k].wanted) plot_json(&j, &r->plots[k]);
    pc_json_end(&j);
    pc_json_obj(&j, "seconds");
    pc_json_num(&j, "data", r->seconds_data);
    pc_json_num(&j, "plots", r->seconds_plots);
    pc_json_num(&j, "total", r->seconds_total);
    pc_json_end(&j);
    pc_json_bool(&j, "proof_report", r->has_proof);
    pc_json_end(&j);
    fputc('\n', f);
    return pc_report_fclose(r, f, "summary.json", err);
}
