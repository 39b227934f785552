/* acc_block.c: one worker's block of the accuracy engine (acc_block.h):
 * the implementation's rows of its positions against the certified
 * reference, each element held to the precision model's bound (model.h);
 * the witnesses' error split; what the output asks of the engine (an
 * element's bound, the strict class's reading).  Moved from accuracy.c,
 * which keeps the parallel loop over blocks. */
#include <math.h>
#include <mpfr.h>
#include <stdlib.h>
#include <string.h>
#include "acc_block.h"
#include "harness/base/half.h"
#include "harness/sandbox/hook.h"
#include "model.h"
#include "harness/base/dtype.h"
#include "harness/base/rng.h"
#include "reference/schedule.h"

typedef pc_acc_block block;
typedef pc_acc_cols cols;

/* The witness of one element: pc_check_element's fields filled. */
static pc_witness witness(int64_t pos, int dim, float got, float ref32, double ref,
                          double err, double ulp, double bound, double theta)
{
    pc_witness w = { 1, pos, dim, got, ref32, ref, err, ulp, bound, theta, 0, 0, 0, 0, 0, 0,
                     0, 0, 0, 0 };
    return w;
}

/* The running counts and sums of a block's elements (pc_metrics' own),
 * kept in a local copy while fill_rows goes through its rows: a field of
 * M written at every element would be stored and loaded again at the next,
 * lengthening the chain of the sums; the same operations in the same
 * order, so the same bits. */
typedef struct run_sums {
    uint64_t count, n_exact, n_nonfinite;
    double sq_ref, sq_err, max_ulp;
} run_sums;

static run_sums sums_of(const pc_metrics *m)
{
    run_sums a = { m->count, m->n_exact, m->n_nonfinite, m->blk_sq_ref, m->blk_sq_err, m->max_ulp };
    return a;
}

static void sums_store(pc_metrics *m, const run_sums *a)
{
    m->count = a->count;
    m->n_exact = a->n_exact;
    m->n_nonfinite = a->n_nonfinite;
    m->blk_sq_ref = a->sq_ref;
    m->blk_sq_err = a->sq_err;
    m->max_ulp = a->max_ulp;
}

/* Account one element (of pair PAIR) into A and M; a sampled run's
 * observer sees it too.  err, ulp and err/bound as pc_check_element
 * computes them (the same operations); the witness is built only where
 * one is kept. */
static inline void observe(const pc_acc_cfg *c, pc_metrics *m, run_sums *a, int64_t pos, int dim,
                           int pair, float got, float ref32, double ref, double bound, double theta)
{
    a->count++;
    uint32_t ug, ur;
    memcpy(&ug, &got, 4);
    memcpy(&ur, &ref32, 4);
    if (ug == ur) a->n_exact++;
    a->sq_ref += ref * ref;
    double err = (double)INFINITY, ulp = (double)INFINITY, ratio = (double)INFINITY;
    if (!isfinite(got)) {
        a->n_nonfinite++;
    } else {
        err = fabs((double)got - ref);
        /* err / ulp: times 2^-k instead of divided by 2^k, the same bits
         * (both are the exact quotient rounded once); ref32 is finite */
        ulp = err * pc_pow2i(-pc_ulp32_exp(ref32));
        ratio = bound > 0 ? err / bound : (err > 0 ? (double)INFINITY : 0.0);
        a->sq_err += err * err;
    }
    if (c->observe) {
        pc_witness w = witness(pos, dim, got, ref32, ref, err, ulp, bound, theta);
        c->observe(c->observe_ctx, &w, pair, ratio);
    }
    if (ulp > a->max_ulp) a->max_ulp = ulp;
    if (!m->worst.valid || ratio > m->max_ratio) {
        m->max_ratio = ratio;
        m->worst = witness(pos, dim, got, ref32, ref, err, ulp, bound, theta);
    }
    if (!m->worst_abs.valid || err > m->max_abs) {
        m->max_abs = err;
        m->worst_abs = witness(pos, dim, got, ref32, ref, err, ulp, bound, theta);
    }
    if (!(err <= bound)) {
        m->n_over++;
        if (!m->first_over.valid)
            m->first_over = witness(pos, dim, got, ref32, ref, err, ulp, bound, theta);
    }
}

/* Partner column of DIM in its pair, and whether DIM is the first member. */
int pc_blk_pair_of(int layout, int d, int dim, int *pair, int *first)
{
    int h = d / 2;
    if (layout == 0) { *pair = dim / 2; *first = dim % 2 == 0; return dim ^ 1; }
    *pair = dim % h; *first = dim < h;
    return dim < h ? dim + h : dim - h;
}


/* The position pair I of row POS is rotated by (the row's, unless the
 * schedule has position axes): an integer, or a real coordinate, exact. */
static inline double pair_pos(const block *b, int64_t pos, int i)
{
    return b->mapped ? pc_freqs_coord(b->freqs, pos, i) : (double)pos;
}

/* Unit-norm input pairs, (cos phi, sin phi) with phi from the seed and the
 * position: every pair has norm 1 (to rounding), so one bound line serves
 * encodings and rotations alike (the report's scan). */
static void unit_pairs(uint64_t seed, int64_t pos, int d, int layout, float *x)
{
    int h = d / 2;
    for (int i = 0; i < h; i++) {
        double phi = 2.0 * M_PI * (double)(pc_hash3(seed, (uint64_t)pos, (uint64_t)i) >> 11) * 0x1p-53;
        size_t a = layout == 0 ? (size_t)(2 * i) : (size_t)i;
        size_t b = layout == 0 ? (size_t)(2 * i + 1) : (size_t)(i + h);
        x[a] = (float)cos(phi);
        x[b] = (float)sin(phi);
    }
}

/* The input row of position POS: a function of the seed and the position
 * only, so any block or thread draws the same. */
static void input_row(const pc_acc_cfg *c, int64_t pos, float *x)
{
    if (c->unit_inputs) unit_pairs(c->seed, pos, c->d, c->layout, x);
    else pc_normal_row(c->seed, (uint64_t)pos, c->d, x);
    if (c->input_dtype != PC_DT_F32)
        for (int j = 0; j < c->d; j++) x[j] = pc_round_to(c->input_dtype, x[j]);
}

/* The factor of pair I at row POS: A, times the schedule's G_i(pos) where
 * it has one (xPos, docs/schedules.md): the exact values are A G cos, A G
 * sin, and their bound scales with them. */
double pc_blk_pair_factor(const block *b, int64_t pos, int i)
{
    return b->scaled ? b->att * pc_freqs_scale(b->freqs, pos, i) : b->att;
}

/* The budget of one element (model.h, docs/precision-model.md): radial
 * R u, the pair's phase Phi_i(pos) at the pair's own position (a schedule
 * with several position axes maps the row's, pc_freqs_pos), the storage
 * rounding u_s, the attention factor A and the scale NORM; --tol-abs
 * replaces it, --max-abs-err caps it. */
static double element_bound(const block *b, int pair, int64_t pos, double norm)
{
    const pc_acc_cfg *c = b->cfg;
    if (c->tol_abs >= 0) return c->tol_abs;
    double phi = pc_model_phase_x(b->kappa[pair], b->omega[pair], pair_pos(b, pos, pair));
    double att = pc_blk_pair_factor(b, pos, pair);
    double bound = c->half_arith ? pc_model_element_half(b->R, phi, b->u_s, b->u_min, att, norm)
                                 : pc_model_element(b->R, phi, b->u_s, att, norm);
    return c->max_abs_err > 0 && c->max_abs_err < bound ? c->max_abs_err : bound;
}

/* BOUND, or, for a pair past the long-context point (its phase term and
 * R u above PC_MODEL_VACUOUS: the bound no longer constrains its angle)
 * whose norm is wrong, the bound's part that is not the angle's.  An
 * angle's error turns a pair and keeps its norm, so a correct pair's norm
 * is within sqrt(2) of that part of the exact one (pc_model_norm_bound),
 * whatever its angle; a pair off by more (a table of zeros, a constant)
 * is wrong at any angle, and its two elements held to that part alone
 * put one of them over it (the error vector is longer than the norms'
 * difference).  GA, GB: the pair's values; RA, RB: the exact ones; NORM:
 * the bound's scale (an input pair's norm, or 1). */
static double norm_held(const block *b, int pair, int64_t pos, double norm, double bound, float ga,
                        float gb, double ra, double rb)
{
    const pc_acc_cfg *c = b->cfg;
    if (c->tol_abs >= 0) return bound;
    double phi = pc_model_phase_x(b->kappa[pair], b->omega[pair], pair_pos(b, pos, pair));
    if (phi + b->R * PC_MODEL_U32 <= PC_MODEL_VACUOUS) return bound;
    double att = pc_blk_pair_factor(b, pos, pair);
    double rest = c->half_arith ? pc_model_element_half(b->R, 0.0, b->u_s, b->u_min, att, norm)
                                : pc_model_element(b->R, 0.0, b->u_s, att, norm);
    /* binary32 values squared in binary64 neither overflow nor underflow
     * to a loss that matters here; each norm to 2^-51 relative */
    double exact = sqrt(ra * ra + rb * rb);
    double off = fabs(sqrt((double)ga * (double)ga + (double)gb * (double)gb) - exact);
    if (off <= M_SQRT2 * rest + 0x1p-50 * exact) return bound;
    return rest < bound ? rest : bound;
}

/* The implementation's values GOT for the block's N positions; a family
 * whose rows rotate an input: of input rows from input_row.  N > 1: the
 * first N - 1 in one call, the last alone (n = 1, the shape of a decode
 * step, whose fast paths batched calls never reach: pc_acc_alone).  The
 * first nonzero return value; FAULT says whether a call faulted, *ALONE
 * (when given) whether the one that failed was the last position's alone
 * after the others' returned. */
int pc_blk_call(block *b, const pc_impl *via, size_t n, pc_fault *fault, int *alone)
{
    const pc_acc_cfg *c = b->cfg;
    const pc_rows *rw = b->rows;
    size_t d = (size_t)c->d, m = n > 1 ? n - 1 : n;
    if (alone) *alone = 0;
    if (rw->input)
        for (size_t r = 0; r < n; r++)
            input_row(c, b->pos[r], b->x + r * d);
    int rc = rw->call(via, fault, b->pos, m, c->d, c->base, c->layout,
                      rw->input ? b->x : NULL, b->got);
    if (rc != 0 || fault->faulted || m == n) return rc;
    rc = rw->call(via, fault, b->pos + m, 1, c->d, c->base, c->layout,
                  rw->input ? b->x + m * d : NULL, b->got + m * d);
    if (alone) *alone = rc != 0 || fault->faulted;
    return rc;
}

void pc_acc_alone_note(char *buf, size_t len, const char *what, int64_t pos, int64_t lo)
{
    if (snprintf(buf, len, "%.150s (position %lld asked for alone, n = 1, as a decode step "
                 "calls it; the call of %lld..%lld before it returned)", what, (long long)pos,
                 (long long)lo, (long long)pos - 1) < 0)
        buf[0] = '\0';
}

int pc_witness_alone_differs(const pc_witness *w)
{
    return w->alone && w->batched && w->bound > 0 && w->batched_ratio != w->err / w->bound;
}

int pc_acc_alone(const pc_acc_cfg *c, int64_t pos)
{
    int64_t k, count;
    if (c->positions) {
        const int64_t *lo = c->positions, *hi = c->positions + c->n_positions;
        while (lo < hi) { /* ascending: the first >= pos */
            const int64_t *mid = lo + (hi - lo) / 2;
            if (*mid < pos) lo = mid + 1; else hi = mid;
        }
        if (lo == c->positions + c->n_positions || *lo != pos) return 0;
        k = lo - c->positions;
        count = (int64_t)c->n_positions;
    } else {
        if (pos < c->pos_lo || pos > c->pos_hi) return 0;
        k = pos - c->pos_lo;
        count = c->pos_hi - c->pos_lo + 1;
    }
    int64_t first = k - k % PC_ACC_BLOCK, last = first + PC_ACC_BLOCK - 1;
    if (last > count - 1) last = count - 1;
    return k == last; /* a block of one position is a call of one too */
}

/* The certified rows of the block's N positions into REF32/REF64, in the
 * layout of the block's configuration (a family whose rows rotate an
 * input: of the input rows call_block drew). */
pc_status pc_blk_ref_rows(block *b, size_t n)
{
    const pc_acc_cfg *c = b->cfg;
    size_t d = (size_t)c->d;
    for (size_t r = 0; r < n; r++) {
        const float *x = b->rows->input ? b->x + r * d : NULL;
        pc_status st = b->rows->ref(b->freqs, b->pos[r], c->layout, x, b->ref32 + r * d,
                                    b->ref64 + r * d);
        if (st != PC_OK) return st;
    }
    return PC_OK;
}


/* The bound of every pair of position POS into B->pair_bound, and the
 * angles into B->pair_theta (rows without an input: both members of a pair
 * share them). */
static void pair_bounds(block *b, int64_t pos)
{
    const pc_acc_cfg *c = b->cfg;
    for (int i = 0; i < c->d / 2; i++) {
        double theta = pair_pos(b, pos, i) * b->omega[i];
        b->pair_theta[i] = theta;
        b->pair_bound[i] = element_bound(b, i, pos, 1.0);
    }
}

/* GOT against the reference rows ref_rows made, column j of GOT against
 * column CL->ref[j] of them (the same column when both are in one layout);
 * a family whose rows rotate an input: the bound scaled by the pair's
 * norm. */
void pc_blk_fill_rows(block *b, size_t n, const cols *cl, pc_metrics *m)
{
    const pc_acc_cfg *c = b->cfg;
    const pc_rows *rw = b->rows;
    size_t d = (size_t)c->d;
    run_sums a = sums_of(m);
    for (size_t r = 0; r < n; r++) {
        const float *x = rw->input ? b->x + r * d : NULL;
        const float *ref32 = b->ref32 + r * d, *got = b->got + r * d;
        const double *ref64 = b->ref64 + r * d;
        if (!x) pair_bounds(b, b->pos[r]);
        for (int j = 0; j < c->d; j++) {
            int pair = cl->pair[j], mate = cl->mate[j];
            if (j < mate) {
                /* a pair's angle and bound, at its first column in the
                 * row: both members share them (the norm takes |x|, |y|
                 * and their max and min first: symmetric) */
                double norm = 1.0;
                if (x) {
                    b->pair_theta[pair] = pair_pos(b, b->pos[r], pair) * b->omega[pair];
                    norm = pc_model_pair_norm(x[j], x[mate]);
                    b->pair_bound[pair] = element_bound(b, pair, b->pos[r], norm);
                }
                b->pair_bound[pair] = norm_held(b, pair, b->pos[r], norm, b->pair_bound[pair],
                                                got[j], got[mate], ref64[cl->ref[j]],
                                                ref64[cl->ref[mate]]);
            }
            observe(c, m, &a, b->pos[r], j, pair, got[j], ref32[cl->ref[j]], ref64[cl->ref[j]],
                    b->pair_bound[pair], b->pair_theta[pair]);
        }
    }
    sums_store(m, &a);
}

/* W's element in a call of as many positions as the gate's block calls
 * (PC_ACC_BLOCK - 1, the consecutive positions up to W's, or from it,
 * within what the source serves), against its bound: W->batched_ratio, the
 * call's size W->batched_n.  W was asked for alone; a batched value within
 * its bound says the kernel's single-position path is the one at fault.
 * Drawn inputs are a function of the position. */
static void batched_ratio(block *b, pc_witness *w)
{
    const pc_acc_cfg *c = b->cfg;
    const pc_rows *rw = b->rows;
    size_t d = (size_t)c->d;
    int64_t lo = b->impl->pos_bounded ? b->impl->pos_min : 0;
    int64_t hi = b->impl->pos_bounded ? b->impl->pos_max : PC_POS_MAX;
    int64_t from = w->pos - (PC_ACC_BLOCK - 2) > lo ? w->pos - (PC_ACC_BLOCK - 2) : lo;
    int64_t to = from + (PC_ACC_BLOCK - 2) < hi ? from + (PC_ACC_BLOCK - 2) : hi;
    if (to <= from) return; /* a run of one position: no call of several */
    size_t n = (size_t)(to - from + 1), at = (size_t)(w->pos - from);
    for (size_t r = 0; r < n; r++) b->pos[r] = from + (int64_t)r;
    if (rw->input)
        for (size_t r = 0; r < n; r++) input_row(c, b->pos[r], b->x + r * d);
    pc_fault fault;
    int rc = rw->call(b->impl, &fault, b->pos, n, c->d, c->base, c->layout,
                      rw->input ? b->x : NULL, b->got);
    if (rc != 0 || fault.faulted) return;
    pc_witness x = *w;
    x.got = b->got[at * d + (size_t)w->dim];
    w->batched_ratio = pc_check_element(&x);
    w->batched = 1;
    w->batched_n = (int)n;
}

/* Error split of one witness.
 * Implied (any source): the element's pair (got_a, got_b) against the
 * reference pair: the angle between them and the ratio of their norms.
 * Exact (implementations with an `angles` hook): the reference evaluated at
 * the implementation's own binary32 angle separates the angle's error from
 * the evaluation's. */
void pc_blk_split_witness(block *b, pc_witness *w)
{
    const pc_acc_cfg *c = b->cfg;
    if (!w->valid) return;
    w->alone = pc_acc_alone(c, w->pos);
    if (w->alone) batched_ratio(b, w);
    if (!isfinite(w->got)) return;
    size_t d = (size_t)c->d;
    int64_t pos = w->pos;
    int pair, first;
    int k = pc_blk_pair_of(c->layout, c->d, w->dim, &pair, &first);
    b->pos[0] = pos;
    const pc_rows *rw = b->rows;
    const float *x = rw->input ? b->x : NULL;
    pc_fault fault;
    int rc = pc_blk_call(b, b->impl, 1, &fault, NULL);
    if (rc != 0 || fault.faulted) return;
    rc = rw->ref(b->freqs, pos, c->layout, x, NULL, b->ref64);
    if (rc != 0) return;
    int ia = first ? w->dim : k, ib = first ? k : w->dim;
    double ga = (double)b->got[ia], gb = (double)b->got[ib], ra = b->ref64[ia], rb = b->ref64[ib];
    /* sinusoidal pairs are (sin, cos): angle = atan2(sin, cos);
     * RoPE pairs are (x, y) points: angle = atan2(y, x) */
    int sinus = !rw->input;
    double ag = sinus ? atan2(ga, gb) : atan2(gb, ga);
    double ar = sinus ? atan2(ra, rb) : atan2(rb, ra);
    double da = remainder(ag - ar, 2.0 * M_PI);
    w->angle_err = da;
    w->norm_err = hypot(ga, gb) / hypot(ra, rb) - 1.0;
    w->has_split = 1;
    if (!b->impl->angles) return;
    float *theta = malloc(d / 2 * sizeof *theta);
    if (!theta) return;
    if (b->impl->angles(b->impl->ctx, b->pos, 1, c->d, c->base, theta) == 0) {
        pc_ref2 s, co;
        float t = theta[pair];
        if (pc_ref_sincos_of((double)t, &s, &co) == PC_OK) {
            double at;
            if (sinus) at = first ? s.f64 : co.f64;
            else {
                double xa = (double)b->x[ia], xb = (double)b->x[ib];
                at = first ? xa * co.f64 - xb * s.f64 : xa * s.f64 + xb * co.f64;
            }
            w->theta_impl = t;
            w->angle_part = fabs(at - w->ref);
            w->eval_part = fabs((double)w->got - at);
            w->has_split = 2;
        }
    }
    free(theta);
}

void pc_blk_free(block *b)
{
    pc_freqs_free(b->freqs);
    free(b->omega); free(b->kappa); free(b->pos); free(b->ref32); free(b->ref64);
    free(b->pair_theta); free(b->pair_bound);
    free(b->fit_got); free(b->fc); free(b->fs); free(b->fct); free(b->fst);
    free(b->fc1); free(b->fs1);
    for (int l = 0; l < PC_ACC_LANES; l++) { free(b->lane_got[l]); free(b->lane_x[l]); }
}

/* kappa_i of pair I of frequency OMEGA (model.h): 0 where omega is exactly
 * 1 (base^0, unscaled: every formulation computes it and pos * 1 exactly);
 * the strict class's (pc_acc_class_kappa); a schedule's own constant (docs/schedules.md: its
 * frequency's error, the angle's rounding and the evaluation); the default
 * class's of the geometric frequencies. */
static double pair_kappa(const pc_acc_cfg *cfg, const pc_schedule *s, int i, double omega)
{
    if (omega == 1.0) return 0.0;
    if (cfg->strict) return pc_acc_class_kappa(cfg, i);
    if (cfg->sched) return pc_schedule_model_c(s, cfg->d, i);
    return pc_model_kappa(PC_CLASS_DEFAULT, cfg->base, cfg->d, i);
}

/* The fit's scratch of a worker (cfg->fit): one row's pairs, and the
 * rotations of (1, 0) of rows with an input; -1 when out of memory. */
static int fit_scratch(block *b, const pc_acc_cfg *cfg, const pc_rows *rows)
{
    if (!cfg->fit || cfg->positions) return 0; /* a sampled run is not fitted */
    size_t h = (size_t)cfg->d / 2;
    b->fc = malloc(h * sizeof(double)); b->fs = malloc(h * sizeof(double));
    b->fct = malloc(h * sizeof(double)); b->fst = malloc(h * sizeof(double));
    if (!rows->input) return b->fc && b->fs && b->fct && b->fst ? 0 : -1;
    b->fit_got = malloc(PC_ACC_BLOCK * (size_t)cfg->d * sizeof(float));
    b->fc1 = malloc(h * sizeof(double)); b->fs1 = malloc(h * sizeof(double));
    return b->fc && b->fs && b->fct && b->fst && b->fit_got && b->fc1 && b->fs1 ? 0 : -1;
}

/* Scratch of a worker for NL layouts: its own frequencies (a pc_freqs is
 * not shared between threads), a GOT and an X each, one reference. */
pc_status pc_blk_new(block *b, const pc_impl *impl, const pc_acc_cfg *cfg,
                           const pc_rows *rows, int nl, pc_err *err)
{
    size_t d = (size_t)cfg->d, B = PC_ACC_BLOCK;
    pc_schedule s = cfg->sched ? *cfg->sched : pc_schedule_geometric(cfg->base);
    block z = { impl, cfg, pc_freqs_new(cfg->d, s), malloc(d / 2 * sizeof(double)),
                malloc(B * sizeof(int64_t)), NULL, malloc(B * d * sizeof(float)), NULL,
                malloc(B * d * sizeof(double)), pc_model_u_storage(cfg->dtype), 0.0,
                malloc(d / 2 * sizeof(double)), rows, 1.0, { NULL }, { NULL },
                malloc(d / 2 * sizeof(double)), malloc(d / 2 * sizeof(double)), 0.0,
                NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, 0 };
    *b = z;
    int ok = b->freqs && b->omega && b->kappa && b->pos && b->ref32 && b->ref64 && b->pair_theta
          && b->pair_bound && fit_scratch(b, cfg, rows) == 0;
    for (int l = 0; l < nl && ok; l++) {
        b->lane_got[l] = malloc(B * d * sizeof(float));
        b->lane_x[l] = malloc(B * d * sizeof(float));
        ok = b->lane_got[l] && b->lane_x[l];
    }
    if (!ok) {
        pc_blk_free(b);
        memset(b, 0, sizeof *b);
        return pc_seterr(err, PC_ENOMEM, "out of memory for d = %d", cfg->d);
    }
    b->got = b->lane_got[0];
    b->x = b->lane_x[0];
    b->mapped = pc_freqs_mapped(b->freqs);
    b->scaled = pc_freqs_scaled(b->freqs);
    /* the bound of a value A cos, A sin scales with A (docs/schedules.md) */
    double att = pc_freqs_attention(b->freqs);
    b->att = att;
    b->u_min = pc_model_u_min(cfg->dtype);
    b->R = pc_model_radial(rows->input, att)
           + (rows->input ? pc_schedule_model_r(&s, cfg->d) : 0.0);
    for (int i = 0; i < cfg->d / 2; i++) {
        b->omega[i] = pc_freqs_omega(b->freqs, i);
        b->kappa[i] = pair_kappa(cfg, &s, i, b->omega[i]);
        if (b->fc1) sincos(b->omega[i], &b->fs1[i], &b->fc1[i]);
    }
    return PC_OK;
}

/* The largest position pair I is rotated by over the run's rows: the
 * last row's, or, where the schedule maps rows to positions (position
 * ids), the largest it maps a row to (a real coordinate: |x| rounded up). */
static int64_t pair_far(const block *b, int i)
{
    const pc_acc_cfg *c = b->cfg;
    if (!b->mapped) return c->pos_hi;
    int64_t far = -1;
    for (int64_t pos = c->pos_lo; pos <= c->pos_hi; pos++) {
        double x = fabs(pc_freqs_coord(b->freqs, pos, i)); /* a coordinate's |x|, rounded up */
        int64_t p = x <= (double)PC_POS_MAX ? (int64_t)ceil(x) : -1;
        if (p > far) far = p;
    }
    return far;
}

/* The largest A kappa_i (the result's C) and where the budget stops
 * constraining (pc_acc_reach) for the pairs of B: VAC_POS and REP_POS are
 * a pair's own positions (under position ids, the ids' values), and
 * VAC_PAIRS counts the pairs rotated that far in the run. */
void pc_blk_budget_reach(const block *b, pc_acc_result *res)
{
    const pc_acc_cfg *c = b->cfg;
    pc_acc_reach z = { 0, INT64_MAX, INT64_MAX, -1, -1, 0 };
    double kmax = 0.0;
    for (int i = 0; i < c->d / 2; i++) {
        if (b->kappa[i] > kmax) kmax = b->kappa[i];
        int64_t v = pc_model_vacuous_from(b->kappa[i], b->omega[i], b->R);
        /* the angle's own rounding: kappa 1 (0 for an exact pair) */
        int64_t q = pc_model_vacuous_from(b->kappa[i] > 0 ? 1.0 : 0.0, b->omega[i], 0.0);
        if (v < z.vac_pos) { z.vac_pos = v; z.vac_pair = i; }
        if (q < z.rep_pos) { z.rep_pos = q; z.rep_pair = i; }
        if (v <= pair_far(b, i)) z.vac_pairs++;
    }
    z.known = 1;
    res->C = kmax * b->att;
    res->R = b->R;
    res->reach = z;
}

/* ---- what the output asks of the engine ------------------------------ */

/* The rows of CFG's family (validated by pc_accuracy_run or the shard
 * reader; a family without rows reads as rows without an input). */
const pc_rows *pc_accuracy_rows_of(const pc_acc_cfg *cfg)
{
    static const pc_rows none = { .model = "unknown", .pair_name = "pair" };
    const pc_family *f = pc_family_find(cfg->family);
    return f && f->rows ? f->rows : &none;
}

double pc_accuracy_bound_at(const pc_acc_cfg *cfg, const pc_witness *w)
{
    const pc_rows *rw = pc_accuracy_rows_of(cfg);
    pc_err err;
    block b;
    if (!w->valid || pc_blk_new(&b, NULL, cfg, rw, 1, &err) != PC_OK) return -1.0;
    int pair, first;
    int k = pc_blk_pair_of(cfg->layout, cfg->d, w->dim, &pair, &first);
    double norm = 1.0;
    if (rw->input) {
        input_row(cfg, w->pos, b.x);
        norm = pc_model_pair_norm(b.x[w->dim], b.x[k]);
    }
    double bound = element_bound(&b, pair, w->pos, norm);
    pc_blk_free(&b);
    return bound;
}

double pc_acc_class_kappa(const pc_acc_cfg *cfg, int i)
{
    if (!cfg->strict) return -1.0;
    if (cfg->form) return cfg->form->kappa[i];
    return pc_model_kappa(PC_CLASS_STRICT, cfg->base, cfg->d, i);
}

/* Under --strict, what the worst element's angle W says of the class (its
 * pair's phase against the strict class's kappa and, for the geometric
 * frequencies, the default class's) into BUF; 0 when there is nothing to
 * say. */
int pc_accuracy_class_why(char *buf, size_t len, const pc_acc_cfg *cfg, const pc_witness *w)
{
    if (!cfg->strict || (cfg->sched && !cfg->form) || cfg->tol_abs >= 0 || w->has_split < 1
        || w->theta == 0.0)
        return 0;
    int pair, first;
    pc_blk_pair_of(cfg->layout, cfg->d, w->dim, &pair, &first);
    double k = fabs(w->angle_err) / (PC_MODEL_U32 * fabs(w->theta));
    int n = snprintf(buf, len, "strict class: the angle of pair %d is off by %.3g rad = %.3g u|theta|; "
                     "the %s class allows %.3g u|theta| (%s)", pair, fabs(w->angle_err), k,
                     pc_model_class_name(cfg->strict), pc_acc_class_kappa(cfg, pair),
                     cfg->form ? cfg->form->what : "a correctly rounded binary32 frequency and angle");
    if (cfg->sched) return 1; /* the forms below are those of the geometric frequencies */
    double kd = pc_model_kappa(PC_CLASS_DEFAULT, cfg->base, cfg->d, pair);
    double ke = fmax(pc_model_kappa_form(PC_FORM_EXP, cfg->base, cfg->d, pair),
                     pc_model_kappa_form(PC_FORM_POW, cfg->base, cfg->d, pair));
    size_t u = n > 0 && (size_t)n < len ? (size_t)n : len - 1;
    if (k <= ke)
        snprintf(buf + u, len - u, "; within the exp and pow forms' %.3g: a frequency computed by exp "
                 "or pow, %s; the default class holds it", ke, cfg->form
                 ? "not by the class's own code" : "not correctly rounded");
    else if (k <= kd)
        snprintf(buf + u, len - u, "; beyond the exp and pow forms' %.3g, within the default class's "
                 "%.3g: a cumulative product (ggml: theta *= powf(base, -2/d), drifting by about i "
                 "ulps at pair i)", ke, kd);
    return 1;
}
