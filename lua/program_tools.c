/* lua/program_tools.c: t:program{ sanitizer = "memcheck" }: on a GPU whose
 * toolkit has compute-sanitizer, the learner's program runs a second time
 * under it (kernels/program.h, ProgramTool; the first run, without the
 * tool, gives r.calls, r.kernels and the timeline, which the tool's own
 * injection would take), and its report becomes r.sanitizer and
 * diagnostics next to the emulator's findings: an invalid access, a race,
 * an uninitialised read or a barrier error is an error (it fails the run),
 * a failed API call or a leak a warning. On the emulator r.sanitizer says
 * it is not available: the emulator's own findings are the report there. */
#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
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

void run_program_sanitizer(lua_State *L, RunCtx *ctx, const char *tool, const char *exe,
                           const ProgramRunOptions *ro_in, bool cuda, bool expect_errors) {
    int r = lua_gettop(L);
    lua_createtable(L, 0, 6);
    lua_pushstring(L, tool);
    lua_setfield(L, -2, "tool");
    char *path = cuda ? program_find_tool("compute-sanitizer") : NULL;
    if (!path) {
        lua_pushboolean(L, 0);
        lua_setfield(L, -2, "available");
        lua_pushstring(L, cuda ? "the CUDA toolkit here has no compute-sanitizer"
                               : "the program ran on the emulator, whose findings are its report");
        lua_setfield(L, -2, "reason");
        lua_newtable(L);
        lua_setfield(L, -2, "errors");
        lua_pushliteral(L, "");
        lua_setfield(L, -2, "text");
        lua_setfield(L, r, "sanitizer");
        return;
    }
    const char *argv[16];
    int argc = sanitizer_tool_argv(path, tool, argv);
    ProgramTool pt = {.argv = argv, .argc = argc, .out_name = "sanitizer.log", .out_cap = 4u << 20};
    ProgramRunOptions ro = *ro_in;
    ro.tool = &pt;
    double left = ctx->ex->timeout_s * 0.85 - (run_now_ms() - ctx->t0_ms) / 1e3;
    ro.timeout_s = left > 1 ? left : 1;
    ro.cpu_s = 0;
    ProgramResult *pr = run_program_push_box(L);    /* freed with the box, even if a push raises */
    run_activity(L, "program", "running the program under compute-sanitizer --tool %s", tool);
    Diag *d = program_run(exe, &ro, pr);
    run_activity(L, "script", "running the exercise script");
    free(path);
    lua_pushvalue(L, r + 1);    /* the table on top again; the box stays below it until the end */
    SanitizerReport rep;
    sanitizer_report_parse(d ? NULL : pr->tool_output, tool, &rep);
    sanitizer_report_relocate(&rep, ro.display_path);
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
        Diag *e = error_diag(&rep.errors[i], tool, ro.display_path);
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
