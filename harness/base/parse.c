/* parse.c: strict number parsing (parse.h). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include "parse.h"

pc_status pc_parse_i64(const char *opt, const char *s, int64_t lo, int64_t hi,
                       int64_t *v, pc_err *err)
{
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (*s == '\0' || *end != '\0' || errno == ERANGE)
        return pc_seterr(err, PC_EINPUT, "%s: expected an integer, got '%s'", opt, s);
    if (x < lo || x > hi)
        return pc_seterr(err, PC_EINPUT, "%s: %lld is out of range [%" PRId64 ", %" PRId64 "]",
                         opt, x, lo, hi);
    *v = x;
    return PC_OK;
}

pc_status pc_parse_double(const char *opt, const char *s, double *v, pc_err *err)
{
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (*s == '\0' || *end != '\0' || errno == ERANGE || !isfinite(x))
        return pc_seterr(err, PC_EINPUT, "%s: expected a finite number, got '%s'", opt, s);
    *v = x;
    return PC_OK;
}
