/* slice_cause.c: a table one rotary pair short of its columns, checked
 * before the gate (pc_rope_slice_check, fit.h).
 *
 * A repeat_interleave'd cache (Cohere, GPT-J: columns 2i and 2i + 1 both
 * pair i) of the rotary dim d cut to d/2 columns with [..., :d/2] (right
 * for cat(freqs, freqs), wrong here) keeps pairs 0..d/4-1 twice each: its
 * columns repeat in adjacent pairs, so it reads as an interleaved cache of
 * d/2, and the config's rotary dim d refuses it.  The one-column-a-pair
 * (n, d/2) cache is cache[..., ::2].  Said when the columns show it and
 * the values confirm it: column 2j holds pair j of the d-dim schedule. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "fit.h"
#include "options.h"
#include "scaling.h"
#include "harness/engine/gate.h"
#include "harness/sources/table.h"
#include "reference/reference.h"

#define SLICE_ROWS 256    /* rows compared: enough positions to turn every pair */
#define SLICE_SHARE 0.9   /* the share of values the d-dim pairs must reproduce */
/* float32 values of a float32 cache: well above a binary32 kernel's error
 * at these rows (a few 2^-24 |theta|), far below a wrong frequency's */
#define SLICE_TOL 1e-4

/* The share of the first rows of IMPL (d2 = D/2 columns read as
 * interleaved pairs) that pair j of W, the rotary schedule's frequencies,
 * with its attention factor ATT reproduces: -1 when the rows cannot be
 * read. */
static double slice_share(const pc_impl *impl, int d2, double base, int64_t lo, size_t m,
                          const double *w, double att)
{
    int h = d2 / 2;
    double *c = malloc(m * (size_t)h * sizeof *c), *s = malloc(m * (size_t)h * sizeof *s);
    double sh = -1;
    if (c && s && pc_rope_unit_rows(impl, d2, base, 0, lo, m, c, s) == 0) {
        size_t ok = 0;
        for (size_t r = 0; r < m; r++)
            for (int j = 0; j < h; j++) {
                double t = (double)(lo + (int64_t)r) * w[j];
                size_t at = r * (size_t)h + (size_t)j;
                ok += hypot(c[at] - att * cos(t), s[at] - att * sin(t))
                      <= SLICE_TOL * (1.0 + fabs(t) * 0x1p-10);
            }
        sh = (double)ok / (double)(m * (size_t)h);
    }
    free(c); free(s);
    return sh;
}

pc_status pc_rope_slice_check(pc_gate *g, const pc_impl *impl)
{
    const pc_table_info *t = pc_table_info_of(impl);
    const pc_rope_spec *s = pc_rope_spec_of(g->spec);
    if (!t || !s || !t->full_width || t->layout != 0 || g->spec->layout >= 0 || g->spec->d_set
        || s->rotary_dim != 2 * t->d || t->d < 4)
        return PC_OK;
    int d = s->rotary_dim, h = d / 2;
    pc_rope_params p;
    pc_err e;
    if (pc_rope_instantiate(s, d, (double)t->pos_hi + 1.0, &p, &e) != PC_OK) return PC_OK;
    pc_freqs *fr = pc_freqs_new(d, pc_rope_schedule(&p));
    double *w = malloc(((size_t)h + 1) * sizeof *w), sh = -1;
    if (fr && w) {
        for (int i = 0; i < h; i++) w[i] = pc_freqs_omega(fr, i);
        w[h] = pc_freqs_attention(fr);
        int64_t rows = t->pos_hi - t->pos_lo + 1;
        sh = slice_share(impl, t->d, p.base, t->pos_lo, rows < SLICE_ROWS ? (size_t)rows : SLICE_ROWS, w,
                         w[h]);
    }
    free(w);
    pc_freqs_free(fr);
    pc_rope_params_free(&p);
    if (!(sh >= SLICE_SHARE)) return PC_OK; /* the rotary-dim message follows, as before */
    return pc_seterr(g->err, PC_EINPUT, "%s: the rotary dim is %d but the cache has %d columns, "
                     "each value twice in adjacent columns (2i, 2i+1), and they hold pairs 0..%d of "
                     "the %d-dim schedule (%.1f%% of the values of %d rows): an interleaved "
                     "(repeat_interleave) cache of %d columns cut with [..., :%d], which keeps half "
                     "the pairs twice each; its one-column-a-pair (n, %d) form is cache[..., ::2]",
                     t->path, d, t->d, t->d / 2 - 1, d, 100.0 * sh,
                     (int)(t->pos_hi - t->pos_lo + 1 < SLICE_ROWS ? t->pos_hi - t->pos_lo + 1 : SLICE_ROWS),
                     d, t->d, h);
}
