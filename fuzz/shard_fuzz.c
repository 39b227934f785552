/* shard_fuzz.c: libFuzzer target for what `pecheck merge` does with a
 * shard file once it is JSON: pc_shard_read (harness/shard/shard.c) on its result
 * objects, and pc_shard_merge of a lone result; a check shard
 * ("kind": "check-shard") goes whole to pc_check_shard_merge
 * (harness/shard/check_shard.c) as a run of one file (see fuzz/README.md).
 *
 * Besides "no crash, no leak, no UB" (ASan, UBSan) it checks the contract
 * in shard.h on every input and traps on a breach:
 *   - a result read is consistent: shard 1 <= K <= N, positions
 *     0 <= start <= end <= 2^53, an even d in [2, 8192], status pass, fail
 *     or skip, values_nonfinite <= values_over_bound <= values,
 *     values_correctly_rounded <= values, "pass" with nothing over the bound;
 *   - a whole-run result (N = 1) merges alone, and the merge never turns
 *     values over the bound into a pass;
 *   - a refused one is PC_EINPUT (or PC_ENOMEM) with a one-line message of
 *     printable ASCII (the file name and the field);
 *   - a check shard merged alone gives verdicts whose status is pass, fail
 *     or skip, and run properties within --property's limit. */
#include <stdint.h>
#include <string.h>

#include "harness/shard/check_shard.h"
#include "harness/io/jsonread.h"
#include "harness/cli/opts.h"
#include "reference/reference.h"
#include "harness/shard/shard.h"

static void check(int cond)
{
    if (!cond)
        __builtin_trap();
}

static void check_message(const pc_err *e)
{
    size_t n = strnlen(e->msg, sizeof e->msg);
    check(n > 0 && n < sizeof e->msg);
    for (size_t i = 0; i < n; i++)
        check(e->msg[i] >= 0x20 && e->msg[i] < 0x7f);
}

static void check_item(const pc_shard_item *it)
{
    const pc_acc_cfg *c = &it->cfg;
    const pc_metrics *m = &it->res.m;
    check(c->shard_n >= 1 && c->shard_n <= PC_SHARD_MAX);
    check(c->shard_k >= 1 && c->shard_k <= c->shard_n);
    check(c->pos_lo >= 0 && c->pos_lo <= c->pos_hi && c->pos_hi <= PC_POS_MAX);
    check(c->d >= 2 && c->d <= PC_D_MAX && c->d % 2 == 0);
    check(it->res.status == PC_OK || it->res.status == PC_FAIL || it->res.status == PC_SKIP);
    check(m->n_nonfinite <= m->n_over && m->n_over <= m->count && m->n_exact <= m->count);
    check(it->res.status != PC_OK || m->n_over == 0);
}

static void check_merge(const pc_jnode *t)
{
    pc_verdicts vs = { NULL, 0, 0 };
    pc_check_run run;
    pc_err e;
    const char *file = "input";
    memset(&e, 0x55, sizeof e);
    pc_status st = pc_check_shard_merge(&t, &file, 1, &vs, &run, &e);
    if (st != PC_OK) {
        check(st == PC_EINPUT || st == PC_ENOMEM);
        check_message(&e);
    } else {
        check(run.n_properties >= 0 && run.n_properties <= PC_MAX_SOURCES);
        for (int k = 0; k < vs.n; k++)
            check(vs.v[k].status == PC_OK || vs.v[k].status == PC_FAIL || vs.v[k].status == PC_SKIP);
        /* a case to save names a failing verdict of the list */
        for (int k = 0; k < run.n_saves; k++)
            check(run.saves[k].verdict >= 0 && run.saves[k].verdict < vs.n
                  && vs.v[run.saves[k].verdict].status == PC_FAIL && run.regressions);
    }
    pc_check_run_free(&run);
    pc_verdicts_free(&vs);
}

/* At most this many results of one file are read (a corpus input is small). */
#define MAX_RESULTS 8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pc_jnode *t = NULL;
    pc_err e;
    if (pc_jparse((const char *)data, size, "input", &t, &e) != PC_OK)
        return 0;
    if (pc_check_shard_is(t)) {
        check_merge(t);
        pc_jfree(t);
        return 0;
    }
    const pc_jnode *list = t, *arr = pc_jget(t, "results");
    size_t n = 1;
    if (arr && arr->type == PC_J_ARR) {
        list = arr->kids;
        n = arr->n;
    }
    for (size_t k = 0; k < n && k < MAX_RESULTS; k++) {
        static pc_shard_item it, out;
        memset(&e, 0x55, sizeof e); /* catch a message left unterminated */
        pc_status st = pc_shard_read(&list[k], "input", &it, &e);
        if (st != PC_OK) {
            check(st == PC_EINPUT || st == PC_ENOMEM);
            check_message(&e);
            continue;
        }
        check_item(&it);
        if (it.cfg.shard_n != 1) continue;
        check(pc_shard_merge(&it, 1, &out, &e) == PC_OK);
        check(out.res.status != PC_OK || out.res.m.n_over == 0);
        check(out.res.m.count == it.res.m.count);
    }
    pc_jfree(t);
    return 0;
}
