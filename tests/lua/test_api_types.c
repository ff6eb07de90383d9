/* tests/lua/test_api_types.c: the fuller exercise API — f16/bf16 arrays
 * and scalars rounded to nearest-even (NaN, infinities, subnormals,
 * overflow), arrays of structs laid out as C lays them out, the numeric
 * helpers (gpu.round_f32, gpu.fma ...), views at an offset (bounds checked
 * as the view's on the emulator), the guard zone before an array, and
 * t:emu_options. Host-only cases run Lua snippets in a sandbox; kernel
 * cases run exercises on the emulator with NVRTC. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "lua/api.h"
#include "lua/exercise.h"
#include "lua/sandbox.h"
#include "tests/lua/lesson_fixture.h"

/* ---- host-only snippets ---- */

static void run_lua(const char *code) {
    Sandbox *sb = sandbox_new(NULL);
    api_install(sb);
    Diag *d = sandbox_load_string(sb, code, strlen(code), "lessons/test/types.lua");
    if (!d) d = sandbox_call(sb, 0, 0);
    if (d) {
        char *s = diag_format_all(d, false);
        diag_free(&d);
        sandbox_free(&sb);
        fail_msg("%s", s);
    }
    sandbox_free(&sb);
}

/* The error a snippet raises (caller frees), or NULL. */
static char *lua_error_of(const char *code) {
    Sandbox *sb = sandbox_new(NULL);
    api_install(sb);
    Diag *d = sandbox_load_string(sb, code, strlen(code), "lessons/test/types.lua");
    if (!d) d = sandbox_call(sb, 0, 0);
    char *s = d ? diag_format_all(d, false) : NULL;
    diag_free(&d);
    sandbox_free(&sb);
    return s;
}

static void expect_lua_error(const char *code, const char *needle) {
    char *e = lua_error_of(code);
    if (!e) fail_msg("no error from: %s", code);
    if (!strstr(e, needle)) fail_msg("error '%s' lacks '%s'", e, needle);
    free(e);
}

static void f16__rounds_to_nearest_even_with_subnormals_overflow_and_nan(void **state) {
    (void)state;
    assert_int_equal(f16_from_double(1.0), 0x3c00);
    assert_int_equal(f16_from_double(-0.0), 0x8000);
    assert_int_equal(f16_from_double(65504.0), 0x7bff);
    assert_int_equal(f16_from_double(65519.99), 0x7bff);
    assert_int_equal(f16_from_double(65520.0), 0x7c00);            /* the halfway case rounds up: infinity */
    assert_int_equal(f16_from_double(-1e300), 0xfc00);
    assert_int_equal(f16_from_double(ldexp(1, -24)), 0x0001);      /* smallest subnormal */
    assert_int_equal(f16_from_double(ldexp(1, -25)), 0x0000);      /* halfway to it: ties to even (0) */
    assert_int_equal(f16_from_double(ldexp(3, -25)), 0x0002);      /* 1.5 units: ties to even (2) */
    assert_int_equal(f16_from_double(ldexp(1023, -24)), 0x03ff);   /* largest subnormal */
    assert_int_equal(f16_from_double(ldexp(2047, -25)), 0x0400);   /* rounds up into the normals */
    assert_int_equal(f16_from_double(1 + ldexp(1, -11)), 0x3c00);  /* tie: to the even 1.0 */
    assert_int_equal(f16_from_double(1 + ldexp(3, -11)), 0x3c02);  /* tie: to the even neighbour above */
    assert_int_equal(f16_from_double(1 + ldexp(1, -11) + ldexp(1, -40)), 0x3c01);  /* just past the tie */
    assert_int_equal(f16_from_double(NAN), 0x7e00);
    assert_true(isnan(f16_to_double(0x7e01)));
    assert_true(isinf(f16_to_double(0xfc00)) && f16_to_double(0xfc00) < 0);
    assert_true(f16_to_double(0x0001) == ldexp(1, -24));
    /* every value comes back to its own bits */
    for (uint32_t h = 0; h < 0x10000; h++)
        if (!isnan(f16_to_double((uint16_t)h))) assert_int_equal(f16_from_double(f16_to_double((uint16_t)h)), h);
#ifdef __FLT16_MAX__
    /* and agrees with the compiler's own double -> _Float16 conversion */
    uint64_t s = 1;
    for (int i = 0; i < 200000; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        double x = ldexp((double)(s >> 11), -53) * ldexp(1, (int)(s % 48) - 30) * ((s >> 7) & 1 ? -1 : 1);
        _Float16 h = (_Float16)x;
        uint16_t bits;
        memcpy(&bits, &h, 2);
        if (f16_from_double(x) != bits) fail_msg("f16(%a): %04x, the compiler says %04x", x, f16_from_double(x), bits);
    }
#endif
}

static void bf16__rounds_to_nearest_even_with_subnormals_overflow_and_nan(void **state) {
    (void)state;
    assert_int_equal(bf16_from_double(1.0), 0x3f80);
    assert_int_equal(bf16_from_double(1 + ldexp(1, -8)), 0x3f80);   /* tie: even */
    assert_int_equal(bf16_from_double(1 + ldexp(3, -8)), 0x3f82);   /* tie: even, above */
    assert_int_equal(bf16_from_double(ldexp(255, 120)), 0x7f7f);     /* largest finite */
    assert_int_equal(bf16_from_double(ldexp(511, 119)), 0x7f80);     /* halfway past it: infinity */
    assert_int_equal(bf16_from_double(ldexp(1, -133)), 0x0001);      /* smallest subnormal */
    assert_int_equal(bf16_from_double(ldexp(1, -134)), 0x0000);
    assert_int_equal(bf16_from_double(-INFINITY), 0xff80);
    assert_int_equal(bf16_from_double(NAN), 0x7fc0);
    for (uint32_t h = 0; h < 0x10000; h++)
        if (!isnan(bf16_to_double((uint16_t)h))) assert_int_equal(bf16_from_double(bf16_to_double((uint16_t)h)), h);
}

static void half_arrays__store_the_nearest_value_and_compare_by_value(void **state) {
    (void)state;
    run_lua("local a = gpu.array('f16', 6):set{ 1, 65504, 1e6, 1e-8, 4e-8, -0.1 }\n"
            "assert(a.dtype == 'f16' and #a == 6)\n"
            "assert(a[0] == 1 and a[1] == 65504 and a[2] == math.huge, 'overflow to inf')\n"
            "assert(a[3] == 0 and a[4] == 2^-24, 'subnormals: ' .. a[4])\n"
            "assert(a[5] == -0.0999755859375, 'nearest f16 of -0.1: ' .. a[5])\n"
            "a[0] = 0/0\n"
            "assert(a[0] ~= a[0], 'NaN stays NaN')\n"
            "local b = gpu.array('bf16', 2):set{ 1/3, -3e38 * 10 }\n"
            "assert(b[0] == 0.333984375 and b[1] == -math.huge, 'bf16 ' .. b[0])\n"
            "local r = gpu.array('f16', 5000):random{ lo = 0, hi = 1, seed = 3 }\n"
            "for i = 0, #r - 1 do assert(r[i] >= 0 and r[i] < 1, 'random in [0, 1): ' .. r[i]) end\n"
            "local s = ref.sort(gpu.array('f16', 3):set{ 2, -1, 0.5 })\n"
            "assert(s[0] == -1 and s[1] == 0.5 and s[2] == 2)\n"
            "local h = ref.add(gpu.array('f16', 1):set{ 2048 }, gpu.array('f16', 1):set{ 1 })\n"
            "assert(h.dtype == 'f16' and h[0] == 2048, 'sum rounded once to f16 (2049 ties to 2048)')\n"
            "assert(tostring(gpu.f16(0.1)) == 'gpu.f16(0.0999755859375)', tostring(gpu.f16(0.1)))\n"
            "assert(tostring(gpu.bf16(1/3)) == 'gpu.bf16(0.333984375)')\n"
            "assert(tostring(gpu.f32(0.1)) == 'gpu.f32(0.10000000149012)', tostring(gpu.f32(0.1)))\n");
}

static void random_with_a_step__draws_only_the_grid_below_hi(void **state) {
    (void)state;
    run_lua("local seen = {}\n"
            "for _, dt in ipairs{ 'f32', 'f16', 'f64' } do\n"
            "  local a = gpu.array(dt, 4000):random{ lo = -2, hi = 2, step = 0.25, seed = 7 }\n"
            "  for i = 0, #a - 1 do\n"
            "    local k = (a[i] + 2) / 0.25\n"
            "    assert(k == math.floor(k) and a[i] >= -2 and a[i] < 2, dt .. ': not a quarter in [-2, 2): ' .. a[i])\n"
            "    seen[a[i]] = true\n"
            "  end\n"
            "end\n"
            "local n = 0 for _ in pairs(seen) do n = n + 1 end\n"
            "assert(n == 16, 'every one of the 16 quarters is drawn: ' .. n)\n"
            "local b = gpu.array('f32', 100):random{ lo = 0, hi = 1, step = 0.3, seed = 1 }\n"
            "for i = 0, #b - 1 do assert(b[i] == 0 or b[i] == gpu.round_f32(0.3) or b[i] == gpu.round_f32(0.6)\n"
            "  or b[i] == gpu.round_f32(0.9), 'a step that does not divide the range: ' .. b[i]) end\n");
    expect_lua_error("gpu.array('i32', 4):random{ lo = 0, hi = 9, step = 2 }", "step is for float arrays");
    expect_lua_error("gpu.array('f32', 4):random{ lo = 0, hi = 1, step = -1 }", "must be a positive number");
    expect_lua_error("gpu.array('f32', 4):random{ lo = 1, hi = 1, step = 0.5 }", "holds no steps");
}

static void structs__are_laid_out_as_c_lays_them_out(void **state) {
    (void)state;
    run_lua("local P = gpu.struct{ {'x', 'f32'}, {'y', 'f32'}, {'m', 'i32'} }\n"
            "assert(P.size == 12 and P.align == 4 and P:offset('m') == 8)\n"
            "local Q = gpu.struct{ {'c', 'i8'}, {'d', 'f64'}, {'s', 'i16'} }\n"
            "assert(Q:offset('c') == 0 and Q:offset('d') == 8 and Q:offset('s') == 16 and Q.size == 24, 'padding')\n"
            "local H = gpu.struct{ {'h', 'f16'}, {'f', 'f32'}, {'b', 'u8'} }\n"
            "assert(H:offset('f') == 4 and H:offset('b') == 8 and H.size == 12)\n"
            "assert(tostring(P) == 'struct { f32 x; f32 y; i32 m; } (12 bytes)', tostring(P))\n"
            "assert(P.fields[3][1] == 'm' and P.fields[3][2] == 'i32' and P.fields[3][3] == 8)\n");
}

static void struct_arrays__read_and_write_fields_of_elements(void **state) {
    (void)state;
    run_lua("local P = gpu.struct{ {'x', 'f32'}, {'y', 'f32'}, {'m', 'i32'} }\n"
            "local p = gpu.array(P, 4)\n"
            "assert(#p == 4 and p.dtype == 'struct' and p.struct.size == 12)\n"
            "p[1].x = 1.5\n"
            "p[1] = { m = 7 }\n"
            "assert(p[1].x == 1.5 and p[1].m == 7 and p:get(1).y == 0, 'fields not given keep their values')\n"
            "p[2] = p[1]\n"
            "assert(p[2].m == 7 and tostring(p[2]) == '{x = 1.5, y = 0, m = 7}', tostring(p[2]))\n"
            "p:set_field('y', gpu.array('f32', 4):iota(10))\n"
            "local ys = p:field('y')\n"
            "assert(ys.dtype == 'f32' and ys[3] == 13 and ys.name == 'p.y', ys.name)\n"
            "p:set_field('m', 5)\n"
            "assert(p:to_table()[4].m == 5 and p:to_table()[2].x == 1.5)\n"
            "local q = p:copy()\n"
            "q[0].x = 9\n"
            "assert(q[0].x == 9 and p[0].x == 0, 'copy is a copy')\n"
            "local inline = gpu.array({ {'a', 'u8'}, {'b', 'f64'} }, 2)\n"
            "assert(inline.struct.size == 16)\n");
}

static void struct_arrays__refuse_mistakes_with_a_message(void **state) {
    (void)state;
    expect_lua_error("gpu.array({ x = 'f32', y = 'f32' }, 4)", "need an order");
    expect_lua_error("local p = gpu.array(gpu.struct{ {'x', 'f32'}, {'m', 'i32'} }, 2)\nlocal v = p[0].z",
                     "the struct has no field 'z'");
    expect_lua_error("local p = gpu.array(gpu.struct{ {'x', 'f32'}, {'m', 'i32'} }, 2)\np[0].m = 1.5",
                     "p[0].m is i32 (an integer); 1.5 is not an integer");
    expect_lua_error("local p = gpu.array(gpu.struct{ {'x', 'f32'} }, 2)\nref.sum(p)", "p:field(\"x\")");
    expect_lua_error("gpu.struct{ {'x', 'f33'} }", "field 'x' has type f33");
    expect_lua_error("gpu.struct{ {'x', 'f32'}, {'x', 'i32'} }", "there twice");
}

static void helpers__round_like_the_gpu(void **state) {
    (void)state;
    run_lua("assert(gpu.round_f32(0.1) == 0.100000001490116119384765625)\n"
            "assert(0.1 * 10 - 1 == 0 and gpu.fma(0.1, 10, -1) == 2^-54, 'fma rounds once')\n"
            "local x = 1 + 2^-12\n"
            "assert(gpu.fmaf(x, x, -1) == 2^-11 + 2^-24, 'fmaf: one f32 rounding')\n"
            "assert(gpu.round_f32(gpu.round_f32(x * x) - 1) == 2^-11, 'two roundings lose the 2^-24')\n"
            "assert(gpu.trunc(-2.7) == -2 and math.type(gpu.trunc(5)) == 'integer')\n"
            "local m, e = gpu.frexp(8)\n"
            "assert(m == 0.5 and e == 4 and gpu.ldexp(m, e) == 8)\n"
            "assert(math.abs(gpu.tanh(0.5) - 0.46211715726000974) < 1e-16)\n"
            "assert(gpu.round_f16(65520) == math.huge and gpu.round_bf16(1 + 2^-8) == 1)\n");
}

static void views__read_and_write_their_parent(void **state) {
    (void)state;
    run_lua("local a = gpu.array('f32', 10):iota()\n"
            "local v = a:view(2, 3)\n"
            "assert(#v == 3 and v[0] == 2 and v[2] == 4)\n"
            "v[1] = 70\n"
            "assert(a[3] == 70, 'a write through the view is in the parent')\n"
            "a[4] = 40\n"
            "assert(v[2] == 40, 'and the other way')\n"
            "local w = v:view(1, 2)\n"
            "assert(w[0] == 70 and w[1] == 40, 'a view of a view')\n"
            "assert(ref.sum(v) == 2 + 70 + 40)\n"
            "local tail = a:view(7)\n"
            "assert(#tail == 3, 'n defaults to the rest')\n");
    expect_lua_error("local a = gpu.array('f32', 10)\nlocal v = a:view(8, 3)", "a view is at most offset..10");
    expect_lua_error("local a = gpu.array('f32', 10)\nlocal v = a:view(2, 3)\nlocal x = v[3]", "out of range");
    expect_lua_error("local a = gpu.array('f32', 10, { init = false })\nlocal v = a:view(2, 3)", "init = false");
}

/* ---- kernels on the emulator ---- */

static const char *const kernels_cu =
    "#include <cuda_fp16.h>\n"
    "struct P { float x; float y; int m; };\n"
    "struct Q { char c; double d; short s; };\n"
    "extern \"C\" __global__ void step(P *p, int n) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) { p[i].x += p[i].y; p[i].m = 2 * i; }\n"
    "}\n"
    "extern \"C\" __global__ void pad(Q *q, int n) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) { q[i].d = q[i].c + 0.5; q[i].s = (short)-i; }\n"
    "}\n"
    "extern \"C\" __global__ void hscale(const __half *a, __half *b, __half s, int n) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) b[i] = __hmul(a[i], s);\n"
    "}\n"
    "extern \"C\" __global__ void fill(float *x, int n) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) x[i] = 1.0f;\n"
    "}\n"
    "extern \"C\" __global__ void before(float *x) {\n"
    "    x[(int)threadIdx.x - 1] = 2.0f;\n"
    "}\n"
    "extern \"C\" __global__ void spin(int *x) {\n"
    "    while (x[0] == 0) { }\n"
    "}\n";

static const char *const ex_lua =
    "return {\n"
    "  id = 'types',\n"
    "  source = 'k.cu',\n"
    "  hints = { 'a', 'b' },\n"
    "  run = function(t)\n"
    "    local mode = t:param('mode', 'struct')\n"
    "    if mode == 'struct' then\n"
    "      local P = gpu.struct{ {'x', 'f32'}, {'y', 'f32'}, {'m', 'i32'} }\n"
    "      local p = gpu.array(P, 300)\n"
    "      p:set_field('x', gpu.array('f32', 300):iota())\n"
    "      p:set_field('y', 0.25)\n"
    "      t:kernel('step'):launch{ grid = 2, block = 256, args = { p, gpu.i32(300) } }\n"
    "      t:expect_equal(p:field('x'), ref.map(gpu.array('f32', 300):iota(), function(x) return x + 0.25 end))\n"
    "      t:expect_equal(p:field('m'), gpu.array('i32', 300):iota(0, 2))\n"
    "      local Q = gpu.struct{ {'c', 'i8'}, {'d', 'f64'}, {'s', 'i16'} }\n"
    "      local q = gpu.array(Q, 5)\n"
    "      for i = 0, 4 do q[i].c = i - 2 end\n"
    "      t:kernel('pad'):launch{ grid = 1, block = 32, args = { q, gpu.i32(5) } }\n"
    "      t:expect_equal(q:field('d'), { -1.5, -0.5, 0.5, 1.5, 2.5 }, { name = 'q.d' })\n"
    "      t:expect_equal(q:field('s'), { 0, -1, -2, -3, -4 }, { name = 'q.s' })\n"
    "      t:expect_equal(q:field('c'), { -2, -1, 0, 1, 2 }, { name = 'q.c' })\n"
    "    elseif mode == 'half' then\n"
    "      local a = gpu.array('f16', 1000):random{ lo = -2, hi = 2, seed = 5 }\n"
    "      local b = gpu.array('f16', 1000)\n"
    "      t:kernel('hscale'):launch{ grid = 4, block = 256, args = { a, b, gpu.f16(0.1), gpu.i32(1000) } }\n"
    "      local s = gpu.round_f16(0.1)\n"
    "      t:expect_equal(b, ref.map(a, function(x) return x * s end))\n"
    "    elseif mode == 'view' or mode == 'view-over' then\n"
    "      local a = gpu.array('f32', 100)\n"
    "      local v = a:view(10, 20)\n"
    "      t:kernel('fill'):launch{ grid = 1, block = 32, args = { v, gpu.i32(mode == 'view' and 20 or 21) } }\n"
    "      t:expect_equal(a:view(0, 10), 0, { name = 'before the view' })\n"
    "      t:expect_equal(v, 1, { name = 'the view' })\n"
    "      if mode == 'view' then t:expect_equal(a:view(30), 0, { name = 'after the view' }) end\n"
    "    elseif mode == 'before' then\n"
    "      local other = gpu.array('f32', 64)\n"
    "      local a = gpu.array('f32', 64)\n"
    "      -- a's buffer first, then other's: mmap puts other just below a, so without a guard\n"
    "      -- zone a[-1] would be in other's red zone and named other[...]\n"
    "      t:kernel('fill'):launch{ grid = 1, block = 64, args = { a, gpu.i32(64) } }\n"
    "      t:kernel('fill'):launch{ grid = 1, block = 64, args = { other, gpu.i32(64) } }\n"
    "      t:kernel('before'):launch{ grid = 1, block = 32, args = { a } }\n"
    "    elseif mode == 'budget' then\n"
    "      local o = t:emu_options{ adversarial = false, seed = 7, instruction_budget = 5000 }\n"
    "      t:expect(o.adversarial == false and o.seed == 7 and o.instruction_budget == 5000 and o.devices == 1,\n"
    "               'options in force')\n"
    "      t:kernel('spin'):launch{ grid = 1, block = 32, args = { gpu.array('i32', 1) } }\n"
    "    elseif mode == 'typo' then\n"
    "      t:emu_options{ adversarail = false }\n"
    "    end\n"
    "  end,\n"
    "}\n";

static RunResult *run_mode(const char *mode) {
    char *root = fixture_tmpdir(), *cache = path_join(root, "cache");
    fixture_write(root, "lessons/01-a/chapter.lua", "return { id = 'a', order = 1, exercises = { 'types' } }\n");
    fixture_write(root, "lessons/01-a/types.lua", ex_lua);
    fixture_write(root, "lessons/01-a/k.cu", kernels_cu);
    fixture_write(root, "lessons/01-a/solutions/k.cu", kernels_cu);
    char *lessons = path_join(root, "lessons"), *cu = path_join(root, "lessons/01-a/k.cu");
    Course *course = NULL;
    Diag *d = course_load(lessons, &course);
    if (d) fail_msg("%s", d->message);
    EmuOptions eo = {.metrics = true, .checks = true, .adversarial = true};
    Diag *why = NULL;
    Backend *b = emu_backend_new(&eo, &why);
    if (!b) fail_msg("emulator: %s", why ? why->message : "?");
    const char *keys[] = {"mode"}, *vals[] = {mode};
    ExerciseRunOptions o = {.cu_path = cu, .cu_display = "k.cu", .cache_dir = cache, .param_keys = keys,
                            .param_values = vals, .n_params = 1};
    RunResult *r = exercise_run(course_find_exercise(course, "types", NULL), b, &o);
    EmuOptions after;
    b->ops->emu_options_get(b, &after);
    assert_true(after.adversarial && !after.seed && !after.instruction_budget);   /* the run's options are undone */
    backend_close(&b);
    course_free(&course);
    free(lessons);
    free(cu);
    free(cache);
    fixture_remove(&root);
    return r;
}

static const Diag *find_code(const RunResult *r, const char *code) {
    for (const Diag *d = r->diags; d; d = d->next)
        if (d->code && !strcmp(d->code, code)) return d;
    return NULL;
}

static void expect_pass(RunResult *r) {
    if (r->verdict != VERDICT_PASS) run_result_print(r, stderr, false);
    assert_int_equal(r->verdict, VERDICT_PASS);
}

static void struct_kernel__reads_and_writes_the_c_layout(void **state) {
    (void)state;
    RunResult *r = run_mode("struct");
    expect_pass(r);
    assert_int_equal(r->n_checks, 5);
    run_result_free(&r);
}

static void half_kernel__matches_the_reference_rounded_once(void **state) {
    (void)state;
    RunResult *r = run_mode("half");
    expect_pass(r);
    run_result_free(&r);
}

static void view_kernel__writes_only_inside_the_view(void **state) {
    (void)state;
    RunResult *r = run_mode("view");
    expect_pass(r);
    assert_null(find_code(r, "oob-global"));
    run_result_free(&r);
}

static void view_kernel__past_the_view_is_out_of_bounds_inside_the_parent(void **state) {
    (void)state;
    RunResult *r = run_mode("view-over");
    const Diag *d = find_code(r, "oob-global");
    if (!d) run_result_print(r, stderr, false);
    assert_non_null(d);
    assert_non_null(strstr(d->message, "v[20] but v has 20 elements"));
    assert_int_equal(r->verdict, VERDICT_FAIL);
    run_result_free(&r);
}

static void guard_before__an_access_just_before_an_array_names_it(void **state) {
    (void)state;
    RunResult *r = run_mode("before");
    const Diag *d = find_code(r, "oob-global");
    if (!d) run_result_print(r, stderr, false);
    assert_non_null(d);
    if (!strstr(d->message, "a[-1] but a has 64 elements")) fail_msg("%s", d->message);
    run_result_free(&r);
}

static void emu_options__budget_and_seed_apply_to_the_next_launches(void **state) {
    (void)state;
    RunResult *r = run_mode("budget");
    const Diag *d = find_code(r, "did-not-finish");
    if (!d) run_result_print(r, stderr, false);
    assert_non_null(d);
    assert_int_equal(r->n_checks, 1);
    assert_true(r->checks[0].passed);
    run_result_free(&r);
}

static void emu_options__unknown_option_is_an_exercise_error_with_a_suggestion(void **state) {
    (void)state;
    RunResult *r = run_mode("typo");
    assert_int_equal(r->verdict, VERDICT_EXERCISE_ERROR);
    assert_non_null(strstr(r->summary, "did you mean 'adversarial'?"));
    run_result_free(&r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(f16__rounds_to_nearest_even_with_subnormals_overflow_and_nan),
        cmocka_unit_test(bf16__rounds_to_nearest_even_with_subnormals_overflow_and_nan),
        cmocka_unit_test(half_arrays__store_the_nearest_value_and_compare_by_value),
        cmocka_unit_test(random_with_a_step__draws_only_the_grid_below_hi),
        cmocka_unit_test(structs__are_laid_out_as_c_lays_them_out),
        cmocka_unit_test(struct_arrays__read_and_write_fields_of_elements),
        cmocka_unit_test(struct_arrays__refuse_mistakes_with_a_message),
        cmocka_unit_test(helpers__round_like_the_gpu),
        cmocka_unit_test(views__read_and_write_their_parent),
        cmocka_unit_test(struct_kernel__reads_and_writes_the_c_layout),
        cmocka_unit_test(half_kernel__matches_the_reference_rounded_once),
        cmocka_unit_test(view_kernel__writes_only_inside_the_view),
        cmocka_unit_test(view_kernel__past_the_view_is_out_of_bounds_inside_the_parent),
        cmocka_unit_test(guard_before__an_access_just_before_an_array_names_it),
        cmocka_unit_test(emu_options__budget_and_seed_apply_to_the_next_launches),
        cmocka_unit_test(emu_options__unknown_option_is_an_exercise_error_with_a_suggestion),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
