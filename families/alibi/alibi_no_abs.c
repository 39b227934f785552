/* alibi-no-abs (known bad): alibi-paper with one flaw, the bias is
 * -m_h (j - i), without the absolute value: right for keys after the query,
 * but keys before it get a positive bias that grows with the distance, so
 * far-away tokens are favoured instead of penalised (an encoder port of the
 * causal formula, where j - i <= 0 hides the sign).  Slopes are
 * alibi-paper's.  The flaw is PC_ALIBI_NO_ABS, the line of alibi_paper.c
 * marked "flaw: alibi-no-abs". */
#include "alibi_paper.h"
#include "harness/sandbox/impl.h"

static int run_bias(void *ctx, int heads, const int64_t *qpos, size_t nq,
                    const int64_t *kpos, size_t nk, int causal, float *out)
{
    (void)ctx;
    return pc_alibi_bias(heads, qpos, nq, kpos, nk, causal, out, PC_ALIBI_NO_ABS);
}

const pc_impl pc_impl_alibi_no_abs = {
    .name = "alibi-no-abs",
    .description = "KNOWN BAD: ALiBi bias -m(j - i) without the absolute value",
    .family_hint = "alibi",
    .flaw = "the bias is -m (j - i): keys before the query get a positive bias growing with the "
            "distance",
    .alibi_slopes = pc_alibi_paper_slopes,
    .alibi_bias = run_bias,
};
