/* alibi_paper.h: ALiBi as the paper's code computes it (alibi-paper), and the
 * flaws of the known-bad ALiBi built-ins that derive from it.  Each flaw is
 * one line of alibi_paper.c marked "flaw:"; with PC_ALIBI_NO_FLAW every such
 * line is passed by and the code is the paper's. */
#ifndef PECHECK_ALIBI_PAPER_H
#define PECHECK_ALIBI_PAPER_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    PC_ALIBI_NO_FLAW,      /* the paper's code as written */
    PC_ALIBI_POW2_ONLY,    /* the power-of-two rule for every head count (alibi-pow2) */
    PC_ALIBI_F16_BIAS,     /* the bias stored in float16 (alibi-f16) */
    PC_ALIBI_QUERY_INDEX,  /* the query's index in the batch as its position (alibi-cache-offset) */
    PC_ALIBI_NO_ABS        /* -m (j - i), no absolute value (alibi-no-abs) */
} pc_alibi_flaw;

/* The slopes of HEADS heads into OUT, with FLAW: 0, or nonzero for HEADS
 * outside [1, 4096] or no memory. */
int pc_alibi_slopes(int heads, float *out, pc_alibi_flaw flaw);

/* The bias OUT[h][r][c] (HEADS x NQ x NK) of keys at KPOS seen from queries
 * at QPOS, -INFINITY above the diagonal when CAUSAL, with FLAW: 0, or the
 * slopes' nonzero code. */
int pc_alibi_bias(int heads, const int64_t *qpos, size_t nq, const int64_t *kpos, size_t nk,
                  int causal, float *out, pc_alibi_flaw flaw);

/* The alibi_slopes hook of alibi-paper, which the built-ins whose flaw is in
 * their bias serve as theirs. */
int pc_alibi_paper_slopes(void *ctx, int heads, float *out);

#endif
