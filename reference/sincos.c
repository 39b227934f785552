/* sincos.c: certified sin and cos of pos * omega_i, omega_i from a
 * frequency schedule (schedule.h; the geometric one: base^(-2i/d)).
 *
 * Ziv's strategy (MPFR's pattern): evaluate at working precision p with a
 * rigorous error bound, ask whether the binary32 and binary64 roundings are
 * determined (round.c), otherwise raise p and retry.  The error analysis is
 * written next to each step; docs/reference.md collects it.  Before it: the
 * binary32 vector path (vecpath.c) for whole rows when only binary32 is
 * asked for, and the double-double fast path (fastpath.c) for each pair. */
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include "fastpath.h"
#include "round.h"
#include "schedule.h"
#include "vecpath.h"

static float fabsf_max(float a, float b)
{
    a = fabsf(a); b = fabsf(b);
    return a > b ? a : b;
}

struct pc_freqs {
    int d;
    pc_schedule sched;    /* the frequency schedule */
    mpfr_prec_t *wprec;   /* precision omega[i] was computed at */
    mpfr_t *omega;        /* omega_i, relative error < 4 * 2^-wprec[i] */
    mpfr_t theta, s, c;   /* scratch, reset to the loop's precision */
    pc_fast *fast;        /* double-double fast path (fastpath.c); NULL: MPFR only */
    int use_fast;         /* pc_freqs_use_fast */
    uint64_t n_fast, n_mpfr; /* pairs decided by each path */
    pc_vec *vec;          /* binary32 vector path (vecpath.c); NULL: not used */
    int use_vec;          /* pc_freqs_use_vec */
    int *undec;           /* d/2 indices: pairs the vector test left undecided */
    uint64_t n_vec, n_vec_undec; /* pairs decided by the vector path / sent on */
    /* The schedule's attention factor A (schedule.h); has_att = 0: A = 1. */
    int has_att;
    int mapped;           /* the schedule maps a row's position to each pair's (schedule.h) */
    int real;             /* ... to real coordinates (schedule.h, coord) */
    double *pi_r;         /* d/2: omega_i = pi_r[i] pi exactly where has_pi[i] (schedule.h, */
    unsigned char *has_pi;/* pi_ratio); NULL: no pair */
    int att_exact;        /* att holds A exactly (a binary64 parameter) */
    mpfr_t att;           /* A, relative error < 4 * 2^-att_prec (0 when exact) */
    mpfr_prec_t att_prec;
    double att_hi, att_lo;/* A as a double-double, |A - hi - lo| <= 2^-104 A (fast path) */
    mpfr_t sc;            /* scratch of the products with A */
    /* The schedule's factor per pair and position (schedule.h, pair_scale:
     * xPos); has_ps = 0: none.  G holds G_i(pos) of the current step. */
    int has_ps;
    mpfr_t g;
    /* Rows of consecutive positions (pc_ref_sinusoidal_row,
     * pc_ref_rope_row): each pair's sin and cos of the last row, to be
     * rotated to the next (pc_fast_rotate): 5 per pair, s hi, lo, c hi, lo
     * and the bound M (unscaled by A; M < 0: none), valid for the row at
     * ROT_POS (-1: none). */
    double *rot;
    int64_t rot_pos;
    pc_ref2 *rot_s, *rot_c; /* d/2 each: a row's values decided by rotation */
    int *rot_undec;       /* d/2: the pairs of a row it left (pc_fast_rotate_row) */
    uint64_t n_rot;       /* pairs decided by a rotation (also counted as fast) */
};

/* Precision of the omega handed to the fast path (pc_fast_set needs >= 300). */
#define PC_OMEGA_PREC_FAST 320

/* Starting precision of omega: enough for every first Ziv step at
 * positions up to 2^53 (53 integer bits + 53 result bits + guard). */
#define PC_OMEGA_PREC0 192

pc_status pc_ref_check_params(int d, double base, pc_err *err)
{
    if (d < 2 || d > PC_D_MAX || d % 2 != 0)
        return pc_seterr(err, PC_EINPUT,
                         "d must be an even integer in [2, %d], got %d", PC_D_MAX, d);
    if (!(base > 1.0) || base > 1.7976931348623157e308)
        return pc_seterr(err, PC_EINPUT, "base must be a finite number > 1, got %g", base);
    return PC_OK;
}

static void compute_att(pc_freqs *f, mpfr_prec_t prec)
{
    mpfr_set_prec(f->att, prec);
    f->att_prec = prec;
    f->att_exact = f->sched.kind->attention(f->att, &f->sched, f->d);
}

/* A as a double-double: hi = RN(A~), lo = RN(A~ - hi) with A~ at 320 bits
 * (relative error < 4 * 2^-320): |A - hi - lo| <= 2^-106 A + 2^-318 A
 * < 2^-104 A. */
static void set_att_dd(pc_freqs *f)
{
    mpfr_t t;
    mpfr_init2(t, PC_OMEGA_PREC_FAST);
    compute_att(f, PC_OMEGA_PREC_FAST);
    f->att_hi = mpfr_get_d(f->att, MPFR_RNDN);
    mpfr_sub_d(t, f->att, f->att_hi, MPFR_RNDN); /* exact: t is A~'s low bits */
    f->att_lo = mpfr_get_d(t, MPFR_RNDN);
    mpfr_clear(t);
}

double pc_freqs_attention(const pc_freqs *f)
{
    return f->has_att ? f->att_hi : 1.0;
}

static void compute_omega(pc_freqs *f, int i, mpfr_prec_t prec)
{
    mpfr_set_prec(f->omega[i], prec);
    f->wprec[i] = prec;
    f->sched.kind->omega(f->omega[i], &f->sched, f->d, i);
}

pc_freqs *pc_freqs_new(int d, pc_schedule s)
{
    if (!s.kind || s.kind->check(&s, d, NULL) != PC_OK)
        return NULL;
    pc_freqs *f = calloc(1, sizeof *f);
    if (!f) return NULL;
    int h = d / 2;
    f->d = d;
    f->sched = s;
    f->wprec = calloc((size_t)h, sizeof *f->wprec);
    f->omega = calloc((size_t)h, sizeof *f->omega);
    if (!f->wprec || !f->omega) {
        free(f->wprec); free(f->omega); free(f);
        return NULL;
    }
    for (int i = 0; i < h; i++) {
        mpfr_init2(f->omega[i], PC_OMEGA_PREC0);
        compute_omega(f, i, PC_OMEGA_PREC0);
    }
    mpfr_inits2(64, f->theta, f->s, f->c, f->sc, f->att, f->g, (mpfr_ptr)0);
    if (s.kind->attention) {
        f->has_att = 1;
        set_att_dd(f);
    }
    /* Without memory for the fast path every value still comes from MPFR;
     * a factor per pair and position (xPos) is certified by MPFR alone:
     * the fast and vector paths know one factor A for every value. */
    f->has_ps = s.kind->pair_scale != NULL;
    f->fast = f->has_ps ? NULL : pc_fast_new(d);
    /* a row rotated from the row before, and the vector path's one angle
     * per pair of a row, need the position of every pair to be the row's */
    f->mapped = s.kind->position != NULL || s.kind->coord != NULL;
    f->real = s.kind->coord != NULL;
    if (s.kind->pi_ratio) {
        f->pi_r = calloc((size_t)h, sizeof *f->pi_r);
        f->has_pi = calloc((size_t)h, sizeof *f->has_pi);
        if (!f->pi_r || !f->has_pi) { pc_freqs_free(f); return NULL; }
        for (int i = 0; i < h; i++) f->has_pi[i] = (unsigned char)s.kind->pi_ratio(&s, d, i, &f->pi_r[i]);
    }
    f->rot = f->mapped ? NULL : malloc(5 * (size_t)h * sizeof *f->rot); /* NULL: rows never rotate */
    f->rot_s = malloc((size_t)h * sizeof *f->rot_s); /* NULL: rows rotate pair by pair */
    f->rot_c = malloc((size_t)h * sizeof *f->rot_c);
    f->rot_undec = malloc((size_t)h * sizeof *f->rot_undec);
    f->rot_pos = -1;
    /* The vector path needs the scalar fast path for its undecided pairs. */
    if (f->fast) {
        f->vec = pc_vec_new(d);
        f->undec = malloc((size_t)h * sizeof *f->undec);
        if (!f->vec || !f->undec) {
            pc_vec_free(f->vec); free(f->undec);
            f->vec = NULL; f->undec = NULL;
        }
    }
    if (f->fast) {
        mpfr_t w;
        mpfr_init2(w, PC_OMEGA_PREC_FAST);
        for (int i = 0; i < h; i++) {
            s.kind->omega(w, &s, d, i); /* relative error < 4 * 2^-320 */
            pc_fast_set(f->fast, i, w);
            if (f->vec) pc_vec_set(f->vec, i, w);
        }
        mpfr_clear(w);
        f->use_fast = 1;
        /* the vector path rounds sin and cos themselves: not A sin, A cos */
        f->use_vec = f->vec != NULL && !f->has_att && !f->mapped;
    }
    return f;
}

void pc_freqs_free(pc_freqs *f)
{
    if (!f) return;
    for (int i = 0; i < f->d / 2; i++)
        mpfr_clear(f->omega[i]);
    mpfr_clears(f->theta, f->s, f->c, f->sc, f->att, f->g, (mpfr_ptr)0);
    pc_fast_free(f->fast);
    free(f->rot); free(f->rot_s); free(f->rot_c); free(f->rot_undec);
    free(f->pi_r); free(f->has_pi);
    pc_vec_free(f->vec);
    free(f->undec);
    free(f->omega);
    free(f->wprec);
    free(f);
}

double pc_freqs_omega(const pc_freqs *f, int i)
{
    return mpfr_get_d(f->omega[i], MPFR_RNDN);
}

/* A pair's position: an integer (PC_POS_INT, *P), a real coordinate that
 * is not a whole number in [0, 2^53] (PC_POS_REAL, *X: the exact binary64
 * given), or none (PC_POS_NONE).  A whole coordinate is its integer: the
 * fast paths take it and the Ziv loop's product is the same exact one. */
enum { PC_POS_NONE = 0, PC_POS_INT, PC_POS_REAL };
static int pair_at(const pc_freqs *f, int64_t pos, int i, int64_t *p, double *x)
{
    *x = 0.0;
    if (!f->real) {
        *p = f->mapped ? f->sched.kind->position(&f->sched, f->d, pos, i) : pos;
        return *p >= 0 && *p <= PC_POS_MAX ? PC_POS_INT : PC_POS_NONE;
    }
    double v = f->sched.kind->coord(&f->sched, f->d, pos, i);
    *p = -1;
    if (!(fabs(v) <= (double)PC_POS_MAX)) return PC_POS_NONE; /* NaN: no row */
    if (v >= 0.0 && v == floor(v)) { *p = (int64_t)v; return PC_POS_INT; } /* -0 is 0 */
    *x = v;
    return PC_POS_REAL;
}

int64_t pc_freqs_pos(const pc_freqs *f, int64_t pos, int i)
{
    int64_t p;
    double x;
    return pair_at(f, pos, i, &p, &x) == PC_POS_INT ? p : -1;
}

double pc_freqs_coord(const pc_freqs *f, int64_t pos, int i)
{
    int64_t p;
    double x;
    int k = pair_at(f, pos, i, &p, &x);
    return k == PC_POS_INT ? (double)p : k == PC_POS_REAL ? x : (double)NAN;
}

int pc_freqs_mapped(const pc_freqs *f)
{
    return f->mapped;
}

/* Bits of the integer part of x * omega_i, from a double estimate. */
static mpfr_prec_t start_prec(const pc_freqs *f, double x, int i)
{
    double t = fabs(x) * mpfr_get_d(f->omega[i], MPFR_RNDN);
    int e = 0;
    if (t >= 1.0) { double u = t; while (u >= 1.0) { u *= 0.5; e++; } }
    /* 53 result bits, 32 guard bits, plus the integer bits lost to the
     * argument reduction (sin of a large angle needs its low bits). */
    return (mpfr_prec_t)(53 + 32 + e);
}

/* One Ziv step at precision P: f->s, f->c approximate sin(theta), cos(theta)
 * with |f->s - sin| <= 2^*ES and |f->c - cos| <= 2^*EC.  The position X
 * is exact (an integer up to 2^53, or a real coordinate as given: a
 * binary64), of either sign; the product below is its one rounding.
 *
 * theta~ = RN_p(x * omega~):
 *   |theta~ - theta| <= |theta~ - x omega~| + |x| |omega~ - omega|
 *                    <= 2^(E(theta~)-p-1) + 4 * 2^-wprec |theta|
 *                    <= 2^(E(theta~)-p)          since wprec >= p + 8.
 * s~ = RN_p(sin theta~): sin is 1-Lipschitz, so
 *   |s~ - sin theta| <= 2^(E(theta~)-p) + 2^(E(s~)-p-1)
 *                    <= 2^(max(E(theta~)-p, E(s~)-p-1) + 1), same for cos. */
/* Y (|Y - y| <= 2^*E, |y| <= 2^EY, precision P) times a factor A > 0
 * (the attention factor, or xPos's G_i(pos)), in place: Y' = RN_p(Y A~)
 * with |A~ - A| <= 2^-(p+6) A (0 when EXACT) and A, A~ < 2^ea (ea =
 * E(A~) + 1: A~ < 2^E(A~) and A <= A~ (1 + 2^-(p+6))):
 *   |Y' - A y| <= A~ |Y - y| + |y| |A~ - A| + 2^(E(Y')-p-1)
 *              <= 2^(ea+E) + 2^(EY+ea-p-6) + 2^(E(Y')-p-1)
 *              <= 2^(max(ea+E, EY+ea-p-6, E(Y')-p-1) + 2).
 * Returns EY + ea: |A y| <= 2^(EY+ea), the next factor's EY. */
static mpfr_exp_t scale_by(mpfr_t y, mpfr_srcptr a, int exact, mpfr_prec_t p, mpfr_exp_t *e,
                           mpfr_exp_t ey)
{
    mpfr_exp_t ea = mpfr_get_exp(a) + 1;
    mpfr_mul(y, y, a, MPFR_RNDN);
    mpfr_exp_t m = ea + *e;
    if (!exact && ey + ea - p - 6 > m) m = ey + ea - p - 6;
    if (!mpfr_zero_p(y) && mpfr_get_exp(y) - p - 1 > m) m = mpfr_get_exp(y) - p - 1;
    *e = m + 2;
    return ey + ea;
}

/* A~ with |A~ - A| <= 4 * 2^-att_prec A <= 2^-(p+6) A (att_prec >= p + 8;
 * 0 when exact). */
static void need_att(pc_freqs *f, mpfr_prec_t p)
{
    if (!f->att_exact && f->att_prec < p + 8)
        compute_att(f, 2 * (p + 8));
}

/* G_i(pos) into f->g at precision 2 (p + 8): relative error < 4 *
 * 2^-(2p+16) <= 2^-(p+6), the bound scale_by asks of a factor. */
static void compute_g(pc_freqs *f, int64_t pos, int i, mpfr_prec_t p)
{
    mpfr_set_prec(f->g, 2 * (p + 8));
    f->sched.kind->pair_scale(f->g, &f->sched, f->d, pos, i);
}

/* Y (|Y - y| <= 2^*E, |y| <= 1) times A, then times G_i(pos) (f->g,
 * compute_g): A G y. */
static void scale_factors(pc_freqs *f, mpfr_t y, mpfr_prec_t p, mpfr_exp_t *e)
{
    mpfr_exp_t ey = 0;
    if (f->has_att) {
        need_att(f, p);
        ey = scale_by(y, f->att, f->att_exact, p, e, ey);
    }
    if (f->has_ps) scale_by(y, f->g, 0, p, e, ey);
}

double pc_freqs_scale(pc_freqs *f, int64_t pos, int i)
{
    if (!f->has_ps) return 1.0;
    mpfr_set_prec(f->g, 64); /* relative error < 4 * 2^-64 */
    f->sched.kind->pair_scale(f->g, &f->sched, f->d, pos, i);
    return mpfr_get_d(f->g, MPFR_RNDN);
}

int pc_freqs_scaled(const pc_freqs *f)
{
    return f->has_ps;
}

static void ziv_step(pc_freqs *f, double x, int i, mpfr_prec_t p,
                     mpfr_exp_t *es, mpfr_exp_t *ec)
{
    if (f->wprec[i] < p + 8)
        compute_omega(f, i, 2 * (p + 8));
    mpfr_set_prec(f->theta, p);
    mpfr_set_prec(f->s, p);
    mpfr_set_prec(f->c, p);
    mpfr_mul_d(f->theta, f->omega[i], x, MPFR_RNDN); /* x exact: one rounding */
    mpfr_sin_cos(f->s, f->c, f->theta, MPFR_RNDN);
    mpfr_exp_t et = mpfr_get_exp(f->theta) - p;
    mpfr_exp_t e_s = mpfr_zero_p(f->s) ? et : mpfr_get_exp(f->s) - p - 1;
    mpfr_exp_t e_c = mpfr_zero_p(f->c) ? et : mpfr_get_exp(f->c) - p - 1;
    *es = (et > e_s ? et : e_s) + 1;
    *ec = (et > e_c ? et : e_c) + 1;
    if (f->has_ps) compute_g(f, (int64_t)x, i, p); /* xPos: whole positions only */
    if (f->has_att || f->has_ps) {
        scale_factors(f, f->s, p, es);
        scale_factors(f, f->c, p, ec);
    }
}

/* A G_i(pos) v with G_i(pos) (schedule.h, pair_scale) of relative error
 * <= 2^-(p+6) (compute_g), A's likewise or exact: T = RN_p(A~ G~) and Y =
 * RN_p(T v) carry relative error <= (1 + 2^-(p+6))^2 (1 + 2^-p)^2 - 1
 * < 2^(-p+1.1) of A G v, and A G |v| < 2^(E(Y)+0.01): |Y - A G v| <=
 * 2^(E(Y)-p+2). */
/* Bits of an exact factor taken whole (exact_scaled): xPos's whole powers
 * of a binary fraction N / 2^k, N < 2^16 (10 i + 2 d, d <= 8192), to the
 * 69 / ln(7/2) < 56th power: at most 56 * 16 = 896 bits, well inside. */
#define EXACT_G_PREC 4096

/* A G_i(pos) v when G is exact (pair_scale returns 1) and A is (or there
 * is none): the product of exact values, exact at EXACT_G_PREC + 53 + 24
 * bits, rounded once to binary64 and once to binary32 (a value on a
 * rounding boundary, which the Ziv loop below could not decide, included).
 * 1, or 0 when G or the product is not exact. */
static int exact_scaled(pc_freqs *f, int64_t pos, int i, float v, pc_ref2 *r)
{
    if (f->has_att && !f->att_exact) return 0;
    mpfr_set_prec(f->g, EXACT_G_PREC);
    if (!f->sched.kind->pair_scale(f->g, &f->sched, f->d, pos, i)) return 0;
    mpfr_t y;
    mpfr_init2(y, EXACT_G_PREC + 53 + 24 + 64);
    int inexact = mpfr_mul_d(y, f->g, (double)v, MPFR_RNDN) != 0;
    if (f->has_att) inexact |= mpfr_mul(y, y, f->att, MPFR_RNDN) != 0;
    if (!inexact) {
        r->f64 = mpfr_get_d(y, MPFR_RNDN);
        r->f32 = mpfr_get_flt(y, MPFR_RNDN);
    }
    mpfr_clear(y);
    return !inexact;
}

static pc_status scaled_times(pc_freqs *f, int64_t pos, int i, float v, pc_ref2 *r)
{
    if (exact_scaled(f, pos, i, v, r)) return PC_OK;
    mpfr_t y;
    mpfr_init2(y, 64);
    int ok = 0;
    for (mpfr_prec_t p = 64; !ok && p <= PC_ZIV_MAX_PREC; p += p / 2) {
        compute_g(f, pos, i, p);
        mpfr_set_prec(y, p);
        mpfr_set(y, f->g, MPFR_RNDN);
        if (f->has_att) {
            need_att(f, p);
            mpfr_mul(y, y, f->att, MPFR_RNDN);
        }
        mpfr_mul_d(y, y, (double)v, MPFR_RNDN);
        ok = pc_round_certified(y, mpfr_get_exp(y) - p + 2, r);
    }
    mpfr_clear(y);
    return ok ? PC_OK : PC_EINTERNAL;
}

/* A v for an exact binary32 V (cos at position 0 is A; a rotation by 0 is
 * A x), certified; with a factor per pair and position, A G_i(pos) v
 * (scaled_times).  Exact A: the product of two binary64 values is exact
 * at 128 bits and rounded once (ties to even).  Otherwise the Ziv loop on
 * Y = RN_p(A~ v): |A~ v - A v| <= 4 * 2^-att_prec A |v| <= 2^(E(Y)-p-5)
 * (att_prec >= p + 8, A |v| < 2^(E(Y)+1)) and the rounding 2^(E(Y)-p-1):
 * |Y - A v| <= 2^(E(Y)-p). */
static pc_status att_times(pc_freqs *f, int64_t pos, int i, float v, pc_ref2 *r)
{
    if (f->has_ps && v != 0.0f) return scaled_times(f, pos, i, v, r);
    if (!f->has_att || v == 0.0f) {
        r->f64 = (double)v; /* A 0 = 0 with v's sign (A > 0) */
        r->f32 = v;
        return PC_OK;
    }
    mpfr_t y;
    mpfr_init2(y, 128);
    int ok = 0;
    if (f->att_exact) {
        mpfr_mul_d(y, f->att, (double)v, MPFR_RNDN); /* exact */
        r->f64 = mpfr_get_d(y, MPFR_RNDN);
        r->f32 = mpfr_get_flt(y, MPFR_RNDN);
        ok = 1;
    }
    for (mpfr_prec_t p = 64; !ok && p <= PC_ZIV_MAX_PREC; p += p / 2) {
        if (f->att_prec < p + 8)
            compute_att(f, 2 * (p + 8));
        mpfr_set_prec(y, p);
        mpfr_mul_d(y, f->att, (double)v, MPFR_RNDN);
        ok = pc_round_certified(y, mpfr_get_exp(y) - p, r);
    }
    mpfr_clear(y);
    return ok ? PC_OK : PC_EINTERNAL;
}

/* Double-double Y (Y0 = RN(Y0 + Y1), |Y - z| <= *E) times A = hi + lo
 * (set_att_dd: |A - hi - lo| <= 2^-104 A), in place:
 *   P = Y0 hi exactly (P0 + P1, fma), t = RN(RN(Y0 lo) + RN(Y1 hi)),
 *   Y' = fast_two_sum(P0, RN(P1 + t)).
 * With |Y1| <= 2^-53 |Y0|, |lo| <= 2^-53 hi: the two products' roundings
 * <= 2^-105, t's sum <= 2^-105, P1 + t's <= 2^-104, the dropped Y1 lo
 * <= 2^-106 (all relative to |Y0 hi|), and |Y| |A - hi - lo| <= 2^-103.9
 * |Y0 hi|: < 2^-102 |Y0 hi| <= 2^-101 |Y'0| together; A |Y - z| <=
 * hi (1 + 2^-52) *E.  The bound itself is evaluated in binary64 (four
 * roundings, each 2^-53 relative): the final factor (1 + 2^-49) covers
 * them. */
static void att_dd(const pc_freqs *f, double y[2], double *e)
{
    double p0 = y[0] * f->att_hi;
    double p1 = fma(y[0], f->att_hi, -p0);
    double t = y[0] * f->att_lo + y[1] * f->att_hi;
    double r = p1 + t;
    double h = p0 + r;
    y[1] = r - (h - p0); /* fast_two_sum: |p0| >= |r| */
    y[0] = h;
    *e = (f->att_hi * *e * (1.0 + 0x1p-52) + 0x1p-101 * fabs(h)) * (1.0 + 0x1p-49);
}

static void set_exact(pc_ref2 *r, double v)
{
    r->f64 = v;
    r->f32 = (float)v; /* v is 0 or 1 here: exact in binary32 */
}

int pc_fast_sincos_of_freqs(const pc_freqs *f, int64_t pos, int i, double s[2], double c[2])
{
    return f->fast && i >= 0 && i < f->d / 2 ? pc_fast_sincos(f->fast, pos, i, s, c) : 0;
}

void pc_freqs_use_fast(pc_freqs *f, int on)
{
    f->use_fast = on && f->fast;
}

void pc_freqs_stats(const pc_freqs *f, uint64_t *fast, uint64_t *mpfr)
{
    *fast = f->n_fast;
    *mpfr = f->n_mpfr;
}

uint64_t pc_freqs_rot_stats(const pc_freqs *f)
{
    return f->n_rot;
}

int pc_fast_rotate_of_freqs(pc_freqs *f, int i, double s[2], double c[2], double *m)
{
    return f->fast && i >= 0 && i < f->d / 2 ? pc_fast_rotate(f->fast, i, s, c, m) : 0;
}

void pc_freqs_use_vec(pc_freqs *f, int on)
{
    f->use_vec = on && f->vec && !f->has_att && !f->mapped;
}

void pc_freqs_vec_stats(const pc_freqs *f, uint64_t *vec, uint64_t *undecided)
{
    *vec = f->n_vec;
    *undecided = f->n_vec_undec;
}

/* Pair I's angle at the exact position X a multiple of pi / 2 (omega_i =
 * R pi exactly and 2 X R an integer: X and R are binary64, their product
 * exact at 128 bits): *S, *C its sin and cos, each 0 or +-1; else 0.
 * The Ziv loop cannot decide them: an exact 0 has neighbours of either
 * sign at every precision. */
static int exact_quarter(const pc_freqs *f, double x, int i, float *s, float *c)
{
    if (!f->has_pi || !f->has_pi[i]) return 0;
    mpfr_t t;
    mpfr_init2(t, 128);
    mpfr_set_d(t, x, MPFR_RNDN);               /* exact */
    mpfr_mul_d(t, t, 2.0 * f->pi_r[i], MPFR_RNDN); /* exact: 53 + 53 bits, 2 R exact */
    int whole = mpfr_integer_p(t);
    long k = 0;
    if (whole) {
        mpfr_fmod_ui(t, t, 4, MPFR_RNDN);      /* exact: in (-4, 4) */
        k = (mpfr_get_si(t, MPFR_RNDN) + 4) % 4;
    }
    mpfr_clear(t);
    if (!whole) return 0;
    static const float sk[4] = { 0.0f, 1.0f, 0.0f, -1.0f }, ck[4] = { 1.0f, 0.0f, -1.0f, 0.0f };
    *s = sk[k];
    *c = ck[k];
    return 1;
}

/* The Ziv loop at an exact position X (|X| <= 2^53, of either sign). */
static pc_status sincos_at(pc_freqs *f, double x, int i, pc_ref2 *s, pc_ref2 *c)
{
    if (!(fabs(x) <= (double)PC_POS_MAX) || i < 0 || i >= f->d / 2)
        return PC_EINPUT;
    if (x == 0.0) { /* angle exactly 0: sin 0, cos A */
        set_exact(s, 0.0);
        return att_times(f, 0, i, 1.0f, c);
    }
    float qs, qc;
    if (exact_quarter(f, x, i, &qs, &qc)) { /* A sin, A cos of a quarter turn */
        pc_status st = att_times(f, (int64_t)x, i, qs, s);
        return st == PC_OK ? att_times(f, (int64_t)x, i, qc, c) : st;
    }
    int have_s = 0, have_c = 0;
    for (mpfr_prec_t p = start_prec(f, x, i); p <= PC_ZIV_MAX_PREC; p += p / 2) {
        mpfr_exp_t es, ec;
        ziv_step(f, x, i, p, &es, &ec);
        if (!have_s) have_s = pc_round_certified(f->s, es, s);
        if (!have_c) have_c = pc_round_certified(f->c, ec, c);
        if (have_s && have_c)
            return PC_OK;
    }
    return PC_EINTERNAL;
}

pc_status pc_ref_sincos_mpfr(pc_freqs *f, int64_t pos, int i, pc_ref2 *s, pc_ref2 *c)
{
    if (pos < 0 || pos > PC_POS_MAX) return PC_EINPUT;
    return sincos_at(f, (double)pos, i, s, c); /* exact: pos <= 2^53 */
}

/* Double-doubles YS, YC of sin and cos with bounds ES, EC, times A when
 * there is one, rounded: 1 when the test decides every value asked for. */
static int fast_decide(const pc_freqs *f, const double ys[2], double es, const double yc[2],
                       double ec, int need64, pc_ref2 *s, pc_ref2 *c)
{
    if (!f->has_att) return pc_fast_round2(ys, es, yc, ec, need64, s, c);
    double as[2] = { ys[0], ys[1] }, ac[2] = { yc[0], yc[1] };
    att_dd(f, as, &es);
    att_dd(f, ac, &ec);
    return pc_fast_round2(as, es, ac, ec, need64, s, c);
}

/* Pair I's entry of the rotation state (ROW: a call of a row function;
 * others leave the state alone). */
static void rot_keep(pc_freqs *f, int row, int i, const double ys[2], const double yc[2],
                     double m)
{
    if (!row || !f->rot) return;
    double *r = f->rot + 5 * (size_t)i;
    r[0] = ys[0]; r[1] = ys[1]; r[2] = yc[0]; r[3] = yc[1]; r[4] = m;
}

static void rot_drop(pc_freqs *f, int row, int i)
{
    if (row && f->rot) f->rot[5 * (size_t)i + 4] = -1.0;
}

/* Position 0: e^{i 0} = 1 exactly, the anchor of the rows after. */
static void rot_keep_zero(pc_freqs *f, int row, int i)
{
    const double zero[2] = { 0.0, 0.0 }, one[2] = { 1.0, 0.0 };
    rot_keep(f, row, i, zero, one, 0.0);
}

/* The row before's pair I rotated to the next position (fastpath.c,
 * pc_fast_rotate) into S, C with its bound *M, and kept; 0 when it has
 * none or the rotation does not apply. */
static int rot_advance(pc_freqs *f, int i, double s[2], double c[2], double *m)
{
    if (!f->rot) return 0;
    const double *r = f->rot + 5 * (size_t)i;
    s[0] = r[0]; s[1] = r[1]; c[0] = r[2]; c[1] = r[3];
    *m = r[4];
    if (!(*m >= 0.0) || !pc_fast_rotate(f->fast, i, s, c, m)) return 0;
    rot_keep(f, 1, i, s, c, *m);
    return 1;
}

/* Whether a row at POS follows the row the rotation state holds; the
 * state is then marked as none until the row is complete (rot_done). */
static int rot_begin(pc_freqs *f, int64_t pos)
{
    int next = f->rot_pos >= 0 && pos == f->rot_pos + 1;
    f->rot_pos = -1;
    return next;
}

static void rot_done(pc_freqs *f, int64_t pos)
{
    f->rot_pos = pos;
}

/* The fast path (fastpath.c) when its rounding test decides every value
 * asked for, otherwise the Ziv loop.  NEED64 = 0 leaves the f64 fields
 * unset.  ROW: part of a row of pc_ref_sinusoidal_row, which keeps this
 * pair's values as the anchor of the rows after (rot_keep). */
static pc_status sincos_pair(pc_freqs *f, int64_t pos, int i, int need64, int row,
                             pc_ref2 *s, pc_ref2 *c)
{
    double ys[2], yc[2];
    int route = 0;
    if (f->use_fast && pos > 0 && pos <= PC_POS_MAX && i >= 0 && i < f->d / 2)
        route = pc_fast_sincos(f->fast, pos, i, ys, yc);
    if (route) {
        double es = pc_fast_bound(ys, route), ec = pc_fast_bound(yc, route);
        /* |z - e^{i theta}| <= es + ec */
        rot_keep(f, row, i, ys, yc, es + ec);
        if (fast_decide(f, ys, es, yc, ec, need64, s, c)) {
            f->n_fast++;
            return PC_OK;
        }
    } else if (pos == 0 && f->use_fast) {
        rot_keep_zero(f, row, i);
    } else {
        rot_drop(f, row, i);
    }
    f->n_mpfr++;
    return pc_ref_sincos_mpfr(f, pos, i, s, c);
}

/* Pair I of row POS at its own position: an integer by sincos_pair, a
 * real coordinate by the Ziv loop alone (the fast paths take integers). */
static pc_status sincos_row_pair(pc_freqs *f, int64_t pos, int i, int need64, int row,
                                 pc_ref2 *s, pc_ref2 *c)
{
    int64_t p;
    double x;
    int k = pair_at(f, pos, i, &p, &x);
    if (k == PC_POS_NONE) return PC_EINPUT;
    if (k == PC_POS_INT) return sincos_pair(f, p, i, need64, row, s, c);
    rot_drop(f, row, i);
    f->n_mpfr++;
    return sincos_at(f, x, i, s, c);
}

pc_status pc_ref_sincos(pc_freqs *f, int64_t pos, int i, pc_ref2 *s, pc_ref2 *c)
{
    if (i < 0 || i >= f->d / 2) return PC_EINPUT;
    return sincos_row_pair(f, pos, i, 1, 0, s, c);
}

pc_status pc_ref_sincos_of(double theta, pc_ref2 *s, pc_ref2 *c)
{
    if (theta == 0.0) {
        set_exact(s, theta); /* keeps the sign of zero, like sin */
        set_exact(c, 1.0);
        return PC_OK;
    }
    mpfr_t x, ms, mc;
    mpfr_init2(x, 53);
    mpfr_set_d(x, theta, MPFR_RNDN); /* exact */
    mpfr_inits2(64, ms, mc, (mpfr_ptr)0);
    int have_s = 0, have_c = 0;
    for (mpfr_prec_t p = 53 + 64; p <= PC_ZIV_MAX_PREC && !(have_s && have_c); p += p / 2) {
        mpfr_set_prec(ms, p);
        mpfr_set_prec(mc, p);
        mpfr_sin_cos(ms, mc, x, MPFR_RNDN);
        /* exact argument: the only error is the final rounding, half an ulp */
        if (!have_s) have_s = pc_round_certified(ms, mpfr_get_exp(ms) - p - 1 + 1, s);
        if (!have_c) have_c = pc_round_certified(mc, mpfr_get_exp(mc) - p - 1 + 1, c);
    }
    mpfr_clears(x, ms, mc, (mpfr_ptr)0);
    return have_s && have_c ? PC_OK : PC_EINTERNAL;
}

/* Binary32 row in MODE's order (PC_VEC_SC, PC_VEC_HALF, PC_VEC_CS): the
 * vector path (vecpath.c), its undecided pairs by sincos_pair (the scalar
 * fast path, then the Ziv loop). */
pc_status pc_ref_sincos_row32(pc_freqs *f, int64_t pos, int mode, float *out)
{
    int h = f->d / 2, n;
    if (pos < 0 || pos > PC_POS_MAX || mode < PC_VEC_SC || mode > PC_VEC_CS)
        return PC_EINPUT;
    if (f->use_vec && f->use_fast && pos >= 1 && pos <= PC_VEC_POS_MAX) {
        n = pc_vec_row32(f->vec, pos, mode, out, f->undec);
        f->n_vec += (uint64_t)(h - n);
        f->n_fast += (uint64_t)(h - n);
        f->n_vec_undec += (uint64_t)n;
    } else {
        n = h; /* every pair by sincos_pair (f->undec may be NULL) */
    }
    for (int k = 0; k < n; k++) {
        int i = n == h ? k : f->undec[k];
        pc_ref2 s, c;
        pc_status st = sincos_row_pair(f, pos, i, 0, 0, &s, &c);
        if (st != PC_OK)
            return st;
        if (mode == PC_VEC_HALF) { out[i] = s.f32; out[h + i] = c.f32; }
        else if (mode == PC_VEC_SC) { out[2 * i] = s.f32; out[2 * i + 1] = c.f32; }
        else { out[2 * i] = c.f32; out[2 * i + 1] = s.f32; }
    }
    return PC_OK;
}

pc_status pc_ref_sinusoidal_row(pc_freqs *f, int64_t pos, int layout,
                                float *out32, double *out64)
{
    int h = f->d / 2;
    if (out32 && !out64 && f->undec && (layout == 0 || layout == 1))
        return pc_ref_sincos_row32(f, pos, layout == 0 ? PC_VEC_SC : PC_VEC_HALF, out32);
    /* a row that follows the one the state holds is rotated from it
     * (pc_fast_rotate_row); the pairs it leaves (all, otherwise) take the
     * fast path, which anchors the rows after, then MPFR */
    int next = rot_begin(f, pos), left = h;
    const int *list = NULL;
    if (next && f->rot && f->rot_s && f->rot_c && f->rot_undec && f->use_fast && !f->has_att
        && pos > 0 && pos <= PC_POS_MAX) {
        left = pc_fast_rotate_row(f->fast, f->rot, out64 != NULL, f->rot_s, f->rot_c,
                                  f->rot_undec);
        list = f->rot_undec;
        f->n_rot += (uint64_t)(h - left);
        f->n_fast += (uint64_t)(h - left);
    }
    for (int i = 0, k = 0; i < h; i++) {
        pc_ref2 s, c;
        if (list && !(k < left && list[k] == i)) { /* decided by the rotation */
            s = f->rot_s[i];
            c = f->rot_c[i];
        } else {
            k++;
            pc_status st = sincos_row_pair(f, pos, i, out64 != NULL, 1, &s, &c);
            if (st != PC_OK)
                return st;
        }
        int js = layout == 0 ? 2 * i : i;
        int jc = layout == 0 ? 2 * i + 1 : i + h;
        if (out32) { out32[js] = s.f32; out32[jc] = c.f32; }
        if (out64) { out64[js] = s.f64; out64[jc] = c.f64; }
    }
    rot_done(f, pos);
    return PC_OK;
}

/* RoPE pair (a, b) of X rotated by theta:
 *   y_a = x_a cos - x_b sin,  y_b = x_a sin + x_b cos.
 * At precision p with the bounds of ziv_step, mpfr_fmms rounds once:
 *   |y~ - y| <= |x_a| 2^EC + |x_b| 2^ES + 2^(E(y~)-p-1)
 *            <= 2^(E(M) + max(EC,ES) + 1) + 2^(E(y~)-p-1),  M = max(|x_a|,|x_b|)
 *            <= 2^(max(E(M)+max(EC,ES)+1, E(y~)-p-1) + 1). */
static mpfr_exp_t rope_err(const mpfr_t y, mpfr_exp_t em, mpfr_exp_t esc, mpfr_prec_t p)
{
    mpfr_exp_t a = em + esc + 1;
    mpfr_exp_t b = mpfr_zero_p(y) ? a : mpfr_get_exp(y) - p - 1;
    return (a > b ? a : b) + 1;
}

/* RoPE pair (x_a, x_b) rotated by S, C (bounds ES, EC), times A when
 * there is one, rounded: 1 when every value asked for is decided. */
static int rope_decide(const pc_freqs *f, float xa, float xb, const double s[2], double es,
                       const double c[2], double ec, int need64, pc_ref2 *ra, pc_ref2 *rb)
{
    double ya[2], yb[2];
    double ea = pc_fast_lincomb_e((double)xa, c, ec, -(double)xb, s, es, ya); /* x_a cos - x_b sin */
    double eb = pc_fast_lincomb_e((double)xa, s, es, (double)xb, c, ec, yb);  /* x_a sin + x_b cos */
    if (f->has_att) { /* A (x_a cos - x_b sin), A (x_a sin + x_b cos) */
        att_dd(f, ya, &ea);
        att_dd(f, yb, &eb);
    }
    return pc_fast_round(ya, ea, need64, ra) && pc_fast_round(yb, eb, need64, rb);
}

/* One RoPE pair by the fast path; 1 when every value asked for is decided.
 * ROW: a call of pc_ref_rope_row over every pair, which keeps this pair's
 * sin and cos for the next row; NEXT: the row follows the one the state
 * holds, whose pair is rotated first (rot_advance). */
static int rope_fast(pc_freqs *f, int64_t pos, int i, float xa, float xb, int need64, int row,
                     int next, pc_ref2 *ra, pc_ref2 *rb)
{
    double s[2], c[2], m;
    if (!f->use_fast) {
        rot_drop(f, row, i);
        return 0;
    }
    if (row && next && rot_advance(f, i, s, c, &m)
        && rope_decide(f, xa, xb, s, m, c, m, need64, ra, rb)) {
        f->n_rot++;
        return 1;
    }
    int route = pc_fast_sincos(f->fast, pos, i, s, c);
    if (!route) {
        rot_drop(f, row, i);
        return 0;
    }
    double es = pc_fast_bound(s, route), ec = pc_fast_bound(c, route);
    rot_keep(f, row, i, s, c, es + ec);
    return rope_decide(f, xa, xb, s, es, c, ec, need64, ra, rb);
}

/* One RoPE pair (FA, FB) rotated by the angle of the exact position X by
 * the Ziv loop, in the scratch XA, XB (24 bits), YA, YB; 1 when decided. */
static int rope_mpfr(pc_freqs *f, double x, int i, float fa, float fb, mpfr_t xa, mpfr_t xb,
                     mpfr_t ya, mpfr_t yb, pc_ref2 *ra, pc_ref2 *rb)
{
    mpfr_set_flt(xa, fa, MPFR_RNDN); /* exact */
    mpfr_set_flt(xb, fb, MPFR_RNDN);
    float m = fabsf_max(fa, fb);
    mpfr_exp_t em;
    { int e; frexpf(m, &e); em = e; } /* m < 2^em */
    int have_a = 0, have_b = 0;
    for (mpfr_prec_t q = start_prec(f, x, i); q <= PC_ZIV_MAX_PREC; q += q / 2) {
        mpfr_exp_t es, ec;
        ziv_step(f, x, i, q, &es, &ec);
        mpfr_exp_t esc = es > ec ? es : ec;
        mpfr_set_prec(ya, q);
        mpfr_set_prec(yb, q);
        mpfr_fmms(ya, xa, f->c, xb, f->s, MPFR_RNDN);
        mpfr_fmma(yb, xa, f->s, xb, f->c, MPFR_RNDN);
        if (!have_a) have_a = pc_round_certified(ya, rope_err(ya, em, esc, q), ra);
        if (!have_b) have_b = pc_round_certified(yb, rope_err(yb, em, esc, q), rb);
        if (have_a && have_b) return 1;
    }
    return 0;
}

/* Pair I of X at row POS's own position for the pair (pair_at): a
 * rotation by 0 or of the zero pair exactly, an integer position by the
 * fast path when it decides, else (and a real coordinate always) the Ziv
 * loop.  ROW, NEXT: as rope_fast. */
static pc_status rope_pair(pc_freqs *f, int64_t pos, int i, const float *x, int ia, int ib,
                           int need64, int row, int next, mpfr_t *sc, pc_ref2 *ra, pc_ref2 *rb)
{
    int64_t p = 0; /* set for a whole position (pair_at) */
    double xr;
    int k = pair_at(f, pos, i, &p, &xr);
    if (k == PC_POS_NONE) return PC_EINPUT;
    if (k == PC_POS_INT) xr = (double)p; /* exact: p <= 2^53 */
    if ((k == PC_POS_INT && p == 0) || (x[ia] == 0.0f && x[ib] == 0.0f)) {
        /* rotation by 0 (A x), or of the zero pair (0) */
        int zero = k == PC_POS_INT && p == 0;
        if (zero) rot_keep_zero(f, row, i);
        else rot_drop(f, row, i);
        pc_status st = att_times(f, p, i, zero ? x[ia] : 0.0f, ra);
        return st == PC_OK ? att_times(f, p, i, zero ? x[ib] : 0.0f, rb) : st;
    }
    if (k == PC_POS_INT && rope_fast(f, p, i, x[ia], x[ib], need64, row, next, ra, rb)) {
        f->n_fast++;
        return PC_OK;
    }
    if (k == PC_POS_REAL) rot_drop(f, row, i);
    f->n_mpfr++;
    float qs, qc;
    if (exact_quarter(f, xr, i, &qs, &qc)) { /* cos and sin 0 or +-1: exact binary32 results */
        pc_status st = att_times(f, (int64_t)xr, i, x[ia] * qc - x[ib] * qs, ra);
        return st == PC_OK ? att_times(f, (int64_t)xr, i, x[ia] * qs + x[ib] * qc, rb) : st;
    }
    return rope_mpfr(f, xr, i, x[ia], x[ib], sc[0], sc[1], sc[2], sc[3], ra, rb) ? PC_OK
                                                                                : PC_EINTERNAL;
}

pc_status pc_ref_rope_row(pc_freqs *f, int64_t pos, int layout, const float *x,
                          float *out32, double *out64)
{
    int h = f->d / 2;
    if (pos < 0 || pos > PC_POS_MAX)
        return PC_EINPUT;
    /* Binary32 only: the vector path first (vecpath.c); the pairs it leaves
     * undecided (listed in f->undec) go through the loop below. */
    int nloop = h, *list = NULL;
    if (out32 && !out64 && f->use_vec && f->use_fast && f->undec && pos >= 1
        && pos <= PC_VEC_POS_MAX) {
        nloop = pc_vec_rope32(f->vec, pos, layout, x, out32, f->undec);
        list = f->undec;
        f->n_vec += (uint64_t)(h - nloop);
        f->n_fast += (uint64_t)(h - nloop);
        f->n_vec_undec += (uint64_t)nloop;
        if (nloop == 0)
            return PC_OK; /* no MPFR scratch needed */
    }
    /* every pair in the loop: rows of consecutive positions rotate the
     * row before (rope_fast) */
    int row = list == NULL, next = row && rot_begin(f, pos);
    mpfr_t sc[4]; /* xa, xb (exact binary32 inputs), ya, yb */
    mpfr_inits2(24, sc[0], sc[1], (mpfr_ptr)0);
    mpfr_inits2(64, sc[2], sc[3], (mpfr_ptr)0);
    pc_status st = PC_OK;
    for (int k = 0; k < nloop && st == PC_OK; k++) {
        int i = list ? list[k] : k;
        int ia = layout == 0 ? 2 * i : i;
        int ib = layout == 0 ? 2 * i + 1 : i + h;
        pc_ref2 ra, rb;
        st = rope_pair(f, pos, i, x, ia, ib, out64 != NULL, row, next, sc, &ra, &rb);
        if (st != PC_OK) break;
        if (out32) { out32[ia] = ra.f32; out32[ib] = rb.f32; }
        if (out64) { out64[ia] = ra.f64; out64[ib] = rb.f64; }
    }
    mpfr_clears(sc[0], sc[1], sc[2], sc[3], (mpfr_ptr)0);
    if (st == PC_OK && row) rot_done(f, pos);
    return st;
}
