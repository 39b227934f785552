/* alibi_paper.h: alibi-paper's slopes (the paper's get_slopes rule in
 * doubles, then binary32), which the known-bad ALiBi built-ins reuse so
 * that each differs from the correct one only in its bias. */
#ifndef PECHECK_ALIBI_PAPER_H
#define PECHECK_ALIBI_PAPER_H

/* The alibi_slopes hook of alibi-paper: 0, or nonzero for HEADS outside
 * [1, 4096] or no memory. */
int pc_alibi_paper_slopes(void *ctx, int heads, float *out);

#endif
