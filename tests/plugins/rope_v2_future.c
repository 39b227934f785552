/* rope_v2_future: built against a newer header whose pecheck_rope_args has
 * one more member: this pecheck's struct is too small for it, so it
 * returns PECHECK_V2_ARGS_TOO_SMALL without reading past SIZE (pecheck
 * must report the configuration skipped, naming why). */
#define ROPE_V2_ENTRY kernel_v2
#include "rope_v2.h"

typedef struct future_args {
    pecheck_rope_args v2;       /* this header's members ... */
    double future_member;       /* ... and one appended later */
} future_args;

int pecheck_rope_v2(const pecheck_rope_args *p)
{
    if (!PECHECK_ARGS_HAS(p, future_args, future_member)) return PECHECK_V2_ARGS_TOO_SMALL;
    return kernel_v2(p);
}
