/* lua/api.c: the run's context as the exercise API sees it, shared by
 * gpu.c, stream.c, ref.c and the rest of lua/: the ApiCtx behind a
 * sandbox, ending a run from inside a Lua call (api_abort), name limits and
 * strict tables. It calls nothing else of the API, so none of those files
 * call each other through it. */
#include <lauxlib.h>
#include <string.h>

#include "lua/api.h"

ApiCtx *api_ctx(lua_State *L) { return sandbox_user(sandbox_from_lua(L)); }

const char *api_check_name(lua_State *L, const char *name, const char *what) {
    if (name && strlen(name) > API_NAME_MAX)
        luaL_error(L, "%s: a name of at most %d bytes (this one has %d)", what, API_NAME_MAX, (int)strlen(name));
    return name;
}

int api_abort(lua_State *L, Verdict v, Diag *why) {
    ApiCtx *c = api_ctx(L);
    if (!c) {
        lua_pushstring(L, why ? why->message : "aborted");
        diag_free(&why);
        lua_error(L);
    }
    if (!c->aborted) {
        c->aborted = true;
        c->abort_verdict = v;
    }
    diag_append(&c->abort_diags, why);
    sandbox_abort(L);
}

static int strict_index(lua_State *L) {
    const char *k = luaL_tolstring(L, 2, NULL);
    return sandbox_unknown_key_error(L, lua_tostring(L, lua_upvalueindex(1)), k, 1);
}

void api_make_strict(lua_State *L, const char *what) {
    lua_createtable(L, 0, 2);
    lua_pushstring(L, what);
    lua_pushcclosure(L, strict_index, 1);
    lua_setfield(L, -2, "__index");
    lua_pushliteral(L, "locked");
    lua_setfield(L, -2, "__metatable");
    lua_setmetatable(L, -2);
}
