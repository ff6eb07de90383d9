/* tests/support/script_worker.h: shell scripts that stand in for
 * `cudojo __worker` in tests of app/runner.c and what stands on it (the
 * worker protocol, activity lines, the worker's session), written into a
 * test's own temporary folder. */
#ifndef CUDOJO_TESTS_SCRIPT_WORKER_H
#define CUDOJO_TESTS_SCRIPT_WORKER_H

#include "app/runner.h"

/* Writes DIR/NAME, executable: "#!/bin/sh" then `body`. Returns its path
 * (caller frees), NULL when it could not be written. */
char *script_worker_make(const char *dir, const char *name, const char *body);

/* Runs one request (exercise "x", /nonexistent/x.cu) against the worker
 * script DIR/NAME made from `body`, in a runner of its own with the given
 * compile limit (0 = the default); the result, caller frees. NULL when the
 * script could not be written. */
RunResult *script_worker_run(const char *dir, const char *name, const char *body, double timeout_s,
                             double compile_limit_s);

/* rm -rf DIR (a test's teardown): 0 when it went. */
int script_worker_remove_dir(const char *dir);

#endif
