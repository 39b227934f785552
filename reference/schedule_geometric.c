/* schedule_geometric.c: the geometric schedule of the sinusoidal encoding
 * and RoPE, omega_i = base^(-2i/d) (Vaswani et al.; RoFormer). */
#include <math.h>
#include "schedule.h"

static unsigned gcd_u(unsigned a, unsigned b)
{
    while (b) { unsigned t = a % b; a = b; b = t; }
    return a;
}

static pc_status check(const pc_schedule *s, int d, pc_err *err)
{
    return pc_ref_check_params(d, s->base, err);
}

/* omega_i = 1 / rootn(base^(2i/g), d/g) with g = gcd(2i, d): three correctly
 * rounded operations at precision P, each with relative error <= 2^-P; the
 * root divides its input's relative error by d/g, so the product of the
 * three factors gives |omega~ - omega| < 4 * 2^-P * omega for P >= 4. */
static void omega(mpfr_ptr out, const pc_schedule *s, int d, int i)
{
    if (i == 0) {
        mpfr_set_ui(out, 1, MPFR_RNDN); /* exact */
        return;
    }
    unsigned num = 2u * (unsigned)i, den = (unsigned)d;
    unsigned g = gcd_u(num, den);
    num /= g; den /= g;
    mpfr_t b;
    mpfr_init2(b, 64);
    mpfr_set_d(b, s->base, MPFR_RNDN);              /* exact: a double */
    mpfr_pow_ui(out, b, num, MPFR_RNDN);            /* base^(2i/g) */
    mpfr_rootn_ui(out, out, den, MPFR_RNDN);        /* ^(g/d) */
    mpfr_ui_div(out, 1, out, MPFR_RNDN);            /* 1/x */
    mpfr_clear(b);
}

static const pc_schedule_kind geometric = { "geometric", check, omega, NULL, NULL, NULL, NULL, NULL,
                                            NULL, NULL, NULL};

pc_schedule pc_schedule_geometric(double base)
{
    pc_schedule s = { &geometric, base, NULL };
    return s;
}

double pc_schedule_model_r(const pc_schedule *s, int d)
{
    return s->kind && s->kind->model_r ? s->kind->model_r(s, d) : 0.0;
}

double pc_schedule_model_c(const pc_schedule *s, int d, int i)
{
    if (s->kind && s->kind->model_c)
        return s->kind->model_c(s, d, i);
    return 2.0 * log(s->base) + 4.0; /* docs/precision-model.md */
}
