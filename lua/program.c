/* lua/program.c: program exercises (kind = "program"): t:program{...} builds
 * the learner's whole program (main(), host code, <<<...>>>) with nvcc and
 * runs it as a child of the worker (kernels/program.h) on the GPU's
 * libcudart or on cudojo's emulator runtime, and hands back what it did as
 * the result table r (lua/program_result.c, with t:expect_exit and
 * t:expect_output, which check it).
 *
 * What the program does is the learner's: a compile error ends the run with
 * compile-error, a crash or a hang with fail or timeout (nothing after it
 * could mean anything), error findings (out of bounds, races, a call the
 * emulator runtime lacks) fail the run like a kernel launch's do. Misuse of
 * the API (a bad option, an output file that was never asked for) is a Lua
 * error at the author's line. The program's stdout and stderr become the
 * run's device output, its timeline the run's timeline, its kernels the
 * run's kernel metrics. */
#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>

#include "base/bytes.h"
#include "base/fs.h"
#include "base/i18n.h"
#include "base/xalloc.h"
#include "lua/run.h"

#define MAX_ARGS 256
#define MAX_DEFINES 32
#define MAX_FILES 64
#define MAX_DEVICES 16
/* The share of the exercise's timeout a program may run to: the rest is
 * for the checks after it, under the script's own wall-clock limit (90%,
 * exercise_run.c), and for the worker, not its parent's watchdog, to be
 * the one that reports a program that ran out of time. */
#define TIMEOUT_SHARE 0.85

static const char *const option_keys[] = {"args", "defines", "stdin", "files", "outputs", "timeout", "devices",
                                          "sanitizer", "expect_errors", "processes", "mps", "peer", "profile",
                                          "metrics", "after", "emulator", NULL};

void run_programs_free(RunCtx *ctx) {
    for (int i = 0; i < ctx->n_progs; i++) {
        compiled_program_free(&ctx->progs[i].cp);
        free(ctx->progs[i].key);
    }
    XFREE(ctx->progs);
    ctx->n_progs = 0;
    timeline_free(&ctx->prog_timeline);
}

static int str_ptr_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* A number or a string option value as a string (anchored in the table at
 * `anchor` so the pointer stays valid). */
static const char *anchored_string(lua_State *L, int idx, int anchor, const char *what) {
    idx = lua_absindex(L, idx);
    if (lua_type(L, idx) != LUA_TSTRING && lua_type(L, idx) != LUA_TNUMBER)
        luaL_error(L, "t:program: %s must be a string or a number, not %s", what, luaL_typename(L, idx));
    luaL_tolstring(L, idx, NULL);
    const char *s = lua_tostring(L, -1);
    lua_rawseti(L, anchor, (lua_Integer)lua_rawlen(L, anchor) + 1);
    return s;
}

/* One path component: what the program finds in (or leaves in) its cwd. */
static const char *check_file_name(lua_State *L, int idx, const char *field) {
    if (lua_type(L, idx) != LUA_TSTRING)
        luaL_error(L, "t:program: %s = { [\"name.bin\"] = ... }: file names are strings, not %s", field,
                   luaL_typename(L, idx));
    size_t len;
    const char *s = lua_tolstring(L, idx, &len);
    if (!len || len > 255 || strlen(s) != len || strchr(s, '/') || !strcmp(s, ".") || !strcmp(s, ".."))
        luaL_error(L, "t:program: %s: '%s' is not a plain file name (one name in the program's folder, no '/')",
                   field, s);
    return s;
}

/* metrics.compile.builds[]: each nvcc build of the run, with what makes its
 * cache key besides the file (kernels/program_compile.c): the defines (as
 * nvcc gets them, sorted), sass_arch (0: PTX only), confine; and what it
 * cost: cache_hit, ms, wait_ms (for a compile of the same key elsewhere:
 * `cudojo grade` compiling ahead). The grader learns an exercise's builds
 * from these and compiles the next students' files ahead (app/grade_ahead.c). */
static void program_record_build(json_t *comp, const ProgramCompileOptions *co, const CompiledProgram *cp) {
    json_t *builds = json_object_get(comp, "builds");
    if (!json_is_array(builds)) {
        builds = json_array();
        json_object_set_new(comp, "builds", builds);
    }
    json_t *defs = json_array();
    for (int i = 0; i < co->n_defines; i++) json_array_append_new(defs, bytes_to_json(co->defines[i]));
    json_array_append_new(builds, json_pack("{s:o, s:i, s:b, s:b, s:f, s:f}", "defines", defs, "sass_arch",
                                            co->sass_arch, "confine", co->confine, "cache_hit", cp->cache_hit,
                                            "ms", cp->compile_ms, "wait_ms", cp->wait_ms));
}

/* Compiles (or reuses) the learner's program for these defines. */
static const CompiledProgram *program_for(lua_State *L, RunCtx *ctx, const char *key, const char *const *defs,
                                          int n_defs) {
    for (int i = 0; i < ctx->n_progs; i++)
        if (!strcmp(ctx->progs[i].key, key)) return ctx->progs[i].cp;
    bool gpu = !strcmp(ctx->b->ops->name, "cuda");
    ProgramCompileOptions co;
    memset(&co, 0, sizeof co);
    /* On a GPU: SASS for it. On the emulator: as the GPU run being checked built it (grading's
       emulator check), the same executable from the cache, whose PTX (compute_90 for an H200's SASS)
       the emulator runs. */
    if (gpu) co.sass_arch = ctx->have_dev ? ctx->dev.cc_major * 10 + ctx->dev.cc_minor : 0;
    else co.sass_arch = ctx->opts->sass_arch;
    co.defines = defs;
    co.n_defines = n_defs;
    /* Beside the run's NVRTC cache when it has its own (tests, bundles). */
    char *dir = ctx->opts->cache_dir && ctx->opts->cache_dir[0] ? path_join(ctx->opts->cache_dir, "nvcc") : NULL;
    co.cache_dir = dir ? dir : ctx->opts->cache_dir;
    co.confine = ctx->opts->grading;    /* a stranger's source: nvcc runs shut in */
    CompiledProgram *cp = NULL;
    run_activity(L, "compile", N_("compiling %s with nvcc"), ctx->cu_display);
    Diag *d = program_compile(ctx->cu_display, ctx->cu_text, &co, &cp);
    run_activity(L, "script", "running the exercise script");
    free(dir);
    if (d) {
        /* No nvcc, no temp dir: this machine's problem, not the learner's code. */
        bool machine = false;
        for (const Diag *e = d; e && !machine; e = e->next)
            machine = e->code && (!strcmp(e->code, "no-nvcc") || !strcmp(e->code, "io"));
        api_abort(L, machine ? VERDICT_RUNTIME_ERROR : VERDICT_COMPILE_ERROR, d);
    }
    ctx->progs = xrealloc(ctx->progs, (size_t)(ctx->n_progs + 1) * sizeof *ctx->progs);
    ctx->progs[ctx->n_progs++] = (ProgramEntry){xstrdup(key), cp};
    if (cp->warnings) diag_append(&ctx->diags, run_diag_clone(cp->warnings));
    json_t *comp = run_metrics_obj(ctx, NULL, "compile");
    json_object_set_new(comp, "ms", json_real(json_number_value(json_object_get(comp, "ms")) + cp->compile_ms));
    json_object_set_new(comp, "cache_hit", json_boolean(cp->cache_hit));
    json_object_set_new(comp, "compiler", json_string("nvcc"));
    if (co.sass_arch > 0) json_object_set_new(comp, "sass_arch", json_integer(co.sass_arch));
    program_record_build(comp, &co, cp);
    return cp;
}

/* ---- reading t:program's options (the table at index 2) ---- */

typedef struct ProgramCall {
    const char *args[MAX_ARGS];
    int n_args;
    const char *defs[MAX_DEFINES];
    int n_defs;
    ProgramFile files[MAX_FILES];
    int n_files;
    const char *want[MAX_FILES];
    int want_type[MAX_FILES];       /* a DType, or -1 for "bytes" (a string) */
    int n_want;
    const char *stdin_data;
    size_t stdin_size;
    double timeout_s;               /* 0 = the rest of the exercise's timeout */
    int devices;
    const char *sanitizer;          /* compute-sanitizer's tool on a GPU (program_tools.c); NULL = none */
    bool sanitizer_after;           /* after = function(san): the sanitizer's run waits for the verdict */
    bool emulator;                  /* emulator = true: on a GPU also run on the emulator, its findings count */
    bool expect_errors;             /* CUDA errors on purpose: launch and fault findings are warnings */
    int processes;                  /* 0 = one, as usual; else that many copies at once (program_mps.c) */
    bool mps;                       /* with them: MPS (a private daemon on a GPU, the model on the emulator) */
    bool no_peer;                   /* peer = false: emulated devices cannot reach each other */
    ProfileRequest profile;         /* profile = "ncu" | "nsys", metrics = {...} (program_tools.c) */
} ProgramCall;

static void read_args(lua_State *L, ProgramCall *pc, int anchor) {
    if (lua_getfield(L, 2, "args") != LUA_TNIL) {
        luaL_checktype(L, -1, LUA_TTABLE);
        lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
        if (n > MAX_ARGS) luaL_error(L, "t:program: more than %d args", MAX_ARGS);
        for (lua_Integer i = 1; i <= n; i++) {
            lua_rawgeti(L, -1, i);
            char what[32];
            snprintf(what, sizeof what, "args[%d]", (int)i);
            pc->args[pc->n_args++] = anchored_string(L, -1, anchor, what);
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 1);
}

static void read_defines(lua_State *L, ProgramCall *pc, int anchor) {
    if (lua_getfield(L, 2, "defines") != LUA_TNIL) {
        luaL_checktype(L, -1, LUA_TTABLE);
        int dt = lua_gettop(L);
        lua_pushnil(L);
        while (lua_next(L, dt)) {
            if (pc->n_defs == MAX_DEFINES) luaL_error(L, "t:program: more than %d defines", MAX_DEFINES);
            if (lua_type(L, -2) != LUA_TSTRING) luaL_error(L, "t:program: defines = { NAME = value, ... }");
            const char *k = lua_tostring(L, -2);
            if (lua_type(L, -1) == LUA_TBOOLEAN) {
                if (lua_toboolean(L, -1)) lua_pushstring(L, k);     /* -DNAME */
                else lua_pushnil(L);                                /* left undefined */
            } else if (lua_type(L, -1) == LUA_TNUMBER || lua_type(L, -1) == LUA_TSTRING) {
                lua_pushfstring(L, "%s=%s", k, luaL_tolstring(L, -1, NULL));
                lua_remove(L, -2);
            } else {
                luaL_error(L, "t:program: defines.%s must be a number, a string or a boolean, not %s", k,
                           luaL_typename(L, -1));
            }
            if (!lua_isnil(L, -1)) {
                pc->defs[pc->n_defs++] = lua_tostring(L, -1);
                lua_rawseti(L, anchor, (lua_Integer)lua_rawlen(L, anchor) + 1);
            } else {
                lua_pop(L, 1);
            }
            lua_pop(L, 1);
        }
        /* Sorted, so the same defines always find the same build. */
        qsort(pc->defs, (size_t)pc->n_defs, sizeof *pc->defs, str_ptr_cmp);
    }
    lua_pop(L, 1);
}

static void read_files(lua_State *L, ProgramCall *pc) {
    if (lua_getfield(L, 2, "files") != LUA_TNIL) {
        luaL_checktype(L, -1, LUA_TTABLE);
        int ft = lua_gettop(L);
        lua_pushnil(L);
        while (lua_next(L, ft)) {
            if (pc->n_files == MAX_FILES) luaL_error(L, "t:program: more than %d files", MAX_FILES);
            const char *name = check_file_name(L, -2, "files");
            ProgramFile *f = &pc->files[pc->n_files++];
            f->name = (char *)name;     /* the key string lives in the options table */
            GpuArray *g = array_test(L, -1);
            if (g) {
                f->data = (unsigned char *)array_host_read(L, g);
                f->size = array_bytes(g);
            } else if (lua_type(L, -1) == LUA_TSTRING) {
                f->data = (unsigned char *)lua_tolstring(L, -1, &f->size);
            } else {
                luaL_error(L, "t:program: files[\"%s\"] must be a gpu.array (its raw bytes) or a string, not %s",
                           name, luaL_typename(L, -1));
            }
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 1);
}

static void read_outputs(lua_State *L, ProgramCall *pc) {
    if (lua_getfield(L, 2, "outputs") != LUA_TNIL) {
        luaL_checktype(L, -1, LUA_TTABLE);
        int ot = lua_gettop(L);
        lua_pushnil(L);
        while (lua_next(L, ot)) {
            if (pc->n_want == MAX_FILES) luaL_error(L, "t:program: more than %d outputs", MAX_FILES);
            const char *name = check_file_name(L, -2, "outputs");
            const char *ty = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
            DType dt = DT_F32;
            if (!ty || (strcmp(ty, "bytes") && !dtype_parse(ty, &dt)))
                luaL_error(L, "t:program: outputs[\"%s\"] must name a type: \"f32\" \"f64\" \"i32\" \"u32\" \"i64\" "
                              "\"u64\" \"i8\" \"u8\" \"i16\" \"u16\" or \"bytes\" (a string)", name);
            pc->want[pc->n_want] = name;
            pc->want_type[pc->n_want++] = strcmp(ty, "bytes") ? (int)dt : -1;
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 1);
}

static void read_options(lua_State *L, ProgramCall *pc, int anchor) {
    memset(pc, 0, sizeof *pc);
    ApiCtx *api = api_ctx(L);
    pc->devices = api && api->emu_devices ? api->emu_devices : 1;   /* t:emu_options{ devices = } */
    if (lua_isnoneornil(L, 2)) return;
    luaL_checktype(L, 2, LUA_TTABLE);
    sandbox_check_keys(L, 2, "t:program has no option", option_keys);
    read_args(L, pc, anchor);
    read_defines(L, pc, anchor);
    read_files(L, pc);
    read_outputs(L, pc);
    if (lua_getfield(L, 2, "stdin") != LUA_TNIL) {
        if (lua_type(L, -1) != LUA_TSTRING) luaL_error(L, "t:program: stdin must be a string");
        pc->stdin_data = lua_tolstring(L, -1, &pc->stdin_size);
    }
    if (lua_getfield(L, 2, "timeout") != LUA_TNIL) {
        pc->timeout_s = luaL_checknumber(L, -1);
        if (!(pc->timeout_s > 0)) luaL_error(L, "t:program: timeout must be a positive number of seconds");
    }
    if (lua_getfield(L, 2, "devices") != LUA_TNIL) {
        lua_Integer n = luaL_checkinteger(L, -1);
        if (n < 1 || n > MAX_DEVICES) luaL_error(L, "t:program: devices must be 1..%d", MAX_DEVICES);
        pc->devices = (int)n;
    }
    if (lua_getfield(L, 2, "sanitizer") != LUA_TNIL) pc->sanitizer = run_program_sanitizer_check(L, -1);
    if (lua_getfield(L, 2, "expect_errors") != LUA_TNIL) {
        luaL_checktype(L, -1, LUA_TBOOLEAN);
        pc->expect_errors = lua_toboolean(L, -1);
    }
    if (lua_getfield(L, 2, "processes") != LUA_TNIL) {
        lua_Integer n = luaL_checkinteger(L, -1);
        if (n < 1 || n > PROGRAM_MAX_PROCESSES)
            luaL_error(L, "t:program: processes must be 1..%d", PROGRAM_MAX_PROCESSES);
        pc->processes = (int)n;
    }
    if (lua_getfield(L, 2, "mps") != LUA_TNIL) {
        luaL_checktype(L, -1, LUA_TBOOLEAN);
        pc->mps = lua_toboolean(L, -1);
        if (!pc->processes) luaL_error(L, "t:program: mps goes with processes = N (the processes that share the GPU)");
    }
    if (lua_getfield(L, 2, "peer") != LUA_TNIL) {
        luaL_checktype(L, -1, LUA_TBOOLEAN);
        pc->no_peer = !lua_toboolean(L, -1);
    }
    if (pc->processes && pc->sanitizer) luaL_error(L, "t:program: sanitizer and processes do not go together");
    run_program_profile_check(L, 2, &pc->profile);
    if (lua_getfield(L, 2, "after") != LUA_TNIL && pc->sanitizer) pc->sanitizer_after = true;
    lua_pop(L, 1);
    if (lua_getfield(L, 2, "emulator") != LUA_TNIL) {
        if (!lua_isboolean(L, -1))
            luaL_error(L, "t:program: emulator must be true or false (also run on the emulator, beside a GPU's "
                          "run), not %s", luaL_typename(L, -1));
        pc->emulator = lua_toboolean(L, -1);
        if (pc->processes) luaL_error(L, "t:program: emulator and processes do not go together");
    }
    lua_pop(L, 1);
    if (pc->processes && pc->profile.tool) luaL_error(L, "t:program: profile and processes do not go together");
    lua_pop(L, 8);  /* the stdin string stays alive: the options table holds it */
}

/* ---- what the program did, into the run ---- */

/* Length of a demangled kernel name without its parameter list:
 * "saxpy(int, float*)" -> 5, "scale<float>(float*)" -> 12. */
static size_t bare_name_len(const char *s) {
    size_t n = strlen(s);
    if (!n || s[n - 1] != ')') return n;
    int depth = 0;
    for (size_t i = n; i-- > 0;) {
        if (s[i] == ')') depth++;
        else if (s[i] == '(' && --depth == 0) return i ? i : n;
    }
    return n;
}

/* Kernels are named as the learner wrote them (as t:kernel's are): a
 * runtime may report the demangled signature, which r.kernels keeps as
 * `signature`. */
static void name_kernels(ProgramResult *pr) {
    size_t i;
    json_t *k;
    json_array_foreach(pr->kernels, i, k) {
        const char *name = json_string_value(json_object_get(k, "name"));
        if (!name || bare_name_len(name) == strlen(name)) continue;
        json_t *sig = bytes_to_json(name);
        json_object_set_new(k, "name", json_stringn(name, bare_name_len(name)));
        json_object_set_new(k, "signature", sig);
    }
    for (int e = 0; pr->timeline && e < pr->timeline->n; e++) {
        TimelineEntry *te = &pr->timeline->v[e];
        if (te->kind == TL_KERNEL && te->name) te->name[bare_name_len(te->name)] = '\0';
    }
}

static void absorb_output(RunCtx *ctx, const ProgramResult *pr) {
    bool more = ctx->n_programs_run > 1;
    if (more && (pr->out_len || pr->err_len))
        strbuf_printf(&ctx->devout, "%s--- program run %d ---\n", ctx->has_devout ? "\n" : "", ctx->n_programs_run);
    if (pr->out_len) {
        strbuf_append(&ctx->devout, pr->out);
        if (pr->out[pr->out_len - 1] != '\n') strbuf_append(&ctx->devout, "\n");
    }
    if (pr->out_total > pr->out_len)
        strbuf_printf(&ctx->devout, "[... %zu more bytes of output not kept]\n", pr->out_total - pr->out_len);
    if (pr->err_len) {
        strbuf_append(&ctx->devout, "--- stderr ---\n");
        strbuf_append(&ctx->devout, pr->err);
        if (pr->err[pr->err_len - 1] != '\n') strbuf_append(&ctx->devout, "\n");
    }
    if (pr->err_total > pr->err_len)
        strbuf_printf(&ctx->devout, "[... %zu more bytes of stderr not kept]\n", pr->err_total - pr->err_len);
    if (pr->out_len || pr->err_len || pr->out_total || pr->err_total) ctx->has_devout = true;
}

static double median(json_t *arr) {
    size_t n = json_array_size(arr);
    double *v = xmalloc((n ? n : 1) * sizeof *v);
    for (size_t i = 0; i < n; i++) v[i] = json_number_value(json_array_get(arr, i));
    for (size_t i = 1; i < n; i++)     /* insertion sort: a few hundred launches at most per kernel */
        for (size_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    double m = n ? (n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2) : 0;
    free(v);
    return m;
}

/* metrics.kernels[name] like t:kernel's launches: count, block, resources,
 * and the median time (time_ms measured on a GPU, modeled_ms on the
 * emulator: a model is never shown as a measurement). */
static void absorb_kernels(RunCtx *ctx, ProgramResult *pr, bool emu) {
    size_t n = json_array_size(pr->kernels);
    if (!n) return;
    int cc = ctx->have_dev ? ctx->dev.cc_major * 10 + ctx->dev.cc_minor : 90;
    char arch[16];
    snprintf(arch, sizeof arch, "sm_%d", cc);
    json_t *times = json_object();      /* name -> [ms...], then name+"\1" -> modeled */
    json_t *kernels = run_metrics_obj(ctx, NULL, "kernels");
    json_t *last_metrics = NULL;
    for (size_t i = 0; i < n; i++) {
        json_t *k = json_array_get(pr->kernels, i);
        const char *name = json_string_value(json_object_get(k, "name"));
        if (!name) continue;
        json_t *km = run_metrics_obj(ctx, kernels, name);
        json_object_set_new(km, "launches", json_integer(json_integer_value(json_object_get(km, "launches")) + 1));
        json_object_set_new(km, "arch", json_string(arch));
        json_t *block = json_object_get(k, "block");
        json_int_t threads = 1;
        for (size_t d = 0; d < 3; d++)
            if (json_is_integer(json_array_get(block, d))) threads *= json_integer_value(json_array_get(block, d));
        json_object_set_new(km, "block", json_integer(threads));
        json_object_set_new(km, "shared_dynamic", json_integer(json_integer_value(json_object_get(k, "shared"))));
        static const char *const res[] = {"registers", "shared_static", "local_bytes"};
        for (int r = 0; r < 3; r++) {
            json_t *v = json_object_get(k, res[r]);
            if (json_is_integer(v) && json_integer_value(v) >= 0) json_object_set(km, res[r], v);
        }
        json_t *ms = json_object_get(k, "ms");
        if (json_is_number(ms) && json_number_value(ms) >= 0) {
            json_t *a = json_object_get(times, name);
            if (!a) {
                a = json_array();
                json_object_set_new(times, name, a);
            }
            json_array_append(a, ms);
            json_object_set_new(km, "modeled", json_boolean(json_is_true(json_object_get(k, "modeled"))));
        }
        json_t *m = json_object_get(k, "metrics");
        if (json_is_object(m)) last_metrics = m;
        if (emu && json_is_object(m)) run_note_launch_size(ctx, m);
    }
    const char *name;
    json_t *a;
    json_object_foreach(times, name, a) {
        json_t *km = json_object_get(kernels, name);
        bool modeled = json_is_true(json_object_get(km, "modeled"));
        json_object_set_new(km, modeled ? "modeled_ms" : "time_ms", json_real(median(a)));
        json_object_set_new(km, "program_launches", json_integer((json_int_t)json_array_size(a)));
    }
    json_decref(times);
    ctx->n_launches += (int)n;
    json_object_set_new(ctx->metrics, "launches", json_integer(ctx->n_launches));
    if (emu && last_metrics) {
        if (ctx->last_emu) json_decref(ctx->last_emu);
        ctx->last_emu = json_incref(last_metrics);
        json_object_set(ctx->metrics, "emu", last_metrics);
    }
}

static void absorb_findings(RunCtx *ctx, ProgramResult *pr) {
    for (const Diag *f = pr->findings; f; f = f->next)
        if (f->severity == DIAG_ERROR) ctx->finding_error = true;
    diag_append(&ctx->diags, pr->findings);
    pr->findings = NULL;
}

static void record_program_metrics(RunCtx *ctx, const ProgramResult *pr, const char *ending) {
    json_t *m = json_object();
    json_object_set_new(m, "runtime", json_string(pr->runtime_name ? pr->runtime_name : ""));
    if (pr->device) json_object_set_new(m, "device", bytes_to_json(pr->device));
    json_object_set_new(m, "ending", bytes_to_json(ending));
    if (pr->started && !pr->signaled && !pr->timed_out && !pr->cancelled)
        json_object_set_new(m, "exit_code", json_integer(pr->exit_code));
    if (pr->signaled && run_program_signal_name(pr->signal))
        json_object_set_new(m, "signal", json_string(run_program_signal_name(pr->signal)));
    json_object_set_new(m, "timed_out", json_boolean(pr->timed_out));
    json_object_set_new(m, "wall_ms", json_real(pr->wall_ms));
    json_object_set_new(m, "calls", json_integer((json_int_t)json_array_size(pr->calls) + pr->calls_dropped));
    json_object_set_new(m, "kernels", json_integer((json_int_t)json_array_size(pr->kernels)));
    json_object_set_new(m, "stdout_bytes", json_integer((json_int_t)pr->out_total));
    json_object_set_new(m, "stderr_bytes", json_integer((json_int_t)pr->err_total));
    json_object_set_new(m, "touched_gpu", json_boolean(pr->touched_gpu));
    json_object_set_new(m, "runs", json_integer(ctx->n_programs_run));
    json_object_set_new(ctx->metrics, "program", m);
}

/* t:program{ processes = N, mps = } -> r: N copies at once (program_mps.c);
 * r is process 1's result, r.processes every process's (r.processes[1] is
 * r), each with r.process (its number, from 1), and r.mps says whether MPS
 * served them. The run's timeline is all of theirs (program_processes_timeline). */
static int run_processes(lua_State *L, RunCtx *ctx, const ProgramCall *pc, const CompiledProgram *cp,
                         ProgramRunOptions *ro, bool cuda) {
    int n = pc->processes;
    ProgramResult *prs[PROGRAM_MAX_PROCESSES];
    ProgramResult tmp[PROGRAM_MAX_PROCESSES];
    int boxes = lua_gettop(L) + 1;
    for (int i = 0; i < n; i++) prs[i] = run_program_push_box(L);
    ProgramMps mps;
    run_activity(L, "program", "running %d copies of the program built from %s at once", n, ctx->cu_display);
    Diag *d = program_run_processes(cp->exe, ro, n, pc->mps, tmp, &mps);
    for (int i = 0; i < n; i++) *prs[i] = tmp[i];     /* the boxes own them now (freed by __gc) */
    run_activity(L, "script", "running the exercise script");
    if (d) api_abort(L, VERDICT_RUNTIME_ERROR, d);
    ctx->n_programs_run++;
    int endings = lua_gettop(L) + 1;
    for (int i = 0; i < n; i++) {
        char *e = program_result_ending(prs[i]), line[512];
        snprintf(line, sizeof line, "%s", e);
        free(e);
        lua_pushstring(L, line);
    }
    Timeline *tls[PROGRAM_MAX_PROCESSES];
    for (int i = 0; i < n; i++) {
        name_kernels(prs[i]);
        if (pc->expect_errors) run_program_expect_errors(prs[i]->findings);
        if (prs[i]->out_len || prs[i]->err_len) {
            strbuf_printf(&ctx->devout, "%s--- program run %d, process %d of %d ---\n", ctx->has_devout ? "\n" : "",
                          ctx->n_programs_run, i + 1, n);
            ctx->has_devout = true;
        }
        int runs = ctx->n_programs_run;
        ctx->n_programs_run = 1;    /* the header above says which run */
        absorb_output(ctx, prs[i]);
        ctx->n_programs_run = runs;
        absorb_findings(ctx, prs[i]);
        absorb_kernels(ctx, prs[i], !cuda);
        tls[i] = prs[i]->timeline;
    }
    int sms = ctx->have_dev ? ctx->dev.sm_count : 132;
    timeline_free(&ctx->prog_timeline);
    ctx->prog_timeline = program_processes_timeline(tls, n, !cuda, pc->mps && (cuda ? mps.running : true), sms);
    ctx->ran_program = true;
    record_program_metrics(ctx, prs[0], lua_tostring(L, endings));
    for (int i = 0; i < n; i++) {
        const char *ending = lua_tostring(L, endings + i);
        ProgramResult *pr = prs[i];
        if (!pr->started || pr->timed_out || pr->signaled || pr->cancelled) {
            Diag *why = run_program_ending_diag(L, pr, ending);
            Diag *pd = diag_new(DIAG_ERROR, "program", NULL, 0, 0, "process %d of %d: %s", i + 1, n, why->message);
            diag_free(&why);
            api_abort(L, !pr->started ? VERDICT_RUNTIME_ERROR : pr->timed_out ? VERDICT_TIMEOUT : VERDICT_FAIL, pd);
        }
    }
    lua_createtable(L, n, 0);
    int list = lua_gettop(L);
    for (int i = 0; i < n; i++) {
        run_program_push_result(L, boxes + i, lua_tostring(L, endings + i), pc->want, pc->want_type, pc->n_want);
        lua_pushinteger(L, i + 1);
        lua_setfield(L, -2, "process");
        lua_rawseti(L, list, i + 1);
    }
    lua_rawgeti(L, list, 1);
    int r = lua_gettop(L);
    lua_pushvalue(L, list);
    lua_setfield(L, r, "processes");
    lua_createtable(L, 0, 4);
    lua_pushboolean(L, mps.requested);
    lua_setfield(L, -2, "requested");
    lua_pushboolean(L, mps.requested && (cuda ? mps.running : true));
    lua_setfield(L, -2, "active");
    lua_pushboolean(L, mps.modeled);
    lua_setfield(L, -2, "modeled");
    if (mps.why[0]) {
        lua_pushstring(L, mps.why);
        lua_setfield(L, -2, "why");
    }
    lua_setfield(L, r, "mps");
    return 1;
}

/* t:program{ args=, defines=, stdin=, files=, outputs=, timeout=, devices=, sanitizer=, expect_errors=,
 * processes=, mps=, peer=, profile=, metrics=, after= } -> r */
static int t_program(lua_State *L) {
    run_check_self(L, "program");
    RunCtx *ctx = run_ctx(L);
    if (!ctx->ex->program)
        return luaL_error(L, "t:program: %s is a kernel exercise; a whole program needs kind = \"program\" in "
                             "the exercise table", ctx->ex->id);
    lua_settop(L, 2);
    lua_newtable(L);                    /* 3: anchors the strings made from numbers */
    ProgramCall *pc = lua_newuserdatauv(L, sizeof *pc, 0);  /* 4: big; collected with the call */
    read_options(L, pc, 3);

    luaL_Buffer kb;
    luaL_buffinit(L, &kb);
    for (int i = 0; i < pc->n_defs; i++) {
        luaL_addstring(&kb, pc->defs[i]);
        luaL_addchar(&kb, '\n');
    }
    luaL_pushresult(&kb);
    const CompiledProgram *cp = program_for(L, ctx, lua_tostring(L, -1), pc->defs, pc->n_defs);
    lua_pop(L, 1);

    /* The program's share of the exercise's time: what is left of it. */
    double left = run_timeout_s(ctx) * TIMEOUT_SHARE - (run_now_ms() - ctx->t0_ms) / 1e3;
    if (left < 0.1) left = 0.1;
    double timeout = pc->timeout_s > 0 && pc->timeout_s < left ? pc->timeout_s : left;

    bool cuda = !strcmp(ctx->b->ops->name, "cuda");
    EmuOptions emu = {.metrics = true, .checks = true, .adversarial = true};
    if (ctx->api.emu_set) {             /* t:emu_options */
        emu.adversarial = ctx->api.emu.adversarial;
        emu.seed = ctx->api.emu.seed;
        emu.instruction_budget = ctx->api.emu.instruction_budget;
    }
    /* verify --mutants: each emulated launch of a mutant gets a budget sized by
       the solution's largest launch, so a kernel that loops is killed whatever
       the machine's load (the exercise's own budget when smaller) */
    uint64_t mb = ctx->opts->emu_launch_budget;
    if (mb && (!emu.instruction_budget || mb < emu.instruction_budget)) emu.instruction_budget = mb;
    /* a runaway kernel stops with did-not-finish (its line) before the program is killed */
    emu.deadline_s = run_now_ms() / 1e3 + timeout * EMU_DEADLINE_SHARE;
    const char *threads = getenv("CUDOJO_EMU_THREADS");    /* the worker's --emu-threads */
    if (threads) emu.threads = atoi(threads);
    ProgramRunOptions ro;
    memset(&ro, 0, sizeof ro);
    ro.runtime = cuda ? PROGRAM_RT_CUDA : PROGRAM_RT_EMU;
    ro.args = pc->args;
    ro.n_args = pc->n_args;
    ro.stdin_data = pc->stdin_data;
    ro.stdin_size = pc->stdin_size;
    ro.files = pc->files;
    ro.n_files = pc->n_files;
    ro.want_files = pc->want;
    ro.n_want = pc->n_want;
    ro.timeout_s = timeout;
    ro.emu_devices = pc->devices;
    ro.emu = &emu;
    ro.display_path = ctx->cu_display;
    ro.source = ctx->cu_text;
    ro.tee_out = ro.tee_err = -1;

    ro.emu_no_peer = pc->no_peer;
    /* A graded program is a stranger's: shut in its run folder (kernels/program_sandbox.c). */
    ro.confine = ctx->opts->grading;
    /* On a GPU an untimed exercise's program shares the GPU with the other
       graders' untimed work; a timed one runs alone (kernels/gpu_lock.h). */
    ro.gpu_shared = !ctx->ex->timed;
    if (pc->processes) return run_processes(L, ctx, pc, cp, &ro, cuda);

    ProgramResult *pr = run_program_push_box(L);
    int box_idx = lua_gettop(L);
    if (pc->sanitizer)
        run_activity(L, "program", "running the program built from %s, and under compute-sanitizer --tool %s",
                     ctx->cu_display, pc->sanitizer);
    else
        run_activity(L, "program", "running the program built from %s", ctx->cu_display);
    /* Second runs beside this one (program_tools.c), each in a box pushed
       before its start: nothing that can raise from the starts to the joins. */
    bool san_beside = pc->sanitizer && !pc->sanitizer_after;
    BesideRun **beside = san_beside ? run_program_beside_box(L) : NULL;
    /* grading's emulator check runs it there itself when the GPU's run passes (app/grade_run.c) */
    bool on_emulator = pc->emulator && cuda && !(ctx->opts->grading && ctx->opts->emu_checked);
    BesideRun **on_emu = on_emulator ? run_program_beside_box(L) : NULL;
    if (beside) *beside = run_program_sanitizer_start(ctx, pc->sanitizer, cp->exe, &ro, cuda);
    if (on_emu) *on_emu = run_program_emulator_start(ctx, cp->exe, &ro, &emu);
    Diag *d = program_run(cp->exe, &ro, pr);
    bool failed = d || !pr->started || pr->timed_out || pr->signaled || pr->cancelled;
    if (beside && failed) run_program_beside_discard(beside);      /* the plain run's failure is the verdict */
    else if (beside) run_program_beside_join(*beside, false);
    if (on_emu) run_program_beside_join(*on_emu, false);
    run_activity(L, "script", "running the exercise script");
    if (d) api_abort(L, VERDICT_RUNTIME_ERROR, d);
    ctx->n_programs_run++;

    char *e = program_result_ending(pr), line[512];
    snprintf(line, sizeof line, "%s", e);       /* nothing malloc'ed across a push that can raise */
    free(e);
    const char *ending = lua_pushstring(L, line);   /* anchored on the stack */

    name_kernels(pr);
    if (pc->expect_errors) run_program_expect_errors(pr->findings);
    run_program_push_findings(L, pr->findings);     /* r.findings, set below */
    int findings_idx = lua_gettop(L);
    absorb_output(ctx, pr);
    absorb_findings(ctx, pr);
    if (on_emu) run_program_emulator_absorb(ctx, on_emu);
    absorb_kernels(ctx, pr, !cuda);
    timeline_free(&ctx->prog_timeline);
    ctx->prog_timeline = pr->timeline ? timeline_copy(pr->timeline) : NULL;
    ctx->ran_program = true;
    record_program_metrics(ctx, pr, ending);

    if (!pr->started) api_abort(L, VERDICT_RUNTIME_ERROR, run_program_ending_diag(L, pr, ending));
    if (pr->timed_out) api_abort(L, VERDICT_TIMEOUT, run_program_ending_diag(L, pr, ending));
    if (pr->signaled || pr->cancelled) api_abort(L, VERDICT_FAIL, run_program_ending_diag(L, pr, ending));
    run_program_push_result(L, box_idx, ending, pc->want, pc->want_type, pc->n_want);
    lua_pushvalue(L, findings_idx);
    lua_setfield(L, -2, "findings");
    if (pc->sanitizer_after) {
        /* after the verdict (program_tools.c); a grading's verdict is all it wants */
        if (!ctx->opts->grading) {
            int r = lua_gettop(L);
            run_program_sanitizer_defer(L, ctx, pc->sanitizer, pc->expect_errors, cp->exe, &ro);
            lua_settop(L, r);
        }
    } else if (pc->sanitizer) {
        run_program_sanitizer(L, ctx, pc->sanitizer, cp->exe, &ro, cuda, pc->expect_errors, beside);
    }
    ro.gpu_shared = false;      /* nsys reads the GPU's times: alone; ncu: run_program_profile */
    if (pc->profile.tool && pc->profile.after) {
        /* after the verdict (program_tools.c); a grading's verdict is all it wants */
        if (!ctx->opts->grading) {
            int r = lua_gettop(L);
            run_program_profile_defer(L, ctx, &pc->profile, cp->exe, &ro);
            lua_settop(L, r);
        }
    } else if (pc->profile.tool) {
        run_program_profile(L, ctx, &pc->profile, cp->exe, &ro, cuda);
    }
    return 1;
}


/* t:source() -> text, name: the learner's file as it is being run (the
 * starter, their edit, a solution) and its name as shown, so a check can
 * find a call's line in it. */
static int t_source(lua_State *L) {
    run_check_self(L, "source");
    RunCtx *ctx = run_ctx(L);
    lua_pushstring(L, ctx->cu_text ? ctx->cu_text : "");
    lua_pushstring(L, ctx->cu_display ? ctx->cu_display : "");
    return 2;
}

void run_program_add_methods(lua_State *L) {
    static const luaL_Reg methods[] = {
        {"program", t_program},
        {"source", t_source},
        {NULL, NULL},
    };
    luaL_setfuncs(L, methods, 0);
    run_program_add_checks(L);
}
