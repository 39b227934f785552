/* model.h: the precision model that sets the default pass/fail bound.
 *
 * Per element:  |got - exact| <= C * u * (1 + |theta|) * s
 *   theta = pos * omega_i (the exact angle of the element's pair),
 *   u     = unit roundoff of the declared working precision
 *           (f32 2^-24, f16 2^-11, bf16 2^-8),
 *   C     = 2 ln(base) + 4, derived in docs/precision-model.md from the
 *           error of the usual binary32 formulation
 *           (exp(2i * -ln(base)/d): |d omega/omega| <= (2 ln(base) + 2) u,
 *           the product pos*omega one more u, sin/cos one ulp <= u, and one
 *           u of slack for second-order terms and positions >= 2^24),
 *   s     = 1 for sinusoidal PE, the pair's Euclidean norm for RoPE.
 * --tol-abs X replaces it with |got - exact| <= X. */
#ifndef PECHECK_MODEL_H
#define PECHECK_MODEL_H

double pc_model_u(int dtype);
double pc_model_C(double base);
/* the bound for one element (TOL_ABS >= 0 overrides the model) */
double pc_model_bound(double C, double u, double theta, double scale, double tol_abs);
/* one-line description of the bound in force, e.g. for text output */
void pc_model_describe(char *buf, unsigned len, double C, double u, int dtype, double tol_abs, int scaled);

#endif
