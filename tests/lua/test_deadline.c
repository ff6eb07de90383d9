/* tests/lua/test_deadline.c: on the emulator a runaway kernel ends with
 * did-not-finish at the line its warps loop on, inside the exercise's time
 * limit — never a bare timeout with no line, and never a wait of minutes
 * for the instruction budget. Kernels and programs (the emulator runtime
 * gets the deadline through CUDOJO_EMU_DEADLINE). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/fs.h"
#include "base/xalloc.h"
#include "kernels/backend.h"
#include "lua/exercise.h"
#include "tests/lua/lesson_fixture.h"

static const char *SPIN_CU =
    "__global__ void spin(int *flag, int *out) {\n"
    "    int n = 0;\n"
    "    while (*(volatile int *)flag == 0) n++;   // line 3: nobody sets flag\n"
    "    out[threadIdx.x] = n;\n"
    "}\n";

static const char *SPIN_LUA =
    "return { id = 'spin', source = 'spin.cu', hints = {'a','b'}, timeout = 3,\n"
    "  run = function(t)\n"
    "    local flag, out = gpu.array('i32', 1), gpu.array('i32', 64)\n"
    "    t:kernel('spin'):launch{ grid = 1, block = 64, args = { flag, out } }\n"
    "  end,\n"
    "}\n";

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void runaway_kernel__stops_with_did_not_finish_at_its_line__inside_the_time_limit(void **state) {
    (void)state;
    char *root = fixture_tmpdir(), *cache = path_join(root, "cache");
    fixture_write(root, "lessons/01-a/chapter.lua", "return { id = 'a', order = 1, exercises = { 'spin' } }\n");
    fixture_write(root, "lessons/01-a/spin.lua", SPIN_LUA);
    fixture_write(root, "lessons/01-a/spin.cu", SPIN_CU);
    fixture_write(root, "lessons/01-a/solutions/spin.cu", SPIN_CU);
    char *lessons = path_join(root, "lessons"), *cu = path_join(root, "lessons/01-a/spin.cu");
    Course *course = NULL;
    Diag *d = course_load(lessons, &course);
    if (d) fail_msg("%s", d->message);
    EmuOptions eo = {.metrics = true, .checks = true, .adversarial = true};
    Diag *why = NULL;
    Backend *b = emu_backend_new(&eo, &why);
    if (!b) fail_msg("emulator: %s", why ? why->message : "?");
    ExerciseRunOptions o = {.cu_path = cu, .cu_display = "spin.cu", .cache_dir = cache};
    alarm(60);
    double t0 = now_s();
    RunResult *r = exercise_run(course_find_exercise(course, "spin", NULL), b, &o);
    double took = now_s() - t0;
    alarm(0);
    const Diag *f = NULL;
    for (const Diag *x = r->diags; x; x = x->next)
        if (x->code && !strcmp(x->code, "did-not-finish")) f = x;
    if (!f) run_result_print(r, stderr, false);
    assert_non_null(f);
    assert_int_equal(f->line, 3);
    assert_non_null(strstr(f->message, "time limit"));
    assert_int_equal(r->verdict, VERDICT_FAIL);
    assert_true(took < 3.0);   /* the exercise's timeout: the run ended by itself, before the worker's kill */
    EmuOptions after;
    b->ops->emu_options_get(b, &after);
    assert_true(after.deadline_s == 0);   /* a warm worker's next run starts without it */
    run_result_free(&r);
    backend_close(&b);
    course_free(&course);
    free(lessons);
    free(cu);
    free(cache);
    fixture_remove(&root);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(runaway_kernel__stops_with_did_not_finish_at_its_line__inside_the_time_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
