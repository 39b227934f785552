/* status.h: result codes shared by every pecheck module.
 *
 * Library functions return a pc_status (theft's convention): 0 is success
 * or "pass", small positive values are verdicts, negative values are errors.
 * Library code never calls exit(); the CLI maps these to exit codes with
 * pc_exit_code().  An error comes with a one-line message in a pc_err
 * buffer that names the problem (file, field, value). */
#ifndef PECHECK_STATUS_H
#define PECHECK_STATUS_H

#include <stddef.h>

typedef enum pc_status {
    PC_OK       = 0,   /* success / property holds */
    PC_FAIL     = 1,   /* the implementation under test is wrong */
    PC_SKIP     = 2,   /* not applicable (family not exported, layout unsupported) */
    PC_EINPUT   = -1,  /* bad user input: options, files, shapes */
    PC_EIO      = -2,  /* cannot read or write a file */
    PC_ENOMEM   = -3,  /* allocation failed */
    PC_EINTERNAL = -4, /* a bug or a limit of pecheck itself */
    PC_EWRITE   = -5   /* an output was lost while writing it (ENOSPC, EIO) */
} pc_status;

/* Exit codes of the pecheck CLI (documented in README.md). */
enum {
    PC_EXIT_PASS  = 0,
    PC_EXIT_FAIL  = 1,
    PC_EXIT_USAGE = 2, /* usage or input error, one line on stderr */
    PC_EXIT_INTERNAL = 3 /* internal error, or an output lost (write error) */
};

/* A message buffer for one error line; functions that fail fill it. */
#define PC_ERR_LEN 512
typedef struct pc_err { char msg[PC_ERR_LEN]; } pc_err;

/* printf-style setter; returns STATUS so callers can `return pc_seterr(...)`. */
pc_status pc_seterr(pc_err *err, pc_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
