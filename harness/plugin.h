/* plugin.h: load an implementation under test from a shared library that
 * follows the plugin ABI (include/pecheck_plugin.h).
 *
 * Loading is itself isolated: a child process dlopens the library (running
 * its constructors) and calls pecheck_abi_version() first, so a library
 * that crashes or hangs while loading is an input error, not a crash of
 * pecheck.  Every hook of the returned pc_impl runs in a forked child
 * (isolate.h); the implementation's name is the path. */
#ifndef PECHECK_PLUGIN_H_LOADER
#define PECHECK_PLUGIN_H_LOADER

#include "impl.h"
#include "status.h"

/* Load PATH.  PC_EINPUT with a one-line message naming PATH when dlopen
 * fails (dlerror's text), pecheck_abi_version is missing, returns another
 * version than PECHECK_ABI_VERSION, or crashes or hangs, or the learned
 * family is half exported.  Families whose symbols are missing have NULL
 * hooks (reported as skipped).  TIMEOUT_MS limits each call. */
pc_status pc_plugin_open(const char *path, long timeout_ms, pc_impl **out, pc_err *err);
void pc_plugin_close(pc_impl *impl);

/* Is IMPL a loaded plugin? */
int pc_plugin_is(const pc_impl *impl);

#endif
