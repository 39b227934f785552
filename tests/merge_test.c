/* merge_test.c: the pieces under `pecheck merge` (TAP output).
 *   1-3. xsum: random binary64 numbers of every magnitude summed in three
 *        orders and split across accumulators give the same bits, equal to
 *        the exact sum rounded once (MPFR at 2400 bits); the exact expansion
 *        adds back to the same accumulator.
 *   4.   shard split: for many (blocks, N) the shards' block ranges are
 *        contiguous, cover every block once, and differ in size by <= 1.
 *   5-6. jsonread: documents that must parse (values checked) and malformed
 *        ones that must be refused with a message (never a crash).
 * Usage: merge_test [SEED] */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpfr.h>
#include "harness/engine/accuracy.h"
#include "harness/io/jsonread.h"
#include "harness/base/rng.h"
#include "harness/base/xsum.h"

static int n_test = 0, n_fail = 0;
static void check(int ok, const char *what)
{
    printf("%s %d - %s\n", ok ? "ok" : "not ok", ++n_test, what);
    if (!ok) n_fail++;
}

static int same(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

#define NV 20000

int main(int argc, char **argv)
{
    uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 0) : 20260422u;
    printf("1..6\n# seed %" PRIu64 "\n", seed);
    pc_rng r;
    pc_rng_seed(&r, seed);
    static double v[NV];
    for (int k = 0; k < NV; k++) {
        /* mixed signs, magnitudes 2^-80 .. 2^10, and every tenth pair one of
         * 2^-1074 .. 2^1000 followed by its negation (exact cancellation: the
         * small terms decide the rounding) */
        int e = k % 10 == 8 ? (int)pc_rng_below(&r, 2074) - 1074 : (int)pc_rng_below(&r, 90) - 80;
        double m = pc_rng_unit(&r) + 0.5;
        v[k] = ldexp(m, e > 1000 ? 1000 : e) * (pc_rng_below(&r, 2) ? -1.0 : 1.0);
        if (k % 10 == 9) v[k] = -v[k - 1]; /* exact cancellation */
    }
    pc_xsum a, b, c, c2;
    pc_xsum_init(&a); pc_xsum_init(&b); pc_xsum_init(&c); pc_xsum_init(&c2);
    for (int k = 0; k < NV; k++) pc_xsum_add(&a, v[k]);
    for (int k = NV - 1; k >= 0; k--) pc_xsum_add(&b, v[k]);
    for (int k = 0; k < NV; k++) pc_xsum_add(k % 3 ? &c : &c2, v[(k * 7919) % NV]);
    pc_xsum_merge(&c, &c2);
    mpfr_t s;
    mpfr_init2(s, 2400);
    mpfr_set_ui(s, 0, MPFR_RNDN);
    for (int k = 0; k < NV; k++) mpfr_add_d(s, s, v[k], MPFR_RNDN); /* exact at 2400 bits */
    double exact = mpfr_get_d(s, MPFR_RNDN);
    double va = pc_xsum_value(&a), vb = pc_xsum_value(&b), vc = pc_xsum_value(&c);
    printf("# sum %a (orders: %a %a %a)\n", exact, va, vb, vc);
    check(same(va, exact) && same(vb, exact), "xsum: forward and backward orders = exact sum rounded once");
    check(same(vc, exact), "xsum: permuted order split over two merged accumulators = exact sum");
    double t[64];
    int nt = pc_xsum_expansion(&a, t, 64);
    pc_xsum d;
    pc_xsum_init(&d);
    for (int k = 0; k < nt; k++) pc_xsum_add(&d, t[k]);
    pc_xsum_add(&d, -exact); /* exact - RN(exact) is small: compare remainders */
    pc_xsum_add(&a, -exact);
    check(nt > 0 && same(pc_xsum_value(&d), pc_xsum_value(&a)),
          "xsum: the exact expansion adds back to the same value");
    mpfr_clear(s);

    int split_ok = 1;
    for (int64_t nb = 0; nb < 60 && split_ok; nb++)
        for (int N = 1; N <= 13 && split_ok; N++) {
            int64_t prev = 0, lo = INT64_MAX, hi = 0;
            for (int k = 1; k <= N; k++) {
                int64_t b0, b1;
                pc_acc_shard_blocks(nb, k, N, &b0, &b1);
                if (b0 != prev || b1 < b0) split_ok = 0;
                if (b1 - b0 < lo) lo = b1 - b0;
                if (b1 - b0 > hi) hi = b1 - b0;
                prev = b1;
            }
            if (prev != nb || hi - lo > 1) split_ok = 0;
        }
    int64_t b0, b1;
    pc_acc_shard_blocks((int64_t)1 << 45, 1 << 20, 1 << 20, &b0, &b1); /* no overflow */
    check(split_ok && b1 == (int64_t)1 << 45 && b0 == b1 - ((int64_t)1 << 25),
          "shards: contiguous, complete, balanced block ranges");

    pc_err err;
    pc_jnode *j = NULL;
    const char *good = " {\"a\": [1, -2.5e-3, \"x\\u00e9\\ud83d\\ude00\\n\"], \"b\": {\"c\": null, "
                       "\"d\": true, \"e\": false}, \"a\": 0} ";
    int ok = pc_jparse(good, strlen(good), "good", &j, &err) == PC_OK;
    const pc_jnode *a0 = ok ? pc_jget(j, "a") : NULL; /* the last "a" wins */
    const pc_jnode *bb = ok ? pc_jget(j, "b") : NULL;
    ok = ok && a0 && a0->type == PC_J_NUM && !strcmp(a0->text, "0") && bb
         && pc_jget(bb, "c")->type == PC_J_NULL && pc_jget(bb, "d")->type == PC_J_TRUE
         && j->kids[0].n == 3 && !strcmp(j->kids[0].kids[2].text, "x\xc3\xa9\xf0\x9f\x98\x80\n");
    pc_jfree(j);
    check(ok, "jsonread: a valid document with escapes, nesting and repeated keys");
    const char *bad[] = { "", "{", "[1,]", "{\"a\" 1}", "{\"a\":1,}", "01", "1.", "-", "\"abc",
                          "\"a\\q\"", "\"\\u12\"", "[1] 2", "nul", "\"a\001\"", "{1:2}",
                          "\"\\u0000\"", "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]" };
    int refused = 1;
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        err.msg[0] = '\0';
        if (pc_jparse(bad[k], strlen(bad[k]), "bad", &j, &err) != PC_EINPUT || j || !err.msg[0]) {
            printf("# accepted or no message: '%s'\n", bad[k]);
            refused = 0;
            pc_jfree(j);
        }
    }
    check(refused, "jsonread: malformed documents are refused with a message");
    return n_fail != 0;
}
