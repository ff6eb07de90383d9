/* tests/lua/test_array_pool.c: big gpu.array host buffers come from the
 * backend's pool and go back to it (lua/gpu_array.c, kernels/host_pool.h),
 * yet an array is zero-filled whatever ran before in the same worker: a run
 * on the emulator backend fills arrays and ends; the pool then holds their
 * buffers with the old values in them; the next run's arrays of that size
 * get those buffers back and read all zeros, on the host and on the device.
 * Also: a pooled buffer made pinned, a view into one, and the big
 * generators (fill, iota, copy) on every core. Under `make san` these are
 * the use-after-free checks of pooled buffers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kernels/backend.h"
#include "kernels/host_pool.h"
#include "lua/api.h"
#include "lua/sandbox.h"

/* 2^20 floats: 4 MiB, over HOST_POOL_MIN_BYTES and PAR_MIN_BYTES */
#define N_ELEMS (1 << 20)

static Backend *open_emu(void) {
    Diag *why = NULL;
    EmuOptions o = {.threads = 1};
    Backend *b = emu_backend_new(&o, &why);
    if (!b) {
        char *s = diag_format_all(why, false);
        fail_msg("no emulator: %s", s);
    }
    return b;
}

/* One run: a fresh sandbox on backend b (NULL: host-only arrays). */
static void run_lua(Backend *b, const char *code) {
    ApiCtx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.backend = b;
    Sandbox *sb = sandbox_new(NULL);
    sandbox_set_user(sb, &ctx);
    api_install(sb);
    char *full = NULL;
    size_t len = strlen(code) + 64;
    full = malloc(len);
    snprintf(full, len, "local N = %d\n%s", N_ELEMS, code);
    Diag *d = sandbox_load_string(sb, full, strlen(full), "lessons/test/pool.lua");
    free(full);
    if (!d) d = sandbox_call(sb, 0, 0);
    sandbox_free(&sb);
    diag_free(&ctx.abort_diags);
    if (d) {
        char *s = diag_format_all(d, false);
        diag_free(&d);
        fail_msg("%s", s);
    }
}

static const char *const all_zero =
    "local function zeros(a, what)\n"
    "  for i = 0, #a - 1 do\n"
    "    if a[i] ~= 0 then error(what .. ': element ' .. i .. ' is ' .. a[i] .. ', not 0') end\n"
    "  end\n"
    "end\n";

static void array_pool__new_array_reads_zeros__after_a_run_left_its_buffer_dirty(void **state) {
    (void)state;
    Backend *b = open_emu();
    run_lua(b, "local a = gpu.array('f32', N, 'a'):fill(7)\n"
               "local c = gpu.array('i32', N, 'c'):iota(1)\n"
               "a:upload()\n"          /* a device copy too: it must not come back either */
               "assert(a[N - 1] == 7 and c[N - 1] == N)\n");
    /* The pool kept the buffers as the run left them: a buffer of that
     * size handed out now is a reused, dirty one (the clearing matters). */
    bool zeroed = true;
    float *p = b->ops->host_buffer_take(b, (size_t)N_ELEMS * 4, &zeroed);
    assert_non_null(p);
    assert_false(zeroed);
    assert_true(p[N_ELEMS - 1] == 7.0f || p[N_ELEMS - 1] == (float)N_ELEMS);
    b->ops->host_buffer_give(b, p);
    char code[2048];
    snprintf(code, sizeof code,
             "%s"
             "local a = gpu.array('f32', N, 'a')\n"
             "zeros(a, 'host copy of a reused buffer')\n"
             "local c = gpu.array('i32', N, 'c')\n"
             "zeros(c, 'host copy of another reused buffer')\n"
             "c:upload()\n"
             "c:fill(3)\n"         /* the host changes; the device keeps the zeros uploaded */
             "c:download()\n"
             "zeros(c, 'device copy')\n",
             all_zero);
    run_lua(b, code);
    backend_close(&b);
}

static void array_pool__pinned_and_views_of_pooled_buffers__free_cleanly(void **state) {
    (void)state;
    Backend *b = open_emu();
    for (int run = 0; run < 2; run++)
        run_lua(b, "local p = gpu.array('f32', N, 'p', { pinned = true }):fill(2)\n"
                   "assert(p[0] == 2 and p[N - 1] == 2)\n"
                   "local a = gpu.array('f32', N, 'a'):fill(5)\n"
                   "local v = a:view(N // 2, N // 2)\n"
                   "a = nil\n"                       /* the view keeps its parent's buffer */
                   "assert(v[0] == 5 and v[N // 2 - 1] == 5)\n"
                   "v:fill(6)\n"
                   "assert(v[N // 2 - 1] == 6)\n");
    backend_close(&b);
}

static void array_pool__fill_iota_copy_match_one_element_at_a_time__at_pool_sizes(void **state) {
    (void)state;
    Backend *b = open_emu();
    run_lua(b, "for _, dt in ipairs{ 'f32', 'f64', 'i32', 'u8', 'i16', 'f16', 'i64' } do\n"
               "  local a = gpu.array(dt, N + 3):fill(-2)\n"
               "  local want = dt:sub(1, 1) == 'u' and 254 or -2\n"
               "  for i = 0, N + 2, 4099 do assert(a[i] == want, dt .. ' fill at ' .. i) end\n"
               "  assert(a[N + 2] == want and a[N + 1] == want, dt .. ' fill at the end')\n"
               "  local z = gpu.array(dt, N + 3):fill(1):fill(0)\n"
               "  assert(z[N + 2] == 0 and z[0] == 0 and z[N // 2] == 0, dt .. ' fill(0)')\n"
               "  local r = gpu.array(dt, N + 3):iota(3, 2)\n"
               "  for _, i in ipairs{ 0, 1, 100, 2047, 2048, N // 2 + 1, N + 2 } do\n"
               "    local e = gpu.array(dt, 1):set{ 3 + 2 * i }\n"
               "    assert(r[i] == e[0], dt .. ' iota at ' .. i .. ': ' .. r[i] .. ' vs ' .. e[0])\n"
               "  end\n"
               "  local c = r:copy()\n"
               "  assert(c[N + 2] == r[N + 2] and c[1234] == r[1234] and c[0] == r[0], dt .. ' copy')\n"
               "end\n");
    backend_close(&b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(array_pool__new_array_reads_zeros__after_a_run_left_its_buffer_dirty),
        cmocka_unit_test(array_pool__pinned_and_views_of_pooled_buffers__free_cleanly),
        cmocka_unit_test(array_pool__fill_iota_copy_match_one_element_at_a_time__at_pool_sizes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
