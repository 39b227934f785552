/* plugin.h: load an implementation under test from a shared library that
 * follows the plugin ABI (include/pecheck_plugin.h).
 *
 * Loading is itself isolated: a child process dlopens the library (running
 * its constructors) and calls the ABI version entry point first, so a
 * library that crashes or hangs while loading is an input error, not a
 * crash of pecheck.  Every hook of the returned pc_impl runs out of
 * pecheck's process (host.h) and is called with pc_call_NAME (hook.h); the
 * implementation's name is the path. */
#ifndef PECHECK_PLUGIN_H_LOADER
#define PECHECK_PLUGIN_H_LOADER

#include "harness/sandbox/host.h"
#include "harness/sandbox/impl.h"
#include "harness/base/status.h"

/* Load PATH.  PC_EINPUT (exit 2) with a one-line message naming PATH when
 * dlopen fails (dlerror's text), the ABI version entry point is missing,
 * returns another version than PECHECK_ABI_VERSION, or crashes or hangs,
 * the learned family is half exported, or no entry point of the table is
 * exported (nothing could be checked; the message lists the expected
 * names, with a hint when C++-mangled ones are present).  Families whose
 * symbols are missing have NULL hooks (reported as skipped).  LIM limits
 * each call and the plugin host (host.h). */
pc_status pc_plugin_open(const char *path, const pc_host_limits *lim, pc_impl **out,
                         pc_err *err);
void pc_plugin_close(pc_impl *impl);

/* The last bytes (at most LEN - 1) that IMPL, a plugin, wrote to its
 * stdout and stderr (captured by its host, host.h); their count, 0 for
 * none or when IMPL is not a plugin. */
size_t pc_plugin_output(const pc_impl *impl, char *buf, size_t len);

/* End IMPL's plugin hosts and everything they started (host.h,
 * pc_host_stop): done before any output is written.  Not a plugin: no-op. */
void pc_plugin_stop(pc_impl *impl);

/* How IMPL's hosts seal their file system, for the output (host_fs.h);
 * "" when IMPL is not a plugin. */
void pc_plugin_seal(const pc_impl *impl, char *buf, size_t len);

/* Is IMPL a loaded plugin? */
int pc_plugin_is(const pc_impl *impl);

#endif
