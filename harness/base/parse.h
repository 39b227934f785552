/* parse.h: strict number parsing of option values: the whole string, in
 * range, finite; the message names the option. */
#ifndef PECHECK_PARSE_H
#define PECHECK_PARSE_H

#include <stdint.h>
#include "status.h"

/* An integer in [LO, HI]: PC_EINPUT naming OPT otherwise. */
pc_status pc_parse_i64(const char *opt, const char *s, int64_t lo, int64_t hi,
                       int64_t *v, pc_err *err);
/* A finite number: PC_EINPUT naming OPT otherwise. */
pc_status pc_parse_double(const char *opt, const char *s, double *v, pc_err *err);

#endif
