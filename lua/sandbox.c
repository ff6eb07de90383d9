/* lua/sandbox.c: the sandboxed Lua state exercises run in (see sandbox.h).
 *
 * Modelled on redis scripting and mpv: the global table is built from an
 * allow-list, a metatable on _G refuses unknown names, a count hook stops
 * runaway loops and a counting allocator caps the heap. Errors go through a
 * message handler that records the author's frames, so the Diag names the
 * lesson file and line, never ours. */
#include "lua/sandbox.h"

#include <lauxlib.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/fs.h"
#include "base/strbuf.h"
#include "base/xalloc.h"

#define HOOK_STEP 1000      /* instructions between two budget checks */
#define MAX_NOTES 6         /* calling frames shown under an error */

typedef struct Frame {
    char *file;             /* "lessons/…/x.lua" */
    int line;
} Frame;

typedef struct LoadedFile {
    char *display;
    char *text;
} LoadedFile;

struct Sandbox {
    lua_State *L;
    uint64_t budget, used;
    double deadline;        /* monotonic seconds; 0 = none */
    double wall;
    double (*not_counted_s)(void);   /* moves the deadline by time spent waiting (SandboxLimits) */
    double not_counted0;
    const char *what;       /* "exercise script" */
    char *dead_msg;         /* set once a limit was hit: raised at every instruction */
    bool abort_raised;      /* sandbox_abort ran: the abort is raised at every instruction */
    void (*tick)(void *ud, const char *file, int line);
    void *tick_ud;
    double next_tick;
    bool log_full;
    size_t cap, mem;
    bool mem_hit;
    char mem_file[128];     /* where the cap was hit (no malloc in the allocator) */
    int mem_line;
    bool aborted;
    bool has_log;
    StrBuf log;
    void *user;
    Frame *frames;
    int n_frames;
    LoadedFile *files;
    int n_files;
};

static const char *const allowed_base[] = {
    "assert", "error", "ipairs", "pairs", "next", "select", "tonumber", "tostring", "type",
    "pcall", "xpcall", "rawequal", "rawget", "rawset", "rawlen", "setmetatable", "getmetatable",
    "_G", "_VERSION", NULL,
};

static char abort_key;

static void sb_hook(lua_State *L, lua_Debug *ar);

/* ---- allocator, hook ---------------------------------------------------- */

/* Remembers the innermost author's line: memory errors skip the message
 * handler, so this is the only chance to know where the script was. Only
 * reads the call stack (lua_getinfo "Sl" allocates nothing). */
static void note_mem_place(Sandbox *sb) {
    lua_Debug ar;
    for (int level = 0; level < 32 && lua_getstack(sb->L, level, &ar); level++) {
        if (!lua_getinfo(sb->L, "Sl", &ar) || ar.currentline <= 0 || ar.source[0] != '@') continue;
        snprintf(sb->mem_file, sizeof sb->mem_file, "%s", ar.source + 1);
        sb->mem_line = ar.currentline;
        return;
    }
}

static void *sb_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    Sandbox *sb = ud;
    size_t old = ptr ? osize : 0;
    if (nsize == 0) {
        free(ptr);
        sb->mem -= old;
        return NULL;
    }
    if (nsize > old && sb->mem - old + nsize > sb->cap) {
        if (!sb->mem_hit && sb->L) note_mem_place(sb);
        sb->mem_hit = true;
        return NULL;
    }
    void *p = realloc(ptr, nsize);
    if (!p) return NULL;
    sb->mem = sb->mem - old + nsize;
    return p;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Marks the state dead with `why` (at the running line) and raises it. From
 * now on the hook runs at every instruction and raises it again: a pcall
 * catches one raise, the next instruction outside it raises the next. */
static int sb_kill(lua_State *L, lua_Debug *ar, const char *why) {
    Sandbox *sb = sandbox_from_lua(L);
    const char *src = "";
    int line = 0;
    if (ar && lua_getinfo(L, "Sl", ar)) {
        src = ar->source[0] == '@' ? ar->source + 1 : ar->short_src;
        line = ar->currentline;
    }
    sb->dead_msg = line > 0 ? xasprintf("%s:%d: %s", src, line, why) : xstrdup(why);
    lua_sethook(L, sb_hook, LUA_MASKCOUNT, 1);
    lua_pushstring(L, sb->dead_msg);
    return lua_error(L);
}

static void sb_hook(lua_State *L, lua_Debug *ar) {
    Sandbox *sb = sandbox_from_lua(L);
    if (sb->abort_raised) {
        lua_pushlightuserdata(L, &abort_key);
        lua_error(L);
    }
    if (sb->dead_msg) {
        lua_pushstring(L, sb->dead_msg);
        lua_error(L);
    }
    sb->used += HOOK_STEP;
    char why[160];
    if (sb->used > sb->budget) {
        snprintf(why, sizeof why, "%s ran too long (instruction budget of %llu instructions)", sb->what,
                 (unsigned long long)sb->budget);
        sb_kill(L, ar, why);
    }
    if (sb->deadline <= 0 && !sb->tick) return;
    double now = now_s();
    if (sb->deadline > 0 && now > sb->deadline &&
        !(sb->not_counted_s && now <= sb->deadline + sb->not_counted_s() - sb->not_counted0)) {
        snprintf(why, sizeof why, "%s ran longer than %.3g s (its wall-clock limit)", sb->what, sb->wall);
        sb_kill(L, ar, why);
    }
    if (sb->tick && now >= sb->next_tick && lua_getinfo(L, "Sl", ar) && ar->source[0] == '@' && ar->currentline > 0) {
        sb->next_tick = now + 0.5;
        sb->tick(sb->tick_ud, ar->source + 1, ar->currentline);
    }
}

void sandbox_set_tick(Sandbox *sb, void (*tick)(void *ud, const char *file, int line), void *ud) {
    sb->tick = tick;
    sb->tick_ud = ud;
    sb->next_tick = 0;
}

void sandbox_extend_deadline(Sandbox *sb, double seconds) {
    if (sb->deadline > 0 && seconds > 0) sb->deadline += seconds;
}

bool sandbox_where(lua_State *L, char *buf, size_t n) {
    lua_Debug ar;
    for (int level = 0; level < 32 && lua_getstack(L, level, &ar); level++) {
        if (!lua_getinfo(L, "Sl", &ar) || ar.currentline <= 0 || ar.source[0] != '@') continue;
        snprintf(buf, n, "%s:%d", ar.source + 1, ar.currentline);
        return true;
    }
    return false;
}

/* ---- globals ------------------------------------------------------------ */

int sandbox_unknown_key_error(lua_State *L, const char *what, const char *key, int keys_idx) {
    keys_idx = lua_absindex(L, keys_idx);
    char best[64] = "";
    int best_d = 3;
    lua_pushnil(L);
    while (lua_next(L, keys_idx)) {
        lua_pop(L, 1);
        if (lua_type(L, -1) != LUA_TSTRING) continue;
        const char *k = lua_tostring(L, -1);
        if (k[0] == '_') continue;
        int d = str_edit_distance(key, k);
        if (d < best_d && strlen(k) < sizeof best) {
            best_d = d;
            strcpy(best, k);
        }
    }
    if (best[0]) return luaL_error(L, "%s '%s' (did you mean '%s'?)", what, key, best);
    return luaL_error(L, "%s '%s'", what, key);
}

void sandbox_check_keys(lua_State *L, int idx, const char *what, const char *const *allowed) {
    idx = lua_absindex(L, idx);
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        bool ok = false;
        if (lua_type(L, -1) == LUA_TSTRING)
            for (const char *const *p = allowed; *p && !ok; p++) ok = !strcmp(*p, lua_tostring(L, -1));
        if (!ok) {
            lua_newtable(L);
            for (const char *const *p = allowed; *p; p++) {
                lua_pushboolean(L, 1);
                lua_setfield(L, -2, *p);
            }
            sandbox_unknown_key_error(L, what, luaL_tolstring(L, -2, NULL), -2);
        }
    }
}

static int g_index(lua_State *L) {
    const char *k = lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2) : luaL_tolstring(L, 2, NULL);
    return sandbox_unknown_key_error(L, "unknown global", k, 1);
}

static int g_newindex(lua_State *L) {
    const char *k = lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2) : luaL_tolstring(L, 2, NULL);
    return luaL_error(L, "assignment to undeclared global '%s' (declare it with 'local %s')", k, k);
}

static int g_print(lua_State *L) {
    Sandbox *sb = sandbox_from_lua(L);
    if (sb->log_full) return 0; /* nothing more is kept: no need to build the line */
    int n = lua_gettop(L);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (int i = 1; i <= n; i++) {
        if (i > 1) luaL_addchar(&b, '\t');
        luaL_tolstring(L, i, NULL);
        luaL_addvalue(&b);
    }
    luaL_addchar(&b, '\n');
    luaL_pushresult(&b);
    sandbox_log_append(sb, lua_tostring(L, -1));
    return 0;
}

/* setmetatable without finalizers: Lua runs __gc with hooks off, so a
 * looping __gc would escape every limit. Lua marks an object for
 * finalization only when its metatable has __gc at this moment, so adding
 * __gc to the metatable later does nothing. */
static int g_setmetatable(lua_State *L) {
    if (lua_type(L, 2) == LUA_TTABLE) {
        lua_pushliteral(L, "__gc");
        if (lua_rawget(L, 2) != LUA_TNIL)
            return luaL_error(L, "setmetatable: a metatable with __gc is not allowed in exercise scripts "
                                 "(a finalizer cannot be stopped)");
        lua_pop(L, 1);
    }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
}

/* xpcall whose handler runs after the unwinding, as a plain call: Lua calls
 * a message handler with hooks off when the error came from the hook, so a
 * looping handler escaped the budget. A sandboxed script has no debug
 * library to look at the stack with, so it cannot tell the difference. An
 * error in the handler becomes the second result. */
static int g_xpcall(lua_State *L) {
    int n = lua_gettop(L);
    luaL_checktype(L, 2, LUA_TFUNCTION);
    lua_pushboolean(L, 1);
    lua_pushvalue(L, 1);
    lua_rotate(L, 3, 2); /* f, h, true, f, args... */
    if (lua_pcall(L, n - 2, LUA_MULTRET, 0) == LUA_OK) return lua_gettop(L) - 2;
    lua_pushvalue(L, 2);
    lua_insert(L, -2);
    lua_pcall(L, 1, 1, 0);
    lua_pushboolean(L, 0);
    lua_insert(L, -2);
    return 2;
}

static bool in_list(const char *k, const char *const *list) {
    for (; *list; list++)
        if (!strcmp(k, *list)) return true;
    return false;
}

static void open_libs(Sandbox *sb) {
    lua_State *L = sb->L;
    luaL_requiref(L, "_G", luaopen_base, 1);
    lua_pop(L, 1);
    /* Drop every base function not on the allow-list (load, dofile,
     * loadfile, collectgarbage, require...). */
    lua_pushglobaltable(L);
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        lua_pop(L, 1);
        if (lua_type(L, -1) == LUA_TSTRING && !in_list(lua_tostring(L, -1), allowed_base)) {
            lua_pushvalue(L, -1);
            lua_pushnil(L);
            lua_rawset(L, -4);
        }
    }
    lua_pushcfunction(L, g_print);
    lua_setfield(L, -2, "print");
    lua_getfield(L, -1, "setmetatable");
    lua_pushcclosure(L, g_setmetatable, 1);
    lua_setfield(L, -2, "setmetatable");
    lua_pushcfunction(L, g_xpcall);
    lua_setfield(L, -2, "xpcall");

    luaL_requiref(L, "string", luaopen_string, 1);
    lua_pushnil(L);
    lua_setfield(L, -2, "dump"); /* the same table is strings' __index */
    lua_pop(L, 1);
    sandbox_pattern_install(L);
    luaL_requiref(L, "table", luaopen_table, 1);
    luaL_requiref(L, "math", luaopen_math, 1);
    luaL_requiref(L, "utf8", luaopen_utf8, 1);
    lua_pop(L, 3);
    luaL_requiref(L, "os", luaopen_os, 0);
    lua_createtable(L, 0, 2);
    lua_getfield(L, -2, "clock");
    lua_setfield(L, -2, "clock");
    lua_getfield(L, -2, "time");
    lua_setfield(L, -2, "time");
    lua_setfield(L, -3, "os");
    lua_pop(L, 1);

    /* Unknown globals are errors, read or write. */
    lua_createtable(L, 0, 3);
    lua_pushcfunction(L, g_index);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, g_newindex);
    lua_setfield(L, -2, "__newindex");
    lua_pushliteral(L, "locked");
    lua_setfield(L, -2, "__metatable");
    lua_setmetatable(L, -2);
    lua_pop(L, 1);
}

Sandbox *sandbox_new(const SandboxLimits *lim) {
    Sandbox *sb = xcalloc(1, sizeof *sb);
    sb->budget = lim && lim->instruction_budget ? lim->instruction_budget : SANDBOX_DEFAULT_BUDGET;
    sb->cap = lim && lim->memory_cap ? lim->memory_cap : SANDBOX_DEFAULT_MEMORY;
    sb->what = lim && lim->what ? lim->what : "exercise script";
    sb->wall = lim ? lim->wall_seconds : 0;
    if (sb->wall > 0) sb->deadline = now_s() + sb->wall;
    sb->not_counted_s = lim ? lim->not_counted_s : NULL;
    sb->not_counted0 = sb->not_counted_s ? sb->not_counted_s() : 0;
    strbuf_init(&sb->log);
    sb->L = lua_newstate(sb_alloc, sb);
    if (!sb->L) abort(); /* not even a state fits: out of memory */
    *(Sandbox **)lua_getextraspace(sb->L) = sb;
    open_libs(sb);
    lua_sethook(sb->L, sb_hook, LUA_MASKCOUNT, HOOK_STEP);
    return sb;
}

static void frames_clear(Sandbox *sb) {
    for (int i = 0; i < sb->n_frames; i++) free(sb->frames[i].file);
    XFREE(sb->frames);
    sb->n_frames = 0;
}

void sandbox_free(Sandbox **sbp) {
    Sandbox *sb = *sbp;
    if (!sb) return;
    /* Closing runs __gc of every object (device buffers are freed there). */
    lua_close(sb->L);
    frames_clear(sb);
    for (int i = 0; i < sb->n_files; i++) {
        free(sb->files[i].display);
        free(sb->files[i].text);
    }
    free(sb->files);
    strbuf_fini(&sb->log);
    free(sb->dead_msg);
    free(sb);
    *sbp = NULL;
}

lua_State *sandbox_lua(Sandbox *sb) { return sb->L; }
Sandbox *sandbox_from_lua(lua_State *L) { return *(Sandbox **)lua_getextraspace(L); }
void sandbox_set_user(Sandbox *sb, void *user) { sb->user = user; }
void *sandbox_user(Sandbox *sb) { return sb->user; }
bool sandbox_aborted(const Sandbox *sb) { return sb->aborted; }
bool sandbox_dead(const Sandbox *sb) { return sb->dead_msg != NULL; }
uint64_t sandbox_instructions_used(const Sandbox *sb) { return sb->used; }
size_t sandbox_memory_used(const Sandbox *sb) { return sb->mem; }
const char *sandbox_log(const Sandbox *sb) { return sb->has_log ? sb->log.data : NULL; }

/* The log lives outside the Lua heap, so it has its own cap: a print loop
 * reached 4 GB in 9 s before it had one. */
void sandbox_log_append(Sandbox *sb, const char *line) {
    sb->has_log = true;
    if (sb->log_full) return;
    size_t n = strlen(line);
    if (sb->log.len + n > SANDBOX_LOG_CAP) {
        size_t keep = sb->log.len < SANDBOX_LOG_CAP ? SANDBOX_LOG_CAP - sb->log.len : 0;
        while (keep > 0 && ((unsigned char)line[keep] & 0xC0) == 0x80) keep--;
        strbuf_append_n(&sb->log, line, keep);
        strbuf_printf(&sb->log, "\n… (the rest of the output was cut: a run keeps at most %zu KiB of print and "
                                "t:log)\n", SANDBOX_LOG_CAP >> 10);
        sb->log_full = true;
        return;
    }
    strbuf_append_n(&sb->log, line, n);
    if (sb->log.len == 0 || sb->log.data[sb->log.len - 1] != '\n') strbuf_append_char(&sb->log, '\n');
}

void sandbox_set_global(Sandbox *sb, const char *name) {
    lua_State *L = sb->L;
    lua_pushglobaltable(L);
    lua_pushstring(L, name);
    lua_rotate(L, -3, -1);      /* G, name, value */
    lua_rawset(L, -3);          /* raw: _G's __newindex refuses new names */
    lua_pop(L, 1);
}

/* ---- loading ------------------------------------------------------------ */

/* One copy per file name: a script that retries a failing require in a
 * loop reloads the same module, and each copy lives outside the Lua heap. */
void sandbox_remember_file(Sandbox *sb, const char *display, const char *text, size_t len) {
    for (int i = 0; i < sb->n_files; i++)
        if (!strcmp(sb->files[i].display, display)) {
            free(sb->files[i].text);
            sb->files[i].text = xstrndup(text, len);
            return;
        }
    sb->files = xrealloc(sb->files, (size_t)(sb->n_files + 1) * sizeof *sb->files);
    sb->files[sb->n_files].display = xstrdup(display);
    sb->files[sb->n_files].text = xstrndup(text, len);
    sb->n_files++;
}

static const char *file_text(const Sandbox *sb, const char *display) {
    for (int i = sb->n_files - 1; i >= 0; i--)
        if (!strcmp(sb->files[i].display, display)) return sb->files[i].text;
    return NULL;
}

static Diag *error_diag(Sandbox *sb, int status);

Diag *sandbox_load_string(Sandbox *sb, const char *text, size_t len, const char *display) {
    lua_State *L = sb->L;
    sandbox_remember_file(sb, display, text, len);
    lua_pushfstring(L, "@%s", display);
    char *chunkname = xstrdup(lua_tostring(L, -1));
    lua_pop(L, 1);
    sb->aborted = false;
    frames_clear(sb);
    /* Mode "t": a precompiled chunk could break the VM's invariants. */
    int st = luaL_loadbufferx(L, text, len, chunkname, "t");
    free(chunkname);
    if (st == LUA_OK) return NULL;
    Diag *d = error_diag(sb, st);
    lua_pop(L, 1);
    return d;
}

Diag *sandbox_load_file(Sandbox *sb, const char *path, const char *display) {
    char *text = NULL;
    size_t len = 0;
    Diag *d = fs_read_file(path, &text, &len);
    if (d) {
        diag_free(&d);
        return diag_new(DIAG_ERROR, "lua", display, 0, 0, "cannot read %s", path);
    }
    d = sandbox_load_string(sb, text, len, display);
    free(text);
    return d;
}

/* ---- calling and errors ------------------------------------------------- */

/* Message handler: records the author's frames (Lua functions loaded from a
 * file) so the Diag can show them; leaves the message as a string. */
static int msgh(lua_State *L) {
    Sandbox *sb = sandbox_from_lua(L);
    if (lua_touserdata(L, 1) == &abort_key) return 1;
    /* No Lua runs here (not even __tostring): a handler called for an error
     * the hook raised runs with hooks off, so a loop in it could not be
     * stopped. error_diag converts the object once hooks are back on. */
    frames_clear(sb);
    lua_Debug ar;
    for (int level = 1; lua_getstack(L, level, &ar) && sb->n_frames < 32; level++) {
        if (!lua_getinfo(L, "Sl", &ar) || ar.currentline <= 0 || ar.source[0] != '@') continue;
        sb->frames = xrealloc(sb->frames, (size_t)(sb->n_frames + 1) * sizeof *sb->frames);
        sb->frames[sb->n_frames].file = xstrdup(ar.source + 1);
        sb->frames[sb->n_frames].line = ar.currentline;
        sb->n_frames++;
    }
    lua_settop(L, 1);
    return 1;
}

/* Splits "file.lua:12: message" into its parts; false when there is no place. */
static bool split_location(const char *msg, char **file, int *line, const char **rest) {
    const char *p = msg;
    while (*p && *p != '\n') {
        if (*p == ':' && p[1] >= '0' && p[1] <= '9') {
            const char *q = p + 1;
            long ln = strtol(q, (char **)&q, 10);
            if (q[0] == ':' && (q[1] == ' ' || q[1] == '\0') && p - msg >= 4 && !strncmp(p - 4, ".lua", 4)) {
                *file = xstrndup(msg, (size_t)(p - msg));
                *line = (int)ln;
                *rest = q[1] ? q + 2 : q + 1;
                return true;
            }
        }
        p++;
    }
    return false;
}

static int tostring_protected(lua_State *L) {
    if (!luaL_callmeta(L, 1, "__tostring")) lua_pushnil(L);
    return 1;
}

static Diag *error_diag(Sandbox *sb, int status) {
    lua_State *L = sb->L;
    if (lua_touserdata(L, -1) == &abort_key) {
        sb->aborted = true;
        return diag_error("abort", "the run was stopped");
    }
    if (status == LUA_ERRMEM) {
        Diag *d = diag_new(DIAG_ERROR, "lua", sb->mem_file[0] ? sb->mem_file : NULL, sb->mem_line, 0,
                           "%s used more than %zu MiB of memory (memory cap)", sb->what, sb->cap >> 20);
        if (d->file) diag_set_excerpt(d, file_text(sb, d->file));
        sb->mem_hit = false;
        sb->mem_file[0] = '\0';
        sb->mem_line = 0;
        return d;
    }
    if (!lua_isstring(L, -1)) {
        /* __tostring of the author's error object, with the limits on. */
        lua_pushcfunction(L, tostring_protected);
        lua_pushvalue(L, -2);
        if (lua_pcall(L, 1, 1, 0) != LUA_OK || lua_type(L, -1) != LUA_TSTRING) {
            lua_pop(L, 1);
            lua_pushfstring(L, "error object is a %s value", luaL_typename(L, -1));
        }
        lua_replace(L, -2);
    }
    const char *msg = lua_tostring(L, -1);
    if (!msg) msg = "error object is not a string";
    char *file = NULL;
    int line = 0;
    const char *rest = msg;
    if (!split_location(msg, &file, &line, &rest) && sb->n_frames > 0) {
        file = xstrdup(sb->frames[0].file);
        line = sb->frames[0].line;
    }
    char *text = str_cut(rest, strlen(rest), SANDBOX_MESSAGE_CAP);
    Diag *d = diag_new(DIAG_ERROR, "lua", file, line, 0, "%s", text);
    free(text);
    if (file) diag_set_excerpt(d, file_text(sb, file));
    int notes = 0;
    for (int i = 0; i < sb->n_frames && notes < MAX_NOTES; i++) {
        const Frame *f = &sb->frames[i];
        if (file && f->line == line && !strcmp(f->file, file) && i == 0) continue;
        Diag *n = diag_new(DIAG_NOTE, "lua", f->file, f->line, 0, "called from here");
        diag_set_excerpt(n, file_text(sb, f->file));
        diag_append(&d, n);
        notes++;
    }
    free(file);
    frames_clear(sb);
    return d;
}

Diag *sandbox_call(Sandbox *sb, int nargs, int nresults) {
    lua_State *L = sb->L;
    int base = lua_gettop(L) - nargs;
    lua_pushcfunction(L, msgh);
    lua_insert(L, base);
    sb->aborted = false;
    frames_clear(sb);
    int st = lua_pcall(L, nargs, nresults, base);
    lua_remove(L, base);
    if (st == LUA_OK) return NULL;
    Diag *d = error_diag(sb, st);
    lua_pop(L, 1);
    return d;
}

int sandbox_abort(lua_State *L) {
    /* Like a limit, an abort cannot be caught: a script that pcalls
     * t:kernel would otherwise go on after its compile error (and retry
     * the compile in a loop). */
    Sandbox *sb = sandbox_from_lua(L);
    sb->abort_raised = true;
    lua_sethook(L, sb_hook, LUA_MASKCOUNT, 1);
    lua_pushlightuserdata(L, &abort_key);
    lua_error(L);
    abort(); /* unreachable: lua_error does not return */
}
