/* lua/sandbox_require.c: require(name) for course scripts: a chapter's own
 * Lua modules, so the exercises of a chapter share their helpers instead of
 * repeating them (see sandbox.h, sandbox_enable_require).
 *
 * A module is <chapter>/lib/<name>.lua. It runs in the same sandbox as the
 * script that requires it (the same allow-listed globals, limits and strict
 * _G: no io, os.execute, debug, package), text only, once per state: a
 * second require returns the first one's value. The name is one identifier,
 * so it can never leave the folder; a symlink that leads outside the
 * chapter is refused as well. A module that is missing or does not compile
 * is an error at the requiring line; an error while it runs names the
 * module's file and line. */
#include <dirent.h>
#include <lauxlib.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/fs.h"
#include "base/strbuf.h"
#include "lua/sandbox.h"

#define CACHE_KEY "cudojo.modules"          /* registry: name -> the module's value */
#define TEXT_MT "cudojo.module_text"        /* a module's text while it loads (freed by __gc on error) */
#define MAX_SUGGEST 64                      /* lib/ files looked at for "did you mean" */

/* The cache's value while a module runs: meeting it again is a cycle. */
static char loading_key;

/* The text of a module file, malloc'ed outside the Lua heap, owned by a
 * userdata so that an error while loading it cannot leak it. */
typedef struct ModuleText {
    char *text;
} ModuleText;

static int text_gc(lua_State *L) {
    ModuleText *m = luaL_checkudata(L, 1, TEXT_MT);
    free(m->text);
    m->text = NULL;
    return 0;
}

bool sandbox_module_name_ok(const char *s) {
    size_t n = strlen(s);
    if (n == 0 || n > SANDBOX_MODULE_NAME_MAX || (s[0] >= '0' && s[0] <= '9')) return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_'))
            return false;
    return true;
}

/* The closest name among lib/'s modules to `name` (edit distance below 3),
 * copied into best; "" when none. */
static void closest_module(const char *lib_dir, const char *name, char best[SANDBOX_MODULE_NAME_MAX + 1]) {
    best[0] = '\0';
    DIR *d = opendir(lib_dir);
    struct dirent *de;
    int best_d = 3, seen = 0;
    while (d && (de = readdir(d)) && seen++ < MAX_SUGGEST) {
        size_t n = strlen(de->d_name);
        if (n < 5 || n - 4 > SANDBOX_MODULE_NAME_MAX || strcmp(de->d_name + n - 4, ".lua")) continue;
        char stem[SANDBOX_MODULE_NAME_MAX + 1];
        memcpy(stem, de->d_name, n - 4);
        stem[n - 4] = '\0';
        int dist = str_edit_distance(name, stem);
        if (sandbox_module_name_ok(stem) && dist < best_d) {
            best_d = dist;
            strcpy(best, stem);
        }
    }
    if (d) closedir(d);
}

/* True when the real path of `path` lies below the real path of `dir`. */
static bool inside_dir(const char *path, const char *dir) {
    char rp[PATH_MAX], rd[PATH_MAX];
    if (!realpath(path, rp) || !realpath(dir, rd)) return false;
    size_t n = strlen(rd);
    return !strncmp(rp, rd, n) && (rp[n] == '/' || (n == 1 && rd[0] == '/'));
}

/* Finds, reads and compiles module `name`; pushes its main function. Every
 * refusal is raised at the requiring line (luaL_error's level 1). */
static void load_module(lua_State *L, const char *name) {
    const char *dir = lua_tostring(L, lua_upvalueindex(1));
    const char *shown = lua_tostring(L, lua_upvalueindex(2));
    char lib_dir[PATH_MAX], path[PATH_MAX];
    if ((size_t)snprintf(lib_dir, sizeof lib_dir, "%s/%s", dir, SANDBOX_MODULE_DIR) >= sizeof lib_dir ||
        (size_t)snprintf(path, sizeof path, "%s/%s.lua", lib_dir, name) >= sizeof path)
        luaL_error(L, "require '%s': the chapter folder's path is too long", name);
    const char *display = lua_pushfstring(L, "%s/%s/%s.lua", shown, SANDBOX_MODULE_DIR, name);
    struct stat st;
    if (stat(path, &st) != 0) {
        char best[SANDBOX_MODULE_NAME_MAX + 1];
        closest_module(lib_dir, name, best);
        if (best[0])
            luaL_error(L, "require '%s': no such module of this chapter (%s does not exist; did you mean '%s'?)",
                       name, display, best);
        luaL_error(L, "require '%s': no such module of this chapter (%s does not exist; require loads only the "
                      "chapter's own modules, %s/%s/<name>.lua)", name, display, shown, SANDBOX_MODULE_DIR);
    }
    if (!S_ISREG(st.st_mode))
        luaL_error(L, "require '%s': %s is %s, not a Lua file", name, display, fs_kind_name(st.st_mode));
    if (!inside_dir(path, dir))
        luaL_error(L, "require '%s': %s is a symlink leading outside the chapter folder", name, display);
    if (st.st_size > SANDBOX_MODULE_FILE_MAX)
        luaL_error(L, "require '%s': %s is larger than %d KiB", name, display, SANDBOX_MODULE_FILE_MAX >> 10);

    ModuleText *m = lua_newuserdatauv(L, sizeof *m, 0);
    m->text = NULL;
    luaL_setmetatable(L, TEXT_MT);
    size_t len = 0;
    Diag *d = fs_read_file_max(path, SANDBOX_MODULE_FILE_MAX, &m->text, &len);
    if (d) {
        char why[256];
        snprintf(why, sizeof why, "%s", d->message);
        diag_free(&d);
        luaL_error(L, "require '%s': cannot read %s: %s", name, display, why);
    }
    sandbox_remember_file(sandbox_from_lua(L), display, m->text, len);
    const char *chunkname = lua_pushfstring(L, "@%s", display);
    /* Mode "t", as for every course file: bytecode could break the VM. */
    int status = luaL_loadbufferx(L, m->text, len, chunkname, "t");
    free(m->text);
    m->text = NULL;
    if (status == LUA_ERRSYNTAX)
        luaL_error(L, "require '%s': the module does not compile: %s", name, lua_tostring(L, -1));
    if (status != LUA_OK) lua_error(L);
    lua_replace(L, -4);     /* display, text, chunkname, function -> function, text, chunkname */
    lua_pop(L, 2);
}

/* require(name): the value module `name` returned (true when it returned
 * nothing), loading and running it the first time. */
static int sb_require(lua_State *L) {
    size_t len;
    const char *name = luaL_checklstring(L, 1, &len);
    if (len != strlen(name) || !sandbox_module_name_ok(name))
        return luaL_error(L, "require '%s': a module name is one identifier (letters, digits and '_', at most %d, "
                             "no '/', '.' or '..'): the file %s/<name>.lua of this chapter", name,
                          SANDBOX_MODULE_NAME_MAX, SANDBOX_MODULE_DIR);
    lua_settop(L, 1);
    lua_getfield(L, LUA_REGISTRYINDEX, CACHE_KEY);      /* 2: the cache */
    lua_getfield(L, 2, name);
    if (lua_touserdata(L, -1) == &loading_key)
        return luaL_error(L, "require '%s': the module is still loading (a cycle: it requires itself, directly or "
                             "through another module)", name);
    if (!lua_isnil(L, -1)) return 1;
    lua_pop(L, 1);
    load_module(L, name);                               /* 3: the module's main function */
    lua_pushlightuserdata(L, &loading_key);
    lua_setfield(L, 2, name);
    lua_pushvalue(L, 1);
    /* The module runs protected only to take its mark out of the cache: its
     * error (a message with its file:line, a limit, an abort) goes on as it
     * came. */
    if (lua_pcall(L, 1, 1, 0) != LUA_OK) {
        lua_pushnil(L);
        lua_setfield(L, 2, name);
        return lua_error(L);
    }
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        lua_pushboolean(L, 1);
    }
    lua_pushvalue(L, -1);
    lua_setfield(L, 2, name);
    return 1;
}

void sandbox_enable_require(Sandbox *sb, const char *chapter_dir, const char *chapter_shown) {
    lua_State *L = sandbox_lua(sb);
    lua_newtable(L);
    lua_setfield(L, LUA_REGISTRYINDEX, CACHE_KEY);
    if (luaL_newmetatable(L, TEXT_MT)) {
        lua_pushcfunction(L, text_gc);
        lua_setfield(L, -2, "__gc");
    }
    lua_pop(L, 1);
    lua_pushstring(L, chapter_dir);
    lua_pushstring(L, chapter_shown);
    lua_pushcclosure(L, sb_require, 2);
    sandbox_set_global(sb, "require");
}
