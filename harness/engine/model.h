/* model.h: the precision model that sets the default pass/fail bound of
 * the element-wise gates (sinusoidal PE, RoPE), derived in
 * docs/precision-model.md.
 *
 * A decomposed budget, per element of pair i at position pos
 * (theta = pos * omega_i, u = 2^-24: every value is computed in binary32):
 *
 *   |got - exact| <= s A [ (R u + min(Phi_i(pos), 2)) (1 + u_s) + u_s ]
 *
 *   radial  R u: the evaluation of sin/cos (one ulp each) and, for RoPE,
 *           the rotation's two products and sum; independent of theta
 *           (R = 2 sinusoidal, 5 RoPE, 7 RoPE with an attention factor);
 *   phase   Phi_i(pos) = kappa_i u |theta| (+ u |theta| for pos >= 2^24,
 *           the position's own rounding): the frequency's error times
 *           pos plus the rounding of the angle; kappa_i is the tolerance
 *           class's constant of pair i (pc_model_kappa), 0 for a pair
 *           whose frequency is exactly 1 (base^0: every formulation
 *           computes it, and pos * 1, exactly);
 *   storage u_s: one rounding to the declared dtype (f16 2^-11, bf16
 *           2^-8, f32 0): values computed in binary32 and stored once;
 *   s       1 for sinusoidal PE, the input pair's norm for RoPE;
 *   A       the schedule's attention factor (1: none).
 * min(Phi, 2): a rotation by a wrong angle moves a point of the circle
 * by at most its diameter.
 * --tol-abs X replaces the model by |got - exact| <= X; --max-abs-err E
 * adds |got - exact| <= E to it. */
#ifndef PECHECK_MODEL_H
#define PECHECK_MODEL_H

#include <math.h>
#include <stdint.h>
#include <string.h>

/* The tolerance classes (--strict, --formulation): the default holds every
 * mainstream binary32 formulation (PyTorch exp and pow forms, HF, Meta's
 * polar form, ggml's cumulative product); the strict classes hold one
 * formulation: cr (PC_CLASS_STRICT) a correctly rounded binary32 frequency
 * and binary32 angle, hf transformers' own float32 frequency code of the
 * schedule, ggml llama.cpp's CPU rope (its cumulative product and its
 * schedule steps), each with its kappa_i computed per pair by the family
 * (pc_acc_form, families/rope/formulation_hf.c, formulation_ggml.c). */
enum pc_model_class { PC_CLASS_DEFAULT = 0, PC_CLASS_STRICT = 1, PC_CLASS_HF = 2, PC_CLASS_GGML = 3 };

#define PC_MODEL_U32 0x1p-24 /* binary32 unit roundoff: every value is computed in binary32 */
/* The largest errors, in ulps, of the binary32 powf and expf that build the
 * frequencies: CUDA's (CUDA Math API, "Single-Precision Mathematical Standard
 * Library Functions with Maximum ULP Error": powf 4, expf 2), since caches are
 * built on the GPU (vLLM creates its rotary caches under a CUDA default
 * device; diffusers' timestep embedding runs on the timesteps' device);
 * glibc's are within 1.  One ulp of a binary32 value is at most 2u of it. */
#define PC_MODEL_POWF_ULPS 4.0
#define PC_MODEL_EXPF_ULPS 2.0
/* the bound stops constraining a pair where it exceeds this share of the
 * pair's norm (the long-context note) */
#define PC_MODEL_VACUOUS 0.1

double pc_model_u(int dtype);
/* the storage rounding of DTYPE: 0 for binary32, else its unit roundoff */
double pc_model_u_storage(int dtype);
/* "default", "cr", "hf", "ggml"; pc_model_class_of: the class of such a name
 * ("strict" too, the name of cr in older results), -1 for another */
const char *pc_model_class_name(int klass);
/* 1 for a class whose kappa_i a family computes from one library's code
 * (hf, ggml: --formulation NAME), else 0 */
int pc_model_class_computed(int klass);
int pc_model_class_of(const char *name);
/* the formulations (docs/precision-model.md): the exp form, the pow form
 * (HF, Meta), ggml's cumulative product, a correctly rounded frequency */
enum pc_model_form { PC_FORM_EXP = 0, PC_FORM_POW, PC_FORM_GGML, PC_FORM_CR };
double pc_model_kappa_form(int form, double base, int d, int i);
/* kappa_i of the geometric frequencies base^(-2i/d) in CLASS (units of
 * u |theta|); pair 0 is 0 */
double pc_model_kappa(int klass, double base, int d, int i);
/* R: ROTATES (RoPE rows), ATT the attention factor */
double pc_model_radial(int rotates, double att);
/* Phi (radians) of a pair with constant KAPPA and frequency OMEGA at POS
 * (inline: the accuracy gate evaluates it for every pair of every row) */
static inline double pc_model_phase(double kappa, double omega, int64_t pos)
{
    double theta = fabs((double)pos * omega);
    /* a position from 2^24 on is rounded to binary32: |fl(pos) - pos| <= u pos */
    double k = pos >= (1LL << 24) ? kappa + 1.0 : kappa;
    return k * PC_MODEL_U32 * theta;
}
/* Phi at a real position X (an exact binary64: a coordinate as given, of
 * either sign): a whole X in [0, 2^53] is its integer (pc_model_phase);
 * otherwise |theta| = |X omega| and one u more where X is not a binary32
 * value (the formulation holds its positions in binary32: |fl(X) - X|
 * <= u |X|, docs/precision-model.md "Real positions"). */
static inline double pc_model_phase_x(double kappa, double omega, double x)
{
    if (x >= 0.0 && x <= 0x1p53 && x == floor(x)) return pc_model_phase(kappa, omega, (int64_t)x);
    double k = (double)(float)x == x ? kappa : kappa + 1.0;
    return k * PC_MODEL_U32 * fabs(x * omega);
}
/* s of a rotated pair: the norm of the input pair (X, Y), binary32 values
 * (finite), with the operations of glibc 2.35's hypot
 * (sysdeps/ieee754/dbl-64/e_hypot.c, __ieee754_hypot: Borges, "An
 * Improved Algorithm for hypot(a,b)", MyHypot3's correction, the kernel
 * without fma; error below 1 ulp, about 0.79 expected), inline: the
 * accuracy gate takes the norm of every pair of every row.  For binary32
 * arguments neither of its scalings applies (|x| <= 2^128 < 2^511, a
 * nonzero |y| >= 2^-149 > 2^-459) and a zero y ends in ax + ay, as here. */
static inline double pc_model_pair_norm(float xf, float yf)
{
    double x = fabs((double)xf), y = fabs((double)yf);
    double ax = x < y ? y : x, ay = x < y ? x : y;
    if (ay <= ax * 0x1p-54) return ax + ay;
    double h = sqrt(ax * ax + ay * ay), t1, t2;
    if (h <= 2.0 * ay) {
        double delta = h - ay;
        t1 = ax * (2.0 * delta - ax);
        t2 = (delta - 2.0 * (ax - ay)) * delta;
    } else {
        double delta = h - ax;
        t1 = 2.0 * delta * (ax - 2.0 * ay);
        t2 = (4.0 * delta - ay) * ay + delta * delta;
    }
    return h - (t1 + t2) / (2.0 * h);
}
/* the element bound: radial R, phase PHI, storage U_S, factor ATT, scale
 * S; min(phi, 2) as fmin (2 for a NaN phi) */
static inline double pc_model_element(double R, double phi, double u_s, double att, double s)
{
    double clamped = phi < 2.0 ? phi : 2.0;
    return s * att * ((R * PC_MODEL_U32 + clamped) * (1.0 + u_s) + u_s);
}
/* How far a correct pair's norm may be from ATT (its exact norm, times a
 * unit input's), whatever its angle: sqrt(2) pc_model_element(R, 0, U_S,
 * ATT, 1) + 2^-51 ATT.  Of the element bound, the phase term PHI is the
 * angle's error, which moves the pair along its circle and keeps its
 * norm; the rest, R u (1 + u_s) + u_s of the pair's norm on each of its
 * two elements, is the values' own rounding and storage, so sqrt(2) of it
 * on the pair's norm (| |a + e| - |a| | <= |e|); 2^-51 for binary64's
 * hypot.  A pair of norm 0 exceeds it at any angle, where the element
 * bound, capped at 2 (twice the pair's norm), passes it. */
static inline double pc_model_norm_bound(double R, double u_s, double att)
{
    return 1.4142135623730951 * att * (R * PC_MODEL_U32 * (1.0 + u_s) + u_s) + 0x1p-51 * att;
}
/* The element bound of a kernel computing in the half dtype (its cos/sin
 * cache, the two products and their sum each rounded to the dtype:
 * docs/schedules.md, "A kernel computing in half precision"):
 *   s A (R u + min(phi, 2) + (1 + R u) ((1 + u_s)^3 - 1)) + u_min (sqrt(2) s + 3)
 * U_MIN: pc_model_u_min, the absolute error of a rounding below the
 * dtype's normal range. */
double pc_model_element_half(double R, double phi, double u_s, double u_min, double att, double s);
/* half the spacing of DTYPE's subnormals: f16 2^-25, bf16 2^-134, f32 2^-150 */
double pc_model_u_min(int dtype);
/* The first position (>= 0) from which PHI + R u of a pair (KAPPA, OMEGA)
 * exceeds PC_MODEL_VACUOUS; INT64_MAX: never below 2^53. */
int64_t pc_model_vacuous_from(double kappa, double omega, double R);
/* one-line description of the budget in force, for text output */
void pc_model_describe_budget(char *buf, unsigned len, double kappa_max, int klass, int dtype,
                              double tol_abs, int scaled, int sched);

/* The working-precision model the properties use (docs/precision-model.md,
 * "Properties"): |got - exact| <= C u (1 + |theta|) s, C = 2 ln(base) + 4,
 * u the declared dtype's unit roundoff. */
double pc_model_C(double base);
/* the bound for one element (TOL_ABS >= 0 overrides the model) */
double pc_model_bound(double C, double u, double theta, double scale, double tol_abs);
/* one-line description of that bound */
void pc_model_describe(char *buf, unsigned len, double C, double u, int dtype, double tol_abs, int scaled);

/* ulp(x) = 2^(max(e, -126) - 23) for x in [2^e, 2^(e+1)): the spacing of
 * binary32 numbers at the reference (Goldberg's definition, as in
 * Zimmermann's accuracy tables); 2^-149 at zero.  Read from the bits: the
 * biased exponent field is e + 127 (0 for zero and subnormals, whose e is
 * below -126).  pc_ulp32_exp gives max(e, -126) - 23, in [-149, 104]. */
static inline int pc_ulp32_exp(float ref)
{
    uint32_t u;
    memcpy(&u, &ref, sizeof u);
    int be = (int)((u >> 23) & 0xff);
    return (be == 0 ? -126 : be - 127) - 23;
}

/* 2^K for K in [-1022, 1023], from its bits (exact). */
static inline double pc_pow2i(int k)
{
    uint64_t bits = (uint64_t)(k + 1023) << 52;
    double q;
    memcpy(&q, &bits, sizeof q);
    return q;
}

/* ulp(REF) as above, also for Inf and NaN (frexpf's exponent). */
double pc_ulp32(float ref);

#endif
