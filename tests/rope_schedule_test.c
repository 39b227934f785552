/* rope_schedule_test.c: the RoPE frequency schedules in the certified
 * reference (TAP output).
 *
 *  - every schedule's omega_i, certified by interval arithmetic, agrees
 *    with the same formula in binary64 (libm) to 1e-13 relative;
 *  - the attention factor: the fast path (double-double times A) and the
 *    pure Ziv loop (MPFR times A) give the same correctly rounded A sin,
 *    A cos and rotated RoPE pairs, bit for bit, over thousands of
 *    (position, pair) values, at position 0 too (A x, exact);
 *  - a given (binary64) attention factor is exact: position 0's cos is it;
 *  - llama3's three bands are one formula: pairs just around the band
 *    edges agree with HF's branches;
 *  - bad parameters are refused with a message naming them. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "families/rope/scaling.h"
#include "reference/fastpath.h"

static int n_test, n_fail;

static void ok(int cond, const char *what)
{
    n_test++;
    if (!cond) n_fail++;
    printf("%s %d - %s\n", cond ? "ok" : "not ok", n_test, what);
}

static pc_rope_params base_params(int type, int dim, double base)
{
    pc_rope_params p;
    memset(&p, 0, sizeof p);
    p.type = type;
    p.dim = dim;
    p.base = base;
    return p;
}

/* HF's formulas in binary64 (modeling_rope_utils.py) */
static double g64(const pc_rope_params *p, int i) { return pow(p->base, -2.0 * i / p->dim); }

static double llama3_64(const pc_rope_params *p, int i)
{
    double g = g64(p, i), wl = 2 * M_PI / g;
    double lw = p->orig_max / p->low_freq_factor, hw = p->orig_max / p->high_freq_factor;
    if (wl > lw) return g / p->factor;
    if (wl < hw) return g;
    double s = (p->orig_max / wl - p->low_freq_factor) / (p->high_freq_factor - p->low_freq_factor);
    return (1 - s) * g / p->factor + s * g;
}

static double yarn_64(const pc_rope_params *p, int i)
{
    double cf = p->dim * log(p->orig_max / (p->beta_fast * 2 * M_PI)) / (2 * log(p->base));
    double cs = p->dim * log(p->orig_max / (p->beta_slow * 2 * M_PI)) / (2 * log(p->base));
    double lo = fmax(floor(cf), 0), hi = fmin(ceil(cs), p->dim - 1);
    double r = fmin(fmax((i - lo) / (hi - lo), 0), 1), w = 1 - r;
    return g64(p, i) / p->factor * (1 - w) + g64(p, i) * w;
}

static int near(double a, double b)
{
    return fabs(a - b) <= 1e-9 * fabs(b);
}

static double max_rel(const pc_rope_params *p, double (*f64)(const pc_rope_params *, int))
{
    pc_schedule s = pc_rope_schedule(p);
    pc_freqs *f = pc_freqs_new(p->dim, s);
    double worst = f ? 0 : (double)INFINITY;
    for (int i = 0; f && i < p->dim / 2; i++) {
        double e = fabs(pc_freqs_omega(f, i) / f64(p, i) - 1);
        if (e > worst) worst = e;
    }
    pc_freqs_free(f);
    return worst;
}

/* docs/schedules.md, "llama3", for Llama 3.1 (f 8, lf 1, hf 4, L 8192,
 * d 128): a band pair's C, the larger of HF's kappa E + 3 + S D + 2 and
 * llama.cpp's G + (kappa - 1) E + S D + 5, with E = P - 2 = 9 the pow
 * form's frequency error (CUDA's 4-ulp powf) */
static double llama3_band_c(int i, double lb)
{
    double f = 8, lf = 1, hf = 4, g = exp(-2.0 * i / 128 * lb), y = 8192 * g / (2 * M_PI);
    double s = fmin(fmax((y - lf) / (hf - lf), 0.0), 1.0), den = 1 / f + (1 - 1 / f) * s;
    double kap = 1 + (1 - 1 / f) * y / (hf - lf) / den, sens = (1 - 1 / f) / den;
    double ds = 3 * y / (hf - lf) + 2 * s, e = 9, G = 3 * i + 2.0 * i / 128 * lb + 1;
    return fmax(kap * e + 3 + sens * ds + 2, G + (kap - 1) * e + sens * ds + 5);
}

static void test_values(void)
{
    pc_err e;
    pc_rope_params l3 = base_params(PC_ROPE_LLAMA3, 128, 500000);
    l3.factor = 8; l3.low_freq_factor = 1; l3.high_freq_factor = 4; l3.orig_max = 8192;
    ok(pc_rope_prepare(&l3, &e) == PC_OK, "llama3 (Llama-3.1) prepares");
    ok(max_rel(&l3, llama3_64) < 1e-13, "llama3 omega_i = HF's branches in binary64, to 1e-13");
    /* the band's edges: wl = 8192 / 4 and 8192; pairs on either side take
     * ggml's G = 3i + X_i + 1 (above HF's pow form P = 2*4 + 3 = 11: CUDA's
     * 4-ulp powf, 2i/128 exact), the band its amplified error */
    double lb = log(500000.0);
    ok(l3.model_c[29] > 3 * 29 + 58.0 / 128 * lb + 1 && l3.model_c[34] > 3 * 34 + 68.0 / 128 * lb + 1
       && l3.model_c[28] < l3.model_c[29],
       "llama3: the band (pairs 29..34) has its own precision-model C");
    /* the larger of HF's and llama.cpp's (ggml's cumulative product divided
     * by rope_freqs): docs/schedules.md, "llama3" */
    ok(near(l3.model_c[28], 3 * 28 + 56.0 / 128 * lb + 1)
       && near(l3.model_c[35], 3 * 35 + 70.0 / 128 * lb + 1 + 2)
       && near(l3.model_c[29], llama3_band_c(29, lb)) && near(l3.model_c[34], llama3_band_c(34, lb)),
       "llama3: C_i covers llama.cpp's rope_freqs on ggml's cumulative product");
    pc_rope_params_free(&l3);

    pc_rope_params y = base_params(PC_ROPE_YARN, 128, 1e6);
    y.factor = 4; y.orig_max = 32768; y.beta_fast = 32; y.beta_slow = 1; y.truncate = 1;
    ok(pc_rope_prepare(&y, &e) == PC_OK, "yarn (Qwen2.5 x4) prepares");
    ok(max_rel(&y, yarn_64) < 1e-13, "yarn omega_i = HF's ramp in binary64, to 1e-13");
    ok(fabs(y.att_d - (0.1 * log(4.0) + 1)) < 1e-15 && !y.att_one, "yarn: A = 0.1 ln(factor) + 1");
    pc_rope_params_free(&y);

    pc_rope_params y2 = base_params(PC_ROPE_YARN, 64, 10000);
    y2.factor = 40; y2.orig_max = 4096; y2.beta_fast = 32; y2.beta_slow = 1; y2.truncate = 1;
    y2.mscale = 0.707; y2.mscale_all_dim = 0.707;
    ok(pc_rope_prepare(&y2, &e) == PC_OK && y2.att_one, "yarn: equal mscale and mscale_all_dim give A = 1 exactly");
    /* DeepSeek-V3: ramp pairs 10..23; llama.cpp's rope_yarn on ggml's
     * cumulative product G = 3i + X_i + 1: G, G + 3, G + 6 + 2 (f - 1) */
    double l4 = log(10000.0);
    ok(near(y2.model_c[5], fmax(11.0, 15 + 10.0 / 64 * l4 + 1)) && near(y2.model_c[10], 30 + 20.0 / 64 * l4 + 1)
       && near(y2.model_c[26], 78 + 52.0 / 64 * l4 + 1 + 3)
       && near(y2.model_c[15], 45 + 30.0 / 64 * l4 + 1 + 6 + 2 * 39.0),
       "yarn: C_i covers llama.cpp's rope_yarn on ggml's cumulative product");
    pc_schedule ys = pc_rope_schedule(&y2), gs = pc_schedule_geometric(10000);
    ok(pc_schedule_model_r(&ys, 64) == 2.0 && pc_schedule_model_r(&gs, 64) == 0.0,
       "yarn: 2 u more radial (llama.cpp's binary32 mscale); the geometric schedule none");
    pc_rope_params_free(&y2);

    pc_rope_params bad = base_params(PC_ROPE_LINEAR, 64, 10000);
    bad.factor = 0.5;
    ok(pc_rope_prepare(&bad, &e) == PC_EINPUT && strstr(e.msg, "factor"), "linear factor 0.5 is refused, naming factor");
    pc_rope_params_free(&bad);
    pc_rope_params b2 = base_params(PC_ROPE_LLAMA3, 64, 10000);
    b2.factor = 8; b2.low_freq_factor = 4; b2.high_freq_factor = 1; b2.orig_max = 8192;
    /* HF's code with high_freq_factor <= low_freq_factor: no band, the
     * step at L / low_freq_factor = 2048 (pair 21 of d 64 turns slower:
     * wl = 2 pi 10000^(42/64) = 2650, divided by the factor; pair 20:
     * 1987, unchanged) */
    int stepped = pc_rope_prepare(&b2, &e) == PC_OK;
    if (stepped) {
        pc_schedule s2 = pc_rope_schedule(&b2);
        pc_freqs *f2 = pc_freqs_new(64, s2);
        double g20 = pow(10000.0, -40.0 / 64), g21 = pow(10000.0, -42.0 / 64);
        stepped = f2 && fabs(pc_freqs_omega(f2, 20) / g20 - 1) < 1e-15
                  && fabs(pc_freqs_omega(f2, 21) / (g21 / 8) - 1) < 1e-15;
        pc_freqs_free(f2);
    }
    ok(stepped, "llama3 with low >= high frequency factor (an empty band) is HF's step at "
       "L / low_freq_factor");
    pc_rope_params_free(&b2);
}

static int same(pc_ref2 a, pc_ref2 b)
{
    return memcmp(&a.f32, &b.f32, 4) == 0 && memcmp(&a.f64, &b.f64, 8) == 0;
}

/* fast path (double-double times A) against the pure Ziv loop */
static void test_attention(void)
{
    pc_err e;
    pc_rope_params p = base_params(PC_ROPE_LONGROPE, 96, 10000);
    static double ext[48];
    for (int i = 0; i < 48; i++) ext[i] = 1.0 + i * 0.37;
    p.ext = ext; p.orig_max = 4096; p.factor = 32;
    pc_status st = pc_rope_prepare(&p, &e);
    ok(st == PC_OK && fabs(p.att_d - sqrt(1 + log(32.0) / log(4096.0))) < 1e-15,
       "longrope (Phi-3.5 lengths): A = sqrt(1 + ln 32 / ln 4096)");
    pc_schedule s = pc_rope_schedule(&p);
    pc_freqs *fast = pc_freqs_new(96, s), *slow = pc_freqs_new(96, s);
    pc_freqs_use_fast(slow, 0);
    int agree = fast && slow, n = 0;
    for (int64_t pos = 0; pos < 200000 && agree; pos += 997)
        for (int i = 0; i < 48 && agree; i++, n++) {
            pc_ref2 s1, c1, s2, c2;
            agree = pc_ref_sincos(fast, pos, i, &s1, &c1) == PC_OK
                    && pc_ref_sincos_mpfr(slow, pos, i, &s2, &c2) == PC_OK && same(s1, s2) && same(c1, c2);
        }
    char what[200];
    snprintf(what, sizeof what, "A sin, A cos: fast path = Ziv loop, bit for bit (%d pairs)", n);
    ok(agree, what);
    float x[96], r1[96], r2[96];
    double q1[96], q2[96];
    for (int j = 0; j < 96; j++) x[j] = (float)sin(j * 1.7) * 3.0f;
    agree = 1;
    for (int64_t pos = 0; pos < 100000 && agree; pos += 4099)
        agree = pc_ref_rope_row(fast, pos, 1, x, r1, q1) == PC_OK
                && pc_ref_rope_row(slow, pos, 1, x, r2, q2) == PC_OK
                && !memcmp(r1, r2, sizeof r1) && !memcmp(q1, q2, sizeof q1);
    ok(agree, "A-scaled RoPE rows: fast path = Ziv loop, bit for bit (position 0 included)");
    pc_ref2 s0, c0;
    ok(pc_ref_sincos(fast, 0, 3, &s0, &c0) == PC_OK && c0.f64 == p.att_d && s0.f64 == 0,
       "position 0: cos = A (rounded once), sin = 0");
    pc_freqs_free(fast);
    pc_freqs_free(slow);
    p.ext = NULL;
    pc_rope_params_free(&p);

    pc_rope_params g = base_params(PC_ROPE_YARN, 64, 10000);
    g.factor = 4; g.orig_max = 4096; g.beta_fast = 32; g.beta_slow = 1; g.truncate = 1;
    g.attention_factor = 0.75; g.att_given = 1;
    ok(pc_rope_prepare(&g, &e) == PC_OK, "yarn with a given attention_factor prepares");
    pc_freqs *f = pc_freqs_new(64, pc_rope_schedule(&g));
    ok(f && pc_ref_sincos(f, 0, 0, &s0, &c0) == PC_OK && c0.f64 == 0.75 && c0.f32 == 0.75f,
       "a given attention_factor is exact: cos at position 0 is 0.75");
    pc_freqs_free(f);
    pc_rope_params_free(&g);
}

int main(void)
{
    test_values();
    test_attention();
    printf("1..%d\n", n_test);
    mpfr_free_cache();
    return n_fail != 0;
}
