/* schedule_timescale.c: the sinusoidal schedules as the libraries write
 * them (docs/sinusoidal.md), omega_i = base^(-i / (d/2 - S)):
 *   S = 0: the paper's base^(-2i/d) (Vaswani et al.; Marian, ADM's
 *          timestep_embedding, diffusers with downscale_freq_shift=0);
 *   S = 1: tensor2tensor's get_timing_signal_1d, fairseq's
 *          SinusoidalPositionalEmbedding, Whisper's sinusoids, diffusers'
 *          get_timestep_embedding default (downscale_freq_shift=1): the
 *          largest timescale reached at the last pair. */
#include <math.h>
#include "sin_spec.h"

static unsigned gcd_u(unsigned a, unsigned b)
{
    while (b) { unsigned t = a % b; a = b; b = t; }
    return a;
}

/* The denominator d/2 - S (tensor2tensor's max(d/2 - 1, 1): for d = 2
 * the only pair is i = 0, whose frequency is 1 whatever it is). */
static int denominator(int d, int shift)
{
    int den = d / 2 - shift;
    return den < 1 ? 1 : den;
}

static pc_status check(const pc_schedule *s, int d, pc_err *err)
{
    return pc_ref_check_params(d, s->base, err);
}

/* omega_i = 1 / rootn(base^(i/g), den/g) with g = gcd(i, den): three
 * correctly rounded operations at precision P, as the geometric schedule's
 * (reference/schedule_geometric.c): |omega~ - omega| < 4 * 2^-P * omega,
 * and omega_i in (0, 1] since i <= den. */
static void omega(mpfr_ptr out, const pc_schedule *s, int d, int i)
{
    const pc_sin_sched *p = s->params;
    if (i == 0) {
        mpfr_set_ui(out, 1, MPFR_RNDN); /* exact */
        return;
    }
    unsigned num = (unsigned)i, den = (unsigned)denominator(d, p->shift);
    unsigned g = gcd_u(num, den);
    num /= g; den /= g;
    mpfr_t b;
    mpfr_init2(b, 64);
    mpfr_set_d(b, s->base, MPFR_RNDN);              /* exact: a double */
    mpfr_pow_ui(out, b, num, MPFR_RNDN);            /* base^(i/g) */
    mpfr_rootn_ui(out, out, den, MPFR_RNDN);        /* ^(g/den) */
    mpfr_ui_div(out, 1, out, MPFR_RNDN);            /* 1/x */
    mpfr_clear(b);
}

double pc_sin_exponent(const pc_sin_sched *p, double base, int d, int i)
{
    return (double)i / (double)denominator(d, p->shift) * log(base);
}

/* kappa_i (docs/sinusoidal.md "Bounds"), X_i = i ln(base) / (d/2 - S):
 *   exp form, the constant rounded once (fairseq, Whisper, the PyTorch
 *     tutorial): fl(ln(base)/den), fl(i c), expf, fl(pos w)       2 X_i + 3
 *   exp form, three roundings before expf (tensor2tensor's fl(ln) /
 *     fl(den), diffusers' and ADM's fl(-ln(base)) * i / den)       3 X_i + 3
 *   pow form (powf, 1/y)                                             X_i + 4
 *   ggml's cumulative product                                       3i + X_i
 * plus 1 for second-order terms, as the default class
 * (docs/precision-model.md). */
static double model_c(const pc_schedule *s, int d, int i)
{
    const pc_sin_sched *p = s->params;
    double x = pc_sin_exponent(p, s->base, d, i);
    return fmax(fmax(3.0 * x + 3.0, x + 4.0), 3.0 * (double)i + x) + 1.0;
}

static const pc_schedule_kind timescale = {
    .name = "timescale", .check = check, .omega = omega, .model_c = model_c
};

pc_schedule pc_sin_schedule(const pc_sin_sched *p, double base)
{
    pc_schedule s = { &timescale, base, p };
    return s;
}

int pc_sin_schedule_shift(const pc_schedule *s)
{
    return s && s->kind == &timescale ? ((const pc_sin_sched *)s->params)->shift : 0;
}
