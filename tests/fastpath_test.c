/* fastpath_test.c: the double-double fast path of the sin/cos reference
 * against the pure MPFR Ziv loop (TAP output).
 *
 * Usage: fastpath_test [PAIRS [SEED]]   (default 1000000 pairs, fixed seed;
 *        env PECHECK_SEED overrides the seed; `make bench` runs 10^7)
 *
 *   1. sinusoidal: PAIRS random (table, pos, i), the four bit patterns of
 *      pc_ref_sincos (fast path) equal pc_ref_sincos_mpfr (Ziv loop only).
 *   2. the proven bound: for every 16th pair, the double-double values of
 *      pc_fast_sincos are within PC_FAST_REL |y~| + PC_FAST_ABS of sin/cos
 *      computed at 400 bits from an independently computed omega
 *      (the largest observed error / bound is printed).
 *   3. RoPE: random rows (pos, x) with PAIRS/10 pairs in all: every rotated
 *      value of the fast path against the Ziv loop, binary32 and binary64.
 *   4. the fast path decided at least 99% of the pairs (a fast path that
 *      silently never applies would pass 1-3).
 *   5. rows of consecutive positions (pc_ref_sinusoidal_row and
 *      pc_ref_rope_row, which rotate the row before: fastpath.c,
 *      pc_fast_rotate): runs of rows from random starts, every binary32 and
 *      binary64 value equal to the Ziv loop's, PAIRS/10 pairs in all; at least 90% of their pairs decided
 *      by a rotation (a rotation that never applies would pass the rest).
 *   6. the rotation's bound: chains of ROT_STEPS rotations from
 *      pc_fast_sincos's values, every 64th step within its bound M of
 *      sin/cos at 400 bits (the largest observed error / M is printed).
 * Every mismatch prints one line  FAIL pos=... i=... ref=%a got=%a  with the
 * seed.  Positions: uniform in [1, 2^17], uniform in [1, 2^20], and
 * log-uniform in [1, 2^53]. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpfr.h>
#include "harness/base/rng.h"
#include "reference/fastpath.h"

typedef struct table { int d; double base; } table;

/* Tables: the paper's, Llama 3's base, a wide one, a tiny base, d = 2 (only
 * omega = 1) and a huge base (frequencies down to 1e-30). */
static const table tables[] = {
    { 128, 10000.0 }, { 64, 500000.0 }, { 1024, 10000.0 }, { 16, 2.5 },
    { 2, 10000.0 }, { 96, 1e30 },
};
#define N_TABLES (sizeof tables / sizeof tables[0])

static int same32(float a, float b) { return memcmp(&a, &b, sizeof a) == 0; }
static int same64(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

static int64_t draw_pos(pc_rng *r)
{
    switch (pc_rng_below(r, 3)) {
    case 0: return 1 + (int64_t)pc_rng_below(r, (uint64_t)1 << 17);
    case 1: return 1 + (int64_t)pc_rng_below(r, (uint64_t)1 << 20);
    default: {
        /* log-uniform: 2^e * (1 + frac), e uniform in [0, 52] */
        unsigned e = (unsigned)pc_rng_below(r, 53);
        int64_t p = ((int64_t)1 << e) + (int64_t)pc_rng_below(r, (uint64_t)1 << e);
        return p > PC_POS_MAX ? PC_POS_MAX : p;
    }
    }
}

/* omega_i = 1 / base^(2i/d) at 400 bits, independently of sincos.c:
 * exp(-(2i/d) log(base)) (relative error ~2^-390). */
static void omega_hp(mpfr_t w, int d, double base, int i)
{
    mpfr_t t;
    mpfr_init2(t, 420);
    mpfr_set_d(t, base, MPFR_RNDN);
    mpfr_log(t, t, MPFR_RNDN);
    mpfr_mul_si(t, t, -2 * i, MPFR_RNDN);
    mpfr_div_si(t, t, d, MPFR_RNDN);
    mpfr_exp(w, t, MPFR_RNDN);
    mpfr_clear(t);
}

/* |dd - v| / (PC_FAST_REL |dd| + PC_FAST_ABS on the fixed route) */
static double bound_ratio(const double y[2], int route, const mpfr_t v, mpfr_t t)
{
    mpfr_set_d(t, y[0], MPFR_RNDN);
    mpfr_add_d(t, t, y[1], MPFR_RNDN);
    mpfr_sub(t, t, v, MPFR_RNDN);
    double err = fabs(mpfr_get_d(t, MPFR_RNDU));
    return err / (PC_FAST_REL * fabs(y[0] + y[1]) + (route == PC_FAST_FIXED ? PC_FAST_ABS : 0.0));
}

/* 5. Runs of consecutive rows from random starts (near 0, up to 2^20, up to
 * 2^53), both binary32 and binary64, against the Ziv loop. */
#define RUN_ROWS 300
static int rows_test(pc_freqs **fast, pc_freqs **slow, pc_rng *r, long want, uint64_t seed)
{
    static float a32[8192], b32[8192];
    static double a64[8192], b64[8192];
    long pairs = 0, bad = 0;
    uint64_t rot0 = 0, rot1 = 0;
    for (size_t t = 0; t < N_TABLES; t++) rot0 += pc_freqs_rot_stats(fast[t]);
    for (long k = 0; pairs < want || k == 0; k++) {
        size_t t = (size_t)pc_rng_below(r, N_TABLES);
        int d = tables[t].d, layout = (int)(k & 1);
        int64_t p0 = k % 3 == 0 ? (int64_t)pc_rng_below(r, 8) : draw_pos(r);
        if (p0 > PC_POS_MAX - RUN_ROWS) p0 = PC_POS_MAX - RUN_ROWS;
        int rope = (int)((k >> 1) & 1);
        for (int64_t p = p0; p < p0 + RUN_ROWS; p++) {
            static float x[8192];
            for (int j = 0; rope && j < d; j++) x[j] = pc_rng_normal_f32(r);
            if (rope && p % 5 == 0) x[2] = x[3] = 0.0f; /* a zero pair: not rotated */
            pc_status a = rope ? pc_ref_rope_row(fast[t], p, layout, x, a32, a64)
                               : pc_ref_sinusoidal_row(fast[t], p, layout, a32, a64);
            pc_status b = rope ? pc_ref_rope_row(slow[t], p, layout, x, b32, b64)
                               : pc_ref_sinusoidal_row(slow[t], p, layout, b32, b64);
            pairs += d / 2;
            int diff = a != b;
            for (int j = 0; j < d && !diff; j++)
                diff = !same32(a32[j], b32[j]) || !same64(a64[j], b64[j]);
            if (diff && bad++ < 10)
                printf("# FAIL %s row pos=%" PRId64 " (run from %" PRId64 ") d=%d base=%a "
                       "layout=%d seed=%" PRIu64 "\n", rope ? "rope" : "sinusoidal", p, p0, d,
                       tables[t].base, layout, seed);
        }
    }
    for (size_t t = 0; t < N_TABLES; t++) rot1 += pc_freqs_rot_stats(fast[t]);
    double share = (double)(rot1 - rot0) / (double)pairs;
    printf("%s 5 - rows of consecutive positions equal the Ziv loop on %ld pairs (%ld rows "
           "differ); %.2f%% decided by a rotation\n", bad || share < 0.9 ? "not ok" : "ok",
           pairs, bad, 100.0 * share);
    return bad || share < 0.9;
}

/* 6. The rotation's bound along chains of ROT_STEPS positions. */
#define ROT_STEPS 4096
#define ROT_CHAINS 24
static int rotation_bound(pc_freqs **fast, pc_rng *r, mpfr_t w, mpfr_t th, mpfr_t vs, mpfr_t vc,
                          mpfr_t tmp)
{
    long checked = 0, over = 0;
    double worst = 0.0;
    for (int k = 0; k < ROT_CHAINS; k++) {
        size_t t = (size_t)pc_rng_below(r, N_TABLES);
        int d = tables[t].d, i = (int)pc_rng_below(r, (uint64_t)(d / 2));
        int64_t p = draw_pos(r);
        if (p > PC_POS_MAX - ROT_STEPS) p = PC_POS_MAX - ROT_STEPS;
        double ys[2], yc[2];
        int route = pc_fast_sincos_of_freqs(fast[t], p, i, ys, yc);
        if (!route) { k--; continue; }
        double m = pc_fast_bound(ys, route) + pc_fast_bound(yc, route);
        omega_hp(w, d, tables[t].base, i);
        for (int s = 1; s <= ROT_STEPS; s++) {
            if (!pc_fast_rotate_of_freqs(fast[t], i, ys, yc, &m)) break;
            if (s % 64) continue;
            mpfr_mul_si(th, w, (long)(p + s), MPFR_RNDN);
            mpfr_sin_cos(vs, vc, th, MPFR_RNDN);
            for (int c = 0; c < 2; c++) {
                const double *y = c ? yc : ys;
                mpfr_set_d(tmp, y[0], MPFR_RNDN);
                mpfr_add_d(tmp, tmp, y[1], MPFR_RNDN);
                mpfr_sub(tmp, tmp, c ? vc : vs, MPFR_RNDN);
                double q = fabs(mpfr_get_d(tmp, MPFR_RNDU)) / m;
                if (q > worst) worst = q;
                if (!(q <= 1.0) && over++ < 10)
                    printf("# FAIL rotation pos=%" PRId64 " + %d i=%d d=%d base=%a: err/M %.3g\n",
                           p, s, i, d, tables[t].base, q);
            }
            checked++;
        }
    }
    printf("%s 6 - the rotation's bound holds at %ld positions of %d chains of %d (largest "
           "err/M %.3g)\n", over || checked < ROT_CHAINS ? "not ok" : "ok", checked, ROT_CHAINS,
           ROT_STEPS, worst);
    return over || checked < ROT_CHAINS;
}

int main(int argc, char **argv)
{
    long pairs = argc > 1 ? atol(argv[1]) : 1000000;
    uint64_t seed = 20260422u;
    if (argc > 2) seed = strtoull(argv[2], NULL, 0);
    else if (getenv("PECHECK_SEED")) seed = strtoull(getenv("PECHECK_SEED"), NULL, 0);
    if (pairs < 1) pairs = 1;
    printf("1..6\n# seed %" PRIu64 " (rerun: fastpath_test %ld %" PRIu64 "), %ld pairs\n",
           seed, pairs, seed, pairs);

    pc_freqs *fast[N_TABLES], *slow[N_TABLES];
    for (size_t t = 0; t < N_TABLES; t++) {
        fast[t] = pc_freqs_new(tables[t].d, pc_schedule_geometric(tables[t].base));
        slow[t] = pc_freqs_new(tables[t].d, pc_schedule_geometric(tables[t].base));
        if (!fast[t] || !slow[t]) { printf("Bail out! out of memory\n"); return 1; }
        pc_freqs_use_fast(slow[t], 0);
    }
    pc_rng r;
    pc_rng_seed(&r, seed);
    mpfr_t w, th, vs, vc, tmp;
    mpfr_inits2(400, w, th, vs, vc, tmp, (mpfr_ptr)0);

    long bad = 0, bound_bad = 0, checked = 0;
    double worst = 0.0;
    for (long k = 0; k < pairs; k++) {
        size_t t = (size_t)pc_rng_below(&r, N_TABLES);
        int d = tables[t].d;
        int i = (int)pc_rng_below(&r, (uint64_t)(d / 2));
        int64_t pos = draw_pos(&r);
        pc_ref2 s1, c1, s2, c2;
        pc_status a = pc_ref_sincos(fast[t], pos, i, &s1, &c1);
        pc_status b = pc_ref_sincos_mpfr(slow[t], pos, i, &s2, &c2);
        if (a != PC_OK || b != PC_OK || !same32(s1.f32, s2.f32) || !same32(c1.f32, c2.f32)
            || !same64(s1.f64, s2.f64) || !same64(c1.f64, c2.f64)) {
            if (bad++ < 10)
                printf("# FAIL pos=%" PRId64 " i=%d d=%d base=%a seed=%" PRIu64 ": sin ref=%a/%a "
                       "got=%a/%a cos ref=%a/%a got=%a/%a (status %d %d)\n", pos, i, d,
                       tables[t].base, seed, (double)s2.f32, s2.f64, (double)s1.f32, s1.f64,
                       (double)c2.f32, c2.f64, (double)c1.f32, c1.f64, a, b);
        }
        if (k % 16 == 0) {
            double ys[2], yc[2];
            int route = pc_fast_sincos_of_freqs(fast[t], pos, i, ys, yc);
            if (!route) continue;
            omega_hp(w, d, tables[t].base, i);
            mpfr_mul_si(th, w, (long)pos, MPFR_RNDN);
            mpfr_sin_cos(vs, vc, th, MPFR_RNDN);
            double q1 = bound_ratio(ys, route, vs, tmp), q2 = bound_ratio(yc, route, vc, tmp);
            checked++;
            double q = q1 > q2 ? q1 : q2;
            if (q > worst) worst = q;
            if (!(q <= 1.0) && bound_bad++ < 10)
                printf("# FAIL bound pos=%" PRId64 " i=%d d=%d base=%a: err/bound sin %.3g cos %.3g\n",
                       pos, i, d, tables[t].base, q1, q2);
        }
    }
    printf("%s 1 - sinusoidal: fast path equals the Ziv loop on %ld pairs (%ld differ)\n",
           bad ? "not ok" : "ok", pairs, bad);
    printf("%s 2 - proven bound holds on %ld pairs (largest err/bound %.3g)\n",
           bound_bad || checked == 0 ? "not ok" : "ok", checked, worst);

    /* 3. RoPE */
    long rbad = 0, rrows = 0, rpairs = 0;
    for (long k = 0; rpairs < pairs / 10 || k == 0; k++) {
        size_t t = (size_t)pc_rng_below(&r, N_TABLES);
        int d = tables[t].d;
        int64_t pos = draw_pos(&r);
        float x[8192];
        for (int j = 0; j < d; j++) x[j] = pc_rng_normal_f32(&r);
        if (k % 7 == 0) x[0] = 0.0f;              /* one member zero */
        if (k % 11 == 0) x[1] = ldexpf(x[1], -30); /* very unequal members */
        int layout = (int)(k & 1);
        static float o32a[8192], o32b[8192];
        static double o64a[8192], o64b[8192];
        pc_status a = pc_ref_rope_row(fast[t], pos, layout, x, o32a, o64a);
        pc_status b = pc_ref_rope_row(slow[t], pos, layout, x, o32b, o64b);
        rrows++;
        rpairs += d / 2;
        int diff = a != b;
        for (int j = 0; j < d && !diff; j++)
            diff = !same32(o32a[j], o32b[j]) || !same64(o64a[j], o64b[j]);
        if (diff && rbad++ < 10)
            printf("# FAIL rope pos=%" PRId64 " d=%d base=%a layout=%d seed=%" PRIu64 "\n",
                   pos, d, tables[t].base, layout, seed);
    }
    printf("%s 3 - rope: fast path equals the Ziv loop on %ld rows, %ld pairs (%ld rows differ)\n",
           rbad ? "not ok" : "ok", rrows, rpairs, rbad);

    uint64_t nf = 0, nm = 0;
    for (size_t t = 0; t < N_TABLES; t++) {
        uint64_t f1, m1;
        pc_freqs_stats(fast[t], &f1, &m1);
        nf += f1; nm += m1;
    }
    double share = (double)nf / (double)(nf + nm);
    printf("%s 4 - the fast path decided %.5f%% of the pairs (%" PRIu64 " fast, %" PRIu64
           " to MPFR)\n", share >= 0.99 ? "ok" : "not ok", 100.0 * share, nf, nm);

    int rows_bad = rows_test(fast, slow, &r, pairs / 10, seed);
    int rot_bad = rotation_bound(fast, &r, w, th, vs, vc, tmp);

    mpfr_clears(w, th, vs, vc, tmp, (mpfr_ptr)0);
    for (size_t t = 0; t < N_TABLES; t++) { pc_freqs_free(fast[t]); pc_freqs_free(slow[t]); }
    mpfr_free_cache();
    return bad || bound_bad || rbad || share < 0.99 || checked == 0 || rows_bad || rot_bad;
}
