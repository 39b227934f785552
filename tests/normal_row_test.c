/* normal_row_test.c: pc_normal_row (harness/base/normal_row.c), the
 * accuracy gate's input rows made with a log and a cos of its own behind a
 * rounding test, gives the values of pc_rng_normal_f32 (libm's log and
 * cos) bit for bit: 140000 rows of d = 128 under two seeds (17.9 million
 * values), rows of odd and small d (the values past the last run of 16),
 * and the keys near 2^64.  TAP. */
#include <stdio.h>
#include <string.h>
#include "harness/base/rng.h"

static int n_tests, n_fail;

static void ok(int cond, const char *what)
{
    n_tests++;
    if (!cond) n_fail++;
    printf("%s %d - %s\n", cond ? "ok" : "not ok", n_tests, what);
}

/* Rows KEY0 .. KEY0 + N - 1 of width D under SEED: the values that differ
 * from pc_rng_normal_f32's, the first printed. */
static long differ(uint64_t seed, uint64_t key0, uint64_t n, int d)
{
    float a[1000], b[1000];
    long bad = 0;
    for (uint64_t key = key0; key - key0 < n; key++) {
        pc_normal_row(seed, key, d, a);
        pc_rng r;
        pc_rng_seed(&r, pc_hash3(seed, key, 0x524F5045u));
        for (int j = 0; j < d; j++) b[j] = pc_rng_normal_f32(&r);
        for (int j = 0; j < d; j++)
            if (memcmp(&a[j], &b[j], sizeof a[j]) && bad++ == 0)
                printf("# seed %llu key %llu value %d: %a, pc_rng_normal_f32 %a\n",
                       (unsigned long long)seed, (unsigned long long)key, j, (double)a[j],
                       (double)b[j]);
    }
    return bad;
}

int main(void)
{
    long bad = differ(PC_DEFAULT_SEED, 0, 100000, 128) + differ(7, 1u << 20, 40000, 128);
    ok(bad == 0, "140000 rows of d = 128 under two seeds: pc_rng_normal_f32's values bit for bit");
    bad = 0;
    static const int widths[] = { 2, 6, 16, 18, 50, 130, 1000 };
    for (size_t k = 0; k < sizeof widths / sizeof widths[0]; k++)
        bad += differ(PC_DEFAULT_SEED, 5, 2000, widths[k]);
    ok(bad == 0, "d = 2, 6, 16, 18, 50, 130, 1000 (runs of 16 and the values after): the same");
    ok(differ(PC_DEFAULT_SEED, UINT64_MAX - 999, 1000, 64) == 0, "keys up to 2^64 - 1: the same");
    printf("1..%d\n", n_tests);
    return n_fail != 0;
}
