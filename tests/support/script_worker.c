/* tests/support/script_worker.c: see script_worker.h. */
#include "tests/support/script_worker.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/fs.h"
#include "base/xalloc.h"

char *script_worker_make(const char *dir, const char *name, const char *body) {
    char *path = path_join(dir, name);
    char *text = xasprintf("#!/bin/sh\n%s\n", body);
    Diag *d = fs_write_file_atomic(path, text, strlen(text));
    free(text);
    if (d || chmod(path, 0755) != 0) {
        diag_free(&d);
        free(path);
        return NULL;
    }
    return path;
}

RunResult *script_worker_run(const char *dir, const char *name, const char *body, double timeout_s,
                             double compile_limit_s) {
    char *w = script_worker_make(dir, name, body);
    if (!w) return NULL;
    RunnerConfig cfg = {.worker_exe = w, .compile_limit_s = compile_limit_s};
    Runner *r = runner_new(&cfg);
    RunRequest req = {.exercise_id = "x", .chapter_dir = "/nonexistent", .cu_path = "/nonexistent/x.cu",
                      .cu_display = "x.cu", .timeout_s = timeout_s};
    RunResult *res = runner_run(r, &req, NULL);
    runner_free(&r);
    free(w);
    return res;
}

int script_worker_remove_dir(const char *dir) {
    char *cmd = xasprintf("rm -rf '%s'", dir);
    int rc = system(cmd);
    free(cmd);
    return rc == 0 ? 0 : -1;
}
