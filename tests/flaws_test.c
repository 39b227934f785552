/* flaws_test.c: a known-bad built-in is the correct formulation it derives
 * from with one flaw.  Wherever its flaw does not act, its values are the
 * correct built-in's, bit for bit; where it acts, they differ (and, where
 * the flaw is a rounding, they are the correct values so rounded).  A copy
 * of a kernel that drifted from the correct one, or a second difference
 * beside the flaw, fails here.  TAP, plan at the end. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "harness/sandbox/impl.h"
#include "tests/lib/tap.h"

static const pc_impl *impl(const char *name)
{
    const pc_impl *im = pc_builtin_find(name);
    if (!im) { printf("Bail out! no built-in %s\n", name); exit(1); }
    return im;
}

static int same_bits(float a, float b) { return memcmp(&a, &b, sizeof a) == 0; }

/* bfloat16 rounding of a finite binary32, nearest-even, written here
 * independently of impl/common.h's. */
static float bf16(float v)
{
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    uint32_t low = u & 0xFFFFu, keep = u & 0xFFFF0000u;
    if (low > 0x8000u || (low == 0x8000u && (keep & 0x10000u))) keep += 0x10000u;
    memcpy(&v, &keep, sizeof v);
    return v;
}

/* ---- sinusoidal ----------------------------------------------------------- */

#define D 128
#define H (D / 2)
#define ROWS 600

static int64_t pos[ROWS];
static float good[ROWS * D], bad[ROWS * D];

/* positions 0..299, 2^24 - 150 .. 2^24 + 149: the flaw of bf16-positions acts
 * above 256, and above 2^24 every binary32 position is rounded too */
static void positions(void)
{
    for (int r = 0; r < ROWS; r++)
        pos[r] = r < 300 ? r : ((int64_t)1 << 24) - 150 + (r - 300);
}

static void table(const char *name, int layout, float *out)
{
    const pc_impl *im = impl(name);
    if (im->sinusoidal(NULL, pos, ROWS, D, 10000.0, layout, out) != 0) {
        printf("Bail out! %s declined layout %d\n", name, layout);
        exit(1);
    }
}

/* column of the sin (k = 0) or cos (k = 1) member of pair I */
static size_t col(int layout, int i, int k)
{
    return layout == PECHECK_LAYOUT_INTERLEAVED ? (size_t)(2 * i + k) : (size_t)(i + k * H);
}

/* the sin (K = 0) or cos (K = 1) member of pair I in row R of table T */
static float at(const float *t, int r, int layout, int i, int k)
{
    return t[(size_t)r * D + col(layout, i, k)];
}

static void test_bf16_positions(int layout)
{
    table("torch-exp", layout, good);
    table("bf16-positions", layout, bad);
    int same_exact = 1, differs = 0;
    for (int r = 0; r < ROWS; r++) {
        int exact = (float)pos[r] == bf16((float)pos[r]);  /* the position fits bfloat16 */
        for (int c = 0; c < D; c++) {
            int eq = same_bits(good[r * D + c], bad[r * D + c]);
            if (exact && !eq) same_exact = 0;
            if (!exact && !eq) differs = 1;
        }
    }
    ok(same_exact, "bf16-positions = torch-exp bit for bit at the positions bfloat16 holds "
       "(layout %d)", layout);
    ok(differs, "bf16-positions differs from torch-exp at the positions bfloat16 rounds "
       "(layout %d)", layout);
}

static void test_sin_only(int layout)
{
    table("torch-exp", layout, good);
    table("sin-only", layout, bad);
    int sin_same = 1, cos_is_sin = 1, cos_differs = 0;
    for (int r = 0; r < ROWS; r++)
        for (int i = 0; i < H; i++) {
            float s = at(bad, r, layout, i, 0), c = at(bad, r, layout, i, 1);
            sin_same &= same_bits(s, at(good, r, layout, i, 0));
            cos_is_sin &= same_bits(c, s);
            cos_differs |= !same_bits(c, at(good, r, layout, i, 1));
        }
    ok(sin_same, "sin-only: every sin column is torch-exp's, bit for bit (layout %d)", layout);
    ok(cos_is_sin && cos_differs,
       "sin-only: the cos column holds the sin, not torch-exp's cos (layout %d)", layout);
}

static void test_cos_shifted(int layout)
{
    table("torch-exp", layout, good);
    table("cos-shifted", layout, bad);
    /* the last pair's: torch-exp's div_term at i = d/2, exp(d * -ln(base)/d) */
    float past_last = expf((float)D * (float)(-log(10000.0) / (double)D));
    int sin_same = 1, cos_next = 1, cos_differs = 0;
    for (int r = 0; r < ROWS; r++)
        for (int i = 0; i < H; i++) {
            sin_same &= same_bits(at(bad, r, layout, i, 0), at(good, r, layout, i, 0));
            float c = at(bad, r, layout, i, 1);
            if (i + 1 < H) cos_next &= same_bits(c, at(good, r, layout, i + 1, 1));
            else cos_next &= same_bits(c, cosf((float)pos[r] * past_last));
            cos_differs |= !same_bits(c, at(good, r, layout, i, 1));
        }
    ok(sin_same, "cos-shifted: every sin column is torch-exp's, bit for bit (layout %d)", layout);
    ok(cos_next && cos_differs,
       "cos-shifted: the cos of pair i is torch-exp's cos of pair i+1 (the last: at div_term "
       "of d/2), bit for bit (layout %d)", layout);
}

static void test_plus_1e4(int layout)
{
    table("double-angle", layout, good);
    table("plus-1e-4", layout, bad);
    /* each value is RN(v + 1e-4) for the binary64 v that double-angle
     * rounds once: within half an ulp of it plus the ulp of good */
    double worst = 0;
    for (int e = 0; e < ROWS * D; e++) {
        double err = fabs((double)bad[e] - (double)good[e] - 1e-4);
        double ulp = ldexp(1.0, ilogb(fabs((double)good[e]) + 1e-4) - 23);
        if (err / ulp > worst) worst = err / ulp;
    }
    ok(worst <= 1.0, "plus-1e-4 = double-angle + 1e-4 within an ulp (worst %.3g ulp, layout %d)",
       worst, layout);
}

/* ring-slot: torch-exp's row of pos mod 512 (the slot), bit for bit */
static void test_ring_slot(int layout)
{
    enum { SLOTS = 512 }; /* ring-slot's cache size (families/sinusoidal/sin_ring_slot.c) */
    static int64_t slot[ROWS];
    for (int r = 0; r < ROWS; r++) slot[r] = pos[r] % SLOTS;
    table("ring-slot", layout, bad);
    const pc_impl *im = impl("torch-exp");
    if (im->sinusoidal(NULL, slot, ROWS, D, 10000.0, layout, good) != 0) {
        printf("Bail out! torch-exp declined layout %d\n", layout);
        exit(1);
    }
    int slot_rows = memcmp(good, bad, sizeof good) == 0;
    table("torch-exp", layout, good);
    int below = memcmp(good, bad, 300 * D * sizeof *good) == 0; /* rows 0..299: positions < 512 */
    int above = memcmp(good + 300 * D, bad + 300 * D, (ROWS - 300) * D * sizeof *good) != 0;
    ok(slot_rows && below && above, "ring-slot = torch-exp's row of pos mod 512, bit for bit: "
       "torch-exp's own below 512, another row above (layout %d)", layout);
}

/* ---- RoPE ----------------------------------------------------------------- */

static float x[ROWS * D];

static void test_rope_bf16_cache(void)
{
    /* x = (1 in the first half, 0 in the second): rope-half's output is
     * then (cos, sin) exactly, rope-bf16-cache's its cache entries */
    for (int r = 0; r < ROWS; r++)
        for (int i = 0; i < H; i++) { x[r * D + i] = 1.0f; x[r * D + H + i] = 0.0f; }
    const pc_impl *half = impl("rope-half"), *cache = impl("rope-bf16-cache");
    int rc = half->rope(NULL, pos, ROWS, D, 10000.0, PECHECK_LAYOUT_HALF, x, good) |
             cache->rope(NULL, pos, ROWS, D, 10000.0, PECHECK_LAYOUT_HALF, x, bad);
    int rounded = 1, differs = 0;
    for (int e = 0; e < ROWS * D; e++) {
        rounded &= same_bits(bad[e], bf16(good[e]));
        differs |= !same_bits(bad[e], good[e]);
    }
    ok(rc == 0 && rounded && differs,
       "rope-bf16-cache = rope-half's cos and sin rounded to bfloat16, bit for bit");
    for (int e = 0; e < ROWS * D; e++) x[e] = (float)((e * 37) % 101) / 50.0f - 1.0f;
    rc = half->rope(NULL, pos, 1, D, 10000.0, PECHECK_LAYOUT_HALF, x, good) |
         cache->rope(NULL, pos, 1, D, 10000.0, PECHECK_LAYOUT_HALF, x, bad);
    ok(rc == 0 && memcmp(good, bad, D * sizeof *good) == 0,
       "rope-bf16-cache = rope-half at position 0 (cos 1, sin 0: bfloat16 holds them)");
}

/* rope-mixed-layout: rotate_half with the interleaved cache, column j at
 * freqs[j/2].  On x = (1 in the first half, 0 in the second) rope-half
 * gives column i cos(t w_i) and column i + H sin(t w_i); rope-mixed-layout
 * column i cos(t w_{i/2}) and column i + H sin(t w_{(i+H)/2}): rope-half's
 * columns i/2 and H + (i+H)/2, bit for bit.  At d = 2 it is rope-half. */
static void test_rope_mixed_layout(void)
{
    for (int r = 0; r < ROWS; r++)
        for (int i = 0; i < H; i++) { x[r * D + i] = 1.0f; x[r * D + H + i] = 0.0f; }
    const pc_impl *half = impl("rope-half"), *mixed = impl("rope-mixed-layout");
    int rc = half->rope(NULL, pos, ROWS, D, 10000.0, PECHECK_LAYOUT_HALF, x, good) |
             mixed->rope(NULL, pos, ROWS, D, 10000.0, PECHECK_LAYOUT_HALF, x, bad);
    int moved = 1, differs = 0;
    for (int r = 0; r < ROWS; r++)
        for (int i = 0; i < H; i++) {
            moved &= same_bits(bad[r * D + i], good[r * D + i / 2]);
            moved &= same_bits(bad[r * D + H + i], good[r * D + H + (i + H) / 2]);
            differs |= !same_bits(bad[r * D + i], good[r * D + i]);
        }
    ok(rc == 0 && moved && differs,
       "rope-mixed-layout = rope-half's cos of pair i/2 and sin of pair (i + d/2)/2, bit for bit");
    for (int e = 0; e < ROWS * 2; e++) x[e] = (float)((e * 37) % 101) / 50.0f - 1.0f;
    rc = half->rope(NULL, pos, ROWS, 2, 10000.0, PECHECK_LAYOUT_HALF, x, good) |
         mixed->rope(NULL, pos, ROWS, 2, 10000.0, PECHECK_LAYOUT_HALF, x, bad);
    ok(rc == 0 && memcmp(good, bad, ROWS * 2 * sizeof *good) == 0,
       "rope-mixed-layout = rope-half at d = 2 (one pair: both columns at freqs[0])");
    ok(mixed->rope(NULL, pos, 1, D, 10000.0, PECHECK_LAYOUT_INTERLEAVED, x, bad) == 1,
       "rope-mixed-layout declines the interleaved layout");
}

/* ---- T5 ------------------------------------------------------------------- */

#define NREL 801

static void buckets(const char *name, int bidirectional, const int64_t *rel, int32_t *out)
{
    if (impl(name)->t5_bucket(NULL, rel, NREL, bidirectional, 32, 128, out) != 0) {
        printf("Bail out! %s refused HF's parameters\n", name);
        exit(1);
    }
}

/* NAME's buckets for every |j - i| <= 400 (bidirectional BI): the same as
 * t5-hf's wherever AGREE(rel, BI) says the flaw does not act, and some
 * different elsewhere (none where AGREE is true everywhere). */
static void t5_against_hf(const char *name, int bi, int (*agree)(int64_t rel, int bi),
                          const char *where)
{
    int64_t rel[NREL];
    int32_t hf[NREL], got[NREL];
    for (int k = 0; k < NREL; k++) rel[k] = k - 400;
    buckets("t5-hf", bi, rel, hf);
    buckets(name, bi, rel, got);
    int same = 1, differs = 0, flawed = 0;
    for (int k = 0; k < NREL; k++) {
        if (agree(rel[k], bi)) same &= hf[k] == got[k];
        else { flawed = 1; differs |= hf[k] != got[k]; }
    }
    ok(same && differs == flawed, "%s = t5-hf %s%s (%s)", name, where,
       flawed ? ", not elsewhere" : "", bi ? "bidirectional" : "causal");
}

/* HF: bidirectional max_exact 8, causal 16 (num_buckets 32) */
static int exact_range(int64_t rel, int bi)
{
    return bi ? llabs(rel) < 8 : (rel >= 0 || -rel < 16);
}
static int below_max_distance(int64_t rel, int bi) { (void)bi; return llabs(rel) < 128; }
static int causal_only(int64_t rel, int bi) { (void)rel; return !bi; }

static void test_t5(void)
{
    for (int bi = 0; bi < 2; bi++) {
        t5_against_hf("t5-round", bi, exact_range, "on the exact buckets");
        t5_against_hf("t5-no-clamp", bi, below_max_distance, "below max_distance");
        t5_against_hf("t5-max-exact", bi, causal_only, "in the causal variant");
        t5_against_hf("t5-full-buckets", bi, causal_only, "in the causal variant");
    }

    /* t5-bias-cache: right when the queries are at 0, 1, ..., wrong after */
    float emb[32 * 2], a[2 * 6 * 9], b[2 * 6 * 9];
    for (int e = 0; e < 64; e++) emb[e] = (float)e * 0.25f - 3.0f;
    int64_t q[6], k[9];
    int ok0 = 1, differs = 0;
    for (int64_t start = 0; start <= 1000; start += 1000) {
        for (int r = 0; r < 6; r++) q[r] = start + r;
        for (int c = 0; c < 9; c++) k[c] = start + 3 * c;
        int rc = impl("t5-hf")->t5_bias(NULL, emb, 2, 1, 32, 128, q, 6, k, 9, a) |
                 impl("t5-bias-cache")->t5_bias(NULL, emb, 2, 1, 32, 128, q, 6, k, 9, b);
        int eq = rc == 0 && memcmp(a, b, sizeof a) == 0;
        if (start == 0) ok0 = eq; else differs = !eq;
    }
    ok(ok0 && differs,
       "t5-bias-cache = t5-hf's bias for queries at 0..n-1, not for queries at 1000..");
}

/* ---- ALiBi ---------------------------------------------------------------- */

static void test_alibi(void)
{
    float s[64], t[64];
    int same = 1, differs = 0;
    for (int heads = 1; heads <= 64; heads++) {
        int rc = impl("alibi-paper")->alibi_slopes(NULL, heads, s) |
                 impl("alibi-pow2")->alibi_slopes(NULL, heads, t);
        int eq = rc == 0 && memcmp(s, t, (size_t)heads * sizeof *s) == 0;
        if ((heads & (heads - 1)) == 0) same &= eq; else differs |= !eq;
    }
    ok(same && differs, "alibi-pow2 = alibi-paper's slopes for power-of-two head counts only");

    /* biases: 9 heads (slopes 2^-0.5 .. not all powers of two), keys on
     * both sides of the queries */
    enum { HEADS = 9, NQ = 5, NK = 12 };
    static float a[HEADS * NQ * NK], b[HEADS * NQ * NK];
    int64_t q[NQ], k[NK];
    for (int r = 0; r < NQ; r++) q[r] = 100 + 2 * r;
    for (int c = 0; c < NK; c++) k[c] = 95 + c;
    const pc_impl *paper = impl("alibi-paper");
    paper->alibi_bias(NULL, HEADS, q, NQ, k, NK, 0, a);

    impl("alibi-no-abs")->alibi_bias(NULL, HEADS, q, NQ, k, NK, 0, b);
    int after_same = 1, before_negated = 1;
    for (int h = 0; h < HEADS; h++)
        for (int r = 0; r < NQ; r++)
            for (int c = 0; c < NK; c++) {
                int e = (h * NQ + r) * NK + c;
                if (k[c] >= q[r]) after_same &= same_bits(a[e], b[e]);
                else before_negated &= same_bits(a[e], -b[e]) && a[e] < 0;
            }
    ok(after_same && before_negated,
       "alibi-no-abs = alibi-paper for keys at or after the query, its negation before");

    impl("alibi-f16")->alibi_bias(NULL, HEADS, q, NQ, k, NK, 0, b);
    int f16_same = 1, f16_differs = 0;
    for (int e = 0; e < HEADS * NQ * NK; e++) {
        /* float16 keeps 11 bits: a bias that fits them is unchanged */
        float m = fabsf(a[e]);
        int fits = m == 0 || ldexpf(m, 10 - ilogbf(m)) == truncf(ldexpf(m, 10 - ilogbf(m)));
        if (fits) f16_same &= same_bits(a[e], b[e]);
        else f16_differs |= !same_bits(a[e], b[e]);
    }
    ok(f16_same && f16_differs,
       "alibi-f16 = alibi-paper where float16 holds the bias, not elsewhere");

    int64_t q0[NQ];
    for (int r = 0; r < NQ; r++) q0[r] = r;
    paper->alibi_bias(NULL, HEADS, q0, NQ, k, NK, 0, a);
    impl("alibi-cache-offset")->alibi_bias(NULL, HEADS, q0, NQ, k, NK, 0, b);
    int at0 = memcmp(a, b, sizeof a) == 0;
    paper->alibi_bias(NULL, HEADS, q, NQ, k, NK, 0, a);
    impl("alibi-cache-offset")->alibi_bias(NULL, HEADS, q, NQ, k, NK, 0, b);
    ok(at0 && memcmp(a, b, sizeof a) != 0,
       "alibi-cache-offset = alibi-paper for queries at 0..n-1, not for queries at 100..");
}

int main(void)
{
    positions();
    for (int layout = 0; layout < 2; layout++) {
        test_bf16_positions(layout);
        test_sin_only(layout);
        test_cos_shifted(layout);
        test_plus_1e4(layout);
        test_ring_slot(layout);
    }
    test_rope_bf16_cache();
    test_rope_mixed_layout();
    test_t5();
    test_alibi();
    return tap_plan();
}
