/* kernels/program_report.c: what the program's runtime library said on the
 * report pipe (kernels/progwire.h), turned into the ProgramResult; the
 * limits it hit; how a run ended, in words.
 *
 * The pipe carries JSON lines from a process we do not trust: a line that
 * is not a JSON object is skipped, a line past REPORT_LINE_MAX and
 * everything past REPORT_TOTAL_MAX are thrown away (and the result says
 * so), a partial last line is tried once the child is gone. The crash
 * record is kept for program_crash.c. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
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

/* ---- records ---- */

/* One record's findings (one launch's): a finding an earlier launch had
 * already is counted there, not repeated (diag_append_launch); at most
 * MAX_FINDINGS are kept, the rest only counted. */
static void add_finding(ReportReader *rr, ProgramResult *res, Diag *d) {
    int before = diag_count(res->findings);
    diag_append_launch(&res->findings, d);
    int after = diag_count(res->findings);
    if (after > MAX_FINDINGS) {
        Diag *e = res->findings;
        for (int i = 1; i < MAX_FINDINGS; i++) e = e->next;
        diag_free(&e->next);
    }
    rr->n_findings += after - before;
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
    } else if (!strcmp(type, "um")) {
        json_object_del(j, "type");
        append_capped(&res->um, j, MAX_KERNEL_RECORDS, NULL);
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
    } else if (!strcmp(type, "turn")) {
        rr->turn_asked = true;
    } else if (!strcmp(type, "exit")) {
        rr->exit_said = true;
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

void report_reader_finish(ReportReader *rr, ProgramResult *res, const ProgramRunOptions *o, const char *exe) {
    if (rr->len && !rr->skipping) report_apply_line(rr, rr->line, rr->len, res, o);
    rr->len = 0;
    bool crash_signal = res->signaled && res->signal != SIGKILL && res->signal != SIGXCPU &&
                        res->signal != SIGXFSZ && res->signal != SIGPIPE && res->signal != SIGTERM &&
                        res->signal != SIGINT;
    if (crash_signal) add_finding(rr, res, program_crash_diag(rr, res, o, exe));
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
    if (res->disk_bytes > 0)
        add_finding(rr, res, diag_error("disk-limit", "the program filled its folder past the limit (%lld MiB, "
                                                      "or too many files) and was stopped",
                                        res->disk_bytes >> 20));
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
    json_decref(r->um);
    timeline_free(&r->timeline);
    diag_free(&r->findings);
    free(r->tool_output);
    memset(r, 0, sizeof *r);
}

char *program_result_ending(const ProgramResult *r) {
    if (!r->started) return xstrdup(N_("could not be started"));
    if (r->cancelled) return xstrdup(N_("was cancelled (killed)"));
    if (r->timed_out) {
        const Diag *t = NULL;
        for (const Diag *d = r->findings; d && !t; d = d->next)
            if (!strcmp(d->code, "timeout")) t = d;
        const char *within = t ? strstr(t->message, "within ") : NULL;
        double s = within ? strtod(within + 7, NULL) : 0;
        return s > 0 ? xasprintf(N_("did not finish within %g s (killed)"), s) : xstrdup(N_("did not finish in time (killed)"));
    }
    if (r->signaled) {
        const char *meaning = program_signal_meaning(r->signal);
        StrBuf sb;
        strbuf_init(&sb);
        strbuf_printf(&sb, N_("was killed by %s"), program_signal_name(r->signal));
        if (meaning) strbuf_printf(&sb, " (%s)", meaning);
        for (const Diag *d = r->findings; d; d = d->next)
            if (!strcmp(d->code, "host-crash") && d->file && d->line > 0) {
                strbuf_printf(&sb, N_(" at %s:%d (host code)"), d->file, d->line);
                break;
            }
        char *s = strbuf_steal(&sb);
        strbuf_fini(&sb);
        return s;
    }
    return xasprintf(N_("exited with status %d"), r->exit_code);
}
