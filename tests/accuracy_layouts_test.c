/* accuracy_layouts_test.c: pc_accuracy_run_layouts (both layouts in one
 * pass, the sinusoidal certified rows shared) gives what pc_accuracy_run
 * gives for each layout alone, bit for bit (every count, maximum, exact
 * sum and witness; not the seconds), with 1 and 2 threads: correct and
 * failing built-ins, one that declines a layout (a skip), RoPE (rows with
 * an input, not shared), a shard.  TAP, plan at the end. */
#include <stdio.h>
#include <string.h>
#include <mpfr.h>
#include "harness/engine/accuracy.h"
#include "harness/cli/opts.h"

static int n_tests, n_fail;

static void ok(int cond, const char *what, const char *impl, int threads)
{
    n_tests++;
    if (!cond) n_fail++;
    printf("%s %d - %s: %s, %d thread%s\n", cond ? "ok" : "not ok", n_tests, impl, what, threads,
           threads > 1 ? "s" : "");
}

static int same_d(double a, double b) { return !memcmp(&a, &b, sizeof a); }

static int same_w(const pc_witness *a, const pc_witness *b)
{
    return a->valid == b->valid && a->pos == b->pos && a->dim == b->dim
        && !memcmp(&a->got, &b->got, sizeof a->got) && !memcmp(&a->ref32, &b->ref32, sizeof a->ref32)
        && same_d(a->ref, b->ref) && same_d(a->err, b->err) && same_d(a->ulp, b->ulp)
        && same_d(a->bound, b->bound) && same_d(a->theta, b->theta) && a->has_split == b->has_split
        && same_d(a->angle_err, b->angle_err) && same_d(a->norm_err, b->norm_err)
        && same_d(a->angle_part, b->angle_part) && same_d(a->eval_part, b->eval_part);
}

static int same_res(const pc_acc_result *a, const pc_acc_result *b)
{
    const pc_metrics *x = &a->m, *y = &b->m;
    return a->status == b->status && !strcmp(a->note, b->note) && same_d(a->C, b->C)
        && same_d(a->u, b->u) && a->impl_rc == b->impl_rc && a->impl_rc_lo == b->impl_rc_lo
        && a->impl_rc_hi == b->impl_rc_hi && a->faulted == b->faulted
        && x->count == y->count && x->n_over == y->n_over && x->n_exact == y->n_exact
        && x->n_nonfinite == y->n_nonfinite && same_d(x->max_abs, y->max_abs)
        && same_d(x->max_ulp, y->max_ulp) && same_d(x->max_ratio, y->max_ratio)
        && same_d(x->sum_sq_err, y->sum_sq_err) && same_d(x->sum_sq_ref, y->sum_sq_ref)
        && same_w(&x->worst, &y->worst) && same_w(&x->worst_abs, &y->worst_abs)
        && same_w(&x->first_over, &y->first_over);
}

/* A RoPE implementation of both layouts: rope-polar's interleaved rows,
 * rope-half's half ones (rows with an input, both layouts run). */
static int both_rope(void *ctx, const int64_t *pos, size_t n, int d, double base, int layout,
                     const float *x, float *out)
{
    (void)ctx;
    const pc_impl *b = pc_builtin_find(layout == 0 ? "rope-polar" : "rope-half");
    return b->rope(b->ctx, pos, n, d, base, layout, x, out);
}
static pc_impl rope_both = { .name = "rope-both", .family_hint = "rope", .rope = both_rope };

static void one(const char *name, const char *family, int d, int64_t hi, int threads, int shard)
{
    const pc_impl *impl = strcmp(name, "rope-both") ? pc_builtin_find(name) : &rope_both;
    pc_acc_cfg cfg[2];
    pc_acc_result alone[2], both[2];
    pc_err err = { "" };
    for (int l = 0; l < 2; l++) {
        memset(&cfg[l], 0, sizeof cfg[l]);
        cfg[l].family = family;
        cfg[l].d = d;
        cfg[l].base = 10000.0;
        cfg[l].layout = l;
        cfg[l].dtype = PC_DT_F32;
        cfg[l].pos_lo = 0;
        cfg[l].pos_hi = hi;
        cfg[l].seed = 20260422;
        cfg[l].tol_abs = -1.0;
        cfg[l].quiet = 1;
        cfg[l].threads = threads;
        if (shard) { cfg[l].shard_k = 2; cfg[l].shard_n = 3; }
    }
    int ran = impl != NULL;
    for (int l = 0; l < 2 && ran; l++)
        ran = pc_accuracy_run(impl, &cfg[l], &alone[l], &err) == PC_OK;
    ran = ran && pc_accuracy_run_layouts(impl, cfg, 2, both, &err) == PC_OK;
    char what[160];
    snprintf(what, sizeof what, "%s d=%d 0..%lld%s: one pass equals the layouts alone (%s, %s)",
             family, d, (long long)hi, shard ? " shard 2/3" : "",
             ran ? (alone[0].status == PC_OK ? "pass" : alone[0].status == PC_FAIL ? "fail" : "skip") : "-",
             ran ? (alone[1].status == PC_OK ? "pass" : alone[1].status == PC_FAIL ? "fail" : "skip") : "-");
    ok(ran && same_res(&alone[0], &both[0]) && same_res(&alone[1], &both[1]), what, name, threads);
}

int main(void)
{
    for (int t = 1; t <= 2; t++) {
        one("torch-exp", "sinusoidal", 64, 3000, t, 0);       /* pass, pass */
        one("plus-1e-4", "sinusoidal", 64, 3000, t, 0);       /* fail, fail */
        one("cos-shifted", "sinusoidal", 66, 2000, t, 0);     /* d/2 odd */
        one("rotate-recurrence", "sinusoidal", 32, 70000, t, 0); /* fails far out */
        one("torch-pow", "sinusoidal", 64, 5000, t, 1);       /* a shard */
        one("rope-half", "rope", 64, 2000, t, 0);             /* declines interleaved: skip, pass */
        one("rope-polar", "rope", 64, 2000, t, 0);            /* rows with an input */
        one("rope-both", "rope", 64, 2000, t, 0);             /* both layouts, not shared */
        one("rope-bf16-cache", "rope", 32, 3000, t, 0);       /* fail */
    }
    printf("1..%d\n", n_tests);
    mpfr_free_cache();
    return n_fail != 0;
}
