/* lua/api_install.c: puts the exercise API into a sandbox: the gpu table
 * (gpu.c's arrays and scalars, stream.c's streams, gpu_struct.c's
 * gpu.struct, gpu_math.c's helpers), ref (ref.c) and hostcheck (the
 * prelude). The one file that knows every module of the API, so the
 * modules need not know each other. */
#include "lua/api.h"

void api_install(Sandbox *sb) {
    lua_State *L = sandbox_lua(sb);
    ApiCtx *c = api_ctx(L);
    /* a run starts from the backend's own emulator options (t:emu_options changes them for one run) */
    if (c && c->backend && c->backend->ops->emu_options_set) c->backend->ops->emu_options_set(c->backend, NULL);
    gpu_push_module(L);
    stream_install(L);
    struct_install(L);
    gpu_math_add(L);
    api_make_strict(L, "gpu has no field");
    sandbox_set_global(sb, "gpu");
    ref_push_module(L);
    api_make_strict(L, "ref has no function");
    sandbox_set_global(sb, "ref");
    prelude_push(L, "hostcheck");
    sandbox_set_global(sb, "hostcheck");
}
