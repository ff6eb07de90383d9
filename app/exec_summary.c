/* app/exec_summary.c: `cudojo exec`'s report of a run: the exit status
 * passed on, a summary paragraph (calls per function in the order first
 * called, kernels with their modeled or measured time, findings counted,
 * how it ended) and the --json document. */
#include "app/exec_summary.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/bytes.h"
#include "base/i18n.h"
#include "base/strbuf.h"
#include "base/xalloc.h"

int exec_exit_status(const ProgramResult *r) {
    if (!r->started) return EXIT_CANNOT_EXEC;
    if (r->cancelled) return 130;
    if (r->timed_out) return EXIT_TIMEOUT;
    if (r->signaled) return 128 + r->signal;
    return r->exit_code;
}

/* "cudaMalloc ×3, cudaMemcpy ×2" in the order first called. */
static void summarise_calls(StrBuf *sb, const ProgramResult *r) {
    json_t *counts = json_object();
    json_t *order = json_array();
    size_t i;
    json_t *c;
    json_array_foreach(r->calls, i, c) {
        const char *fn = json_string_value(json_object_get(c, "fn"));
        if (!fn) continue;
        json_t *n = json_object_get(counts, fn);
        if (!n) json_array_append_new(order, bytes_to_json(fn));
        json_object_set_new(counts, fn, json_integer(n ? json_integer_value(n) + 1 : 1));
    }
    size_t total = json_array_size(r->calls) + (size_t)r->calls_dropped;
    strbuf_printf(sb, P_(total, "%zu CUDA call (", "%zu CUDA calls ("), total);
    json_array_foreach(order, i, c) {
        const char *fn = json_string_value(c);
        strbuf_printf(sb, "%s%s ×%lld", i ? ", " : "", fn, (long long)json_integer_value(json_object_get(counts, fn)));
    }
    if (r->calls_dropped) strbuf_printf(sb, _("%s%ld not recorded"), json_array_size(order) ? ", " : "", r->calls_dropped);
    strbuf_append(sb, ")");
    json_decref(counts);
    json_decref(order);
}

/* "vector_add ×2 (0.012 ms each, modeled)" per kernel name. */
static void summarise_kernels(StrBuf *sb, const ProgramResult *r) {
    size_t n = json_array_size(r->kernels);
    if (!n) {
        strbuf_append(sb, _("; no kernel ran"));
        return;
    }
    strbuf_printf(sb, P_(n, "; %zu kernel launch: ", "; %zu kernel launches: "), n);
    json_t *seen = json_object();
    size_t i, shown = 0;
    json_t *k;
    json_array_foreach(r->kernels, i, k) {
        const char *name = json_string_value(json_object_get(k, "name"));
        if (!name) name = "?";
        if (json_object_get(seen, name)) continue;
        json_object_set_new(seen, name, json_true());
        int count = 0;
        double ms = 0;
        bool modeled = false, timed = false;
        size_t j;
        json_t *o;
        json_array_foreach(r->kernels, j, o) {
            const char *nm = json_string_value(json_object_get(o, "name"));
            if (strcmp(nm ? nm : "?", name)) continue;
            count++;
            json_t *t = json_object_get(o, "ms");
            if (json_is_number(t)) {
                ms += json_number_value(t);
                timed = true;
            }
            modeled |= json_is_true(json_object_get(o, "modeled"));
        }
        strbuf_printf(sb, "%s%s ×%d", shown++ ? ", " : "", name, count);
        if (timed) strbuf_printf(sb, _(" (%.3f ms on average, %s)"), ms / count, modeled ? _("modeled") : _("measured"));
    }
    json_decref(seen);
}

void exec_print_summary(const char *prog, const ProgramResult *r, ProgramRuntime rt) {
    StrBuf sb;
    strbuf_init(&sb);
    const char *where = rt == PROGRAM_RT_EMU ? _("cudojo's emulator runtime") : _("the GPU");
    strbuf_printf(&sb, _("cudojo exec: %s ran on %s"), prog, where);
    if (r->device) strbuf_printf(&sb, " (%s)", r->device);
    if (r->touched_gpu) {
        strbuf_append(&sb, _(": "));
        summarise_calls(&sb, r);
        summarise_kernels(&sb, r);
    } else if (r->started) {
        strbuf_append(&sb, _(" and made no CUDA runtime call"));
    }
    int errors = 0, warnings = 0;
    for (const Diag *d = r->findings; d; d = d->next) {
        if (!strcmp(d->code, "output-capped")) continue;
        if (d->severity == DIAG_ERROR) errors++;
        else if (d->severity == DIAG_WARNING) warnings++;
    }
    if (errors) strbuf_printf(&sb, P_(errors, "; %d error", "; %d errors"), errors);
    if (warnings && errors) strbuf_printf(&sb, P_(warnings, " and %d warning", " and %d warnings"), warnings);
    else if (warnings) strbuf_printf(&sb, P_(warnings, "; %d warning", "; %d warnings"), warnings);
    if (errors || warnings) strbuf_append(&sb, _(" above"));
    char *end = program_result_ending(r), *end_shown = i18n_message(end);   /* English in --json */
    strbuf_printf(&sb, _(". It %s.\n"), end_shown);
    free(end_shown);
    free(end);
    char *safe = bytes_printable(sb.data);
    fputs(safe, stderr);
    free(safe);
    strbuf_fini(&sb);
}

json_t *exec_result_json(const char *exe, char *const *args_in, int n_args, const ProgramResult *r, ProgramRuntime rt) {
    json_t *args = json_array();
    for (int i = 0; i < n_args; i++) json_array_append_new(args, bytes_to_json(args_in[i]));
    char *end = program_result_ending(r);
    json_t *j = json_object();
    json_object_set_new(j, "program", bytes_to_json(exe));
    json_object_set_new(j, "args", args);
    json_object_set_new(j, "backend", json_string(rt == PROGRAM_RT_EMU ? "emu" : "cuda"));
    json_object_set_new(j, "runtime", r->runtime_name ? json_string(r->runtime_name) : json_null());
    json_object_set_new(j, "device", r->device ? bytes_to_json(r->device) : json_null());
    json_object_set_new(j, "started", json_boolean(r->started));
    json_object_set_new(j, "exit_code", r->started && !r->signaled && !r->timed_out && !r->cancelled
                                            ? json_integer(r->exit_code) : json_null());
    json_object_set_new(j, "signal", r->signaled ? json_integer(r->signal) : json_null());
    json_object_set_new(j, "timed_out", json_boolean(r->timed_out));
    json_object_set_new(j, "cancelled", json_boolean(r->cancelled));
    json_object_set_new(j, "ending", bytes_to_json(end));
    json_object_set_new(j, "exit_status", json_integer(exec_exit_status(r)));
    json_object_set_new(j, "wall_ms", json_real(r->wall_ms));
    json_object_set_new(j, "stdout", bytes_to_json_n(r->out ? r->out : "", r->out_len));
    json_object_set_new(j, "stdout_bytes", json_integer((json_int_t)r->out_total));
    json_object_set_new(j, "stderr", bytes_to_json_n(r->err ? r->err : "", r->err_len));
    json_object_set_new(j, "stderr_bytes", json_integer((json_int_t)r->err_total));
    json_object_set_new(j, "touched_gpu", json_boolean(r->touched_gpu));
    json_object_set_new(j, "calls", r->calls ? json_incref(r->calls) : json_array());
    json_object_set_new(j, "calls_dropped", json_integer(r->calls_dropped));
    json_object_set_new(j, "kernels", r->kernels ? json_incref(r->kernels) : json_array());
    json_object_set_new(j, "timeline", r->timeline ? timeline_to_json(r->timeline) : json_null());
    json_object_set_new(j, "findings", diag_to_json(r->findings));
    free(end);
    return j;
}

