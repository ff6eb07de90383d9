/* lua/kernel.c: t:kernel(), k:launch{} and k:time{}: the learner's source
 * compiled (NVRTC, cached), loaded on the backend and launched with arrays
 * that move to the device by themselves.
 *
 * A compile error, a missing kernel or a failed launch is the learner's
 * problem, not the author's: the run is aborted with the matching verdict
 * (compile-error, runtime-error) instead of a Lua error in the lesson. */
#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "base/i18n.h"
#include "base/xalloc.h"
#include "kernels/emu/emu.h"
#include "kernels/predict.h"
#include "lua/run.h"

#define MAX_ARGS 64
#define MAX_DEFINES 32
/* k:time without reps = on a GPU: up to KTIME_REPS timed runs, fewer (at
 * least 3) when they would pass KTIME_BUDGET_MS of kernel time. */
#define KTIME_REPS 20
#define KTIME_BUDGET_MS 200.0

Diag *run_diag_clone(const Diag *d) {
    Diag *out = NULL;
    for (; d; d = d->next) {
        Diag *c = diag_new(d->severity, d->code, d->file, d->line, d->col, "%s", d->message);
        c->excerpt = xstrdup(d->excerpt);
        if (d->has_thread) diag_set_thread(c, d->block, d->thread);
        diag_append(&out, c);
    }
    return out;
}

void run_modules_free(RunCtx *ctx) {
    for (int i = 0; i < ctx->n_mods; i++) {
        if (ctx->mods[i].bm) ctx->b->ops->module_unload(ctx->b, &ctx->mods[i].bm);
        compiled_module_free(&ctx->mods[i].cm);
        free(ctx->mods[i].key);
    }
    XFREE(ctx->mods);
    ctx->n_mods = 0;
}

static int str_ptr_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* What a run keeps of its compiles and launches (modules, findings, device
 * printf), so a script in a loop cannot grow the worker or progress.db. */
#define RUN_MAX_FINDINGS 200
#define RUN_MAX_MODULES 64
#define RUN_OUTPUT_CAP ((size_t)1 << 20)

/* Compiles (or reuses) the module for this set of options; returns its index. */

/* Whether the exercise's starter file mentions `name` (before any template
 * arguments) as a function: `name(` or `name <`, as a __global__ would be
 * declared. True when it cannot tell (no starter to read). */
static bool starter_defines(const RunCtx *ctx, const char *name) {
    if (!ctx->ex || !ctx->ex->lua_path || !ctx->ex->source) return true;
    char *dir = path_dirname(ctx->ex->lua_path), *path = path_join(dir, ctx->ex->source), *text = NULL;
    size_t len = 0, n = strcspn(name, "<");
    Diag *d = fs_read_file_max(path, (size_t)1 << 22, &text, &len);
    free(dir);
    free(path);
    if (d) {
        diag_free(&d);
        return true;
    }
    char *base = xstrndup(name, n);
    bool found = false;
    for (const char *p = text; !found && (p = strstr(p, base)) != NULL; p++) {
        if (p > text && (p[-1] == '_' || (p[-1] >= 'a' && p[-1] <= 'z') || (p[-1] >= 'A' && p[-1] <= 'Z') ||
                         (p[-1] >= '0' && p[-1] <= '9'))) continue;
        const char *q = p + n;
        while (*q == ' ' || *q == '\t' || *q == '\n') q++;
        found = *q == '(' || *q == '<';
    }
    free(base);
    free(text);
    return found;
}

static int module_for(lua_State *L, RunCtx *ctx, const char *key, bool fast_math, const char *const *defs,
                      int n_defs, const char *expr) {
    for (int i = 0; i < ctx->n_mods; i++)
        if (!strcmp(ctx->mods[i].key, key)) return i;
    /* Each new option set is a compile and a module kept to the end of the run. */
    if (ctx->n_mods >= RUN_MAX_MODULES)
        luaL_error(L, "t:kernel: at most %d differently compiled versions of the source per run (fast_math, "
                      "defines and template make each one)", RUN_MAX_MODULES);
    bool gpu = !strcmp(ctx->b->ops->name, "cuda");
    CompileOptions co;
    memset(&co, 0, sizeof co);
    /* On a GPU: a cubin for it. On the emulator: as the GPU run being checked built it (grading's
       emulator check, ExerciseRunOptions.sass_arch), the same module from the NVRTC cache: no second
       compile, and the emulator runs the very PTX (compute_XX) the GPU's cubin came from. */
    co.cubin_arch = gpu ? (ctx->have_dev ? ctx->dev.cc_major * 10 + ctx->dev.cc_minor : 0) : ctx->opts->sass_arch;
    co.opt_level = -1;
    co.fast_math = fast_math;
    co.name_exprs = expr ? &expr : NULL;
    co.n_name_exprs = expr ? 1 : 0;
    co.extra_opts = defs;
    co.n_extra_opts = n_defs;
    co.cache_dir = ctx->opts->cache_dir;
    co.confine = ctx->opts->grading;    /* a stranger's source: no header read beside it, memory bounded */
    CompiledModule *cm = NULL;
    run_activity(L, "compile", N_("compiling %s"), ctx->cu_display);
    Diag *d = compile_cuda(ctx->cu_display, ctx->cu_text, &co, &cm);
    run_activity(L, "script", "running the exercise script");
    if (d) api_abort(L, VERDICT_COMPILE_ERROR, d);
    /* ctx owns the module before anything else can raise an error. */
    ctx->mods = xrealloc(ctx->mods, (size_t)(ctx->n_mods + 1) * sizeof *ctx->mods);
    int idx = ctx->n_mods++;
    ctx->mods[idx] = (ModuleEntry){xstrdup(key), cm, NULL};
    if (cm->warnings) diag_append(&ctx->diags, run_diag_clone(cm->warnings));
    json_t *comp = run_metrics_obj(ctx, NULL, "compile");
    json_object_set_new(comp, "ms", json_real(json_number_value(json_object_get(comp, "ms")) + cm->compile_ms));
    json_object_set_new(comp, "cache_hit", json_boolean(cm->cache_hit));
    if (co.cubin_arch > 0) json_object_set_new(comp, "sass_arch", json_integer(co.cubin_arch));
    ApiPhase was = api_phase(&ctx->api, PHASE_COMPILE);   /* loading it (the emulator parses the PTX) */
    d = ctx->b->ops->module_load(ctx->b, cm, &ctx->mods[idx].bm);
    api_phase(&ctx->api, was);
    if (d) api_abort(L, VERDICT_RUNTIME_ERROR, d);
    return idx;
}

int run_t_kernel(lua_State *L) {
    RunCtx *ctx = run_ctx(L);
    const char *name = api_check_name(L, luaL_checkstring(L, 2), "t:kernel");
    bool fast_math = false;
    const char *tmpl = NULL;
    const char *defs[MAX_DEFINES];
    int n_defs = 0;
    if (!lua_isnoneornil(L, 3)) {
        luaL_checktype(L, 3, LUA_TTABLE);
        static const char *const keys[] = {"fast_math", "defines", "template", NULL};
        sandbox_check_keys(L, 3, "t:kernel has no option", keys);
        lua_getfield(L, 3, "fast_math");
        fast_math = lua_toboolean(L, -1);
        lua_getfield(L, 3, "template");
        tmpl = lua_isnil(L, -1) ? NULL : luaL_checkstring(L, -1);
        lua_getfield(L, 3, "defines");
        if (!lua_isnil(L, -1)) {
            luaL_checktype(L, -1, LUA_TTABLE);
            int dt = lua_gettop(L);
            lua_pushnil(L);
            while (lua_next(L, dt)) {
                if (n_defs == MAX_DEFINES) luaL_error(L, "t:kernel: more than %d defines", MAX_DEFINES);
                luaL_checkstack(L, 4, "defines");
                if (lua_type(L, -2) != LUA_TSTRING) luaL_error(L, "t:kernel: defines = { NAME = value, ... }");
                const char *k = lua_tostring(L, -2);
                if (lua_type(L, -1) == LUA_TBOOLEAN) {
                    if (lua_toboolean(L, -1)) lua_pushfstring(L, "-D%s", k);
                    else lua_pushfstring(L, "-U%s", k);
                } else {
                    lua_pushfstring(L, "-D%s=%s", k, luaL_tolstring(L, -1, NULL));
                    lua_remove(L, -2);
                }
                lua_insert(L, dt);  /* keep the string alive below the table */
                dt++;
                defs[n_defs++] = lua_tostring(L, dt - 1);
                lua_pop(L, 1);
            }
            /* Sorted, so the same defines always hit the same cache entry. */
            qsort(defs, (size_t)n_defs, sizeof *defs, str_ptr_cmp);
        }
    }
    const char *launch_name = tmpl ? tmpl : name;
    const char *expr = strchr(launch_name, '<') ? launch_name : NULL;
    luaL_Buffer kb;
    luaL_buffinit(L, &kb);
    luaL_addstring(&kb, fast_math ? "fm|" : "|");
    for (int i = 0; i < n_defs; i++) {
        luaL_addstring(&kb, defs[i]);
        luaL_addchar(&kb, ' ');
    }
    luaL_addchar(&kb, '|');
    if (expr) luaL_addstring(&kb, expr);
    luaL_pushresult(&kb);
    int mi = module_for(L, ctx, lua_tostring(L, -1), fast_math, defs, n_defs, expr);
    const CompiledModule *cm = ctx->mods[mi].cm;
    const KernelInfo *ki = compiled_module_find(cm, launch_name);
    if (!ki) {
        StrBuf have;
        strbuf_init(&have);
        for (int i = 0; i < cm->n_kernels; i++) strbuf_printf(&have, "%s%s", i ? ", " : "", cm->kernels[i].name);
        if (!starter_defines(ctx, launch_name)) {
            /* the exercise's own starter lacks it too: the author named a kernel that is not there */
            luaL_where(L, 1);
            Diag *d = diag_new(DIAG_ERROR, "exercise-kernel", NULL, 0, 0,
                               "%sthe exercise launches a kernel named '%s', which its own starter %s does not "
                               "define either (%s%s): the exercise is wrong, not your code",
                               lua_tostring(L, -1), launch_name, ctx->ex ? ctx->ex->source : "file",
                               cm->n_kernels ? "yours has: " : "yours has no __global__ function", have.data);
            strbuf_fini(&have);
            api_abort(L, VERDICT_EXERCISE_ERROR, d);
        }
        Diag *d = diag_new(DIAG_ERROR, "kernel-missing", ctx->cu_display, 0, 0,
                           "there is no kernel named '%s' in %s (%s%s); keep the name the exercise uses",
                           launch_name, ctx->cu_display, cm->n_kernels ? "it has: " : "it has no __global__ function",
                           have.data);
        strbuf_fini(&have);
        api_abort(L, VERDICT_COMPILE_ERROR, d);
    }
    KernelObj *k = lua_newuserdatauv(L, sizeof *k, 2);
    k->mod = mi;
    k->ki = ki;
    k->registers = ki->registers;
    k->local_bytes = ki->local_bytes;
    k->shared_static = ki->shared_static;
    if (ctx->b->ops->kernel_resources && backend_usable(ctx->b)) {
        int regs, local, shared;
        Diag *rd = ctx->b->ops->kernel_resources(ctx->b, ctx->mods[mi].bm, launch_name, &regs, &local, &shared);
        if (!rd) {
            k->registers = regs;
            k->local_bytes = local;
            k->shared_static = shared;
        }
        diag_free(&rd);     /* the launch will report a broken GPU in its own words */
    }
    lua_pushstring(L, launch_name);
    lua_setiuservalue(L, -2, 1);
    /* The options again, so k:occupancy can build a cubin for another arch. */
    lua_createtable(L, 0, 3);
    lua_pushboolean(L, fast_math);
    lua_setfield(L, -2, "fast_math");
    if (expr) {
        lua_pushstring(L, expr);
        lua_setfield(L, -2, "expr");
    }
    lua_createtable(L, n_defs, 0);
    for (int i = 0; i < n_defs; i++) {
        lua_pushstring(L, defs[i]);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "defines");
    lua_setiuservalue(L, -2, 2);
    luaL_setmetatable(L, KERNEL_MT);
    return 1;
}

static unsigned dim_part(lua_State *L, int idx, const char *field) {
    int ok = 0;
    lua_Integer v = lua_tointegerx(L, idx, &ok);
    if (!ok || v < 1 || v > (lua_Integer)UINT32_MAX)
        luaL_error(L, "launch: %s must be a positive integer or {x, y, z} of them, got %s", field,
                   luaL_tolstring(L, idx, NULL));
    return (unsigned)v;
}

static Dim3 get_dim(lua_State *L, int t, const char *field) {
    Dim3 d = {1, 1, 1};
    int ty = lua_getfield(L, t, field);
    if (ty == LUA_TNIL) luaL_error(L, "launch: '%s' is missing", field);
    if (ty == LUA_TTABLE) {
        lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
        if (n < 1 || n > 3) luaL_error(L, "launch: %s = {x, y, z} takes 1 to 3 numbers", field);
        unsigned *parts[3] = {&d.x, &d.y, &d.z};
        for (lua_Integer i = 1; i <= n; i++) {
            lua_rawgeti(L, -1, i);
            *parts[i - 1] = dim_part(L, -1, field);
            lua_pop(L, 1);
        }
    } else {
        d.x = dim_part(L, -1, field);
    }
    lua_pop(L, 1);
    return d;
}

/* Moves what a launch produced into the run. */

static void absorb_report(RunCtx *ctx, LaunchReport *rep, const char *name) {
    for (Diag *f = rep->findings; f; f = f->next)
        if (f->severity == DIAG_ERROR) ctx->finding_error = true;
    int kept = diag_count(ctx->diags);
    if (rep->findings && kept >= RUN_MAX_FINDINGS) {
        diag_free(&rep->findings);
        if (kept == RUN_MAX_FINDINGS)
            diag_append(&ctx->diags, diag_new(DIAG_NOTE, "limit", NULL, 0, 0,
                                              "the findings of later launches are not kept (a run keeps %d)",
                                              RUN_MAX_FINDINGS));
    }
    diag_append_launch(&ctx->diags, rep->findings);   /* the same finding of many launches: once, counted */
    rep->findings = NULL;
    if (rep->device_output && *rep->device_output && ctx->devout.len < RUN_OUTPUT_CAP) {
        size_t n = strlen(rep->device_output), room = RUN_OUTPUT_CAP - ctx->devout.len;
        strbuf_append_n(&ctx->devout, rep->device_output, n < room ? n : room);
        if (n >= room)
            strbuf_printf(&ctx->devout, "\n… (the rest of the device output was cut: a run keeps %zu KiB)\n",
                          RUN_OUTPUT_CAP >> 10);
        ctx->has_devout = true;
    }
    ctx->n_launches++;
    json_object_set_new(ctx->metrics, "launches", json_integer(ctx->n_launches));
    json_t *k = run_metrics_obj(ctx, run_metrics_obj(ctx, NULL, "kernels"), name);
    json_object_set_new(k, "launches", json_integer(json_integer_value(json_object_get(k, "launches")) + 1));
    if (rep->metrics && !strcmp(ctx->b->ops->name, "emu")) {
        if (ctx->last_emu) json_decref(ctx->last_emu);
        ctx->last_emu = json_incref(rep->metrics);
        json_object_set(ctx->metrics, "emu", rep->metrics);
        run_note_launch_size(ctx, rep->metrics);
    }
}

/* The time the emulator launch just absorbed would take on the default
 * device (kernels/predict.h): metrics.kernels[name].predicted and
 * ctx->last_predicted. */
static void predict_launch(RunCtx *ctx, const KernelObj *k, const char *name, const LaunchConfig *cfg,
                           GpuArray *const *arrs, int n_arrs) {
    if (ctx->last_predicted) json_decref(ctx->last_predicted);
    ctx->last_predicted = NULL;
    PredictInput in;
    if (!ctx->last_emu || !predict_input_from_metrics(ctx->last_emu, &in)) return;
    in.threads_per_block = (int)(cfg->block.x * cfg->block.y * cfg->block.z);
    in.registers = k->registers > 0 ? k->registers : 0;
    size_t shared = k->shared_static > 0 ? (size_t)k->shared_static : 0;
    EmuKernelInfo info;
    if (k->shared_static < 0 && emu_module_kernel_info(ctx->mods[k->mod].bm, name, &info)) shared = info.shared_static;
    in.shared_per_block = shared + cfg->shared_bytes;
    for (int i = 0; i < n_arrs; i++) in.footprint_bytes += array_bytes(arrs[i]);
    const PerfCalib *c = perf_calib_default();
    Prediction pr;
    predict_kernel(c, NULL, &in, &pr);
    ctx->last_predicted = predict_to_json(c, &pr);
    json_object_set(run_metrics_obj(ctx, run_metrics_obj(ctx, NULL, "kernels"), name), "predicted", ctx->last_predicted);
}

void run_predict_log(lua_State *L, RunCtx *ctx) {
    if (!ctx->last_predicted || ctx->predict_logged == ctx->last_emu) return;
    ctx->predict_logged = ctx->last_emu;
    const json_t *p = ctx->last_predicted;
    double ms = json_real_value(json_object_get(p, "ms"));
    double frac = json_real_value(json_object_get(p, "copy_fraction"));
    const char *bound = json_string_value(json_object_get(p, "bound"));
    char *line = xasprintf(N_("predicted on an %s: %.4f ms, %.0f%% of copy (bound by %s; a model from the "
                              "emulator's counts, not a measurement)"),
                           json_string_value(json_object_get(p, "device")), ms, 100 * frac, bound ? bound : "?");
    sandbox_log_append(sandbox_from_lua(L), line);
    free(line);
}

static void log_launch(RunCtx *ctx, const char *name, const LaunchConfig *cfg, double ms) {
    if (!ctx->opts->launch_log) return;
    json_t *log = json_object_get(ctx->metrics, "launch_log");
    if (!log) {
        log = json_array();
        json_object_set_new(ctx->metrics, "launch_log", log);
    }
    json_t *e = json_pack("{s:s, s:[i,i,i], s:[i,i,i]}", "kernel", name, "grid", (json_int_t)cfg->grid.x,
                          (json_int_t)cfg->grid.y, (json_int_t)cfg->grid.z, "block", (json_int_t)cfg->block.x,
                          (json_int_t)cfg->block.y, (json_int_t)cfg->block.z);
    if (ctx->last_predicted && !strcmp(ctx->b->ops->name, "emu")) {
        json_object_set(e, "predicted", ctx->last_predicted);
        json_object_set(e, "emu", json_object_get(ctx->last_emu, "totals"));
    }
    if (ms >= 0) json_object_set_new(e, "ms", json_real(ms));
    json_array_append_new(log, e);
}

static int do_launch(lua_State *L, bool timed) {
    RunCtx *ctx = run_ctx(L);
    KernelObj *k = luaL_checkudata(L, 1, KERNEL_MT);
    luaL_checktype(L, 2, LUA_TTABLE);
    static const char *const keys[] = {"grid", "block", "shared", "args", "reps", "stream", NULL};
    sandbox_check_keys(L, 2, timed ? "k:time has no field" : "k:launch has no field", keys);
    LaunchConfig cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.grid = get_dim(L, 2, "grid");
    cfg.block = get_dim(L, 2, "block");
    lua_getfield(L, 2, "shared");
    lua_Integer sh = luaL_optinteger(L, -1, 0);
    if (sh < 0) luaL_error(L, "launch: shared must be a number of bytes");
    cfg.shared_bytes = (size_t)sh;
    lua_getfield(L, 2, "reps");
    bool reps_given = !lua_isnil(L, -1);
    lua_Integer reps = luaL_optinteger(L, -1, KTIME_REPS);
    if (timed && (reps < 1 || reps > 10000)) luaL_error(L, "k:time: reps must be 1..10000");
    cfg.timed_reps = timed || ctx->opts->emulator_path ? (int)reps : 0;
    /* reps = N is N; the default stops early when each rep is long */
    if (timed && !reps_given) cfg.timed_budget_ms = KTIME_BUDGET_MS;
    lua_pop(L, 2);
    /* stream = s: enqueue on s and return (CUDA's asynchronous launch);
     * without it the launch waits for the kernel, as it always has. */
    int stream = stream_opt(L, 2);
    if (stream >= 0) {
        cfg.timed_reps = 0;
        if (timed) luaL_error(L, "k:time runs on the default stream; time a stream's work with events");
        if (!ctx->b->ops->stream_create) luaL_error(L, "launch: the %s backend has no streams", ctx->b->ops->name);
        cfg.stream = stream;
        cfg.async = true;
    }
    if (lua_getfield(L, 2, "args") != LUA_TTABLE) luaL_error(L, "launch: args = { ... } is missing");
    int at = lua_gettop(L);
    lua_Integer nargs = (lua_Integer)lua_rawlen(L, at);
    if (nargs > MAX_ARGS) luaL_error(L, "launch: more than %d arguments", MAX_ARGS);
    KernelArg args[MAX_ARGS];
    GpuArray *arrs[MAX_ARGS];
    int n_arrs = 0;
    for (lua_Integer i = 1; i <= nargs; i++) {
        lua_rawgeti(L, at, i);
        GpuArray *a = array_test(L, -1);
        GpuScalar *s = a ? NULL : scalar_test(L, -1);
        if (a) {
            args[i - 1] = kernel_arg_ptr(array_device(L, a, lua_gettop(L)));
            arrs[n_arrs++] = a;
        } else if (s) {
            args[i - 1] = s->arg;
        } else if (lua_type(L, -1) == LUA_TNUMBER) {
            luaL_error(L, "launch: args[%I] is a plain Lua number (%s); say the type the kernel expects, "
                          "e.g. gpu.i32(n) or gpu.f32(x)", i, lua_tostring(L, -1));
        } else {
            luaL_error(L, "launch: args[%I] is %s; arguments are gpu arrays or gpu.i32(...)-style scalars", i,
                       luaL_typename(L, -1));
        }
        lua_pop(L, 1);
    }
    lua_getiuservalue(L, 1, 1);
    const char *name = lua_tostring(L, -1);
    LaunchReport rep;
    launch_report_init(&rep);
    char line_at[160] = "";
    if (!sandbox_where(L, line_at, sizeof line_at)) snprintf(line_at, sizeof line_at, "the exercise script");
    run_activity(L, "kernel", N_("running kernel %s (launched at %s)"), name, line_at);
    if (timed) api_phase(&ctx->api, PHASE_TIMING);
    Diag *ld = ctx->b->ops->launch(ctx->b, ctx->mods[k->mod].bm, name, &cfg, args, (int)nargs, &rep);
    run_activity(L, "script", "running the exercise script (at %s)", line_at);
    for (int i = 0; i < n_arrs; i++) array_mark_launched(arrs[i]);
    absorb_report(ctx, &rep, name);
    if (rep.metrics && !strcmp(ctx->b->ops->name, "emu")) predict_launch(ctx, k, name, &cfg, arrs, n_arrs);
    log_launch(ctx, name, &cfg, !rep.modeled && cfg.timed_reps > 0 ? rep.ms_median : -1);
    double ms = rep.ms_median, ms_min = rep.ms_min;
    int reps_run = rep.reps;
    bool measured = timed && !rep.modeled && ms >= 0;
    if (timed && rep.metrics && strcmp(ctx->b->ops->name, "emu"))
        json_object_set(run_metrics_obj(ctx, run_metrics_obj(ctx, NULL, "kernels"), name), "timing", rep.metrics);
    launch_report_fini(&rep);
    if (ld) api_abort(L, VERDICT_RUNTIME_ERROR, ld);
    run_kernel_record_launch(L, ctx, 1, name, &cfg);
    if (!timed) return 0;
    if (!measured) {
        lua_pushnil(L);
        return 1;
    }
    json_t *km = run_metrics_obj(ctx, run_metrics_obj(ctx, NULL, "kernels"), name);
    json_object_set_new(km, "time_ms", json_real(ms));
    if (ms_min >= 0) json_object_set_new(km, "time_ms_min", json_real(ms_min));
    json_object_set_new(km, "reps", json_integer(reps_run > 0 ? reps_run : reps));
    json_object_set_new(ctx->metrics, "time_ms", json_real(ms));
    lua_pushnumber(L, ms);
    return 1;
}

static int k_launch(lua_State *L) { return do_launch(L, false); }
static int k_time(lua_State *L) { return do_launch(L, true); }

static void push_opt_int(lua_State *L, int v) {
    if (v >= 0) lua_pushinteger(L, v);
    else lua_pushnil(L);
}

static int k_index(lua_State *L) {
    KernelObj *k = luaL_checkudata(L, 1, KERNEL_MT);
    const char *key = luaL_checkstring(L, 2);
    if (!strcmp(key, "launch")) lua_pushcfunction(L, k_launch);
    else if (!strcmp(key, "time")) lua_pushcfunction(L, k_time);
    else if (!strcmp(key, "occupancy")) lua_pushcfunction(L, run_k_occupancy);
    else if (!strcmp(key, "registers")) push_opt_int(L, k->registers);
    else if (!strcmp(key, "shared_static")) push_opt_int(L, k->shared_static);
    else if (!strcmp(key, "local_bytes")) push_opt_int(L, k->local_bytes);
    else if (!strcmp(key, "spill_bytes")) push_opt_int(L, k->ki->spill_bytes);
    else if (!strcmp(key, "name")) lua_getiuservalue(L, 1, 1);
    else {
        lua_newtable(L);
        static const char *const fields[] = {"launch", "time", "occupancy", "registers", "shared_static",
                                             "local_bytes", "spill_bytes", "name", NULL};
        for (const char *const *p = fields; *p; p++) {
            lua_pushboolean(L, 1);
            lua_setfield(L, -2, *p);
        }
        sandbox_unknown_key_error(L, "kernels have no field", key, -1);
    }
    return 1;
}

static int k_tostring(lua_State *L) {
    luaL_checkudata(L, 1, KERNEL_MT);
    lua_getiuservalue(L, 1, 1);
    lua_pushfstring(L, "kernel %s", lua_tostring(L, -1));
    return 1;
}

void run_kernel_install(lua_State *L) {
    luaL_newmetatable(L, KERNEL_MT);
    lua_pushcfunction(L, k_index);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, k_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_pushliteral(L, "locked");
    lua_setfield(L, -2, "__metatable");
    lua_pop(L, 1);
}
