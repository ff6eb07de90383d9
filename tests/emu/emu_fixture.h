/* tests/emu/emu_fixture.h: compile a CUDA snippet with NVRTC and run it on
 * the emulator backend (included by the tests in tests/emu/).
 *
 * Each test file includes this once; the helpers are static so every test
 * binary has its own copy. */
#ifndef CUDOJO_TESTS_EMU_FIXTURE_H
#define CUDOJO_TESTS_EMU_FIXTURE_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "kernels/backend.h"
#include "kernels/compile.h"

typedef struct EmuFx {
    Backend *b;
    CompiledModule *cm;
    BackendModule *m;
    LaunchReport r;
    char *findings;     /* formatted findings of the last launch */
} EmuFx;

static EmuOptions fx_opts(bool checks, bool metrics) {
    EmuOptions o;
    memset(&o, 0, sizeof o);
    o.checks = checks;
    o.metrics = metrics;
    o.threads = 2;
    return o;
}

/* Compiles `src` as "k.cu" and loads it; fails the test on any error. */
static void fx_load_opts(EmuFx *f, const char *src, const EmuOptions *o, const CompileOptions *co) {
    memset(f, 0, sizeof *f);
    Diag *why = NULL;
    f->b = emu_backend_new(o, &why);
    assert_non_null(f->b);
    CompileOptions def;
    memset(&def, 0, sizeof def);
    def.cache_dir = "";
    Diag *d = compile_cuda("k.cu", src, co ? co : &def, &f->cm);
    if (d) fail_msg("compile: %s", diag_format_all(d, false));
    d = f->b->ops->module_load(f->b, f->cm, &f->m);
    if (d) fail_msg("module_load: %s", diag_format_all(d, false));
    launch_report_init(&f->r);
}

static void fx_load(EmuFx *f, const char *src, const EmuOptions *o) { fx_load_opts(f, src, o, NULL); }

static DevPtr fx_array(EmuFx *f, const char *label, size_t elem, size_t n, const void *init) {
    DevPtr p;
    Diag *d = f->b->ops->mem_alloc(f->b, elem * n, label, elem, &p);
    assert_null(d);
    if (init) assert_null(f->b->ops->copy_to_device(f->b, p, init, elem * n));
    else assert_null(f->b->ops->memset(f->b, p, 0, elem * n));
    return p;
}

static void fx_get(EmuFx *f, void *dst, DevPtr src, size_t bytes) {
    assert_null(f->b->ops->copy_to_host(f->b, dst, src, bytes));
}

/* Launches and keeps the report; returns the launch Diag (NULL on success). */
static Diag *fx_launch(EmuFx *f, const char *kernel, Dim3 grid, Dim3 block, size_t shared,
                       const KernelArg *args, int nargs) {
    launch_report_fini(&f->r);
    free(f->findings);
    f->findings = NULL;
    LaunchConfig cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.grid = grid;
    cfg.block = block;
    cfg.shared_bytes = shared;
    Diag *d = f->b->ops->launch(f->b, f->m, kernel, &cfg, args, nargs, &f->r);
    f->findings = f->r.findings ? diag_format_all(f->r.findings, false) : calloc(1, 1);
    return d;
}

static void fx_run(EmuFx *f, const char *kernel, unsigned grid, unsigned block, const KernelArg *args, int nargs) {
    Diag *d = fx_launch(f, kernel, (Dim3){grid, 1, 1}, (Dim3){block, 1, 1}, 0, args, nargs);
    if (d) fail_msg("launch: %s", diag_format_all(d, false));
}

/* The first finding with `code`, or NULL. */
static const Diag *fx_finding(const EmuFx *f, const char *code) {
    for (const Diag *d = f->r.findings; d; d = d->next)
        if (!strcmp(d->code, code)) return d;
    return NULL;
}

static double fx_total(const EmuFx *f, const char *key) {
    json_t *t = json_object_get(f->r.metrics, "totals");
    return json_number_value(json_object_get(t, key));
}

/* Per-line metric `key` for source line `line` (-1 when absent). */
static double fx_line(const EmuFx *f, int line, const char *key) {
    json_t *lines = json_object_get(f->r.metrics, "lines");
    size_t i;
    json_t *o;
    json_array_foreach(lines, i, o) {
        if (json_integer_value(json_object_get(o, "line")) == line) {
            json_t *v = json_object_get(o, key);
            return v ? json_number_value(v) : -1;
        }
    }
    return -1;
}

static void fx_free(EmuFx *f) {
    launch_report_fini(&f->r);
    free(f->findings);
    if (f->m) f->b->ops->module_unload(f->b, &f->m);
    compiled_module_free(&f->cm);
    backend_close(&f->b);
}

#endif
