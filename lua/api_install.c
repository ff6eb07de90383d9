/* lua/api_install.c: puts the exercise API into a sandbox: the gpu table
 * (gpu.c's arrays and scalars, stream.c's streams, gpu_struct.c's
 * gpu.struct, gpu_math.c's helpers), ref (ref.c) and hostcheck (the
 * prelude). The one file that knows every module of the API, so the
 * modules need not know each other. */
#include <lauxlib.h>

#include "lua/api.h"

void api_install(Sandbox *sb) {
    lua_State *L = sandbox_lua(sb);
    ApiCtx *c = api_ctx(L);
    /* a run starts from the backend's own emulator options (t:emu_options changes them for one run) */
    if (c && c->backend && c->backend->ops->emu_options_set) c->backend->ops->emu_options_set(c->backend, NULL);
    gpu_push_module(L);
    /* metrics.phases: the array methods that make input data, and the explicit copies */
    luaL_getmetatable(L, "cudojo.array");
    lua_getfield(L, -1, "methods");
    static const char *const generators[] = {"random", "iota", "fill", "copy", "set", "set_field", NULL};
    api_wrap_phase(L, -1, generators, PHASE_GENERATE);
    api_wrap_phase(L, -1, (const char *const[]){"upload", NULL}, PHASE_UPLOAD);
    api_wrap_phase(L, -1, (const char *const[]){"download", NULL}, PHASE_DOWNLOAD);
    lua_pop(L, 2);
    stream_install(L);
    struct_install(L);
    gpu_math_add(L);
    api_make_strict(L, "gpu has no field");
    sandbox_set_global(sb, "gpu");
    ref_push_module(L);
    api_wrap_phase(L, -1, NULL, PHASE_REFERENCE);
    api_make_strict(L, "ref has no function");
    sandbox_set_global(sb, "ref");
    prelude_push(L, "hostcheck");
    sandbox_set_global(sb, "hostcheck");
}
