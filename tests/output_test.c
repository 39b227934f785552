/* output_test.c: temporaries of harness/io/output.c on a signal (TAP output).
 *   1-2. A child opens an output file (its PATH.tmp.PID exists), then is
 *        sent SIGINT (SIGTERM): it dies of that signal and the temporary
 *        is gone, the target untouched.
 *   3.   Same for a tracked folder holding files (a report's DIR.tmp.PID).
 *   4.   A forked grandchild that gets SIGTERM removes nothing: only the
 *        process that registered the temporaries does.
 *   5.   A committed output replaces a 0600 file and keeps mode 0600.
 * Usage: output_test [DIR] (default: a fresh folder under /tmp) */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "harness/io/output.h"

static int n_test = 0, n_fail = 0;
static void check(int ok, const char *what)
{
    printf("%s %d - %s\n", ok ? "ok" : "not ok", ++n_test, what);
    if (!ok) n_fail++;
}

static int exists(const char *p)
{
    struct stat st;
    return lstat(p, &st) == 0;
}

/* The child opens PATH (or makes and tracks the folder DIR with a file),
 * tells the parent through a pipe, then waits for the signal. */
static pid_t child_with_temp(const char *path, int dir, int pfd[2])
{
    pid_t pid = fork();
    if (pid != 0) return pid;
    close(pfd[0]);
    pc_err err;
    pc_out o;
    if (dir) {
        char f[600];
        if (mkdir(path, 0755) != 0 || pc_out_track(path, 1) < 0) _exit(10);
        snprintf(f, sizeof f, "%s/a.dat", path);
        FILE *fp = fopen(f, "w");
        if (!fp) _exit(11);
        fputs("1 2\n", fp);
        fclose(fp);
    } else if (pc_out_open(&o, path, &err) != PC_OK) {
        _exit(12);
    } else {
        fputs("partial", o.f);
        fflush(o.f);
    }
    if (write(pfd[1], "r", 1) != 1) _exit(13);
    for (;;) pause();
}

/* Run a child holding a temporary, send SIG, return 1 when it died of SIG
 * and TEMP no longer exists (TEMP is printed with the child's pid). */
static int signal_removes(const char *dirname, const char *name, int dir, int sig)
{
    char path[512], temp[600];
    int pfd[2];
    if (pipe(pfd) != 0) return 0;
    snprintf(path, sizeof path, "%s/%s", dirname, name);
    pid_t pid = child_with_temp(path, dir, pfd);
    close(pfd[1]);
    char c;
    int ready = read(pfd[0], &c, 1) == 1;
    close(pfd[0]);
    if (dir) snprintf(temp, sizeof temp, "%s", path);
    else snprintf(temp, sizeof temp, "%s.tmp.%ld", path, (long)pid);
    int was = ready && exists(temp);
    kill(pid, sig);
    int status;
    waitpid(pid, &status, 0);
    int died = WIFSIGNALED(status) && WTERMSIG(status) == sig;
    if (!was) printf("# the temporary %s did not exist before the signal\n", temp);
    if (!died) printf("# child status 0x%x\n", status);
    return was && died && !exists(temp);
}

int main(int argc, char **argv)
{
    char tmpl[] = "/tmp/pc_output_test.XXXXXX";
    const char *dir = argc > 1 ? argv[1] : mkdtemp(tmpl);
    if (!dir) { printf("1..0 # cannot make a folder\n"); return 1; }
    /* run from a background job (make check &), SIGINT arrives ignored and
     * output.c rightly leaves an ignored signal alone: the children would
     * never die; the test is about the default disposition */
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    printf("1..5\n");
    check(signal_removes(dir, "out.json", 0, SIGINT), "SIGINT removes the output's PATH.tmp.PID");
    check(signal_removes(dir, "out2.json", 0, SIGTERM), "SIGTERM removes the output's PATH.tmp.PID");
    check(signal_removes(dir, "rep.tmp.1", 1, SIGINT), "SIGINT removes a tracked report folder and its files");

    /* 4: a forked child inherits the handler but must not clean up */
    char path[512], temp[600];
    snprintf(path, sizeof path, "%s/kept.json", dir);
    pc_err err;
    pc_out o;
    int ok4 = pc_out_open(&o, path, &err) == PC_OK;
    snprintf(temp, sizeof temp, "%s.tmp.%ld", path, (long)getpid());
    pid_t pid = fork();
    if (pid == 0) { for (;;) pause(); }
    kill(pid, SIGTERM);
    int status;
    waitpid(pid, &status, 0);
    ok4 = ok4 && WIFSIGNALED(status) && exists(temp);
    check(ok4, "a forked child killed by SIGTERM leaves its parent's temporary alone");
    if (ok4) pc_out_close(&o, 0, &err);

    /* 5: mode kept */
    snprintf(path, sizeof path, "%s/private.json", dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd >= 0) close(fd);
    chmod(path, 0600);
    struct stat st;
    int ok5 = pc_out_open(&o, path, &err) == PC_OK;
    if (ok5) {
        fputs("{}\n", o.f);
        ok5 = pc_out_close(&o, 1, &err) == PC_OK;
    }
    ok5 = ok5 && stat(path, &st) == 0 && (st.st_mode & 07777) == 0600 && st.st_size == 3;
    check(ok5, "replacing a 0600 file keeps mode 0600");

    if (argc <= 1) {
        char cmd[700];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        if (system(cmd) != 0) printf("# could not remove %s\n", dir);
    }
    return n_fail ? 1 : 0;
}
