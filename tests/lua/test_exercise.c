/* tests/lua/test_exercise.c: exercise_run end to end on the fake backend:
 * the learner's .cu really compiles (NVRTC), the "kernel" is a C function,
 * and the verdict, summary, check messages and diagnostics are what a
 * learner or an author would read. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "kernels/compile.h"
#include "lua/exercise.h"
#include "tests/lua/lesson_fixture.h"
#include "tests/support/fake_backend.h"

static const char *const vector_add_cu =
    "// vector-add.cu\n"
    "__global__ void vector_add(const float *a, const float *b, float *c, int n) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) c[i] = a[i] + b[i];\n"
    "}\n";

static const char *const vector_add_lua =
    "return {\n"
    "  id = 'vector-add',\n"
    "  source = 'vector-add.cu',\n"
    "  hints = { 'a', 'b' },\n"
    "  run = function(t)\n"
    "    local n = t:param('n', 1003)\n"
    "    local a = gpu.array('f32', n):iota(1, 1)\n"
    "    local b = gpu.array('f32', n):fill(1)\n"
    "    local c = gpu.array('f32', n)\n"
    "    t:kernel('vector_add'):launch{ grid = (n + 255) // 256, block = 256, args = { a, b, c, gpu.i32(n) } }\n"
    "    t:expect_close(c, ref.add(a, b), { rel = 1e-5 })\n"
    "  end,\n"
    "}\n";

typedef struct Fixture {
    char *root;
    char *cache;
    Course *course;
    Backend *b;
    RunResult *r;
} Fixture;

static int32_t arg_i32(const KernelArg *a) {
    int32_t v;
    memcpy(&v, a->bytes, sizeof v);
    return v;
}

static void k_vector_add(Dim3 grid, Dim3 block, const KernelArg *args, int nargs, void *user) {
    (void)user;
    assert_int_equal(nargs, 4);
    const float *a = fake_ptr(&args[0]), *b = fake_ptr(&args[1]);
    float *c = fake_ptr(&args[2]);
    int n = arg_i32(&args[3]);
    for (unsigned i = 0; i < grid.x * block.x; i++)
        if ((int)i < n) c[i] = a[i] + b[i];
}

/* The typical mistake: forgets b. */
static void k_vector_add_wrong(Dim3 grid, Dim3 block, const KernelArg *args, int nargs, void *user) {
    (void)user;
    (void)nargs;
    const float *a = fake_ptr(&args[0]);
    float *c = fake_ptr(&args[2]);
    int n = arg_i32(&args[3]);
    for (unsigned i = 0; i < grid.x * block.x; i++)
        if ((int)i < n) c[i] = a[i];
}

static int setup(void **state) {
    Fixture *f = xcalloc(1, sizeof *f);
    f->root = fixture_tmpdir();
    f->cache = path_join(f->root, "cache");
    fixture_write(f->root, "lessons/01-a/chapter.lua", "return { id = 'a', order = 1, exercises = { 'vector-add' } }\n");
    fixture_write(f->root, "lessons/01-a/vector-add.cu", vector_add_cu);
    fixture_write(f->root, "lessons/01-a/solutions/vector-add.cu", vector_add_cu);
    f->b = fake_backend_new();
    *state = f;
    return 0;
}

static int teardown(void **state) {
    Fixture *f = *state;
    run_result_free(&f->r);
    course_free(&f->course);
    backend_close(&f->b);
    free(f->cache);
    fixture_remove(&f->root);
    free(f);
    return 0;
}

/* Writes the exercise (and optionally the learner's .cu), loads the course and runs it. */
static RunResult *run_ex(Fixture *f, const char *lua, const char *cu, const char *const *keys,
                         const char *const *vals, int n_params) {
    fixture_write(f->root, "lessons/01-a/vector-add.lua", lua);
    if (cu) fixture_write(f->root, "lessons/01-a/vector-add.cu", cu);
    course_free(&f->course);
    char *lessons = path_join(f->root, "lessons");
    Diag *d = course_load(lessons, &f->course);
    free(lessons);
    if (diag_count_errors(d)) fail_msg("course: %s:%d: %s", d->file, d->line, d->message);
    diag_free(&d);
    const ExerciseMeta *ex = course_find_exercise(f->course, "vector-add", NULL);
    assert_non_null(ex);
    char *cu_path = path_join(f->root, "lessons/01-a/vector-add.cu");
    ExerciseRunOptions o = {.cu_path = cu_path, .cu_display = "vector-add.cu", .param_keys = keys,
                            .param_values = vals, .n_params = n_params, .cache_dir = f->cache};
    run_result_free(&f->r);
    f->r = exercise_run(ex, f->b, &o);
    free(cu_path);
    /* Every device buffer of the run is freed by its end, whatever happened. */
    assert_int_equal(fake_backend_live_allocations(f->b), 0);
    return f->r;
}

/* The learner's file kept apart from the course (a workspace copy), the
 * exercise's starter left as the fixture wrote it. */
static RunResult *run_learner(Fixture *f, const char *lua, const char *cu) {
    fixture_write(f->root, "lessons/01-a/vector-add.lua", lua);
    fixture_write(f->root, "ws/a/vector-add.cu", cu);
    course_free(&f->course);
    char *lessons = path_join(f->root, "lessons");
    Diag *d = course_load(lessons, &f->course);
    free(lessons);
    if (diag_count_errors(d)) fail_msg("course: %s:%d: %s", d->file, d->line, d->message);
    diag_free(&d);
    char *cu_path = path_join(f->root, "ws/a/vector-add.cu");
    ExerciseRunOptions o = {.cu_path = cu_path, .cu_display = "vector-add.cu", .cache_dir = f->cache};
    run_result_free(&f->r);
    f->r = exercise_run(course_find_exercise(f->course, "vector-add", NULL), f->b, &o);
    free(cu_path);
    return f->r;
}

static void print_result(const RunResult *r) {
    if (r->verdict != VERDICT_PASS) run_result_print(r, stderr, false);
}

static void exercise__passes__when_kernel_correct(void **state) {
    Fixture *f = *state;
    fake_backend_register(f->b, "vector_add", k_vector_add, NULL);
    RunResult *r = run_ex(f, vector_add_lua, NULL, NULL, NULL, 0);
    print_result(r);
    assert_int_equal(r->verdict, VERDICT_PASS);
    assert_string_equal(r->summary, "1 check passed");
    assert_string_equal(r->exercise_id, "vector-add");
    assert_string_equal(r->backend, "fake");
    assert_int_equal(r->n_checks, 1);
    assert_string_equal(r->checks[0].name, "c");
    assert_int_equal(r->checks[0].n_total, 1003);
    /* Device buffers are labelled with the Lua local names. */
    assert_true(fake_backend_saw_label(f->b, "a"));
    assert_true(fake_backend_saw_label(f->b, "c"));
    assert_int_equal(json_integer_value(json_object_get(r->metrics, "launches")), 1);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(r->metrics, "params"), "n")), 1003);
}

/* run(t) may require the chapter's modules: the helper launches and checks;
 * an error inside the helper names the module's line. */
static void exercise__run_uses_a_chapter_module__and_its_errors_name_the_module_line(void **state) {
    Fixture *f = *state;
    fake_backend_register(f->b, "vector_add", k_vector_add, NULL);
    fixture_write(f->root, "lessons/01-a/lib/vadd.lua",
                  "local vadd = {}\n"
                  "-- adds n elements with kernel k and checks c\n"
                  "function vadd.check(t, k, n)\n"
                  "  local a = gpu.array('f32', n):iota(1, 1)\n"
                  "  local b = gpu.array('f32', n):fill(1)\n"
                  "  local c = gpu.array('f32', n)\n"
                  "  k:launch{ grid = (n + 255) // 256, block = 256, args = { a, b, c, gpu.i32(n) } }\n"
                  "  return t:expect_close(c, ref.add(a, b), { rel = 1e-5 })\n"
                  "end\n"
                  "return vadd\n");
    static const char *const lua =
        "return {\n"
        "  id = 'vector-add', source = 'vector-add.cu', hints = { 'a', 'b' },\n"
        "  run = function(t)\n"
        "    local vadd = require('vadd')\n"
        "    vadd.check(t, t:kernel('vector_add'), t:param('n', 1003))\n"
        "  end,\n"
        "}\n";
    RunResult *r = run_ex(f, lua, NULL, NULL, NULL, 0);
    print_result(r);
    assert_int_equal(r->verdict, VERDICT_PASS);
    assert_int_equal(r->n_checks, 1);
    assert_int_equal(r->checks[0].n_total, 1003);
    /* n = -1: gpu.array refuses it inside the helper */
    const char *keys[] = {"n"}, *vals[] = {"-1"};
    r = run_ex(f, lua, NULL, keys, vals, 1);
    assert_int_equal(r->verdict, VERDICT_EXERCISE_ERROR);
    assert_non_null(r->diags);
    assert_string_equal(r->diags->file, "lessons/01-a/lib/vadd.lua");
    assert_int_equal(r->diags->line, 4);
}

static void exercise__fails_with_mismatch_message__when_kernel_wrong(void **state) {
    Fixture *f = *state;
    fake_backend_register(f->b, "vector_add", k_vector_add_wrong, NULL);
    RunResult *r = run_ex(f, vector_add_lua, NULL, NULL, NULL, 0);
    assert_int_equal(r->verdict, VERDICT_FAIL);
    assert_string_equal(r->summary, "c: 1003 elements wrong of 1003");
    assert_int_equal(r->n_checks, 1);
    const CheckResult *c = &r->checks[0];
    assert_false(c->passed);
    assert_string_equal(c->message, "1003 elements wrong of 1003; first at [0]: got 1, want 2 (allowed error 2.1e-05)");
    assert_int_equal(c->n_wrong, 1003);
    assert_int_equal(c->n_mismatches, 8);
    assert_int_equal(c->mismatches[7].index, 7);
    assert_string_equal(c->mismatches[7].got, "8");
    assert_string_equal(c->mismatches[7].want, "9");
}

static void exercise__param_override__changes_size(void **state) {
    Fixture *f = *state;
    fake_backend_register(f->b, "vector_add", k_vector_add, NULL);
    const char *keys[] = {"n"}, *vals[] = {"10"};
    RunResult *r = run_ex(f, vector_add_lua, NULL, keys, vals, 1);
    print_result(r);
    assert_int_equal(r->verdict, VERDICT_PASS);
    assert_int_equal(r->checks[0].n_total, 10);
}

static void exercise__compile_error__maps_to_cu_line(void **state) {
    Fixture *f = *state;
    fake_backend_register(f->b, "vector_add", k_vector_add, NULL);
    RunResult *r = run_ex(f, vector_add_lua,
                          "__global__ void vector_add(const float *a, const float *b, float *c, int n) {\n"
                          "    int i = blockIdx.x * blockDim.x + threadIdx.x\n"
                          "    if (i < n) c[i] = a[i] + b[i];\n"
                          "}\n",
                          NULL, NULL, 0);
    assert_int_equal(r->verdict, VERDICT_COMPILE_ERROR);
    assert_non_null(r->diags);
    assert_string_equal(r->diags->file, "vector-add.cu");
    assert_true(r->diags->line == 2 || r->diags->line == 3);
    assert_int_equal(r->n_checks, 0);
    assert_int_equal(fake_backend_launches(f->b), 0);
}

static void exercise__compile_error__when_kernel_renamed(void **state) {
    Fixture *f = *state;
    RunResult *r = run_learner(f, vector_add_lua,
                               "__global__ void vadd(const float *a, const float *b, float *c, int n) {}\n");
    assert_int_equal(r->verdict, VERDICT_COMPILE_ERROR);
    assert_non_null(strstr(r->summary, "there is no kernel named 'vector_add' in vector-add.cu (it has: vadd"));
}

static void exercise__exercise_error__when_the_exercise_names_a_kernel_its_starter_lacks(void **state) {
    Fixture *f = *state;
    RunResult *r = run_learner(f,
                               "return {\n  id = 'vector-add',\n  source = 'vector-add.cu',\n  hints = {'a','b'},\n"
                               "  run = function(t)\n"
                               "    t:kernel('vectr_add')\n"
                               "  end,\n}\n",
                               vector_add_cu);
    if (r->verdict != VERDICT_EXERCISE_ERROR) run_result_print(r, stderr, false);
    assert_int_equal(r->verdict, VERDICT_EXERCISE_ERROR);   /* the author's typo, not the learner's compile error */
    assert_non_null(r->diags);
    assert_non_null(strstr(r->diags->message, "vector-add.lua:6:"));
    assert_non_null(strstr(r->diags->message, "'vectr_add', which its own starter vector-add.cu does not define"));
}

static void exercise__exercise_error__names_lua_line(void **state) {
    Fixture *f = *state;
    RunResult *r = run_ex(f,
                          "return {\n  id = 'vector-add',\n  source = 'vector-add.cu',\n  hints = {'a','b'},\n"
                          "  run = function(t)\n"
                          "    local a = gpu.array('f32', 10)\n"
                          "    local x = a[10]\n"
                          "  end,\n}\n",
                          NULL, NULL, NULL, 0);
    assert_int_equal(r->verdict, VERDICT_EXERCISE_ERROR);
    assert_string_equal(r->diags->file, "lessons/01-a/vector-add.lua");
    assert_int_equal(r->diags->line, 7);
    assert_string_equal(r->diags->message,
                        "index 10 is out of range for a (10 elements: indices 0..9; arrays are 0-based)");
    assert_string_equal(r->summary, "exercise script error: lessons/01-a/vector-add.lua:7: index 10 is out of range "
                                    "for a (10 elements: indices 0..9; arrays are 0-based)");
}

static void exercise__refuses_plain_number_arg(void **state) {
    Fixture *f = *state;
    fake_backend_register(f->b, "vector_add", k_vector_add, NULL);
    RunResult *r = run_ex(f,
                          "return {\n  id = 'vector-add',\n  source = 'vector-add.cu',\n  hints = {'a','b'},\n"
                          "  run = function(t)\n"
                          "    local a = gpu.array('f32', 10)\n"
                          "    t:kernel('vector_add'):launch{ grid = 1, block = 32, args = { a, a, a, 10 } }\n"
                          "  end,\n}\n",
                          NULL, NULL, NULL, 0);
    assert_int_equal(r->verdict, VERDICT_EXERCISE_ERROR);
    assert_int_equal(r->diags->line, 7);
    assert_non_null(strstr(r->diags->message, "args[4] is a plain Lua number (10)"));
}

static void exercise__fails__when_launch_has_error_finding(void **state) {
    Fixture *f = *state;
    fake_backend_register(f->b, "vector_add", k_vector_add, NULL);
    fake_backend_queue_finding(f->b, diag_new(DIAG_ERROR, "oob-global", "vector-add.cu", 4, 17,
                                              "write of c[1003] but c has 1003 elements"));
    RunResult *r = run_ex(f, vector_add_lua, NULL, NULL, NULL, 0);
    assert_int_equal(r->verdict, VERDICT_FAIL);
    assert_string_equal(r->summary, "vector-add.cu:4: write of c[1003] but c has 1003 elements");
    assert_non_null(r->diags);
    assert_string_equal(r->diags->code, "oob-global");
    assert_true(r->checks[0].passed); /* the values were right; the access was not */
}

static void exercise__runtime_error__when_launch_fails(void **state) {
    Fixture *f = *state;
    fake_backend_register(f->b, "vector_add", k_vector_add, NULL);
    fake_backend_fail_next_launch(f->b, "an illegal memory access was encountered");
    RunResult *r = run_ex(f, vector_add_lua, NULL, NULL, NULL, 0);
    assert_int_equal(r->verdict, VERDICT_RUNTIME_ERROR);
    assert_string_equal(r->summary, "an illegal memory access was encountered");
    assert_int_equal(r->n_checks, 0);
}

static void exercise__time_and_bandwidth__recorded_in_metrics(void **state) {
    Fixture *f = *state;
    fake_backend_register(f->b, "vector_add", k_vector_add, NULL);
    fake_backend_set_time(f->b, 0.5);
    RunResult *r = run_ex(f,
                          "return {\n  id = 'vector-add',\n  source = 'vector-add.cu',\n  hints = {'a','b'},\n"
                          "  run = function(t)\n"
                          "    local n = 1000\n"
                          "    local a, b, c = gpu.array('f32', n), gpu.array('f32', n), gpu.array('f32', n)\n"
                          "    local k = t:kernel('vector_add')\n"
                          "    local ms = k:time{ grid = 4, block = 256, args = { a, b, c, gpu.i32(n) }, reps = 5 }\n"
                          "    t:expect(ms == 0.5, 'time ' .. tostring(ms))\n"
                          "    local gbs, frac = t:report_bandwidth{ bytes = 12 * n, ms = ms }\n"
                          "    t:expect_close(gbs, 0.024)\n"
                          "    t:expect_close(frac, 0.024 / 1000)\n"
                          "    t:metric('occupancy', 0.75, '%')\n"
                          "    print('launched', k.name)\n"
                          "    t:log('%d elements', n)\n"
                          "  end,\n}\n",
                          NULL, NULL, NULL, 0);
    print_result(r);
    assert_int_equal(r->verdict, VERDICT_PASS);
    assert_string_equal(r->summary, "3 checks passed");
    assert_true(json_real_value(json_object_get(r->metrics, "time_ms")) == 0.5);
    json_t *k = json_object_get(json_object_get(r->metrics, "kernels"), "vector_add");
    assert_int_equal(json_integer_value(json_object_get(k, "reps")), 5);
    assert_true(json_real_value(json_object_get(json_object_get(r->metrics, "bandwidth"), "gbs")) > 0.0239);
    assert_non_null(json_object_get(json_object_get(r->metrics, "custom"), "occupancy"));
    assert_string_equal(r->log, "launched\tvector_add\n1000 elements\n");
}

static void exercise__emu_metrics__visible_to_script(void **state) {
    Fixture *f = *state;
    fake_backend_register(f->b, "vector_add", k_vector_add, NULL);
    fake_backend_set_name(f->b, "emu");
    fake_backend_set_metrics(f->b, json_pack("{s:{s:f, s:i}}", "totals", "sectors_per_request", 4.0, "bank_conflicts", 0));
    RunResult *r = run_ex(f,
                          "return {\n  id = 'vector-add',\n  source = 'vector-add.cu',\n  hints = {'a','b'},\n"
                          "  run = function(t)\n"
                          "    assert(t:emu_metrics() == nil)\n"
                          "    local a = gpu.array('f32', 8)\n"
                          "    t:kernel('vector_add'):launch{ grid = 1, block = {8, 1}, args = { a, a, a, gpu.i32(8) } }\n"
                          "    local m = t:emu_metrics()\n"
                          "    t:expect_equal(m.sectors_per_request, 4)\n"
                          "    assert(t:device().backend == 'emu')\n"
                          "  end,\n}\n",
                          NULL, NULL, NULL, 0);
    print_result(r);
    assert_int_equal(r->verdict, VERDICT_PASS);
    assert_non_null(json_object_get(json_object_get(r->metrics, "emu"), "totals"));
}

static void exercise__budget_stops_runaway_script(void **state) {
    Fixture *f = *state;
    fixture_write(f->root, "lessons/01-a/vector-add.lua",
                  "return {\n  id = 'vector-add',\n  source = 'vector-add.cu',\n  hints = {'a','b'},\n"
                  "  run = function(t)\n    while true do end\n  end,\n}\n");
    char *lessons = path_join(f->root, "lessons");
    Diag *d = course_load(lessons, &f->course);
    free(lessons);
    assert_null(d);
    char *cu_path = path_join(f->root, "lessons/01-a/vector-add.cu");
    ExerciseRunOptions o = {.cu_path = cu_path, .cache_dir = f->cache, .instruction_budget = 1000000};
    f->r = exercise_run(course_find_exercise(f->course, "vector-add", NULL), f->b, &o);
    free(cu_path);
    assert_int_equal(f->r->verdict, VERDICT_EXERCISE_ERROR);
    assert_int_equal(f->r->diags->line, 6);
    assert_non_null(strstr(f->r->diags->message, "instruction budget"));
}

static void exercise__reports_2d_index__in_check_message(void **state) {
    Fixture *f = *state;
    RunResult *r = run_ex(f,
                          "return {\n  id = 'vector-add',\n  source = 'vector-add.cu',\n  hints = {'a','b'},\n"
                          "  run = function(t)\n"
                          "    local m = gpu.array('i32', {3, 4})\n"
                          "    local want = m:copy()\n"
                          "    want[6] = 7\n"
                          "    t:expect_equal(m, want)\n"
                          "    t:expect_equal(#m, 12, { name = 'size' })\n"
                          "  end,\n}\n",
                          NULL, NULL, NULL, 0);
    assert_int_equal(r->verdict, VERDICT_FAIL);
    assert_string_equal(r->checks[0].name, "m");
    assert_string_equal(r->checks[0].message, "1 element wrong of 12; first at [1][2]: got 0, want 7");
    assert_string_equal(r->summary, "m: 1 element wrong of 12");
    assert_true(r->checks[1].passed);
}

static void exercise__array_api__works_from_lua(void **state) {
    Fixture *f = *state;
    RunResult *r = run_ex(f,
                          "return {\n  id = 'vector-add',\n  source = 'vector-add.cu',\n  hints = {'a','b'},\n"
                          "  run = function(t)\n"
                          "    local a = gpu.array('u8', 1000):random{ lo = 10, hi = 12, seed = 7 }\n"
                          "    local lo, hi = 255, 0\n"
                          "    for i = 0, #a - 1 do lo = math.min(lo, a[i]); hi = math.max(hi, a[i]) end\n"
                          "    t:expect(lo == 10 and hi == 12, 'random range ' .. lo .. '..' .. hi)\n"
                          "    local b = gpu.array('u8', 1000):random{ lo = 10, hi = 12, seed = 7 }\n"
                          "    t:expect_equal(a, b, { name = 'same seed, same data' })\n"
                          "    local x = gpu.array('f64', 3):set{ 1.5, 2.5, 3.5 }\n"
                          "    t:expect_equal(x, { 1.5, 2.5, 3.5 })\n"
                          "    t:expect(x.dtype == 'f64' and x.shape[1] == 3 and #x:to_table() == 3, 'fields')\n"
                          "    local ok, err = pcall(function() x[0] = 'a' end)\n"
                          "    t:expect(not ok and err:find('holds numbers') ~= nil, tostring(err))\n"
                          "    ok, err = pcall(function() return gpu.arary end)\n"
                          "    t:expect(not ok and err:find(\"did you mean 'array'\") ~= nil, tostring(err))\n"
                          "    ok, err = pcall(function() gpu.array('i32', 2)[0] = 1.5 end)\n"
                          "    t:expect(not ok and err:find('not an integer') ~= nil, tostring(err))\n"
                          "  end,\n}\n",
                          NULL, NULL, NULL, 0);
    print_result(r);
    assert_int_equal(r->verdict, VERDICT_PASS);
    assert_int_equal(r->n_checks, 7);
}


static void exercise__memory_bomb_and_huge_array__are_exercise_errors(void **state) {
    Fixture *f = *state;
    RunResult *r = run_ex(f,
                          "return {\n  id = 'vector-add',\n  source = 'vector-add.cu',\n  hints = {'a','b'},\n"
                          "  run = function(t)\n"
                          "    local a = gpu.array('f32', 1 << 40)\n"
                          "  end,\n}\n",
                          NULL, NULL, NULL, 0);
    assert_int_equal(r->verdict, VERDICT_EXERCISE_ERROR);
    assert_int_equal(r->diags->line, 6);
    assert_non_null(strstr(r->diags->message, "exceed what an exercise may allocate"));
    char *cu_path = path_join(f->root, "lessons/01-a/vector-add.cu");
    fixture_write(f->root, "lessons/01-a/vector-add.lua",
                  "return {\n  id = 'vector-add',\n  source = 'vector-add.cu',\n  hints = {'a','b'},\n"
                  "  run = function(t)\n    local s = {}\n    for i = 1, 1e9 do s[i] = i end\n  end,\n}\n");
    ExerciseRunOptions o = {.cu_path = cu_path, .cache_dir = f->cache, .memory_cap = (size_t)32 << 20};
    run_result_free(&f->r);
    f->r = exercise_run(course_find_exercise(f->course, "vector-add", NULL), f->b, &o);
    free(cu_path);
    assert_int_equal(f->r->verdict, VERDICT_EXERCISE_ERROR);
    assert_non_null(strstr(f->r->diags->message, "memory cap"));
    assert_string_equal(f->r->diags->file, "lessons/01-a/vector-add.lua");
    assert_int_equal(f->r->diags->line, 7);
}

/* An exercise whose stretch goal is met when the param says so. */
static const char *const stretch_lua =
    "return {\n"
    "  id = 'vector-add',\n"
    "  source = 'vector-add.cu',\n"
    "  hints = { 'a', 'b' },\n"
    "  run = function(t)\n"
    "    local n = 64\n"
    "    local a = gpu.array('f32', n):iota(1, 1)\n"
    "    local b = gpu.array('f32', n):fill(1)\n"
    "    local c = gpu.array('f32', n)\n"
    "    t:kernel('vector_add'):launch{ grid = 1, block = 64, args = { a, b, c, gpu.i32(n) } }\n"
    "    t:expect_close(c, ref.add(a, b), { rel = 1e-5 })\n"
    "    t:stretch(t:param('fast', false), 'fast enough')\n"
    "  end,\n"
    "}\n";

static void exercise__passes_but_not_fast__when_stretch_goal_missed(void **state) {
    Fixture *f = *state;
    fake_backend_register(f->b, "vector_add", k_vector_add, NULL);
    RunResult *r = run_ex(f, stretch_lua, NULL, NULL, NULL, 0);
    print_result(r);
    assert_int_equal(r->verdict, VERDICT_PASS);
    assert_false(run_result_fast(r));
    assert_string_equal(r->summary, "1 check passed; stretch goal not met yet");
    assert_true(r->checks[1].stretch);
    assert_false(r->checks[1].passed);
}

static void exercise__passes_fast__when_stretch_goal_met(void **state) {
    Fixture *f = *state;
    fake_backend_register(f->b, "vector_add", k_vector_add, NULL);
    const char *keys[] = {"fast"}, *vals[] = {"true"};
    RunResult *r = run_ex(f, stretch_lua, NULL, keys, vals, 1);
    assert_int_equal(r->verdict, VERDICT_PASS);
    assert_true(run_result_fast(r));
    assert_string_equal(r->summary, "1 check passed; stretch goal met");
    /* The flag survives the worker pipe. */
    json_t *j = run_result_to_json(r);
    assert_true(json_is_true(json_object_get(j, "fast")));
    RunResult *back = run_result_from_json(j);
    assert_true(run_result_fast(back));
    run_result_free(&back);
    json_decref(j);
}

/* The chapters 06/07 checks (lua/prelude/hostcheck.lua) on call traces made
 * by hand: which streams the host did not wait for before reading its
 * results, the launches of one kernel, the programs' expected sums, the
 * timeline entry of each call. */
static void exercise__hostcheck__finds_streams_the_host_did_not_wait_for(void **state) {
    Fixture *f = *state;
    fake_backend_register(f->b, "vector_add", k_vector_add, NULL);
    RunResult *r = run_ex(f,
                          "local function call(fn, stream, args, rc)\n"
                          "  return { fn = fn, stream = stream, args = args or '', rc = rc or 0 }\n"
                          "end\n"
                          "local function unwaited(calls) return table.concat(hostcheck.unwaited({ calls = calls }), ',') end\n"
                          "local function pipeline(wait)\n"
                          "  local c = { call('cudaStreamCreate', 1, '-> stream 1'), call('cudaStreamCreate', 2, '-> stream 2') }\n"
                          "  for s = 1, 2 do\n"
                          "    c[#c + 1] = call('cudaMemcpyAsync', s)\n"
                          "    c[#c + 1] = call('cudaLaunchKernel', s, 'busy<<<(4,1,1), (256,1,1), 0, stream ' .. s .. '>>>')\n"
                          "    c[#c + 1] = call('cudaGetLastError', -1)\n"
                          "    c[#c + 1] = call('cudaMemcpyAsync', s)\n"
                          "  end\n"
                          "  for _, w in ipairs(wait) do c[#c + 1] = w end\n"
                          "  c[#c + 1] = call('cudaFreeHost', -1)\n"
                          "  return c\n"
                          "end\n"
                          "return {\n"
                          "  id = 'vector-add', source = 'vector-add.cu', hints = { 'a', 'b' },\n"
                          "  run = function(t)\n"
                          "    t:expect(unwaited(pipeline{}) == '1,2', 'no wait: ' .. unwaited(pipeline{}))\n"
                          "    local last = unwaited(pipeline{ call('cudaStreamSynchronize', 2) })\n"
                          "    t:expect(last == '1', 'the last stream only: ' .. last)\n"
                          "    t:expect(unwaited(pipeline{ call('cudaDeviceSynchronize', -1) }) == '', 'device')\n"
                          "    local failed = unwaited(pipeline{ call('cudaDeviceSynchronize', -1, '', 700) })\n"
                          "    t:expect(failed == '1,2', 'a failed wait waits for nothing: ' .. failed)\n"
                          "    -- an event covers the stream it was recorded on; cudaMemcpy the blocking streams\n"
                          "    local ev = unwaited(pipeline{ call('cudaEventRecord', 1, 'event 3, stream 1'),\n"
                          "                                  call('cudaEventSynchronize', -1, 'event 3') })\n"
                          "    t:expect(ev == '2', 'event on stream 1: ' .. ev)\n"
                          "    local each = { }\n"
                          "    for s = 1, 2 do\n"
                          "      each[#each + 1] = call('cudaEventCreate', -1, '-> event ' .. s)\n"
                          "      each[#each + 1] = call('cudaEventRecord', s, 'event ' .. s .. ', stream ' .. s)\n"
                          "      each[#each + 1] = call('cudaEventSynchronize', -1, 'event ' .. s)\n"
                          "      each[#each + 1] = call('cudaEventDestroy', -1, 'event ' .. s)\n"
                          "    end\n"
                          "    t:expect(unwaited(pipeline(each)) == '', 'an event per stream: ' .. unwaited(pipeline(each)))\n"
                          "    local c = pipeline{}\n"
                          "    c[2].args = '-> stream 2, cudaStreamNonBlocking'\n"
                          "    table.insert(c, #c, call('cudaMemcpy', 0))\n"
                          "    t:expect(unwaited(c) == '2', 'cudaMemcpy does not wait for a non-blocking stream: ' .. unwaited(c))\n"
                          "    -- a program that exited at a failed call stopped before its waits: not a missing wait\n"
                          "    local cut = pipeline{}\n"
                          "    cut[#cut] = call('cudaStreamEndCapture', 1, '', 901)\n"
                          "    t:expect(hostcheck.stopped_at_error({ calls = cut, exit_code = 1 }), 'stopped at a failed call')\n"
                          "    t:expect(not hostcheck.stopped_at_error({ calls = cut, exit_code = 0 }), 'exit 0')\n"
                          "    t:expect(not hostcheck.stopped_at_error({ calls = pipeline{}, exit_code = 1 }), 'last call fine')\n"
                          "    local l = hostcheck.launches({ calls = pipeline{}, kernels = { { name = 'busy(float const*, float*, int, int)', stream = 1 },\n"
                          "                                                               { name = 'busy_add', stream = 2 } } }, 'busy')\n"
                          "    t:expect(#l == 1 and l[1].call == 4 and l[1].n == 1 and l[1].stream == 1, 'launches of busy')\n"
                          "    t:expect(hostcheck.ramp_sum(1000) == 1000 * 999 / 1024 and hostcheck.ramp_sum(2048) == 2046, 'sums')\n"
                          "    local cupti = { calls = { call('cudaEventElapsedTime_v12080', -1), call('cudaMemcpyAsync_ptsz_v7000', 1) } }\n"
                          "    t:expect(hostcheck.count(cupti, 'cudaEventElapsedTime') == 1 and hostcheck.calls(cupti)[2].fn == 'cudaMemcpyAsync',\n"
                          "             'entry points are named by their API function')\n"
                          "    -- a GPU's timeline lists entries by start time: stream 2's copy ran first\n"
                          "    local r2 = { calls = { call('cudaMemcpyAsync', 1, 'a, b, 4, cudaMemcpyHostToDevice, stream 1'),\n"
                          "                           call('cudaMemcpyAsync', 2, 'a, b, 4, cudaMemcpyHostToDevice, stream 2'),\n"
                          "                           call('cudaLaunchKernel', 1), call('cudaLaunchKernel', 1) } }\n"
                          "    local tl = { events = { { kind = 'h2d', stream = 2, start_us = 1, dur_us = 1 },\n"
                          "                            { kind = 'kernel', stream = 1, start_us = 9, dur_us = 1 },\n"
                          "                            { kind = 'h2d', stream = 1, start_us = 3, dur_us = 1 },\n"
                          "                            { kind = 'kernel', stream = 1, start_us = 5, dur_us = 1 } } }\n"
                          "    local at = hostcheck.entry_of(r2, tl)\n"
                          "    t:expect(at[1] == tl.events[3] and at[2] == tl.events[1] and at[3] == tl.events[4] and at[4] == tl.events[2],\n"
                          "             'calls find their entries by stream and order')\n"
                          "    local ok, err = pcall(function() return hostcheck.nope end)\n"
                          "    t:expect(not ok and err:find('hostcheck has no field') ~= nil, tostring(err))\n"
                          "  end,\n"
                          "}\n",
                          NULL, NULL, NULL, 0);
    print_result(r);
    assert_int_equal(r->verdict, VERDICT_PASS);
    assert_int_equal(r->n_checks, 15);
}

/* hostcheck.pipeline on a hand-made four-chunk trace and timeline: one
 * chunk's copy in that overlaps no kernel while two others do is the host
 * queueing it late (a loaded machine: graded solutions failed so on the
 * H200), logged, not failed; two such chunks fail. */
static void exercise__hostcheck_pipeline__forgives_one_late_chunk__not_two(void **state) {
    Fixture *f = *state;
    RunResult *r = run_ex(f,
                          "local function call(fn, stream, args)\n"
                          "  return { fn = fn, stream = stream, args = args or '', rc = 0 }\n"
                          "end\n"
                          "-- chunk c on stream c: copy in [in_c, in_c + 10], kernel 10 us after it, copy out after that\n"
                          "local function run(starts)\n"
                          "  local calls, kernels, events = {}, {}, {}\n"
                          "  for c = 1, 4 do\n"
                          "    calls[#calls + 1] = call('cudaMemcpyAsync', c, 'd, h, 4, cudaMemcpyHostToDevice, stream ' .. c)\n"
                          "    calls[#calls + 1] = call('cudaLaunchKernel', c)\n"
                          "    calls[#calls + 1] = call('cudaMemcpyAsync', c, 'h, d, 4, cudaMemcpyDeviceToHost, stream ' .. c)\n"
                          "    kernels[c] = { name = 'busy', stream = c }\n"
                          "    local s = starts[c]\n"
                          "    events[#events + 1] = { kind = 'h2d', stream = c, start_us = s, dur_us = 10, pinned = true }\n"
                          "    events[#events + 1] = { kind = 'kernel', stream = c, start_us = s + 10, dur_us = 8 }\n"
                          "    events[#events + 1] = { kind = 'd2h', stream = c, start_us = s + 18, dur_us = 2, pinned = true }\n"
                          "  end\n"
                          "  calls[#calls + 1] = call('cudaDeviceSynchronize', -1)\n"
                          "  local fails, logs = {}, {}\n"
                          "  local ft = {\n"
                          "    device = function() return { backend = 'cuda' } end,\n"
                          "    timeline = function() return { events = events } end,\n"
                          "    fail = function(_, m) fails[#fails + 1] = m end,\n"
                          "    log = function(_, fmt, ...) logs[#logs + 1] = string.format(fmt, ...) end,\n"
                          "    expect_overlap = function() return true end,\n"
                          "    expect = function() return true end,\n"
                          "  }\n"
                          "  local ok = hostcheck.pipeline(ft, { calls = calls, kernels = kernels }, { chunks = 4, kernel = 'busy' })\n"
                          "  return ok, fails[1] or '', table.concat(logs, '\\n')\n"
                          "end\n"
                          "return {\n"
                          "  id = 'vector-add', source = 'vector-add.cu', hints = { 'a', 'b' },\n"
                          "  run = function(t)\n"
                          "    local ok, why = run{ 0, 10, 20, 30 }\n"
                          "    t:expect(ok, 'a pipeline: ' .. why)\n"
                          "    local late, why2, log = run{ 0, 10, 20, 45 }\n"
                          "    t:expect(late and log:find(\"chunk 3's copy in overlapped no other\", 1, true) ~= nil,\n"
                          "             'one late chunk is logged: ' .. why2 .. ' / ' .. log)\n"
                          "    local two, why3 = run{ 0, 25, 50, 75 }\n"
                          "    t:expect(not two and why3:find('overlaps no other chunk', 1, true) ~= nil, 'one after another fails: ' .. why3)\n"
                          "  end,\n"
                          "}\n",
                          NULL, NULL, NULL, 0);
    print_result(r);
    assert_int_equal(r->verdict, VERDICT_PASS);
    assert_int_equal(r->n_checks, 3);
}

int main(void) {
    if (!compile_nvrtc_version()) {
        fprintf(stderr, "NVRTC not available: exercise tests need it\n");
    }
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(exercise__passes__when_kernel_correct),
        T(exercise__run_uses_a_chapter_module__and_its_errors_name_the_module_line),
        T(exercise__fails_with_mismatch_message__when_kernel_wrong),
        T(exercise__param_override__changes_size),
        T(exercise__compile_error__maps_to_cu_line),
        T(exercise__compile_error__when_kernel_renamed),
        T(exercise__exercise_error__when_the_exercise_names_a_kernel_its_starter_lacks),
        T(exercise__exercise_error__names_lua_line),
        T(exercise__refuses_plain_number_arg),
        T(exercise__fails__when_launch_has_error_finding),
        T(exercise__runtime_error__when_launch_fails),
        T(exercise__time_and_bandwidth__recorded_in_metrics),
        T(exercise__emu_metrics__visible_to_script),
        T(exercise__budget_stops_runaway_script),
        T(exercise__reports_2d_index__in_check_message),
        T(exercise__array_api__works_from_lua),
        T(exercise__memory_bomb_and_huge_array__are_exercise_errors),
        T(exercise__passes_but_not_fast__when_stretch_goal_missed),
        T(exercise__passes_fast__when_stretch_goal_met),
        T(exercise__hostcheck__finds_streams_the_host_did_not_wait_for),
        T(exercise__hostcheck_pipeline__forgives_one_late_chunk__not_two),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
