/* v2args_test.c: ABI version 2's argument structs on pecheck's side and
 * the half-precision conversions they carry (TAP output).
 *
 *  - pc_rope_v2_call refuses, before calling anything, a struct whose size
 *    is not this pecheck's (smaller or larger), whose strides make views
 *    overlap, are negative or overflow, or whose dims, dtypes or attention
 *    factor are out of range; a valid one (tokens-major or heads-major) is
 *    called once, with the struct's members;
 *  - the worker's FINISH refuses a struct whose view does not fit OUT's
 *    room, and turns X NULL into OUT (in place);
 *  - the view's span saturates instead of overflowing;
 *  - binary16 and bfloat16: every pattern round-trips, ties go to even,
 *    overflow and subnormals round as IEEE 754 says, and (where the
 *    compiler has _Float16) pc_f16_of agrees with its conversion. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "harness/base/half.h"
#include "harness/cli/opts.h"
#include "harness/base/rng.h"
#include "harness/sandbox/v2args.h"

static int n_test, n_fail;

static void ok(int cond, const char *what)
{
    n_test++;
    if (!cond) n_fail++;
    printf("%s %d - %s\n", cond ? "ok" : "not ok", n_test, what);
}

/* ---- a fake implementation that counts its calls ------------------------ */

static int calls;
static size_t seen_size;
static int seen_rotary;

static int fake_rope_v2(void *ctx, size_t size, const int64_t *pos, size_t n, int heads,
                        int head_dim, int rotary_dim, int layout, int64_t st_tok,
                        int64_t st_head, int dtype_in, int dtype_out, const unsigned char *x,
                        unsigned char *out, const double *freqs, double att,
                        const char *sched, const char *json, const int64_t *pos_axes,
                        int n_axes, const int *pair_axis)
{
    (void)ctx; (void)pos; (void)n; (void)heads; (void)head_dim; (void)layout; (void)st_tok;
    (void)st_head; (void)dtype_in; (void)dtype_out; (void)x; (void)out; (void)freqs; (void)att;
    (void)sched; (void)json; (void)pos_axes; (void)n_axes; (void)pair_axis;
    calls++;
    seen_size = size;
    seen_rotary = rotary_dim;
    return 0;
}

static int64_t pos[4] = { 0, 1, 2, 3 };
static double freqs[4] = { 1, 0.1, 0.01, 0.001 };
static uint16_t buf[4 * 3 * 20];

/* 4 tokens x 3 heads x head dim 10 (rotary 8), strides (3*12 + 2, 12). */
static const int axes0[4] = { 0, 0, 0, 0 };

static pecheck_rope_args valid(void)
{
    pecheck_rope_args a = { sizeof a, pos, 4, 3, 10, 8, PECHECK_LAYOUT_HALF, 38, 12,
                            PECHECK_DTYPE_F16, PECHECK_DTYPE_F16, buf, buf, freqs, 1.0,
                            "default", "{\"rope_type\": \"default\", \"rope_theta\": 10000}",
                            pos, 1, axes0 };
    return a;
}

/* Call A through a fake plugin: 1 when it was refused without a call. */
static int refused(const pecheck_rope_args *a, const char *reason)
{
    pc_impl impl;
    memset(&impl, 0, sizeof impl);
    impl.name = "fake";
    impl.rope_v2 = fake_rope_v2;
    pc_fault f;
    int before = calls;
    int rc = pc_rope_v2_call(&impl, &f, a);
    return rc == PC_V2_REFUSED && calls == before && !f.faulted && strstr(f.cause, reason);
}

static void test_refusals(void)
{
    pecheck_rope_args a = valid();
    ok(!refused(&a, "") && calls == 1 && seen_size == sizeof a && seen_rotary == 8,
       "a valid struct is called once with its members");
    a.size = sizeof a - 8;
    ok(refused(&a, "size"), "a struct smaller than this pecheck's: refused, not called");
    a.size = sizeof a + 8;
    ok(refused(&a, "size"), "a struct larger than this pecheck's: refused, not called");
    a = valid(); a.stride_head = 9;
    ok(refused(&a, "overlap"), "stride_head below head_dim (heads overlap): refused");
    a = valid(); a.stride_token = 33; /* the heads of a token span 2 * 12 + 10 = 34 */
    ok(refused(&a, "overlap"), "stride_token below heads * stride_head (tokens overlap): refused");
    a = valid(); a.stride_token = -38;
    ok(refused(&a, "strides"), "a negative stride: refused");
    a = valid(); a.stride_token = INT64_MAX;
    ok(refused(&a, "fit"), "a stride whose span overflows: refused");
    a = valid(); a.stride_head = (int64_t)1 << 60; a.stride_token = 10;
    ok(refused(&a, "fit"), "heads-major strides too large for any buffer: refused");
    a = valid(); a.stride_token = 10; a.stride_head = 40;
    int before = calls;
    ok(!refused(&a, "") && calls == before + 1, "heads-major strides ([heads, tokens, dim]) called");
    a = valid(); a.rotary_dim = 12;
    ok(refused(&a, "rotary"), "rotary dim above the head dim: refused");
    a = valid(); a.rotary_dim = 7;
    ok(refused(&a, "rotary"), "an odd rotary dim: refused");
    a = valid(); a.dtype_out = 7;
    ok(refused(&a, "dtype"), "an unknown dtype: refused");
    a = valid(); a.dtype_out = PECHECK_DTYPE_F32;
    ok(refused(&a, "in place"), "in place with two dtypes: refused");
    a = valid(); a.attention_factor = (double)NAN;
    ok(refused(&a, "attention"), "a NaN attention factor: refused");
    a = valid(); a.freqs = NULL;
    ok(refused(&a, "NULL"), "a NULL array: refused");
    a = valid(); a.n_axes = 5;
    ok(refused(&a, "n_axes"), "five position axes: refused");
    static const int axes2[4] = { 0, 1, 1, 2 };
    a = valid(); a.n_axes = 2; a.pair_axis = axes2;
    ok(refused(&a, "pair_axis"), "a pair on axis 2 of 2: refused");
    static const int64_t pos2[8] = { 0, 0, 1, 5, 2, 6, 3, 7 };
    a = valid(); a.n_axes = 2; a.pos_axes = pos2; a.pair_axis = axes0 + 0;
    before = calls;
    ok(!refused(&a, "") && calls == before + 1, "two position axes, every pair on axis 0: called");
}

static void test_finish(void)
{
    pecheck_rope_args a = valid();
    size_t need = pc_v2_rope_span(4, 3, 38, 12, 10) * 2;
    a.x = NULL;
    ok(pc_rope_v2_finish(&a, need) == 0 && a.x == a.out, "FINISH: X NULL is in place, view fits");
    a = valid();
    ok(pc_rope_v2_finish(&a, need - 2) != 0, "FINISH: a view one element past OUT's room refused");
    ok(pc_v2_rope_span(4, 3, 38, 12, 10) == 3 * 38 + 2 * 12 + 10, "span of a [4, 3, 10] view");
    ok(pc_v2_rope_span((size_t)1 << 62, 1, (int64_t)1 << 62, 0, 2) == SIZE_MAX,
       "span: overflow saturates");
    ok(pc_v2_rope_span(0, 3, 38, 12, 10) == 0, "span of no tokens is 0");
}

/* ---- half precision --------------------------------------------------------- */

static void test_half(void)
{
    int bad16 = 0, badb = 0;
    for (uint32_t h = 0; h < 65536; h++) {
        float v = pc_f16_value((uint16_t)h), w = pc_bf16_value((uint16_t)h);
        if (v == v && pc_f16_of(v) != h) bad16++;
        if (w == w && pc_bf16_of(w) != h) badb++;
        if (v != v && (pc_f16_of(v) & 0x7E00u) != 0x7E00u) bad16++;
    }
    ok(!bad16, "f16: every pattern round-trips (NaN stays NaN)");
    ok(!badb, "bf16: every pattern round-trips");
    ok(pc_f16_of(1.0f + 0x1p-11f) == 0x3C00u && pc_f16_of(1.0f + 3 * 0x1p-11f) == 0x3C02u,
       "f16: ties to even");
    ok(pc_f16_of(65519.0f) == 0x7BFFu && pc_f16_of(65520.0f) == 0x7C00u
       && pc_f16_of(-1e9f) == 0xFC00u, "f16: 65504 + half an ulp overflows, below it does not");
    ok(pc_f16_of(0x1p-25f) == 0 && pc_f16_of(3 * 0x1p-25f) == 2 && pc_f16_of(0x1p-24f) == 1,
       "f16: subnormals round to nearest even multiple of 2^-24");
    ok(pc_bf16_of(1.0f + 0x1p-8f) == 0x3F80u && pc_bf16_of(1.0f + 3 * 0x1p-8f) == 0x3F82u,
       "bf16: ties to even");
#ifdef __FLT16_MAX__
    int diff = 0;
    float row[64];
    for (uint64_t k = 0; k < 4096; k++) {
        pc_normal_row(7, k, 64, row);
        for (int j = 0; j < 64; j++) {
            float v = ldexpf(row[j], (int)(k % 48) - 30); /* normal, subnormal, overflow */
            _Float16 r = (_Float16)v;
            uint16_t b;
            memcpy(&b, &r, 2);
            if (b != pc_f16_of(v)) diff++;
        }
    }
    ok(!diff, "f16: pc_f16_of equals the compiler's _Float16 conversion on 262144 values");
#endif
}

int main(void)
{
    test_refusals();
    test_finish();
    test_half();
    printf("1..%d\n", n_test);
    return n_fail != 0;
}
