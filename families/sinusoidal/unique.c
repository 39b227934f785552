/* unique: every position in the range gets a distinct encoding (RoPE: a
 * distinct rotation).
 *
 * Two parts: (1) no exact collision: rows of distinct positions are never
 * bit-identical (cases p, q = p + k, then a sweep of the whole range by row
 * hashes); (2) a distinguishability margin: the distance between the rows
 * of p and q exceeds the sum of their error radii, so the rows stay distinct
 * whatever errors within the precision model do.  A RoPE source's row is
 * its rotation of the vector with (1, 0) in every pair: A (cos, sin) of
 * every pair's angle, the rotation itself. */
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "properties/property.h"
#include "harness/engine/accuracy.h"
#include "harness/sandbox/hook.h"
#include "harness/sandbox/call.h"
#include "harness/engine/rowdigest.h"

enum { SUB_COLLISION = 1, SUB_MARGIN = 2 };

#define SWEEP_MAX PC_DIGEST_MAX     /* rows hashed by the sweep: 2^21 x 16 B = 32 MiB */
#define SWEEP_BLOCK 256              /* rows per hook call in the sweep */
#define SWEEP_THREADS_MAX 64         /* threads of the sweep, at most (a few cores suffice) */

static int is_learned(const pc_prun *r) { return pc_p_bounded(r); }

static pc_status setup(pc_prun *r, pc_outcome *oc)
{
    /* position ids of several axes (M-RoPE, axial): a row's pairs follow
     * different positions, and rows with the same ids rightly share a
     * rotation; distinct positions are distinct tuples, not rows */
    pc_freqs *f = pc_p_rotates(r) && pc_spec_scheduled(r->params->spec)
                      ? pc_p_freqs(r, r->params->d, NULL) : NULL;
    if (f && pc_freqs_mapped(f)) {
        snprintf(oc->msg, sizeof oc->msg, "positions with several axes: unique follows one "
                 "position a row (the rows are checked element by element)");
        return PC_SKIP;
    }
    if (is_learned(r)) {
        if (r->lo < 0) r->lo = 0;
        if (r->hi > r->max_len - 1) r->hi = r->max_len - 1;
    }
    return pc_p_need_two(r, oc);
}


/* The vectors RoPE rows rotate: (1, 0) in every pair of LAYOUT, N rows. */
static float *unit_rows(int layout, size_t n, int d)
{
    float *x = calloc(n * (size_t)d, sizeof *x);
    for (size_t t = 0; x && t < n; t++)
        for (int i = 0; i < d / 2; i++) x[t * (size_t)d + pc_p_col(layout, d, i, 0)] = 1.0f;
    return x;
}

/* A RoPE source's rows: its rotations of unit_rows. */
static int rope_rows(pc_prun *r, const int64_t *pos, size_t n, int d, float *out)
{
    float *x = unit_rows(r->layout, n, d);
    if (!x) { snprintf(r->implmsg, sizeof r->implmsg, "out of memory"); return -1; }
    int rc = pc_p_rope(r, pos, n, d, x, out);
    free(x);
    return rc;
}

static int rows(pc_prun *r, const int64_t *pos, size_t n, int d, float *out)
{
    if (pc_p_rotates(r)) return rope_rows(r, pos, n, d, out);
    return is_learned(r) ? pc_p_learned(r, pos, n, d, out) : pc_p_sinusoidal(r, pos, n, d, out);
}

/* The rows' scale: RoPE's attention factor A (its rows are A (cos, sin)),
 * else 1. */
static double row_scale(pc_prun *r, int d)
{
    return pc_p_rotates(r) ? pc_p_att_factor(r, d) : 1.0;
}

/* error radius of one row: sqrt(sum of squared per-element bounds) */
static double radius(pc_prun *r, int64_t p, int d)
{
    if (is_learned(r)) return 0.0; /* a table is compared with itself: no model */
    double s = 0, a = row_scale(r, d);
    for (int i = 0; i < d / 2; i++) {
        double b = pc_p_bound(r, (double)p * pc_p_omega(r, d, i), a);
        s += 2.0 * b * b;
    }
    return sqrt(s);
}

/* |PE(p) - PE(p+k)| of the exact encoding: sum over pairs of 4 A^2 sin^2(k w/2) */
static double exact_distance(pc_prun *r, int64_t k, int d)
{
    double s = 0, a = row_scale(r, d);
    for (int i = 0; i < d / 2; i++) {
        double h = a * sin(0.5 * (double)k * pc_p_omega(r, d, i));
        s += 4.0 * h * h;
    }
    return sqrt(s);
}

static pc_status check(pc_prun *r, const pc_case *c, pc_outcome *oc, pc_err *err)
{
    int d = c->d;
    float *row = malloc(2 * (size_t)d * sizeof *row);
    if (!row) return pc_p_nomem(err);
    int64_t pos[2] = { c->pos[0], c->pos[0] + c->k };
    memset(oc, 0, sizeof *oc);
    oc->pair = -1;
    if (rows(r, pos, 2, d, row)) { pc_p_implerr(r, oc); free(row); return PC_OK; }
    double s = 0;
    for (int j = 0; j < d; j++) {
        double e = (double)row[j] - (double)row[d + j];
        s += e * e;
    }
    double dist = sqrt(s);
    double rad = radius(r, pos[0], d) + radius(r, pos[1], d);
    oc->measured = dist;
    oc->bound = rad;
    oc->above = 1;
    oc->score = dist > 0 ? rad / dist : (double)INFINITY;
    if (!memcmp(row, row + d, (size_t)d * sizeof *row)) {
        oc->kind = PC_O_FAIL;
        oc->sub = SUB_COLLISION;
        snprintf(oc->where, sizeof oc->where, "positions %" PRId64 " and %" PRId64
                 ": bit-identical rows", pos[0], pos[1]);
        snprintf(oc->eq, sizeof oc->eq, "PE(%" PRId64 ") = PE(%" PRId64 ") bit for bit, but %" PRId64
                 " != %" PRId64, pos[0], pos[1], pos[0], pos[1]);
    } else if (!is_learned(r) && dist <= rad && exact_distance(r, c->k, d) > 2.0 * rad) {
        oc->kind = PC_O_FAIL;
        oc->sub = SUB_MARGIN;
        snprintf(oc->where, sizeof oc->where, "positions %" PRId64 " and %" PRId64
                 ": rows closer than their error radii (exact distance %.3g)",
                 pos[0], pos[1], exact_distance(r, c->k, d));
        snprintf(oc->eq, sizeof oc->eq, "|PE(%" PRId64 ") - PE(%" PRId64 ")| = %.9g, but the rows' "
                 "error radii r(p) + r(q) = %.9g", pos[0], pos[1], dist, rad);
    } else {
        snprintf(oc->where, sizeof oc->where, "positions %" PRId64 " and %" PRId64, pos[0], pos[1]);
    }
    free(row);
    return PC_OK;
}

static void show(pc_prun *r, const pc_case *c, const pc_outcome *oc, FILE *f)
{
    (void)oc;
    int d = c->d;
    float *row = malloc(2 * (size_t)d * sizeof *row);
    int64_t pos[2] = { c->pos[0], c->pos[0] + c->k };
    if (!row || rows(r, pos, 2, d, row)) { free(row); return; }
    for (int t = 0; t < 2; t++) {
        fprintf(f, "      PE(%" PRId64 ") = ", pos[t]);
        pc_p_row(f, row + (size_t)t * (size_t)d, d, 4);
        fputc('\n', f);
    }
    for (int j = 0; j < d && j < 2; j++) {
        fprintf(f, "      column %d: ", j);
        pc_p_float(f, (double)row[j]);
        fprintf(f, " vs ");
        pc_p_float(f, (double)row[d + j]);
        fputc('\n', f);
    }
    free(row);
}

/* X rounded to BITS significand bits, nearest-even (as a cast to that format) */
static double round_bits(double x, int bits)
{
    if (x == 0) return 0;
    int e;
    frexp(x, &e); /* x = m 2^e, m in [0.5, 1) */
    double q = ldexp(1.0, e - bits);
    return rint(x / q) * q;
}

/* Whether the rows of positions A and B are bit-identical: 1, 0, or -1
 * when either is outside the range or the rows cannot be computed. */
static int same_rows(pc_prun *r, int d, int64_t a, int64_t b)
{
    if (a < r->lo || b < r->lo || a > r->hi || b > r->hi) return -1;
    int64_t pos[2] = { a, b };
    float *out = malloc(2 * (size_t)d * sizeof *out);
    int rc = out && rows(r, pos, 2, d, out) == 0
             ? !memcmp(out, out + d, (size_t)d * sizeof *out) : -1;
    free(out);
    return rc;
}

/* Whether the rows allow "the position is held in a type of BITS
 * significand bits": the first two positions it merges, 2^BITS and
 * 2^BITS + 1, share a row, and the two below, which it holds exactly, do
 * not (each where the range has them). */
static int grid_holds(pc_prun *r, int d, int bits)
{
    int64_t t = (int64_t)1 << bits;
    return same_rows(r, d, t, t + 1) != 0 && same_rows(r, d, t - 2, t - 1) != 1;
}

/* Whether the rows allow "the encoding repeats every P positions" from
 * the collision at P0: the rows a few positions either side of it repeat
 * too (a period holds at every position; a clamp or a staircase does not). */
static int period_holds(pc_prun *r, int d, int64_t p0, int64_t P)
{
    for (int64_t j = -3; j <= 16; j++)
        if (j && same_rows(r, d, p0 + j, p0 + j + P) == 0) return 0;
    return 1;
}

static const char *cause(pc_prun *r, const pc_case *c, const pc_outcome *oc, char *buf, size_t len)
{
    if (oc->sub != SUB_COLLISION) return NULL;
    if (is_learned(r)) return "two rows of the table are identical (a duplicated row or a clamped index)";
    double p = (double)c->pos[0], q = (double)(c->pos[0] + c->k);
    /* the finest format in which the two positions are one number (a
     * coarser one would have merged other positions first), each claim
     * checked on other rows before it is said */
    if ((double)(float)p == (double)(float)q && grid_holds(r, c->d, 24))
        snprintf(buf, len, "positions %.0f and %.0f are the same binary32 number (above 2^24 float32 "
                 "holds even integers only): the position is held in float32 (position_ids.float()) "
                 "before the angle is computed", p, q);
    else if (round_bits(p, 11) == round_bits(q, 11) && grid_holds(r, c->d, 11))
        snprintf(buf, len, "positions %.0f and %.0f both round to %.0f in float16 (11 significand "
                 "bits)%s: the position is held in float16", p, q, round_bits(p, 11),
                 p == 2048 ? "" : ", and the first two it merges, 2048 and 2049, share a row too");
    else if (round_bits(p, 8) == round_bits(q, 8) && grid_holds(r, c->d, 8))
        snprintf(buf, len, "positions %.0f and %.0f both round to %.0f in bfloat16 (8 significand "
                 "bits)%s: the position is held in bfloat16 before the angle pos*omega is computed",
                 p, q, round_bits(p, 8),
                 p == 256 ? "" : ", and the first two it merges, 256 and 257, share a row too");
    else if (period_holds(r, c->d, c->pos[0], c->k))
        /* no format holds them as one number: the rows repeat, with period q - p */
        snprintf(buf, len, "positions %.0f and %.0f are not rounded to one number by float32, float16 "
                 "or bfloat16: the encoding repeats every %.0f positions (the position "
                 "taken modulo %.0f, such as a rolling cache's slot used as the position)", p, q,
                 q - p, q - p);
    else
        snprintf(buf, len, "positions %.0f and %.0f have bit-identical rows, but neither a rounding "
                 "of the positions (float32, float16, bfloat16: the positions each merges elsewhere "
                 "keep distinct rows, or the reverse) nor a period %.0f (the rows around them do not "
                 "repeat with it) reproduces the rows: positions that stop or step (a clamped "
                 "index, an integer division of the position)", p, q, q - p);
    return buf;
}

/* sort key: row hash, then position */
typedef struct { uint64_t h; int64_t p; } hrow;

static int hrow_cmp(const void *a, const void *b)
{
    const hrow *x = a, *y = b;
    if (x->h != y->h) return x->h < y->h ? -1 : 1;
    return x->p < y->p ? -1 : x->p > y->p;
}

/* One part of the sweep: the hashes of rows [S0, S1) (offsets from r->lo,
 * multiples of SWEEP_BLOCK apart).  A built-in's: one thread's share, the
 * hook called without pc_prun's bookkeeping (not shared between threads).
 * A plugin's: one host's share (host.h), its calls in position order
 * through OWN, a pc_prun of its own whose implementation calls that host,
 * so that the calls each host gets do not depend on the threads. */
typedef struct sweep_part {
    pc_prun *r;
    int d;
    hrow *hs;
    int64_t s0, s1;
    int64_t failed;           /* offset of the block whose call failed; -1: none */
    int tracked;              /* calls through pc_prun R (a plugin's) */
    int nomem;
    pthread_t tid;
    pc_prun own;              /* a plugin's part: R is &OWN ... */
    pc_impl via;              /* ... calling its host */
} sweep_part;

static int rows_raw(const pc_prun *r, const int64_t *pos, size_t n, int d, float *out)
{
    pc_fault fault;
    if (pc_p_rotates(r)) {
        float *x = unit_rows(r->layout, n, d);
        if (!x) return 1;
        int rc = pc_call_rope(r->impl, &fault, pos, n, d, r->params->base, r->layout, x, out);
        free(x);
        return rc != 0 || fault.faulted;
    }
    int rc = is_learned(r) ? pc_call_learned(r->impl, &fault, pos, n, d, out)
                           : pc_call_sinusoidal(r->impl, &fault, pos, n, d, r->params->base,
                                                r->layout, out);
    return rc != 0 || fault.faulted;
}

static void *sweep_part_run(void *arg)
{
    sweep_part *p = arg;
    int d = p->d;
    float *blk = malloc((size_t)SWEEP_BLOCK * (size_t)d * sizeof *blk);
    int64_t *pos = malloc(SWEEP_BLOCK * sizeof *pos);
    p->nomem = !blk || !pos;
    for (int64_t s = p->s0; !p->nomem && s < p->s1; s += SWEEP_BLOCK) {
        size_t m = (size_t)(p->s1 - s < SWEEP_BLOCK ? p->s1 - s : SWEEP_BLOCK);
        for (size_t t = 0; t < m; t++) pos[t] = p->r->lo + s + (int64_t)t;
        if (p->tracked ? rows(p->r, pos, m, d, blk) : rows_raw(p->r, pos, m, d, blk)) {
            p->failed = s;
            break;
        }
        for (size_t t = 0; t < m; t++) {
            p->hs[s + (int64_t)t].h = pc_row_hash(blk + t * (size_t)d, d);
            p->hs[s + (int64_t)t].p = pos[t];
        }
    }
    free(blk); free(pos);
    return NULL;
}

/* Threads of the sweep (--threads, every core by default) to *NT, and its
 * parts: one a thread for a built-in, one a host for a plugin (host.h;
 * fewer threads than hosts: some threads run several parts). */
static int sweep_parts(const pc_prun *r, int64_t n, int *nt)
{
    int64_t nblk = (n + SWEEP_BLOCK - 1) / SWEEP_BLOCK;
    int t = r->params->threads > 0 ? r->params->threads : pc_cores();
    int np = r->impl->host ? pc_impl_hosts(r->impl) : t;
    if (np > SWEEP_THREADS_MAX) np = SWEEP_THREADS_MAX;
    if (np > nblk) np = (int)nblk;
    *nt = t < np ? t : np;
    return np;
}

/* Part K of NP over N rows; a plugin's calls host K through its own
 * pc_prun (one part: R itself, as before the pool). */
static void part_init(sweep_part *p, pc_prun *r, int d, hrow *hs, int64_t n, int k, int np)
{
    int64_t nblk = (n + SWEEP_BLOCK - 1) / SWEEP_BLOCK;
    memset(p, 0, sizeof *p);
    p->r = r;
    p->d = d;
    p->hs = hs;
    p->s0 = nblk * k / np * SWEEP_BLOCK;
    p->s1 = k + 1 == np ? n : nblk * (k + 1) / np * SWEEP_BLOCK;
    p->failed = -1;
    if (!r->impl->host && np > 1) return; /* a built-in's share of several */
    p->tracked = 1;
    if (np == 1) return;
    p->own = *r;
    p->own.calls = 0;
    pc_impl_on_host(r->impl, k, &p->via);
    p->own.impl = &p->via;
    p->r = &p->own;
}

/* A plugin's part P is over: its calls counted in R; FAILED: its failure,
 * the first in position order, left in R as one thread would leave it. */
static void part_end(pc_prun *r, const sweep_part *p, int failed)
{
    if (p->r == r) return;
    if (!failed) {
        r->calls += p->own.calls;
        return;
    }
    r->faulted = p->own.faulted;
    memcpy(r->implmsg, p->own.implmsg, sizeof r->implmsg);
}

/* Every row's hash into HS[0..N): parts of whole blocks (sweep_parts), the
 * first in this thread.  A part's failed call ends it; the first in
 * position order is called again through pc_prun (its message and fault,
 * as one thread would have left them; a plugin's part: its own record, no
 * call) and *FAILED is set to its block's offset (-1: no call failed). */
static pc_status hash_rows(pc_prun *r, int d, int64_t n, hrow *hs, int64_t *failed, pc_err *err)
{
    sweep_part part[SWEEP_THREADS_MAX];
    int nt, np = sweep_parts(r, n, &nt), started = 1;
    for (int t = 0; t < np; t++) part_init(&part[t], r, d, hs, n, t, np);
    for (int t = 1; t < nt && pthread_create(&part[t].tid, NULL, sweep_part_run, &part[t]) == 0; t++)
        started++;
    for (int t = started; t < np; t++) sweep_part_run(&part[t]); /* threads that did not start */
    sweep_part_run(&part[0]);
    for (int t = 1; t < started; t++) pthread_join(part[t].tid, NULL);
    *failed = -1;
    for (int t = 0; t < np; t++) part_end(r, &part[t], 0);
    for (int t = 0; t < np; t++) {
        if (part[t].nomem) return pc_p_nomem(err);
        if (part[t].failed < 0) continue;
        *failed = part[t].failed;
        if (part[t].tracked) { part_end(r, &part[t], 1); return PC_OK; }
        int64_t pos[SWEEP_BLOCK];
        int64_t s = part[t].failed, m = n - s < SWEEP_BLOCK ? n - s : SWEEP_BLOCK;
        float *blk = malloc((size_t)SWEEP_BLOCK * (size_t)d * sizeof *blk);
        if (!blk) return pc_p_nomem(err);
        for (int64_t k = 0; k < m; k++) pos[k] = r->lo + s + k;
        if (rows(r, pos, (size_t)m, d, blk) == 0) /* a built-in that failed once only */
            snprintf(r->implmsg, sizeof r->implmsg, "the sweep's call for positions %" PRId64
                     "..%" PRId64 " failed once, not when repeated", pos[0], pos[m - 1]);
        free(blk);
        return PC_OK;
    }
    return PC_OK;
}

/* The sweep's call for positions P .. P + K failed: C names them, *FOUND
 * says so (R->implmsg: the call's fault or return value). */
static void sweep_failed(pc_case *c, int64_t p, int64_t k, int *found)
{
    c->npos = 1;
    c->pos[0] = p;
    c->k = k;
    *found = PC_SWEEP_IMPLERR;
}

/* Exact collisions over the whole range: hash every row (or take the
 * hashes of the same rows the accuracy gate got, harness/engine/rowdigest.h),
 * sort, compare rows with equal hashes bit for bit; the collision with the
 * smallest distance (then smallest position) becomes the case.  A call that fails (crashes,
 * hangs, returns nonzero) is the verdict instead: *FOUND = PC_SWEEP_IMPLERR,
 * C the call's first position and K its span (README: a kernel that
 * crashes, hangs or fails fails). */
static pc_status sweep(pc_prun *r, pc_case *c, int *found, pc_err *err)
{
    *found = 0;
    int64_t n = r->hi - r->lo + 1;
    if (n > SWEEP_MAX) return PC_OK;
    int d = c->d;
    int64_t failed = -1;
    hrow *hs = malloc((size_t)n * sizeof *hs);
    if (!hs) return pc_p_nomem(err);
    pc_status st = PC_OK;
    const uint64_t *gate = pc_row_digest_of(r->params->digest, r->impl, r->family, d,
                                            r->params->base, r->layout, r->lo, r->hi);
    if (gate) /* the rows the accuracy gate got, hashed there (rowdigest.h) */
        for (int64_t t = 0; t < n; t++) { hs[t].h = gate[t]; hs[t].p = r->lo + t; }
    else
        st = hash_rows(r, d, n, hs, &failed, err);
    if (st == PC_OK && failed >= 0) {
        int64_t m = n - failed < SWEEP_BLOCK ? n - failed : SWEEP_BLOCK;
        sweep_failed(c, r->lo + failed, m - 1, found);
    }
    if (st != PC_OK || failed >= 0) { free(hs); return st; }
    qsort(hs, (size_t)n, sizeof *hs, hrow_cmp);
    int64_t bp = -1, bk = 0;
    float *two = malloc(2 * (size_t)d * sizeof *two);
    if (!two) { free(hs); return pc_p_nomem(err); }
    for (int64_t a = 0; a + 1 < n; a++) {
        if (hs[a].h != hs[a + 1].h) continue;
        int64_t pp[2] = { hs[a].p, hs[a + 1].p };
        if (rows(r, pp, 2, d, two)) {
            sweep_failed(c, pp[0], pp[1] - pp[0], found);
            free(two); free(hs);
            return PC_OK;
        }
        if (memcmp(two, two + d, (size_t)d * sizeof *two)) continue;
        int64_t k = pp[1] - pp[0];
        if (bp < 0 || k < bk || (k == bk && pp[0] < bp)) { bp = pp[0]; bk = k; }
    }
    if (bp >= 0) {
        c->npos = 1;
        c->pos[0] = bp;
        c->k = bk;
        *found = 1;
    }
    free(two); free(hs);
    return PC_OK;
}

const pc_property pc_prop_unique = {
    .name = "unique",
    .families = "sinusoidal learned rope",
    .title = "every position gets a distinct encoding",
    .measured_what = "row distance |PE(p) - PE(q)|",
    .expect = "PE(p) != PE(q) bit for bit for p != q, and |PE(p) - PE(q)| > r(p) + r(q), "
              "the rows' error radii",
    .pos_names = "p",
    .k_name = "k",
    .math =
        "For p != q in the range:  PE(p) != PE(q)  (no two positions share a row), and\n"
        "  |PE(p) - PE(q)|_2 > r(p) + r(q),   r(p) = sqrt(sum_j B_j(p)^2)\n"
        "For the exact encoding |PE(p) - PE(p+k)|^2 = sum_i 4 sin^2(k w_i / 2): it depends\n"
        "only on k, and for d = 128, base 10000 its minimum over 1 <= k <= 131072 is 1.95 (k = 1).\n"
        "RoPE: PE(p) is the rotation R_p of (1, 0) in every pair, A (cos p w_i, sin p w_i): distinct\n"
        "positions have distinct rotations, at the same distance times A.",
    .why =
        "sin and cos of p*w_i with geometrically spaced frequencies w_i = base^(-2i/d) pin the\n"
        "position down: the fastest pair (w_0 = 1) separates neighbours, the slow pairs separate\n"
        "positions far apart.  A row within r(p) of the exact row cannot be confused with\n"
        "another position's row when the rows are more than r(p) + r(q) apart.",
    .tolerance =
        "B_j(p) = C*u*(1+|p*w_i|) per element (harness/engine/model.h; C = 2 ln(base) + 4, u = 2^-24\n"
        "for f32), r(p) = sqrt(sum_j B_j(p)^2).  At d = 128, p = 131072: r = 0.50, so two rows\n"
        "need a distance above 0.99 (the exact encoding gives >= 1.95).  The margin is only\n"
        "required where the exact encoding itself exceeds 2 (r(p) + r(q)); exact collisions\n"
        "always fail; where the bound is vacuous (r(p) + r(q) at least half the exact distance, as\n"
        "at long context where B_j reaches its cap of 2) the summary says so.  Learned tables:\n"
        "exact collisions only (no error model).  RoPE: the bounds scale with A.",
    .margin_note = "the margin applies where the exact rows are more than twice it apart; "
                   "here they are closer, so only bit-identical rows fail",
    .concept_impl = "ring-slot",
    .concept_note = "the row of the cache slot pos mod 512: positions 0 and 512 get the same row",
    .precision_impl = "bf16-positions",
    .precision_note = "positions held in bfloat16: 257 rounds to 256, so their rows are identical",
    .shrink = PC_SH_D | PC_SH_POS | PC_SH_K,
    .k_min = 1,
    .setup = setup,
    .gen = pc_p_gen_pos_k,
    .check = check,
    .valid = pc_p_valid_pos_k,
    .show = show,
    .cause = cause,
    .sweep = sweep,
};
