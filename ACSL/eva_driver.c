/* eva_driver.c: Eva's entry point (scripts/prove.sh, make prove).  Not part
 * of the build: Frama-C only.
 *
 * Each built-in below is called through its pc_impl hook (the shipped code,
 * exactly as the harness calls it) with EVERY argument drawn from the whole
 * supported domain at once:
 *   positions  [0, 2^53]            (reference/reference.h PC_POS_MAX)
 *   d          even, [2, 8192]      (PC_D_MAX)
 *   base       (1, FLT_MAX] / (1, DBL_MAX]   (see pc_eva_base below)
 *   layout     interleaved or half
 *   n          1 .. PC_EVA_N rows
 * Eva computes sound intervals for every float operation (IEEE binary32 and
 * binary64, libm calls through its sinf/cosf/expf/powf/log/pow/sin/cos
 * builtins); with -warn-special-float non-finite (the default) any
 * operation that may give Inf or NaN is an alarm, and so is any access out
 * of bounds and any signed overflow.  The assertions in check() then state
 * the output range.  prove.sh fails on any alarm or unproved assertion.
 *
 * Files Eva analyses with this driver (prove.sh reads the next line):
 * covers: families/sinusoidal/sin_torch_exp.c families/sinusoidal/sin_torch_pow.c families/sinusoidal/sin_double_angle.c families/sinusoidal/sin_sin_only.c families/sinusoidal/sin_cos_shifted.c families/sinusoidal/sin_plus_1e4.c families/rope/rope_polar.c families/rope/rope_half.c families/learned/learned_table.c
 */
#include <float.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "__fc_builtin.h"
#include "harness/sandbox/impl.h"

extern const pc_impl pc_impl_torch_exp, pc_impl_torch_pow, pc_impl_double_angle,
    pc_impl_sin_only, pc_impl_cos_shifted, pc_impl_plus_1e4,
    pc_impl_rope_polar, pc_impl_rope_half,
    pc_impl_learned_table, pc_impl_learned_clamp;

/* Rows per call.  The rows are independent (nothing carries from one row to
 * the next in these built-ins), so 2 rows show the row indexing; the index
 * arithmetic for any n is WP's part (pc_size_ok in the contracts). */
#define PC_EVA_N 2
#define PC_EVA_D 8192                      /* PC_D_MAX */
#define PC_EVA_POS_MAX (INT64_C(1) << 53)  /* PC_POS_MAX */
/* RoPE inputs: |x| <= 2^20, far beyond activations after normalisation;
 * the outputs are then bounded by 2 * 2^20 (two products, each <= |x|). */
#define PC_EVA_X 0x1p20f

static int64_t pos[PC_EVA_N];
static float x[PC_EVA_N * PC_EVA_D];
static float out[PC_EVA_N * PC_EVA_D];
static float theta[PC_EVA_N * PC_EVA_D / 2];

static size_t pc_eva_n(void) { return Frama_C_size_t_interval(1, PC_EVA_N); }
static int pc_eva_d(void) { return 2 * Frama_C_interval(1, PC_EVA_D / 2); }
static int pc_eva_layout(void) { return Frama_C_interval(0, 1); }

/* base: every finite base > 1 the CLI accepts (reference.h), i.e. up to
 * DBL_MAX, for the formulations that hold it in binary64 (torch-exp takes
 * -log(base)/d in binary64, double-angle, plus-1e-4); the binary32 forms
 * (torch-pow, RoPE) hold the base as a float, like torch, so their domain
 * is (1, FLT_MAX]: a base above FLT_MAX rounds to +Inf in (float)base. */
static double pc_eva_base(double max)
{
    return Frama_C_double_interval(0x1.0000000000001p0, max);
}

static void fill_positions(size_t n)
{
    for (size_t r = 0; r < n; r++)
        pos[r] = Frama_C_long_long_interval(0, PC_EVA_POS_MAX);
}

/* The buffers start at 0 before each call, so what check() sees was
 * written by that call (or is the 0 left in place). */
static void clear(void)
{
    /* memset, not a loop: Eva's memset builtin updates every cell exactly,
     * a 16384-step loop would be widened into a weak update */
    memset(out, 0, sizeof out);
    memset(theta, 0, sizeof theta);
}

/* Every value of V[0 .. COUNT) is finite and in [LO, HI]. */
static void check(const float *v, size_t count, float lo, float hi)
{
    for (size_t k = 0; k < count; k++) {
        /*@ assert finite: \is_finite(v[k]); */
        /*@ assert range: lo <= v[k] <= hi; */
    }
}

static void sinusoidal(const pc_impl *im, double base_max, float lo, float hi)
{
    clear();
    size_t n = pc_eva_n();
    int d = pc_eva_d();
    fill_positions(n);
    int rc = im->sinusoidal(im->ctx, pos, n, d, pc_eva_base(base_max), pc_eva_layout(), out);
    if (rc == 0)
        check(out, sizeof out / sizeof out[0], lo, hi);
    if (im->angles) {
        clear();
        n = pc_eva_n();
        d = pc_eva_d();
        fill_positions(n);
        /* the angles are pos * omega with omega in [0, 1]: [0, 2^53] */
        if (im->angles(im->ctx, pos, n, d, pc_eva_base(base_max), theta) == 0)
            check(theta, sizeof theta / sizeof theta[0], 0.0f, 0x1p53f);
    }
}

static void rope(const pc_impl *im, double base_max)
{
    clear();
    size_t n = pc_eva_n();
    int d = pc_eva_d();
    fill_positions(n);
    for (size_t k = 0; k < sizeof x / sizeof x[0]; k++)
        x[k] = Frama_C_float_interval(-PC_EVA_X, PC_EVA_X);
    if (im->rope(im->ctx, pos, n, d, pc_eva_base(base_max), pc_eva_layout(), x, out) == 0)
        check(out, sizeof out / sizeof out[0], -2 * PC_EVA_X, 2 * PC_EVA_X);
    if (im->angles) {
        clear();
        n = pc_eva_n();
        d = pc_eva_d();
        fill_positions(n);
        if (im->angles(im->ctx, pos, n, d, pc_eva_base(base_max), theta) == 0)
            check(theta, sizeof theta / sizeof theta[0], 0.0f, 0x1p53f);
    }
}

/* Learned table: any int64 position, in range or not. */
static void learned(const pc_impl *im)
{
    clear();
    size_t n = pc_eva_n();
    int d = Frama_C_interval(1, PC_EVA_D);
    for (size_t r = 0; r < n; r++)
        pos[r] = Frama_C_long_long_interval(INT64_MIN, INT64_MAX);
    int64_t len = im->learned_max_len(im->ctx);
    /*@ assert max_len: len == 512; */
    if (im->learned(im->ctx, pos, n, d, out) == 0)
        check(out, sizeof out / sizeof out[0], -1.0f, 1.0f);
}

void pc_eva_main(void)
{
    sinusoidal(&pc_impl_torch_exp, DBL_MAX, -1.0f, 1.0f);
    sinusoidal(&pc_impl_torch_pow, FLT_MAX, -1.0f, 1.0f);
    sinusoidal(&pc_impl_double_angle, DBL_MAX, -1.0f, 1.0f);
    sinusoidal(&pc_impl_sin_only, DBL_MAX, -1.0f, 1.0f);
    sinusoidal(&pc_impl_cos_shifted, DBL_MAX, -1.0f, 1.0f);
    /* plus-1e-4 adds 1e-4 on purpose: (float)(1 + 1e-4) < 1.0002 */
    sinusoidal(&pc_impl_plus_1e4, DBL_MAX, -1.0f, 1.0002f);
    rope(&pc_impl_rope_polar, FLT_MAX);
    rope(&pc_impl_rope_half, FLT_MAX);
    learned(&pc_impl_learned_table);
    learned(&pc_impl_learned_clamp);
}
