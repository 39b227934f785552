/* status.c: the one-line error message helper. */
#include <stdarg.h>
#include <stdio.h>
#include "status.h"

pc_status pc_seterr(pc_err *err, pc_status status, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return status;
}
