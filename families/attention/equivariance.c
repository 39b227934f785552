/* equivariance: self-attention without positional encoding commutes with
 * permutations of its input rows: T(PX) = P T(X).  Without --causal the
 * property must hold (within the float32 bound of the attention reference,
 * families/attention/attention_ref.h); with --causal the mask must break it (an
 * implementation that stays equivariant ignores the causal flag). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "properties/property.h"
#include "attention_ref.h"
#include "gate.h"

#define N_MAX 6        /* rows per case: the property is about order, not length; the
                        * cost is O(n d^2) per case (1000 cases at d = 512 in seconds) */
#define CAUSAL_D_MAX 64 /* widths drawn for --causal cases (see gen) */
enum { SUB_NOT_EQUIVARIANT = 1, SUB_MASK_IGNORED = 2 };

static pc_status setup(pc_prun *r, pc_outcome *oc)
{
    if (r->params->d > PC_ATT_D_MAX) {
        snprintf(oc->msg, sizeof oc->msg, "d = %d is above the attention reference's limit %d",
                 r->params->d, PC_ATT_D_MAX);
        return PC_SKIP;
    }
    return PC_OK;
}

static void gen(pc_prun *r, pc_rng *g, pc_case *c)
{
    c->n = 2 + (int)pc_rng_below(g, N_MAX - 1);
    c->perm = 0;
    /* causal: the mask is about order, not width; at d <= CAUSAL_D_MAX the
     * normwise bound is tight enough to see it (at d = 512 it is ~2.8 for
     * outputs of size ~1, so a masked and an unmasked output both fit) */
    if (pc_attention_causal(r->params->spec) && c->d > CAUSAL_D_MAX)
        c->d = 2 + 2 * (int)pc_rng_below(g, CAUSAL_D_MAX / 2);
}

static int valid(const pc_prun *r, const pc_case *c)
{
    (void)r;
    return c->n >= 2 && c->d >= 2;
}

/* the case's permutation: row i of PX is row PI[i] of X */
static void permutation(const pc_case *c, int *pi)
{
    for (int i = 0; i < c->n; i++) pi[i] = i;
    if (c->perm) { pi[0] = 1; pi[1] = 0; return; }
    pc_rng g;
    pc_rng_seed(&g, pc_hash3(c->vseed, 0x5045524Du /* "PERM" */, (uint64_t)c->n));
    for (int i = c->n - 1; i > 0; i--) {
        int j = (int)pc_rng_below(&g, (uint64_t)i + 1);
        int t = pi[i]; pi[i] = pi[j]; pi[j] = t;
    }
    int id = 1;
    for (int i = 0; i < c->n; i++) id &= pi[i] == i;
    if (id) { pi[0] = 1; pi[1] = 0; } /* never the identity */
}

typedef struct {
    float *x, *px, *wq, *wk, *wv, *o1, *o2;
    double *b1, *b2;
    int pi[N_MAX];
} att_buf;

static void buf_free(att_buf *b)
{
    free(b->x); free(b->b1);
    memset(b, 0, sizeof *b);
}

static int buf_make(const pc_case *c, att_buf *b)
{
    size_t n = (size_t)c->n, dd = (size_t)c->d;
    memset(b, 0, sizeof *b);
    b->x = malloc((4 * n * dd + 3 * dd * dd) * sizeof *b->x);
    b->b1 = malloc(2 * n * sizeof *b->b1);
    if (!b->x || !b->b1) { buf_free(b); return -1; }
    b->px = b->x + n * dd;
    b->o1 = b->px + n * dd;
    b->o2 = b->o1 + n * dd;
    b->wq = b->o2 + n * dd;
    b->wk = b->wq + dd * dd;
    b->wv = b->wk + dd * dd;
    b->b2 = b->b1 + n;
    /* X: standard normal rows; W: uniform on [-sqrt(3/d), sqrt(3/d)) (variance
     * 1/d, drawn fast: 3 d^2 values a case), so Q, K entries and the scores
     * Q K^T / sqrt(d) are of order 1 (softmax neither flat nor one-hot) */
    for (size_t i = 0; i < n; i++) pc_normal_row(c->vseed, 0x58000000u + i, c->d, b->x + i * dd);
    double s = sqrt(3.0 / (double)c->d);
    pc_rng g;
    pc_rng_seed(&g, pc_hash3(c->vseed, 0x57u /* "W" */, dd));
    float *w[3] = { b->wq, b->wk, b->wv };
    for (int m = 0; m < 3; m++)
        for (size_t i = 0; i < dd * dd; i++)
            w[m][i] = (float)(s * (2.0 * pc_rng_unit(&g) - 1.0));
    permutation(c, b->pi);
    for (size_t i = 0; i < n; i++)
        memcpy(b->px + i * dd, b->x + (size_t)b->pi[i] * dd, dd * sizeof *b->x);
    return 0;
}

/* worst row: |T(PX)_i - T(X)_{pi(i)}| against bound(PX)_i + bound(X)_{pi(i)} */
static pc_status eval(pc_prun *r, const pc_case *c, att_buf *b, pc_outcome *oc)
{
    size_t n = (size_t)c->n, dd = (size_t)c->d;
    int causal = pc_attention_causal(r->params->spec);
    memset(oc, 0, sizeof *oc);
    oc->pair = -1;
    if (pc_p_attention(r, n, c->d, b->x, b->wq, b->wk, b->wv, causal, b->o1) ||
        pc_p_attention(r, n, c->d, b->px, b->wq, b->wk, b->wv, causal, b->o2)) {
        pc_p_implerr(r, oc);
        return PC_OK;
    }
    pc_attention_bound(n, c->d, b->x, b->wq, b->wk, b->wv, causal, r->u, b->b1);
    if (causal) {
        pc_attention_bound(n, c->d, b->px, b->wq, b->wk, b->wv, causal, r->u, b->b2);
    } else {
        /* without a mask the bound of a row depends on the set of rows only
         * (kappa_i is a max over all keys, vmax over all rows): permuted */
        for (size_t i = 0; i < n; i++) b->b2[i] = b->b1[b->pi[i]];
    }
    double worst = -1;
    for (size_t i = 0; i < n; i++) {
        double e = 0;
        for (size_t t = 0; t < dd; t++) {
            double v = fabs((double)b->o2[i * dd + t] - (double)b->o1[(size_t)b->pi[i] * dd + t]);
            if (isnan(v)) v = (double)INFINITY;
            if (v > e) e = v;
        }
        double bound = r->tol_abs >= 0 ? 2 * r->tol_abs : b->b2[i] + b->b1[b->pi[i]];
        double sc = bound > 0 ? e / bound : (e > 0 ? (double)INFINITY : 0);
        if (sc > worst) {
            worst = sc;
            oc->measured = e;
            oc->bound = bound;
            oc->score = sc;
            snprintf(oc->where, sizeof oc->where, "output row %zu of T(PX) against row %d of T(X)",
                     i, b->pi[i]);
        }
    }
    if (!causal) {
        oc->kind = worst > 1.0 ? PC_O_FAIL : PC_O_PASS;
        oc->sub = SUB_NOT_EQUIVARIANT;
    } else {
        /* the mask must show: some row differs by more than the bound */
        oc->kind = worst > 1.0 ? PC_O_PASS : PC_O_FAIL;
        oc->sub = SUB_MASK_IGNORED;
        oc->above = 1;
        oc->score = worst > 0 ? 1.0 / worst : (double)INFINITY;
    }
    return PC_OK;
}

static pc_status check(pc_prun *r, const pc_case *c, pc_outcome *oc, pc_err *err)
{
    att_buf b;
    if (buf_make(c, &b)) return pc_p_nomem(err);
    pc_status st = eval(r, c, &b, oc);
    buf_free(&b);
    return st;
}

static void show(pc_prun *r, const pc_case *c, const pc_outcome *oc, FILE *f)
{
    (void)oc;
    att_buf b;
    if (buf_make(c, &b)) return;
    pc_outcome o2;
    if (eval(r, c, &b, &o2) == PC_OK && o2.kind != PC_O_IMPLERR) {
        size_t dd = (size_t)c->d;
        fprintf(f, "      permutation: row i of PX is row pi(i) of X, pi = [");
        for (int i = 0; i < c->n; i++) fprintf(f, "%s%d", i ? ", " : "", b.pi[i]);
        fprintf(f, "]\n");
        for (int i = 0; i < c->n && i < 2; i++) {
            fprintf(f, "      X[%d]          = ", i);
            pc_p_row(f, b.x + (size_t)i * dd, c->d, 4);
            fprintf(f, "\n      T(X)[%d]       = ", b.pi[i]);
            pc_p_row(f, b.o1 + (size_t)b.pi[i] * dd, c->d, 4);
            fprintf(f, "\n      T(PX)[%d]      = ", i);
            pc_p_row(f, b.o2 + (size_t)i * dd, c->d, 4);
            fputc('\n', f);
        }
    }
    buf_free(&b);
}

static const char *cause(pc_prun *r, const pc_case *c, const pc_outcome *oc, char *buf, size_t len)
{
    (void)c; (void)buf; (void)len;
    if (oc->sub == SUB_MASK_IGNORED)
        return "causal attention was requested but the output is permutation-equivariant: the "
               "causal flag is ignored (every query sees every key)";
    if (r->impl->flaw) return r->impl->flaw;
    return "the output depends on where a row is, not only on what it is: a position-dependent "
           "term (a positional encoding, a mask, or row-order-dependent arithmetic) is present";
}

/* With --causal the claim is "the mask breaks equivariance": one case where
 * T(PX) differs from P T(X) by more than the bound shows it.  (The normwise
 * bound is loose at large d, so a single case within it is no evidence;
 * an implementation that ignores the mask stays within it on every case.) */
static int existential(const pc_prun *r) { return pc_attention_causal(r->params->spec); }

const pc_property pc_prop_equivariance = {
    .name = "equivariance",
    .families = "attention",
    .title = "self-attention without PE is permutation-equivariant",
    .measured_what = "max |T(PX) - P T(X)|",
    .expect = "T(PX) = P T(X) for every permutation P (without --causal), within the attention "
              "reference's float32 bound; with --causal the mask must break it",
    .math =
        "T(X) = softmax(X WQ (X WK)^T / sqrt(d)) X WV.  For a permutation matrix P:\n"
        "  T(PX) = softmax(P S P^T) P V = P softmax(S) P^T P V = P T(X)\n"
        "(softmax acts row by row, and P^T P = I).",
    .why =
        "Attention compares every row with every other row and sums over them: nothing in it\n"
        "knows where a row is.  That is why transformers need positional encodings (\"cat chases\n"
        "dog\" vs \"dog chases cat\" give permuted outputs, nothing more).  Adding PE(i) to row i\n"
        "makes T position-aware and breaks equivariance, as intended.  A causal mask (query i\n"
        "sees keys 0..i) depends on order too, so causal attention is not equivariant either.",
    .tolerance =
        "row i: bound(PX)_i + bound(X)_{pi(i)}, each the normwise model of pc_attention_bound\n"
        "(families/attention/attention_ref.h: C_ATT*u*(4 d kappa_i + 2n + d + 8)*vmax, C_ATT = 2).  Inputs: X\n"
        "standard normal, W uniform with variance 1/d; 2 to 6 rows a case; with --causal, widths\n"
        "d <= 64, where the bound is tight enough to see the mask (it passes when one case shows it).",
    .concept_impl = "attention-sinpe",
    .concept_note = "sinusoidal PE added to X before attention: position-aware by design, so NOT "
                  "equivariant (a teaching counterexample, not a bug)",
    .shrink = PC_SH_N | PC_SH_D | PC_SH_PERM,
    .setup = setup,
    .gen = gen,
    .check = check,
    .valid = valid,
    .show = show,
    .cause = cause,
    .existential = existential,
};
