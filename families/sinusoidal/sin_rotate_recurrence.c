/* rotate-recurrence (known bad): PE(pos+1) = R(omega) PE(pos), applied
 * repeatedly in binary32 from PE(0) = (0, 1).  Each step adds a rounding
 * error, so the error grows with the position (a random walk in the angle
 * and a drift of the pair's norm).  torch-exp's omega (div_term), but not
 * its table with a flaw: the flaw is the algorithm, advance()'s rotation
 * step, so this built-in keeps its own loop (sin_kernel.h holds the tables).
 * The state of the last row is kept per thread so increasing positions cost
 * one step each; a smaller position restarts from the period's anchor.
 *
 * Bounded work: a position at or past PC_RR_PERIOD = 2^16 starts from the
 * row computed directly at the largest multiple of 2^16 not above it
 * (binary64 sin/cos of anchor*omega_i rounded to binary32), as long-running
 * recurrences re-anchor in practice.  One row then costs at most 2^16 steps
 * (about 4M multiply-adds at d = 128, milliseconds) instead of up to 2^53
 * (`--positions 2^53:2^53` never ended); below 2^16 the rows are the pure
 * recurrence from PE(0), bit for bit as without the cap. */
#include "impl/common.h"

#define PC_RR_PERIOD ((int64_t)1 << 16)

static _Thread_local struct {
    int64_t pos;
    int d;
    double base;
    float s[4096], c[4096];
    float cw[4096], sw[4096]; /* cosf, sinf of the pair's binary32 omega */
} st = { -1, 0, 0.0, {0}, {0}, {0}, {0} };

/*@ requires dim: pc_dim_ok(d);
    requires position: 0 <= pos <= PC_ACSL_POS_MAX;
    assigns st, errno;
    ensures state: st.pos == pos && st.d == d;
*/
static void advance(int64_t pos, int d, double base)
{
    int h = d / 2;
    int64_t anchor = pos - pos % PC_RR_PERIOD;
    if (st.d != d || st.base != base || st.pos < anchor || st.pos > pos) {
        /*@ loop invariant pairs: 0 <= i <= h;
            loop assigns i, st.s[0 .. h - 1], st.c[0 .. h - 1], st.cw[0 .. h - 1],
                         st.sw[0 .. h - 1], errno;
            loop variant h - i; */
        for (int i = 0; i < h; i++) {
            float w = pc_torch_div_term(i, d, base);
            double a = (double)anchor * (double)w;
            st.cw[i] = cosf(w);
            st.sw[i] = sinf(w);
            st.s[i] = anchor ? (float)sin(a) : 0.0f;
            st.c[i] = anchor ? (float)cos(a) : 1.0f;
        }
        st.pos = anchor; st.d = d; st.base = base;
    }
    /*@ loop invariant steps: 0 <= st.pos <= pos;
        loop invariant same_d: st.d == d;
        loop assigns st.pos, st.s[0 .. h - 1], st.c[0 .. h - 1];
        loop variant pos - st.pos; */
    for (; st.pos < pos; st.pos++)
        /*@ loop invariant pairs: 0 <= i <= h;
            loop assigns i, st.s[0 .. h - 1], st.c[0 .. h - 1];
            loop variant h - i; */
        for (int i = 0; i < h; i++) {
            float s = st.s[i] * st.cw[i] + st.c[i] * st.sw[i];
            float c = st.c[i] * st.cw[i] - st.s[i] * st.sw[i];
            st.s[i] = s; st.c[i] = c;
        }
}

/*@ requires valid: pc_encoding_args(pos, n, d, out);
    assigns out[0 .. n * d - 1], st, errno;
    behavior supported:
      assumes layout_ok: pc_layout_valid(layout);
      ensures ok: \result == 0;
    behavior unsupported:
      assumes layout_bad: !pc_layout_valid(layout);
      assigns \nothing;
      ensures rejected: \result == 1;
    complete behaviors;
    disjoint behaviors;
*/
static int run(void *ctx, const int64_t *pos, size_t n, int d, double base,
               int layout, float *out)
{
    (void)ctx;
    if (!pc_layout_ok(layout)) return 1;
    /*@ loop invariant rows: 0 <= r <= n;
        loop assigns r, out[0 .. n * d - 1], st, errno;
        loop variant n - r; */
    for (size_t r = 0; r < n; r++) {
        advance(pos[r], d, base);
        //@ assert row_fits: r * d + d <= n * d <= SIZE_MAX;
        /*@ loop invariant pairs: 0 <= i <= d / 2;
            loop assigns i, out[r * d .. r * d + d - 1];
            loop variant d / 2 - i; */
        for (int i = 0; i < d / 2; i++) {
            out[r * (size_t)d + pc_col(layout, d, i, 0)] = st.s[i];
            out[r * (size_t)d + pc_col(layout, d, i, 1)] = st.c[i];
        }
    }
    return 0;
}

const pc_impl pc_impl_rotate_recurrence = {
    .name = "rotate-recurrence",
    .description = "KNOWN BAD: PE(pos+1) = R(omega) PE(pos) iterated in binary32 from PE(0)",
    .family_hint = "sinusoidal",
    .flaw = "each row is the previous one rotated in binary32: rounding errors accumulate with the position",
    .sinusoidal = run,
};
