/* learned-table / learned-clamp: a learned absolute position table of
 * PC_LEARNED_MAX_LEN rows (BERT/GPT-2 style nn.Embedding).  The stand-in
 * weights are a deterministic hash of (pos, column) in [-1, 1).
 * learned-table validates every position before writing anything;
 * learned-clamp (known bad) silently clamps to the last row, the behaviour
 * of a gather with index clamping. */
#include "../../impl/common.h"

#define PC_LEARNED_MAX_LEN 512  /* BERT-base's max_position_embeddings */

/* Range [-1, 1) and finiteness are established by Eva (ACSL/eva_driver.c):
 * the 64-bit multiplications are beyond what the SMT provers handle here. */
/*@ assigns \result \from pos, j; */
static float weight(int64_t pos, int j)
{
    /* splitmix64 finaliser: a fixed, well-mixed stand-in for trained weights */
    uint64_t z = (uint64_t)pos * 0x9E3779B97F4A7C15u + (uint64_t)j * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    z ^= z >> 31;
    return (float)(z >> 40) * 0x1p-23f - 1.0f; /* 24 bits -> [-1, 1) */
}

/*@ assigns \result \from \nothing;
    ensures result: \result == PC_LEARNED_MAX_LEN; */
static int64_t max_len(void *ctx) { (void)ctx; return PC_LEARNED_MAX_LEN; }

/* Row r of OUT (N x D) is the table row of POS[r]. */
/*@ requires valid_pos: pc_valid_positions(pos, n);
    requires size: pc_size_ok(n, d);
    requires valid_out: pc_valid_matrix(out, n, d);
    requires separated: \separated(pos + (0 .. n - 1), out + (0 .. n * d - 1));
    assigns out[0 .. n * d - 1];
*/
static void fill(const int64_t *pos, size_t n, int d, float *out)
{
    /*@ loop invariant rows: 0 <= r <= n;
        loop assigns r, out[0 .. n * d - 1];
        loop variant n - r; */
    for (size_t r = 0; r < n; r++)
        /*@ loop invariant cols: 0 <= j <= d;
            loop assigns j, out[r * d .. r * d + d - 1];
            loop variant d - j; */
        for (int j = 0; j < d; j++)
            out[r * (size_t)d + (size_t)j] = weight(pos[r], j);
}

/*@ requires valid_pos: pc_valid_positions(pos, n);
    requires size: pc_size_ok(n, d);
    requires valid_out: pc_valid_matrix(out, n, d);
    requires separated: \separated(pos + (0 .. n - 1), out + (0 .. n * d - 1));
    assigns out[0 .. n * d - 1];
    behavior in_range:
      assumes all_in: pc_positions_in(pos, n, 0, PC_LEARNED_MAX_LEN - 1);
      assigns out[0 .. n * d - 1];
      ensures ok: \result == 0;
    behavior out_of_range:
      assumes some_out: pc_some_position_outside(pos, n, PC_LEARNED_MAX_LEN);
      assigns \nothing;
      ensures rejected: \result == 1;
    complete behaviors;
    disjoint behaviors;
*/
static int lookup(void *ctx, const int64_t *pos, size_t n, int d, float *out)
{
    (void)ctx;
    /*@ loop invariant rows: 0 <= r <= n;
        loop invariant checked: pc_positions_in(pos, r, 0, PC_LEARNED_MAX_LEN - 1);
        loop assigns r;
        loop variant n - r; */
    for (size_t r = 0; r < n; r++)
        if (pos[r] < 0 || pos[r] >= PC_LEARNED_MAX_LEN)
            return 1; /* nothing written */
    fill(pos, n, d, out);
    return 0;
}

/*@ requires valid_pos: pc_valid_positions(pos, n);
    requires size: pc_size_ok(n, d);
    requires valid_out: pc_valid_matrix(out, n, d);
    requires separated: \separated(pos + (0 .. n - 1), out + (0 .. n * d - 1));
    assigns out[0 .. n * d - 1];
    ensures ok: \result == 0;
*/
static int lookup_clamp(void *ctx, const int64_t *pos, size_t n, int d, float *out)
{
    (void)ctx;
    /*@ loop invariant rows: 0 <= r <= n;
        loop assigns r, out[0 .. n * d - 1];
        loop variant n - r; */
    for (size_t r = 0; r < n; r++) {
        int64_t p = pos[r] < 0 ? 0 : pos[r] >= PC_LEARNED_MAX_LEN ? PC_LEARNED_MAX_LEN - 1 : pos[r];
        fill(&p, 1, d, out + r * (size_t)d);
    }
    return 0;
}

const pc_impl pc_impl_learned_table = {
    .name = "learned-table",
    .description = "learned absolute table, 512 rows; out-of-range lookups return an error",
    .family_hint = "learned",
    .expect_pass = 1,
    .learned_max_len = max_len,
    .learned = lookup,
};

const pc_impl pc_impl_learned_clamp = {
    .name = "learned-clamp",
    .description = "KNOWN BAD: learned table that silently clamps positions past its end",
    .family_hint = "learned",
    .flaw = "positions >= max_len read the last row instead of failing",
    .learned_max_len = max_len,
    .learned = lookup_clamp,
};
