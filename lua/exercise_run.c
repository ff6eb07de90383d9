/* lua/exercise_run.c: running one exercise: a fresh sandbox, the exercise
 * file, its run(t), and the verdict.
 *
 * The `t` object is the exercise's view of the run: parameters, kernels,
 * checks, log lines, device facts and metrics. The verdict is decided here,
 * in this order: an abort (compile error, failed launch) wins, then a Lua
 * error in the exercise (the author's bug), then error-severity findings of
 * a launch and failed checks (fail), else pass. */
#include <lauxlib.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/bytes.h"
#include "base/fs.h"
#include "base/i18n.h"
#include "base/strbuf.h"
#include "base/xalloc.h"
#include "kernels/gpu_lock.h"
#include "kernels/include_check.h"
#include "lua/run.h"

#define T_MT "cudojo.t"
#define RUN_MAX_METRICS 1000    /* t:metric names per run */

static RunCtx *check_t(lua_State *L, const char *method) {
    if (!luaL_testudata(L, 1, T_MT)) luaL_error(L, "call it as t:%s(...) (with a colon)", method);
    return run_ctx(L);
}

/* Lua value at idx as JSON (numbers, strings, booleans; else its tostring). */
static json_t *lua_to_json(lua_State *L, int idx) {
    switch (lua_type(L, idx)) {
    case LUA_TNUMBER:
        return lua_isinteger(L, idx) ? json_integer(lua_tointeger(L, idx)) : json_real(lua_tonumber(L, idx));
    case LUA_TBOOLEAN: return json_boolean(lua_toboolean(L, idx));
    case LUA_TSTRING: {
        /* Stored in progress.db with the attempt: cut like every author's text. */
        size_t n;
        const char *s = lua_tolstring(L, idx, &n);
        char *cut = str_cut(s, n, RESULT_MAX_TEXT);
        json_t *j = bytes_to_json(cut);   /* any bytes: a --param value need not be UTF-8 */
        free(cut);
        return j;
    }
    default: return json_null();
    }
}

static int t_param(lua_State *L) {
    RunCtx *ctx = check_t(L, "param");
    const char *name = luaL_checkstring(L, 2);
    if (strlen(name) > RESULT_MAX_NAME) luaL_error(L, "t:param: a name of %d bytes or less", RESULT_MAX_NAME);
    const char *over = NULL;
    for (int i = 0; i < ctx->opts->n_params; i++)
        if (!strcmp(ctx->opts->param_keys[i], name)) over = ctx->opts->param_values[i];
    if (!over) {
        lua_settop(L, 3);
    } else if (lua_type(L, 3) == LUA_TNUMBER) {
        if (!lua_stringtonumber(L, over)) luaL_error(L, "--param %s=%s: %s must be a number", name, over, name);
        if (lua_isinteger(L, 3) && !lua_isinteger(L, -1)) luaL_error(L, "--param %s=%s: %s must be an integer", name, over, name);
    } else if (lua_type(L, 3) == LUA_TBOOLEAN) {
        if (strcmp(over, "true") && strcmp(over, "false") && strcmp(over, "1") && strcmp(over, "0"))
            luaL_error(L, "--param %s=%s: %s must be true or false", name, over, name);
        lua_pushboolean(L, !strcmp(over, "true") || !strcmp(over, "1"));
    } else if (!lua_isnoneornil(L, 3) || !lua_stringtonumber(L, over)) {
        lua_pushstring(L, over);
    }
    char *key = bytes_to_utf8(name);
    json_object_set_new(run_metrics_obj(ctx, NULL, "params"), key, lua_to_json(L, -1));
    free(key);
    return 1;
}

/* t:grading(): true only in a grading run (`cudojo grade`), where hidden checks run. */
static int t_grading(lua_State *L) {
    RunCtx *ctx = check_t(L, "grading");
    lua_pushboolean(L, ctx->opts->grading);
    return 1;
}

/* t:seed([n]): n (default 1) in a learner's run; in a grading run another
 * seed derived from n and the grading seed. Between 1 and 2^31 - 1, so it
 * fits anywhere a seed goes (an int argument of a program, a define). */
static int t_seed(lua_State *L) {
    RunCtx *ctx = check_t(L, "seed");
    lua_Integer n = luaL_optinteger(L, 2, 1);
    if (!ctx->opts->grading) {
        lua_pushinteger(L, n);
        return 1;
    }
    uint64_t s = api_seed(&ctx->api, (uint64_t)n);
    lua_pushinteger(L, (lua_Integer)(s % 2147483646u) + 1);
    return 1;
}

static void read_check_opts(lua_State *L, int idx, CheckOpts *o) {
    if (lua_isnoneornil(L, idx)) return;
    luaL_checktype(L, idx, LUA_TTABLE);
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "?";
        if (!strcmp(k, "rel") && o->close) o->rel = luaL_checknumber(L, -1);
        else if (!strcmp(k, "abs") && o->close) o->abs = luaL_checknumber(L, -1);
        else if (!strcmp(k, "name")) o->name = luaL_checkstring(L, -1);
        else luaL_error(L, "%s has no option '%s' (%s)", o->close ? "expect_close" : "expect_equal", k,
                        o->close ? "rel, abs, name" : "name");
        lua_pop(L, 1);
    }
}

static int t_expect_cmp(lua_State *L, bool close) {
    RunCtx *ctx = check_t(L, close ? "expect_close" : "expect_equal");
    ApiPhase was = api_phase(&ctx->api, PHASE_CHECK);
    CheckOpts o = {close, close ? 1e-5 : 0, close ? 1e-6 : 0, NULL};
    read_check_opts(L, 4, &o);
    if (o.rel < 0 || o.abs < 0) luaL_error(L, "tolerances must not be negative");
    GpuArray *g = array_test(L, 2);
    bool ok;
    if (g) g = array_check(L, 2);   /* arrays of numbers (of structs: compare a field, a:field("x")) */
    if (g) {
        if (!o.name) o.name = array_name(L, g, 2);
        array_host_read(L, g);
        GpuArray *w = array_test(L, 3);
        if (w) w = array_check(L, 3);
        if (w) {
            array_host_read(L, w);
            ok = check_arrays(ctx->r, g, w, &o);
        } else if (lua_type(L, 3) == LUA_TNUMBER) {
            ok = check_array_scalar(ctx->r, g, lua_tonumber(L, 3), &o);
        } else if (lua_istable(L, 3)) {
            size_t n = (size_t)lua_rawlen(L, 3);
            w = array_push_new(L, dtype_is_float(g->dtype) ? DT_F64 : DT_I64, 1, &n);
            for (size_t i = 0; i < n; i++) {
                lua_rawgeti(L, 3, (lua_Integer)i + 1);
                int isnum = 0;
                if (lua_isinteger(L, -1)) array_set_i64(w, i, lua_tointeger(L, -1));
                else array_set(w, i, lua_tonumberx(L, -1, &isnum));
                if (!isnum && !lua_isinteger(L, -1)) luaL_error(L, "want[%I] is not a number", (lua_Integer)i + 1);
                lua_pop(L, 1);
            }
            ok = check_arrays(ctx->r, g, w, &o);
        } else {
            return luaL_error(L, "the expected value must be an array, a number or a table of numbers, not %s",
                              luaL_typename(L, 3));
        }
    } else if (lua_type(L, 2) == LUA_TNUMBER) {
        if (lua_type(L, 3) != LUA_TNUMBER)
            return luaL_error(L, "got is a number, so the expected value must be a number, not %s", luaL_typename(L, 3));
        ok = check_scalars(ctx->r, lua_tonumber(L, 2), lua_tonumber(L, 3), &o);
    } else {
        return luaL_error(L, "got must be a gpu array or a number, not %s", luaL_typename(L, 2));
    }
    api_phase(&ctx->api, was);
    lua_pushboolean(L, ok);
    return 1;
}

static int t_expect_equal(lua_State *L) { return t_expect_cmp(L, false); }
static int t_expect_close(lua_State *L) { return t_expect_cmp(L, true); }

/* t:stretch(cond, message): a goal beyond passing (usually speed). Missing it
 * does not fail the run; meeting every one makes the attempt "passed-fast". */
static int t_stretch(lua_State *L) {
    RunCtx *ctx = check_t(L, "stretch");
    luaL_checkany(L, 2);
    bool ok = lua_toboolean(L, 2);
    const char *msg = luaL_optstring(L, 3, ok ? N_("stretch goal met") : N_("stretch goal missed"));
    run_result_add_check(ctx->r, "stretch", ok, msg)->stretch = true;
    lua_pushboolean(L, ok);
    return 1;
}

static int t_expect(lua_State *L) {
    RunCtx *ctx = check_t(L, "expect");
    luaL_checkany(L, 2);
    bool ok = lua_toboolean(L, 2);
    const char *msg = luaL_optstring(L, 3, ok ? N_("ok") : N_("expectation failed"));
    run_result_add_check(ctx->r, "expect", ok, msg);
    lua_pushboolean(L, ok);
    return 1;
}

static int t_fail(lua_State *L) {
    RunCtx *ctx = check_t(L, "fail");
    run_result_add_check(ctx->r, "fail", false, luaL_optstring(L, 2, "failed"));
    return 0;
}

static int t_log(lua_State *L) {
    check_t(L, "log");
    int n = lua_gettop(L);
    if (n <= 2) {
        luaL_tolstring(L, 2, NULL);
    } else {
        /* string.format from the registry: the author's `string` global may be shadowed. */
        luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
        lua_getfield(L, -1, "string");
        lua_getfield(L, -1, "format");
        for (int i = 2; i <= n; i++) lua_pushvalue(L, i);
        lua_call(L, n - 1, 1);
    }
    sandbox_log_append(sandbox_from_lua(L), lua_tostring(L, -1));
    return 0;
}

static int t_device(lua_State *L) {
    RunCtx *ctx = check_t(L, "device");
    const DeviceInfo *d = &ctx->dev;
    lua_newtable(L);
    lua_pushstring(L, ctx->opts->emulator_path ? "emu" : ctx->b->ops->name);
    lua_setfield(L, -2, "backend");
    if (!ctx->have_dev) return 1;
    lua_pushstring(L, d->name);
    lua_setfield(L, -2, "name");
#define SETI(field, v) (lua_pushinteger(L, (lua_Integer)(v)), lua_setfield(L, -2, field))
    SETI("cc", d->cc_major * 10 + d->cc_minor);
    SETI("cc_major", d->cc_major);
    SETI("cc_minor", d->cc_minor);
    SETI("sm_count", d->sm_count);
    SETI("global_mem", d->global_mem);
    SETI("shared_per_block", d->shared_per_block);
    SETI("shared_per_block_optin", d->shared_per_block_optin);
    SETI("shared_per_sm", d->shared_per_sm);
    SETI("regs_per_sm", d->regs_per_sm);
    SETI("regs_per_block", d->regs_per_block);
    SETI("max_threads_per_block", d->max_threads_per_block);
    SETI("max_threads_per_sm", d->max_threads_per_sm);
    SETI("max_blocks_per_sm", d->max_blocks_per_sm);
    SETI("warp_size", d->warp_size);
#undef SETI
    lua_pushnumber(L, d->peak_bandwidth_gbs);
    lua_setfield(L, -2, "peak_bandwidth_gbs");
    return 1;
}

static int t_metric(lua_State *L) {
    RunCtx *ctx = check_t(L, "metric");
    const char *name = luaL_checkstring(L, 2);
    double v = luaL_checknumber(L, 3);
    const char *unit = luaL_optstring(L, 4, NULL);
    /* Metrics are stored with every attempt: a 100 MB name reached progress.db. */
    if (strlen(name) > RESULT_MAX_NAME) luaL_error(L, "t:metric: a name of %d bytes or less", RESULT_MAX_NAME);
    if (unit && strlen(unit) > RESULT_MAX_NAME) luaL_error(L, "t:metric: a unit of %d bytes or less", RESULT_MAX_NAME);
    if (json_object_size(run_metrics_obj(ctx, NULL, "custom")) >= RUN_MAX_METRICS)
        luaL_error(L, "t:metric: at most %d metrics per run", RUN_MAX_METRICS);
    json_t *m = json_pack("{s:f}", "value", v);
    if (unit) json_object_set_new(m, "unit", bytes_to_json(unit));
    char *key = bytes_to_utf8(name);
    json_object_set_new(run_metrics_obj(ctx, NULL, "custom"), key, m);
    free(key);
    return 0;
}

static int t_report_bandwidth(lua_State *L) {
    RunCtx *ctx = check_t(L, "report_bandwidth");
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_getfield(L, 2, "bytes");
    double bytes = luaL_checknumber(L, -1);
    lua_getfield(L, 2, "ms");
    if (lua_isnil(L, -1)) return 0; /* no measured time (emulator): nothing honest to report */
    double ms = luaL_checknumber(L, -1);
    if (ms <= 0) return luaL_error(L, "report_bandwidth: ms must be positive");
    double gbs = bytes / (ms * 1e6);
    double peak = ctx->b->ops->peak_copy_gbs ? ctx->b->ops->peak_copy_gbs(ctx->b) : -1;
    json_t *bw = run_metrics_obj(ctx, NULL, "bandwidth");
    json_object_set_new(bw, "gbs", json_real(gbs));
    json_object_set_new(bw, "bytes", json_real(bytes));
    json_object_set_new(bw, "ms", json_real(ms));
    lua_pushnumber(L, gbs);
    if (peak > 0) {
        json_object_set_new(bw, "peak_gbs", json_real(peak));
        json_object_set_new(bw, "fraction_of_peak", json_real(gbs / peak));
        lua_pushnumber(L, gbs / peak);
        return 2;
    }
    return 1;
}

/* A table whose every field reads 0 (bench/bench_predict's GPU runs of the
 * emulator's path: the proxies' checks run and mean nothing). */
static int zero_index(lua_State *L) {
    lua_pushinteger(L, 0);
    return 1;
}

static void mark_proxied(RunCtx *ctx) {
    if (ctx->emu_metrics_launch || !ctx->n_launches) return;
    ctx->emu_metrics_launch = ctx->n_launches;
    json_t *e = json_array_get(json_object_get(ctx->metrics, "launch_log"), (size_t)ctx->n_launches - 1);
    if (e) json_object_set_new(e, "proxied", json_true());
}

static int t_emu_metrics(lua_State *L) {
    RunCtx *ctx = check_t(L, "emu_metrics");
    if (ctx->opts->emulator_path && !ctx->last_emu) {
        mark_proxied(ctx);
        lua_newtable(L);
        lua_newtable(L);
        lua_pushcfunction(L, zero_index);
        lua_setfield(L, -2, "__index");
        lua_setmetatable(L, -2);
        return 1;
    }
    if (!ctx->last_emu) {
        lua_pushnil(L);
        return 1;
    }
    mark_proxied(ctx);
    run_predict_log(L, ctx);
    json_t *tot = json_object_get(ctx->last_emu, "totals");
    run_push_json(L, json_is_object(tot) ? tot : ctx->last_emu, 0);
    /* The ratios API.md promises, derived from the emulator's counts. A
       kernel with no global request (a starter whose body is a TODO) has
       0 for them, never nil, so an exercise that logs or compares them
       cannot turn the starter's failure into an exercise error; the counts
       (global_requests = 0) say why. */
    double req = json_number_value(json_object_get(tot, "global_requests"));
    if (req > 0) {
        lua_pushnumber(L, json_number_value(json_object_get(tot, "global_sectors")) / req);
        lua_setfield(L, -2, "sectors_per_request");
        lua_pushnumber(L, json_number_value(json_object_get(tot, "global_ideal_sectors")) / req);
        lua_setfield(L, -2, "ideal_sectors_per_request");
    }
    json_t *wf = json_object_get(tot, "bank_conflict_wavefronts"), *ideal = json_object_get(tot, "shared_ideal_wavefronts");
    if (json_is_number(wf) && json_is_number(ideal)) {
        lua_pushinteger(L, (lua_Integer)(json_number_value(wf) - json_number_value(ideal)));
        lua_setfield(L, -2, "bank_conflicts");
    }
    static const char *const ratios[] = {"sectors_per_request", "ideal_sectors_per_request", "bank_conflicts",
                                         "bank_conflict_degree"};
    for (size_t i = 0; i < sizeof ratios / sizeof ratios[0]; i++) {
        if (lua_getfield(L, -1, ratios[i]) == LUA_TNIL) {
            lua_pushinteger(L, 0);
            lua_setfield(L, -3, ratios[i]);
        }
        lua_pop(L, 1);
    }
    /* The predicted time on a GPU (kernels/predict.h): a model, never a measurement. */
    json_t *p = ctx->last_predicted;
    if (p) {
        lua_pushnumber(L, json_number_value(json_object_get(p, "ms")));
        lua_setfield(L, -2, "predicted_ms");
        lua_pushnumber(L, json_number_value(json_object_get(p, "copy_fraction")));
        lua_setfield(L, -2, "predicted_copy_fraction");
        lua_pushstring(L, json_string_value(json_object_get(p, "bound")));
        lua_setfield(L, -2, "predicted_bound");
        lua_pushstring(L, json_string_value(json_object_get(p, "device")));
        lua_setfield(L, -2, "predicted_device");
    }
    return 1;
}

/* t:predicted_ms() -> the last emulator launch's predicted time on an H200
 * in ms, the device's name and what bounds it; nil on a GPU or before a launch. */
static int t_predicted_ms(lua_State *L) {
    RunCtx *ctx = check_t(L, "predicted_ms");
    json_t *p = ctx->last_predicted;
    if (!p) {
        lua_pushnil(L);
        return 1;
    }
    lua_pushnumber(L, json_number_value(json_object_get(p, "ms")));
    lua_pushstring(L, json_string_value(json_object_get(p, "device")));
    lua_pushstring(L, json_string_value(json_object_get(p, "bound")));
    return 3;
}

/* t:kernel, except in a program exercise, whose source is a whole program
 * for nvcc: NVRTC is never tried on it. */
static int t_kernel(lua_State *L) {
    RunCtx *ctx = check_t(L, "kernel");
    if (ctx->ex->program)
        return luaL_error(L, "t:kernel: %s is a program exercise (kind = \"program\"); run the learner's "
                             "program with t:program{...}", ctx->ex->id);
    return run_t_kernel(L);
}

/* What t can do after the verdict (t:program{ after = fn }): read and log,
 * never check, fail or run anything. */
static const char *const AFTER_VERDICT_METHODS[] = {"log", "metric", "device", "param", "grading", "seed",
                                                    "timeline", "emu_metrics", "predicted_ms", "source", NULL};

static int t_index(lua_State *L) {
    const char *k = luaL_checkstring(L, 2);
    if (run_ctx(L)->after_verdict) {
        bool ok = false;
        for (int i = 0; AFTER_VERDICT_METHODS[i] && !ok; i++) ok = !strcmp(k, AFTER_VERDICT_METHODS[i]);
        if (!ok)
            luaL_error(L, "t:%s: after the verdict a profile can only log (t:log, t:metric): the verdict was "
                          "decided when run(t) returned", k);
    }
    luaL_getmetatable(L, T_MT);
    lua_getfield(L, -1, "methods");
    if (lua_getfield(L, -1, k) == LUA_TNIL) sandbox_unknown_key_error(L, "t has no method", k, -2);
    return 1;
}

static void install_t(Sandbox *sb) {
    lua_State *L = sandbox_lua(sb);
    static const luaL_Reg methods[] = {
        {"param", t_param},
        {"grading", t_grading},
        {"seed", t_seed},
        {"kernel", t_kernel},
        {"expect_equal", t_expect_equal},
        {"expect_close", t_expect_close},
        {"expect", t_expect},
        {"stretch", t_stretch},
        {"fail", t_fail},
        {"log", t_log},
        {"device", t_device},
        {"metric", t_metric},
        {"report_bandwidth", t_report_bandwidth},
        {"emu_metrics", t_emu_metrics},
        {"predicted_ms", t_predicted_ms},
        {"expect_occupancy", run_t_expect_occupancy},
        {NULL, NULL},
    };
    luaL_newmetatable(L, T_MT);
    luaL_newlib(L, methods);
    run_stream_add_methods(L);
    run_program_add_methods(L);
    run_emu_add_methods(L);
    lua_setfield(L, -2, "methods");
    lua_pushcfunction(L, t_index);
    lua_setfield(L, -2, "__index");
    lua_pushliteral(L, "locked");
    lua_setfield(L, -2, "__metatable");
    lua_pop(L, 1);
    run_kernel_install(L);
}

static char *where(const Diag *d) {
    if (d->file && d->line > 0) return xasprintf(N_("%s:%d: %s"), d->file, d->line, d->message);
    return xstrdup(d->message);
}

static void decide(RunCtx *ctx, Diag *lua_err) {
    RunResult *r = ctx->r;
    Diag *first = NULL;
    if (ctx->api.aborted) {
        r->verdict = ctx->api.abort_verdict;
        first = ctx->api.abort_diags;
        diag_append(&ctx->api.abort_diags, ctx->diags);
        r->diags = ctx->api.abort_diags;
        ctx->api.abort_diags = NULL;
        ctx->diags = NULL;
        diag_free(&lua_err);
    } else if (lua_err) {
        r->verdict = VERDICT_EXERCISE_ERROR;
        first = lua_err;
        diag_append(&lua_err, ctx->diags);
        r->diags = lua_err;
        ctx->diags = NULL;
    } else {
        r->diags = ctx->diags;
        ctx->diags = NULL;
    }
    int failed = 0;
    const CheckResult *ff = NULL;
    for (int i = 0; i < r->n_checks; i++)
        if (!r->checks[i].passed && !r->checks[i].stretch && !failed++) ff = &r->checks[i];
    const Diag *ferr = NULL;
    for (const Diag *d = r->diags; d && !ferr; d = d->next)
        if (d->severity == DIAG_ERROR) ferr = d;
    char *s = NULL;
    if (first) {
        char *w = where(first);
        int n_err = diag_count_errors(r->diags);
        if (r->verdict == VERDICT_EXERCISE_ERROR) s = xasprintf(N_("exercise script error: %s"), w);
        else if (r->verdict == VERDICT_COMPILE_ERROR && first->file && n_err > 0 && !strcmp(first->code, "compile"))
            s = xasprintf(N_("%s did not compile (%d error%s)"), first->file, n_err, n_err == 1 ? "" : "s");
        else s = xstrdup(w);
        free(w);
    } else if (ctx->finding_error || failed) {
        r->verdict = VERDICT_FAIL;
        if ((ctx->finding_error && ferr) || !ff) s = ferr ? where(ferr) : xstrdup(N_("the kernel misbehaved"));
        else if (ff->n_total > 1 || ff->n_wrong > 1)
            s = xasprintf(N_("%s: %lld element%s wrong of %lld"), ff->name, ff->n_wrong, ff->n_wrong == 1 ? "" : "s",
                          ff->n_total);
        else s = xasprintf("%s: %s", ff->name, ff->message);
        if (failed > 1 && !(ctx->finding_error && ferr)) {
            char *t = xasprintf(N_("%s (and %d more failed check%s)"), s, failed - 1, failed > 2 ? "s" : "");
            free(s);
            s = t;
        }
    } else {
        r->verdict = VERDICT_PASS;
        int goals = 0, met = 0;
        for (int i = 0; i < r->n_checks; i++)
            if (r->checks[i].stretch) {
                goals++;
                met += r->checks[i].passed;
            }
        int n = r->n_checks - goals;
        if (goals)
            s = xasprintf(N_("%d check%s passed; %s"), n, n == 1 ? "" : "s",
                          met == goals ? (goals == 1 ? N_("stretch goal met") : N_("every stretch goal met"))
                                       : (goals == 1 ? N_("stretch goal not met yet") : N_("some stretch goals not met yet")));
        else s = r->n_checks ? xasprintf(N_("%d check%s passed"), r->n_checks, r->n_checks == 1 ? "" : "s")
                        : xstrdup(N_("ran (the exercise has no checks)"));
    }
    r->summary = s;
}

/* Inside the sandbox's protection: takes the exercise table, calls run(t). */
static int call_run(lua_State *L) {
    if (!lua_istable(L, 1)) return luaL_error(L, "the exercise must return a table, not %s", luaL_typename(L, 1));
    lua_pushliteral(L, "run");
    if (lua_rawget(L, 1) != LUA_TFUNCTION) return luaL_error(L, "the exercise has no function 'run'");
    lua_newuserdatauv(L, 0, 0);
    luaL_setmetatable(L, T_MT);
    lua_call(L, 1, 0);
    return 0;
}

/* Loads the exercise file and calls its run(t); returns the Lua error. */
static Diag *run_script(RunCtx *ctx, Sandbox *sb) {
    lua_State *L = sandbox_lua(sb);
    const char *display = ctx->ex->chunkname && ctx->ex->chunkname[0] == '@' ? ctx->ex->chunkname + 1
                                                                             : ctx->ex->lua_path;
    char *dir = path_dirname(ctx->ex->lua_path), *shown = path_dirname(display);
    sandbox_enable_require(sb, dir, shown);   /* the chapter's lib/ modules */
    free(dir);
    free(shown);
    Diag *d = sandbox_load_file(sb, ctx->ex->lua_path, display);
    if (!d) d = sandbox_call(sb, 0, 1);
    if (d) return d;
    /* Everything from here, even making `t`, runs protected: a memory cap
     * hit must become a Diag, never a panic. */
    lua_pushcfunction(L, call_run);
    lua_insert(L, -2);
    d = sandbox_call(sb, 1, 0);
    lua_settop(L, 0);
    if (d && !d->file) {
        d->file = xstrdup(display);
    }
    return d;
}

/* The sandbox's tick: where the script is, while it is the script that runs. */
static void script_tick(void *ud, const char *file, int line) {
    RunCtx *ctx = ud;
    if (ctx->opts->on_activity && (!ctx->activity || !strcmp(ctx->activity, "script"))) {
        char *what = xasprintf(N_("running the exercise script (at %s:%d)"), file, line);
        ctx->opts->on_activity(ctx->opts->activity_ud, "script", what);
        free(what);
    }
}

/* metrics.phases: where the run's time went, in ms per phase (api_phase),
 * total_ms the whole run; the bytes copied each way; whether the costly
 * references came from their cache. Hidden metrics
 * (the results pane shows them on `m`; `make bench` prints them). */
static void record_phases(RunCtx *ctx, double total_ms) {
    api_phase(&ctx->api, PHASE_SCRIPT);
    json_t *ph = json_object();
    for (int p = 0; p < PHASE_COUNT; p++) {
        if (ctx->api.phase_ms[p] <= 0 && p != PHASE_SCRIPT) continue;
        char key[32];
        snprintf(key, sizeof key, "%s_ms", api_phase_name((ApiPhase)p));
        json_object_set_new(ph, key, json_real(ctx->api.phase_ms[p]));
    }
    json_object_set_new(ph, "total_ms", json_real(total_ms));
    if (ctx->api.upload_bytes > 0) json_object_set_new(ph, "upload_bytes", json_real(ctx->api.upload_bytes));
    if (ctx->api.download_bytes > 0) json_object_set_new(ph, "download_bytes", json_real(ctx->api.download_bytes));
    /* The costly references (ref_cache.h): how many came from the cache; cached = all of them. */
    int hits = ctx->api.ref_cache_hits, misses = ctx->api.ref_cache_misses;
    if (hits + misses > 0) {
        json_object_set_new(ph, "reference_cache_hits", json_integer(hits));
        json_object_set_new(ph, "reference_cache_misses", json_integer(misses));
        json_object_set_new(ph, "reference_cached", json_boolean(misses == 0));
    }
    json_object_set_new(ctx->metrics, "phases", ph);
}

/* The emulator's per-launch instruction budget in force (0: the default, or no emulator). */
static uint64_t emu_budget(RunCtx *ctx) {
    EmuOptions eo = {0};
    if (ctx->b->ops->emu_options_get) ctx->b->ops->emu_options_get(ctx->b, &eo);
    return eo.instruction_budget;
}

/* Sets the emulator's deadline (CLOCK_MONOTONIC seconds; 0 = none) and
 * per-launch instruction budget (0 = the default). */
static void set_emu_limits(RunCtx *ctx, double deadline_s, uint64_t launch_budget) {
    const BackendOps *ops = ctx->b->ops;
    if (!ops->emu_options_get || !ops->emu_options_set) return;
    EmuOptions eo;
    ops->emu_options_get(ctx->b, &eo);
    eo.deadline_s = deadline_s;
    eo.instruction_budget = launch_budget;
    ops->emu_options_set(ctx->b, &eo);
}

/* metrics.gpu_lock: what this run spent on the GPU lock (kernels/gpu_lock.h),
 * when it took it at all: waiting for it and holding it, exclusive (timed)
 * and shared, in ms, and how many times it took each. `cudojo grade` keeps it
 * per run (gradebook.json's "time"). */
static void record_gpu_lock(RunCtx *ctx, const GpuLockStats *before) {
    GpuLockStats now, d;
    gpu_lock_stats(&now);
    d = gpu_lock_stats_diff(&now, before);
    if (!d.exclusive_sections && !d.shared_sections && d.wait_exclusive_s + d.wait_shared_s <= 0) return;
    json_object_set_new(ctx->metrics, "gpu_lock",
                        json_pack("{s:f, s:f, s:f, s:f, s:f, s:I, s:I}", "wait_ms",
                                  (d.wait_exclusive_s + d.wait_shared_s) * 1e3, "wait_exclusive_ms",
                                  d.wait_exclusive_s * 1e3, "wait_shared_ms", d.wait_shared_s * 1e3, "exclusive_ms",
                                  d.held_exclusive_s * 1e3, "shared_ms", d.held_shared_s * 1e3, "exclusive_sections",
                                  (json_int_t)d.exclusive_sections, "shared_sections", (json_int_t)d.shared_sections));
}

/* Decides the verdict while the sandbox is still open (the deferred runs
 * need it) and tells opts->on_verdict: the result as it stands, with the
 * log, device output, timeline and phases so far. */
static void verdict_now(RunCtx *ctx, Sandbox *sb, double t0, const GpuLockStats *lock0) {
    RunResult *r = ctx->r;
    if (sandbox_log(sb)) r->log = xstrdup(sandbox_log(sb));
    run_timeline_finish(ctx);
    decide(ctx, NULL);
    if (ctx->has_devout) r->device_output = xstrdup(ctx->devout.data);
    ctx->has_devout = false;    /* kept: nothing after the verdict writes to it */
    r->duration_ms = run_now_ms() - t0;
    record_phases(ctx, r->duration_ms);
    record_gpu_lock(ctx, lock0);
    json_object_set_new(run_metrics_obj(ctx, NULL, "after"), "verdict_ms", json_real(r->duration_ms));
    r->metrics = ctx->metrics;  /* lent for the call; exercise_run sets it again at the end */
    if (ctx->opts->on_verdict) ctx->opts->on_verdict(ctx->opts->verdict_ud, r);
    r->metrics = NULL;
}

/* A warning for what went wrong after the verdict: the verdict stands. */
static void after_warning(RunCtx *ctx, const char *display, Diag *why) {
    for (Diag *d = why; d; d = d->next) {
        Diag *w = diag_new(DIAG_WARNING, "after-verdict", d->file ? d->file : display, d->file ? d->line : 0, 0,
                           "after the verdict: %s (the verdict stands)", d->message);
        diag_append(&ctx->r->diags, w);
    }
    diag_free(&why);
}

/* Runs the profiled runs kept by t:program{ after = fn } in order, each
 * calling its function; a Lua error in one (a check after the verdict, a
 * bug, the script's time) becomes a warning and the next one still runs.
 * Checks that slipped past t's guard (a method kept in a local) are made
 * on a scratch result and reported, never counted. r->after_log gets what
 * they logged. */
static void run_after_verdict(RunCtx *ctx, Sandbox *sb) {
    lua_State *L = sandbox_lua(sb);
    const char *display = ctx->ex->chunkname && ctx->ex->chunkname[0] == '@' ? ctx->ex->chunkname + 1
                                                                             : ctx->ex->lua_path;
    RunResult *verdict = ctx->r, *scratch = run_result_new(VERDICT_PASS);
    size_t log0 = sandbox_log(sb) ? strlen(sandbox_log(sb)) : 0;
    double t0 = run_now_ms();
    ctx->after_verdict = true;
    ctx->r = scratch;
    for (int i = 1; i <= ctx->n_after; i++) {
        lua_pushcfunction(L, run_program_after_call);
        run_program_push_after(L, i);
        Diag *d = sandbox_call(sb, 1, 0);
        if (sandbox_aborted(sb) || ctx->api.aborted) {
            diag_free(&d);
            d = ctx->api.abort_diags;
            ctx->api.abort_diags = NULL;
            ctx->api.aborted = false;
        }
        lua_settop(L, 0);
        if (d && !d->file) d->file = xstrdup(display);
        ctx->r = verdict;
        if (d) after_warning(ctx, display, d);
        ctx->r = scratch;
    }
    ctx->r = verdict;
    if (scratch->n_checks)
        diag_append(&verdict->diags, diag_new(DIAG_WARNING, "after-verdict", display, 0, 0,
                                              "after the verdict: %d check%s made and not counted (a profile's "
                                              "after function can only log; the verdict stands)",
                                              scratch->n_checks, scratch->n_checks == 1 ? " was" : "s were"));
    run_result_free(&scratch);
    diag_append(&verdict->diags, ctx->diags);     /* none expected: a profiled run adds no finding */
    ctx->diags = NULL;
    const char *log = sandbox_log(sb);
    if (log && strlen(log) > log0) verdict->after_log = xstrdup(log + log0);
    json_t *after = run_metrics_obj(ctx, NULL, "after");
    json_object_set_new(after, "runs", json_integer(ctx->n_after));
    json_object_set_new(after, "ms", json_real(run_now_ms() - t0));
}

RunResult *exercise_run(const ExerciseMeta *ex, Backend *backend, const ExerciseRunOptions *opts) {
    double t0 = run_now_ms();
    GpuLockStats lock0;
    gpu_lock_stats(&lock0);
    gpu_lock_set_label(ex->id);     /* CUDOJO_GPU_LOCK_TRACE's lines name the exercise */
    RunResult *r = run_result_new(VERDICT_PASS);
    r->exercise_id = xstrdup(ex->id);
    r->backend = xstrdup(backend->ops->name);
    RunCtx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.api.backend = backend;
    ctx.api.array_cap = opts->array_cap;
    /* A grading run whose seed happens to be 0 still gets other data. */
    ctx.api.seed_salt = opts->grading ? (opts->grading_seed ? opts->grading_seed : 0x6772616465ull) : 0;
    ctx.ex = ex;
    ctx.opts = opts;
    ctx.b = backend;
    ctx.r = r;
    ctx.cu_display = opts->cu_display ? opts->cu_display : opts->cu_path;
    ctx.metrics = json_object();
    ctx.t0_ms = t0;
    ctx.api.phase_t0 = t0;      /* metrics.phases: from here on, every switch is counted */
    strbuf_init(&ctx.devout);

    size_t cu_len = 0;
    Diag *d = fs_read_file(opts->cu_path, &ctx.cu_text, &cu_len);
    /* A graded source is a stranger's: no #include of the instructor's files (kernels/include_check.h). */
    Diag *refused = !d && opts->grading ? include_check_graded(ctx.cu_display, ctx.cu_text, cu_len) : NULL;
    if (refused) {
        r->verdict = VERDICT_COMPILE_ERROR;
        r->summary = xasprintf(N_("%s includes a file graded work may not include"), ctx.cu_display);
        r->diags = refused;
    } else if (d) {
        /* fs_read_file says why (missing, a FIFO, a device, too large). */
        r->verdict = VERDICT_COMPILE_ERROR;
        r->diags = diag_new(DIAG_ERROR, "io", ctx.cu_display, 0, 0, "%s", d->message);
        r->summary = xasprintf(N_("cannot read %s"), ctx.cu_display);
        diag_free(&d);
    } else {
        d = backend->ops->device_info(backend, &ctx.dev);
        ctx.have_dev = d == NULL;
        diag_free(&d);
        run_timeline_begin(&ctx);
        /* The script's own wall-clock limit ends it (at its line) a little
         * before the worker's parent kills the run. */
        SandboxLimits lim = {.instruction_budget = opts->instruction_budget, .memory_cap = opts->memory_cap,
                             .wall_seconds = run_timeout_s(&ctx) * 0.9,
                             .not_counted_s = gpu_lock_waited_s};
        Sandbox *sb = sandbox_new(&lim);
        sandbox_set_tick(sb, script_tick, &ctx);
        sandbox_set_user(sb, &ctx.api);
        api_install(sb);
        uint64_t budget0 = emu_budget(&ctx);
        set_emu_limits(&ctx, t0 / 1e3 + run_timeout_s(&ctx) * EMU_DEADLINE_SHARE,
                       opts->emu_launch_budget ? opts->emu_launch_budget : budget0);
        install_t(sb);
        Diag *lua_err = run_script(&ctx, sb);
        if (sandbox_aborted(sb)) diag_free(&lua_err);
        /* Profiled runs kept for after the verdict (t:program{ after = }): the verdict
           goes out first; an abort or a script error leaves nothing to profile. */
        bool after = ctx.n_after > 0 && !lua_err && !ctx.api.aborted;
        if (after) {
            verdict_now(&ctx, sb, t0, &lock0);
            run_after_verdict(&ctx, sb);
        } else if (sandbox_log(sb)) {
            r->log = xstrdup(sandbox_log(sb));
        }
        json_object_set_new(ctx.metrics, "lua_instructions", json_integer((json_int_t)sandbox_instructions_used(sb)));
        /* Closing the state runs every array's __gc: device buffers are freed here. */
        sandbox_free(&sb);
        set_emu_limits(&ctx, 0, budget0);   /* the backend outlives the run (a warm worker) */
        if (!after) {
            run_timeline_finish(&ctx);
            decide(&ctx, lua_err);
        }
    }
    run_modules_free(&ctx);
    run_programs_free(&ctx);
    if (ctx.has_devout) r->device_output = strbuf_steal(&ctx.devout);
    strbuf_fini(&ctx.devout);
    if (ctx.last_emu) json_decref(ctx.last_emu);
    if (ctx.last_predicted) json_decref(ctx.last_predicted);
    diag_free(&ctx.diags);
    diag_free(&ctx.api.abort_diags);
    r->duration_ms = run_now_ms() - t0;
    record_phases(&ctx, r->duration_ms);
    record_gpu_lock(&ctx, &lock0);
    r->metrics = ctx.metrics;
    free(ctx.cu_text);
    return r;
}
