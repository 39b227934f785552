/* sin_kernel.h: the two sinusoidal tables the built-ins compute, and the
 * flaws of the known-bad built-ins written into them.
 *
 *   pc_sin_module_f32  the source articles' PositionalEncoding module, all
 *                      binary32: pe[:, 0::2] = sin(position * omega),
 *                      pe[:, 1::2] = cos(position * omega), omega formed as
 *                      torch-exp (div_term) or torch-pow does (pc_omega);
 *   pc_sin_table_f64   the careful table builder's: omega and the angle in
 *                      binary64, sin and cos in binary64, each value
 *                      rounded once to binary32 (double-angle).
 *
 * A known-bad built-in is one of them with one flaw (pc_sin_flaw): the
 * built-in's file names the table and the flaw, and here the one line that
 * makes that flaw is marked "flaw:"; with PC_SIN_NO_FLAW every such line is
 * passed by and the table is the formulation as written.  (rotate-recurrence
 * is no table with a flaw: it computes its rows by another algorithm,
 * sin_rotate_recurrence.c.)
 *
 * Static inline: each built-in's hook is this code with its table and flaw
 * as constants, which the compiler folds, so that no flaw is tested in the
 * loop the accuracy gate runs on every row. */
#ifndef PECHECK_SIN_KERNEL_H
#define PECHECK_SIN_KERNEL_H

#include "impl/common.h"

typedef enum {
    PC_SIN_NO_FLAW,          /* the formulation as written */
    PC_SIN_BF16_POSITIONS,   /* module: the position tensor held in bfloat16 (bf16-positions) */
    PC_SIN_SIN_ONLY,         /* module: sin in the cos column (sin-only) */
    PC_SIN_COS_SHIFTED,      /* module: the cos column at pair i+1's frequency (cos-shifted) */
    PC_SIN_PLUS_1E4          /* f64 table: 1e-4 added to every value (plus-1e-4) */
} pc_sin_flaw;

/* The cos column of pair I of the module at angle A = P * omega_i. */
/*@ requires dim: pc_dim_ok(d);
    requires pair: 0 <= i < d / 2;
    assigns \result, errno \from a, p, i, d, base, form, flaw;
*/
static inline float pc_sin_cos_column(float a, float p, int i, int d, double base,
                                      pc_omega_form form, pc_sin_flaw flaw)
{
    if (flaw == PC_SIN_SIN_ONLY) return sinf(a);                                    /* flaw: sin-only */
    if (flaw == PC_SIN_COS_SHIFTED) return cosf(p * pc_omega(form, i + 1, d, base)); /* flaw: cos-shifted */
    return cosf(a);
}

/* The module's table of N rows at POS into OUT (N x D, LAYOUT), with FLAW
 * (PC_SIN_NO_FLAW, PC_SIN_BF16_POSITIONS, PC_SIN_SIN_ONLY or
 * PC_SIN_COS_SHIFTED); always 0. */
/*@ requires valid: pc_encoding_args(pos, n, d, out);
    requires layout_ok: pc_layout_valid(layout);
    assigns out[0 .. n * d - 1], errno;
    ensures ok: \result == 0;
*/
static inline int pc_sin_module_f32(const int64_t *pos, size_t n, int d, double base, int layout,
                                    float *out, pc_omega_form form, pc_sin_flaw flaw)
{
    /*@ loop invariant rows: 0 <= r <= n;
        loop assigns r, out[0 .. n * d - 1], errno;
        loop variant n - r; */
    for (size_t r = 0; r < n; r++) {
        float p = pc_position_f32(pos[r], flaw == PC_SIN_BF16_POSITIONS); /* flaw: bf16-positions */
        //@ assert row_fits: r * d + d <= n * d <= SIZE_MAX;
        /*@ loop invariant pairs: 0 <= i <= d / 2;
            loop assigns i, out[r * d .. r * d + d - 1], errno;
            loop variant d / 2 - i; */
        for (int i = 0; i < d / 2; i++) {
            float a = p * pc_omega(form, i, d, base);
            out[r * (size_t)d + pc_col(layout, d, i, 0)] = sinf(a);
            out[r * (size_t)d + pc_col(layout, d, i, 1)] =
                pc_sin_cos_column(a, p, i, d, base, form, flaw);
        }
    }
    return 0;
}

/* The binary64 table of N rows at POS into OUT (N x D, LAYOUT), with FLAW
 * (PC_SIN_NO_FLAW or PC_SIN_PLUS_1E4); always 0. */
/*@ requires valid: pc_encoding_args(pos, n, d, out);
    requires layout_ok: pc_layout_valid(layout);
    assigns out[0 .. n * d - 1], errno;
    ensures ok: \result == 0;
*/
static inline int pc_sin_table_f64(const int64_t *pos, size_t n, int d, double base, int layout,
                                   float *out, pc_sin_flaw flaw)
{
    /*@ loop invariant pairs: 0 <= i <= d / 2;
        loop assigns i, out[0 .. n * d - 1], errno;
        loop variant d / 2 - i; */
    for (int i = 0; i < d / 2; i++) {
        double w = pow(base, -2.0 * i / d);
        /*@ loop invariant rows: 0 <= r <= n;
            loop assigns r, out[0 .. n * d - 1], errno;
            loop variant n - r; */
        for (size_t r = 0; r < n; r++) {
            //@ assert row_fits: r * d + d <= n * d <= SIZE_MAX;
            double a = (double)pos[r] * w;
            double s = sin(a), c = cos(a);
            if (flaw == PC_SIN_PLUS_1E4) { s += 1e-4; c += 1e-4; } /* flaw: plus-1e-4 */
            out[r * (size_t)d + pc_col(layout, d, i, 0)] = (float)s;
            out[r * (size_t)d + pc_col(layout, d, i, 1)] = (float)c;
        }
    }
    return 0;
}

#endif
