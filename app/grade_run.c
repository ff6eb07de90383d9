/* app/grade_run.c: the runs of `cudojo grade`. Every (student, exercise)
 * whose current source has no run under this course version in the grading
 * database is run in one of g->jobs sandboxed workers (app/runner.h) with the
 * exercise's timeout and grading = true, in round-robin order by student (so
 * one student's slow kernels cannot hold everyone else back; each student
 * starts at a different exercise: grade_order_item), and recorded
 * the moment it ends: a kill -9 loses at most the runs in flight, and the
 * next grade resumes where this one stopped.
 *
 * On a GPU with the emulator check on (g->emu_check), a run that passes is
 * run again, the same file and request, in the same slot's emulator worker
 * (no GPU lock: it runs beside the others' GPU work), and recorded once that
 * second run ends with the verdict grade_verdict_judge gives them together
 * (grade_verdict.c: a pass the emulator finds a bug in is a fail). The
 * slot's GPU worker goes on with the next run meanwhile (two lanes per
 * slot); a pass that needs the emulator while it still checks the one
 * before waits for it, and the slot takes no new run until then. A
 * program exercise's check runs the executable the GPU run built (its
 * PTX, compute_90 on an H200, on the emulator runtime), from the nvcc cache.
 *
 * Compiling ahead (grade_ahead.c): each turn of the loop hands the
 * compile-ahead threads what is wanted next, most urgent first: the
 * emulator check's builds of passes waiting for it and of GPU runs in
 * progress, then the GPU lane's builds of the next runs in the work
 * order (AHEAD_WINDOW_*; never one a worker has started). A run whose
 * build is being compiled ahead when a slot is free waits for that
 * compile, and the next one goes first (take_next): a worker never waits
 * for a compile below its own priority. */
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "app/attempt.h"
#include "app/grade.h"
#include "app/runner.h"
#include "base/fs.h"
#include "base/i18n.h"
#include "base/xalloc.h"
#include "kernels/program.h"

typedef struct Work {
    int student, item;
} Work;

typedef struct Slot {
    Runner *runner;
    Runner *emu;                /* the emulator check's worker (started on first use) */
    Work work;                  /* the GPU lane's run */
    bool busy;                  /* the GPU lane runs `work` */
    RunResult *first;           /* the GPU's pass the emulator lane checks; NULL when that lane is idle */
    Work check;                 /* whose pass that is */
    RunResult *pending;         /* a GPU pass waiting for the emulator lane; NULL when none */
    Work pending_work;
} Slot;

/* The emulator check's limit, in the exercise's timeouts: the emulator runs
   beside the GPU work of every other slot, on cores they share. */
#define EMU_CHECK_TIMEOUT_SCALE 2.0

/* Test hook (tests/grade/test_grade_emucheck.sh): the program the GPU runs'
   workers are, in place of this cudojo; a stand-in for a GPU on a machine
   without one. Never set outside tests. */
#define GPU_WORKER_TEST_HOOK "CUDOJO_GRADE_TEST_GPU_WORKER"

/* The runs ahead of the next one whose builds are compiled ahead: in jobs
   (a worker's run takes about as long as a compile), at least this many. */
#define AHEAD_WINDOW_JOBS 2
#define AHEAD_WINDOW_MIN 4

static volatile sig_atomic_t grade_interrupted;

static void on_sigint(int sig) {
    (void)sig;
    grade_interrupted = 1;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void grade_lock_add(GradeLockTotals *t, const json_t *metrics) {
    json_t *l = metrics ? json_object_get(metrics, "gpu_lock") : NULL;
    if (!json_is_object(l)) return;
    t->wait_s += json_number_value(json_object_get(l, "wait_ms")) / 1e3;
    t->exclusive_s += json_number_value(json_object_get(l, "exclusive_ms")) / 1e3;
    t->shared_s += json_number_value(json_object_get(l, "shared_ms")) / 1e3;
    t->runs++;
}

char *grade_item_display(const GradeItem *it) {
    return xasprintf("%s/%s", it->ch->id, path_basename(it->ex->source));
}

/* Records one finished run, with the emulator's run of the same file when
 * it checked a GPU pass (emu may be NULL). */
static Diag *record(Grade *g, const Work *w, RunResult *res, const RunResult *emu) {
    const GradeStudent *s = &g->students[w->student];
    const ExerciseMeta *ex = g->items[w->item].ex;
    GradeVerdict v = grade_verdict_judge(res, emu, !ex->program);
    json_t *rj = run_result_to_json(res);
    if (v.emulator_check) json_object_set(rj, "emulator_check", v.emulator_check);
    char *rtext = json_dumps(rj, JSON_COMPACT);
    json_decref(rj);
    GradeRun run = {.student = s->name, .exercise = ex->id, .source_sha256 = s->shas[w->item],
                    .course_version = g->course_version, .verdict = v.verdict, .failure_kind = v.failure_kind,
                    .points = v.pass ? ex->points : 0, .max_points = ex->points,
                    .fast = v.pass && run_result_fast(res), .duration_ms = res->duration_ms,
                    .kernel_ms = run_result_kernel_ms(res), .backend = res->backend,
                    .message = v.message ? v.message : res->summary, .result_json = rtext,
                    .emu_check = g->emu_check};
    bool inserted = false;
    Diag *d = gradedb_record_run(g->db, &run, &inserted);
    if (inserted) {
        g->runs_executed++;
        grade_lock_add(&g->lock, res->metrics);
        if (emu) g->emu_checks++;
        if (emu && json_is_true(json_object_get(v.emulator_check, "overturned"))) g->emu_overturned++;
    }
    free(rtext);
    grade_verdict_fini(&v);
    return d;
}

static void format_eta(char *buf, size_t n, double s) {
    if (!isfinite(s) || s < 0) snprintf(buf, n, "--:--");
    else if (s >= 3600) snprintf(buf, n, "%d:%02d:%02d", (int)s / 3600, (int)s / 60 % 60, (int)s % 60);
    else snprintf(buf, n, "%02d:%02d", (int)s / 60, (int)s % 60);
}

typedef struct Progress {
    bool tty;
    long long total, done;
    double t0, last_print;
    long long last_done;
    /* The emulator check: its runs count as runs. `total` is the first runs
       plus the checks started plus, for the first runs still to end, as many
       as the share of GPU passes so far predicts. */
    long long first_runs, first_done, checks;
} Progress;

static void progress_count_check(Progress *p, bool first_ended, bool check_started) {
    if (first_ended) p->first_done++;
    if (check_started) p->checks++;
    long long left = p->first_runs - p->first_done;
    p->total = p->first_runs + p->checks + (p->first_done ? (p->checks * left + p->first_done / 2) / p->first_done : 0);
}

static void progress_show(Progress *p, bool final) {
    double t = now_s(), el = t - p->t0;
    double rate = el > 0 ? p->done / el : 0;
    char eta[32];
    format_eta(eta, sizeof eta, rate > 0 ? (p->total - p->done) / rate : NAN);
    if (p->tty) {
        if (!final && t - p->last_print < 0.2) return;
        int width = 30, fill = p->total ? (int)(width * p->done / p->total) : width;
        char bar[64];
        for (int i = 0; i < width; i++) bar[i] = i < fill ? '#' : '.';
        bar[width] = '\0';
        fprintf(stderr, _("\r  [%s] %lld/%lld runs  %.1f runs/s  ETA %s "), bar, p->done, p->total, rate, eta);
        if (final) fputc('\n', stderr);
    } else {
        bool step = p->total && (p->done - p->last_done) * 10 >= p->total;
        if (!final && !step && t - p->last_print < 5) return;
        fprintf(stderr, _("grade: %lld/%lld runs, %.1f runs/s, ETA %s\n"), p->done, p->total, rate, eta);
        p->last_done = p->done;
    }
    p->last_print = t;
}

/* Records every submission, and the runs of missing files; fills the work list. */
static Diag *plan(Grade *g, Work **work_out, long long *n_out) {
    Diag *d = NULL;
    const char **ids = xcalloc((size_t)g->n_items + 1, sizeof *ids);
    const char **shas = xcalloc((size_t)g->n_items + 1, sizeof *shas);
    for (int si = 0; si < g->n_students && !d; si++) {
        GradeStudent *s = &g->students[si];
        int n = 0;
        for (int i = 0; i < g->n_items; i++) {
            if (g->items[i].skipped) continue;
            ids[n] = g->items[i].ex->id;
            shas[n++] = s->shas[i];
        }
        char *problems = json_dumps(s->problems, JSON_COMPACT);
        GradeSubmission sub = {.student = s->name, .workspace_uuid = s->workspace_uuid, .origin = s->origin,
                               .origin_sha256 = s->origin_sha256, .submitted_unix_ms = s->submitted_unix_ms,
                               .course_version_submitted = s->course_version_submitted,
                               .progress_json = s->progress_json, .problems_json = problems};
        d = gradedb_put_submission(g->db, &sub, ids, shas, n);
        free(problems);
    }
    free(ids);
    free(shas);
    /* Round-robin by student, each starting at a different exercise. */
    int *live = xcalloc((size_t)g->n_items + 1, sizeof *live);
    int n_live = 0;
    for (int i = 0; i < g->n_items; i++)
        if (!g->items[i].skipped) live[n_live++] = i;
    /* CUDOJO_GRADE_ORDER=by-exercise: every student's first exercise, then every student's second... (the order
       before grade_order_item, kept for bench_grade's A/B) */
    const char *order = getenv("CUDOJO_GRADE_ORDER");
    bool by_exercise = order && !strcmp(order, "by-exercise");
    Work *work = xcalloc((size_t)g->n_students * (size_t)g->n_items + 1, sizeof *work);
    long long n = 0;
    for (int r = 0; r < n_live && !d; r++) {
        for (int si = 0; si < g->n_students && !d; si++) {
            int i = live[by_exercise ? r : grade_order_item(r, si, g->n_students, n_live)];
            const ExerciseMeta *ex = g->items[i].ex;
            GradeStudent *s = &g->students[si];
            bool has = false;
            d = gradedb_has_run_checked(g->db, s->name, ex->id, s->shas[i], g->course_version, g->emu_check, &has);
            if (d) break;
            if (has) {
                g->runs_reused++;
            } else if (!s->shas[i]) {
                char *msg = xasprintf("no %s/%s in the submission", g->items[i].ch->id, ex->source);
                GradeRun run = {.student = s->name, .exercise = ex->id, .course_version = g->course_version,
                                .verdict = "missing", .failure_kind = "missing", .max_points = ex->points,
                                .duration_ms = -1, .kernel_ms = -1, .message = msg};
                d = gradedb_record_run(g->db, &run, NULL);
                free(msg);
                g->runs_missing++;
            } else {
                work[n++] = (Work){si, i};
            }
        }
    }
    free(live);
    *work_out = work;
    *n_out = n;
    return d;
}

/* Offsets spread evenly over the course while there are fewer students
 * than exercises (3 students of 92: 0, 30, 61); beyond that student s
 * starts at s mod n_items, so students starting alike are n_items apart in
 * a round. */
int grade_order_item(int round, int student, int n_students, int n_items) {
    if (n_items <= 0 || n_students <= 0) return 0;
    long long off = n_students <= n_items ? (long long)student * n_items / n_students : student % n_items;
    return (int)((round + off) % n_items);
}

/* The SASS architecture the GPU run built with (metrics.compile: the
 * program's, lua/program.c, or the kernels' cubin, lua/kernel.c); 0 when it
 * built none. */
static int gpu_sass_arch(const RunResult *gpu) {
    json_t *comp = gpu->metrics ? json_object_get(gpu->metrics, "compile") : NULL;
    json_t *arch = json_object_get(comp, "sass_arch");
    return json_is_integer(arch) && json_integer_value(arch) > 0 && json_integer_value(arch) < 1000
               ? (int)json_integer_value(arch)
               : 0;
}

/* Starts the run of w in the slot's worker, or (gpu: the GPU's pass of it)
 * the emulator check of it in the slot's emulator worker. NULL when it
 * started. The check builds as the GPU run did (same source, defines,
 * confinement and SASS), so the compiler runs once: the emulator runs the
 * PTX the GPU's SASS came from, found in the nvcc cache (a program) or the
 * NVRTC cache (a kernel exercise's module, its cubin beside it). Where the
 * check's defines differ from the GPU run's (sized by backend), it builds
 * anew, as a GPU would. */
static Diag *start_run(Grade *g, Slot *slot, Work w, const RunResult *gpu) {
    const GradeStudent *s = &g->students[w.student];
    const GradeItem *it = &g->items[w.item];
    char *shown = grade_item_display(it);
    RunRequest req = {.exercise_id = it->ex->id, .chapter_dir = it->ch->dir, .cu_path = s->paths[w.item],
                      .cu_display = shown,
                      .timeout_s = it->ex->timeout_s * (gpu ? EMU_CHECK_TIMEOUT_SCALE : 1),
                      .grading = true, .grading_seed = g->seed,
                      /* the GPU's run: t:program{ emulator = true } leaves its emulator run to the check */
                      .emu_checked = !gpu && grade_emu_check_planned(g->emu_check, it->ex),
                      .sass_arch = gpu ? gpu_sass_arch(gpu) : 0};
    Diag *d = runner_start(gpu ? slot->emu : slot->runner, &req);
    free(shown);
    return d;
}

/* A result for a run whose worker could not start. */
static RunResult *not_started(const GradeItem *it, Diag **d) {
    RunResult *res = run_result_new(VERDICT_CRASH);
    res->exercise_id = xstrdup(it->ex->id);
    res->summary = xstrdup((*d)->message);
    diag_free(d);
    return res;
}

static void start(Grade *g, Slot *slot, Work w) {
    Diag *d = start_run(g, slot, w, NULL);
    slot->work = w;
    slot->busy = d == NULL;
    if (d) {
        /* The worker could not start: recorded as a crash of this run, so grading goes on. */
        RunResult *res = not_started(&g->items[w.item], &d);
        Diag *rd = record(g, &w, res, NULL);
        diag_free(&rd);
        run_result_free(&res);
    }
}

/* The emulator lane checks the GPU's pass `res` (owned) of w; when its
 * worker cannot start, the GPU's verdict stands and the record says why. */
static void check_start(Grade *g, Slot *slot, Work w, RunResult *res, RunnerConfig *emu_cfg, Progress *p,
                        Diag **d) {
    if (!slot->emu) slot->emu = runner_new(emu_cfg);
    Diag *sd = start_run(g, slot, w, res);
    progress_count_check(p, false, sd == NULL);
    if (!sd) {
        slot->first = res;
        slot->check = w;
        return;
    }
    RunResult *emu = not_started(&g->items[w.item], &sd);
    *d = record(g, &w, res, emu);
    run_result_free(&emu);
    run_result_free(&res);
}

/* The GPU lane's run ended (res, owned): recorded, or left in
 * slot->pending for the emulator lane (the main loop starts the GPU lane's
 * next run first, then the check: a worker's start takes a while). */
static void gpu_done(Grade *g, Slot *slot, RunResult *res, Progress *p, Diag **d) {
    const GradeItem *it = &g->items[slot->work.item];
    slot->busy = false;
    if (res->verdict == VERDICT_CANCELLED) {
        run_result_free(&res);
        return;
    }
    progress_count_check(p, true, false);
    grade_ahead_took(g->ahead, GRADE_LANE_GPU, slot->work.student, slot->work.item, res);
    if (!grade_emu_check_wanted(g->emu_check, it->ex, res)) {
        *d = record(g, &slot->work, res, NULL);
        run_result_free(&res);
    } else {
        slot->pending = res;
        slot->pending_work = slot->work;
    }
}

/* The emulator lane takes the pass that waits, when it is free. */
static void check_next(Grade *g, Slot *slot, RunnerConfig *emu_cfg, Progress *p, Diag **d) {
    if (!slot->pending || slot->first) return;
    RunResult *next = slot->pending;
    slot->pending = NULL;
    check_start(g, slot, slot->pending_work, next, emu_cfg, p, d);
}

/* The emulator lane's check ended (res, owned): the pair is recorded. */
static void check_done(Grade *g, Slot *slot, RunResult *res, Diag **d) {
    if (res->verdict != VERDICT_CANCELLED) {
        grade_ahead_took(g->ahead, GRADE_LANE_EMU, slot->check.student, slot->check.item, res);
        *d = record(g, &slot->check, slot->first, res);
    }
    run_result_free(&slot->first);
    run_result_free(&res);
}

static void keep_first(Diag **d, Diag *rd) {
    if (!*d) *d = rd;
    else diag_free(&rd);
}

static bool slot_active(const Slot *s) { return s->busy || s->first || s->pending; }

static long long ahead_window(int jobs) {
    return AHEAD_WINDOW_JOBS * jobs > AHEAD_WINDOW_MIN ? AHEAD_WINDOW_JOBS * jobs : AHEAD_WINDOW_MIN;
}

/* The run a free slot starts: the first one not started, from `next` on;
 * but one whose build is being compiled ahead right now (below the
 * worker's priority) lets the next one not started go first, and starts
 * once that compile has ended (grade_ahead_claim). Only when each of the
 * window's runs not started is being compiled does the worker wait for
 * one (its compile waits for the entry's lock). Advances *next past what
 * has started. */
static long long take_next(Grade *g, const Work *work, bool *taken, long long *next, long long n_work, int jobs) {
    long long pick = -1, seen = 0, window = ahead_window(jobs);
    for (long long w = *next; w < n_work && seen < window && pick < 0; w++) {
        if (taken[w]) continue;
        seen++;
        if (grade_ahead_claim(g->ahead, work[w].student, work[w].item, false)) pick = w;
    }
    if (pick < 0) {
        pick = *next;
        grade_ahead_claim(g->ahead, work[pick].student, work[pick].item, true);
    }
    taken[pick] = true;
    while (*next < n_work && taken[*next]) (*next)++;
    return pick;
}

/* What the compile-ahead threads are to build next, most urgent first. */
static void ahead_want(Grade *g, const Slot *slots, int jobs, const Work *work, const bool *taken, long long next,
                       long long n_work) {
    grade_ahead_want_begin(g->ahead);
    for (int i = 0; g->emu_check && i < jobs; i++)
        if (slots[i].pending) grade_ahead_want(g->ahead, GRADE_LANE_EMU, slots[i].pending_work.student,
                                               slots[i].pending_work.item);
    for (int i = 0; g->emu_check && i < jobs; i++)
        if (slots[i].busy) grade_ahead_want(g->ahead, GRADE_LANE_EMU, slots[i].work.student, slots[i].work.item);
    long long seen = 0;
    for (long long w = next; w < n_work && seen < ahead_window(jobs); w++) {
        if (taken[w]) continue;
        seen++;
        grade_ahead_want(g->ahead, GRADE_LANE_GPU, work[w].student, work[w].item);
    }
    grade_ahead_want_end(g->ahead);
}

Diag *grade_run_all(Grade *g) {
    Work *work = NULL;
    long long n_work = 0;
    Diag *d = plan(g, &work, &n_work);
    if (d || n_work == 0) {
        free(work);
        return d;
    }
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (cores < 1) cores = 1;
    int jobs = g->jobs > 0 ? g->jobs : (int)cores;
    int ahead_threads = 0;
    d = grade_ahead_threads(jobs, &ahead_threads);
    if (d) {
        free(work);
        return d;
    }
    if (jobs > n_work) jobs = (int)n_work;
    int emu_threads = g->cli->emu_threads > 0 ? g->cli->emu_threads : (int)(cores / jobs > 1 ? cores / jobs : 1);
    char *log = path_join(g->out_dir, "workers.log");
    RunnerConfig cfg = {.backend = g->cli->backend, .emu_threads = emu_threads, .stderr_path = log};
    /* The emulator checks run at a lower priority: their CPU goes to timed GPU work first. */
    RunnerConfig emu_cfg = {.backend = BACKEND_EMU, .emu_threads = emu_threads, .stderr_path = log, .nice = 10};
    const char *hook = getenv(GPU_WORKER_TEST_HOOK);
    if (hook && *hook && g->have_gpu) cfg.worker_exe = hook;
    Slot *slots = xcalloc((size_t)jobs, sizeof *slots);
    for (int i = 0; i < jobs; i++) {
        slots[i].runner = runner_new(&cfg);
    }

    struct sigaction sa = {.sa_handler = on_sigint}, old;
    sigaction(SIGINT, &sa, &old);
    Progress p = {.tty = isatty(2) && !g->quiet, .total = n_work, .t0 = now_s(), .first_runs = n_work};
    p.last_print = p.t0;
    if (!g->quiet)
        fprintf(stderr, _("grade: %lld runs to do (%d students, %d workers)%s\n"), n_work, g->n_students, jobs,
                g->runs_reused ? _(", the rest already graded") : "");
    if (!g->quiet && g->emu_check)
        fprintf(stderr, _("grade: a run that passes on the GPU runs again on the emulator, which finds races and stray "
                          "reads the GPU let pass (--emu-check=off: the GPU's verdict alone)\n"));
    /* docs/grading-sandbox.md: without Landlock a graded program reads what the instructor can. */
    const char *sandbox = getenv("CUDOJO_SANDBOX");
    if (program_sandbox_landlock_abi() == 0 || (sandbox && !strcmp(sandbox, "off")))
        fprintf(stderr, _("grade: warning: graded programs are not shut in their folder (%s): they can read "
                          "every file you can; see docs/grading-sandbox.md\n"),
                program_sandbox_landlock_abi() == 0 ? _("this kernel has no Landlock") : "CUDOJO_SANDBOX=off");
    const char *lanes = getenv("CUDOJO_GRADE_LANES");
    bool one_lane = lanes && !strcmp(lanes, "1");
    g->ahead = grade_ahead_start(g, ahead_threads);
    if (!g->quiet && grade_ahead_running(g->ahead))
        fprintf(stderr, _("grade: %d threads compile programs ahead of the workers (CUDOJO_GRADE_AHEAD=0: off)\n"),
                grade_ahead_running(g->ahead));
    long long next = 0;     /* the first run not started; those after it may have (take_next) */
    bool *taken = xcalloc((size_t)n_work + 1, sizeof *taken);
    for (;;) {
        bool any = false;
        for (int i = 0; i < jobs; i++) any = any || slot_active(&slots[i]);
        if (!((next < n_work || any) && !d)) break;
        /* a slot's GPU lane starts while at most one of its passes waits for the emulator lane
           (CUDOJO_GRADE_LANES=1: while none does and the emulator lane is idle, as before session 15) */
        for (int i = 0; i < jobs && next < n_work && !grade_interrupted; i++) {
            if (slots[i].busy || (slots[i].pending && slots[i].first) ||
                (one_lane && (slots[i].pending || slots[i].first)))
                continue;
            start(g, &slots[i], work[take_next(g, work, taken, &next, n_work, jobs)]);
            if (!slots[i].busy) {
                p.done++;
                progress_count_check(&p, true, false);
            }
        }
        if (grade_interrupted) break;
        for (int i = 0; i < jobs; i++) {
            Diag *rd = NULL;
            check_next(g, &slots[i], &emu_cfg, &p, &rd);
            keep_first(&d, rd);
        }
        ahead_want(g, slots, jobs, work, taken, next, n_work);
        struct pollfd fds[512];
        int nf = 0;
        for (int i = 0; i < jobs && nf < 510; i++) {
            if (slots[i].busy && runner_fd(slots[i].runner) >= 0)
                fds[nf++] = (struct pollfd){.fd = runner_fd(slots[i].runner), .events = POLLIN};
            if (slots[i].first && runner_fd(slots[i].emu) >= 0)
                fds[nf++] = (struct pollfd){.fd = runner_fd(slots[i].emu), .events = POLLIN};
        }
        poll(fds, (nfds_t)nf, 100);
        for (int i = 0; i < jobs; i++) {
            RunResult *res = NULL;
            Diag *rd = NULL;
            if (slots[i].first && runner_poll(slots[i].emu, 0, &res) == RUNNER_DONE) {
                p.done++;
                check_done(g, &slots[i], res, &rd);
                keep_first(&d, rd);
            }
            res = NULL;
            rd = NULL;
            if (slots[i].busy && runner_poll(slots[i].runner, 0, &res) == RUNNER_DONE) {
                p.done++;
                gpu_done(g, &slots[i], res, &p, &rd);
                keep_first(&d, rd);
            }
        }
        if (!g->quiet) progress_show(&p, false);
    }
    if (!g->quiet && (p.tty || p.last_done != p.done)) progress_show(&p, true);
    for (int i = 0; i < jobs; i++) {
        if (slots[i].busy) runner_cancel(slots[i].runner);
        if (slots[i].first) runner_cancel(slots[i].emu);
        runner_free(&slots[i].runner);
        runner_free(&slots[i].emu);
        run_result_free(&slots[i].first);
        run_result_free(&slots[i].pending);
    }
    grade_ahead_stop(&g->ahead, &g->ahead_stats);     /* after a compile in progress ends */
    free(slots);
    free(log);
    free(taken);
    free(work);
    sigaction(SIGINT, &old, NULL);
    if (!d && grade_interrupted)
        d = diag_error("interrupted", "grading interrupted: %lld of %lld runs done and recorded; run the same command "
                       "again to go on from there", p.done, p.total);
    return d;
}
