/* input.c: input files opened without waiting for ever on a FIFO
 * (input.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* gettid, SIGEV_THREAD_ID (the fuzz targets build this file alone) */
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "input.h"

static void on_timer(int sig)
{
    (void)sig; /* nothing: its arrival interrupts open() with EINTR */
}

/* open(PATH, FLAGS) interrupted after PC_IN_FIFO_WAIT_MS: SIGALRM from a
 * timer aimed at this thread, with a handler installed without SA_RESTART
 * (the previous one is restored).  A SIGALRM is handled as soon as it is
 * raised, so none is left pending once the timer is deleted. */
int pc_fifo_open(const char *path, int flags)
{
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_timer;
    sigemptyset(&sa.sa_mask);
    struct sigevent ev;
    memset(&ev, 0, sizeof ev);
    ev.sigev_notify = SIGEV_THREAD_ID;
    ev.sigev_signo = SIGALRM;
#ifdef sigev_notify_thread_id
    ev.sigev_notify_thread_id = gettid();
#else
    ev._sigev_un._tid = gettid(); /* glibc before 2.38 names the field only so */
#endif
    struct itimerspec its = { { 0, 0 }, { PC_IN_FIFO_WAIT_MS / 1000,
                                          (PC_IN_FIFO_WAIT_MS % 1000) * 1000000L } };
    timer_t t;
    sigset_t alrm, was;
    sigemptyset(&alrm);
    sigaddset(&alrm, SIGALRM);
    if (sigaction(SIGALRM, &sa, &old) != 0) return open(path, flags | O_CLOEXEC);
    pthread_sigmask(SIG_UNBLOCK, &alrm, &was);
    int armed = timer_create(CLOCK_MONOTONIC, &ev, &t) == 0;
    if (armed && timer_settime(t, 0, &its, NULL) != 0) { timer_delete(t); armed = 0; }
    int fd = armed ? open(path, flags | O_CLOEXEC) : -1;
    int e = armed ? errno : EAGAIN;
    if (armed) timer_delete(t);
    pthread_sigmask(SIG_SETMASK, &was, NULL);
    sigaction(SIGALRM, &old, NULL);
    if (!armed) /* no timer: the other end is awaited without the bound */
        return open(path, flags | O_CLOEXEC);
    errno = e;
    return fd;
}

pc_status pc_in_open(const char *path, FILE **out, pc_err *err)
{
    *out = NULL;
    struct stat sb;
    int fifo = stat(path, &sb) == 0 && S_ISFIFO(sb.st_mode);
    int fd = fifo ? pc_fifo_open(path, O_RDONLY) : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 && fifo && errno == EINTR)
        return pc_seterr(err, PC_EIO, "%s: a FIFO that no process opened for writing in %d s "
                         "(start its writer first, or write the data to a file)", path,
                         PC_IN_FIFO_WAIT_MS / 1000);
    if (fd < 0) return pc_seterr(err, PC_EIO, "%s: cannot open: %s", path, strerror(errno));
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        int e = errno;
        close(fd);
        return pc_seterr(err, PC_EIO, "%s: cannot open: %s", path, strerror(e));
    }
    *out = f;
    return PC_OK;
}
