/* decay: RoPE's long-term decay (RoFormer, section 3.4.3): the bound
 *   D(r) = (1/(d/2)) sum_{j=1}^{d/2} |S_j|,   S_j = sum_{k<j} e^{i r w_k}
 * on |<R_m q, R_n k>| as a function of the relative distance r = n - m.
 * The reference curve uses the certified cos/sin (MPFR, rounded to
 * binary64); the implementation's curve uses e^{i r w_k} read from its
 * rotation of the unit vectors (1, 0) at position r. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "properties/property.h"
#include "families/spec_sched.h"

static void gen(pc_prun *r, pc_rng *g, pc_case *c)
{
    c->npos = 1;
    c->pos[0] = pc_p_pos(g, r->lo, r->hi);
}

static int valid(const pc_prun *r, const pc_case *c)
{
    return c->pos[0] >= r->lo && c->pos[0] <= r->hi;
}

typedef struct { double impl, ref, bound; } decayv;

/* |theta| of pair K of row RR at its own position; a real coordinate that
 * is not a binary32 value adds its rounding to binary32, u |theta| (the
 * accuracy gate's pc_model_phase_x): C_k u |theta| (1 + 1/C_k) is
 * (C_k + 1) u |theta|. */
static double pair_theta(const pc_prun *r, const pc_freqs *fr, int d, int64_t rr, int k)
{
    double x = pc_freqs_coord(fr, rr, k), th = fabs(x * pc_p_omega(r, d, k));
    int whole = x >= 0.0 && x == floor(x);
    if (whole || (double)(float)x == x || !r->sched) return th;
    double c = pc_schedule_model_c(&r->sched->s, d, k);
    return c > 0.0 ? th * (1.0 + 1.0 / c) : th;
}

/* returns 0 ok, 1 hook error, -1 no memory, -2 reference error (ERR) */
static int curve(pc_prun *r, int d, int64_t rr, decayv *out, pc_err *err)
{
    size_t dd = (size_t)d;
    int h = d / 2;
    float *x = calloc(2 * dd, sizeof *x);
    if (!x) return -1;
    for (int i = 0; i < h; i++) x[pc_p_col(r->layout, d, i, 0)] = 1.0f;
    if (pc_p_rope(r, &rr, 1, d, x, x + dd)) { free(x); return 1; }
    pc_freqs *fr = pc_p_freqs(r, d, err);
    if (!fr) { free(x); return -1; }
    double si = 0, ci = 0, sr = 0, cr = 0, ai = 0, ar = 0, eb = 0, acc = 0;
    for (int k = 0; k < h; k++) {
        pc_ref2 s, c;
        if (pc_ref_sincos(fr, rr, k, &s, &c) != PC_OK) {
            free(x);
            pc_seterr(err, PC_EINTERNAL, "decay: reference failed at r=%" PRId64 ", pair %d", rr, k);
            return -2;
        }
        ci += (double)x[dd + pc_p_col(r->layout, d, k, 0)];
        si += (double)x[dd + pc_p_col(r->layout, d, k, 1)];
        cr += c.f64;
        sr += s.f64;
        /* the pair's error: sqrt(2) B(r w_k) (unit pair); reference 2^-53 per value */
        acc += sqrt(2.0) * pc_p_bound_i(r, d, k, pair_theta(r, fr, d, rr, k), 1.0)
               + 0x1p-52; /* a schedule's C_k and attention factor A (pc_p_bound_i) */
        ai += hypot(ci, si);
        ar += hypot(cr, sr);
        eb += acc;
    }
    out->impl = ai / h;
    out->ref = ar / h;
    /* |mean_j |S_j| - mean_j |S'_j|| <= mean_j sum_{k<j} |e_k|, plus the binary64 sums (d^2 2^-53) */
    out->bound = eb / h + (double)h * (double)h * 0x1p-52;
    free(x);
    return 0;
}

static pc_status check(pc_prun *r, const pc_case *c, pc_outcome *oc, pc_err *err)
{
    decayv v;
    memset(oc, 0, sizeof *oc);
    oc->pair = -1;
    int rc = curve(r, c->d, c->pos[0], &v, err);
    if (rc == -1) return err->msg[0] ? PC_ENOMEM : pc_p_nomem(err);
    if (rc == -2) return PC_EINTERNAL;
    if (rc == 1) { pc_p_implerr(r, oc); return PC_OK; }
    double e = fabs(v.impl - v.ref);
    if (isnan(e)) e = (double)INFINITY;
    oc->measured = e;
    oc->bound = v.bound;
    oc->score = e / v.bound;
    oc->kind = oc->score > 1.0 ? PC_O_FAIL : PC_O_PASS;
    snprintf(oc->where, sizeof oc->where, "r = %" PRId64 ": implementation %.9g, reference %.9g",
             c->pos[0], v.impl, v.ref);
    snprintf(oc->eq, sizeof oc->eq, "D(%" PRId64 ") from the implementation = %.9g, but RoPE's "
             "D(%" PRId64 ") = %.9g", c->pos[0], v.impl, c->pos[0], v.ref);
    return PC_OK;
}

static void show(pc_prun *r, const pc_case *c, const pc_outcome *oc, FILE *f)
{
    (void)oc;
    decayv v;
    pc_err e = { "" };
    if (curve(r, c->d, c->pos[0], &v, &e) != 0) return;
    fprintf(f, "      D(%" PRId64 ") implementation = ", c->pos[0]);
    pc_p_float(f, v.impl);
    fprintf(f, "\n      D(%" PRId64 ") reference      = ", c->pos[0]);
    pc_p_float(f, v.ref);
    fputc('\n', f);
}

static pc_status report(pc_prun *r, const pc_case *c, pc_outcome *oc, FILE *f, pc_err *err)
{
    int d = c->d > 0 ? c->d : r->params->d;
    fprintf(f, "  the decay curve D(r) = (2/d) sum_j |sum_{k<j} e^{i r w_k}| (d = %d):\n", d);
    fprintf(f, "      %12s  %14s  %14s  %12s\n", "r", "reference", "implementation", "|diff|/bound");
    for (int64_t rr = r->lo; rr <= r->hi; rr = rr < 1 ? 1 : rr * 4) {
        decayv v;
        int rc = curve(r, d, rr, &v, err);
        if (rc < 0) return rc == -2 ? PC_EINTERNAL : PC_ENOMEM;
        if (rc > 0) { pc_p_report_implerr(r, oc, f, "the decay curve"); break; }
        fprintf(f, "      %12" PRId64 "  %14.9g  %14.9g  %12.3g\n", rr, v.ref, v.impl,
                fabs(v.impl - v.ref) / v.bound);
        if (rr > r->hi / 4) break;
    }
    return PC_OK;
}

const pc_property pc_prop_decay = {
    .name = "decay",
    .families = "rope",
    .title = "RoPE's long-term decay curve matches the reference",
    .measured_what = "|D_impl(r) - D_ref(r)|",
    .expect = "D(r) = (2/d) sum_j |S_j(r)| from the implementation's rotations equals the "
              "certified curve within the summed rotation errors",
    .pos_names = "r",
    .math =
        "RoFormer's bound: |<R_m q, R_n k>| <= (max_i |h_{i+1} - h_i|) (1/(d/2)) sum_{j=1}^{d/2} |S_j|\n"
        "  S_j = sum_{k<j} e^{i r w_k},  r = n - m\n"
        "D(r) = (1/(d/2)) sum_j |S_j| decays (on average) as r grows: distant tokens interact less.",
    .why =
        "The phases r*w_k of the slow and fast pairs spread out as r grows, so the partial sums\n"
        "S_j cancel more and more (Abel summation).  pecheck evaluates the curve from the\n"
        "certified cos/sin and from the implementation's own rotations of (1, 0).",
    .tolerance =
        "(1/(d/2)) sum_j sum_{k<j} (sqrt(2) B(r w_k) + 2^-52), B(theta) = C*u*(1+|theta|)\n"
        "(harness/engine/model.h): each term e^{i r w_k} within its pair's error, summed into S_j.",
    .concept_impl = "rope-mixed-layout",
    .concept_note = "the interleaved layout's cache under rotate_half: the sums S_j add cos and sin of "
                    "different frequencies, so the curve is not RoPE's",
    .precision_impl = "rope-bf16-cache",
    .precision_note = "cos/sin in bfloat16: every term carries up to 2^-9 relative error",
    .shrink = PC_SH_D | PC_SH_POS,
    .gen = gen,
    .check = check,
    .valid = valid,
    .show = show,
    .report = report,
};
