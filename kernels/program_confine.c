/* kernels/program_confine.c: a learner's program under a tool
 * (compute-sanitizer, ncu, nsys) is the tool's child, so the limits the
 * forked child takes before execve (program_sandbox.c) would bind the
 * tool, or nothing. They bind the program instead through a trampoline:
 * the tool runs `cudojo-confine OPTIONS -- EXE ARGS...`
 * (kernels/confine/main.c), which enters the same cage a program without
 * a tool gets (the seccomp filter against fork and the rest, Landlock for
 * a graded one, rlimits) and execs EXE in its own process, so the tool
 * still watches EXE. Landlock's "/proc/self/task" then names the program,
 * as it must (program_sandbox_paths).
 *
 * The options carry ChildLimits as text; this file writes them
 * (program_confine_args) and reads them back (program_confine_parse), so
 * the two ends cannot drift apart. */
#include "kernels/program_internal.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strlist.h"
#include "base/xalloc.h"

static void arg_pair(StrList *a, const char *opt, char *owned_value) {
    strlist_add(a, xstrdup(opt));
    strlist_add(a, owned_value);
}

char **program_confine_args(const char *helper, const ChildLimits *l) {
    StrList a = {0};
    strlist_add(&a, xstrdup(helper));
    if (l->cpu_s > 0) arg_pair(&a, "--cpu", xasprintf("%ld", l->cpu_s));
    if (l->fsize > 0) arg_pair(&a, "--fsize", xasprintf("%lld", l->fsize));
    if (l->as_bytes > 0) arg_pair(&a, "--as", xasprintf("%lld", l->as_bytes));
    if (l->nproc > 0) arg_pair(&a, "--nproc", xasprintf("%ld", l->nproc));
    if (l->no_fork) strlist_add(&a, xstrdup("--no-fork"));
    if (l->no_unix) strlist_add(&a, xstrdup("--no-unix"));
    if (l->confine && l->landlock_abi > 0) {
        arg_pair(&a, "--landlock", xasprintf("%d", l->landlock_abi));
        for (const char *const *p = l->read_paths; p && *p; p++) arg_pair(&a, "--read", xstrdup(*p));
        for (const char *const *p = l->write_paths; p && *p; p++) arg_pair(&a, "--write", xstrdup(*p));
    }
    strlist_add(&a, xstrdup("--"));
    return a.v;
}

void program_confine_args_free(char ***pv) { strlist_free_v(pv); }

static bool whole(const char *s, long long lo, long long hi, long long *out) {
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) return false;
    *out = v;
    return true;
}

int program_confine_parse(int argc, char **argv, ChildLimits *l, char ***read_paths, char ***write_paths,
                          char *err, size_t err_len) {
    memset(l, 0, sizeof *l);
    StrList r = {0}, w = {0};
    int i = 1;
    for (; i < argc && strcmp(argv[i], "--"); i++) {
        const char *o = argv[i];
        long long v = 0;
        if (!strcmp(o, "--no-fork")) {
            l->no_fork = true;
            continue;
        }
        if (!strcmp(o, "--no-unix")) {
            l->no_unix = true;
            continue;
        }
        bool known = !strcmp(o, "--cpu") || !strcmp(o, "--fsize") || !strcmp(o, "--as") || !strcmp(o, "--nproc") ||
                     !strcmp(o, "--landlock") || !strcmp(o, "--read") || !strcmp(o, "--write");
        if (!known) {
            snprintf(err, err_len, "unknown option '%s'", o);
            goto bad;
        }
        if (i + 1 >= argc) {
            snprintf(err, err_len, "%s needs a value", o);
            goto bad;
        }
        const char *val = argv[++i];
        if (!strcmp(o, "--read") || !strcmp(o, "--write")) {
            if (val[0] != '/') {
                snprintf(err, err_len, "%s needs an absolute path (got '%s')", o, val);
                goto bad;
            }
            strlist_add(o[2] == 'r' ? &r : &w, xstrdup(val));
            continue;
        }
        if (!whole(val, 1, LLONG_MAX, &v)) {
            snprintf(err, err_len, "%s needs a positive whole number (got '%s')", o, val);
            goto bad;
        }
        if (!strcmp(o, "--cpu")) l->cpu_s = v > LONG_MAX ? LONG_MAX : (long)v;
        else if (!strcmp(o, "--fsize")) l->fsize = v;
        else if (!strcmp(o, "--as")) l->as_bytes = v;
        else if (!strcmp(o, "--nproc")) l->nproc = v > LONG_MAX ? LONG_MAX : (long)v;
        else l->landlock_abi = v > INT_MAX ? INT_MAX : (int)v;
    }
    if (i >= argc || i + 1 >= argc) {
        snprintf(err, err_len, "usage: cudojo-confine [OPTIONS] -- PROGRAM [ARGS...]");
        goto bad;
    }
    l->confine = l->landlock_abi > 0;
    *read_paths = r.v;
    *write_paths = w.v;
    l->read_paths = (const char *const *)r.v;
    l->write_paths = (const char *const *)w.v;
    return i + 1;
bad:
    program_confine_args_free(&r.v);
    program_confine_args_free(&w.v);
    memset(l, 0, sizeof *l);
    *read_paths = *write_paths = NULL;
    return -1;
}
