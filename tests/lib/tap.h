/* tap.h: TAP output for the C tests (the tests/NAME_test.c files): ok() prints one test
 * line, tap_plan() the plan at the end and gives the exit status (0 when
 * every test passed).  A test with a failure keeps going, so that one run
 * shows all of them. */
#ifndef PECHECK_TESTS_TAP_H
#define PECHECK_TESTS_TAP_H

#include <stdarg.h>
#include <stdio.h>

static int tap_tests, tap_failed;

static inline void ok(int cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline void ok(int cond, const char *fmt, ...)
{
    va_list ap;
    tap_tests++;
    if (!cond) tap_failed++;
    printf("%s %d - ", cond ? "ok" : "not ok", tap_tests);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
    fflush(stdout);
}

static inline int tap_plan(void)
{
    printf("1..%d\n", tap_tests);
    return tap_failed ? 1 : 0;
}

#endif
