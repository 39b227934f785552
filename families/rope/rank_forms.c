/* rank_forms.c: the hypotheses of rank.c about how a failed RoPE source
 * computed its values from the right inputs: the angle carried from row to
 * row (a float32 running sum of omega, a rotation applied row after row),
 * sin taken from cos (+-sqrt(1 - cos^2)), a half-type cache truncated
 * rather than rounded, and a dynamic NTK cache whose rows each carry the
 * base of their own length.  Each reproduces the values as that code
 * computes them, in binary32 step by step, and is named only by its
 * support (rank.c's opening comment, docs/diagnosis.md "Formulation
 * causes"). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rank_internal.h"
#include "scaling.h"
#include "harness/base/dtype.h"

/* The most binary32 steps a carried angle is replayed over, positions
 * times pairs: 2^26 (2^20 positions of 64 pairs, 2^16 of 1024).  A run
 * from 0 to a slice at 2^21 of 512 pairs made a 0.4 s check take 5.9 s;
 * past the budget the hypothesis is not tried (the carried error is then
 * far past any bound at the slice, and the checked schedule's own causes
 * speak). */
#define FORMS_MAX_STEPS (INT64_C(1) << 26)

/* The carried values at the held positions: POS[j] (sorted, no repeats)
 * and ZC/ZS (n x h, row j the values at POS[j]). */
typedef struct carried {
    size_t n;
    int h;
    int64_t *pos;
    double *zc, *zs;
} carried;

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static void carried_free(carried *cv)
{
    free(cv->pos); free(cv->zc); free(cv->zs);
    memset(cv, 0, sizeof *cv);
}

/* The held positions sorted, without repeats; 0 when none is held, one is
 * negative or past FORMS_MAX_STEPS / h, or out of memory. */
static int carried_init(const rk *k, carried *cv)
{
    memset(cv, 0, sizeof *cv);
    if (k->n == 0 || !(fabs(k->att - 1.0) <= 4.0 * k->u)) return 0; /* the forms are unscaled */
    cv->pos = malloc(k->n * sizeof *cv->pos);
    cv->zc = malloc(k->n * (size_t)k->h * sizeof *cv->zc);
    cv->zs = malloc(k->n * (size_t)k->h * sizeof *cv->zs);
    if (!cv->pos || !cv->zc || !cv->zs) { carried_free(cv); return 0; }
    memcpy(cv->pos, k->pos, k->n * sizeof *cv->pos);
    qsort(cv->pos, k->n, sizeof *cv->pos, cmp_i64);
    size_t m = 0;
    for (size_t j = 0; j < k->n; j++)
        if (m == 0 || cv->pos[j] != cv->pos[m - 1]) cv->pos[m++] = cv->pos[j];
    cv->n = m;
    cv->h = k->h;
    if (cv->pos[0] < 0 || cv->pos[m - 1] > FORMS_MAX_STEPS / k->h) { carried_free(cv); return 0; }
    return 1;
}

/* The carried values at position P, pair I (a held position). */
static void p_carried(const rk *k, const void *arg, int64_t p, int i, double *zc, double *zs)
{
    (void)k;
    const carried *cv = arg;
    const int64_t *at = bsearch(&p, cv->pos, cv->n, sizeof p, cmp_i64);
    size_t j = at ? (size_t)(at - cv->pos) : 0;
    *zc = at ? cv->zc[j * (size_t)cv->h + (size_t)i] : (double)NAN;
    *zs = at ? cv->zs[j * (size_t)cv->h + (size_t)i] : (double)NAN;
}

/* Pair I's angle as a binary32 running sum: theta_0 = 0, theta_p =
 * fl(theta_{p-1} + fl(omega_i)) (a loop over positions, numpy's float32
 * cumsum), cos and sin of it rounded to binary32. */
static void run_sum(const rk *k, carried *cv, int i)
{
    float theta = 0.0f, w = k->w32[i];
    int64_t p = 0;
    for (size_t j = 0; j < cv->n; j++) {
        for (; p < cv->pos[j]; p++) theta += w;
        size_t at = j * (size_t)cv->h + (size_t)i;
        cv->zc[at] = (double)(float)cos((double)theta);
        cv->zs[at] = (double)(float)sin((double)theta);
    }
}

/* Pair I's rotation carried from row to row in binary32: (c, s) = (1, 0)
 * at position 0, then each position's the previous times (cos w, sin w),
 * c' = c cw - s sw, s' = s cw + c sw, every product and sum rounded (a
 * complex64 multiply, torch.polar(ones, freqs) then cumprod, or a loop). */
static void run_rotation(const rk *k, carried *cv, int i)
{
    float c = 1.0f, s = 0.0f;
    float cw = (float)cos((double)k->w32[i]), sw = (float)sin((double)k->w32[i]);
    int64_t p = 0;
    for (size_t j = 0; j < cv->n; j++) {
        for (; p < cv->pos[j]; p++) {
            float a = c * cw, b = s * sw, e = s * cw, f = c * sw;
            c = a - b;
            s = e + f;
        }
        size_t at = j * (size_t)cv->h + (size_t)i;
        cv->zc[at] = (double)c;
        cv->zs[at] = (double)s;
    }
}

static void h_carried(const rk *k, pc_rope_causes *out, int rotation)
{
    carried cv;
    if (!carried_init(k, &cv)) return;
    for (int i = 0; i < k->h; i++) {
        if (rotation) run_rotation(k, &cv, i);
        else run_sum(k, &cv, i);
    }
    double sup = pc_rk_support(k, p_carried, &cv);
    carried_free(&cv);
    char t[520], e[260];
    pc_rk_evidence(e, sizeof e, k, sup, rotation
                   ? "each row's rotation the previous row's times (cos w, sin w) in float32"
                   : "each angle the previous position's plus w in float32");
    if (rotation)
        snprintf(t, sizeof t, "the rotation is carried from row to row: each position's (cos, sin) "
                 "is the previous one's times (cos w, sin w) in float32 (a recurrence, a cumprod "
                 "of complex rotations), whose roundings accumulate: the norm and angle drift with "
                 "the position; compute cos(p * w) and sin(p * w) from each position");
    else
        snprintf(t, sizeof t, "the angles are accumulated: each position's angle is the previous "
                 "one's plus w in float32 (a running sum, cumsum or a loop over positions), whose "
                 "roundings add up with the position; compute p * inv_freq for each position");
    pc_rope_cause_add(out, sup, 2, t, e);
}

/* The sin that +-sqrt(1 - c^2) gives from the source's own cos C, in
 * binary32 (SIGNED: with the sign of the angle T's sin): near angles 0
 * and pi, where cos rounds to +-1, the difference cancels and sin keeps
 * few digits or none. */
static double sqrt_sin(double c, double t, int signed_)
{
    float c32 = (float)c, one_minus = 1.0f - c32 * c32;
    double v = one_minus > 0.0f ? (double)sqrtf(one_minus) : 0.0;
    return signed_ && sin(t) < 0 ? -v : v;
}

/* The values the checked schedule misses that sin from cos (sqrt_sin,
 * the source's cos kept) reproduces, as a share of those it misses: a
 * defect of a few values (near angle 0) leaves the share of all values
 * near the schedule's, which pc_rk_support cannot name.  0 unless it
 * misses no more of the others than the schedule does (within a
 * hundredth), and at least FORMS_MIN_MISSES are missed. */
#define FORMS_MIN_MISSES 64 /* a pattern, not a few stray values */
static double sqrt_support(const rk *k, int signed_)
{
    size_t missed = 0, got = 0, kept = 0, held = 0;
    for (size_t r = 0; r < k->n; r++)
        for (int i = 0; i < k->h; i++) {
            double t = (double)k->pos[r] * k->w[i], tol = pc_rk_tol(k, t), ec, es;
            if (!pc_rk_informative(k, tol)) continue;
            size_t at = r * (size_t)k->h + (size_t)i;
            pc_rk_put_rot(k, t, &ec, &es);
            double zs = sqrt_sin(k->c[at], t, signed_);
            int fits = hypot(k->c[at] - ec, k->s[at] - zs) <= tol;
            if (hypot(k->c[at] - ec, k->s[at] - es) > tol) { missed++; got += (size_t)fits; }
            else { held++; kept += (size_t)fits; }
        }
    if (missed < FORMS_MIN_MISSES || (double)kept < 0.99 * (double)held) return 0.0;
    return (double)got / (double)missed;
}

static void h_sqrt_sin(const rk *k, pc_rope_causes *out)
{
    if (!(fabs(k->att - 1.0) <= 4.0 * k->u)) return;
    int signed_ = 1, unsigned_ = 0;
    double ss = sqrt_support(k, signed_), su = sqrt_support(k, unsigned_);
    int sign = ss >= su;
    double sup = sign ? ss : su;
    if (!(sup >= 0.9)) return; /* the missed values are the form's, nearly all */
    char t[520], e[300];
    snprintf(e, sizeof e, "sin as %ssqrt(1 - cos^2) of the source's float32 cos reproduces %.1f%% "
             "of the values the checked schedule misses, and the others as it does", sign ? "+-" : "",
             100.0 * sup);
    snprintf(t, sizeof t, "sin is computed from cos as %ssqrt(1 - cos^2): near angle 0%s, where cos "
             "rounds to %s1, the difference cancels and sin keeps few digits or none%s; compute "
             "sin of the angle itself", sign ? "+-" : "", sign ? " and pi" : "", sign ? "+-" : "",
             sign ? "" : ", and sin has no sign (never negative)");
    pc_rope_cause_add(out, sup, 2, t, e);
}

/* X (a binary32 value) to BITS significant bits, to nearest even (RZ 0)
 * or toward zero (RZ 1); float16's subnormals (below 2^-14) keep its
 * 2^-24 spacing. */
static double to_bits(double x, int bits, int rz)
{
    if (x == 0 || !isfinite(x)) return x;
    int e;
    frexp(x, &e);
    if (bits == 11 && e - 1 < -14) e = -13;
    double q = ldexp(1.0, e - bits);
    return (rz ? trunc(x / q) : nearbyint(x / q)) * q;
}

/* The shares of the informative values a half-type cache holds as the
 * exact value's float32 rounded to BITS toward zero (RZ) and to nearest. */
static void rounding_shares(const rk *k, int bits, double *rz, double *rn)
{
    size_t used = 0, z = 0, n = 0;
    for (size_t r = 0; r < k->n; r++)
        for (int i = 0; i < k->h; i++) {
            double t = (double)k->pos[r] * k->w[i], ec, es;
            if (!pc_rk_informative(k, pc_rk_tol(k, t))) continue;
            size_t at = r * (size_t)k->h + (size_t)i;
            pc_rk_put_rot(k, t, &ec, &es);
            ec = (double)(float)ec;
            es = (double)(float)es;
            used++;
            z += k->c[at] == to_bits(ec, bits, 1) && k->s[at] == to_bits(es, bits, 1);
            n += k->c[at] == to_bits(ec, bits, 0) && k->s[at] == to_bits(es, bits, 0);
        }
    *rz = used ? (double)z / (double)used : 0.0;
    *rn = used ? (double)n / (double)used : 0.0;
}

/* A bfloat16 or float16 cache rounded toward zero (the float32's low bits
 * dropped: x.view(int32) >> 16, or a truncating cast) where the storage
 * bound assumes rounding to nearest: errors up to one ulp of the type,
 * twice the bound's half ulp.  Named when truncation reproduces 95% of
 * the values and rounding to nearest at most 75% (the two agree on the
 * values whose dropped bits are small: about half). */
static void h_truncated(const rk *k, pc_rope_causes *out)
{
    const pc_acc_cfg *cfg = k->cfg;
    if (!cfg->storage || (cfg->dtype != PC_DT_BF16 && cfg->dtype != PC_DT_F16)) return;
    int bits = cfg->dtype == PC_DT_BF16 ? 8 : 11;
    const char *name = cfg->dtype == PC_DT_BF16 ? "bfloat16" : "float16";
    double rz, rn;
    rounding_shares(k, bits, &rz, &rn);
    if (!(rz >= 0.95 && rn <= 0.75)) return;
    char t[520], e[260];
    snprintf(e, sizeof e, "the float32 values truncated to %s reproduce %.1f%% of the values, "
             "rounded to nearest %.1f%%", name, 100.0 * rz, 100.0 * rn);
    snprintf(t, sizeof t, "the values are %s numbers truncated (rounded toward zero: the float32's "
             "low bits dropped, a bit shift or a truncating cast), not rounded to nearest: their "
             "errors reach a whole %s ulp, twice what rounding to nearest leaves; convert with "
             "round to nearest (tensor.to(torch.%s))", name, name,
             cfg->dtype == PC_DT_BF16 ? "bfloat16" : "float16");
    pc_rope_cause_add(out, rz, 1, t, e);
}

/* Dynamic NTK's frequency of pair I for a sequence of S tokens (HF
 * _compute_dynamic_ntk_parameters, schedule_dynamic.c's formula). */
static double dynamic_omega(const pc_rope_params *rp, double s, int i)
{
    double len = s > rp->max_pos ? s : rp->max_pos, dim = (double)rp->dim;
    double t = rp->factor * len / rp->max_pos - (rp->factor - 1.0);
    return pow(rp->base * pow(t, dim / (dim - 2)), -2.0 * i / dim);
}

/* Row p rotated by the frequencies of its own length p + 1 (ARG: the
 * schedule's parameters). */
static void p_dynamic_row(const rk *k, const void *arg, int64_t p, int i, double *zc, double *zs)
{
    pc_rk_put_rot(k, (double)p * dynamic_omega(arg, (double)p + 1, i), zc, zs);
}

/* A dynamic NTK cache whose rows each carry the base of their own length:
 * HF's dynamic rotary embedding recomputes inv_freq at every decode step
 * past max_position_embeddings, and the keys cached at earlier steps keep
 * the rotation of theirs, where the check holds every row to one length
 * (--seq-len, the cache's). */
static void h_dynamic_rows(const rk *k, pc_rope_causes *out)
{
    const pc_rope_params *rp = k->cfg->sched ? k->cfg->sched->params : NULL;
    if (!rp || rp->type != PC_ROPE_DYNAMIC || rp->ntk_alpha > 0 || !(rp->factor > 1)
        || rp->dim / 2 != k->h || !((double)k->pos[k->n - 1] + 1 > rp->max_pos))
        return;
    double sup = pc_rk_support(k, p_dynamic_row, rp);
    char t[520], e[260];
    pc_rk_evidence(e, sizeof e, k, sup, "each row with dynamic NTK's base for its own length p + 1");
    snprintf(t, sizeof t, "each row carries dynamic NTK's base for its own length: row p was rotated "
             "with the frequencies of a sequence of p + 1 tokens (the base recomputed at every "
             "decode step past %g positions, the keys cached at earlier steps keeping theirs), "
             "not one base for the whole cache; a cache for one length has one base (--seq-len)",
             rp->max_pos);
    pc_rope_cause_add(out, sup, 2, t, e);
}

void pc_rk_forms(const rk *k, pc_rope_causes *out)
{
    h_dynamic_rows(k, out);
    h_truncated(k, out);
    h_carried(k, out, 0);
    h_carried(k, out, 1);
    h_sqrt_sin(k, out);
}
