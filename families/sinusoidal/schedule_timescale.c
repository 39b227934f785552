/* schedule_timescale.c: the sinusoidal schedules as the libraries write
 * them (docs/sinusoidal.md), omega_i = base^(-i / (d/2 - S)):
 *   S = 0: the paper's base^(-2i/d) (Vaswani et al.; Marian, ADM's
 *          timestep_embedding, diffusers with downscale_freq_shift=0);
 *   S = 1: tensor2tensor's get_timing_signal_1d, fairseq's
 *          SinusoidalPositionalEmbedding, Whisper's sinusoids, diffusers'
 *          get_timestep_embedding default (downscale_freq_shift=1): the
 *          largest timescale reached at the last pair;
 *   M != 1: tensor2tensor's min_timescale, omega_i = M (base/M)^(-i/den)
 *          (its code multiplies the exponential by min_timescale). */
#include <math.h>
#include "sin_spec.h"
#include "harness/engine/model.h"

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
    double m = pc_sin_min_timescale(s->params);
    if (!(m < s->base))
        return err ? pc_seterr(err, PC_EINPUT, "--min-timescale %.9g: must be below the base "
                               "(tensor2tensor's max_timescale) %.9g", m, s->base) : PC_EINPUT;
    return pc_ref_check_params(d, s->base, err);
}

/* base^(-num/den) into OUT at OUT's precision: three correctly rounded
 * operations, |out - x| < 4 * 2^-P * x (the geometric schedule's,
 * reference/schedule_geometric.c); X exact, num <= den. */
static void root_power(mpfr_ptr out, mpfr_srcptr x, unsigned num, unsigned den)
{
    mpfr_pow_ui(out, x, num, MPFR_RNDN);            /* x^num */
    mpfr_rootn_ui(out, out, den, MPFR_RNDN);        /* ^(1/den) */
    mpfr_ui_div(out, 1, out, MPFR_RNDN);            /* 1/y */
}

/* omega_i = M (base/M)^(-i/den), reduced by g = gcd(i, den).  M = 1: the
 * base is exact and root_power's bound is omega's: |omega~ - omega| <
 * 4 * 2^-P * omega, and omega_i in (0, 1] since i <= den.  M != 1: at
 * Q = P + 16 bits, r~ = RN(base/M) (relative 2^-Q), r~^num (num 2^-Q from
 * r~, 2^-Q rounding), its den-th root divides that by den >= num (+2^-Q),
 * 1/y and * M one 2^-Q each: 5 * 2^-Q; rounded to P: < (1 + 5 * 2^-16) *
 * 2^-P < 4 * 2^-P.  omega_0 = M exactly; omega_i can exceed 1 (up to M):
 * the fast and vector paths decline such a pair and the Ziv loop, whose
 * analysis needs only the relative error, certifies it
 * (docs/reference.md "Frequencies"). */
static void omega(mpfr_ptr out, const pc_schedule *s, int d, int i)
{
    const pc_sin_sched *p = s->params;
    double m = pc_sin_min_timescale(p);
    if (i == 0) {
        mpfr_set_d(out, m, MPFR_RNDN); /* exact: a double, P >= 64 */
        return;
    }
    unsigned num = (unsigned)i, den = (unsigned)denominator(d, p->shift);
    unsigned g = gcd_u(num, den);
    num /= g; den /= g;
    mpfr_t b;
    mpfr_init2(b, m == 1.0 ? 64 : mpfr_get_prec(out) + 16);
    if (m == 1.0) {
        mpfr_set_d(b, s->base, MPFR_RNDN);          /* exact: a double */
        root_power(out, b, num, den);
    } else {
        mpfr_t w;
        mpfr_init2(w, mpfr_get_prec(b));
        mpfr_set_d(b, s->base, MPFR_RNDN);          /* exact */
        mpfr_div_d(b, b, m, MPFR_RNDN);             /* base/M */
        root_power(w, b, num, den);
        mpfr_mul_d(w, w, m, MPFR_RNDN);
        mpfr_set(out, w, MPFR_RNDN);
        mpfr_clear(w);
    }
    mpfr_clear(b);
}

double pc_sin_exponent(const pc_sin_sched *p, double base, int d, int i)
{
    return (double)i / (double)denominator(d, p->shift) * log(base / pc_sin_min_timescale(p));
}

/* kappa_i (docs/sinusoidal.md "Bounds"), X_i = i ln(base/M) / (d/2 - S):
 *   exp form, the constant rounded once (fairseq, Whisper, the PyTorch
 *     tutorial): fl(ln(base)/den), fl(i c), expf, fl(pos w)       2 X_i + 2E + 1
 *   exp form, three roundings before expf (tensor2tensor's fl(ln) /
 *     fl(den), diffusers' and ADM's fl(-ln(base)) * i / den)       3 X_i + 2E + 1
 *   pow form (powf, 1/y)                                             X_i + 2P + 2
 * with E = PC_MODEL_EXPF_ULPS, P = PC_MODEL_POWF_ULPS (CUDA's 2 and 4:
 * diffusers builds the embedding on the timesteps' device, model.h)
 * plus 1 for second-order terms, as the default class
 * (docs/precision-model.md); plus 2 where M != 1: tensor2tensor's
 * float32(M) and its product with the exponential, one rounding each.
 * ggml's cumulative product (the default class's 3i + X_i) is no
 * sinusoidal code's: ggml's own timestep_embedding computes expf(-logf(
 * max_period) j / half), the exp form of three roundings. */
static double model_c(const pc_schedule *s, int d, int i)
{
    const pc_sin_sched *p = s->params;
    double x = pc_sin_exponent(p, s->base, d, i);
    double c = fmax(3.0 * x + 2.0 * PC_MODEL_EXPF_ULPS + 1.0,
                    x + 2.0 * PC_MODEL_POWF_ULPS + 2.0) + 1.0;
    return pc_sin_min_timescale(p) == 1.0 ? c : c + 2.0;
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

double pc_sin_schedule_min(const pc_schedule *s)
{
    return s && s->kind == &timescale ? pc_sin_min_timescale(s->params) : 1.0;
}
