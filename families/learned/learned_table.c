/* learned-table / learned-clamp: a learned absolute position table of
 * PC_LEARNED_MAX_LEN rows (BERT/GPT-2 style nn.Embedding).  The stand-in
 * weights are a deterministic hash of (pos, column) in [-1, 1).
 * learned-table validates every position before writing anything;
 * learned-clamp (known bad) silently clamps to the last row, the behaviour
 * of a gather with index clamping. */
#include "impl/common.h"

#define PC_LEARNED_MAX_LEN 512  /* BERT-base's max_position_embeddings */

/*@ // The table: entry (POS, J) is weight(POS, J) below, the splitmix64
    // finaliser written in ACSL (the uint64_t casts wrap modulo 2^64 as in C;
    // the last step, a 24-bit integer times 2^-23 minus 1, is exact in
    // binary32, so WP's real model of it is exact too).  The contracts say
    // which entry lands where; the entry's range (in [-1, 1]) and finiteness
    // are Eva's part (ACSL/eva_driver.c).
    logic integer pc_learned_z0(integer pos, integer j) =
      (uint64_t)((uint64_t)((uint64_t)pos * 0x9E3779B97F4A7C15) +
                 (uint64_t)((uint64_t)j * 0xBF58476D1CE4E5B9));
    logic integer pc_learned_z1(integer z) =
      (uint64_t)((uint64_t)(z ^ (z >> 30)) * 0xBF58476D1CE4E5B9);
    logic integer pc_learned_z2(integer z) =
      (uint64_t)((uint64_t)(z ^ (z >> 27)) * 0x94D049BB133111EB);
    logic integer pc_learned_z3(integer z) = (uint64_t)(z ^ (z >> 31));
    logic real pc_learned_w(integer pos, integer j) =
      (pc_learned_z3(pc_learned_z2(pc_learned_z1(pc_learned_z0(pos, j)))) >> 40)
        * 0x1p-23 - 1.0;

    // Row r of OUT (N x D) holds the table row of POS[r]: OUT[r*D + j] is
    // entry (POS[r], j), for every r < N and j < D.
    predicate pc_learned_rows{L}(int64_t *pos, integer n, integer d, float *out) =
      \forall integer r, j; 0 <= r < n && 0 <= j < d ==>
        out[r * d + j] == pc_learned_w(pos[r], j);
*/

/*@ assigns \result \from pos, j;
    ensures entry: \result == pc_learned_w(pos, j); */
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

/* O[0 .. D) = the table row of position P. */
/*@ requires dim: 1 <= d;
    requires valid_out: \valid(o + (0 .. d - 1));
    assigns o[0 .. d - 1];
    ensures row: \forall integer j; 0 <= j < d ==> o[j] == pc_learned_w(p, j);
*/
static void fill_row(int64_t p, int d, float *o)
{
    /*@ loop invariant cols: 0 <= j <= d;
        loop invariant done: \forall integer k; 0 <= k < j ==> o[k] == pc_learned_w(p, k);
        loop assigns j, o[0 .. d - 1];
        loop variant d - j; */
    for (int j = 0; j < d; j++)
        o[j] = weight(p, j);
}

/* Row r of OUT (N x D) is the table row of POS[r]. */
/*@ requires valid_pos: pc_valid_positions(pos, n);
    requires size: pc_size_ok(n, d);
    requires valid_out: pc_valid_matrix(out, n, d);
    requires separated: \separated(pos + (0 .. n - 1), out + (0 .. n * d - 1));
    assigns out[0 .. n * d - 1];
    ensures rows: pc_learned_rows(pos, n, d, out);
*/
static void fill(const int64_t *pos, size_t n, int d, float *out)
{
    /*@ loop invariant rows: 0 <= r <= n;
        loop invariant filled: pc_learned_rows(pos, r, d, out);
        loop assigns r, out[0 .. n * d - 1];
        loop variant n - r; */
    for (size_t r = 0; r < n; r++) {
        //@ assert row_fits: r * d + d <= n * d;
        fill_row(pos[r], d, out + r * (size_t)d);
        //@ assert earlier: \forall integer r2, j; 0 <= r2 < r && 0 <= j < d ==> r2 * d + j < r * d;
    }
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
      ensures rows: pc_learned_rows(pos, n, d, out);
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
        /* the flaw: a position outside the table is clamped to its ends, not refused */
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
