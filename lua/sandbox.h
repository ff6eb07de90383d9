/* lua/sandbox.h: a Lua 5.4 state fit for running other people's scripts.
 *
 * Exercise packs may come from anyone, so a script gets an allow-listed
 * global table (no io, os.execute, debug, require (but a course script may
 * get a chapter-only one: sandbox_enable_require), load, dofile,
 * string.dump), a metatable on _G that makes any unknown global read or
 * write an error naming the script's file:line, an instruction budget and
 * a wall-clock limit (count hook), a memory cap (counting allocator), a cap
 * on what print/t:log keep, and text-only loading.
 *
 * The limits cannot be caught: once one is hit the state is dead, and every
 * Lua instruction that runs after that raises the same error again, so a
 * pcall or xpcall only delays the end by one instruction. Finalizers can
 * not be bounded (Lua runs __gc with hooks off), so setmetatable refuses a
 * metatable with __gc; patterns whose matching could take long on the text
 * they are given are refused before they run (the matcher is C: no hook). 
 * Errors come back as Diags in the author's file with a trimmed traceback
 * (one note per calling frame of the author's code). */
#ifndef CUDOJO_LUA_SANDBOX_H
#define CUDOJO_LUA_SANDBOX_H

#include <lua.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"

/* Defaults; 0 in SandboxLimits means "use the default". */
#define SANDBOX_DEFAULT_BUDGET 1000000000ull        /* VM instructions (a few seconds) */
#define SANDBOX_DEFAULT_MEMORY ((size_t)512 << 20)  /* bytes of Lua heap */

/* What a state may print and keep with print() and t:log(). */
#define SANDBOX_LOG_CAP ((size_t)1 << 20)
/* Error messages longer than this are cut ("… (N bytes cut)"). */
#define SANDBOX_MESSAGE_CAP 4096

typedef struct SandboxLimits {
    uint64_t instruction_budget;
    size_t memory_cap;
    double wall_seconds;        /* 0 = no wall-clock limit */
    const char *what;           /* how messages name the script: NULL = "exercise script" */
    /* Seconds so far that do not count against wall_seconds (waiting for a
     * GPU another grader is timing on); NULL = none. */
    double (*not_counted_s)(void);
} SandboxLimits;

typedef struct Sandbox Sandbox;

/* A fresh state with the allow-listed globals; lim may be NULL. Caller frees. */
Sandbox *sandbox_new(const SandboxLimits *lim);
void sandbox_free(Sandbox **sb);
lua_State *sandbox_lua(Sandbox *sb);
/* The Sandbox that owns L (any thread of it). */
Sandbox *sandbox_from_lua(lua_State *L);
/* An opaque pointer for the layer above (the run context). */
void sandbox_set_user(Sandbox *sb, void *user);
void *sandbox_user(Sandbox *sb);

/* Pops the value on top of the stack into global `name`, bypassing the
 * unknown-global guard (this is how gpu, ref... are installed). */
void sandbox_set_global(Sandbox *sb, const char *name);

/* Loads the text chunk in `path`; `display` is how messages name the file
 * ("lessons/01-hello-gpu/vector-add.lua"; chunkname "@" display). Pushes the
 * function on success. Bytecode is refused. */
Diag *sandbox_load_file(Sandbox *sb, const char *path, const char *display);
Diag *sandbox_load_string(Sandbox *sb, const char *text, size_t len, const char *display);

/* Calls the function below nargs arguments with the message handler; on
 * success leaves nresults values. On error returns the Diag chain (code
 * "lua", the author's file:line, notes for the calling frames). */
Diag *sandbox_call(Sandbox *sb, int nargs, int nresults);

/* Unwinds the script without blaming it: the layer above has recorded why
 * (a compile error in the learner's kernel, a failed launch). sandbox_call
 * then returns a Diag with code "abort" and sandbox_aborted() is true. It
 * cannot be caught: like a limit, it is raised again at every instruction. */
int sandbox_abort(lua_State *L) __attribute__((noreturn));
bool sandbox_aborted(const Sandbox *sb);

/* print() and t:log() lines, "\n"-terminated; NULL when none. */
void sandbox_log_append(Sandbox *sb, const char *line);
const char *sandbox_log(const Sandbox *sb);

/* Calls tick(ud, file, line) from the hook about twice a second with the
 * author's line running then (how the worker says where a slow script is). */
void sandbox_set_tick(Sandbox *sb, void (*tick)(void *ud, const char *file, int line), void *ud);
/* Moves the wall-clock limit `seconds` later (time the script did not use:
 * a compile). */
void sandbox_extend_deadline(Sandbox *sb, double seconds);
/* "file:line" of the innermost author's frame running on L; false when none. */
bool sandbox_where(lua_State *L, char *buf, size_t n);

/* True once a limit was hit: the state raises at every instruction. */
bool sandbox_dead(const Sandbox *sb);
uint64_t sandbox_instructions_used(const Sandbox *sb);
size_t sandbox_memory_used(const Sandbox *sb);

/* Raises an error for an unknown key of an API table/object ("gpu has no
 * field 'arary' (did you mean 'array'?)"); candidates are the keys of the
 * table at index `keys_idx`. */
int sandbox_unknown_key_error(lua_State *L, const char *what, const char *key, int keys_idx);
/* Raises sandbox_unknown_key_error's "what 'key' (did you mean ...)"
 * unless every key of the table at idx is one of `allowed` (NULL-ended):
 * how an options table refuses a misspelt option. */
void sandbox_check_keys(lua_State *L, int idx, const char *what, const char *const *allowed);

/* require(name) for a course script (lua/sandbox_require.c): loads the
 * chapter's own module <chapter_dir>/lib/<name>.lua (messages and chunkname
 * "<chapter_shown>/lib/<name>.lua") in this sandbox, once per state, and
 * returns what it returned (true for nothing). The name is one identifier;
 * a missing module, a file that is not one, a symlink out of the chapter,
 * or a module that does not compile is an error at the requiring line.
 * Without this call a script has no `require` at all. */
#define SANDBOX_MODULE_DIR "lib"
#define SANDBOX_MODULE_NAME_MAX 64
#define SANDBOX_MODULE_FILE_MAX (1 << 20)
void sandbox_enable_require(Sandbox *sb, const char *chapter_dir, const char *chapter_shown);
/* True when s can name a module: letters, digits and '_', not starting
 * with a digit, 1 to SANDBOX_MODULE_NAME_MAX bytes. */
bool sandbox_module_name_ok(const char *s);
/* Internal (lua/sandbox_require.c): keeps a loaded file's text so errors
 * in it show the line (sandbox_load_string does this for its chunks). */
void sandbox_remember_file(Sandbox *sb, const char *display, const char *text, size_t len);

/* Internal (lua/sandbox_pattern.c): replaces string.find/match/gmatch/gsub
 * with versions that refuse a pattern too costly for its text. */
void sandbox_pattern_install(lua_State *L);

#endif
