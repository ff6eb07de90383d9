/* lua/prelude.c: Lua written by us and shipped inside the binary
 * (the .lua files of lua/prelude/, embedded at build time by tools/embed.sh).
 *
 * Each prelude is a global table whose fields load on first use, so the
 * many exercises that never touch it pay nothing when the course is loaded.
 * `hostcheck` holds the checks of the events and streams chapters' whole
 * programs (their call traces, timelines and printed results). */
#include <lauxlib.h>
#include <lua.h>
#include <string.h>

#include "lua/api.h"

extern const unsigned char prelude_hostcheck_lua[];
extern const unsigned long prelude_hostcheck_lua_len;

typedef struct Prelude {
    const char *global;             /* the table's name */
    const char *chunkname;          /* what errors in it show */
    const unsigned char *text;
    const unsigned long *len;
} Prelude;

static const Prelude preludes[] = {
    {"hostcheck", "@cudojo/hostcheck.lua", prelude_hostcheck_lua, &prelude_hostcheck_lua_len},
};

/* <global>.<key>: on first use runs the prelude and copies what it returns
 * into the table. Upvalues: the prelude's index, a state table (loaded?). */
static int prelude_index(lua_State *L) {
    /* 1: the table, 2: the key */
    const Prelude *p = &preludes[lua_tointeger(L, lua_upvalueindex(1))];
    lua_pushliteral(L, "loaded");
    if (lua_rawget(L, lua_upvalueindex(2)) == LUA_TNIL) {
        lua_pop(L, 1);
        if (luaL_loadbufferx(L, (const char *)p->text, *p->len, p->chunkname, "t") != LUA_OK) return lua_error(L);
        lua_call(L, 0, 1);
        luaL_checktype(L, -1, LUA_TTABLE);
        lua_pushnil(L);
        while (lua_next(L, -2)) {
            lua_pushvalue(L, -2);
            lua_insert(L, -2);
            lua_rawset(L, 1);
        }
        lua_pushliteral(L, "loaded");
        lua_pushboolean(L, 1);
        lua_rawset(L, lua_upvalueindex(2));
    }
    lua_settop(L, 2);
    if (lua_rawget(L, 1) == LUA_TNIL) return luaL_error(L, "%s has no field '%s'", p->global, lua_tostring(L, 2));
    return 1;
}

bool prelude_push(lua_State *L, const char *global) {
    for (size_t i = 0; i < sizeof preludes / sizeof preludes[0]; i++) {
        if (strcmp(preludes[i].global, global)) continue;
        lua_newtable(L);            /* the prelude's table */
        lua_newtable(L);            /* its metatable */
        lua_pushinteger(L, (lua_Integer)i);
        lua_newtable(L);            /* state: loaded? */
        lua_pushcclosure(L, prelude_index, 2);
        lua_setfield(L, -2, "__index");
        lua_pushliteral(L, "locked");
        lua_setfield(L, -2, "__metatable");
        lua_setmetatable(L, -2);
        return true;
    }
    return false;
}
