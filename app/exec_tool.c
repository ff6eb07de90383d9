/* app/exec_tool.c: `cudojo exec --profile=ncu|nsys` and `--sanitizer=TOOL`:
 * the program runs on the GPU under Nsight Compute, Nsight Systems or
 * compute-sanitizer (kernels/program_profile.h, kernels/program.h), its
 * output passing through as usual, and the tool's report is summarised
 * after it on stderr (or as "tool" in --json). Under a tool cudojo's own
 * CUPTI recorder is off (the tool injects its own), so there is no call
 * list or timeline: the tool's report is the summary. */
#include "app/exec_summary.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/bytes.h"
#include "base/strbuf.h"
#include "base/xalloc.h"

#define MAX_SHOWN 50

Diag *exec_tool_run(const char *profile, const char *sanitizer, const char *exe, const ProgramRunOptions *o,
                    ProgramResult *r, ExecToolReport *out) {
    memset(out, 0, sizeof *out);
    memset(r, 0, sizeof *r);
    const char *bin = profile ? profile : "compute-sanitizer";
    char *path = program_find_tool(bin);
    if (!path)
        return diag_error("no-tool", "there is no %s here (looked in $CUDA_HOME/bin, /usr/local/cuda/bin, "
                                     "/opt/cuda/bin and PATH): install %s or put it on PATH", bin,
                          profile && !strcmp(profile, "nsys") ? "Nsight Systems" :
                          profile ? "Nsight Compute" : "the CUDA toolkit's compute-sanitizer");
    Diag *d = NULL;
    if (profile && !strcmp(profile, "ncu")) {
        out->name = "ncu";
        ProfileArgv a;
        const char *bad;
        ncu_tool_argv(path, NULL, 0, 0, &a, &bad);
        d = ncu_run_program(&a, exe, o, r, &out->ncu);
        profile_argv_fini(&a);
        if (!d && !out->ncu.n_kernels && !out->ncu.n_errors) out->why = xstrdup("ncu profiled no kernel launch");
    } else if (profile) {
        out->name = "nsys";
        d = nsys_run_program(path, exe, o, r, &out->nsys, &out->nsys_text, &out->why);
    } else {
        out->name = sanitizer;
        const char *argv[16];
        int argc = sanitizer_tool_argv(path, sanitizer, argv);
        ProgramTool t = {.argv = argv, .argc = argc, .out_name = "sanitizer.log", .out_cap = 4u << 20};
        ProgramRunOptions so = *o;
        so.tool = &t;
        d = program_run(exe, &so, r);
        if (!d) sanitizer_report_parse(r->tool_output, sanitizer, &out->sanitizer);
        if (!d && !r->tool_output) out->why = xstrdup("compute-sanitizer wrote no report");
    }
    free(path);
    return d;
}

/* `file` shown relative to `cwd` when it is under it. Static or file. */
static const char *shown_file(const char *file, const char *cwd) {
    size_t n = cwd ? strlen(cwd) : 0;
    if (file && n && !strncmp(file, cwd, n) && file[n] == '/' && file[n + 1]) return file + n + 1;
    return file;
}

static void print_ncu(StrBuf *sb, const NcuReport *rep) {
    for (int i = 0; i < rep->n_errors; i++) strbuf_printf(sb, "  ncu: error: %s\n", rep->errors[i]);
    int shown = rep->n_kernels < MAX_SHOWN ? rep->n_kernels : MAX_SHOWN;
    for (int i = 0; i < shown; i++) {
        const NcuKernel *k = &rep->kernels[i];
        strbuf_printf(sb, "  [%d] %s  grid (%d, %d, %d)  block (%d, %d, %d)\n", k->id, k->name, k->grid[0], k->grid[1],
                      k->grid[2], k->block[0], k->block[1], k->block[2]);
        for (int m = 0; m < k->n_metrics; m++) {
            const NcuMetric *x = &k->metrics[m];
            if (isnan(x->value)) strbuf_printf(sb, "      %-52s %s\n", x->name, x->text);
            else strbuf_printf(sb, "      %-52s %.6g %s\n", x->name, x->value, x->unit);
        }
        for (int m = 0; m < k->n_rules; m++)
            strbuf_printf(sb, "      %s (%s): %s\n", k->rules[m].name, k->rules[m].type, k->rules[m].description);
    }
    if (rep->n_kernels > shown) strbuf_printf(sb, "  ... and %d more launches (--json has them all)\n",
                                              rep->n_kernels - shown);
    for (int i = 0; i < rep->n_warnings; i++) strbuf_printf(sb, "  ncu: warning: %s\n", rep->warnings[i]);
}

static void print_nsys(StrBuf *sb, const NsysSummary *s) {
    if (s->n_kernels) strbuf_printf(sb, "  %-40s %8s %14s %14s %7s\n", "kernel", "count", "total (ns)", "avg (ns)", "time %");
    for (int i = 0; i < s->n_kernels && i < MAX_SHOWN; i++) {
        const NsysKernel *k = &s->kernels[i];
        strbuf_printf(sb, "  %-40s %8ld %14.0f %14.1f %7.1f\n", k->function, k->count, k->total_ns, k->avg_ns,
                      isnan(k->share_pct) ? 0 : k->share_pct);
    }
    if (s->n_memops) strbuf_printf(sb, "  %-40s %8s %14s %14s\n", "copy or set", "count", "total (ns)", "avg (ns)");
    for (int i = 0; i < s->n_memops && i < MAX_SHOWN; i++) {
        const NsysMemop *m = &s->memops[i];
        strbuf_printf(sb, "  %-40s %8ld %14.0f %14.1f\n", m->operation, m->count, m->total_ns, m->avg_ns);
    }
}

static void print_sanitizer(StrBuf *sb, const SanitizerReport *rep, const char *cwd) {
    for (int i = 0; i < rep->n_errors && i < MAX_SHOWN; i++) {
        const SanitizerError *e = &rep->errors[i];
        strbuf_printf(sb, "  %s", e->message);
        if (e->kernel) strbuf_printf(sb, " in %s", e->kernel);
        if (e->file) strbuf_printf(sb, " at %s:%d", shown_file(e->file, cwd), e->line);
        if (e->thread[0] >= 0) strbuf_printf(sb, " (thread (%d,%d,%d)", e->thread[0], e->thread[1], e->thread[2]);
        if (e->thread[0] >= 0 && e->block[0] >= 0)
            strbuf_printf(sb, " in block (%d,%d,%d)", e->block[0], e->block[1], e->block[2]);
        if (e->thread[0] >= 0) strbuf_append(sb, ")");
        if (e->count > 1) strbuf_printf(sb, " ×%d", e->count);
        strbuf_append(sb, "\n");
    }
}

void exec_tool_print(const char *prog, const ExecToolReport *t, const ProgramResult *r, const char *cwd) {
    StrBuf sb;
    strbuf_init(&sb);
    if (!strcmp(t->name, "ncu")) {
        strbuf_printf(&sb, "cudojo exec: ncu profiled %d kernel launch%s of %s%s\n", t->ncu.n_kernels,
                      t->ncu.n_kernels == 1 ? "" : "es", prog, t->ncu.n_kernels ? ":" : "");
        print_ncu(&sb, &t->ncu);
    } else if (!strcmp(t->name, "nsys")) {
        strbuf_printf(&sb, "cudojo exec: nsys saw %d kernel%s and %d kind%s of copy in %s%s\n", t->nsys.n_kernels,
                      t->nsys.n_kernels == 1 ? "" : "s", t->nsys.n_memops, t->nsys.n_memops == 1 ? "" : "s", prog,
                      t->nsys.n_kernels || t->nsys.n_memops ? ":" : "");
        print_nsys(&sb, &t->nsys);
    } else {
        const SanitizerReport *s = &t->sanitizer;
        strbuf_printf(&sb, "cudojo exec: compute-sanitizer %s: %s%d error%s in %s%s\n", t->name,
                      s->has_summary ? "" : "(no summary: it did not finish) ", s->total, s->total == 1 ? "" : "s",
                      prog, s->n_errors ? ":" : "");
        print_sanitizer(&sb, s, cwd);
    }
    if (t->why) strbuf_printf(&sb, "  (%s)\n", t->why);
    char *end = program_result_ending(r);
    strbuf_printf(&sb, "It %s (cudojo's own recorder is off under %s).\n", end, t->name);
    free(end);
    char *safe = bytes_printable(sb.data);
    fputs(safe, stderr);
    free(safe);
    strbuf_fini(&sb);
}

json_t *exec_tool_json(const ExecToolReport *t, const ProgramResult *r) {
    json_t *j = json_object();
    json_object_set_new(j, "name", json_string(t->name ? t->name : ""));
    json_object_set_new(j, "why", t->why ? bytes_to_json(t->why) : json_null());
    json_t *ks = json_array();
    if (t->name && !strcmp(t->name, "ncu")) {
        for (int i = 0; i < t->ncu.n_kernels; i++) {
            const NcuKernel *k = &t->ncu.kernels[i];
            json_t *o = json_object(), *m = json_object();
            json_object_set_new(o, "name", bytes_to_json(k->function));
            json_object_set_new(o, "signature", bytes_to_json(k->name));
            json_object_set_new(o, "id", json_integer(k->id));
            json_object_set_new(o, "grid", json_pack("[iii]", k->grid[0], k->grid[1], k->grid[2]));
            json_object_set_new(o, "block", json_pack("[iii]", k->block[0], k->block[1], k->block[2]));
            for (int x = 0; x < k->n_metrics; x++)
                json_object_set_new(m, k->metrics[x].name, isnan(k->metrics[x].value) ? bytes_to_json(k->metrics[x].text)
                                                                                       : json_real(k->metrics[x].value));
            json_object_set_new(o, "metrics", m);
            json_array_append_new(ks, o);
        }
        json_t *errs = json_array();
        for (int i = 0; i < t->ncu.n_errors; i++) json_array_append_new(errs, bytes_to_json(t->ncu.errors[i]));
        json_object_set_new(j, "errors", errs);
    } else if (t->name && !strcmp(t->name, "nsys")) {
        for (int i = 0; i < t->nsys.n_kernels; i++) {
            const NsysKernel *k = &t->nsys.kernels[i];
            json_array_append_new(ks, json_pack("{s:o, s:I, s:f, s:f}", "name", bytes_to_json(k->function), "count",
                                                (json_int_t)k->count, "total_ns", k->total_ns, "avg_ns", k->avg_ns));
        }
        json_t *ms = json_array();
        for (int i = 0; i < t->nsys.n_memops; i++) {
            const NsysMemop *m = &t->nsys.memops[i];
            json_array_append_new(ms, json_pack("{s:o, s:s, s:I, s:f}", "operation", bytes_to_json(m->operation), "kind",
                                                m->kind, "count", (json_int_t)m->count, "total_ns", m->total_ns));
        }
        json_object_set_new(j, "memops", ms);
    } else {
        json_t *errs = json_array();
        for (int i = 0; i < t->sanitizer.n_errors; i++) {
            const SanitizerError *e = &t->sanitizer.errors[i];
            json_array_append_new(errs, json_pack("{s:s, s:o, s:o, s:o, s:i, s:i}", "kind", e->kind, "message",
                                                  bytes_to_json(e->message), "kernel",
                                                  e->kernel ? bytes_to_json(e->kernel) : json_null(), "file",
                                                  e->file ? bytes_to_json(e->file) : json_null(), "line", e->line,
                                                  "count", e->count));
        }
        json_object_set_new(j, "errors", errs);
        json_object_set_new(j, "total", json_integer(t->sanitizer.total));
    }
    json_object_set_new(j, "kernels", ks);
    const char *text = t->name && !strcmp(t->name, "nsys") ? t->nsys_text : r->tool_output;
    json_object_set_new(j, "text", bytes_to_json(text ? text : ""));
    return j;
}

void exec_tool_report_fini(ExecToolReport *t) {
    ncu_report_fini(&t->ncu);
    nsys_summary_fini(&t->nsys);
    sanitizer_report_fini(&t->sanitizer);
    free(t->nsys_text);
    free(t->why);
    memset(t, 0, sizeof *t);
}
