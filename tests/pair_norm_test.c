/* pair_norm_test.c: the norm of an input pair (harness/engine/model.h
 * pc_model_pair_norm, the scale s of a rotated pair's bound) against its
 * exact value (MPFR at 256 bits, rounded once): within 1 ulp (glibc's
 * hypot, whose operations it follows, is within about 0.79), on seeded
 * pairs of normal values (the gate's inputs), of any finite binary32 bit
 * patterns, of exponents far apart, and at zero, subnormals and the
 * largest binary32; symmetric in its arguments and their signs, bit for
 * bit (the gate computes it once a pair).  TAP. */
#include <math.h>
#include <mpfr.h>
#include <stdio.h>
#include <string.h>
#include "harness/engine/model.h"
#include "harness/base/rng.h"

static int n_tests, n_fail;

static void ok(int cond, const char *what)
{
    n_tests++;
    if (!cond) n_fail++;
    printf("%s %d - %s\n", cond ? "ok" : "not ok", n_tests, what);
}

/* |norm - exact| in ulps of the result (binary64). */
static double ulps(float x, float y, double norm, mpfr_t t, mpfr_t u)
{
    mpfr_set_flt(t, x, MPFR_RNDN);
    mpfr_set_flt(u, y, MPFR_RNDN);
    mpfr_hypot(t, t, u, MPFR_RNDN); /* 256 bits: the square root's rounding alone */
    mpfr_sub_d(u, t, norm, MPFR_RNDN);
    double err = fabs(mpfr_get_d(u, MPFR_RNDN));
    int e;
    frexp(norm, &e);
    return norm == 0 ? (mpfr_zero_p(t) ? 0 : (double)INFINITY) : err / ldexp(1.0, e - 53);
}

static int symmetric(float x, float y)
{
    double a = pc_model_pair_norm(x, y), b = pc_model_pair_norm(y, x);
    double c = pc_model_pair_norm(-x, y), d = pc_model_pair_norm(x, -y);
    return !memcmp(&a, &b, 8) && !memcmp(&a, &c, 8) && !memcmp(&a, &d, 8);
}

static float finite_bits(pc_rng *g)
{
    for (;;) {
        uint32_t u = (uint32_t)pc_rng_u64(g);
        float f;
        memcpy(&f, &u, sizeof f);
        if (isfinite(f)) return f;
    }
}

int main(void)
{
    mpfr_t t, u;
    mpfr_init2(t, 256);
    mpfr_init2(u, 256);
    pc_rng g;
    pc_rng_seed(&g, PC_DEFAULT_SEED);
    const char *kinds[3] = { "normal values", "finite bit patterns", "exponents far apart" };
    for (int k = 0; k < 3; k++) {
        double worst = 0;
        int sym = 1;
        for (int i = 0; i < 300000; i++) {
            float x, y;
            if (k == 0) { x = pc_rng_normal_f32(&g); y = pc_rng_normal_f32(&g); }
            else { x = finite_bits(&g); y = finite_bits(&g); }
            if (k == 2) y = ldexpf(x, -(int)pc_rng_below(&g, 64)) * 0.75f;
            double e = ulps(x, y, pc_model_pair_norm(x, y), t, u);
            if (e > worst) worst = e;
            sym &= symmetric(x, y);
        }
        char what[160];
        printf("# %s: largest error %.3f ulp\n", kinds[k], worst);
        snprintf(what, sizeof what, "pair norm of 300000 pairs of %s within 1 ulp, symmetric",
                 kinds[k]);
        ok(worst < 1.0 && sym, what);
    }
    static const float edge[][2] = {
        { 0.0f, 0.0f }, { -0.0f, 3.0f }, { 0x1p-149f, 0.0f }, { 0x1p-149f, 0x1p-149f },
        { 0x1.fffffep127f, 0x1.fffffep127f }, { 0x1.fffffep127f, 0x1p-149f }, { 1.0f, 0x1p-30f },
        { 3.0f, 4.0f }, { 0x1p-126f, 0x1.fffffcp-127f },
    };
    double worst = 0;
    int sym = 1;
    for (size_t k = 0; k < sizeof edge / sizeof edge[0]; k++) {
        double e = ulps(edge[k][0], edge[k][1], pc_model_pair_norm(edge[k][0], edge[k][1]), t, u);
        if (e > worst) worst = e;
        sym &= symmetric(edge[k][0], edge[k][1]);
    }
    printf("# edges: largest error %.3f ulp; 3, 4 -> %a\n", worst, pc_model_pair_norm(3.0f, 4.0f));
    ok(worst < 1.0 && sym && pc_model_pair_norm(3.0f, 4.0f) == 5.0 &&
       pc_model_pair_norm(0.0f, 0.0f) == 0.0,
       "pair norm at zero, subnormals, the largest binary32, exponents 2^30 apart, 3-4-5");
    mpfr_clear(t);
    mpfr_clear(u);
    mpfr_free_cache();
    printf("1..%d\n", n_tests);
    return n_fail != 0;
}
