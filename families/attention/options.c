/* options.c: the attention family's encoding spec (families/spec.h): its
 * one option, --causal, the masked variant. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "gate.h"

static const int causal_on = 1;

static const pc_option options[] = {
    { "causal", "", "attention: gate only the causal (masked) variant; equivariance then expects "
      "the mask to break it.  T5: causal buckets (bidirectional=False, the decoder's; "
      "families/t5/options.c reads it too)", NULL, 0 },
};

static pc_status resolve(const pc_given *g, pc_spec *spec, pc_err *err)
{
    (void)err;
    spec->own = pc_given_value(g, "causal") ? (void *)(uintptr_t)&causal_on : NULL;
    return PC_OK;
}

static void args(const pc_spec *spec, char *buf, size_t len)
{
    size_t u = strlen(buf);
    if (spec->own && u < len) snprintf(buf + u, len - u, " --causal");
}

const pc_spec_kind pc_attention_spec_kind = {
    .options = options, .n_options = sizeof options / sizeof options[0],
    .resolve = resolve, .args = args
};

int pc_attention_causal(const pc_spec *spec)
{
    return spec && spec->family->spec == &pc_attention_spec_kind && spec->own != NULL;
}
