/* vecpath_test.c: the binary32 vector path of the sin/cos reference
 * (reference/vecpath.c) against the pure MPFR Ziv loop (TAP output).
 *
 * Usage: vecpath_test [PAIRS [SEED]]   (default 1000000 pairs, fixed seed;
 *        env PECHECK_SEED overrides the seed; `make bench` runs 10^7)
 *
 *   1. rows: random (table, pos, output order) rows of pc_ref_sincos_row32
 *      (vector path + its fallbacks) until PAIRS pairs: every binary32 sin
 *      and cos equals pc_ref_sincos_mpfr (Ziv loop only).
 *   2. the proven bound: for every 8th row, the binary64 values of the
 *      kernel (pc_vec_raw, omega from an independent 400-bit exp/log) are
 *      within 2^-50.8 |y~| + 2^-103.7 p1 of sin/cos at 400 bits (largest
 *      err/bound printed), and every pair the test decided rounds (RN32)
 *      to the Ziv loop's value.
 *   3. instruction sets: the AVX-512, AVX2 and scalar kernels (those this
 *      CPU has) give the same bits on random rows, all output orders, and
 *      the same RoPE rows (all slots: undecided ones are computed the same
 *      way too).
 *   4. the hard vectors of tests/data/sincos_vectors.txt (binary32 columns):
 *      pc_ref_sincos_row32 equals every one; each pair the vector kernel
 *      decided on its own equals it too (count printed).
 *   5. the vector path decided at least 99.99% of the in-range pairs of
 *      test 1 (a path that never applies would pass 1-4).
 *   6. RoPE: random rows (pos, x, layout) with PAIRS/10 pairs in all, binary32
 *      only (the vector path): every rotated value equals the Ziv loop's.
 * Each mismatch prints  # FAIL pos=... i=... ref=%a got=%a  with the seed. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpfr.h>
#include "harness/base/rng.h"
#include "reference/fastpath.h"
#include "reference/vecpath.h"

typedef struct table { int d; double base; } table;

/* Tables: the paper's, Llama 3's base, a wide one, a tiny base, d = 2,
 * d = 10 (a row that is not a whole number of 4 or 8 lanes), and a huge
 * base (frequencies down to 1e-29). */
static const table tables[] = {
    { 128, 10000.0 }, { 64, 500000.0 }, { 1024, 10000.0 }, { 16, 2.5 },
    { 2, 10000.0 }, { 10, 10000.0 }, { 96, 1e30 },
};
#define N_TABLES (sizeof tables / sizeof tables[0])
#define VECTORS "tests/data/sincos_vectors.txt"

static int same32(float a, float b) { return memcmp(&a, &b, sizeof a) == 0; }

static int64_t draw_pos(pc_rng *r)
{
    switch (pc_rng_below(r, 4)) {
    case 0: return 1 + (int64_t)pc_rng_below(r, (uint64_t)1 << 17);
    case 1: return 1 + (int64_t)pc_rng_below(r, (uint64_t)1 << 20);
    case 2: { /* log-uniform in [1, 2^40], the vector path's range */
        unsigned e = (unsigned)pc_rng_below(r, 40);
        return ((int64_t)1 << e) + (int64_t)pc_rng_below(r, (uint64_t)1 << e);
    }
    default: { /* log-uniform in [1, 2^53]: beyond 2^40 the scalar path */
        unsigned e = (unsigned)pc_rng_below(r, 53);
        int64_t p = ((int64_t)1 << e) + (int64_t)pc_rng_below(r, (uint64_t)1 << e);
        return p > PC_POS_MAX ? PC_POS_MAX : p;
    }
    }
}

/* omega_i = exp(-(2i/d) log(base)) at 400 bits, independently of sincos.c */
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

static pc_vec *vec_of(const table *t)
{
    pc_vec *v = pc_vec_new(t->d);
    mpfr_t w;
    mpfr_init2(w, 400);
    for (int i = 0; v && i < t->d / 2; i++) {
        omega_hp(w, t->d, t->base, i);
        pc_vec_set(v, i, w);
    }
    mpfr_clear(w);
    return v;
}

static void at(int mode, const float *out, int h, int i, float *s, float *c)
{
    if (mode == PC_VEC_HALF) { *s = out[i]; *c = out[h + i]; }
    else if (mode == PC_VEC_SC) { *s = out[2 * i]; *c = out[2 * i + 1]; }
    else { *c = out[2 * i]; *s = out[2 * i + 1]; }
}

/* |y - v| / (2^-50.8 |y| + 2^-103.7 p1) */
static double bound_ratio(double y, double p1, const mpfr_t v, mpfr_t t)
{
    mpfr_set_d(t, y, MPFR_RNDN);
    mpfr_sub(t, t, v, MPFR_RNDN);
    double err = fabs(mpfr_get_d(t, MPFR_RNDU));
    return err / (exp2(-50.8) * fabs(y) + exp2(-103.7) * p1); /* the bound of vecpath.h */
}

static float out_a[8192], out_b[8192];
static double rs[4096], rc[4096], rp[4096], rs2[4096], rc2[4096], rp2[4096];
static unsigned char rok[4096], rok2[4096];

int main(int argc, char **argv)
{
    long pairs = argc > 1 ? atol(argv[1]) : 1000000;
    uint64_t seed = 20260423u;
    if (argc > 2) seed = strtoull(argv[2], NULL, 0);
    else if (getenv("PECHECK_SEED")) seed = strtoull(getenv("PECHECK_SEED"), NULL, 0);
    if (pairs < 1) pairs = 1;
    int best = pc_vec_isa();
    printf("1..6\n# seed %" PRIu64 " (rerun: vecpath_test %ld %" PRIu64 "), %ld pairs, "
           "instruction set %s\n", seed, pairs, seed, pairs,
           best == PC_VEC_AVX512 ? "AVX-512" : best == PC_VEC_AVX2 ? "AVX2+FMA" : "scalar");

    pc_freqs *fast[N_TABLES], *slow[N_TABLES];
    pc_vec *vec[N_TABLES];
    for (size_t t = 0; t < N_TABLES; t++) {
        fast[t] = pc_freqs_new(tables[t].d, pc_schedule_geometric(tables[t].base));
        slow[t] = pc_freqs_new(tables[t].d, pc_schedule_geometric(tables[t].base));
        vec[t] = vec_of(&tables[t]);
        if (!fast[t] || !slow[t] || !vec[t]) { printf("Bail out! out of memory\n"); return 1; }
        pc_freqs_use_fast(slow[t], 0);
    }
    pc_rng r;
    pc_rng_seed(&r, seed);
    mpfr_t w, th, vs, vc, tmp;
    mpfr_inits2(400, w, th, vs, vc, tmp, (mpfr_ptr)0);

    /* 1 and 2 */
    long bad = 0, rows = 0, done = 0, bound_bad = 0, checked = 0, dec_bad = 0;
    double worst = 0.0;
    while (done < pairs) {
        size_t t = (size_t)pc_rng_below(&r, N_TABLES);
        int d = tables[t].d, h = d / 2, mode = (int)pc_rng_below(&r, 3);
        int64_t pos = draw_pos(&r);
        pc_status st = pc_ref_sincos_row32(fast[t], pos, mode, out_a);
        int sample = rows % 8 == 0 && pos <= PC_VEC_POS_MAX;
        if (sample) pc_vec_raw(vec[t], pos, rs, rc, rp, rok);
        for (int i = 0; i < h; i++) {
            pc_ref2 s, c;
            float gs, gc;
            pc_status st2 = pc_ref_sincos_mpfr(slow[t], pos, i, &s, &c);
            at(mode, out_a, h, i, &gs, &gc);
            if (st != PC_OK || st2 != PC_OK || !same32(gs, s.f32) || !same32(gc, c.f32)) {
                if (bad++ < 10)
                    printf("# FAIL pos=%" PRId64 " i=%d d=%d base=%a mode=%d seed=%" PRIu64
                           ": sin ref=%a got=%a cos ref=%a got=%a (status %d %d)\n", pos, i, d,
                           tables[t].base, mode, seed, (double)s.f32, (double)gs,
                           (double)c.f32, (double)gc, st, st2);
            }
            if (!sample) continue;
            if (rok[i] && (!same32((float)rs[i], s.f32) || !same32((float)rc[i], c.f32))
                && dec_bad++ < 10)
                printf("# FAIL decided pos=%" PRId64 " i=%d d=%d base=%a: sin ref=%a got=%a "
                       "cos ref=%a got=%a\n", pos, i, d, tables[t].base, (double)s.f32,
                       (double)(float)rs[i], (double)c.f32, (double)(float)rc[i]);
            if (rp[i] <= 0.0) continue; /* w = 0: frequency outside the path */
            omega_hp(w, d, tables[t].base, i);
            mpfr_mul_si(th, w, (long)pos, MPFR_RNDN);
            mpfr_sin_cos(vs, vc, th, MPFR_RNDN);
            double q1 = bound_ratio(rs[i], rp[i], vs, tmp), q2 = bound_ratio(rc[i], rp[i], vc, tmp);
            double q = q1 > q2 ? q1 : q2;
            checked++;
            if (q > worst) worst = q;
            if (!(q <= 1.0) && bound_bad++ < 10)
                printf("# FAIL bound pos=%" PRId64 " i=%d d=%d base=%a: err/bound sin %.3g "
                       "cos %.3g\n", pos, i, d, tables[t].base, q1, q2);
        }
        rows++;
        done += h;
    }
    printf("%s 1 - rows: vector path equals the Ziv loop on %ld rows, %ld pairs (%ld differ)\n",
           bad ? "not ok" : "ok", rows, done, bad);
    printf("%s 2 - proven bound holds on %ld pairs (largest err/bound %.3g); decided pairs "
           "round right (%ld differ)\n", bound_bad || dec_bad || checked == 0 ? "not ok" : "ok",
           checked, worst, dec_bad);

    /* 3. instruction sets */
    long isa_bad = 0, isa_rows = 0;
    int isas[3], nisa = 0;
    for (int k = best; k >= PC_VEC_SCALAR; k--) isas[nisa++] = k;
    for (long k = 0; k < 2000; k++) {
        size_t t = (size_t)pc_rng_below(&r, N_TABLES);
        int d = tables[t].d, h = d / 2, mode = (int)(k % 3);
        int64_t pos = 1 + (int64_t)pc_rng_below(&r, (uint64_t)PC_VEC_POS_MAX);
        if (k % 2) pos = 1 + (int64_t)pc_rng_below(&r, (uint64_t)1 << 20);
        static int und_a[4096], und_b[4096], rund_a[4096], rund_b[4096];
        static float x[8192], rot_a[8192], rot_b[8192];
        for (int j = 0; j < d; j++) x[j] = pc_rng_normal_f32(&r);
        pc_vec_force_isa(isas[0]);
        pc_vec_raw(vec[t], pos, rs, rc, rp, rok);
        int na = pc_vec_row32(vec[t], pos, mode, out_a, und_a);
        int ra = pc_vec_rope32(vec[t], pos, (int)(k & 1), x, rot_a, rund_a);
        for (int m = 1; m < nisa; m++) {
            pc_vec_force_isa(isas[m]);
            pc_vec_raw(vec[t], pos, rs2, rc2, rp2, rok2);
            int nb = pc_vec_row32(vec[t], pos, mode, out_b, und_b);
            int rb = pc_vec_rope32(vec[t], pos, (int)(k & 1), x, rot_b, rund_b);
            int diff = na != nb || memcmp(und_a, und_b, (size_t)na * sizeof *und_a)
                    || memcmp(rs, rs2, (size_t)h * sizeof *rs) || memcmp(rc, rc2, (size_t)h * sizeof *rc)
                    || memcmp(rp, rp2, (size_t)h * sizeof *rp) || memcmp(rok, rok2, (size_t)h)
                    || ra != rb || memcmp(rund_a, rund_b, (size_t)ra * sizeof *rund_a)
                    || memcmp(rot_a, rot_b, (size_t)d * sizeof *rot_a);
            for (int k2 = 0, u = 0; k2 < h && !diff; k2++) { /* OUT slots of decided pairs */
                if (u < na && und_a[u] == k2) { u++; continue; }
                float s1, c1, s2, c2;
                at(mode, out_a, h, k2, &s1, &c1);
                at(mode, out_b, h, k2, &s2, &c2);
                diff = !same32(s1, s2) || !same32(c1, c2);
            }
            if (diff && isa_bad++ < 10)
                printf("# FAIL isa %d vs %d pos=%" PRId64 " d=%d base=%a mode=%d seed=%" PRIu64 "\n",
                       isas[0], isas[m], pos, d, tables[t].base, mode, seed);
        }
        isa_rows++;
    }
    pc_vec_force_isa(best);
    printf("%s 3 - %d instruction sets give the same bits on %ld rows (%ld differ)\n",
           isa_bad ? "not ok" : "ok", nisa, isa_rows, isa_bad);

    /* 4. hard vectors */
    FILE *fp = fopen(VECTORS, "r");
    long nv = 0, vbad = 0, vdec = 0, malformed = 0;
    if (fp) {
        char line[1024];
        /* (d, base) tables built once each (the file has 11) */
        enum { MAXT = 32 };
        int td[MAXT];
        double tbase[MAXT];
        pc_freqs *tf[MAXT];
        pc_vec *tv[MAXT];
        int nt = 0;
        while (fgets(line, sizeof line, fp)) {
            if (line[0] == '#' || line[0] == '\n') continue;
            long long pos;
            int i, d;
            double base, s32, c32;
            if (sscanf(line, "%lld %d %d %lf %la %la", &pos, &i, &d, &base, &s32, &c32) != 6
                || d < 2 || d > 8192 || d % 2 || i < 0 || i >= d / 2 || pos < 0
                || pos > PC_POS_MAX) {
                malformed++;
                continue;
            }
            int k = 0;
            while (k < nt && !(td[k] == d && tbase[k] == base)) k++;
            if (k == MAXT) { malformed++; continue; }
            if (k == nt) {
                table tb = { d, base };
                td[k] = d; tbase[k] = base;
                tf[k] = pc_freqs_new(d, pc_schedule_geometric(base));
                tv[k] = vec_of(&tb);
                nt++;
                if (!tf[k] || !tv[k]) { printf("Bail out! out of memory\n"); return 1; }
            }
            pc_freqs *cf = tf[k];
            pc_vec *cv = tv[k];
            nv++;
            pc_status st = pc_ref_sincos_row32(cf, (int64_t)pos, PC_VEC_SC, out_a);
            int fail = st != PC_OK || !same32(out_a[2 * i], (float)s32)
                       || !same32(out_a[2 * i + 1], (float)c32);
            if (pos >= 1 && pos <= PC_VEC_POS_MAX) {
                pc_vec_raw(cv, (int64_t)pos, rs, rc, rp, rok);
                if (rok[i]) {
                    vdec++;
                    fail |= !same32((float)rs[i], (float)s32) || !same32((float)rc[i], (float)c32);
                }
            }
            if (fail && vbad++ < 10)
                printf("# FAIL vector pos=%lld i=%d d=%d base=%a: sin ref=%a got=%a cos ref=%a "
                       "got=%a\n", pos, i, d, base, s32, (double)out_a[2 * i], c32,
                       (double)out_a[2 * i + 1]);
        }
        fclose(fp);
        for (int k = 0; k < nt; k++) { pc_freqs_free(tf[k]); pc_vec_free(tv[k]); }
    }
    printf("%s 4 - %s: %ld hard vectors equal (%ld decided by the vector kernel alone, "
           "%ld differ, %ld malformed)\n", fp && nv > 0 && !vbad && !malformed ? "ok" : "not ok",
           VECTORS, nv, vdec, vbad, malformed);

    /* 5. share decided */
    uint64_t nvec = 0, nund = 0;
    for (size_t t = 0; t < N_TABLES; t++) {
        uint64_t a, b;
        pc_freqs_vec_stats(fast[t], &a, &b);
        nvec += a; nund += b;
    }
    double share = nvec + nund ? (double)nvec / (double)(nvec + nund) : 0.0;
    printf("%s 5 - the vector path decided %.6f%% of its in-range pairs (%" PRIu64 " decided, %"
           PRIu64 " passed to the scalar path)\n", share >= 0.9999 ? "ok" : "not ok",
           100.0 * share, nvec, nund);

    /* 6. RoPE rows */
    long rbad = 0, rrows = 0, rpairs = 0;
    uint64_t v0 = 0, u0 = 0;
    for (size_t t = 0; t < N_TABLES; t++) {
        uint64_t a, b;
        pc_freqs_vec_stats(fast[t], &a, &b);
        v0 += a; u0 += b;
    }
    for (long k = 0; rpairs < pairs / 10 || k == 0; k++) {
        size_t t = (size_t)pc_rng_below(&r, N_TABLES);
        int d = tables[t].d;
        int64_t pos = draw_pos(&r);
        static float x[8192];
        for (int j = 0; j < d; j++) x[j] = pc_rng_normal_f32(&r);
        if (k % 7 == 0) x[0] = 0.0f;               /* one member zero */
        if (k % 11 == 0) x[1] = ldexpf(x[1], -30); /* very unequal members */
        if (k % 13 == 0) x[d - 1] = x[d - 2] = 0.0f; /* the zero pair */
        int layout = (int)(k & 1);
        pc_status a = pc_ref_rope_row(fast[t], pos, layout, x, out_a, NULL);
        pc_status b = pc_ref_rope_row(slow[t], pos, layout, x, out_b, NULL);
        rrows++;
        rpairs += d / 2;
        int diff = a != b || a != PC_OK;
        for (int j = 0; j < d && !diff; j++) diff = !same32(out_a[j], out_b[j]);
        if (diff && rbad++ < 10)
            printf("# FAIL rope pos=%" PRId64 " d=%d base=%a layout=%d seed=%" PRIu64 "\n",
                   pos, d, tables[t].base, layout, seed);
    }
    uint64_t v1 = 0, u1 = 0;
    for (size_t t = 0; t < N_TABLES; t++) {
        uint64_t a, b;
        pc_freqs_vec_stats(fast[t], &a, &b);
        v1 += a; u1 += b;
    }
    printf("%s 6 - rope: vector path equals the Ziv loop on %ld rows, %ld pairs (%" PRIu64
           " decided by the vector path, %" PRIu64 " passed on; %ld rows differ)\n",
           rbad || v1 == v0 ? "not ok" : "ok", rrows, rpairs, v1 - v0, u1 - u0, rbad);

    mpfr_clears(w, th, vs, vc, tmp, (mpfr_ptr)0);
    for (size_t t = 0; t < N_TABLES; t++) {
        pc_freqs_free(fast[t]); pc_freqs_free(slow[t]); pc_vec_free(vec[t]);
    }
    mpfr_free_cache();
    return bad || bound_bad || dec_bad || isa_bad || vbad || malformed || !fp || nv == 0
           || share < 0.9999 || rbad || v1 == v0;
}
