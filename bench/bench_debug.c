/* bench/bench_debug.c: how the warp debugger feels (issue 14 part 3: a key
 * → the next frame ≤ 50 ms on the largest course kernel).
 *
 * Records the trace the debugger records (app/cmd_debug.c's debug_trace_run:
 * the exercise's solution on a fresh emulator, checks on, warp 0 of block 0
 * followed), then times what each key does as the screen does it: the move
 * (app/tui/tui_debug_frame.h) and the frame built off screen at 80x24 (the
 * body between the title and status bars, 22 rows) — every step forward,
 * every step back, every run to the next barrier, p50/p99 over them. Also
 * the time to the first frame (recording included) and w / B, which record
 * again (another warp, another block). The very first frame compiles the
 * kernel with a cold NVRTC cache: it is reported, not judged (a compile is
 * not a key; the workbench compiles when the exercise runs); the goal judges
 * the first frame with the cache warm, as opening the debugger again is.
 * Painting the frame with curses is left out: it is the same 80x24 cells on
 * every key.
 *
 * The largest course kernel, two ways (`--scan` finds them again: it runs
 * every kernel exercise's solution once, recorded): the solution that runs
 * the most warp-instructions in one launch (the longest recording: every
 * key that records again costs a whole run), and the one whose recorded
 * warp has the most steps (the largest trace to step through). The bench
 * times both unless given exercises.
 * Usage: build/bench/bench_debug [EXERCISE...] [--scan]   (from the repository root) */
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app/debug.h"
#include "app/tui/tui_debug_frame.h"
#include "base/fs.h"
#include "base/xalloc.h"
#include "kernels/backend.h"
#include "lua/exercise.h"
#include "bench/bench_stats.h"

/* What `--scan` found (see above); the bench times both. */
#define LARGEST_BY_INSTRUCTIONS "pick-block-size"
#define LARGEST_BY_STEPS "sgemm-tiled"
#define GOAL_MS 50.0
#define ROWS 22   /* 80x24 less the title and status bars */
#define COLS 80

typedef struct Samples {
    double *v;
    int n, cap;
} Samples;

static void samples_add(Samples *s, double ms) {
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 256;
        s->v = xrealloc(s->v, sizeof *s->v * (size_t)s->cap);
    }
    s->v[s->n++] = ms;
}

/* Sorts s; the q-quantile (nearest rank). */
static double quantile(Samples *s, double q) {
    if (!s->n) return 0;
    qsort(s->v, (size_t)s->n, sizeof *s->v, bench_cmp_double);
    int i = (int)(q * (double)s->n + 0.999999) - 1;
    if (i < 0) i = 0;
    if (i >= s->n) i = s->n - 1;
    return s->v[i];
}

/* The most warp-instructions one launch ran, from a run's metrics (every "totals" object). */
static double max_launch_instructions(json_t *j) {
    double m = 0;
    const char *k;
    json_t *v;
    size_t i;
    if (json_is_object(j)) {
        json_object_foreach(j, k, v) {
            double x = 0;
            if (!strcmp(k, "totals") && json_is_object(v)) {
                json_t *wi = json_object_get(v, "warp_instructions");
                if (json_is_number(wi)) x = json_number_value(wi);
            } else x = max_launch_instructions(v);
            if (x > m) m = x;
        }
    } else if (json_is_array(j)) {
        json_array_foreach(j, i, v) {
            double x = max_launch_instructions(v);
            if (x > m) m = x;
        }
    }
    return m;
}

typedef struct Big {
    const char *id;
    double wi, ms;
    int steps;
} Big;

/* Keeps the five largest of b by *key (descending). */
static void top_add(Big top[5], Big b, double (*key)(const Big *)) {
    for (int i = 0; i < 5; i++)
        if (!top[i].id || key(&b) > key(&top[i])) {
            memmove(&top[i + 1], &top[i], sizeof *top * (size_t)(4 - i));
            top[i] = b;
            return;
        }
}
static double by_wi(const Big *b) { return b->wi; }
static double by_steps(const Big *b) { return b->steps; }

/* Runs every kernel exercise's solution once on the emulator as the debugger
 * does (checks and metrics on, warp 0 of block 0 of the first launch
 * recorded) and prints the five that run the most warp-instructions in one
 * launch (the run's last: metrics.emu) and the five whose recording has the
 * most steps. */
static int scan_course(const Course *c) {
    Big top_wi[5] = {{0}}, top_steps[5] = {{0}};
    int runs = 0;
    for (int ci = 0; ci < c->n_chapters; ci++) {
        const ChapterMeta *ch = &c->chapters[ci];
        for (int ei = 0; ei < ch->n_exercises; ei++) {
            const ExerciseMeta *ex = &ch->exercises[ei];
            if (ex->program || !ex->solution) continue;
            EmuOptions eo = {.deterministic = true, .checks = true, .metrics = true};
            Diag *why = NULL;
            Backend *b = emu_backend_new(&eo, &why);
            if (!b) {
                fprintf(stderr, "bench_debug: the emulator could not start: %s\n", why ? why->message : "?");
                diag_free(&why);
                return 1;
            }
            EmuTraceRequest rq = {.warp = 0};
            why = emu_trace_arm(b, &rq);
            diag_free(&why);
            char *path = path_join(ch->dir, ex->solution);
            ExerciseRunOptions opts = {.cu_path = path};
            double t0 = bench_now_ms();
            RunResult *res = exercise_run(ex, b, &opts);
            double ms = bench_now_ms() - t0;
            EmuTrace *tr = emu_trace_take(b);
            Big big = {ex->id, max_launch_instructions(res->metrics), ms, tr ? tr->n_steps : 0};
            top_add(top_wi, big, by_wi);
            top_add(top_steps, big, by_steps);
            runs++;
            emu_trace_free(&tr);
            run_result_free(&res);
            free(path);
            backend_close(&b);
        }
    }
    printf("kernel exercises' solutions (%d run, checks on, warp 0 of block 0 recorded):\n", runs);
    printf("  most warp-instructions in one launch:\n");
    for (int i = 0; i < 5 && top_wi[i].id; i++)
        printf("    %-24s %10.0f warp-inst  %6d steps  run %6.0f ms\n", top_wi[i].id, top_wi[i].wi, top_wi[i].steps,
               top_wi[i].ms);
    printf("  most steps recorded:\n");
    for (int i = 0; i < 5 && top_steps[i].id; i++)
        printf("    %-24s %10.0f warp-inst  %6d steps  run %6.0f ms\n", top_steps[i].id, top_steps[i].wi,
               top_steps[i].steps, top_steps[i].ms);
    printf("\n");
    return 0;
}

/* One key: the move, then the frame. Returns its ms. */
static double time_key(DebugView *v, DebugFrame *f, DebugMove m, bool *moved) {
    double t0 = bench_now_ms();
    *moved = debug_view_move(v, m);
    debug_frame_build(f, v);
    return bench_now_ms() - t0;
}

/* w or B: a new recording, the place kept, the frame. Returns its ms, or < 0. */
static double time_follow(const DebugTarget *tg, DebugView *v, DebugFrame *f, EmuTrace **tr, const unsigned block[3],
                          int warp) {
    Diag *err = NULL;
    double t0 = bench_now_ms();
    EmuTrace *nt = debug_trace_run(tg, block, warp, &err);
    if (!nt) {
        fprintf(stderr, "bench_debug: recording block (%u,%u,%u) warp %d: %s\n", block[0], block[1], block[2], warp,
                err ? err->message : "?");
        diag_free(&err);
        return -1;
    }
    debug_view_retrace(v, nt);
    debug_frame_build(f, v);
    double ms = bench_now_ms() - t0;
    emu_trace_free(tr);
    *tr = nt;
    return ms;
}

static const char *verdict(double ms) { return ms <= GOAL_MS ? "PASS" : "FAIL"; }

/* Records id's solution and times every key on it; *step_ok / *all_ok
 * cleared when the stepping keys / any key miss the goal. 0, or 1 when it
 * could not be recorded. */
static int bench_exercise(const Course *course, const char *id, bool *step_ok, bool *all_ok) {
    const ChapterMeta *ch = NULL;
    const ExerciseMeta *ex = course_find_exercise(course, id, &ch);
    if (!ex || ex->program) {
        fprintf(stderr, "bench_debug: %s is not a kernel exercise of the course (try --scan)\n", id);
        return 1;
    }
    char *sol = path_join(ch->dir, ex->solution);
    DebugTarget tg;
    Diag *d = debug_target_init(&tg, ch, ex, sol);
    free(sol);
    if (d) {
        fprintf(stderr, "bench_debug: %s\n", d->message);
        diag_free(&d);
        return 1;
    }

    /* The first frame: record, then build. */
    unsigned b0[3] = {0, 0, 0};
    double t0 = bench_now_ms();
    EmuTrace *tr = debug_trace_run(&tg, b0, 0, &d);
    DebugView v;
    DebugFrame f;
    debug_frame_init(&f, ROWS, COLS, true);
    if (tr) {
        debug_view_init(&v, tr, tg.source);
        debug_frame_build(&f, &v);
    }
    double cold_ms = bench_now_ms() - t0;
    if (!tr) {
        fprintf(stderr, "bench_debug: %s: %s\n", id, d ? d->message : "nothing recorded");
        diag_free(&d);
        debug_frame_fini(&f);
        debug_target_fini(&tg);
        return 1;
    }
    printf("%s (solution), kernel %s: grid (%u,%u,%u) x block (%u,%u,%u), warp 0 of block 0:\n"
           "  %d steps, %d memory instructions, %d variables, %zu bytes of shared memory, trace %.1f MiB%s\n",
           id, tr->kernel, tr->grid.x, tr->grid.y, tr->grid.z, tr->block.x, tr->block.y, tr->block.z, tr->n_steps,
           tr->n_mem, tr->n_vars, tr->shared_size, (double)emu_trace_bytes(tr) / (1 << 20),
           tr->truncated ? " (cut short by the cap)" : "");

    /* The first frame again, the kernel's compile cached: opening the
     * debugger on an exercise that has run. */
    Samples first = {0};
    for (int r = 0; r < 3; r++) {
        DebugView wv;
        t0 = bench_now_ms();
        EmuTrace *wt = debug_trace_run(&tg, b0, 0, &d);
        if (!wt) {
            fprintf(stderr, "bench_debug: %s: recording again: %s\n", id, d ? d->message : "nothing recorded");
            diag_free(&d);
            continue;
        }
        debug_view_init(&wv, wt, tg.source);
        debug_frame_build(&f, &wv);
        samples_add(&first, bench_now_ms() - t0);
        debug_view_fini(&wv);
        emu_trace_free(&wt);
    }

    /* Every step forward, every step back, every barrier run. */
    Samples fwd = {0}, back = {0}, bar = {0};
    bool moved = true;
    v.step = 0;
    while (moved) {
        double ms = time_key(&v, &f, DEBUG_MOVE_NEXT, &moved);
        if (moved) samples_add(&fwd, ms);
    }
    while (v.step > 0) samples_add(&back, time_key(&v, &f, DEBUG_MOVE_BACK, &moved));
    int last = tr->n_steps - 1;
    while (v.step < last) samples_add(&bar, time_key(&v, &f, DEBUG_MOVE_BARRIER, &moved));
    /* The step's text: a check that a frame was built at all. */
    char *row0 = debug_frame_row_text(&f, 0);
    bool built = strstr(row0, "step ") != NULL;
    free(row0);

    /* w and B: record again (the NVRTC cache is warm now), three times each. */
    Samples wk = {0}, bk = {0};
    for (int r = 0; r < 3; r++) {
        int nw = tr->n_warps > 0 ? tr->n_warps : 1;
        unsigned blk[3] = {tr->block_idx[0], tr->block_idx[1], tr->block_idx[2]};
        double ms = time_follow(&tg, &v, &f, &tr, blk, (tr->warp + 1) % nw);
        if (ms >= 0) samples_add(&wk, ms);
        unsigned nb[3] = {tr->block_idx[0] + 1, tr->block_idx[1], tr->block_idx[2]};
        if (nb[0] >= tr->grid.x) {
            nb[0] = 0;
            if (++nb[1] >= tr->grid.y) { nb[1] = 0; if (++nb[2] >= tr->grid.z) nb[2] = 0; }
        }
        ms = time_follow(&tg, &v, &f, &tr, nb, tr->warp);
        if (ms >= 0) samples_add(&bk, ms);
    }

    printf("  %-38s %6s %9s %9s %9s   goal <= %.0f ms\n", "key -> frame (80x24, off screen)", "keys", "p50 ms",
           "p99 ms", "max ms", GOAL_MS);
    Samples *rows[] = {&fwd, &back, &bar, &wk, &bk, &first};
    const char *names[] = {"n  step forward", "p  step back", "b  next barrier", "w  next warp (records again)",
                           "B  next block (records again)", "first frame (records, warm cache)"};
    if (!built) *step_ok = *all_ok = false;
    for (int i = 0; i < 6; i++) {
        Samples *s = rows[i];
        if (!s->n) {
            printf("  %-38s %6d %9s\n", names[i], 0, "-");
            continue;
        }
        double p50 = quantile(s, 0.5), p99 = quantile(s, 0.99), mx = s->v[s->n - 1];
        printf("  %-38s %6d %9.3f %9.3f %9.3f   %s\n", names[i], s->n, p50, p99, mx, verdict(p99));
        if (p99 > GOAL_MS) {
            *all_ok = false;
            if (i < 3) *step_ok = false;
        }
    }
    printf("  %-38s %6d %9.1f %9s %9s   (not judged: it compiles)\n", "first frame (records, cold cache)", 1,
           cold_ms, "", "");
    if (!built) printf("  (no frame was built: its first row lacks \"step \")\n");
    printf("\n");
    free(fwd.v);
    free(back.v);
    free(bar.v);
    free(wk.v);
    free(bk.v);
    free(first.v);
    debug_view_fini(&v);
    debug_frame_fini(&f);
    emu_trace_free(&tr);
    debug_target_fini(&tg);
    return 0;
}

int main(int argc, char **argv) {
    const char *ids[8];
    int n_ids = 0;
    bool scan = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--scan")) scan = true;
        else if (argv[i][0] == '-' || n_ids == 8) {
            fprintf(stderr, "usage: bench_debug [EXERCISE...] [--scan]\n");
            return 2;
        } else ids[n_ids++] = argv[i];
    }
    if (!n_ids) {
        ids[n_ids++] = LARGEST_BY_INSTRUCTIONS;
        ids[n_ids++] = LARGEST_BY_STEPS;
    }
    setlocale(LC_ALL, "C.UTF-8");
    /* A cold NVRTC cache for each first recording, as a fresh workbench has. */
    char dir[] = "/tmp/cudojo-bench-debug-XXXXXX";
    if (!mkdtemp(dir)) return 1;
    setenv("XDG_DATA_HOME", dir, 1);
    char *lessons = path_absolute("lessons");
    Course *course = NULL;
    Diag *d = course_load(lessons, &course);
    diag_free(&d);
    int rc = 0;
    if (!course) {
        fprintf(stderr, "bench_debug: cannot load the course from %s (run from the repository root)\n", lessons);
        rc = 1;
    }
    if (!rc && scan) {
        setenv("XDG_CACHE_HOME", dir, 1);
        rc = scan_course(course);
    }
    bool step_ok = true, all_ok = true;
    printf("warp debugger: a key -> the next frame (issue 14 part 3)\n\n");
    for (int i = 0; i < n_ids && !rc; i++) {
        char *cache = xasprintf("%s/cache-%d", dir, i);
        setenv("XDG_CACHE_HOME", cache, 1);
        free(cache);
        rc = bench_exercise(course, ids[i], &step_ok, &all_ok);
    }
    if (!rc) {
        printf("stepping (n p b), p99 <= %.0f ms: %s\n", GOAL_MS, step_ok ? "PASS" : "FAIL");
        printf("every key, w B and the first frame with a warm cache too (they record again): %s\n",
               all_ok ? "PASS" : "FAIL");
    }
    course_free(&course);
    free(lessons);
    char *cmd = xasprintf("rm -rf %s", dir);
    if (system(cmd) != 0) fprintf(stderr, "bench_debug: could not remove %s\n", dir);
    free(cmd);
    return rc;
}
