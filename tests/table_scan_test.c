/* table_scan_test.c: a .npy table read in pieces (harness/sources/table.c,
 * table_scan.c) says what the whole table, held in memory, says.
 *
 * The scan at open (pc_table_scan_run) against a direct computation here,
 * the definitions of table_scan.h evaluated over the whole table at once:
 * NaN/Inf (count, first), the repeated columns of each layout (count,
 * first, agreement within 2 ulps), the sinusoidal sums, and the base's fit
 * (pc_rope_fit_acc fed every row in order), bit for bit, on RoPE caches of
 * each shape ((n, d) half and interleaved, (n, d/2), odd columns) with
 * NaN, Inf and differing repeated columns sown over several blocks, with
 * 1, 2, 3 and 5 threads; a cache whose first rows choose another layout
 * than all of them (the fit made again from a second read).  Then through
 * pc_table_open: the hooks serve the file's rows, and a file cut after
 * the open makes the hook fail and pc_table_status name it.  TAP. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp, truncate */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "harness/io/npy.h"
#include "harness/sources/table.h"
#include "harness/sources/table_scan.h"
#include "harness/cli/opts.h"
#include "harness/base/rng.h"
#include "harness/engine/model.h"
#include "families/family.h"
#include "families/rope/fit.h"
#include "pecheck_plugin.h"

static int n_tests, n_fail;

static void ok(int cond, const char *what)
{
    n_tests++;
    if (!cond) n_fail++;
    printf("%s %d - %s\n", cond ? "ok" : "not ok", n_tests, what);
    fflush(stdout);
}

static char dir[] = "/tmp/table_scan_test.XXXXXX";

/* ---- tables ------------------------------------------------------------- */

/* An (N, C) cache of shape SH: cos and sin of pos * base^(-2i/d), the
 * pairs' values repeated as the layout says (an (n, d/2) one: one column
 * a pair), in binary32. */
static void cache(size_t n, size_t c, pc_cache_shape sh, float *cs, float *sn)
{
    size_t h = sh.full ? c / 2 : c;
    size_t d = 2 * h;
    for (size_t r = 0; r < n; r++)
        for (size_t j = 0; j < c; j++) {
            size_t i = !sh.full ? j : sh.layout ? j % h : j / 2;
            double w = pow(10000.0, -2.0 * (double)i / (double)d), th = (double)r * w;
            cs[r * c + j] = (float)cos(th);
            sn[r * c + j] = (float)sin(th);
        }
}

/* Defects sown with seed SEED over N x C values: NaN, Inf, far and
 * near (1 ulp) changes of single values. */
static void sow(float *v, size_t n, size_t c, uint64_t seed, int count)
{
    pc_rng g;
    pc_rng_seed(&g, seed);
    for (int k = 0; k < count; k++) {
        size_t at = (size_t)pc_rng_below(&g, n * c);
        switch (pc_rng_below(&g, 4)) {
        case 0: v[at] = NAN; break;
        case 1: v[at] = -INFINITY; break;
        case 2: v[at] = v[at] * 0.5f + 0.25f; break;
        default: v[at] = nextafterf(v[at], 2.0f); break;
        }
    }
}

static int save(const char *name, const float *v, size_t n, size_t c, char *path, size_t len)
{
    snprintf(path, len, "%s/%s", dir, name);
    size_t shape[2] = { n, c };
    pc_err e;
    return pc_npy_write_f32(path, v, 2, shape, &e) == PC_OK;
}

/* ---- the direct computation -------------------------------------------------- */

typedef struct direct {
    uint64_t nf[2];
    size_t nf_k[2];
    size_t bad[2];
    int loose[2];
    char first[2][200];
    double e[2];
    size_t used;
} direct;

static double ulp_of(float x)
{
    int e;
    frexpf(fabsf(x), &e);
    if (x == 0.0f || e < -125) e = -125;
    return ldexp(1.0, e - 24);
}

/* table_scan.h's repeated columns of layout L over the whole cache (f32
 * storage): bits equal, or both finite and within 2 ulps of the larger. */
static void direct_dup(const float *v[2], size_t n, size_t c, int l, direct *o)
{
    size_t h = c / 2;
    for (int m = 0; m < 2; m++)
        for (size_t r = 0; r < n; r++)
            for (size_t i = 0; i < h; i++) {
                size_t ca = l ? i : 2 * i, cb = l ? i + h : 2 * i + 1;
                float x = v[m][r * c + ca], y = v[m][r * c + cb];
                if (memcmp(&x, &y, 4) == 0) continue;
                double tol = 2.0 * ulp_of(fabsf(x) > fabsf(y) ? x : y);
                if (isfinite(x) && isfinite(y) && fabs((double)x - (double)y) <= tol) {
                    o->loose[l] = 1;
                    continue;
                }
                if (o->bad[l]++ == 0)
                    snprintf(o->first[l], sizeof o->first[l], "%s row %zu (pos %" PRId64 "): "
                             "column %zu = %a (%.9g) but column %zu = %a (%.9g)", m ? "sin" : "cos",
                             r, (int64_t)r, ca, (double)x, (double)x, cb, (double)y, (double)y);
            }
}

static void direct_scan(const float *a, const float *s, size_t n, size_t c, direct *o)
{
    memset(o, 0, sizeof *o);
    const float *v[2] = { a, s };
    for (int f = 0; f < (s ? 2 : 1); f++)
        for (size_t k = 0; k < n * c; k++)
            if (!isfinite(v[f][k]) && o->nf[f]++ == 0) o->nf_k[f] = k;
    if (s && c % 2 == 0)
        for (int l = 0; l < 2; l++) direct_dup(v, n, c, l, o);
    if (s) return;
    for (size_t r = 0; r < n && c / 2 > 1; r++) {
        double x = (double)a[r * c], c0 = (double)a[r * c + 1], c1 = (double)a[r * c + c / 2];
        if (!isfinite(x) || !isfinite(c0) || !isfinite(c1)) continue;
        o->e[0] += fabs(x * x + c0 * c0 - 1.0);
        o->e[1] += fabs(x * x + c1 * c1 - 1.0);
        o->used++;
    }
}

/* The fit fed row by row from the whole cache, pair i at the columns the
 * table's hook uses, through its rotation of (1, 0) in binary32. */
static pc_status direct_fit(const float *a, const float *s, size_t n, size_t c, pc_cache_shape sh,
                            pc_rope_fit *f)
{
    int h = (int)(sh.full ? c / 2 : c);
    pc_rope_fit_acc acc;
    double *fc = malloc((size_t)h * sizeof *fc), *fs = malloc((size_t)h * sizeof *fs);
    if (!fc || !fs || pc_rope_fit_acc_init(&acc, h, 0) != PC_OK) { free(fc); free(fs); return PC_ENOMEM; }
    for (size_t r = 0; r < n; r++) {
        for (int i = 0; i < h; i++) {
            size_t ca = (size_t)i, cb = (size_t)i;
            if (sh.full) {
                ca = sh.layout ? (size_t)i : (size_t)(2 * i);
                cb = sh.layout ? (size_t)(i + h) : ca + 1;
            }
            float x1 = 1.0f, x0 = 0.0f;
            float oa = x1 * a[r * c + ca] - x0 * s[r * c + ca];
            float ob = x0 * a[r * c + cb] + x1 * s[r * c + cb];
            fc[i] = (double)oa;
            fs[i] = (double)ob;
        }
        pc_rope_fit_acc_row(&acc, fc, fs);
    }
    free(fc); free(fs);
    return pc_rope_fit_acc_end(&acc, 0x1p-24, f);
}

/* ---- the scan against it ----------------------------------------------------- */

typedef struct shape_ctx { int d_set, d, layout; size_t cols; } shape_ctx;

/* The rule of table.c's cache_shape (the options: none). */
static void choose(const void *ctx, const size_t bad[2], size_t pairs, pc_cache_shape *sh)
{
    const shape_ctx *o = ctx;
    size_t best = bad[0] < bad[1] ? bad[0] : bad[1];
    sh->full = o->d_set ? (size_t)o->d == o->cols : o->cols % 2 == 0 && best <= pairs / 10;
    if (!sh->full) sh->layout = o->layout;
    else if (o->layout >= 0) sh->layout = o->layout;
    else sh->layout = bad[0] == 0 && bad[1] == 0 ? 1 : bad[1] <= bad[0] ? 1 : 0;
}

/* The base of the fit F (freed), as RoPE's diagnosis makes it. */
static int base_of(pc_rope_fit *f, int d, double *base, double *raw)
{
    double resid;
    *raw = pc_rope_fit_base(f, d, &resid);
    *base = pc_rope_round_base(*raw);
    pc_rope_fit_free(f);
    return resid < 1e-3 && isfinite(*base);
}

/* Where SC differs from the direct D (empty: nowhere). */
static void compare(const pc_table_scan *sc, const direct *d, int rope, char *why, size_t len)
{
    why[0] = '\0';
    for (int f = 0; f < 2; f++)
        if (sc->nf[f].count != d->nf[f] || (d->nf[f] && sc->nf[f].k != d->nf_k[f]))
            snprintf(why, len, "file %d: %" PRIu64 " NaN/Inf, first %zu; direct %" PRIu64 ", %zu", f,
                     sc->nf[f].count, sc->nf[f].k, d->nf[f], d->nf_k[f]);
    for (int l = 0; rope && sc->bad[0] != SIZE_MAX && l < 2; l++)
        if (sc->bad[l] != d->bad[l] || sc->loose[l] != d->loose[l] || strcmp(sc->first[l], d->first[l]))
            snprintf(why, len, "layout %d: %zu differ (loose %d, first '%s'); direct %zu (%d, '%s')",
                     l, sc->bad[l], sc->loose[l], sc->first[l], d->bad[l], d->loose[l], d->first[l]);
    if (!rope && (memcmp(sc->e, d->e, sizeof d->e) || sc->used != d->used))
        snprintf(why, len, "sums %a %a (%zu rows); direct %a %a (%zu)", sc->e[0], sc->e[1], sc->used,
                 d->e[0], d->e[1], d->used);
}

/* Scan the cache in files A (and S) with THREADS threads; compare. */
static int scan_case(const char *what, const char *pa, const char *ps, const float *a,
                     const float *s, size_t n, size_t c, int threads, int want_reads)
{
    pc_npy_file fa, fs;
    pc_err e;
    char why[600] = "";
    memset(&fs, 0, sizeof fs);
    if (pc_npy_file_open(pa, &fa, &e) != PC_OK || (ps && pc_npy_file_open(ps, &fs, &e) != PC_OK)) {
        printf("# %s: %s\n", what, e.msg);
        return 0;
    }
    shape_ctx so = { 0, 0, -1, c };
    pc_table_scan sc;
    memset(&sc, 0, sizeof sc);
    sc.a = &fa; sc.s = ps ? &fs : NULL; sc.rows = n; sc.cols = c; sc.dtype = PC_DT_F32;
    sc.choose = choose; sc.choose_ctx = &so; sc.fit_u_s = 0x1p-24;
    sc.fit = ps ? pc_family_find("rope")->diagnosis->table_points : NULL;
    sc.threads = threads;
    direct d;
    direct_scan(a, s, n, c, &d);
    pc_status st = pc_table_scan_run(&sc, &e);
    if (st != PC_OK) snprintf(why, sizeof why, "scan: %s", e.msg);
    else compare(&sc, &d, ps != NULL, why, sizeof why);
    if (!why[0] && ps) {
        pc_cache_shape last;
        choose(&so, d.bad, 2 * n * (c / 2), &last);
        pc_rope_fit f;
        double base = 0, raw = 0;
        int fit_ok = direct_fit(a, s, n, c, last, &f) == PC_OK &&
                     base_of(&f, (int)(last.full ? c : 2 * c), &base, &raw);
        if (fit_ok != sc.fit_ok || (fit_ok && (memcmp(&base, &sc.fit_base, sizeof base) ||
                                              memcmp(&raw, &sc.fit_raw, sizeof raw))))
            snprintf(why, sizeof why, "fit: %d, base %a (%a); direct %d, %a (%a)", sc.fit_ok,
                     sc.fit_base, sc.fit_raw, fit_ok, base, raw);
        else if (sc.reads != want_reads)
            snprintf(why, sizeof why, "%d reads, want %d", sc.reads, want_reads);
    }
    if (why[0]) printf("# %s, %d threads: %s\n", what, threads, why);
    pc_npy_file_close(&fa);
    pc_npy_file_close(&fs);
    return !why[0];
}

static void rope_shapes(void)
{
    static const struct { const char *name; size_t c; pc_cache_shape sh; } cases[] = {
        { "(n, d) half cache", 128, { 1, 1 } },
        { "(n, d) interleaved cache", 128, { 1, 0 } },
        { "(n, d/2) cache", 64, { 0, 1 } },
        { "(n, d) half cache, d = 40", 40, { 1, 1 } },
        { "(n, 9) cache (odd columns)", 9, { 0, 1 } },
    };
    size_t n = 1100; /* blocks of 256 rows at d = 128: 5 of them */
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        size_t c = cases[k].c;
        float *a = malloc(n * c * sizeof *a), *s = malloc(n * c * sizeof *s);
        char pa[300], ps[300], what[200];
        if (!a || !s) { ok(0, "out of memory"); free(a); free(s); return; }
        cache(n, c, cases[k].sh, a, s);
        sow(a, n, c, 11 + k, 25);
        sow(s, n, c, 31 + k, 25);
        int good = save("c.npy", a, n, c, pa, sizeof pa) && save("s.npy", s, n, c, ps, sizeof ps);
        for (int t = 1; good && t <= 5; t += t < 3 ? 1 : 2)
            good = scan_case(cases[k].name, pa, ps, a, s, n, c, t, 1);
        snprintf(what, sizeof what, "scan of a %s with NaN, Inf and differing repeats: the direct "
                 "counts, firsts and fit, 1, 2, 3 and 5 threads", cases[k].name);
        ok(good, what);
        free(a); free(s);
    }
}

/* A half cache whose first block's repeated columns all differ (an
 * (n, d/2) cache there) but whose other rows repeat: the first block
 * chooses (n, d/2), all of them (n, d), and the fit is made again. */
static void refit_case(void)
{
    size_t n = 3000, c = 128;
    pc_cache_shape sh = { 1, 1 };
    float *a = malloc(n * c * sizeof *a), *s = malloc(n * c * sizeof *s);
    char pa[300], ps[300];
    if (!a || !s) { ok(0, "out of memory"); free(a); free(s); return; }
    cache(n, c, sh, a, s);
    for (size_t r = 1; r < 256; r++)
        for (size_t j = c / 2; j < c; j++) { a[r * c + j] *= 0.5f; s[r * c + j] *= 0.5f; }
    int good = save("c.npy", a, n, c, pa, sizeof pa) && save("s.npy", s, n, c, ps, sizeof ps);
    for (int t = 1; good && t <= 2; t++)
        good = scan_case("first block (n, d/2), the rest (n, d)", pa, ps, a, s, n, c, t, 2);
    ok(good, "a cache whose first rows choose another layout: the fit made again (2 reads), the "
       "direct fit of the chosen layout");
    free(a); free(s);
}

static void sinusoidal_case(void)
{
    size_t n = 2000, c = 64;
    float *a = malloc(n * c * sizeof *a);
    char pa[300];
    if (!a) { ok(0, "out of memory"); return; }
    for (size_t r = 0; r < n; r++)
        for (size_t i = 0; i < c / 2; i++) {
            double th = (double)r * pow(10000.0, -2.0 * (double)i / (double)c);
            a[r * c + 2 * i] = (float)sin(th);
            a[r * c + 2 * i + 1] = (float)cos(th);
        }
    sow(a, n, c, 5, 40);
    int good = save("pe.npy", a, n, c, pa, sizeof pa);
    for (int t = 1; good && t <= 3; t++)
        good = scan_case("sinusoidal table", pa, NULL, a, NULL, n, c, t, 1);
    ok(good, "scan of a sinusoidal table with NaN and Inf: the direct counts and layout sums, "
       "1, 2 and 3 threads");
    free(a);
}

/* ---- the hooks -------------------------------------------------------------- */

static void hooks_case(void)
{
    size_t n = 700, c = 64;
    pc_cache_shape sh = { 1, 1 };
    float *a = malloc(n * c * sizeof *a), *s = malloc(n * c * sizeof *s);
    float x[5 * 64], y[5 * 64];
    char pa[300], ps[300];
    if (!a || !s) { ok(0, "out of memory"); free(a); free(s); return; }
    cache(n, c, sh, a, s);
    pc_table_args o = { .layout = -1, .base = 10000.0, .dtype = PC_DT_F32 };
    pc_impl *im = NULL;
    pc_err e;
    int good = save("hc.npy", a, n, c, pa, sizeof pa) && save("hs.npy", s, n, c, ps, sizeof ps) &&
               pc_table_open(&o, pa, ps, "rope", &im, &e) == PC_OK;
    int64_t pos[5] = { 3, 4, 5, 699, 0 }; /* a run, then single rows */
    for (size_t k = 0; k < 5 * c; k++) x[k] = (float)(k % 7) - 3.0f;
    int rc = good ? im->rope(im->ctx, pos, 5, (int)c, 10000.0, PECHECK_LAYOUT_HALF, x, y) : -1;
    for (size_t r = 0; rc == 0 && r < 5; r++)
        for (size_t i = 0; i < c / 2; i++) {
            size_t row = (size_t)pos[r] * c;
            float xa = x[r * c + i], xb = x[r * c + i + c / 2];
            float wa = xa * a[row + i] - xb * s[row + i], wb = xb * a[row + i + c / 2] + xa * s[row + i + c / 2];
            good &= memcmp(&y[r * c + i], &wa, 4) == 0 && memcmp(&y[r * c + i + c / 2], &wb, 4) == 0;
        }
    ok(good && rc == 0 && pc_table_status(im, &e) == PC_OK,
       "the RoPE hook rotates by the file's rows (a run of positions, single rows)");
    int64_t out[1] = { 700 };
    ok(good && im->rope(im->ctx, out, 1, (int)c, 10000.0, PECHECK_LAYOUT_HALF, x, y) == 3,
       "a position past the table: 3, nothing read");
    good &= truncate(ps, 128 + (off_t)(600 * c * 4)) == 0;
    int64_t late[1] = { 650 };
    rc = good ? im->rope(im->ctx, late, 1, (int)c, 10000.0, PECHECK_LAYOUT_HALF, x, y) : 0;
    pc_status st = good ? pc_table_status(im, &e) : PC_OK;
    printf("# cut file: hook %d, status %d: %s\n", rc, (int)st, e.msg);
    ok(good && rc != 0 && st == PC_EINPUT && strstr(e.msg, ps) && strstr(e.msg, "changed after"),
       "a file cut after the open: the hook fails, pc_table_status names the file");
    if (im) pc_table_close(im);
    free(a); free(s);
}

int main(void)
{
    if (!mkdtemp(dir)) { perror("mkdtemp"); return 2; }
    rope_shapes();
    refit_case();
    sinusoidal_case();
    hooks_case();
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "table_scan_test: could not remove %s\n", dir);
    printf("1..%d\n", n_tests);
    return n_fail ? 1 : 0;
}
