/* slow_start: not a plugin but an LD_PRELOAD library whose constructor
 * sleeps 600 ms in a plugin host process (`pecheck __plugin-host ...`)
 * and does nothing elsewhere: a host whose start (pecheck's exec, before
 * any code of the plugin) is slower than --timeout-ms 300, as a loaded
 * machine or a sanitizer build makes it.  The plugin's time limit must
 * not count it (tests/plugin_pool.t). */
#include <stdio.h>
#include <string.h>
#include <time.h>

__attribute__((constructor)) static void slow_start(void)
{
    char cmd[256] = { 0 };
    FILE *f = fopen("/proc/self/cmdline", "rb");
    if (!f) return;
    size_t n = fread(cmd, 1, sizeof cmd - 1, f);
    fclose(f);
    const char *arg1 = memchr(cmd, '\0', n) ? cmd + strlen(cmd) + 1 : "";
    if ((size_t)(arg1 - cmd) < n && !strcmp(arg1, "__plugin-host")) {
        struct timespec ts = { 0, 600000000L };
        nanosleep(&ts, NULL);
    }
}
