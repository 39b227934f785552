/* util.c: helpers shared by the property catalogue: hook calls that turn an
 * implementation's error into a message, frequencies, the precision model,
 * case vectors and counterexample printing. */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include "property.h"
#include "harness/sandbox/hook.h"
#include "harness/sandbox/call.h"
#include "harness/engine/model.h"
#include "harness/engine/accuracy.h"
#include "harness/base/half.h"
#include <stdlib.h>
#include "families/family.h"
#include "families/spec_sched.h"

double pc_p_omega(const pc_prun *r, int d, int i)
{
    if (r->sched && r->freqs && r->freqs_d == d) /* a RoPE schedule's omega_i */
        return pc_freqs_omega(r->freqs, i);
    return pow(r->params->base, -2.0 * (double)i / (double)d);
}

double pc_p_bound(const pc_prun *r, double theta, double scale)
{
    return pc_model_bound(r->C, r->u, theta, scale, r->tol_abs);
}

double pc_p_bound_i(const pc_prun *r, int d, int i, double theta, double scale)
{
    if (r->tol_abs < 0 && r->sched && r->freqs && r->freqs_d == d) { /* the schedule's C_i, A */
        double C = pc_schedule_model_c(&r->sched->s, d, i);
        /* a factor per pair and position (xPos): its evaluation's radial
         * units on C (docs/schedules.md); SCALE then carries the factor */
        if (pc_freqs_scaled(r->freqs)) C += pc_schedule_model_r(&r->sched->s, d);
        return pc_model_bound(C, r->u, theta, scale * pc_freqs_attention(r->freqs), r->tol_abs);
    }
    return pc_p_bound(r, theta, scale);
}

double pc_p_norm_bound_i(const pc_prun *r, int d, int i, double scale)
{
    return sqrt(2.0) * pc_p_bound_i(r, d, i, 0.0, scale);
}

double pc_p_bound_pair(const pc_prun *r, int d, int i, int64_t pos, int rotates, double scale)
{
    double omega = pc_p_omega(r, d, i);
    if (r->tol_abs >= 0 || r->sched) /* a schedule keeps its per-element model */
        return pc_p_bound_i(r, d, i, (double)pos * omega, scale);
    /* the accuracy gate's budget (model.h), default class: pair 0 exact */
    double kappa = omega == 1.0 ? 0.0 : pc_model_kappa(PC_CLASS_DEFAULT, r->params->base, d, i);
    double phi = pc_model_phase(kappa, omega, pos);
    int dt = r->params->dtype;
    if (r->params->half_arith)
        return pc_model_element_half(pc_model_radial(rotates, 1.0), phi, pc_model_u_storage(dt),
                                     pc_model_u_min(dt), 1.0, scale);
    return pc_model_element(pc_model_radial(rotates, 1.0), phi, pc_model_u_storage(dt), 1.0,
                            scale);
}

size_t pc_p_col(int layout, int d, int i, int k)
{
    return layout == PECHECK_LAYOUT_INTERLEAVED ? (size_t)(2 * i + k)
                                                : (size_t)(i + k * (d / 2));
}

void pc_p_release(pc_prun *r)
{
    pc_freqs_free(r->freqs);
    r->freqs = NULL;
    r->freqs_d = 0;
    if (r->sched) pc_spec_sched_release(r->sched);
    free(r->sched);
    r->sched = NULL;
}

/* The schedule of the family's spec for D (RoPE: --hf-config,
 * --rope-scaling, ..., D its rotary dim); else the geometric schedule of
 * the base. */
static pc_schedule schedule_for(pc_prun *r, int d)
{
    pc_spec_sched *rc = r->sched ? r->sched : calloc(1, sizeof *rc);
    pc_acc_cfg cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.family = r->family;
    cfg.d = d;
    cfg.base = r->params->base;
    cfg.pos_hi = r->hi;
    pc_err e;
    if (rc && r->sched) pc_spec_sched_release(rc);
    if (rc && pc_spec_schedule(r->params->spec, &cfg, rc, &e) == PC_OK && rc->set) {
        r->sched = rc;
        return rc->s;
    }
    free(rc);
    r->sched = NULL;
    return pc_schedule_geometric(r->params->base);
}

double pc_p_att_factor(pc_prun *r, int d)
{
    pc_freqs *f = pc_p_freqs(r, d, NULL);
    return f ? pc_freqs_attention(f) : 1.0;
}

pc_freqs *pc_p_freqs(pc_prun *r, int d, pc_err *err)
{
    if (r->freqs && r->freqs_d == d)
        return r->freqs;
    pc_freqs_free(r->freqs);
    r->freqs = pc_freqs_new(d, schedule_for(r, d));
    r->freqs_d = r->freqs ? d : 0;
    if (!r->freqs)
        pc_seterr(err, PC_ENOMEM, "out of memory (frequencies for d=%d)", d);
    return r->freqs;
}

static void positions_text(char *buf, size_t len, const int64_t *pos, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < n && used + 24 < len; k++) {
        if (k == 6 && n > 7) {
            snprintf(buf + used, len - used, ", ... (%zu)", n);
            return;
        }
        int w = snprintf(buf + used, len - used, "%s%" PRId64, k ? ", " : "", pos[k]);
        if (w < 0) return;
        used += (size_t)w;
    }
}

void pc_p_hook_msg(pc_prun *r, pc_hook_id hook, int rc, const pc_fault *fault, const char *what)
{
    static const char refused[] = "not run"; /* harness/sandbox/host.c: a call the host refused */
    const char *sym = pc_hook_symbol(hook), *why = strstr(fault->cause, ": ");
    r->faulted = fault->faulted;
    if (fault->faulted && !strncmp(fault->cause, refused, sizeof refused - 1) && why)
        snprintf(r->implmsg, sizeof r->implmsg, "%s not run for %s, because %.160s", sym, what,
                 why + 2);
    else if (fault->faulted)
        snprintf(r->implmsg, sizeof r->implmsg, "%s crashed (%.160s) for %s", sym, fault->cause,
                 what);
    else
        snprintf(r->implmsg, sizeof r->implmsg, "%s returned %d for %s", sym, rc, what);
}

/* A call of HOOK that returned RC or faulted (FAULT): R's message. */
static int hook_failed(pc_prun *r, pc_hook_id hook, int rc, const pc_fault *fault,
                       const char *what)
{
    pc_p_hook_msg(r, hook, rc, fault, what);
    return rc ? rc : 1;
}

int pc_p_sinusoidal(pc_prun *r, const int64_t *pos, size_t n, int d, float *out)
{
    r->calls++;
    if (!r->impl->sinusoidal) {
        snprintf(r->implmsg, sizeof r->implmsg, "no pecheck_sinusoidal_f32: the properties call "
                 "the ABI v1 entry point");
        return 1;
    }
    /* a spec's own schedule (--preset, --freq-shift): pc_p_omega reads its
     * frequencies for D from then on */
    if (r->params->spec && pc_spec_scheduled(r->params->spec)) pc_p_freqs(r, d, NULL);
    pc_fault fault;
    int rc = pc_call_sinusoidal(r->impl, &fault, pos, n, d, r->params->base, r->layout, out);
    if (rc == 0 && !fault.faulted) return 0;
    char p[120], what[200];
    positions_text(p, sizeof p, pos, n);
    snprintf(what, sizeof what, "positions [%s], d=%d, layout %s", p, d, pc_layout_name(r->layout));
    return hook_failed(r, PC_HOOK_sinusoidal, rc, &fault, what);
}

int pc_p_rope(pc_prun *r, const int64_t *pos, size_t n, int d, const float *x, float *out)
{
    r->calls++;
    if (!r->impl->rope) {
        snprintf(r->implmsg, sizeof r->implmsg, "no pecheck_rope_f32: the properties call the "
                 "ABI v1 entry point");
        return 1;
    }
    pc_fault fault;
    int rc = pc_call_rope(r->impl, &fault, pos, n, d, r->params->base, r->layout, x, out);
    if (rc == 0 && !fault.faulted) return 0;
    char p[120], what[200];
    positions_text(p, sizeof p, pos, n);
    snprintf(what, sizeof what, "positions [%s], d=%d, layout %s", p, d, pc_layout_name(r->layout));
    return hook_failed(r, PC_HOOK_rope, rc, &fault, what);
}

int pc_p_learned(pc_prun *r, const int64_t *pos, size_t n, int d, float *out)
{
    r->calls++;
    if (!r->impl->learned) {
        snprintf(r->implmsg, sizeof r->implmsg, "no learned hook");
        return 1;
    }
    pc_fault fault;
    int rc = pc_call_learned(r->impl, &fault, pos, n, d, out);
    if (rc == 0 && !fault.faulted) return 0;
    char p[120], what[200];
    positions_text(p, sizeof p, pos, n);
    snprintf(what, sizeof what, "positions [%s], d=%d", p, d);
    return hook_failed(r, PC_HOOK_learned, rc, &fault, what);
}

int pc_p_attention(pc_prun *r, size_t n, int d, const float *x, const float *wq,
                   const float *wk, const float *wv, int causal, float *out)
{
    r->calls++;
    if (!r->impl->attention) {
        snprintf(r->implmsg, sizeof r->implmsg, "no attention hook");
        return 1;
    }
    pc_fault fault;
    int rc = pc_call_attention(r->impl, &fault, n, d, x, wq, wk, wv, causal, out);
    if (rc == 0 && !fault.faulted) return 0;
    char what[120];
    snprintf(what, sizeof what, "n=%zu, d=%d, causal=%d", n, d, causal);
    return hook_failed(r, PC_HOOK_attention, rc, &fault, what);
}

pc_status pc_p_no_hook(pc_prun *r, pc_outcome *oc, const char *hook)
{
    snprintf(oc->msg, sizeof oc->msg, "the implementation has no %s hook", hook);
    r->no_hook = 1;
    return PC_SKIP;
}

void pc_p_implerr(pc_prun *r, pc_outcome *oc)
{
    memset(oc, 0, sizeof *oc);
    oc->kind = PC_O_IMPLERR;
    oc->measured = (double)NAN;
    oc->bound = (double)NAN;
    oc->score = (double)INFINITY;
    snprintf(oc->msg, sizeof oc->msg, "%s", r->implmsg);
    snprintf(oc->where, sizeof oc->where, "the implementation reported an error");
}

void pc_p_report_implerr(pc_prun *r, pc_outcome *oc, FILE *f, const char *what)
{
    fprintf(f, "  %s: the implementation failed: %s\n", what, r->implmsg);
    if (oc->kind == PC_O_PASS) pc_p_implerr(r, oc);
}

/* C's vectors as values of its type (an f16 or bf16 tensor's) */
static void vector_round(const pc_case *c, float *out)
{
    for (int j = 0; c->vdtype != PC_DT_F32 && j < c->d; j++) out[j] = pc_round_to(c->vdtype, out[j]);
}

void pc_p_vector(const pc_case *c, int layout, int which, float *out)
{
    uint64_t key = 0x56454354u + (uint64_t)which; /* "VECT" + which */
    if (c->vmode == PC_V_DENSE) {
        pc_normal_row(c->vseed, key, c->d, out);
        vector_round(c, out);
        return;
    }
    memset(out, 0, (size_t)c->d * sizeof *out);
    int i = c->pair < c->d / 2 ? c->pair : 0;
    size_t c0 = pc_p_col(layout, c->d, i, 0), c1 = pc_p_col(layout, c->d, i, 1);
    if (c->vmode == PC_V_UNIT) {
        out[c0] = 1.0f;
    } else {
        float tmp[2];
        pc_rng g;
        pc_rng_seed(&g, pc_hash3(c->vseed, key, (uint64_t)i));
        tmp[0] = pc_rng_normal_f32(&g);
        tmp[1] = pc_rng_normal_f32(&g);
        out[c0] = tmp[0];
        out[c1] = tmp[1];
    }
    vector_round(c, out);
}

int64_t pc_p_pos(pc_rng *g, int64_t lo, int64_t hi)
{
    if (hi <= lo) return lo;
    /* half the cases uniform over the range, half log-uniform, so that
     * both long and short positions are drawn often */
    uint64_t span = (uint64_t)(hi - lo);
    if (pc_rng_below(g, 2) == 0)
        return lo + (int64_t)pc_rng_below(g, span + 1);
    int bits = 0;
    while (bits < 63 && (span >> bits) > 0) bits++;
    uint64_t cap = (uint64_t)1 << pc_rng_below(g, (uint64_t)bits + 1);
    if (cap > span + 1) cap = span + 1;
    return lo + (int64_t)pc_rng_below(g, cap);
}

int64_t pc_p_offset(pc_rng *g, int64_t kmin, int64_t span)
{
    if (span <= kmin) return kmin;
    uint64_t r = pc_rng_below(g, 4);
    if (r == 0) return kmin;
    if (r == 1) {
        int64_t hi = span < kmin + 63 ? span : kmin + 63;
        return kmin + (int64_t)pc_rng_below(g, (uint64_t)(hi - kmin) + 1);
    }
    return kmin + (int64_t)pc_rng_below(g, (uint64_t)(span - kmin) + 1);
}

pc_status pc_p_need_two(pc_prun *r, pc_outcome *oc)
{
    if (r->hi <= r->lo) {
        snprintf(oc->msg, sizeof oc->msg, "fewer than two positions in range");
        return PC_SKIP;
    }
    return PC_OK;
}

void pc_p_gen_pos_k(pc_prun *r, pc_rng *g, pc_case *c)
{
    c->npos = 1;
    c->pos[0] = pc_p_pos(g, r->lo, r->hi - 1);
    c->k = pc_p_offset(g, 1, r->hi - c->pos[0]);
}

int pc_p_valid_pos_k(const pc_prun *r, const pc_case *c)
{
    return c->k >= 1 && c->pos[0] >= r->lo && c->pos[0] <= r->hi - c->k;
}

void pc_p_float(FILE *f, double v)
{
    fprintf(f, "%.9g (%a)", v, v);
}

void pc_p_row(FILE *f, const float *v, int d, int max)
{
    fputc('[', f);
    for (int j = 0; j < d && j < max; j++) {
        if (j) fputs(", ", f);
        fprintf(f, "%.9g", (double)v[j]);
    }
    if (d > max) fprintf(f, ", ... (%d values)", d);
    fputc(']', f);
}

pc_status pc_p_nomem(pc_err *err)
{
    return pc_seterr(err, PC_ENOMEM, "out of memory");
}

int pc_p_bounded(const pc_prun *r)
{
    const pc_family *f = pc_family_find(r->family);
    return f && f->max_len;
}

int pc_p_rotates(const pc_prun *r)
{
    const pc_family *f = pc_family_find(r->family);
    return f && f->rows && f->rows->input;
}
