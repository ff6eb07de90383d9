/* app/grade_ahead.c: compile ahead in `cudojo grade`. A program exercise's
 * nvcc build (~1 s) runs inside its worker's run, on the critical path,
 * while cores sit idle (grading 10 submissions on a 16-core H200 node: the
 * cores 59% busy, nvcc 361 s of the runs' 1950). Here K threads of the
 * grader run those builds before the workers reach them, at a lower
 * priority (nice GRADE_AHEAD_NICE, past the workers' own compiles at 10),
 * into the nvcc cache the workers read: the worker's program_compile finds
 * the entry. A run whose build is still being compiled when a slot is free
 * lets the next run go first (grade_ahead_claim); where it cannot, its
 * compile waits for the one in progress (the entry's lock,
 * kernels/program_cache.c) instead of running nvcc a second time.
 *
 * What to build comes from the runs, not from the course: the course's
 * script picks the defines (sized by backend), the same for every student,
 * so an exercise's builds (metrics.compile.builds, lua/program.c) are
 * learnt per lane from its first runs that report them: the GPU lane, and
 * the emulator check's lane, which builds differently where a script sizes
 * its defines by backend. A plan that turns out wrong (defines picked at
 * random, or from the student's output) costs a wasted compile at low
 * priority; an exercise whose builds compiled ahead went unused three
 * times, none used, is compiled ahead no more.
 *
 * What to compile next is the main loop's want list (grade_run.c), most
 * urgent first: the emulator check's builds of GPU passes waiting for it,
 * and of GPU runs in progress (the check follows within seconds), then the
 * GPU lane's builds of the next runs in the work order. A build taken once
 * is not taken again.
 *
 * The threads call program_compile and nothing else of the grader's:
 * program_compile's lazy statics are filled first, here, on the main thread,
 * and nothing sets the environment while they run. They read g->items and
 * the students' paths (fixed while grading) and, under the mutex, the plans,
 * the want list and the per-file bits. */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/grade.h"
#include "base/bytes.h"
#include "base/fs.h"
#include "base/i18n.h"
#include "base/number.h"
#include "base/xalloc.h"
#include "kernels/include_check.h"
#include "kernels/program.h"

/* Above the workers' confined compiles (10): idle cores first. */
#define GRADE_AHEAD_NICE 15
/* The distinct builds remembered per exercise (a bit each per file). */
#define AHEAD_MAX_BUILDS 32
/* Builds compiled ahead, gone unused, none used: the plan is dropped. */
#define AHEAD_GIVE_UP 3
#define AHEAD_MAX_THREADS 64

/* One nvcc build of an exercise: what makes its cache key besides the file. */
typedef struct AheadBuild {
    char **defines;
    int n_defines;
    int sass_arch;
    bool confine;
} AheadBuild;

/* An exercise's builds (the union of both lanes'), and each lane's plan:
 * indices into them. */
typedef struct AheadItem {
    AheadBuild builds[AHEAD_MAX_BUILDS];
    int n_builds;
    uint32_t plan[GRADE_LANES];
    bool settled[GRADE_LANES];  /* learnt from a pass: no more builds added */
    int unused, used;           /* compiled-ahead builds a finished run did not / did take */
} AheadItem;

typedef struct AheadWant {
    GradeLane lane;
    int student, item;
} AheadWant;

struct GradeAhead {
    const Grade *g;
    int n_threads;
    int nice;                   /* the compiles' niceness (ahead_nice) */
    pthread_t *threads;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool stop;
    AheadItem *items;           /* per GradeItem */
    AheadWant *want;            /* most urgent first */
    int n_want, cap_want;
    /* Per file (student * n_items + item): builds taken by a thread (or
       claimed by the worker's run: never to be taken), ended, compiled ahead
       (nvcc ran and published), taken by a worker's build. */
    uint32_t *started, *ended, *built, *used;
    GradeAheadStats st;
};

/* ---- plans ---- */

static bool build_equal(const AheadBuild *a, const AheadBuild *b) {
    if (a->n_defines != b->n_defines || a->sass_arch != b->sass_arch || a->confine != b->confine) return false;
    for (int i = 0; i < a->n_defines; i++)
        if (strcmp(a->defines[i], b->defines[i])) return false;
    return true;
}

static void build_fini(AheadBuild *b) {
    for (int i = 0; i < b->n_defines; i++) free(b->defines[i]);
    free(b->defines);
    memset(b, 0, sizeof *b);
}

/* A build of metrics.compile.builds; false when it is not one. Fills *b (build_fini). */
static bool build_from_json(const json_t *j, AheadBuild *b) {
    memset(b, 0, sizeof *b);
    json_t *defs = json_object_get(j, "defines"), *arch = json_object_get(j, "sass_arch");
    if (!json_is_array(defs) || !json_is_integer(arch) || !json_is_boolean(json_object_get(j, "confine"))) return false;
    b->sass_arch = (int)json_integer_value(arch);
    b->confine = json_is_true(json_object_get(j, "confine"));
    b->defines = xcalloc(json_array_size(defs) + 1, sizeof *b->defines);
    size_t i;
    json_t *d;
    json_array_foreach(defs, i, d) {
        char *s = bytes_from_json(d);
        if (!s) {
            build_fini(b);
            return false;
        }
        b->defines[b->n_defines++] = s;
    }
    return true;
}

/* The index of `b` among the exercise's builds, added (taking b's strings)
 * when `add`; -1 when absent (b is left to the caller). */
static int item_build(AheadItem *it, AheadBuild *b, bool add) {
    for (int k = 0; k < it->n_builds; k++)
        if (build_equal(&it->builds[k], b)) return k;
    if (!add || it->n_builds == AHEAD_MAX_BUILDS) return -1;
    it->builds[it->n_builds] = *b;
    memset(b, 0, sizeof *b);
    return it->n_builds++;
}

static const json_t *builds_of(const RunResult *res) {
    json_t *comp = res && res->metrics ? json_object_get(res->metrics, "compile") : NULL;
    json_t *b = json_object_get(comp, "builds");
    return json_is_array(b) ? b : NULL;
}

static uint32_t *file_bits(uint32_t *v, const Grade *g, int student, int item) {
    return &v[(size_t)student * (size_t)g->n_items + (size_t)item];
}

static int popcount32(uint32_t x) {
    int n = 0;
    for (; x; x &= x - 1) n++;
    return n;
}

void grade_ahead_took(GradeAhead *a, GradeLane lane, int student, int item, const RunResult *res) {
    const json_t *builds = builds_of(res);
    if (!a || !builds) return;
    pthread_mutex_lock(&a->mu);
    AheadItem *it = &a->items[item];
    bool learn = !it->settled[lane];
    uint32_t took = 0;
    size_t i;
    json_t *j;
    json_array_foreach(builds, i, j) {
        AheadBuild b;
        if (!build_from_json(j, &b)) continue;
        int k = item_build(it, &b, learn);
        build_fini(&b);
        bool hit = json_is_true(json_object_get(j, "cache_hit"));
        if (k >= 0 && learn) it->plan[lane] |= 1u << k;
        if (k >= 0 && hit && (*file_bits(a->built, a->g, student, item) >> k & 1)) {
            a->st.hits++;
            if (json_number_value(json_object_get(j, "wait_ms")) > 0) a->st.waited++;
            took |= 1u << k;
        } else if (!hit) {
            a->st.worker_compiled++;
        }
    }
    if (learn && res->verdict == VERDICT_PASS) it->settled[lane] = true;
    uint32_t *used = file_bits(a->used, a->g, student, item);
    *used |= took;
    /* Whether the plan was right for this file: what was compiled ahead for
       the lane that ran, and what of it was taken (by this run or one before). */
    uint32_t ahead = *file_bits(a->built, a->g, student, item) & it->plan[lane];
    if (ahead) {
        if (ahead & *used) it->used++;
        else it->unused++;
    }
    pthread_mutex_unlock(&a->mu);
}

/* Whether the exercise's plans are still worth compiling ahead. */
static bool item_live(const AheadItem *it) { return !(it->unused >= AHEAD_GIVE_UP && it->used == 0); }

bool grade_ahead_claim(GradeAhead *a, int student, int item, bool force) {
    if (!a || !a->n_threads) return true;
    pthread_mutex_lock(&a->mu);
    uint32_t gpu = a->items[item].plan[GRADE_LANE_GPU];
    uint32_t *started = file_bits(a->started, a->g, student, item);
    bool compiling = *started & ~*file_bits(a->ended, a->g, student, item) & gpu;
    bool ok = force || !compiling;
    if (ok) *started |= gpu;    /* the worker builds the rest itself */
    pthread_mutex_unlock(&a->mu);
    return ok;
}

/* ---- the want list (main thread) ---- */

void grade_ahead_want_begin(GradeAhead *a) {
    if (!a || !a->n_threads) return;
    pthread_mutex_lock(&a->mu);
    a->n_want = 0;
}

void grade_ahead_want(GradeAhead *a, GradeLane lane, int student, int item) {
    if (!a || !a->n_threads) return;
    if (a->n_want == a->cap_want) {
        a->cap_want = a->cap_want ? 2 * a->cap_want : 64;
        a->want = xrealloc(a->want, (size_t)a->cap_want * sizeof *a->want);
    }
    a->want[a->n_want++] = (AheadWant){lane, student, item};
}

void grade_ahead_want_end(GradeAhead *a) {
    if (!a || !a->n_threads) return;
    pthread_cond_broadcast(&a->cv);
    pthread_mutex_unlock(&a->mu);
}

/* ---- the threads ---- */

/* The first build wanted and not yet taken (under the mutex): marks it
 * taken and copies what its compile needs. */
static bool take_task(GradeAhead *a, int *student, int *item, int *build, AheadBuild *b) {
    for (int w = 0; w < a->n_want; w++) {
        const AheadWant *x = &a->want[w];
        const AheadItem *it = &a->items[x->item];
        if (!item_live(it)) continue;
        uint32_t todo = it->plan[x->lane] & ~*file_bits(a->started, a->g, x->student, x->item);
        /* The emulator check's builds that are also the GPU lane's: the GPU run builds those itself. */
        if (x->lane == GRADE_LANE_EMU) todo &= ~it->plan[GRADE_LANE_GPU];
        if (!todo) continue;
        int k = 0;
        while (!(todo >> k & 1)) k++;
        *file_bits(a->started, a->g, x->student, x->item) |= 1u << k;
        const AheadBuild *src = &it->builds[k];
        b->n_defines = src->n_defines;
        b->sass_arch = src->sass_arch;
        b->confine = src->confine;
        b->defines = xcalloc((size_t)src->n_defines + 1, sizeof *b->defines);
        for (int i = 0; i < src->n_defines; i++) b->defines[i] = xstrdup(src->defines[i]);
        *student = x->student;
        *item = x->item;
        *build = k;
        return true;
    }
    return false;
}

/* One build, as the worker will ask for it (grade_run.c's start_run, lua/program.c's program_for). */
static void compile_one(GradeAhead *a, int student, int item, int k, const AheadBuild *b) {
    const Grade *g = a->g;
    const char *path = g->students[student].paths[item];
    char *display = grade_item_display(&g->items[item]);
    char *text = NULL;
    size_t len = 0;
    Diag *d = path ? fs_read_file(path, &text, &len) : diag_error("io", "no file");
    /* What the worker refuses to compile is not compiled here either. */
    if (!d) d = include_check_graded(display, text, len);
    CompiledProgram *cp = NULL;
    if (!d) {
        ProgramCompileOptions co = {.sass_arch = b->sass_arch, .defines = (const char *const *)b->defines,
                                    .n_defines = b->n_defines, .confine = b->confine, .nice = a->nice};
        d = program_compile(display, text, &co, &cp);
    }
    pthread_mutex_lock(&a->mu);
    *file_bits(a->ended, g, student, item) |= 1u << k;
    if (d) {
        a->st.failed++;
    } else if (cp->cache_hit) {
        a->st.found++;
    } else {
        a->st.compiled++;
        *file_bits(a->built, g, student, item) |= 1u << k;
    }
    pthread_mutex_unlock(&a->mu);
    compiled_program_free(&cp);
    diag_free(&d);
    free(text);
    free(display);
}

static void *ahead_thread(void *arg) {
    GradeAhead *a = arg;
    pthread_mutex_lock(&a->mu);
    while (!a->stop) {
        int student, item, k;
        AheadBuild b;
        if (!take_task(a, &student, &item, &k, &b)) {
            pthread_cond_wait(&a->cv, &a->mu);
            continue;
        }
        pthread_mutex_unlock(&a->mu);
        compile_one(a, student, item, k, &b);
        build_fini(&b);
        pthread_mutex_lock(&a->mu);
    }
    pthread_mutex_unlock(&a->mu);
    return NULL;
}

/* ---- start and stop ---- */

Diag *grade_ahead_threads(int jobs, int *out) {
    /* A quarter of the workers (the cores by default, a Slurm task's CPUs with --jobs): 4 on a
       16-core node, where nvcc took 2.7 cores' worth of the grading (361 s in 134 s). */
    *out = jobs >= 8 ? jobs / 4 : 1;
    const char *e = getenv("CUDOJO_GRADE_AHEAD");
    if (!e || !*e) return NULL;
    long long n;
    if (!number_whole(e, 0, AHEAD_MAX_THREADS, &n))
        return diag_error("usage", "CUDOJO_GRADE_AHEAD=%s: the number of threads compiling ahead, 0 (off) to %d", e,
                          AHEAD_MAX_THREADS);
    *out = (int)n;
    return NULL;
}

/* CUDOJO_GRADE_AHEAD_NICE (0..19) in place of GRADE_AHEAD_NICE: for tests
 * on a loaded machine, where nice 15 can starve, and to measure. */
static int ahead_nice(void) {
    long long n = GRADE_AHEAD_NICE;
    number_whole(getenv("CUDOJO_GRADE_AHEAD_NICE"), 0, 19, &n);
    return (int)n;
}

GradeAhead *grade_ahead_start(const Grade *g, int n_threads) {
    GradeAhead *a = xcalloc(1, sizeof *a);
    a->g = g;
    a->nice = ahead_nice();
    a->items = xcalloc((size_t)g->n_items + 1, sizeof *a->items);
    size_t files = (size_t)g->n_students * (size_t)g->n_items + 1;
    a->started = xcalloc(files, sizeof *a->started);
    a->ended = xcalloc(files, sizeof *a->ended);
    a->built = xcalloc(files, sizeof *a->built);
    a->used = xcalloc(files, sizeof *a->used);
    pthread_mutex_init(&a->mu, NULL);
    pthread_cond_init(&a->cv, NULL);
    bool programs = false;
    for (int i = 0; i < g->n_items; i++) programs = programs || (!g->items[i].skipped && g->items[i].ex->program);
    /* Nothing to build ahead without programs or nvcc; the counts are kept all the same. */
    if (!programs || !program_nvcc_path()) n_threads = 0;
    if (n_threads > 0) {
        /* program_compile's lazy statics, filled before any thread reads them. */
        program_nvcc_version();
        program_sandbox_landlock_abi();
        /* The threads take no signal: the main thread's SIGINT handler stops the grading. */
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        a->threads = xcalloc((size_t)n_threads, sizeof *a->threads);
        for (int i = 0; i < n_threads; i++) {
            if (pthread_create(&a->threads[i], NULL, ahead_thread, a) != 0) break;
            a->n_threads++;
        }
        pthread_sigmask(SIG_SETMASK, &old, NULL);
    }
    a->st.threads = a->n_threads;
    return a;
}

void grade_ahead_stop(GradeAhead **ap, GradeAheadStats *out) {
    GradeAhead *a = *ap;
    if (!a) return;
    pthread_mutex_lock(&a->mu);
    a->stop = true;
    pthread_cond_broadcast(&a->cv);
    pthread_mutex_unlock(&a->mu);
    for (int i = 0; i < a->n_threads; i++) pthread_join(a->threads[i], NULL);
    size_t files = (size_t)a->g->n_students * (size_t)a->g->n_items;
    for (size_t f = 0; f < files; f++) a->st.unused += popcount32(a->built[f] & ~a->used[f]);
    if (out) *out = a->st;
    for (int i = 0; i < a->g->n_items; i++)
        for (int k = 0; k < a->items[i].n_builds; k++) build_fini(&a->items[i].builds[k]);
    pthread_mutex_destroy(&a->mu);
    pthread_cond_destroy(&a->cv);
    free(a->items);
    free(a->started);
    free(a->ended);
    free(a->built);
    free(a->used);
    free(a->want);
    free(a->threads);
    free(a);
    *ap = NULL;
}

int grade_ahead_running(const GradeAhead *a) { return a ? a->n_threads : 0; }

/* ---- the summary ---- */

json_t *grade_ahead_json(const GradeAheadStats *s) {
    return json_pack("{s:i, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "threads", s->threads, "compiled",
                     (json_int_t)s->compiled, "found", (json_int_t)s->found, "failed", (json_int_t)s->failed,
                     "hits", (json_int_t)s->hits, "waited", (json_int_t)s->waited, "unused",
                     (json_int_t)s->unused, "worker_compiled", (json_int_t)s->worker_compiled);
}

void grade_ahead_print(FILE *out, const json_t *j) {
    if (!json_is_object(j)) return;
    long long threads = json_integer_value(json_object_get(j, "threads"));
    long long compiled = json_integer_value(json_object_get(j, "compiled"));
    long long hits = json_integer_value(json_object_get(j, "hits"));
    long long waited = json_integer_value(json_object_get(j, "waited"));
    long long unused = json_integer_value(json_object_get(j, "unused"));
    long long failed = json_integer_value(json_object_get(j, "failed"));
    long long worker = json_integer_value(json_object_get(j, "worker_compiled"));
    if (!threads) {
        if (worker) fprintf(out, _("nvcc builds: %lld, in the workers' runs (compile ahead off)\n"), worker);
        return;
    }
    fprintf(out,
            _("compile ahead (%lld threads): %lld nvcc builds ahead, %lld worker builds took one (%lld of them "
              "waiting for it to finish), %lld unused, %lld failed; %lld nvcc builds in the workers' runs\n"),
            threads, compiled, hits, waited, unused, failed, worker);
}
