/* tests/tui/test_debug_frame.c: the warp debugger's frame built off screen
 * (app/tui/tui_debug_frame.c), on a hand-made three-step trace: the current
 * line marked, the lanes counted, a variable's value per lane, the moves
 * (next stops at the last step, back at the first, barrier), a wide
 * character taking two cells, ASCII glyphs outside UTF-8. */
#include <locale.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "app/tui/tui_debug_frame.h"
#include "app/tui/tui_text.h"

static const char SRC[] = "__global__ void k(int *a) {\n"
                          "    int i = threadIdx.x;\n"
                          "    __syncthreads();\n"
                          "    a[i] = i; // 写\n"
                          "}\n";

typedef struct Fixture {
    EmuTrace tr;
    EmuTraceStep steps[3];
    EmuTraceVal vals[3];
    char names[1][32];
    char kernel[8];
} Fixture;

static void fixture_init(Fixture *fx) {
    memset(fx, 0, sizeof *fx);
    strcpy(fx->kernel, "k");
    strcpy(fx->names[0], "i");
    int lines[3] = {2, 3, 4};
    for (int s = 0; s < 3; s++) {
        fx->steps[s] = (EmuTraceStep){.line = lines[s], .kind = s == 1 ? EMU_STEP_BARRIER : EMU_STEP_LINE,
                                      .active = s == 2 ? 0x0000ffffu : 0xffffffffu, .live = 0xffffffffu,
                                      .shared = -1};
        fx->vals[s].kind = EMU_VAL_INT;
        fx->vals[s].set = s ? 0xffffffffu : 0;
        for (int l = 0; l < 32; l++) fx->vals[s].lane[l] = (uint64_t)l;
    }
    fx->tr = (EmuTrace){.kernel = fx->kernel, .grid = {1, 1, 1}, .block = {32, 1, 1}, .n_warps = 1, .n_vars = 1,
                        .var_names = fx->names, .steps = fx->steps, .n_steps = 3, .vals = fx->vals};
}

static int find_row(const DebugFrame *f, const char *needle) {
    for (int y = 0; y < f->rows; y++) {
        char *t = debug_frame_row_text(f, y);
        bool hit = strstr(t, needle) != NULL;
        free(t);
        if (hit) return y;
    }
    return -1;
}

static void debug_frame__marks_the_current_line_and_counts_the_lanes(void **state) {
    (void)state;
    Fixture fx;
    fixture_init(&fx);
    DebugView v;
    debug_view_init(&v, &fx.tr, SRC);
    DebugFrame f;
    debug_frame_init(&f, 22, 80, true);
    assert_true(debug_view_move(&v, DEBUG_MOVE_NEXT));
    assert_true(debug_view_move(&v, DEBUG_MOVE_NEXT));
    debug_frame_build(&f, &v);
    assert_true(find_row(&f, "step 3 of 3 · line 4") == 0);
    int cur = find_row(&f, "▶   4 ");
    assert_true(cur > 0);
    assert_int_equal(debug_frame_cell(&f, cur, 10)->role, ROLE_SELECTED);
    assert_true(find_row(&f, "16 running, 16 waiting, 0 exited") > cur);
    int lanes = find_row(&f, "lane ");
    assert_true(lanes > 0);
    char *vars = debug_frame_row_text(&f, lanes + 1);
    assert_non_null(strstr(vars, "i                0        1        2"));
    free(vars);
    /* 写 is two columns: its cell and an empty right half, and the row stays 80 columns */
    char *line = debug_frame_row_text(&f, cur);
    assert_non_null(strstr(line, "// 写"));
    free(line);
    int x = 0;
    while (x < f.cols && strcmp(debug_frame_cell(&f, cur, x)->g, "写")) x++;
    assert_true(x < f.cols - 1);
    assert_string_equal(debug_frame_cell(&f, cur, x + 1)->g, "");
    debug_frame_fini(&f);
    debug_view_fini(&v);
}

static void debug_view_move__next_stops_at_the_end_and_barrier_finds_syncthreads(void **state) {
    (void)state;
    Fixture fx;
    fixture_init(&fx);
    DebugView v;
    debug_view_init(&v, &fx.tr, SRC);
    assert_true(debug_view_move(&v, DEBUG_MOVE_BARRIER));
    assert_int_equal(v.step, 1);
    assert_true(debug_view_move(&v, DEBUG_MOVE_END));
    assert_false(debug_view_move(&v, DEBUG_MOVE_NEXT));
    assert_int_equal(v.step, 2);
    assert_true(debug_view_move(&v, DEBUG_MOVE_START));
    assert_true(debug_view_move(&v, DEBUG_MOVE_BACK));
    assert_int_equal(v.step, 0);
    assert_false(debug_view_move(&v, DEBUG_MOVE_FINDING));
    debug_view_fini(&v);
}

static void debug_frame__uses_ascii_glyphs_outside_utf8(void **state) {
    (void)state;
    Fixture fx;
    fixture_init(&fx);
    DebugView v;
    debug_view_init(&v, &fx.tr, SRC);
    DebugFrame f;
    debug_frame_init(&f, 22, 80, false);
    assert_true(debug_view_move(&v, DEBUG_MOVE_END));
    debug_frame_build(&f, &v);
    assert_true(find_row(&f, ">   4 ") > 0);
    assert_true(find_row(&f, "lanes ######## ######## oooooooo") > 0);
    assert_int_equal(find_row(&f, "●"), -1);
    debug_frame_fini(&f);
    debug_view_fini(&v);
}

int main(void) {
    setlocale(LC_ALL, "C.UTF-8");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(debug_frame__marks_the_current_line_and_counts_the_lanes),
        cmocka_unit_test(debug_view_move__next_stops_at_the_end_and_barrier_finds_syncthreads),
        cmocka_unit_test(debug_frame__uses_ascii_glyphs_outside_utf8),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
