/* likely.c: the likely cause of a failed RoPE accuracy gate
 * (pc_rope_likely_cause, fit.h), ranked among the candidates (rank.h):
 * the schedule's account (the source's fitted rotations against the
 * schedule the gate used, pc_rope_fit_cause, and, when they do not match
 * it, the schedule identify finds, identify.h, and how it differs) beside
 * the hypotheses of rank.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "axes_match.h"
#include "fit.h"
#include "identify.h"
#include "scaling.h"
#include "rank.h"
#include "harness/engine/accuracy.h"
#include "harness/sources/table.h"
#include "harness/engine/model.h"
#include "reference/reference.h"

/* A scaled schedule computed with another base: the schedule of P with
 * the base of common models (or the geometric estimate EST) that explains
 * 90% of the resolved pairs; 0 when none does. */
static double other_base(const pc_rope_fit *f, const pc_rope_params *p, double est)
{
    const double cand[] = { 10000.0, 500000.0, 1000000.0, 100000.0, 5000000.0, est };
    double *w = malloc((size_t)f->h * sizeof *w);
    double found = 0;
    for (size_t k = 0; w && found == 0 && k < sizeof cand / sizeof cand[0]; k++) {
        if (!(cand[k] > 1.0) || !isfinite(cand[k]) || cand[k] == p->base) continue;
        pc_rope_params q = *p;
        q.base = cand[k];
        q.model_c = NULL;
        pc_err e;
        if (pc_rope_prepare(&q, &e) == PC_OK) {
            pc_schedule s = pc_rope_schedule(&q);
            pc_freqs *fr = pc_freqs_new(p->dim, s);
            if (fr) {
                for (int i = 0; i < f->h; i++) w[i] = pc_freqs_omega(fr, i);
                if (pc_rope_fit_explained(f, w) >= 0.9) found = cand[k];
                pc_freqs_free(fr);
            }
        }
        free(q.model_c);
    }
    free(w);
    return found;
}

/* The identified schedule's frequencies and attention factor (d/2 + 1
 * values, malloc'd), or NULL. */
static double *ident_freqs(const pc_rope_ident *id, int d)
{
    pc_rope_params p;
    pc_err e;
    if (pc_rope_ident_params(id, &p, &e) != PC_OK) return NULL;
    double *w = malloc(((size_t)d / 2 + 1) * sizeof *w);
    pc_freqs *fr = w ? pc_freqs_new(d, pc_rope_schedule(&p)) : NULL;
    if (fr) {
        for (int i = 0; i < d / 2; i++) w[i] = pc_freqs_omega(fr, i);
        w[d / 2] = pc_freqs_attention(fr);
        pc_freqs_free(fr);
    } else {
        free(w);
        w = NULL;
    }
    pc_rope_params_free(&p);
    return w;
}

/* Whether IMPL's rows of CFG pass the accuracy gate under the identified
 * schedule ID: a "this cache matches" is said only when checked (the
 * frequencies identify fits may all agree with a schedule whose gate the
 * values still fail, as a llama3 cache with its band factors swapped
 * against the default schedule). */
static int ident_passes(const pc_impl *impl, const pc_acc_cfg *cfg, const pc_rope_ident *id)
{
    pc_rope_params p;
    pc_err e;
    if (pc_rope_ident_params(id, &p, &e) != PC_OK) return 0;
    pc_schedule s = pc_rope_schedule(&p);
    pc_acc_cfg c = *cfg;
    c.sched = &s;
    c.sched_note = NULL;
    c.base = p.base;
    c.quiet = 1;
    c.observe = NULL;
    c.fit = NULL;
    c.digest = NULL;
    pc_acc_result res;
    int ok = pc_accuracy_run(impl, &c, &res, &e) == PC_OK && res.status == PC_OK;
    pc_rope_params_free(&p);
    return ok;
}

/* Whether IMPL's rows of CFG pass the accuracy gate under P (prepared
 * here; P's own model_c replaced, so a copy of the checked parameters may
 * be given); on a pass, *W (when W) P's frequencies and attention factor
 * (d/2 + 1 values, malloc'd). */
static int params_pass(const pc_impl *impl, const pc_acc_cfg *cfg, pc_rope_params *p, double **w)
{
    pc_err e;
    p->model_c = NULL;
    int ok = 0, h = cfg->d / 2;
    if (pc_rope_prepare(p, &e) == PC_OK) {
        pc_schedule s = pc_rope_schedule(p);
        pc_acc_cfg c = *cfg;
        c.sched = &s;
        c.sched_note = NULL;
        c.base = p->base;
        c.quiet = 1;
        c.observe = NULL;
        c.fit = NULL;
        c.digest = NULL;
        pc_acc_result res;
        ok = pc_accuracy_run(impl, &c, &res, &e) == PC_OK && res.status == PC_OK;
        pc_freqs *fr = ok && w ? pc_freqs_new(cfg->d, s) : NULL;
        double *v = fr ? malloc(((size_t)h + 1) * sizeof *v) : NULL;
        if (v) {
            for (int i = 0; i < h; i++) v[i] = pc_freqs_omega(fr, i);
            v[h] = pc_freqs_attention(fr);
            free(*w);
            *w = v;
        }
        pc_freqs_free(fr);
    }
    free(p->model_c);
    p->model_c = NULL;
    return ok;
}

/* Llama 3's low_freq_factor and high_freq_factor swapped (HF's formula
 * with high < low leaves no smooth band: one step at wavelength L / low):
 * said when the gate passes with the two swapped, in place of BUF's
 * account (an equivalent fit identify finds, the generic band words),
 * *ALT then the swapped schedule's frequencies; 0 otherwise. */
static int llama3_swapped(const pc_impl *impl, const pc_acc_cfg *cfg, char *buf, size_t len,
                          double **alt)
{
    const pc_rope_params *used = cfg->sched ? cfg->sched->params : NULL;
    if (!used || used->type != PC_ROPE_LLAMA3 || used->axes
        || used->low_freq_factor == used->high_freq_factor)
        return 0;
    pc_rope_params q = *used;
    q.low_freq_factor = used->high_freq_factor;
    q.high_freq_factor = used->low_freq_factor;
    if (!params_pass(impl, cfg, &q, alt)) return 0;
    snprintf(buf, len, "low_freq_factor and high_freq_factor are swapped: the cache is llama3 with "
             "low_freq_factor %.9g and high_freq_factor %.9g (the config's %.9g and %.9g), and the "
             "gate passes with them so: its band edges are at wavelengths %.9g and %.9g instead of "
             "%.9g and %.9g", q.low_freq_factor, q.high_freq_factor, used->low_freq_factor,
             used->high_freq_factor, used->orig_max / q.low_freq_factor,
             used->orig_max / q.high_freq_factor, used->orig_max / used->low_freq_factor,
             used->orig_max / used->high_freq_factor);
    return 1;
}

/* Dynamic NTK's base depends on the sequence length over
 * max_position_embeddings alone: a cache identified with another
 * max_position_embeddings M' (the check's M, the same base and factor) is
 * the checked schedule at sequence length S M / M' (S: the length it was
 * identified at), the likelier account (a cache built once for a longer
 * sequence, as vLLM's is for M x factor, served to a shorter one).  Said
 * only when the gate passes with that --seq-len: the line into LINE, 1
 * (the base fit.c names is then that length's: its account is left out,
 * a wrong rope_theta being refuted by the gate's pass). */
static int dynamic_seq(const pc_impl *impl, const pc_acc_cfg *cfg, const pc_rope_ident *id,
                        char *line, size_t len)
{
    const pc_rope_params *used = cfg->sched ? cfg->sched->params : NULL;
    if (!used || used->type != PC_ROPE_DYNAMIC || id->type != PC_ROPE_DYNAMIC
        || used->ntk_alpha > 0 || !(id->max_pos > 0) || id->max_pos == used->max_pos
        || fabs(id->base / used->base - 1.0) > 1e-9 || fabs(id->factor / used->factor - 1.0) > 1e-9)
        return 0;
    double s_id = fmax((double)cfg->pos_hi + 1.0, id->max_pos);
    double seq = round(s_id * used->max_pos / id->max_pos);
    if (!(seq > used->max_pos)) return 0; /* at or below M the base is the plain one */
    pc_rope_params q = *used;
    q.seq_len = seq;
    q.seq_len_set = 1;
    if (!params_pass(impl, cfg, &q, NULL)) return 0;
    snprintf(line, len, "this cache was built for sequence length %.9g, not %.9g: dynamic NTK's base "
             "at length %.9g, as max_position_embeddings %.9g gives at %.9g (a cache built once for "
             "a longer sequence, as vLLM's for max_position_embeddings x factor, used for a shorter "
             "one); rerun with --seq-len %.9g if that is meant", seq,
             used->seq_len_set ? used->seq_len : (double)cfg->pos_hi + 1.0, seq, id->max_pos, s_id,
             seq);
    return 1;
}

/* HunYuan's alpha (dynamic NTK with rope_scaling.alpha: base' = base
 * alpha^(d/(d-2)) at every length): a cache whose rows pass the gate with
 * alpha left out (rope_theta's own schedule) or with alpha without its
 * exponent (base alpha) is said to be so, the line into LINE, 1.  Each
 * hypothesis is the gate re-run under it, nothing else. */
static int alpha_cause(const pc_impl *impl, const pc_acc_cfg *cfg, char *line, size_t len)
{
    const pc_rope_params *used = cfg->sched ? cfg->sched->params : NULL;
    if (!used || used->type != PC_ROPE_DYNAMIC || !(used->ntk_alpha > 1.0) || cfg->d < 4) return 0;
    double a = used->ntk_alpha, ex = (double)cfg->d / (double)(cfg->d - 2);
    double full = used->base * pow(a, ex);
    for (int k = 0; k < 2; k++) { /* k 0: alpha ignored; 1: alpha without its exponent */
        pc_rope_params q = *used;
        q.type = PC_ROPE_DEFAULT;
        q.ntk_alpha = 0.0;
        q.base = k ? used->base * a : used->base;
        if (!params_pass(impl, cfg, &q, NULL)) continue;
        if (k == 0)
            snprintf(line, len, "alpha is ignored: the cache is rope_theta's own schedule, base %.9g, "
                     "not dynamic NTK alpha %g's base' = base x alpha^(d/(d-2)) = %.9g x %g^(%d/%d) = "
                     "%.9g (HunYuan); the gate passes with alpha left out", used->base, a, used->base,
                     a, cfg->d, cfg->d - 2, full);
        else
            snprintf(line, len, "alpha is applied without its exponent d/(d-2): the cache's base is "
                     "base x alpha = %.9g, not base x alpha^(%d/%d) = %.9g (dynamic NTK alpha %g, "
                     "HunYuan); the gate passes with base %.9g", q.base, cfg->d, cfg->d - 2, full, a,
                     q.base);
        return 1;
    }
    return 0;
}

/* What `pecheck identify` finds (identify.h), when it explains every
 * resolved pair, differs from what the check used and the gate under it
 * passes on the same rows: "this cache matches default with base 500000;
 * the check used base 10000", put before the detailed cause in BUF, and
 * *ALT its frequencies.  A LongRoPE identification (a factor per pair
 * explains any falling profile) is named only when the check used one. */
static void identified(const pc_impl *impl, const pc_rope_fit *f, const pc_acc_cfg *cfg,
                       double att, char *buf, size_t len, double **alt)
{
    pc_rope_ident id;
    if (pc_rope_identify(f, cfg->d, (double)cfg->pos_hi + 1.0, 0.0, &id) != PC_OK) return;
    const pc_rope_params *used = cfg->sched ? cfg->sched->params : NULL;
    char line[400];
    int type = used ? used->type : PC_ROPE_DEFAULT;
    pc_rope_ident_diff(&id, used, cfg->base, att, line, sizeof line);
    char *rest = strdup(buf);
    if (rest && id.found && line[0] && (id.type != PC_ROPE_LONGROPE || type == PC_ROPE_LONGROPE)
        && ident_passes(impl, cfg, &id)) {
        if (dynamic_seq(impl, cfg, &id, line, sizeof line) || alpha_cause(impl, cfg, line, sizeof line))
            rest[0] = '\0'; /* the gate's pass refutes the fit's other accounts */
        snprintf(buf, len, "%s%s%s", line, rest[0] ? "; " : "", rest);
        *alt = ident_freqs(&id, cfg->d);
    }
    free(rest);
    pc_rope_ident_free(&id);
}

/* The schedule's account of the failure: the fitted frequencies and
 * amplitude against the checked schedule (fit.c), a scaled schedule with
 * another base, what identify finds; *ALT the identified schedule's
 * frequencies when it explains every pair. */
static void schedule_cause(const pc_impl *impl, const pc_acc_cfg *cfg, char *buf, size_t len,
                           double **alt)
{
    buf[0] = '\0';
    if (cfg->sched && ((const pc_rope_params *)cfg->sched->params)->axes) {
        pc_rope_axes_cause(impl, cfg, buf, len); /* rows of position ids: not one position a row */
        return;
    }
    int h = cfg->d / 2;
    pc_schedule s = cfg->sched ? *cfg->sched : pc_schedule_geometric(cfg->base);
    pc_freqs *fr = pc_freqs_new(cfg->d, s);
    double *omega = malloc((size_t)h * sizeof *omega);
    double u_s = cfg->storage ? pc_model_u(cfg->dtype) : 0x1p-24;
    pc_rope_fit f;
    if (fr && omega && pc_rope_fit_run(impl, cfg->d, cfg->base, cfg->layout, cfg->pos_lo, cfg->pos_hi, u_s,
                                       &f) == PC_OK) {
        for (int i = 0; i < h; i++) omega[i] = pc_freqs_omega(fr, i);
        const pc_rope_params *sp = cfg->sched ? cfg->sched->params : NULL;
        pc_rope_fit_cause(&f, cfg->d, cfg->base, omega, pc_freqs_attention(fr), u_s,
                          sp && sp->type != PC_ROPE_DEFAULT, buf, len);
        /* a scaled schedule with another base (its bands or ramp move too) */
        const pc_rope_params *p = cfg->sched ? cfg->sched->params : NULL;
        double share, est = pc_rope_fit_base_change(&f, cfg->d, omega, &share) * cfg->base, b;
        if (p && p->type != PC_ROPE_DEFAULT && !strstr(buf, "wrong base")
            && pc_rope_fit_explained(&f, omega) < 0.9 && (b = other_base(&f, p, pc_rope_round_base(est))) > 0) {
            /* it replaces the frequency message (the amplitude's stays) */
            char *and = strstr(buf, "; and ");
            if (strncmp(buf, "the cache's (cos, sin)", 22) != 0) buf[0] = '\0';
            else if (and) *and = '\0';
            size_t l = strlen(buf);
            snprintf(buf + l, len - l, "%sthe cache is the %s schedule with base %.6g, not %.6g: a "
                     "wrong base (rope_theta)", l ? "; and " : "", pc_rope_type_name(p->type), b,
                     cfg->base);
        }
        if (!llama3_swapped(impl, cfg, buf, len, alt)) {
            identified(impl, &f, cfg, pc_freqs_attention(fr), buf, len, alt);
            pc_rope_config_match(&f, cfg, buf, len, alt);
        }
        pc_rope_fit_free(&f);
    }
    free(omega);
    pc_freqs_free(fr);
}

/* BUF with every FROM replaced by TO, within LEN bytes (what does not fit
 * is cut, as the cause's own snprintf would). */
static void replace_all(char *buf, size_t len, const char *from, const char *to)
{
    size_t lf = strlen(from), lt = strlen(to);
    for (char *at = strstr(buf, from); at; at = strstr(at + lt, from)) {
        size_t off = (size_t)(at - buf), rest = strlen(at + lf);
        if (off + lt >= len) { buf[off] = '\0'; return; }
        size_t keep = off + lt + rest + 1 <= len ? rest : len - 1 - off - lt;
        memmove(at + lt, at + lf, keep);
        at[lt + keep] = '\0';
        memcpy(at, to, lt);
    }
}

/* The causes speak of a cache (the values of a table); a kernel, a plugin
 * or a served rotation computes rotations: its words. */
static void source_words(const pc_impl *impl, char *buf, size_t len)
{
    if (pc_table_info_of(impl)) return;
    replace_all(buf, len, "this cache matches", "this source matches");
    replace_all(buf, len, "the cache's (cos, sin)", "its rotations' (cos, sin)");
}

void pc_rope_likely_cause(const pc_impl *impl, const pc_spec *spec, const pc_acc_cfg *cfg,
                          char *buf, size_t len)
{
    char sched[960];
    double *alt = NULL;
    pc_rope_causes cs;
    cs.n = 0;
    if (pc_rope_xpos_cause(impl, cfg, buf, len)) { /* xPos's own scale, first */
        source_words(impl, buf, len);
        return;
    }
    char ft[520], fe[260];
    if (pc_rope_strict_freq_cause(impl, cfg, ft, sizeof ft, fe, sizeof fe))
        /* checked on every row, with the default class's pass: first
         * (order -1: before any hypothesis of full support) */
        pc_rope_cause_add(&cs, 1.0, -1, ft, fe);
    schedule_cause(impl, cfg, sched, sizeof sched, &alt);
    pc_rope_hypotheses(impl, spec, cfg, sched, alt, &cs);
    pc_rope_causes_write(&cs, buf, len);
    source_words(impl, buf, len);
    free(alt);
}
