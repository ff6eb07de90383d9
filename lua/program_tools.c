/* lua/program_tools.c: t:program{ sanitizer = "memcheck" }: on a GPU whose
 * toolkit has compute-sanitizer, the learner's program runs a second time
 * under it (kernels/program.h, ProgramTool; the other run, without the
 * tool, gives r.calls, r.kernels and the timeline, which the tool's own
 * injection would take): beside that run, on a thread of its own, when
 * nobody reads the program's times (an untimed exercise), else after it.
 * Its report becomes r.sanitizer and
 * diagnostics next to the emulator's findings: an invalid access, a race,
 * an uninitialised read or a barrier error is an error (it fails the run),
 * a failed API call or a leak a warning. On the emulator r.sanitizer says
 * it is not available: the emulator's own findings are the report there.
 *
 * t:program{ profile = "ncu" | "nsys", metrics = {...} } likewise runs it
 * again under Nsight Compute (metrics per launch) or Nsight Systems (time
 * per kernel and per copy kind; kernels/program_profile.h) and sets
 * r.profile; without the tool, or on the emulator, r.profile.available is
 * false with the reason, and the exercise reads cudojo's own data.
 *
 * With after = function(prof) the profiled run waits for the verdict: t:program
 * returns after the plain run (no r.profile), the run is kept, and once run(t)
 * has returned and the verdict is out, exercise_run.c runs each kept one in
 * order and calls its function with the profile table, which can only log
 * (Nsight Compute's own start takes ~2 s on the H200: the verdict need not
 * wait for it). Grading keeps none: its verdict never reads a profiler. */
#include <assert.h>
#include <lauxlib.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "kernels/program_profile.h"
#include "lua/run.h"

static const char *const TOOLS[] = {"memcheck", "racecheck", "initcheck", "synccheck", NULL};

const char *run_program_sanitizer_check(lua_State *L, int idx) {
    if (lua_type(L, idx) != LUA_TSTRING)
        luaL_error(L, "t:program: sanitizer must be a string: \"memcheck\", \"racecheck\", \"initcheck\" or "
                      "\"synccheck\"");
    const char *s = lua_tostring(L, idx);
    for (int i = 0; TOOLS[i]; i++)
        if (!strcmp(s, TOOLS[i])) return TOOLS[i];
    luaL_error(L, "t:program: sanitizer '%s' is not a compute-sanitizer tool: \"memcheck\", \"racecheck\", "
                  "\"initcheck\" or \"synccheck\"", s);
    return NULL;
}

/* The Diag for one error, in the learner's file when the report names it. */
static Diag *error_diag(const SanitizerError *e, const char *tool, const char *display) {
    bool ours = e->file && display && !strcmp(e->file, display);
    char where[160] = "", times[32] = "";
    if (e->kernel) snprintf(where, sizeof where, " in %s", e->kernel);
    if (e->count > 1) snprintf(times, sizeof times, " (%d times)", e->count);
    Diag *d = diag_new(sanitizer_kind_is_error(e->kind) ? DIAG_ERROR : DIAG_WARNING, "sanitizer", ours ? display : NULL,
                       ours ? e->line : 0, 0, "compute-sanitizer %s: %s%s%s", tool, e->message, where, times);
    if (e->thread[0] >= 0 && e->block[0] >= 0) {
        d->has_thread = true;
        for (int i = 0; i < 3; i++) {
            d->thread[i] = (unsigned)e->thread[i];
            d->block[i] = (unsigned)e->block[i];
        }
    }
    return d;
}

static void push_errors(lua_State *L, const SanitizerReport *rep) {
    lua_createtable(L, rep->n_errors, 0);
    for (int i = 0; i < rep->n_errors; i++) {
        const SanitizerError *e = &rep->errors[i];
        lua_createtable(L, 0, 8);
        lua_pushstring(L, e->kind);
        lua_setfield(L, -2, "kind");
        lua_pushstring(L, e->message);
        lua_setfield(L, -2, "message");
        if (e->kernel) {
            lua_pushstring(L, e->kernel);
            lua_setfield(L, -2, "kernel");
        }
        if (e->file) {
            lua_pushstring(L, e->file);
            lua_setfield(L, -2, "file");
        }
        lua_pushinteger(L, e->line);
        lua_setfield(L, -2, "line");
        lua_pushinteger(L, e->count);
        lua_setfield(L, -2, "count");
        if (e->thread[0] >= 0) {
            lua_createtable(L, 3, 0);
            for (int k = 0; k < 3; k++) {
                lua_pushinteger(L, e->thread[k]);
                lua_rawseti(L, -2, k + 1);
            }
            lua_setfield(L, -2, "thread");
        }
        if (e->block[0] >= 0) {
            lua_createtable(L, 3, 0);
            for (int k = 0; k < 3; k++) {
                lua_pushinteger(L, e->block[k]);
                lua_rawseti(L, -2, k + 1);
            }
            lua_setfield(L, -2, "block");
        }
        lua_rawseti(L, -2, i + 1);
    }
}

/* A second run of the program beside the plain one, on a thread of its
 * own: under compute-sanitizer, or on the emulator runtime. It touches no
 * Lua and nothing of the caller's but `exe` and `ro`'s pointers, which
 * t:program keeps until it is joined. */
struct BesideRun {
    char *path;                     /* compute-sanitizer; NULL: the emulator's run */
    const char *argv[16];
    ProgramTool pt;
    ProgramRunOptions ro;
    EmuOptions emu;                 /* the emulator's run: its options */
    const char *exe;
    ProgramResult pr;
    Diag *d;
    volatile int cancel;
    pthread_t th;
    bool threaded;
};

/* The sanitizer's run for `exe` with `ro_in`, or NULL (and *reason) when
 * there is none to make: not on a GPU, or no compute-sanitizer here. */
static BesideRun *sanitizer_prepare(RunCtx *ctx, const char *tool, const char *exe, const ProgramRunOptions *ro_in,
                                    bool cuda, const char **reason) {
    char *path = cuda ? program_find_tool("compute-sanitizer") : NULL;
    if (!path) {
        *reason = cuda ? "the CUDA toolkit here has no compute-sanitizer"
                       : "the program ran on the emulator, whose findings are its report";
        return NULL;
    }
    double left = ctx->ex->timeout_s * 0.85 - (run_now_ms() - ctx->t0_ms) / 1e3;
    if (ctx->after_verdict && left < 1) {
        /* after the verdict nothing waits for it: a run that cannot finish is not started */
        free(path);
        *reason = "no time was left for it within the exercise's timeout";
        return NULL;
    }
    BesideRun *s = xcalloc(1, sizeof *s);
    s->path = path;
    s->exe = exe;
    int argc = sanitizer_tool_argv(path, tool, s->argv);
    s->pt = (ProgramTool){.argv = s->argv, .argc = argc, .out_name = "sanitizer.log", .out_cap = 4u << 20};
    s->ro = *ro_in;
    s->ro.tool = &s->pt;
    s->ro.emu = NULL;               /* a GPU run: the emulator's options are t:program's (its stack) */
    s->ro.cancel = &s->cancel;
    s->ro.timeout_s = left > 1 ? left : 1;
    s->ro.cpu_s = 0;
    return s;
}

static void *beside_main(void *arg) {
    BesideRun *s = arg;
    s->d = program_run(s->exe, &s->ro, &s->pr);
    return NULL;
}

static void beside_free(BesideRun *s) {
    program_result_fini(&s->pr);
    diag_free(&s->d);
    free(s->path);
    free(s);
}

/* Starts s on its thread; NULL (s freed) when no thread could start. */
static BesideRun *beside_start(BesideRun *s) {
    /* what a lazy look-up would otherwise do on both threads at once */
    (void)program_inject_path();
    (void)program_emurt_dir();
    (void)program_sandbox_landlock_abi();
    s->threaded = pthread_create(&s->th, NULL, beside_main, s) == 0;
    if (!s->threaded) {
        beside_free(s);
        return NULL;
    }
    return s;
}

BesideRun *run_program_sanitizer_start(RunCtx *ctx, const char *tool, const char *exe, const ProgramRunOptions *ro,
                                       bool cuda) {
    const char *beside = getenv("CUDOJO_SANITIZER_BESIDE");
    /* Not with the GPU lock (grading: nobody waits for this verdict, and a
       worker's two runs at once were where the children's inherited pipes
       held each other up: kernels/program_run.c's child_main). */
    if (!ro->gpu_shared || gpu_lock_enabled() || (beside && !strcmp(beside, "0"))) return NULL;
    const char *reason;
    BesideRun *s = sanitizer_prepare(ctx, tool, exe, ro, cuda, &reason);
    /* no thread: run_program_sanitizer runs it after the plain run, as before */
    return s ? beside_start(s) : NULL;
}

BesideRun *run_program_emulator_start(RunCtx *ctx, const char *exe, const ProgramRunOptions *ro,
                                      const EmuOptions *emu) {
    if (!program_emurt_dir()) {
        diag_append(&ctx->diags, diag_new(DIAG_WARNING, "emulator", NULL, 0, 0,
                                          "the program did not also run on the emulator: its runtime library is not "
                                          "installed here (CUDOJO_EMURT_DIR names another folder)"));
        return NULL;
    }
    BesideRun *s = xcalloc(1, sizeof *s);
    s->exe = exe;
    s->ro = *ro;
    s->emu = *emu;
    s->ro.emu = &s->emu;
    s->ro.runtime = PROGRAM_RT_EMU;
    s->ro.tool = NULL;
    s->ro.cancel = &s->cancel;
    s->ro.tee_out = s->ro.tee_err = -1;
    s = beside_start(s);
    if (!s)
        diag_append(&ctx->diags, diag_new(DIAG_WARNING, "emulator", NULL, 0, 0,
                                          "the program did not also run on the emulator: no thread for it"));
    return s;
}

void run_program_beside_join(BesideRun *s, bool cancel) {
    if (!s || !s->threaded) return;
    if (cancel) s->cancel = 1;
    pthread_join(s->th, NULL);
    s->threaded = false;
}

void run_program_beside_discard(BesideRun **ps) {
    if (!*ps) return;
    run_program_beside_join(*ps, true);
    beside_free(*ps);
    *ps = NULL;
}

#define BESIDE_BOX_MT "cudojo.beside_run"

static int beside_box_gc(lua_State *L) {
    run_program_beside_discard((BesideRun **)lua_touserdata(L, 1));
    return 0;
}

BesideRun **run_program_beside_box(lua_State *L) {
    BesideRun **box = lua_newuserdatauv(L, sizeof *box, 0);
    *box = NULL;
    if (luaL_newmetatable(L, BESIDE_BOX_MT)) {
        lua_pushcfunction(L, beside_box_gc);
        lua_setfield(L, -2, "__gc");
    }
    lua_setmetatable(L, -2);
    return box;
}

void run_program_emulator_absorb(RunCtx *ctx, BesideRun **box) {
    BesideRun *s = *box;
    *box = NULL;
    if (!s) return;
    run_program_beside_join(s, false);
    const ProgramResult *pr = &s->pr;
    const char *why = s->d ? s->d->message
                      : !pr->started ? "it did not start"
                      : pr->timed_out ? "it did not finish in time"
                      : pr->signaled ? "it was ended by a signal"
                                     : NULL;
    if (why)
        diag_append(&ctx->diags, diag_new(DIAG_WARNING, "emulator", NULL, 0, 0,
                                          "the program's run on the emulator (beside the GPU's) is incomplete: %s; "
                                          "what it found so far is below",
                                          why));
    /* The kernels' own bugs count as on the emulator backend; the rest (a
       CUDA error the GPU's run reports too, the emulator's own limits) is
       said, and fails nothing. */
    Diag *f = s->pr.findings;
    s->pr.findings = NULL;
    while (f) {
        Diag *next = f->next;
        f->next = NULL;
        if (diag_code_is_kernel_bug(f->code)) {
            if (f->severity == DIAG_ERROR) ctx->finding_error = true;
            diag_append(&ctx->diags, f);
        } else if (f->severity == DIAG_ERROR) {
            char *msg = xasprintf("on the emulator (beside the GPU's run, whose verdict stands): %s", f->message);
            free(f->message);
            f->message = msg;
            f->severity = DIAG_WARNING;
            diag_append(&ctx->diags, f);
        } else {
            diag_free(&f);
        }
        f = next;
    }
    beside_free(s);
}

void run_program_sanitizer(lua_State *L, RunCtx *ctx, const char *tool, const char *exe,
                           const ProgramRunOptions *ro_in, bool cuda, bool expect_errors, BesideRun **box) {
    BesideRun *ran = box ? *box : NULL;
    if (box) *box = NULL;           /* this call owns it now */
    int r = lua_gettop(L);
    lua_createtable(L, 0, 6);
    lua_pushstring(L, tool);
    lua_setfield(L, -2, "tool");
    const char *reason = NULL;
    BesideRun *s = ran ? ran : sanitizer_prepare(ctx, tool, exe, ro_in, cuda, &reason);
    if (!s) {
        lua_pushboolean(L, 0);
        lua_setfield(L, -2, "available");
        lua_pushstring(L, reason);
        lua_setfield(L, -2, "reason");
        lua_newtable(L);
        lua_setfield(L, -2, "errors");
        lua_pushliteral(L, "");
        lua_setfield(L, -2, "text");
        lua_setfield(L, r, "sanitizer");
        return;
    }
    /* its result, and what it holds, freed with the box, even if a push raises */
    ProgramResult *pr = run_program_push_box(L);
    Diag *d;
    if (ran) {
        run_program_beside_join(s, false);
        *pr = s->pr;
        memset(&s->pr, 0, sizeof s->pr);
        d = s->d;
        s->d = NULL;
    } else {
        run_activity(L, "program", "running the program under compute-sanitizer --tool %s", tool);
        d = program_run(exe, &s->ro, pr);
        run_activity(L, "script", "running the exercise script");
    }
    const char *display = s->ro.display_path;
    beside_free(s);
    lua_pushvalue(L, r + 1);    /* the table on top again; the box stays below it until the end */
    SanitizerReport rep;
    sanitizer_report_parse(d ? NULL : pr->tool_output, tool, &rep);
    sanitizer_report_relocate(&rep, display);
    lua_pushboolean(L, d == NULL);
    lua_setfield(L, -2, "available");
    if (d) {
        lua_pushstring(L, d->message);
        lua_setfield(L, -2, "reason");
        diag_free(&d);
    } else if (pr->timed_out || !pr->tool_output) {
        lua_pushstring(L, pr->timed_out ? "compute-sanitizer did not finish in time"
                                        : "compute-sanitizer wrote no report");
        lua_setfield(L, -2, "reason");
    }
    lua_pushlstring(L, pr->tool_output ? pr->tool_output : "", pr->tool_output_len);
    lua_setfield(L, -2, "text");
    lua_pushinteger(L, rep.total);
    lua_setfield(L, -2, "total");
    push_errors(L, &rep);
    lua_setfield(L, -2, "errors");
    for (int i = 0; i < rep.n_errors; i++) {
        Diag *e = error_diag(&rep.errors[i], tool, display);
        if (expect_errors && !strncmp(rep.errors[i].kind, "invalid-", 8)) e->severity = DIAG_WARNING;
        if (e->severity == DIAG_ERROR) ctx->finding_error = true;
        diag_append(&ctx->diags, e);
    }
    sanitizer_report_fini(&rep);
    lua_settop(L, r + 1);
    lua_setfield(L, r, "sanitizer");
}

/* The finding codes of a CUDA error the program itself sees: a refused
 * launch, and a GPU fault (emurt_launch.c's fault_of). */
static bool is_cuda_error(const char *code) {
    return code && (!strcmp(code, "launch") || !strncmp(code, "oob-", 4) || !strcmp(code, "misaligned") ||
                    !strcmp(code, "assert") || !strcmp(code, "trap"));
}

void run_program_expect_errors(Diag *findings) {
    for (Diag *d = findings; d; d = d->next)
        if (d->severity == DIAG_ERROR && is_cuda_error(d->code)) d->severity = DIAG_WARNING;
}

void run_program_push_findings(lua_State *L, const Diag *findings) {
    lua_newtable(L);
    int i = 0;
    for (const Diag *d = findings; d; d = d->next) {
        lua_createtable(L, 0, 5);
        lua_pushstring(L, d->code ? d->code : "");
        lua_setfield(L, -2, "code");
        lua_pushstring(L, d->severity == DIAG_ERROR ? "error" : d->severity == DIAG_WARNING ? "warning" : "note");
        lua_setfield(L, -2, "severity");
        if (d->file) {
            lua_pushstring(L, d->file);
            lua_setfield(L, -2, "file");
        }
        lua_pushinteger(L, d->line);
        lua_setfield(L, -2, "line");
        lua_pushstring(L, d->message ? d->message : "");
        lua_setfield(L, -2, "message");
        lua_rawseti(L, -2, ++i);
    }
}

/* ---- t:program{ profile = "ncu" | "nsys", metrics = {...} } ---- */

void run_program_profile_check(lua_State *L, int opts, ProfileRequest *req) {
    memset(req, 0, sizeof *req);
    opts = lua_absindex(L, opts);
    int top = lua_gettop(L);
    if (lua_getfield(L, opts, "profile") != LUA_TNIL) {
        const char *s = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
        if (s && !strcmp(s, "ncu")) req->tool = "ncu";
        else if (s && !strcmp(s, "nsys")) req->tool = "nsys";
        else luaL_error(L, "t:program: profile must be \"ncu\" (Nsight Compute: metrics per launch) or \"nsys\" "
                           "(Nsight Systems: time per kernel and copy)");
    }
    if (lua_getfield(L, opts, "metrics") != LUA_TNIL) {
        if (!req->tool || strcmp(req->tool, "ncu"))
            luaL_error(L, "t:program: metrics = {...} are Nsight Compute's: they go with profile = \"ncu\"");
        luaL_checktype(L, -1, LUA_TTABLE);
        lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
        if (n < 1 || n > PROFILE_MAX_METRICS)
            luaL_error(L, "t:program: metrics must list 1..%d metric names", PROFILE_MAX_METRICS);
        for (lua_Integer i = 1; i <= n; i++) {
            if (lua_rawgeti(L, -1, i) != LUA_TSTRING)
                luaL_error(L, "t:program: metrics[%d] must be a metric name (a string)", (int)i);
            req->metrics[req->n_metrics++] = lua_tostring(L, -1);   /* held by the options table */
            lua_pop(L, 1);
        }
        ProfileArgv a;
        const char *bad;
        if (!ncu_tool_argv("/ncu", req->metrics, req->n_metrics, 0, &a, &bad))
            luaL_error(L, "t:program: metrics: '%s' is not a metric name (letters, digits, '_', '.' and ':', "
                          "as `ncu --query-metrics` lists them)", bad);
        profile_argv_fini(&a);
    }
    if (lua_getfield(L, opts, "after") != LUA_TNIL) {
        bool san = lua_getfield(L, opts, "sanitizer") != LUA_TNIL;
        lua_pop(L, 1);
        if (!req->tool && !san)
            luaL_error(L, "t:program: after = function(prof) goes with profile = \"ncu\" or \"nsys\", or with "
                          "sanitizer = (the run it waits for)");
        if (req->tool && san)
            luaL_error(L, "t:program: after = function goes with one of profile and sanitizer, not both");
        if (lua_type(L, -1) != LUA_TFUNCTION)
            luaL_error(L, "t:program: after must be a function(prof), called with the %s after the verdict, "
                          "not %s", req->tool ? "profile" : "sanitizer's report", luaL_typename(L, -1));
        req->after = req->tool != NULL;     /* a sanitizer's: ProgramCall.sanitizer_after */
    }
    lua_settop(L, top);
}

static void set_str(lua_State *L, const char *key, const char *v) {
    lua_pushstring(L, v ? v : "");
    lua_setfield(L, -2, key);
}

static void set_num(lua_State *L, const char *key, double v) {
    if (isnan(v)) return;
    lua_pushnumber(L, v);
    lua_setfield(L, -2, key);
}

static void push_dim3(lua_State *L, const int v[3]) {
    lua_createtable(L, 3, 0);
    for (int k = 0; k < 3; k++) {
        lua_pushinteger(L, v[k]);
        lua_rawseti(L, -2, k + 1);
    }
}

static void push_strings(lua_State *L, char *const *v, int n) {
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        lua_pushstring(L, v[i]);
        lua_rawseti(L, -2, i + 1);
    }
}

/* r.profile.kernels for ncu: one table per profiled launch. */
static void push_ncu_kernels(lua_State *L, const NcuReport *rep) {
    lua_createtable(L, rep->n_kernels, 0);
    for (int i = 0; i < rep->n_kernels; i++) {
        const NcuKernel *k = &rep->kernels[i];
        lua_createtable(L, 0, 9);
        set_str(L, "name", k->function);
        set_str(L, "signature", k->name);
        lua_pushinteger(L, k->id);
        lua_setfield(L, -2, "id");
        lua_pushinteger(L, k->pid);
        lua_setfield(L, -2, "pid");
        push_dim3(L, k->grid);
        lua_setfield(L, -2, "grid");
        push_dim3(L, k->block);
        lua_setfield(L, -2, "block");
        lua_createtable(L, 0, k->n_metrics);
        for (int m = 0; m < k->n_metrics; m++) {
            if (isnan(k->metrics[m].value)) lua_pushstring(L, k->metrics[m].text);
            else lua_pushnumber(L, k->metrics[m].value);
            lua_setfield(L, -2, k->metrics[m].name);
        }
        lua_setfield(L, -2, "metrics");
        lua_createtable(L, 0, k->n_metrics);
        for (int m = 0; m < k->n_metrics; m++) set_str(L, k->metrics[m].name, k->metrics[m].unit);
        lua_setfield(L, -2, "units");
        lua_createtable(L, k->n_rules, 0);
        for (int m = 0; m < k->n_rules; m++) {
            lua_createtable(L, 0, 3);
            set_str(L, "name", k->rules[m].name);
            set_str(L, "type", k->rules[m].type);
            set_str(L, "description", k->rules[m].description);
            lua_rawseti(L, -2, m + 1);
        }
        lua_setfield(L, -2, "rules");
        lua_rawseti(L, -2, i + 1);
    }
}

static void push_nsys_summary(lua_State *L, const NsysSummary *s) {
    lua_createtable(L, s->n_kernels, 0);
    for (int i = 0; i < s->n_kernels; i++) {
        const NsysKernel *k = &s->kernels[i];
        lua_createtable(L, 0, 8);
        set_str(L, "name", k->function);
        set_str(L, "signature", k->name);
        lua_pushinteger(L, k->count);
        lua_setfield(L, -2, "count");
        set_num(L, "total_ns", k->total_ns);
        set_num(L, "avg_ns", k->avg_ns);
        set_num(L, "min_ns", k->min_ns);
        set_num(L, "max_ns", k->max_ns);
        set_num(L, "share_pct", k->share_pct);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "kernels");
    lua_createtable(L, s->n_memops, 0);
    for (int i = 0; i < s->n_memops; i++) {
        const NsysMemop *m = &s->memops[i];
        lua_createtable(L, 0, 5);
        set_str(L, "operation", m->operation);
        set_str(L, "kind", m->kind);
        lua_pushinteger(L, m->count);
        lua_setfield(L, -2, "count");
        set_num(L, "total_ns", m->total_ns);
        set_num(L, "avg_ns", m->avg_ns);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "memops");
}

/* r.profile when the tool does not run: empty lists and the reason. */
static void push_unavailable(lua_State *L, const char *tool, const char *reason) {
    lua_createtable(L, 0, 6);
    set_str(L, "tool", tool);
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "available");
    set_str(L, "reason", reason);
    lua_newtable(L);
    lua_setfield(L, -2, "kernels");
    if (!strcmp(tool, "nsys")) {
        lua_newtable(L);
        lua_setfield(L, -2, "memops");
    } else {
        lua_newtable(L);
        lua_setfield(L, -2, "errors");
        lua_newtable(L);
        lua_setfield(L, -2, "warnings");
    }
    set_str(L, "text", "");
}

/* The C results of one profiled run, freed by the box's __gc even when a
 * push raises. */
typedef struct ProfileBox {
    NcuReport ncu;
    NsysSummary nsys;
    char *stats, *why;
} ProfileBox;

static int profile_box_gc(lua_State *L) {
    ProfileBox *b = lua_touserdata(L, 1);
    ncu_report_fini(&b->ncu);
    nsys_summary_fini(&b->nsys);
    free(b->stats);
    free(b->why);
    memset(b, 0, sizeof *b);
    return 0;
}

static ProfileBox *push_profile_box(lua_State *L) {
    ProfileBox *b = lua_newuserdatauv(L, sizeof *b, 0);
    memset(b, 0, sizeof *b);
    if (luaL_newmetatable(L, "cudojo.profile_box")) {
        lua_pushcfunction(L, profile_box_gc);
        lua_setfield(L, -2, "__gc");
    }
    lua_setmetatable(L, -2);
    return b;
}

void run_program_profile(lua_State *L, RunCtx *ctx, const ProfileRequest *req, const char *exe,
                         const ProgramRunOptions *ro_in, bool cuda) {
    int r = lua_gettop(L);
    bool ncu = !strcmp(req->tool, "ncu");
    char *path = cuda ? program_find_tool(req->tool) : NULL;
    if (!path) {
        char why[256];
        if (cuda)
            snprintf(why, sizeof why, "the CUDA toolkit here has no %s (%s)", req->tool,
                     ncu ? "Nsight Compute" : "Nsight Systems");
        else
            snprintf(why, sizeof why, "the program ran on cudojo's emulator runtime: %s needs a GPU; r.kernels, "
                                      "the timeline and t:emu_metrics() are the profile here", req->tool);
        push_unavailable(L, req->tool, why);
        lua_setfield(L, r, "profile");
        return;
    }
    ProfileArgv a = {{NULL}, 0};
    if (ncu) {
        const char *bad;
        bool ok = ncu_tool_argv(path, req->n_metrics ? req->metrics : NULL, req->n_metrics, 0, &a, &bad);
        assert(ok);     /* run_program_profile_check refused bad names */
        (void)ok;
    }
    ProgramRunOptions ro = *ro_in;
    /* ncu: counts and ratios, beside other graders' untimed work, one profiler at a time;
       nsys: a timeline of times, alone (kernels/gpu_lock.h) */
    ro.gpu_profiler = ncu;
    double left = ctx->ex->timeout_s * 0.85 - (run_now_ms() - ctx->t0_ms) / 1e3;
    if (ctx->after_verdict && left < 1) {
        /* after the verdict nothing waits for it: a run that cannot finish is not started */
        free(path);
        push_unavailable(L, req->tool, "no time was left for it within the exercise's timeout");
        lua_setfield(L, r, "profile");
        return;
    }
    ro.timeout_s = left > 1 ? left : 1;
    ro.cpu_s = 0;
    ProgramResult *pr = run_program_push_box(L);        /* r + 1 */
    ProfileBox *box = push_profile_box(L);              /* r + 2 */
    if (ctx->after_verdict)
        run_activity(L, "program", "profiling with %s (the verdict is in)", ncu ? "Nsight Compute" : "Nsight Systems");
    else
        run_activity(L, "program", "running the program under %s", req->tool);
    Diag *d = ncu ? ncu_run_program(&a, exe, &ro, pr, &box->ncu)
                  : nsys_run_program(path, exe, &ro, pr, &box->nsys, &box->stats, &box->why);
    run_activity(L, "script", "running the exercise script");
    profile_argv_fini(&a);
    free(path);
    const char *reason = NULL;
    char buf[512];
    if (d) {
        snprintf(buf, sizeof buf, "%s", d->message);
        reason = buf;
        diag_free(&d);
    } else if (pr->timed_out) {
        snprintf(buf, sizeof buf, "the program did not finish under %s in time", req->tool);
        reason = buf;
    } else if (ncu && box->ncu.n_errors) {
        snprintf(buf, sizeof buf, "ncu: %s", box->ncu.errors[0]);
        reason = buf;
    } else if (ncu && !box->ncu.n_kernels) {
        snprintf(buf, sizeof buf, "ncu profiled no launch%s%s", box->ncu.n_warnings ? ": " : "",
                 box->ncu.n_warnings ? box->ncu.warnings[0] : "");
        reason = buf;
    } else if (!ncu && box->why) {
        reason = box->why;
    }
    if (reason) {
        push_unavailable(L, req->tool, reason);
    } else {
        lua_createtable(L, 0, 6);
        set_str(L, "tool", req->tool);
        lua_pushboolean(L, 1);
        lua_setfield(L, -2, "available");
        if (ncu) {
            push_ncu_kernels(L, &box->ncu);
            lua_setfield(L, -2, "kernels");
            push_strings(L, box->ncu.errors, box->ncu.n_errors);
            lua_setfield(L, -2, "errors");
            push_strings(L, box->ncu.warnings, box->ncu.n_warnings);
            lua_setfield(L, -2, "warnings");
        } else {
            push_nsys_summary(L, &box->nsys);
        }
    }
    const char *text = ncu ? pr->tool_output : box->stats;
    size_t len = ncu ? pr->tool_output_len : (box->stats ? strlen(box->stats) : 0);
    lua_pushlstring(L, text ? text : "", text ? len : 0);
    lua_setfield(L, -2, "text");
    lua_setfield(L, r, "profile");
    lua_settop(L, r);
}

/* ---- t:program{ profile =, after = fn }: the profiled run after the verdict ---- */

#define AFTER_MT "cudojo.after_run"
#define AFTER_KEY "cudojo.after_runs"      /* the registry's list of kept runs */

/* What a kept run needs that is not Lua's: the run options (pointing into
 * the ProgramCall and the options table, kept alive as user values) and
 * the request. User values: 1 the function, 2 the options table, 3 the
 * table anchoring its strings, 4 the ProgramCall, 5 the executable's path. */
typedef struct AfterRun {
    ProgramRunOptions ro;
    EmuOptions emu;
    ProfileRequest req;             /* a profile's (req.tool set) */
    const char *sanitizer;          /* else a sanitizer's: its tool (static storage) */
    bool expect_errors;
} AfterRun;

/* Keeps a run under `tool` for after the verdict: a new AfterRun on the
 * registry's list, its user values set (the options table is at index 2).
 * metrics.after.kept lists the tools, so the verdict tells what comes
 * after it ("checking with compute-sanitizer after the verdict…"). */
static AfterRun *after_keep(lua_State *L, RunCtx *ctx, const char *tool, const char *exe,
                            const ProgramRunOptions *ro) {
    assert(!ctx->opts->grading);
    json_t *after = run_metrics_obj(ctx, NULL, "after"), *tools = json_object_get(after, "kept");
    if (!json_is_array(tools)) json_object_set_new(after, "kept", tools = json_array());
    json_array_append_new(tools, json_string(tool));
    AfterRun *a = lua_newuserdatauv(L, sizeof *a, 5);
    memset(a, 0, sizeof *a);
    a->ro = *ro;
    if (ro->emu) {
        a->emu = *ro->emu;
        a->ro.emu = &a->emu;
    }
    if (luaL_newmetatable(L, AFTER_MT)) {     /* no __gc: its memory is Lua's */
        lua_pushliteral(L, "locked");
        lua_setfield(L, -2, "__metatable");
    }
    lua_setmetatable(L, -2);
    lua_getfield(L, 2, "after");
    lua_setiuservalue(L, -2, 1);
    for (int i = 2; i <= 4; i++) {
        lua_pushvalue(L, i);
        lua_setiuservalue(L, -2, i);
    }
    lua_pushstring(L, exe);
    lua_setiuservalue(L, -2, 5);
    if (lua_getfield(L, LUA_REGISTRYINDEX, AFTER_KEY) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_pushvalue(L, -1);
        lua_setfield(L, LUA_REGISTRYINDEX, AFTER_KEY);
    }
    lua_insert(L, -2);
    lua_rawseti(L, -2, ++ctx->n_after);
    lua_rawgeti(L, -1, ctx->n_after);
    lua_remove(L, -2);
    AfterRun *kept = lua_touserdata(L, -1);
    lua_pop(L, 1);          /* the list holds it */
    return kept;
}

void run_program_profile_defer(lua_State *L, RunCtx *ctx, const ProfileRequest *req, const char *exe,
                               const ProgramRunOptions *ro) {
    assert(req->after);
    after_keep(L, ctx, req->tool, exe, ro)->req = *req;
}

void run_program_sanitizer_defer(lua_State *L, RunCtx *ctx, const char *tool, bool expect_errors, const char *exe,
                                 const ProgramRunOptions *ro) {
    AfterRun *a = after_keep(L, ctx, "compute-sanitizer", exe, ro);
    a->sanitizer = tool;
    a->expect_errors = expect_errors;
}

/* After the verdict a sanitizer's errors cannot fail the run: each one it
 * added from `from` on becomes a warning that says so. */
static void after_sanitizer_warnings(Diag *from) {
    for (Diag *d = from; d; d = d->next) {
        if (d->severity != DIAG_ERROR) continue;
        char *msg = xasprintf("after the verdict: %s (the verdict stands)", d->message);
        free(d->message);
        d->message = msg;
        d->severity = DIAG_WARNING;
    }
}

void run_program_push_after(lua_State *L, int i) {
    lua_getfield(L, LUA_REGISTRYINDEX, AFTER_KEY);
    lua_rawgeti(L, -1, i);
    lua_remove(L, -2);
}

int run_program_after_call(lua_State *L) {
    AfterRun *a = luaL_checkudata(L, 1, AFTER_MT);
    RunCtx *ctx = run_ctx(L);
    lua_getiuservalue(L, 1, 5);                         /* 2: the executable */
    lua_getiuservalue(L, 1, 1);                         /* 3: the function */
    json_t *after = run_metrics_obj(ctx, NULL, "after"), *tools = json_object_get(after, "tools");
    if (!json_is_array(tools)) json_object_set_new(after, "tools", tools = json_array());
    const char *tool = a->sanitizer ? "compute-sanitizer" : a->req.tool;
    bool listed = false;
    for (size_t i = 0; i < json_array_size(tools); i++)
        listed |= !strcmp(json_string_value(json_array_get(tools, i)), tool);
    if (!listed) json_array_append_new(tools, json_string(tool));   /* the heading names it */
    lua_newtable(L);                    /* 4: r, for run_program_profile (sanitizer) to set r.profile (sanitizer) */
    bool cuda = !strcmp(ctx->b->ops->name, "cuda");
    if (a->sanitizer) {
        Diag *last = ctx->diags;
        while (last && last->next) last = last->next;
        bool finding_error = ctx->finding_error;
        run_program_sanitizer(L, ctx, a->sanitizer, lua_tostring(L, 2), &a->ro, cuda, a->expect_errors, NULL);
        after_sanitizer_warnings(last ? last->next : ctx->diags);
        ctx->finding_error = finding_error;
        lua_getfield(L, 4, "sanitizer");
    } else {
        run_program_profile(L, ctx, &a->req, lua_tostring(L, 2), &a->ro, cuda);
        lua_getfield(L, 4, "profile");
    }
    lua_remove(L, 4);                                   /* the function, then the profile (report) */
    lua_call(L, 1, 0);
    return 0;
}

