/* input.h: open an input file (a table, a shard, a configuration) without
 * waiting for ever on a FIFO that has no writer (and an output FIFO without
 * waiting for ever for its reader: pc_fifo_open).
 *
 * A plain open() of a named FIFO for reading waits until a process opens it
 * for writing, for ever if none does.  pc_in_open(PATH) opens a named FIFO
 * with that wait bounded to PC_IN_FIFO_WAIT_MS (a timer signal to this
 * thread interrupts the open); once a writer is there, reads block as
 * usual, however slow the writer.  Anything else (a regular file, a pipe
 * such as bash's <(...), whose open never waits, a device) is opened
 * directly.  Errors are PC_EIO (exit 2) naming PATH: it cannot be opened,
 * or it is a FIFO no process opened for writing in time. */
#ifndef PECHECK_INPUT_H
#define PECHECK_INPUT_H

#include <stdio.h>
#include "harness/base/status.h"

/* 5 s: a writer started beside pecheck (`mkfifo t; producer > t &
 * pecheck check --table t`) opens its end at once (the shell opens it
 * before the producer starts); only a FIFO nothing will write waits this
 * long. */
#define PC_IN_FIFO_WAIT_MS 5000

pc_status pc_in_open(const char *path, FILE **out, pc_err *err);

/* open(PATH, FLAGS | O_CLOEXEC) of a named FIFO, its wait for the other
 * end (a writer for O_RDONLY, a reader for O_WRONLY) bounded to
 * PC_IN_FIFO_WAIT_MS: -1 with errno EINTR when none came (output.c opens
 * an output FIFO with it too). */
int pc_fifo_open(const char *path, int flags);

#endif
