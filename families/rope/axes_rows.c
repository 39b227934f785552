/* axes_rows.c: rows of position ids for the RoPE properties (axes_rows.h). */
#include "axes_rows.h"
#include "families/spec_sched.h"

const pc_rope_axes *pc_rope_run_axes_made(const pc_prun *r)
{
    if (!r->freqs || !pc_freqs_mapped(r->freqs) || !r->sched || !r->sched->own) return NULL;
    return ((const pc_rope_params *)r->sched->own)->axes;
}

const pc_rope_axes *pc_rope_run_axes(pc_prun *r, int d)
{
    return pc_p_freqs(r, d, NULL) ? pc_rope_run_axes_made(r) : NULL;
}

int64_t pc_rope_axes_shift(const pc_rope_axes *a, int64_t row, int axis, int64_t s)
{
    if (row < 0 || row >= a->n || axis < 0 || axis >= a->n_axes || a->n_axes > PC_ROPE_AXES_MAX)
        return -1;
    int64_t want[PC_ROPE_AXES_MAX];
    for (int j = 0; j < a->n_axes; j++) want[j] = a->ids[row * a->n_axes + j] + (j == axis ? s : 0);
    int64_t lo = 0, hi = a->n; /* binary search of the sorted rows */
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (pc_rope_axes_cmp(a, a->ids + a->order[mid] * a->n_axes, want) < 0) lo = mid + 1;
        else hi = mid;
    }
    if (lo < a->n && pc_rope_axes_cmp(a, a->ids + a->order[lo] * a->n_axes, want) == 0)
        return a->order[lo];
    return -1;
}

int pc_rope_axes_shiftable(const pc_rope_axes *a, int64_t lo, int64_t hi, int64_t start,
                           int *axis, int64_t *m)
{
    int64_t span = hi - lo + 1;
    for (int64_t t = 0; t < span; t++) {
        int64_t row = lo + (start - lo + t) % span;
        for (int j = 0; j < a->n_axes; j++)
            if (pc_rope_axes_shift(a, row, j, 1) >= 0) { *axis = j; *m = row; return 1; }
    }
    return 0;
}
