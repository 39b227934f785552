/* identify.c: which T5 bucket parameters a table holds (pc_t5_diagnosis):
 * bidirectional or causal, num_buckets and max_distance.
 *
 * The table gives the bucket b(r) of every relative position r it holds
 * (its diagonals j - i must agree).  Causal buckets are 0 for every r > 0;
 * bidirectional ones start the other half at b(+1) = nb + 1 (nb =
 * num_buckets / 2).  For a per-side count nb (known from b(+1), else every
 * count from the largest bucket + 1 to where b(-n) = n stops), max_exact =
 * nb/2, span = nb - max_exact, and each distance n >= max_exact of the log
 * part bounds L = ln(max_distance / max_exact):
 *   b = max_exact + x, x < span - 1:  span ln(n/me)/(x+1) < L <= span ln(n/me)/x
 *                                     (and n < max_distance),
 *   b = nb - 1 (saturated):           L <= span ln(n/me)/(span - 1).
 * The integer max distances in the interval are candidates; HF's 128 when
 * it is one, else the smallest, is verified against every entry with the
 * exact reference (t5_ref.c).  A table that never leaves the exact part,
 * or never reaches saturation, leaves a range: reported.
 *
 * The queries start at the table's q0 (--pos-start); a table these do not
 * explain is tried as HF's decode slice, its queries the last ones of the
 * keys (position_bias[:, :, -nq:, :], the query of a decode step at
 * cache_position nk - 1): q0 = nk - nq, then from query 0.  With
 * no key after a query (such a slice), causal buckets of N and
 * bidirectional ones of 2N are the same table: HF's 32 is preferred, else
 * causal. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "t5.h"
#include "harness/io/json.h"
#include "t5_hf.h"

typedef struct t5_found {
    const pc_impl *impl;
    const pc_t5_table *t;
    int found;
    int bidir, num_buckets, max_distance;
    int nb_lo, nb_hi;             /* num_buckets that explain it (equal: one) */
    double md_lo, md_hi;          /* max_distance that explain it (md_hi inf: unbounded) */
    char note[300];
    int64_t q0;                   /* the position of the first query */
    int64_t lo;                   /* relative positions lo..hi held */
    int64_t hi;
    int32_t *b;                   /* b[r - lo] */
} t5_found;

/* The buckets of every diagonal into F->b; 0, or 1 with F->note saying why
 * the table is not buckets of j - i. */
static int diagonals(t5_found *f)
{
    pc_t5_table t0 = *f->t, *t = &t0;
    t0.q0 = f->q0;
    f->lo = -(f->q0 + (int64_t)t->nq - 1);
    f->hi = (int64_t)t->nk - 1 - f->q0;
    f->b = malloc((size_t)(f->hi - f->lo + 1) * sizeof *f->b);
    if (!f->b) { snprintf(f->note, sizeof f->note, "out of memory"); return 1; }
    for (int64_t r = f->lo; r <= f->hi; r++) {
        double v;
        pc_t5_table_bucket(t, r, &v);
        if (!(v >= 0 && v < PC_T5_BUCKETS_MAX && v == floor(v))) {
            snprintf(f->note, sizeof f->note, "relative position %lld holds %.17g, not a bucket",
                     (long long)r, v);
            return 1;
        }
        f->b[r - f->lo] = (int32_t)v;
    }
    for (size_t i = 0; i < t->nq; i++)
        for (size_t j = 0; j < t->nk; j++) {
            int64_t q = f->q0 + (int64_t)i, r = (int64_t)j - q;
            if (t->v[i * t->nk + j] != (double)f->b[r - f->lo]) {
                snprintf(f->note, sizeof f->note, "query %lld, key %zu holds %.17g but the same "
                         "j - i = %lld holds %d elsewhere: not buckets of j - i", (long long)q,
                         j, t->v[i * t->nk + j], (long long)r, f->b[r - f->lo]);
                return 1;
            }
        }
    return 0;
}

static int32_t bucket_at(const t5_found *f, int64_t r) { return f->b[r - f->lo]; }

/* The interval of L = ln(md/me) the side's buckets allow (SIGN -1: the
 * keys before the query, +1 after; OFF: the side's bucket offset): 0 when
 * empty. */
static int side_bounds(const t5_found *f, int sign, int off, int nb, double *llo, double *lhi)
{
    int me = nb / 2, span = nb - me;
    int64_t nmax = sign < 0 ? -f->lo : f->hi;
    for (int64_t n = sign < 0 ? 0 : 1; n <= nmax; n++) {
        int64_t x = (int64_t)bucket_at(f, sign * n) - off;
        if (n < me) { if (x != n) return 0; continue; }
        if (x < me || x > nb - 1) return 0;
        double ln = log((double)n / me);
        if (x == nb - 1) { /* saturated */
            if (span > 1) *lhi = fmin(*lhi, span * ln / (span - 1));
            continue;
        }
        double k = (double)(x - me);
        *llo = fmax(*llo, fmax(span * ln / (k + 1), log((double)(n + 1) / me) - 1e-12));
        if (k > 0) *lhi = fmin(*lhi, span * ln / k);
    }
    return 1;
}

/* Every entry equals the exact bucket under (BIDIR, NUM_BUCKETS, MD). */
static int verify(const t5_found *f, int bidir, int num_buckets, int md)
{
    if (pc_t5_check_params(bidir, num_buckets, md, NULL) != PC_OK) return 0;
    for (int64_t r = f->lo; r <= f->hi; r++) {
        int32_t e;
        if (pc_ref_t5_bucket(r, bidir, num_buckets, md, &e) != PC_OK || e != bucket_at(f, r))
            return 0;
    }
    return 1;
}

/* The max distance of (BIDIR, NB per side) that explains F (HF's 128 when
 * it does, else the smallest), with its range; 0 when none. */
static int find_md(t5_found *f, int bidir, int nb, int off, int *md, double *mlo, double *mhi)
{
    double llo = 0, lhi = (double)INFINITY;
    if (!side_bounds(f, -1, 0, nb, &llo, &lhi)) return 0;
    if (bidir && f->hi >= 1 && !side_bounds(f, +1, off, nb, &llo, &lhi)) return 0;
    int me = nb / 2;
    double a = me * exp(llo), z = isinf(lhi) ? (double)PC_T5_DIST_MAX : me * exp(lhi);
    if (z > PC_T5_DIST_MAX) z = PC_T5_DIST_MAX;
    int num = bidir ? 2 * nb : nb;
    int first = (int)fmax(floor(a * (1 - 1e-9)), me + 1.0), last = (int)ceil(z * (1 + 1e-9));
    if (PC_T5_HF_MAXDIST >= first && PC_T5_HF_MAXDIST <= last && verify(f, bidir, num, 128)) {
        *md = PC_T5_HF_MAXDIST;
    } else {
        *md = 0;
        for (int m = first; m <= last && m <= first + 8 && !*md; m++)
            if (verify(f, bidir, num, m)) *md = m;
        if (!*md) return 0;
    }
    *mlo = fmax(ceil(a * (1 - 1e-12)), me + 1.0);
    *mhi = isinf(lhi) ? (double)INFINITY : floor(z * (1 + 1e-12));
    return 1;
}

/* Try every per-side count of mode BIDIR; the HF default (32 buckets)
 * when it fits, else the smallest. */
static void try_mode(t5_found *f, int bidir)
{
    int32_t top = 0;
    for (int64_t r = f->lo; r <= 0; r++) top = bucket_at(f, r) > top ? bucket_at(f, r) : top;
    int known = bidir && f->hi >= 1, nb_first, nb_last;
    if (known) nb_first = nb_last = bucket_at(f, 1) - 1;
    else {
        int64_t fd = 0; /* the first n with b(-n) != n */
        while (fd <= -f->lo && bucket_at(f, -fd) == fd) fd++;
        nb_first = top + 1 > 2 ? top + 1 : 2;
        nb_last = (int)(2 * fd + 1 < PC_T5_BUCKETS_MAX / 2 ? 2 * fd + 1 : PC_T5_BUCKETS_MAX / 2);
    }
    int off = known ? nb_first : 0;
    for (int nb = nb_first; nb <= nb_last; nb++) {
        int md;
        double mlo, mhi;
        if (nb < 2 || !find_md(f, bidir, nb, off, &md, &mlo, &mhi)) continue;
        int num = bidir ? 2 * nb : nb;
        if (!f->found) f->nb_lo = num;
        f->nb_hi = num;
        if (!f->found || num == PC_T5_HF_BUCKETS) {
            f->found = 1;
            f->bidir = bidir;
            f->num_buckets = num;
            f->max_distance = md;
            f->md_lo = mlo;
            f->md_hi = mhi;
        }
    }
}

/* No key after a query: causal N and bidirectional 2N give the same
 * table; HF's count decides, else causal (a decoder's table). */
static void one_sided(t5_found *f)
{
    try_mode(f, 0);
    if (f->found && f->num_buckets == PC_T5_HF_BUCKETS) return;
    t5_found causal = *f;
    f->found = 0;
    try_mode(f, 1);
    if (f->found && f->num_buckets == PC_T5_HF_BUCKETS) return;
    *f = causal; /* the same F->b */
}

/* The parameters of F's table with its first query at F->q0. */
static void identify_at(t5_found *f)
{
    f->found = 0;
    free(f->b);
    f->b = NULL;
    f->lo = -(f->q0 + (int64_t)f->t->nq - 1);
    f->hi = (int64_t)f->t->nk - 1 - f->q0;
    if (f->hi < 0) { /* the search starts from relative position 0 */
        snprintf(f->note, sizeof f->note, "its queries (from position %lld) come after every "
                 "key (0..%zu): no relative position 0 to start from", (long long)f->q0,
                 f->t->nk - 1);
        return;
    }
    if (diagonals(f)) return;
    int positive = 0;
    for (int64_t r = 1; r <= f->hi; r++) positive |= bucket_at(f, r) != 0;
    if (f->hi < 1) one_sided(f);
    else if (positive) try_mode(f, 1);
    if (!f->found && f->hi >= 1) try_mode(f, 0);
    if (!f->found) snprintf(f->note, sizeof f->note, "no bidirectional or causal parameters "
                            "(num_buckets, max_distance) give every entry");
}

static void identify_table(t5_found *f)
{
    /* the table's own first query, then HF's decode slice (the last
     * queries of the keys), then query 0: the first that explains it */
    int64_t tries[3] = { f->t->q0, (int64_t)f->t->nk - (int64_t)f->t->nq, 0 };
    char first[sizeof f->note] = "";
    for (int k = 0; k < 3; k++) {
        if (tries[k] < 0 || (k > 0 && tries[k] == f->t->q0) || (k == 2 && tries[1] == 0))
            continue;
        f->q0 = tries[k];
        identify_at(f);
        if (f->found) return;
        if (k == 0) memcpy(first, f->note, sizeof first);
    }
    f->q0 = f->t->q0; /* none: what the table's own reading says */
    identify_at(f);
    memcpy(f->note, first, sizeof first);
}

static pc_status run(const pc_impl *impl, const pc_spec *spec, int64_t lo, int64_t hi,
                     void **found, pc_err *err)
{
    (void)spec; (void)lo; (void)hi;
    t5_found *f = calloc(1, sizeof *f);
    *found = f;
    if (!f) return pc_seterr(err, PC_ENOMEM, "out of memory");
    f->impl = impl;
    f->t = pc_t5_table_of(impl);
    if (!f->t)
        return pc_seterr(err, PC_EINPUT, "%s: identify takes a T5 bucket table (--family t5 "
                         "--table B.npy)", impl->name);
    identify_table(f);
    return PC_OK;
}

static int explained(const void *found) { return ((const t5_found *)found)->found; }

static void range_text(const t5_found *f, char *buf, size_t len)
{
    if (isinf(f->md_hi)) snprintf(buf, len, "any max_distance >= %.0f gives the same table",
                                  f->md_lo);
    else if (f->md_hi > f->md_lo) snprintf(buf, len, "any max_distance in %.0f..%.0f gives the "
                                           "same table", f->md_lo, f->md_hi);
    else buf[0] = '\0';
}

/* F's queries are the last ones of the keys (HF's decode slice) */
static int decode_slice(const t5_found *f)
{
    return f->q0 != 0 && f->q0 == (int64_t)f->t->nk - (int64_t)f->t->nq;
}

static void print_text(FILE *out, const void *found)
{
    const t5_found *f = found;
    char range[120];
    fprintf(out, "%s  %s: T5 buckets, %zu queries x %zu keys (relative positions %lld..%lld)\n",
            f->found ? "FOUND" : "UNKNOWN", f->impl->name, f->t->nq, f->t->nk, (long long)f->lo,
            (long long)f->hi);
    if (f->q0)
        fprintf(out, "  queries: positions %lld..%lld%s\n", (long long)f->q0,
                (long long)f->q0 + (long long)f->t->nq - 1, f->t->q0 == f->q0 ? ""
                : decode_slice(f) ? " (HF's decode slice: the last queries of the keys)"
                : " (not the --pos-start given)");
    if (!f->found) { fprintf(out, "  %s\n", f->note); return; }
    fprintf(out, "  mode: %s\n  num_buckets: %d", f->bidir ? "bidirectional (the encoder's)"
            : "causal (bidirectional=False, the decoder's)", f->num_buckets);
    if (f->nb_hi > f->nb_lo) fprintf(out, " (any of %d..%d fits these distances)", f->nb_lo,
                                     f->nb_hi);
    range_text(f, range, sizeof range);
    fprintf(out, "\n  max_distance: %d%s%s%s\n", f->max_distance, range[0] ? " (" : "", range,
            range[0] ? ")" : "");
}

static void write_json(pc_json *j, const void *found)
{
    const t5_found *f = found;
    pc_json_str(j, "source", f->impl->name);
    pc_json_bool(j, "found", f->found);
    pc_json_int(j, "queries", (long long)f->t->nq);
    pc_json_int(j, "keys", (long long)f->t->nk);
    pc_json_int(j, "first_query", (long long)f->q0);
    if (!f->found) { pc_json_str(j, "note", f->note); return; }
    pc_json_bool(j, "bidirectional", f->bidir);
    pc_json_int(j, "num_buckets", f->num_buckets);
    pc_json_int(j, "max_distance", f->max_distance);
    pc_json_arr(j, "num_buckets_range");
    pc_json_int(j, NULL, f->nb_lo);
    pc_json_int(j, NULL, f->nb_hi);
    pc_json_end(j);
    pc_json_arr(j, "max_distance_range");
    pc_json_num(j, NULL, f->md_lo);
    pc_json_num(j, NULL, f->md_hi); /* null: unbounded */
    pc_json_end(j);
}

static void check_args(const void *found, pc_args *out)
{
    const t5_found *f = found;
    if (!f->found) return;
    pc_args_add(out, "--num-buckets");
    pc_args_add(out, "%d", f->num_buckets);
    pc_args_add(out, "--max-distance");
    pc_args_add(out, "%d", f->max_distance);
    if (!f->bidir) pc_args_add(out, "--causal");
    if (f->q0) {
        pc_args_add(out, "--pos-start");
        pc_args_add(out, "%lld", (long long)f->q0);
    }
}

static void ident_free(void *found)
{
    t5_found *f = found;
    if (f) free(f->b);
    free(f);
}

static const pc_identify_kind identify = {
    .run = run, .explained = explained, .text = print_text, .json = write_json,
    .check_args = check_args, .free = ident_free
};

const pc_diagnosis pc_t5_diagnosis = { .identify = &identify };

/* ---- mistakes people make, tried when no parameters explain a table ---- */

/* One mistake: HF's code (t5_hf.c) with FLAW, and the relative position's
 * sign swapped when SWAP; WHAT says it in the code's terms. */
typedef struct t5_mistake {
    pc_t5_flaw flaw;
    int swap;
    const char *what;
} t5_mistake;

static const t5_mistake mistakes[] = {
    { PC_T5_NO_CLAMP, 0, "the logarithmic bucket is not clamped: torch.min(relative_position_if_"
      "large, num_buckets - 1) is missing, so distances past max_distance get buckets beyond the "
      "last" },
    { PC_T5_ROUNDED, 0, "the logarithmic term is rounded to nearest (torch.round, int(x + 0.5)) "
      "before .to(torch.long), which truncates" },
    { PC_T5_NO_FLAW, 1, "the relative position's sign is swapped: query - key (context_position - "
      "memory_position) where T5 takes memory_position - context_position" },
    { PC_T5_MAX_EXACT_EARLY, 0, "max_exact is taken from num_buckets before the bidirectional "
      "halving (num_buckets // 2 of the whole count)" },
    { PC_T5_UNHALVED, 0, "num_buckets is not halved for the bidirectional split (num_buckets //= "
      "2 is missing)" },
};

/* Every entry of T is HF's bucket with mistake M under (BIDIR, NB, MD). */
static int mistake_fits(const pc_t5_table *t, const t5_mistake *m, int bidir, int nb, int md)
{
    for (size_t i = 0; i < t->nq; i++)
        for (size_t j = 0; j < t->nk; j++) {
            int64_t rel = (int64_t)j - (t->q0 + (int64_t)i);
            if (t->v[i * t->nk + j] != (double)pc_t5_hf_bucket(m->swap ? -rel : rel, bidir, nb, md,
                                                               m->flaw))
                return 0;
        }
    return 1;
}

/* The mistake that gives every entry of T under S's parameters (in S's
 * mode first, then the other), into BUF; 0 when none does. */
static int mistake_cause(const pc_t5_table *t, const pc_t5_spec *s, char *buf, size_t len)
{
    int mode = s->mode == 1 ? 0 : 1; /* bidirectional unless causal */
    for (int k = 0; k < 2; k++, mode = !mode)
        for (size_t m = 0; m < sizeof mistakes / sizeof mistakes[0]; m++) {
            if (!mode && (mistakes[m].flaw == PC_T5_UNHALVED
                          || mistakes[m].flaw == PC_T5_MAX_EXACT_EARLY))
                continue; /* the same as no flaw without the bidirectional split */
            if (!mistake_fits(t, &mistakes[m], mode, s->num_buckets, s->max_distance)) continue;
            snprintf(buf, len, "%s: every entry is HF's %s bucket (num_buckets %d, max_distance "
                     "%d) with that mistake%s", mistakes[m].what, mode ? "bidirectional"
                     : "causal", s->num_buckets, s->max_distance, k ? (mode ? "; and the check "
                     "used causal (drop --causal)" : "; and the check used bidirectional (a "
                     "decoder's table: pass --causal)") : "");
            return 1;
        }
    return 0;
}

void pc_t5_table_cause(const pc_t5_table *t, const pc_t5_spec *s, char *buf, size_t len)
{
    t5_found f;
    memset(&f, 0, sizeof f);
    f.t = t;
    identify_table(&f);
    buf[0] = '\0';
    if (!f.found) {
        if (!mistake_cause(t, s, buf, len)) snprintf(buf, len, "%s", f.note);
    } else {
        int used_bidir = s->mode != 1;
        size_t u = 0;
        char range[120];
        range_text(&f, range, sizeof range);
        u += (size_t)snprintf(buf + u, len - u, "this table matches %s buckets, num_buckets %d, "
                              "max_distance %d%s%s%s; the check used", f.bidir ? "bidirectional"
                              : "causal", f.num_buckets, f.max_distance, range[0] ? " (" : "",
                              range, range[0] ? ")" : "");
        const char *sep = " ";
        if (u < len && f.bidir != used_bidir && s->mode_config) /* the config's is_decoder */
            u += (size_t)snprintf(buf + u, len - u, "%s%s (is_decoder %s in --%s %.200s: the "
                                  "%s's config; give the %s's)", sep, used_bidir ?
                                  "bidirectional" : "causal", used_bidir ? "false" : "true",
                                  s->config_opt, s->config, used_bidir ? "encoder" : "decoder",
                                  used_bidir ? "decoder" : "encoder");
        else if (u < len && f.bidir != used_bidir)
            u += (size_t)snprintf(buf + u, len - u, "%s%s (%s)", sep, used_bidir ? "bidirectional"
                                  : "causal", f.bidir ? "drop --causal" : "pass --causal");
        if (f.bidir != used_bidir) sep = ", ";
        if (u < len && f.num_buckets != s->num_buckets) {
            u += (size_t)snprintf(buf + u, len - u, "%snum_buckets %d", sep, s->num_buckets);
            sep = ", ";
        }
        if (u < len && !(s->max_distance >= f.md_lo && s->max_distance <= f.md_hi)) {
            u += (size_t)snprintf(buf + u, len - u, "%smax_distance %d", sep, s->max_distance);
            sep = ", ";
        }
        if (u < len && f.q0 != t->q0)
            snprintf(buf + u, len - u, "%squeries from position %lld (its rows are queries %lld.."
                     "%lld%s: pass --pos-start %lld)", sep, (long long)t->q0, (long long)f.q0,
                     (long long)f.q0 + (long long)t->nq - 1,
                     decode_slice(&f) ? ", HF's decode slice" : "", (long long)f.q0);
    }
    free(f.b);
}
