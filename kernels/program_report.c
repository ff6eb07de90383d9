/* kernels/program_report.c: what the program's runtime library said on the
 * report pipe (kernels/progwire.h), turned into the ProgramResult; the host
 * crash place; how a run ended, in words.
 *
 * The pipe carries JSON lines from a process we do not trust: a line that
 * is not a JSON object is skipped, a line past REPORT_LINE_MAX and
 * everything past REPORT_TOTAL_MAX are thrown away (and the result says
 * so), a partial last line is tried once the child is gone. A crash record
 * gives offsets into the executable; addr2line (binutils, when present)
 * turns them into file:line, and the innermost frame in the learner's file
 * is where the host code crashed. The sender already moved return
 * addresses one byte back into their call (progwire.c), so the offsets are
 * looked up as they are. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "base/strbuf.h"
#include "base/xalloc.h"
#include "kernels/program_internal.h"
#include "kernels/progwire.h"

#define REPORT_LINE_MAX (32u << 20)
#define REPORT_TOTAL_MAX (128u << 20)
#define MAX_KERNEL_RECORDS 20000
#define MAX_FINDINGS 200
#define MAX_FRAMES 64

void report_reader_init(ReportReader *rr) { memset(rr, 0, sizeof *rr); }

void report_reader_fini(ReportReader *rr) {
    free(rr->line);
    free(rr->crash_addr);
    for (int i = 0; i < rr->n_crash_frames; i++) free(rr->crash_frames[i]);
    free(rr->crash_frames);
    memset(rr, 0, sizeof *rr);
}

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

/* ---- records ---- */

static void add_finding(ReportReader *rr, ProgramResult *res, Diag *d) {
    while (d) {
        Diag *next = d->next;
        d->next = NULL;
        if (rr->n_findings++ < MAX_FINDINGS)
            diag_append(&res->findings, d);
        else
            diag_free(&d);
        d = next;
    }
}

/* Findings name the PTX's .file, which nvcc made absolute: the learner's
 * display path again, with their line as the excerpt. */
static void place_findings(Diag *d, const ProgramRunOptions *o) {
    for (; d; d = d->next) {
        if (!o->display_path || !program_path_is(d->file, o->display_path)) continue;
        free(d->file);
        d->file = xstrdup(o->display_path);
        if (!d->excerpt && d->line > 0 && o->source) diag_set_excerpt(d, o->source);
    }
}

static void on_unimplemented(ReportReader *rr, ProgramResult *res, const char *fn) {
    for (Diag *d = res->findings; d; d = d->next)
        if (!strcmp(d->code, "unimplemented") && strstr(d->message, fn)) return;
    add_finding(rr, res,
                diag_new(DIAG_ERROR, "unimplemented", NULL, 0, 0,
                         "cudojo's emulator runtime does not implement %s: the call returned "
                         "cudaErrorNotSupported. Run the program on a GPU (--backend=cuda), or do "
                         "without this call.",
                         fn));
}

static void append_capped(json_t **arr, json_t *rec, size_t cap, long *dropped) {
    if (!*arr) *arr = json_array();
    if (json_array_size(*arr) < cap)
        json_array_append(*arr, rec);
    else if (dropped)
        (*dropped)++;
}

static void on_crash(ReportReader *rr, const json_t *j) {
    rr->crash_signal = (int)json_integer_value(json_object_get(j, "signal"));
    free(rr->crash_addr);
    rr->crash_addr = xstrdup(json_string_value(json_object_get(j, "addr")));
    for (int i = 0; i < rr->n_crash_frames; i++) free(rr->crash_frames[i]);
    rr->n_crash_frames = 0;
    const json_t *frames = json_object_get(j, "frames");
    size_t i;
    json_t *f;
    json_array_foreach(frames, i, f) {
        if (rr->n_crash_frames >= MAX_FRAMES) break;
        const char *s = json_string_value(f);
        if (!s) continue;
        rr->crash_frames = xrealloc(rr->crash_frames, (size_t)(rr->n_crash_frames + 1) * sizeof *rr->crash_frames);
        rr->crash_frames[rr->n_crash_frames++] = xstrdup(s);
    }
}

bool report_apply_line(ReportReader *rr, const char *line, size_t len, ProgramResult *res,
                       const ProgramRunOptions *o) {
    json_error_t jerr;
    json_t *j = json_loadb(line, len, 0, &jerr);
    const char *type = json_string_value(json_object_get(j, "type"));
    if (!json_is_object(j) || !type) {
        json_decref(j);
        return false;
    }
    if (!strcmp(type, "hello")) {
        const char *rt = json_string_value(json_object_get(j, "runtime"));
        const char *dev = json_string_value(json_object_get(j, "device"));
        if (rt) {
            free(res->runtime_name);
            res->runtime_name = xstrdup(rt);
        }
        if (dev) {
            free(res->device);
            res->device = xstrdup(dev);
        }
    } else if (!strcmp(type, "call")) {
        json_object_del(j, "type");
        append_capped(&res->calls, j, PROGWIRE_MAX_CALLS, &res->calls_dropped);
        res->touched_gpu = true;
    } else if (!strcmp(type, "calls_dropped")) {
        res->calls_dropped += (long)json_integer_value(json_object_get(j, "count"));
    } else if (!strcmp(type, "kernel")) {
        json_object_del(j, "type");
        append_capped(&res->kernels, j, MAX_KERNEL_RECORDS, NULL);
        res->touched_gpu = true;
    } else if (!strcmp(type, "finding")) {
        Diag *d = diag_from_json(json_object_get(j, "diag"));
        place_findings(d, o);
        add_finding(rr, res, d);
    } else if (!strcmp(type, "unimplemented")) {
        const char *fn = json_string_value(json_object_get(j, "fn"));
        on_unimplemented(rr, res, fn && *fn ? fn : "a CUDA runtime function");
    } else if (!strcmp(type, "timeline")) {
        const json_t *t = json_object_get(j, "timeline");
        if (json_is_object(t)) {
            timeline_free(&res->timeline);
            res->timeline = timeline_from_json(t);
        }
    } else if (!strcmp(type, "crash")) {
        on_crash(rr, j);
    }
    json_decref(j);
    return true;
}

void report_reader_feed(ReportReader *rr, const char *data, size_t n, ProgramResult *res,
                        const ProgramRunOptions *o) {
    for (size_t i = 0; i < n;) {
        const char *nl = memchr(data + i, '\n', n - i);
        size_t take = nl ? (size_t)(nl - (data + i)) : n - i;
        if (rr->total >= REPORT_TOTAL_MAX) {
            rr->truncated = true;
            return;
        }
        if (!rr->skipping) {
            if (rr->len + take > REPORT_LINE_MAX) {
                rr->skipping = rr->truncated = true;
                rr->len = 0;
            } else {
                if (rr->len + take + 1 > rr->cap) {
                    rr->cap = (rr->len + take + 1) * 2;
                    rr->line = xrealloc(rr->line, rr->cap);
                }
                memcpy(rr->line + rr->len, data + i, take);
                rr->len += take;
            }
        }
        rr->total += take + (nl ? 1 : 0);
        i += take;
        if (nl) {
            i++;
            if (!rr->skipping && rr->len) report_apply_line(rr, rr->line, rr->len, res, o);
            rr->len = 0;
            rr->skipping = false;
        }
    }
}

/* ---- the crash place ---- */

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

static void add_crash(ReportReader *rr, ProgramResult *res, const ProgramRunOptions *o, const char *exe) {
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
    add_finding(rr, res, d);
}

void report_reader_finish(ReportReader *rr, ProgramResult *res, const ProgramRunOptions *o, const char *exe) {
    if (rr->len && !rr->skipping) report_apply_line(rr, rr->line, rr->len, res, o);
    rr->len = 0;
    bool crash_signal = res->signaled && res->signal != SIGKILL && res->signal != SIGXCPU &&
                        res->signal != SIGXFSZ && res->signal != SIGPIPE && res->signal != SIGTERM &&
                        res->signal != SIGINT;
    if (crash_signal) add_crash(rr, res, o, exe);
    if (res->timed_out)
        add_finding(rr, res,
                    diag_new(DIAG_ERROR, "timeout", NULL, 0, 0,
                             "the program did not finish within %g s and was stopped (an endless loop, "
                             "a wait that never ends, or a kernel that never returns?)",
                             o->timeout_s > 0 ? o->timeout_s : 10.0));
    if (res->signaled && res->signal == SIGXCPU)
        add_finding(rr, res, diag_error("cpu-limit", "the program used more CPU time than it may (%g s) and was stopped",
                                        o->cpu_s > 0 ? o->cpu_s : (o->timeout_s > 0 ? o->timeout_s : 10.0) + 5));
    if (res->signaled && res->signal == SIGXFSZ)
        add_finding(rr, res, diag_error("file-limit", "the program wrote a file larger than the 256 MiB a file "
                                                      "may have, and was stopped"));
    if (res->out_total > res->out_len)
        add_finding(rr, res, diag_new(DIAG_WARNING, "output-capped", NULL, 0, 0,
                                      "the program wrote %zu bytes to stdout; the first %zu are kept",
                                      res->out_total, res->out_len));
    if (res->err_total > res->err_len)
        add_finding(rr, res, diag_new(DIAG_WARNING, "output-capped", NULL, 0, 0,
                                      "the program wrote %zu bytes to stderr; the first %zu are kept",
                                      res->err_total, res->err_len));
    if (rr->truncated)
        add_finding(rr, res, diag_new(DIAG_WARNING, "report-truncated", NULL, 0, 0,
                                      "the runtime's report was too large: part of it was dropped"));
    if (rr->n_findings > MAX_FINDINGS)
        diag_append(&res->findings, diag_new(DIAG_NOTE, "findings-capped", NULL, 0, 0,
                                             "%d more findings were not kept", rr->n_findings - MAX_FINDINGS));
}

/* ---- the result ---- */

void program_result_fini(ProgramResult *r) {
    free(r->out);
    free(r->err);
    for (int i = 0; i < r->n_files; i++) {
        free(r->files[i].name);
        free(r->files[i].data);
    }
    free(r->files);
    free(r->runtime_name);
    free(r->device);
    json_decref(r->calls);
    json_decref(r->kernels);
    timeline_free(&r->timeline);
    diag_free(&r->findings);
    memset(r, 0, sizeof *r);
}

char *program_result_ending(const ProgramResult *r) {
    if (!r->started) return xstrdup("could not be started");
    if (r->cancelled) return xstrdup("was cancelled (killed)");
    if (r->timed_out) {
        const Diag *t = NULL;
        for (const Diag *d = r->findings; d && !t; d = d->next)
            if (!strcmp(d->code, "timeout")) t = d;
        const char *within = t ? strstr(t->message, "within ") : NULL;
        double s = within ? strtod(within + 7, NULL) : 0;
        return s > 0 ? xasprintf("did not finish within %g s (killed)", s) : xstrdup("did not finish in time (killed)");
    }
    if (r->signaled) {
        const char *meaning = program_signal_meaning(r->signal);
        StrBuf sb;
        strbuf_init(&sb);
        strbuf_printf(&sb, "was killed by %s", program_signal_name(r->signal));
        if (meaning) strbuf_printf(&sb, " (%s)", meaning);
        for (const Diag *d = r->findings; d; d = d->next)
            if (!strcmp(d->code, "host-crash") && d->file && d->line > 0) {
                strbuf_printf(&sb, " at %s:%d (host code)", d->file, d->line);
                break;
            }
        char *s = strbuf_steal(&sb);
        strbuf_fini(&sb);
        return s;
    }
    return xasprintf("exited with status %d", r->exit_code);
}
