/* lua/program_result.c: what t:program returns and the checks on it — the
 * result table r (exit_code, stdout, files, calls, kernels, ...; a misspelt
 * field is an error), its methods r:count, r:calls_of and r:timeline, and
 * t:expect_exit and t:expect_output, which read r. lua/program.c builds
 * and runs the program and fills r from its ProgramResult.
 *
 * The ProgramResult lives in a userdata (its "box") that r's metatable
 * holds, freed by __gc: nothing malloc'ed is held by C across a call that
 * can raise. An output file the program did not leave fails the run when
 * the author's script reads it (r.files[name]), with the reason. */
#include <lauxlib.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "lua/run.h"

#define RESULT_MT_NAME "cudojo.program_result"
#define BOX_MT "cudojo.program_box"
#define TAIL_LINES 3
#define LINE_CAP 160

/* The ProgramResult behind one r, freed by __gc: nothing malloc'ed is held
 * by C across a call that can raise. */
typedef struct ProgramBox {
    ProgramResult pr;
} ProgramBox;

static const char *const result_fields[] = {
    "exit_code", "signal", "timed_out", "ending", "stdout", "stderr", "stdout_truncated", "stderr_truncated",
    "files", "missing", "calls", "calls_dropped", "kernels", "wall_ms", "runtime", "device", "touched_gpu",
    "um", "count", "calls_of", "timeline", "processes", "process", "mps", "findings", NULL,
};


/* Pushes up to n lines of s (the last ones when `tail`, else the first),
 * each cut at LINE_CAP bytes, joined by " | "; "" when s has no text. */
static void push_lines(lua_State *L, const char *s, size_t len, bool tail, int n) {
    const char *starts[16];
    size_t lens[16];
    int k = 0;
    if (n > 16) n = 16;
    if (tail) {
        size_t end = len;
        while (k < n && end > 0) {
            while (end > 0 && (s[end - 1] == '\n' || s[end - 1] == '\r')) end--;
            if (!end) break;
            size_t b = end;
            while (b > 0 && s[b - 1] != '\n') b--;
            starts[k] = s + b;
            lens[k++] = end - b;
            end = b;
        }
        for (int i = 0; i < k / 2; i++) {     /* oldest first */
            const char *ts = starts[i];
            size_t tl = lens[i];
            starts[i] = starts[k - 1 - i], lens[i] = lens[k - 1 - i];
            starts[k - 1 - i] = ts, lens[k - 1 - i] = tl;
        }
    } else {
        size_t b = 0;
        while (k < n && b < len) {
            size_t e = b;
            while (e < len && s[e] != '\n') e++;
            if (e > b) {
                starts[k] = s + b;
                lens[k++] = e - b;
            }
            b = e + 1;
        }
    }
    luaL_Buffer buf;
    luaL_buffinit(L, &buf);
    for (int i = 0; i < k; i++) {
        if (i) luaL_addstring(&buf, " | ");
        size_t l = lens[i];
        while (l > 0 && starts[i][l - 1] == '\r') l--;
        luaL_addlstring(&buf, starts[i], l > LINE_CAP ? LINE_CAP : l);
        if (l > LINE_CAP) luaL_addstring(&buf, "...");
    }
    luaL_pushresult(&buf);
}

const char *run_program_signal_name(int sig) {
    static const struct {
        int sig;
        const char *name;
    } names[] = {
        {SIGSEGV, "SIGSEGV"}, {SIGBUS, "SIGBUS"}, {SIGFPE, "SIGFPE"},   {SIGILL, "SIGILL"},
        {SIGABRT, "SIGABRT"}, {SIGKILL, "SIGKILL"}, {SIGTERM, "SIGTERM"}, {SIGXCPU, "SIGXCPU"},
        {SIGXFSZ, "SIGXFSZ"}, {SIGPIPE, "SIGPIPE"}, {SIGTRAP, "SIGTRAP"}, {SIGSYS, "SIGSYS"},
        {SIGINT, "SIGINT"},   {SIGHUP, "SIGHUP"},   {SIGQUIT, "SIGQUIT"}, {SIGALRM, "SIGALRM"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].sig == sig) return names[i].name;
    return NULL;
}

/* ---- the result table ---- */

static int box_gc(lua_State *L) {
    ProgramBox *b = luaL_checkudata(L, 1, BOX_MT);
    program_result_fini(&b->pr);
    memset(&b->pr, 0, sizeof b->pr);
    return 0;
}

/* The ProgramBox of the result table at idx, NULL when it is not one. */
static ProgramBox *result_box(lua_State *L, int idx) {
    if (!lua_istable(L, idx) || !lua_getmetatable(L, idx)) return NULL;
    ProgramBox *b = NULL;
    if (lua_getfield(L, -1, "__name") == LUA_TSTRING && !strcmp(lua_tostring(L, -1), RESULT_MT_NAME)) {
        lua_getfield(L, -2, "box");
        b = luaL_testudata(L, -1, BOX_MT);
        lua_pop(L, 1);
    }
    lua_pop(L, 2);
    return b;
}

static void check_result(lua_State *L, int idx, const char *what) {
    if (!result_box(L, idx))
        luaL_error(L, "%s: the first argument is what t:program returned, not %s", what, luaL_typename(L, idx));
}

/* r:count(fn) -> how many calls of fn (exact name) the program made */
static int r_count(lua_State *L) {
    check_result(L, 1, "r:count");
    const char *fn = luaL_checkstring(L, 2);
    lua_getfield(L, 1, "calls");
    lua_Integer n = 0, len = (lua_Integer)lua_rawlen(L, -1);
    for (lua_Integer i = 1; i <= len; i++) {
        lua_rawgeti(L, -1, i);
        lua_getfield(L, -1, "fn");
        n += lua_type(L, -1) == LUA_TSTRING && !strcmp(lua_tostring(L, -1), fn);
        lua_pop(L, 2);
    }
    lua_pushinteger(L, n);
    return 1;
}

/* r:calls_of(fn) -> the call records of fn, in order */
static int r_calls_of(lua_State *L) {
    check_result(L, 1, "r:calls_of");
    const char *fn = luaL_checkstring(L, 2);
    lua_getfield(L, 1, "calls");
    int calls = lua_gettop(L);
    lua_newtable(L);
    lua_Integer n = 0, len = (lua_Integer)lua_rawlen(L, calls);
    for (lua_Integer i = 1; i <= len; i++) {
        lua_rawgeti(L, calls, i);
        lua_getfield(L, -1, "fn");
        bool match = lua_type(L, -1) == LUA_TSTRING && !strcmp(lua_tostring(L, -1), fn);
        lua_pop(L, 1);
        if (match) lua_rawseti(L, -2, ++n);
        else lua_pop(L, 1);
    }
    return 1;
}

/* r:timeline() -> the program's timeline, shaped like t:timeline()'s */
static int r_timeline(lua_State *L) {
    check_result(L, 1, "r:timeline");
    run_push_timeline(L, result_box(L, 1)->pr.timeline);
    return 1;
}

/* A field the result can lack (exit_code of a killed program) reads as nil;
 * anything else is a misspelling. */
static int r_index(lua_State *L) {
    const char *k = lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2) : luaL_tolstring(L, 2, NULL);
    if (!strcmp(k, "count")) lua_pushcfunction(L, r_count);
    else if (!strcmp(k, "calls_of")) lua_pushcfunction(L, r_calls_of);
    else if (!strcmp(k, "timeline")) lua_pushcfunction(L, r_timeline);
    else {
        for (const char *const *p = result_fields; *p; p++)
            if (!strcmp(*p, k)) {
                lua_pushnil(L);
                return 1;
            }
        lua_newtable(L);
        for (const char *const *p = result_fields; *p; p++) {
            lua_pushboolean(L, 1);
            lua_setfield(L, -2, *p);
        }
        sandbox_unknown_key_error(L, "program results have no field", k, -1);
    }
    return 1;
}

/* r.files[name] of an output the program did not leave (or left broken)
 * fails the run with the reason: the learner's program is at fault, not
 * the exercise. A name that was never an output is the author's mistake. */
static int files_index(lua_State *L) {
    const char *k = lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2) : luaL_tolstring(L, 2, NULL);
    lua_getmetatable(L, 1);
    lua_getfield(L, -1, "reasons");
    if (lua_getfield(L, -1, k) == LUA_TSTRING)
        api_abort(L, VERDICT_FAIL, diag_new(DIAG_ERROR, "program-output", NULL, 0, 0, "%s", lua_tostring(L, -1)));
    return luaL_error(L, "r.files[\"%s\"]: %s is not among t:program's outputs = { ... }", k, k);
}

static void push_opt_string(lua_State *L, const char *k, const char *v) {
    if (v) {
        lua_pushstring(L, v);
        lua_setfield(L, -2, k);
    }
}

/* Sets t[k] = v for integer counters. */
static void set_int(lua_State *L, const char *k, long long v) {
    lua_pushinteger(L, v);
    lua_setfield(L, -2, k);
}

static void push_um_row(lua_State *L, bool kernel_row, long long faults, long long h2d, long long d2h) {
    lua_createtable(L, 0, 3);
    set_int(L, kernel_row ? "gpu_page_faults" : "cpu_page_faults", faults);
    set_int(L, "h2d_bytes", h2d);
    set_int(L, "d2h_bytes", d2h);
}

/* Pushes r.um: managed memory's page faults and migrations, totals and per
 * phase — r.um.kernels[i] during launch i, r.um.host[i] in the host code
 * after launch i - 1 (host[1]: before the first) — from the "um" records
 * (kernels/progwire.h): the emulator's page model, or CUPTI's counters. */
static void push_um(lua_State *L, const ProgramResult *pr) {
    int nk = (int)json_array_size(pr->kernels), nu = (int)json_array_size(pr->um);
    /* on the Lua stack (userdata), so nothing leaks if a push below raises */
    size_t sz = ((size_t)nk + 2) * 3 * sizeof(long long);
    long long *kf = memset(lua_newuserdatauv(L, sz, 0), 0, sz), *hf = memset(lua_newuserdatauv(L, sz, 0), 0, sz);
    long long gpu = 0, cpu = 0, h2d = 0, d2h = 0, pre_h2d = 0, pre_d2h = 0;
    bool emu = pr->runtime_name && !strcmp(pr->runtime_name, "emu");
    bool available = emu;
    const char *why = emu ? NULL : "the program sent no unified-memory counters (CUPTI)";
    for (int i = 0; i < nu; i++) {
        const json_t *u = json_array_get(pr->um, (size_t)i);
        const char *phase = json_string_value(json_object_get(u, "phase"));
        if (!phase) continue;
        if (!strcmp(phase, "status")) {
            available = json_is_true(json_object_get(u, "ok"));
            why = available ? NULL : json_string_value(json_object_get(u, "why"));
            continue;
        }
        long long k = json_integer_value(json_object_get(u, "kernel"));
        long long g = json_integer_value(json_object_get(u, "gpu_faults"));
        long long c = json_integer_value(json_object_get(u, "cpu_faults"));
        long long a = json_integer_value(json_object_get(u, "h2d")), b = json_integer_value(json_object_get(u, "d2h"));
        gpu += g, cpu += c, h2d += a, d2h += b;
        if (!strcmp(phase, "prefetch")) pre_h2d += a, pre_d2h += b;
        if (!strcmp(phase, "kernel") && k >= 1 && k <= nk) {
            kf[3 * k] += g, kf[3 * k + 1] += a, kf[3 * k + 2] += b;
            hf[3 * (k + 1)] += c; /* a fault record of the CPU's during a kernel: host code after it */
        } else if (k >= 0 && k <= nk) {
            hf[3 * (k + 1)] += c, hf[3 * (k + 1) + 1] += a, hf[3 * (k + 1) + 2] += b;
        }
    }
    lua_createtable(L, 0, 14);
    lua_pushstring(L, emu ? "emu-model" : "cupti");
    lua_setfield(L, -2, "source");
    lua_pushboolean(L, emu);
    lua_setfield(L, -2, "modeled");
    lua_pushboolean(L, available);
    lua_setfield(L, -2, "available");
    push_opt_string(L, "why", why);
    set_int(L, "gpu_page_faults", gpu);
    set_int(L, "cpu_page_faults", cpu);
    set_int(L, "h2d_bytes", h2d);
    set_int(L, "d2h_bytes", d2h);
    set_int(L, "prefetch_h2d_bytes", pre_h2d);
    set_int(L, "prefetch_d2h_bytes", pre_d2h);
    lua_createtable(L, nk, 0);
    for (int k = 1; k <= nk; k++) {
        push_um_row(L, true, kf[3 * k], kf[3 * k + 1], kf[3 * k + 2]);
        lua_rawseti(L, -2, k);
    }
    lua_setfield(L, -2, "kernels");
    lua_createtable(L, nk + 1, 0);
    for (int k = 1; k <= nk + 1; k++) {
        push_um_row(L, false, hf[3 * k], hf[3 * k + 1], hf[3 * k + 2]);
        lua_rawseti(L, -2, k);
    }
    lua_setfield(L, -2, "host");
    lua_insert(L, -3);
    lua_pop(L, 2);
}

/* Pushes r.files (and leaves r.missing's list under it, set by the caller). */
static void push_files(lua_State *L, const char *const *want, const int *want_type, int n_want,
                       const ProgramResult *pr, const char *ending) {
    lua_createtable(L, 0, n_want);                   /* files */
    int files = lua_gettop(L);
    lua_createtable(L, 0, 3);                        /* its metatable */
    lua_createtable(L, 0, 0);                        /* reasons */
    int reasons = lua_gettop(L);
    lua_createtable(L, 0, 0);                        /* missing */
    int missing = lua_gettop(L);
    for (int w = 0; w < n_want; w++) {
        const char *name = want[w];
        const ProgramFile *f = NULL;
        for (int i = 0; i < pr->n_files && !f; i++)
            if (!strcmp(pr->files[i].name, name)) f = &pr->files[i];
        bool exited0 = pr->started && !pr->signaled && !pr->timed_out && pr->exit_code == 0;
        if (!f) {
            lua_pushfstring(L, "the program did not write %s%s%s%s", name, exited0 ? "" : " (it ",
                            exited0 ? "" : ending, exited0 ? "" : ")");
            lua_setfield(L, reasons, name);
            lua_pushstring(L, name);
            lua_rawseti(L, missing, (lua_Integer)lua_rawlen(L, missing) + 1);
            continue;
        }
        if (want_type[w] < 0) {
            lua_pushlstring(L, (const char *)f->data, f->size);
            lua_setfield(L, files, name);
            continue;
        }
        DType dt = (DType)want_type[w];
        size_t es = dtype_size(dt);
        if (f->size % es) {
            lua_pushfstring(L, "%s has %I bytes, not a whole number of %s values (%d bytes each)", name,
                            (lua_Integer)f->size, dtype_name(dt), (int)es);
            lua_setfield(L, reasons, name);
            lua_pushstring(L, name);
            lua_rawseti(L, missing, (lua_Integer)lua_rawlen(L, missing) + 1);
            continue;
        }
        size_t n = f->size / es;
        GpuArray *g = array_push_new(L, dt, 1, &n);
        if (n) memcpy(array_host_write(L, g, true), f->data, f->size);
        g->name = xstrdup(name);
        lua_setfield(L, files, name);
    }
    lua_pushvalue(L, reasons);
    lua_setfield(L, reasons - 1, "reasons");
    lua_pushcfunction(L, files_index);
    lua_setfield(L, reasons - 1, "__index");
    lua_pushliteral(L, "locked");
    lua_setfield(L, reasons - 1, "__metatable");
    /* stack: files, mt, reasons, missing */
    lua_insert(L, files + 1);                       /* files, missing, mt, reasons */
    lua_pop(L, 1);                                  /* files, missing, mt */
    lua_setmetatable(L, files);                     /* files, missing */
}

void run_program_push_result(lua_State *L, int box_idx, const char *ending, const char *const *want,
                             const int *want_type, int n_want) {
    ProgramResult *pr = &((ProgramBox *)lua_touserdata(L, box_idx))->pr;
    lua_createtable(L, 0, 20);
    int r = lua_gettop(L);
    bool exited = pr->started && !pr->signaled && !pr->timed_out && !pr->cancelled;
    if (exited) {
        lua_pushinteger(L, pr->exit_code);
        lua_setfield(L, r, "exit_code");
    }
    if (pr->signaled) {
        const char *s = run_program_signal_name(pr->signal);
        if (s) lua_pushstring(L, s);
        else lua_pushfstring(L, "SIG%d", pr->signal);
        lua_setfield(L, r, "signal");
    }
    lua_pushboolean(L, pr->timed_out);
    lua_setfield(L, r, "timed_out");
    lua_pushstring(L, ending);
    lua_setfield(L, r, "ending");
    lua_pushlstring(L, pr->out ? pr->out : "", pr->out_len);
    lua_setfield(L, r, "stdout");
    lua_pushlstring(L, pr->err ? pr->err : "", pr->err_len);
    lua_setfield(L, r, "stderr");
    lua_pushboolean(L, pr->out_total > pr->out_len);
    lua_setfield(L, r, "stdout_truncated");
    lua_pushboolean(L, pr->err_total > pr->err_len);
    lua_setfield(L, r, "stderr_truncated");
    push_files(L, want, want_type, n_want, pr, ending);
    lua_setfield(L, r, "missing");
    lua_setfield(L, r, "files");
    if (pr->calls) run_push_json(L, pr->calls, 0);
    else lua_newtable(L);
    lua_setfield(L, r, "calls");
    lua_pushinteger(L, pr->calls_dropped);
    lua_setfield(L, r, "calls_dropped");
    /* Kernels without their emulator metrics (t:emu_metrics() has the last). */
    lua_createtable(L, (int)json_array_size(pr->kernels), 0);
    for (size_t i = 0; i < json_array_size(pr->kernels); i++) {
        lua_newtable(L);
        const char *key;
        json_t *v;
        json_object_foreach(json_array_get(pr->kernels, i), key, v) {
            if (json_is_null(v) || !strcmp(key, "metrics")) continue;
            run_push_json(L, v, 2);
            lua_setfield(L, -2, key);
        }
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, r, "kernels");
    lua_pushnumber(L, pr->wall_ms);
    lua_setfield(L, r, "wall_ms");
    push_opt_string(L, "runtime", pr->runtime_name);
    push_opt_string(L, "device", pr->device);
    lua_pushboolean(L, pr->touched_gpu);
    lua_setfield(L, r, "touched_gpu");
    push_um(L, pr);
    lua_setfield(L, r, "um");
    lua_createtable(L, 0, 4);
    lua_pushliteral(L, RESULT_MT_NAME);
    lua_setfield(L, -2, "__name");
    lua_pushcfunction(L, r_index);
    lua_setfield(L, -2, "__index");
    lua_pushliteral(L, "locked");
    lua_setfield(L, -2, "__metatable");
    lua_pushvalue(L, box_idx);
    lua_setfield(L, -2, "box");
    lua_setmetatable(L, r);
}

/* How the program ended, in words, with the tail of its stderr: the abort
 * message of a program that crashed, hung or never started. */
Diag *run_program_ending_diag(lua_State *L, const ProgramResult *pr, const char *ending) {
    push_lines(L, pr->err ? pr->err : "", pr->err_len, true, TAIL_LINES);
    const char *tail = lua_tostring(L, -1);
    /* No place of its own: a crash's finding, when there is one, has the line. */
    Diag *d = diag_new(DIAG_ERROR, "program", NULL, 0, 0, "the program %s%s%s", ending,
                       *tail ? "; its stderr ends: " : "", tail);
    lua_pop(L, 1);
    return d;
}

/* t:expect_exit(r [, code = 0] [, message]) -> ok */
static int t_expect_exit(lua_State *L) {
    run_check_self(L, "expect_exit");
    RunCtx *ctx = run_ctx(L);
    check_result(L, 2, "t:expect_exit");
    lua_Integer want = 0;
    int msg_idx = 3;
    if (lua_type(L, 3) == LUA_TNUMBER) {
        want = luaL_checkinteger(L, 3);
        msg_idx = 4;
    }
    const char *msg = luaL_optstring(L, msg_idx, NULL);
    lua_getfield(L, 2, "exit_code");
    bool ok = lua_isinteger(L, -1) && lua_tointeger(L, -1) == want;
    lua_getfield(L, 2, "ending");
    const char *ending = lua_tostring(L, -1);
    if (ok) {
        lua_pushstring(L, msg ? msg : ending);
    } else {
        lua_getfield(L, 2, "stderr");
        size_t len;
        const char *err = lua_tolstring(L, -1, &len);
        push_lines(L, err ? err : "", err ? len : 0, true, TAIL_LINES);
        const char *tail = lua_tostring(L, -1);
        lua_pushfstring(L, "%s%sthe program %s, expected status %I%s%s", msg ? msg : "", msg ? ": " : "", ending,
                        want, *tail ? "; its stderr ends: " : "", tail);
    }
    run_result_add_check(ctx->r, "exit", ok, lua_tostring(L, -1));
    lua_pushboolean(L, ok);
    return 1;
}

/* t:expect_output(r, pattern [, message]) -> ok: string.find(r.stdout, pattern) */
static int t_expect_output(lua_State *L) {
    run_check_self(L, "expect_output");
    RunCtx *ctx = run_ctx(L);
    check_result(L, 2, "t:expect_output");
    const char *pat = luaL_checkstring(L, 3);
    const char *msg = luaL_optstring(L, 4, NULL);
    lua_settop(L, 4);
    lua_getfield(L, 2, "stdout");
    int out = lua_gettop(L);
    /* string.find from the registry: the author's `string` may be shadowed. */
    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    lua_getfield(L, -1, "string");
    lua_getfield(L, -1, "find");
    lua_pushvalue(L, out);
    lua_pushvalue(L, 3);
    lua_call(L, 2, 1);
    bool ok = !lua_isnil(L, -1);
    lua_pop(L, 1);
    if (ok) {
        if (msg) lua_pushstring(L, msg);
        else lua_pushfstring(L, "the output has '%s'", pat);
    } else {
        size_t len;
        const char *s = lua_tolstring(L, out, &len);
        push_lines(L, s, len, false, TAIL_LINES);
        const char *head = lua_tostring(L, -1);
        lua_pushfstring(L, "%s%sexpected the output to match '%s' (a Lua pattern); %s%s", msg ? msg : "",
                        msg ? ": " : "", pat, *head ? "it begins: " : "the program printed nothing", head);
    }
    run_result_add_check(ctx->r, "output", ok, lua_tostring(L, -1));
    lua_pushboolean(L, ok);
    return 1;
}


ProgramResult *run_program_push_box(lua_State *L) {
    ProgramBox *box = lua_newuserdatauv(L, sizeof *box, 0);
    memset(box, 0, sizeof *box);
    luaL_setmetatable(L, BOX_MT);
    return &box->pr;
}

void run_program_add_checks(lua_State *L) {
    static const luaL_Reg methods[] = {
        {"expect_exit", t_expect_exit},
        {"expect_output", t_expect_output},
        {NULL, NULL},
    };
    luaL_setfuncs(L, methods, 0);
    luaL_newmetatable(L, BOX_MT);
    lua_pushcfunction(L, box_gc);
    lua_setfield(L, -2, "__gc");
    lua_pushliteral(L, "locked");
    lua_setfield(L, -2, "__metatable");
    lua_pop(L, 1);
}
