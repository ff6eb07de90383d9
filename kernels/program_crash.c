/* kernels/program_crash.c: where a learner's host code crashed, and what
 * the signal means.
 *
 * The runtime library's fatal-signal handler (progwire.c) sends the signal,
 * the faulting address and the stack as offsets into the executable, with
 * return addresses already moved back into their call. addr2line
 * (binutils; skipped when absent) turns them into function and file:line,
 * inlined frames included, and the innermost frame in the learner's file is
 * the place: nvcc -g named it "<private dir>/DISPLAY" (program_compile.c),
 * which program_path_is recognises. For `cudojo exec` (no display path)
 * the innermost frame in a source file that exists outside /usr is taken. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "base/xalloc.h"
#include "kernels/program_internal.h"

const char *program_signal_name(int sig) {
    static char other[16];
    switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGABRT: return "SIGABRT";
    case SIGKILL: return "SIGKILL";
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    case SIGPIPE: return "SIGPIPE";
    case SIGXCPU: return "SIGXCPU";
    case SIGXFSZ: return "SIGXFSZ";
    case SIGTRAP: return "SIGTRAP";
    case SIGSYS: return "SIGSYS";
    default: snprintf(other, sizeof other, "signal %d", sig); return other;
    }
}

const char *program_signal_meaning(int sig) {
    switch (sig) {
    case SIGSEGV: return "segmentation fault";
    case SIGBUS: return "bus error";
    case SIGFPE: return "arithmetic exception, e.g. integer division by zero";
    case SIGILL: return "illegal instruction";
    case SIGABRT: return "aborted: abort() or a failed assert";
    case SIGKILL: return "killed";
    case SIGPIPE: return "wrote to a closed pipe";
    case SIGXCPU: return "CPU time limit exceeded";
    case SIGXFSZ: return "file size limit exceeded";
    default: return NULL;
    }
}

/* A learner-facing reason for a host crash. */
static const char *crash_advice(int sig) {
    switch (sig) {
    case SIGSEGV:
    case SIGBUS:
        return "it read or wrote memory it does not own: a NULL or freed pointer, an index past the end "
               "of an array, or a device pointer (from cudaMalloc) used in host code";
    case SIGFPE: return "an integer division or remainder by zero";
    case SIGABRT: return "abort() was called, or an assert failed (its message is on stderr)";
    default: return NULL;
    }
}

typedef struct Place {
    char *file;
    int line;
    char *function;
} Place;

/* addr2line -a -f -C -i: per address "0x…", then function / file:line
 * pairs, innermost inlined first. Picks the first pair in the learner's
 * file (any file that is not the system's when `display` is NULL). */
static bool crash_place(const ReportReader *rr, const char *exe, const char *display, Place *out) {
    memset(out, 0, sizeof out[0]);
    char *tool = proc_find_in_path("addr2line");
    if (!tool || rr->n_crash_frames == 0) {
        free(tool);
        return false;
    }
    int n = rr->n_crash_frames;
    char **argv = xcalloc((size_t)n + 8, sizeof *argv);
    char **owned = xcalloc((size_t)n, sizeof *owned);
    int k = 0;
    argv[k++] = tool;
    argv[k++] = "-a";
    argv[k++] = "-f";
    argv[k++] = "-C";
    argv[k++] = "-i";
    argv[k++] = "-e";
    argv[k++] = (char *)exe;
    for (int i = 0; i < n; i++) {
        unsigned long long a = strtoull(rr->crash_frames[i], NULL, 0);
        owned[i] = xasprintf("0x%llx", a);
        argv[k++] = owned[i];
    }
    ProcCapture c;
    Diag *d = proc_capture((const char *const *)argv, NULL, NULL, 10, 1 << 20, &c);
    bool found = false;
    char *func = NULL;
    const char *p = c.out ? c.out : "";
    while (!d && *p && !found) {
        size_t len = strcspn(p, "\n");
        char *l = xstrndup(p, len);
        p += len + (p[len] ? 1 : 0);
        if (!strncmp(l, "0x", 2)) {
            XFREE(func);
        } else if (!func) {
            func = xstrdup(l);
        } else {
            char *disc = strstr(l, " (discriminator");
            if (disc) *disc = '\0';
            char *colon = strrchr(l, ':');
            int line = colon ? atoi(colon + 1) : 0;
            if (colon) *colon = '\0';
            bool ours = display ? program_path_is(l, display)
                                : line > 0 && l[0] == '/' && strncmp(l, "/usr/", 5) && fs_exists(l);
            if (ours && line > 0) {
                out->file = xstrdup(display ? display : l);
                out->line = line;
                out->function = func;
                func = NULL;
                found = true;
            }
            XFREE(func);
        }
        free(l);
    }
    free(func);
    diag_free(&d);
    proc_capture_fini(&c);
    for (int i = 0; i < n; i++) free(owned[i]);
    free(owned);
    free(argv);
    free(tool);
    return found;
}

Diag *program_crash_diag(const ReportReader *rr, const ProgramResult *res, const ProgramRunOptions *o,
                         const char *exe) {
    int sig = rr->crash_signal ? rr->crash_signal : res->signal;
    const char *meaning = program_signal_meaning(sig);
    const char *advice = crash_advice(sig);
    Place pl;
    bool placed = rr->crash_signal && crash_place(rr, exe, o->display_path, &pl);
    bool addr = rr->crash_addr && (sig == SIGSEGV || sig == SIGBUS);
    Diag *d = diag_new(DIAG_ERROR, "host-crash", placed ? pl.file : o->display_path, placed ? pl.line : 0, 0,
                       "%s in host code%s%s%s%s%s%s", meaning ? meaning : program_signal_name(sig),
                       placed && pl.function ? " (in " : "", placed && pl.function ? pl.function : "",
                       placed && pl.function ? ")" : "", addr ? ", at address " : "", addr ? rr->crash_addr : "",
                       advice ? "" : ".");
    if (advice) {
        char *m = xasprintf("%s: %s.", d->message, advice);
        free(d->message);
        d->message = m;
    }
    if (placed) {
        if (o->display_path && o->source) {
            diag_set_excerpt(d, o->source);
        } else {
            char *text = NULL;
            Diag *rd = fs_read_file(pl.file, &text, NULL);
            if (!rd) diag_set_excerpt(d, text);
            diag_free(&rd);
            free(text);
        }
        free(pl.file);
        free(pl.function);
    }
    return d;
}

