/* lua/prelude.c: Lua written by us and shipped inside the binary
 * (the .lua files of lua/prelude/, embedded at build time by tools/embed.sh).
 *
 * `host` is the host replay of the events and streams chapters. It is a
 * global table whose fields load on first use, so the many exercises that
 * never touch it pay nothing when the course is loaded. */
#include <lauxlib.h>
#include <lua.h>

#include "lua/api.h"

extern const unsigned char prelude_host_replay_lua[];
extern const unsigned long prelude_host_replay_lua_len;

/* host.<key>: on first use runs the prelude and copies what it returns into `host`. */
static int host_index(lua_State *L) {
    /* 1: the host table, 2: the key */
    lua_pushliteral(L, "loaded");
    if (lua_rawget(L, lua_upvalueindex(1)) == LUA_TNIL) {
        lua_pop(L, 1);
        if (luaL_loadbufferx(L, (const char *)prelude_host_replay_lua, prelude_host_replay_lua_len,
                             "@cudojo/host_replay.lua", "t") != LUA_OK)
            return lua_error(L);
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
        lua_rawset(L, lua_upvalueindex(1));
    }
    lua_settop(L, 2);
    if (lua_rawget(L, 1) == LUA_TNIL)
        return luaL_error(L, "host has no field '%s' (it has replay, entry, check_outputs, OP)",
                          lua_tostring(L, 2));
    return 1;
}

void prelude_push_host(lua_State *L) {
    lua_newtable(L);                /* host */
    lua_newtable(L);                /* its metatable */
    lua_newtable(L);                /* state: loaded? */
    lua_pushcclosure(L, host_index, 1);
    lua_setfield(L, -2, "__index");
    lua_pushliteral(L, "locked");
    lua_setfield(L, -2, "__metatable");
    lua_setmetatable(L, -2);
}
