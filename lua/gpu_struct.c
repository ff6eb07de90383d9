/* lua/gpu_struct.c: gpu.struct{ {"x", "f32"}, {"y", "f32"}, {"m", "i32"} }
 * — the layout of a C struct, for arrays of structs (gpu.array(S, n)).
 *
 * Lua tables have no order, so a struct is a sequence of {name, type}
 * pairs, in the order of the C declaration. The layout is what a C or CUDA
 * compiler gives that declaration: each field at the next multiple of its
 * own size (every element type is aligned to its size), the size rounded
 * up to the widest field. A struct object is userdata holding the
 * StructType; arrays keep it alive as a user value. */
#include <lauxlib.h>
#include <string.h>

#include "lua/api.h"

#define STRUCT_MT "cudojo.struct"

int struct_field_find(const StructType *st, const char *name) {
    for (int i = 0; i < st->n; i++)
        if (!strcmp(st->f[i].name, name)) return i;
    return -1;
}

int struct_unknown_field(lua_State *L, const StructType *st, const char *k) {
    lua_createtable(L, 0, st->n);
    for (int i = 0; i < st->n; i++) {
        lua_pushboolean(L, 1);
        lua_setfield(L, -2, st->f[i].name);
    }
    return sandbox_unknown_key_error(L, "the struct has no field", k, -1);
}

static bool is_name(const char *s) {
    if (!s[0] || (s[0] >= '0' && s[0] <= '9')) return false;
    for (const char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_'))
            return false;
    return true;
}

/* Builds the layout from the sequence at idx and pushes it as a struct object. */
static const StructType *struct_from_table(lua_State *L, int idx) {
    idx = lua_absindex(L, idx);
    lua_Integer n = luaL_len(L, idx);
    if (n == 0) {
        lua_pushnil(L);
        if (lua_next(L, idx)) {
            lua_pop(L, 2);
            luaL_error(L, "gpu.struct: the fields need an order, as in C: gpu.struct{ {\"x\", \"f32\"}, "
                          "{\"y\", \"f32\"} } (a table like { x = \"f32\" } has none)");
        }
        luaL_error(L, "gpu.struct: a struct has at least one field");
    }
    if (n > STRUCT_MAX_FIELDS) luaL_error(L, "gpu.struct: at most %d fields (this one has %I)", STRUCT_MAX_FIELDS, n);
    StructType *st = lua_newuserdatauv(L, sizeof *st, 0);
    memset(st, 0, sizeof *st);
    luaL_setmetatable(L, STRUCT_MT);
    size_t off = 0, align = 1;
    for (lua_Integer i = 1; i <= n; i++) {
        if (lua_geti(L, idx, i) != LUA_TTABLE)
            luaL_error(L, "gpu.struct: field %I must be a pair {name, type} such as {\"x\", \"f32\"}, not %s", i,
                       luaL_typename(L, -1));
        lua_geti(L, -1, 1);
        lua_geti(L, -2, 2);
        const char *name = lua_tostring(L, -2), *type = lua_tostring(L, -1);
        if (!name || lua_type(L, -2) != LUA_TSTRING || !is_name(name) || strlen(name) > STRUCT_NAME_MAX)
            luaL_error(L, "gpu.struct: field %I's name must be a C identifier of at most %d bytes", i, STRUCT_NAME_MAX);
        DType t = DT_F32;
        if (!type || lua_type(L, -1) != LUA_TSTRING || !dtype_parse(type, &t))
            luaL_error(L, "gpu.struct: field '%s' has type %s; one of f32 f64 f16 bf16 i32 u32 i64 u64 i8 u8 i16 u16",
                       name, type ? type : luaL_typename(L, -1));
        if (lua_rawlen(L, -3) > 2) luaL_error(L, "gpu.struct: field '%s': array fields are not supported", name);
        if (struct_field_find(st, name) >= 0) luaL_error(L, "gpu.struct: field '%s' is there twice", name);
        size_t sz = dtype_size(t);
        off = (off + sz - 1) / sz * sz;
        StructField *f = &st->f[st->n++];
        strcpy(f->name, name);
        f->type = t;
        f->offset = off;
        off += sz;
        if (sz > align) align = sz;
        lua_pop(L, 3);
    }
    st->align = align;
    st->size = (off + align - 1) / align * align;
    return st;
}

const StructType *struct_check(lua_State *L, int idx) {
    StructType *st = luaL_testudata(L, idx, STRUCT_MT);
    if (st) {
        lua_pushvalue(L, idx);
        return st;
    }
    luaL_checktype(L, idx, LUA_TTABLE);
    return struct_from_table(L, idx);
}

static int gpu_struct(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    struct_from_table(L, 1);
    return 1;
}

static int struct_offset(lua_State *L) {
    const StructType *st = luaL_checkudata(L, 1, STRUCT_MT);
    const char *k = luaL_checkstring(L, 2);
    int f = struct_field_find(st, k);
    if (f < 0) return struct_unknown_field(L, st, k);
    lua_pushinteger(L, (lua_Integer)st->f[f].offset);
    return 1;
}

/* s.size, s.align, s.fields ({ {name, type, offset}, ... }), s:offset("x"). */
static int struct_index(lua_State *L) {
    const StructType *st = luaL_checkudata(L, 1, STRUCT_MT);
    const char *k = luaL_checkstring(L, 2);
    if (!strcmp(k, "size")) lua_pushinteger(L, (lua_Integer)st->size);
    else if (!strcmp(k, "align")) lua_pushinteger(L, (lua_Integer)st->align);
    else if (!strcmp(k, "offset")) lua_pushcfunction(L, struct_offset);
    else if (!strcmp(k, "fields")) {
        lua_createtable(L, st->n, 0);
        for (int i = 0; i < st->n; i++) {
            lua_createtable(L, 3, 0);
            lua_pushstring(L, st->f[i].name);
            lua_rawseti(L, -2, 1);
            lua_pushstring(L, dtype_name(st->f[i].type));
            lua_rawseti(L, -2, 2);
            lua_pushinteger(L, (lua_Integer)st->f[i].offset);
            lua_rawseti(L, -2, 3);
            lua_rawseti(L, -2, i + 1);
        }
    } else {
        lua_createtable(L, 0, 4);
        static const char *const keys[] = {"size", "align", "offset", "fields"};
        for (int i = 0; i < 4; i++) {
            lua_pushboolean(L, 1);
            lua_setfield(L, -2, keys[i]);
        }
        return sandbox_unknown_key_error(L, "a struct type has no field", k, -1);
    }
    return 1;
}

/* "struct { f32 x; f32 y; i32 m; } (12 bytes)" */
static int struct_tostring(lua_State *L) {
    const StructType *st = luaL_checkudata(L, 1, STRUCT_MT);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    luaL_addstring(&b, "struct {");
    for (int i = 0; i < st->n; i++) {
        lua_pushfstring(L, " %s %s;", dtype_name(st->f[i].type), st->f[i].name);
        luaL_addvalue(&b);
    }
    lua_pushfstring(L, " } (%I bytes)", (lua_Integer)st->size);
    luaL_addvalue(&b);
    luaL_pushresult(&b);
    return 1;
}

void struct_install(lua_State *L) {
    luaL_newmetatable(L, STRUCT_MT);
    lua_pushcfunction(L, struct_index);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, struct_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_pushliteral(L, "locked");
    lua_setfield(L, -2, "__metatable");
    lua_pop(L, 1);
    lua_pushcfunction(L, gpu_struct);
    lua_setfield(L, -2, "struct");
}
