/* tests/fuzz/fuzz_exercise.c: a fuzz target for the exercise API a course
 * pack's scripts call (gpu, ref, t, kernels, streams: lua/API.md), on the
 * driver in tests/fuzz/driver.c.
 *
 * One input is an exercise .lua file. It is loaded in a small chapter with
 * a fixed learner's file (tests/fuzz/exercise-chapter/01-ex/ex.cu: a few
 * kernels) and run on the emulator with small limits (Lua budget, memory,
 * arrays, emulator warp-instructions). Whatever the script does with the
 * API, the run must end with a verdict that encodes as JSON, never a crash,
 * a hang or an abort. Seeds: tests/fuzz/corpus-exercise/. FUZZ_VERBOSE=1
 * prints each run's verdict and summary (to check what a seed reaches). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "base/fs.h"
#include "base/xalloc.h"
#include "lua/exercise.h"
#include "tests/fuzz/driver.h"
#include "tests/lua/lesson_fixture.h"

static const char *const TOKENS[] = {
    "gpu.array('f32', -1)", "gpu.array('f32', {0, 0})", "gpu.array('u8', {1, 2, 3, 4})", "gpu.array('x', 1)",
    "gpu.array('f64', 1 << 40)", "gpu.array('i32', 4, { pinned = true })", ":iota(1e308, -1e308)",
    ":random{ lo = 1, hi = 0, seed = -1 }", ":fill(0/0)", ":set{ {1, 2}, {3, {4}} }", ":copy()", ":to_table()",
    ":named(string.rep('n', 1000))", "[-1]", "[1 << 62]", "[0] = 1.5", "[0] = 1e300", "#", ".shape", ".dtype",
    "gpu.i32(2^31)", "gpu.u64(-1)", "gpu.f32(0/0)", "gpu.i64(math.mininteger)", "gpu.stream{ priority = 99 }",
    "gpu.default_stream", ":upload{ stream = 7 }", ":download{}", ":memset(256)", "t:event()", "t:synchronize()",
    "t:elapsed_ms(nil, nil)", "t:kernel('add_one')", "t:kernel('nope')", "t:kernel('racy', { fast_math = 1 })",
    "t:kernel('add_one', { defines = { N = '\"' } })", ":launch{ grid = 0, block = 0, args = {} }",
    ":launch{ grid = {1, 1, 1}, block = 2048, args = { x, gpu.i32(4) } }", ":launch{ grid = 1e9, block = 1 }",
    ":time{ grid = 1, block = 32, args = { x, gpu.i32(4) }, reps = 1e9 }", ":occupancy{ block = 0, arch = 'sm_1' }",
    "t:expect_occupancy(k, { min = 2 })", "t:expect_equal(x, x)", "t:expect_close(x, 1, { rel = -1 })",
    "t:expect_equal(x, { 1, 2, 'a' })", "t:expect(nil)", "t:fail()", "t:stretch(false)", "t:log('%d', 'x')",
    "t:param('n', 3)", "t:metric('m', 0/0, 'u')", "t:device()", "t:emu_metrics()", "t:report_bandwidth{ bytes = -1, ms = 0 }",
    "t:timeline()", "t:expect_overlap(1, 2)", "t:expect_no_default_stream_work()", "t:host_work(print)",
    "ref.add(x, y)", "ref.matmul(x, x, 0, 0, 0)", "ref.transpose(x, 7, 7)", "ref.histogram(x, 0)", "ref.scan(x, 1)",
    "ref.sort(x)", "ref.block_sums(x, 0)", "ref.map(x, function(v, i) return i end, 'u8')", "ref.sum({})", "nil",
    "(", ")", "{", "}", "end", "local x = ", ",", "\n",
};

static char *g_dir;          /* the chapter folder */
static Backend *g_emu;

static int check_exercise(const char *data, size_t len) {
    char *lua = path_join(g_dir, "ex.lua");
    Diag *d = fs_write_file_atomic(lua, data, len);
    diag_free(&d);
    free(lua);
    Course *c = NULL;
    const char *dirs[] = {g_dir};
    d = course_load_dirs(dirs, 1, &c);
    int rejected = diag_count_errors(d) > 0;
    diag_free(&d);
    const ExerciseMeta *ex = c ? course_find_exercise(c, "ex", NULL) : NULL;
    if (ex) {
        char *cu = path_join(g_dir, "ex.cu"), *cache = path_join(g_dir, "../cache");
        ExerciseRunOptions o = {.cu_path = cu, .cu_display = "ex.cu", .cache_dir = cache,
                                .instruction_budget = 2000000, .memory_cap = (size_t)64 << 20,
                                .array_cap = (size_t)64 << 20};
        RunResult *r = exercise_run(ex, g_emu, &o);
        json_t *j = run_result_to_json(r);
        char *text = j ? json_dumps(j, JSON_COMPACT) : NULL;
        if (!text || !r->summary) {
            fprintf(stderr, "fuzz_exercise: a run without a summary or one that does not encode as JSON\n");
            abort();
        }
        rejected = r->verdict == VERDICT_EXERCISE_ERROR;
        if (getenv("FUZZ_VERBOSE")) fprintf(stderr, "%s: %s\n", verdict_name(r->verdict), r->summary);
        free(text);
        json_decref(j);
        run_result_free(&r);
        free(cu);
        free(cache);
    }
    course_free(&c);
    return rejected;
}

int main(int argc, char **argv) {
    static const FuzzTarget t = {"fuzz_exercise", "tests/fuzz/corpus-exercise", "fuzz-crash.lua", TOKENS,
                                 sizeof TOKENS / sizeof TOKENS[0], check_exercise};
    char *root = fixture_tmpdir();
    g_dir = path_join(root, "01-ex");
    char *text = NULL;
    Diag *d = fs_read_file("tests/fuzz/exercise-chapter/01-ex/ex.cu", &text, NULL);
    if (d) {
        fprintf(stderr, "fuzz_exercise: %s (run from the repository root)\n", d->message);
        return 2;
    }
    fixture_write(g_dir, "chapter.lua", "return { id = 'fuzz', order = 1, exercises = { 'ex' } }\n");
    fixture_write(g_dir, "ex.cu", text);
    fixture_write(g_dir, "solutions/ex.cu", text);
    free(text);
    /* Every launch stops after 200k warp-instructions: a mutated grid cannot stall the fuzzer. */
    EmuOptions emu = {.threads = 1, .adversarial = true, .metrics = true, .checks = true,
                      .instruction_budget = 200000};
    Diag *why = NULL;
    g_emu = backend_open(BACKEND_EMU, &emu, &why, NULL);
    if (!g_emu) {
        fprintf(stderr, "fuzz_exercise: no emulator: %s\n", why ? why->message : "?");
        return 2;
    }
    int rc = fuzz_main(&t, argc, argv);
    backend_close(&g_emu);
    free(g_dir);
    fixture_remove(&root);
    return rc;
}
