/* alibi-f16 (known bad): alibi-paper with one flaw, the bias tensor held in
 * float16, as a model cast to half precision builds it: RN_f16(-(m_h *
 * |j - i|)).  The slopes are alibi-paper's.  float16 keeps 11 significant
 * bits, so the bias stops being linear in the distance: at m = 2^-0.5 and
 * |j - i| = 100 the product 70.71 is stored with a spacing of 2^-4.  The
 * flaw is PC_ALIBI_F16_BIAS, the line of alibi_paper.c marked
 * "flaw: alibi-f16". */
#include "alibi_paper.h"
#include "harness/sandbox/impl.h"

static int run_bias(void *ctx, int heads, const int64_t *qpos, size_t nq,
                    const int64_t *kpos, size_t nk, int causal, float *out)
{
    (void)ctx;
    return pc_alibi_bias(heads, qpos, nq, kpos, nk, causal, out, PC_ALIBI_F16_BIAS);
}

const pc_impl pc_impl_alibi_f16 = {
    .name = "alibi-f16",
    .description = "KNOWN BAD: ALiBi bias stored in float16 (a model cast to half precision)",
    .family_hint = "alibi",
    .flaw = "the bias -m|j - i| is rounded to float16: 11 significant bits, no longer linear "
            "in the distance",
    .alibi_slopes = pc_alibi_paper_slopes,
    .alibi_bias = run_bias,
};
