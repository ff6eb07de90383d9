/* kernels/program_sanitizer.c: NVIDIA's compute-sanitizer around a
 * learner's program on a GPU: the command line cudojo runs it with, and a
 * parser for its text report (what `--log-file` writes) into one record
 * per error: kind, message, kernel, file:line (programs are built with
 * -lineinfo), thread and block.
 *
 * The report, as compute-sanitizer 2022-2025 (CUDA 11.6-13) prints it:
 * every line starts with "========= "; an error starts at the first
 * column after that prefix, its details are indented below it:
 *
 *   ========= Invalid __global__ write of size 4 bytes
 *   =========     at scale(float *, int)+0x70 in /tmp/x/oob.cu:12
 *   =========     by thread (232,0,0) in block (3,0,0)
 *   =========     Address 0x7f3c5e200fa0 is out of bounds
 *   ========= Program hit cudaErrorLaunchFailure (error 719) due to "unspecified launch failure" on CUDA API call to cudaDeviceSynchronize.
 *   ========= Error: Race reported between Write access at k(float *)+0x150 in /tmp/x/race.cu:22
 *   =========     and Read access at k(float *)+0x1a0 in /tmp/x/race.cu:25 [1016 hazards]
 *   ========= Uninitialized __global__ memory read of size 4 bytes
 *   ========= Barrier error detected. Divergent thread(s) in block
 *   ========= Leaked 4096 bytes at 0x7f3c5e400000
 *   ========= ERROR SUMMARY: 3 errors
 *
 * Older releases wrote the place as "at 0x70 in /tmp/x/oob.cu:12:scale(float*, int)";
 * both forms are read. Repeats of one error at one place (every thread of a
 * warp reports its own out-of-bounds write) are merged, counted. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "kernels/program.h"
#include "kernels/program_internal.h"

#define MAX_ERRORS 200

int sanitizer_tool_argv(const char *path, const char *tool, const char **argv) {
    int n = 0;
    argv[n++] = path;
    argv[n++] = "--tool";
    argv[n++] = tool;
    argv[n++] = "--print-limit";
    argv[n++] = "100";
    argv[n++] = "--show-backtrace";
    argv[n++] = "no";
    if (!strcmp(tool, "memcheck")) {
        argv[n++] = "--leak-check";
        argv[n++] = "full";
    }
    argv[n++] = "--log-file";
    argv[n++] = "{out}";
    argv[n] = NULL;
    return n;
}

/* ---- one line ---- */

/* The text after compute-sanitizer's "========= " prefix, or NULL for a
 * line without it (the program's own output in a shared stream). */
static const char *strip_prefix(const char *line) {
    const char *p = line;
    int eq = 0;
    while (*p == '=') {
        p++;
        eq++;
    }
    if (eq < 3) return NULL;
    if (*p == ' ') p++;
    return p;
}

static char *dup_n(const char *s, size_t n) {
    char *d = xmalloc(n + 1);
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

static char *trimmed(const char *s) {
    while (isspace((unsigned char)*s)) s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1])) n--;
    return dup_n(s, n);
}

/* A place "FUNC+0xOFF in FILE:LINE" (new) or "0xOFF in FILE:LINE:FUNC"
 * (old), starting at `at` (just after "at "), into the error when it has
 * none yet. `stop` ends the text (NULL: the line's end). */
static void read_place(SanitizerError *e, const char *at, const char *stop) {
    if (!stop) stop = at + strlen(at);
    const char *in = NULL;
    for (const char *p = at; p + 4 <= stop; p++)
        if (!strncmp(p, " in ", 4)) in = p;     /* the last " in ": a signature has none, a path may */
    if (!in) return;
    const char *file = in + 4;
    /* FILE:LINE or FILE:LINE:FUNC — the line is the first ":digits" followed by ':' or the end */
    const char *colon = NULL;
    for (const char *p = file; p < stop; p++) {
        if (*p != ':' || !isdigit((unsigned char)p[1])) continue;
        const char *q = p + 1;
        while (q < stop && isdigit((unsigned char)*q)) q++;
        if (q == stop || *q == ':' || *q == ' ' || *q == '\n' || *q == '\r') {
            colon = p;
            break;
        }
    }
    if (!colon) return;
    if (!e->file) {
        e->file = dup_n(file, (size_t)(colon - file));
        e->line = atoi(colon + 1);
    }
    if (e->kernel) return;
    const char *end = colon + 1;
    while (end < stop && isdigit((unsigned char)*end)) end++;
    if (end < stop && *end == ':') {            /* old form: the function after the line */
        const char *f = end + 1, *fe = stop;
        while (fe > f && isspace((unsigned char)fe[-1])) fe--;
        if (fe > f) e->kernel = dup_n(f, (size_t)(fe - f));
        return;
    }
    /* new form: "FUNC+0xOFF" before " in " (or just FUNC) */
    const char *fe = in;
    for (const char *p = at; p < in; p++)
        if (p[0] == '+' && p[1] == '0' && p[2] == 'x') fe = p;
    if (!strncmp(at, "0x", 2)) return;          /* an address only */
    if (fe > at) e->kernel = dup_n(at, (size_t)(fe - at));
}

/* "(x,y,z)" at s into v; false when it is not one */
static bool read_triple(const char *s, int v[3]) {
    return s && sscanf(s, "(%d,%d,%d)", &v[0], &v[1], &v[2]) == 3;
}

/* The kind of an error from its first line, or NULL when the line does not
 * start one. */
static const char *kind_of(const char *t) {
    static const struct {
        const char *prefix, *kind;
    } kinds[] = {
        {"Invalid __global__ read", "invalid-read"},    {"Invalid __shared__ read", "invalid-read"},
        {"Invalid __local__ read", "invalid-read"},     {"Invalid __global__ write", "invalid-write"},
        {"Invalid __shared__ write", "invalid-write"},  {"Invalid __local__ write", "invalid-write"},
        {"Invalid __global__ atomic", "invalid-atomic"}, {"Invalid __shared__ atomic", "invalid-atomic"},
        {"Invalid __local__ atomic", "invalid-atomic"}, {"Invalid __global__ ", "invalid-access"},
        {"Misaligned", "misaligned"},                   {"Uninitialized __global__ memory read", "uninitialized"},
        {"Uninitialized", "uninitialized"},             {"Error: Race reported", "race"},
        {"ERROR: Race reported", "race"},               {"Warning: Race reported", "race"},
        {"WARN: Race reported", "race"},                {"Error: Potential", "race"},
        {"Warning: Potential", "race"},                 {"Potential ", "race"},
        {"Barrier error", "barrier"},                   {"Invalid arguments", "barrier"},
        {"Program hit ", "api-error"},                  {"Leaked ", "leak"},
        {"Malloc/Free error", "device-heap"},           {"Out-of-range", "hardware-exception"},
        {"Warp ", "hardware-exception"},                {"Lane ", "hardware-exception"},
        {"Device-side assert", "hardware-exception"},   {"Cuda API error", "api-error"},
        {"Unused memory", "unused-memory"},
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (!strncmp(t, kinds[i].prefix, strlen(kinds[i].prefix))) return kinds[i].kind;
    return NULL;
}

/* ---- the report ---- */

static bool same_error(const SanitizerError *a, const SanitizerError *b) {
    bool file = (!a->file && !b->file) || (a->file && b->file && !strcmp(a->file, b->file));
    bool kern = (!a->kernel && !b->kernel) || (a->kernel && b->kernel && !strcmp(a->kernel, b->kernel));
    return file && kern && a->line == b->line && !strcmp(a->kind, b->kind) && !strcmp(a->message, b->message);
}

static void error_free(SanitizerError *e) {
    free(e->kind);
    free(e->message);
    free(e->kernel);
    free(e->file);
    memset(e, 0, sizeof *e);
}

/* Adds the error being read to the report, merged into an equal one. */
static void finish_error(SanitizerReport *r, SanitizerError *cur, bool *open) {
    if (!*open) return;
    *open = false;
    for (int i = 0; i < r->n_errors; i++)
        if (same_error(&r->errors[i], cur)) {
            r->errors[i].count++;
            error_free(cur);
            return;
        }
    if (r->n_errors >= MAX_ERRORS) {
        error_free(cur);
        return;
    }
    r->errors = xrealloc(r->errors, (size_t)(r->n_errors + 1) * sizeof *r->errors);
    r->errors[r->n_errors++] = *cur;
    memset(cur, 0, sizeof *cur);
}

static void start_error(SanitizerError *cur, const char *kind, const char *text) {
    memset(cur, 0, sizeof *cur);
    cur->kind = xstrdup(kind);
    cur->message = trimmed(text);
    cur->count = 1;
    for (int i = 0; i < 3; i++) cur->thread[i] = cur->block[i] = -1;
    /* a race's first access is on its first line: "... Write access at PLACE" */
    const char *at = strstr(text, " access at ");
    if (at) read_place(cur, at + 11, NULL);
}

static void read_detail(SanitizerError *cur, const char *t) {
    while (*t == ' ' || *t == '\t') t++;
    if (!strncmp(t, "at ", 3)) {
        read_place(cur, t + 3, NULL);
    } else if (!strncmp(t, "by thread ", 10)) {
        read_triple(t + 10, cur->thread);
        const char *b = strstr(t, " in block ");
        if (b) read_triple(b + 10, cur->block);
    } else if (!strncmp(t, "and ", 4) && strstr(t, " access at ")) {
        const char *at = strstr(t, " access at ") + 11;
        read_place(cur, at, strstr(at, " ["));       /* the second access, when the first had no place */
    } else if (strstr(t, " Thread (") && strstr(t, " at ")) {
        /* racecheck's hazard form: "Write Thread (1,0,0) at k(...)+0x10 in f.cu:9" */
        read_triple(strstr(t, " Thread (") + 8, cur->thread);
        read_place(cur, strstr(t, " at ") + 4, NULL);
    } else if (!strncmp(t, "in block ", 9) || strstr(t, " in block (")) {
        const char *b = strstr(t, "block (");
        if (b) read_triple(b + 6, cur->block);
    }
}

static void read_summary(SanitizerReport *r, const char *t) {
    int n = 0, errs = 0;
    if (sscanf(t, "ERROR SUMMARY: %d", &n) == 1) {
        /* past --print-limit a second line follows: "ERROR SUMMARY: 902 errors
         * were not printed" (seen on an H200): not the total */
        if (strstr(t, "not printed")) return;
        r->total = n;
        r->has_summary = true;
    } else if (strstr(t, "RACECHECK SUMMARY:") && strchr(t, '(') && sscanf(strchr(t, '('), "(%d error", &errs) == 1) {
        if (!r->has_summary) r->total = errs;
        r->has_summary = true;
    }
}

void sanitizer_report_parse(const char *text, const char *tool, SanitizerReport *r) {
    memset(r, 0, sizeof *r);
    r->tool = xstrdup(tool ? tool : "memcheck");
    if (!text) return;
    SanitizerError cur;
    memset(&cur, 0, sizeof cur);
    bool open = false;
    for (const char *ln = text; *ln;) {
        const char *nl = strchr(ln, '\n');
        size_t len = nl ? (size_t)(nl - ln) : strlen(ln);
        char *line = dup_n(ln, len);
        ln += len + (nl ? 1 : 0);
        const char *t = strip_prefix(line);
        if (!t) {
            free(line);
            continue;
        }
        const char *kind = *t != ' ' && *t != '\t' ? kind_of(t) : NULL;
        if (kind) {
            finish_error(r, &cur, &open);
            start_error(&cur, kind, t);
            open = true;
        } else if (*t == ' ' || *t == '\t') {
            if (open) read_detail(&cur, t);
        } else {
            /* a line at the first column that starts no error: the banner, a
             * summary, a blank separator; it ends the error being read */
            finish_error(r, &cur, &open);
            read_summary(r, t);
        }
        free(line);
    }
    finish_error(r, &cur, &open);
    if (!r->has_summary) {
        int sum = 0;
        for (int i = 0; i < r->n_errors; i++) sum += r->errors[i].count;
        r->total = sum;
    }
}

void sanitizer_report_fini(SanitizerReport *r) {
    for (int i = 0; i < r->n_errors; i++) error_free(&r->errors[i]);
    free(r->errors);
    free(r->tool);
    memset(r, 0, sizeof *r);
}

void sanitizer_report_relocate(SanitizerReport *r, const char *display) {
    for (int i = 0; display && i < r->n_errors; i++)
        if (r->errors[i].file && strcmp(r->errors[i].file, display) && program_path_is(r->errors[i].file, display)) {
            free(r->errors[i].file);
            r->errors[i].file = xstrdup(display);
        }
}

bool sanitizer_kind_is_error(const char *kind) {
    return kind && strcmp(kind, "api-error") && strcmp(kind, "leak") && strcmp(kind, "unused-memory");
}
