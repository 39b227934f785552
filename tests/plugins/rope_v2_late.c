/* rope_v2_late: the correct ABI v2 RoPE kernel of rope_v2.h whose every
 * call's view of OUT is made NaN after the call returned (late.h). */
#define _GNU_SOURCE
#define ROPE_V2_ENTRY kernel_v2
#include "rope_v2.h"
#include "late.h"

int pecheck_rope_v2(const pecheck_rope_args *p)
{
    int rc = kernel_v2(p);
    size_t es = p->dtype_out == PECHECK_DTYPE_F32 ? 4 : 2;
    size_t span = p->n_tokens ? (size_t)((int64_t)(p->n_tokens - 1) * p->stride_token +
                                         (int64_t)(p->heads - 1) * p->stride_head + p->head_dim)
                              : 0;
    if (rc == 0) late_arm(p->out, span * es);
    return rc;
}
