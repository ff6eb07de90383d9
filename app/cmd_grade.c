/* app/cmd_grade.c: `cudojo grade SUBMISSIONS... --course DIR --out DIR`:
 * grades a class against the instructor's course (never a learner's Lua)
 * into OUT/grade.db, then writes the gradebook, per-student results and
 * feedback, and the similarity report. `--merge DB...` joins shard
 * databases instead of running anything. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "app/grade.h"
#include "app/grade_slurm.h"
#include "base/bytes.h"
#include "base/fs.h"
#include "base/i18n.h"
#include "base/sha256.h"
#include "base/xalloc.h"
#include "kernels/host_pool.h"

typedef struct GradeArgs {
    const char *course, *out, *shard, *exercises, *seed;
    char **subs, **merges;
    int n_subs, n_merges, jobs;
    /* --slurm: the grading as an array job of `shards` tasks (app/grade_slurm.h). */
    bool slurm, no_wait;
    int shards;
    const char *partition, *gres, *time_limit;
    int emu_check;              /* --emu-check: 1 on, 0 off, -1 not given (on with a GPU) */
} GradeArgs;

static double mono_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int usage(const char *fmt, const char *arg) {
    fprintf(stderr, "cudojo grade: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n(see `cudojo grade --help`)\n");
    return 2;
}

static int parse_args(GradeArgs *a, int argc, char **argv) {
    memset(a, 0, sizeof *a);
    a->emu_check = -1;
    a->subs = xcalloc((size_t)argc + 1, sizeof *a->subs);
    a->merges = xcalloc((size_t)argc + 1, sizeof *a->merges);
    bool in_merge = false;
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        const char **target = !strcmp(s, "--course")      ? &a->course
                              : !strcmp(s, "--out")       ? &a->out
                              : !strcmp(s, "--shard")     ? &a->shard
                              : !strcmp(s, "--exercises") ? &a->exercises
                              : !strcmp(s, "--seed")      ? &a->seed
                              : !strcmp(s, "--partition") ? &a->partition
                              : !strcmp(s, "--gres")      ? &a->gres
                              : !strcmp(s, "--time")      ? &a->time_limit
                                                          : NULL;
        if (target || !strcmp(s, "--jobs") || !strcmp(s, "-j")) {
            if (i + 1 >= argc) return usage("%s needs a value", s);
            in_merge = false;
            if (target) {
                *target = argv[++i];
                continue;
            }
            char *end;
            long n = strtol(argv[++i], &end, 10);
            if (*end || n < 1 || n > 256) return usage("--jobs %s: a number of workers from 1 to 256", argv[i]);
            a->jobs = (int)n;
        } else if (!strcmp(s, "--slurm") || !strcmp(s, "--no-wait")) {
            *(!strcmp(s, "--slurm") ? &a->slurm : &a->no_wait) = true;
            in_merge = false;
        } else if (!strcmp(s, "--shards")) {
            char *end;
            long n = i + 1 < argc ? strtol(argv[i + 1], &end, 10) : 0;
            if (n < 1 || n > 10000 || *end) return usage("--shards needs a number of tasks from 1 to 10000%s", "");
            a->shards = (int)n;
            i++;
            in_merge = false;
        } else if (!strncmp(s, "--emu-check", 11) && (s[11] == '=' || s[11] == '\0')) {
            const char *v = s[11] == '=' ? s + 12 : i + 1 < argc ? argv[++i] : "";
            if (strcmp(v, "on") && strcmp(v, "off")) return usage("--emu-check %s: on or off", v);
            a->emu_check = !strcmp(v, "on");
            in_merge = false;
        } else if (!strcmp(s, "--merge")) {
            in_merge = true;
        } else if (s[0] == '-' && s[1]) {
            return usage("unknown option %s", s);
        } else if (in_merge) {
            a->merges[a->n_merges++] = argv[i];
        } else {
            a->subs[a->n_subs++] = argv[i];
        }
    }
    if (!a->course) return usage("%sthe instructor's course: --course DIR", "");
    if (!a->out) return usage("%swhere the gradebook goes: --out DIR", "");
    if (!a->n_subs && !a->n_merges && !in_merge) return usage("%sno SUBMISSIONS (workspace folders or archives)", "");
    if (in_merge && !a->n_merges) return usage("%s--merge needs shard databases", "");
    if (a->n_merges && a->n_subs) return usage("%s--merge joins shards: give no SUBMISSIONS with it", "");
    if (a->slurm && (a->n_merges || in_merge || a->shard))
        return usage("%s--slurm makes and merges its own shards: no --merge or --shard with it", "");
    if (a->slurm && !a->shards) return usage("%s--slurm needs --shards K (the number of array tasks)", "");
    if (!a->slurm && (a->shards || a->partition || a->gres || a->time_limit || a->no_wait))
        return usage("%s--shards, --partition, --gres, --time and --no-wait go with --slurm", "");
    return 0;
}

/* Marks what is not graded: needs_gpu exercises without a GPU, and those
 * left out by --exercises. */
static Diag *plan_items(Grade *g, const char *only, bool have_gpu) {
    int n = 0;
    for (int c = 0; c < g->course->n_chapters; c++) n += g->course->chapters[c].n_exercises;
    g->items = xcalloc((size_t)n + 1, sizeof *g->items);
    for (int c = 0; c < g->course->n_chapters; c++)
        for (int e = 0; e < g->course->chapters[c].n_exercises; e++) {
            GradeItem *it = &g->items[g->n_items++];
            it->ch = &g->course->chapters[c];
            it->ex = &it->ch->exercises[e];
            if (it->ex->needs_gpu && !have_gpu) {
                it->skipped = true;
                g->skipped_gpu++;
            }
        }
    if (!only) return NULL;
    char *list = xstrdup(only);
    Diag *d = NULL;
    for (int i = 0; i < g->n_items; i++) g->items[i].skipped |= 2;   /* not named yet */
    for (char *tok = strtok(list, ","); tok && !d; tok = strtok(NULL, ",")) {
        const ChapterMeta *ch = NULL;
        const ExerciseMeta *ex = course_find_exercise(g->course, tok, &ch);
        if (!ex) d = diag_error("usage", "--exercises: no exercise '%s' in the course", tok);
        for (int i = 0; ex && i < g->n_items; i++)
            if (g->items[i].ex == ex) g->items[i].skipped = ex->needs_gpu && !have_gpu;
    }
    for (int i = 0; i < g->n_items; i++) g->items[i].skipped = g->items[i].skipped != 0;
    free(list);
    return d;
}

/* The grading seed: the database's; else --seed; else derived from the
 * course version (so every shard of one grading has the same one). */
static Diag *pick_seed(Grade *g, const char *arg) {
    char *have = NULL;
    Diag *d = gradedb_meta_get(g->db, GRADEDB_META_GRADING_SEED, &have);
    if (d) return d;
    uint64_t want;
    if (arg) {
        char *end;
        errno = 0;
        want = strtoull(arg, &end, 10);
        if (*end || errno || arg[0] == '-') return diag_error("usage", "--seed %s: a number from 0 to 2^64-1", arg);
    } else {
        unsigned char dig[32];
        Sha256 h;
        sha256_init(&h);
        sha256_update(&h, "cudojo grading seed\n", 20);
        sha256_update(&h, g->course_version, strlen(g->course_version));
        sha256_final(&h, dig);
        want = 0;
        for (int i = 0; i < 8; i++) want = want << 8 | dig[i];
    }
    if (have) {
        uint64_t was = strtoull(have, NULL, 10);
        long long runs = 0;
        d = gradedb_count(g->db, &runs, NULL);
        if (!d && arg && was != want && runs)
            d = diag_new(DIAG_ERROR, "usage", gradedb_path(g->db), 0, 0,
                         "this grading database was graded with seed %s, not %s: grade into a new --out folder to "
                         "use another seed",
                         have, arg);
        g->seed = was;
        if (!d && (!arg || runs)) {
            free(have);
            return NULL;
        }
        diag_free(&d);
    }
    free(have);
    g->seed = want;
    char buf[24];
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)want);
    return gradedb_meta_set(g->db, GRADEDB_META_GRADING_SEED, buf);
}

/* The summary document (--json) and the lines shown otherwise. */
static json_t *summary_json(Grade *g, const json_t *book) {
    json_t *skipped = json_array();
    for (int i = 0; i < g->n_items; i++)
        if (g->items[i].skipped && g->items[i].ex->needs_gpu) json_array_append_new(skipped, json_string(g->items[i].ex->id));
    double rate = g->elapsed_s > 0 ? g->runs_executed / g->elapsed_s : 0;
    json_t *sum = json_pack("{s:o, s:s, s:I, s:i, s:I, s:I, s:I, s:o, s:O, s:f, s:f, s:o, s:o}", "out",
                     bytes_to_json(g->out_dir), "course_version", g->course_version, "students",
                     (json_int_t)json_array_size(json_object_get(book, "students")), "exercises",
                     (int)json_array_size(json_object_get(book, "exercises")), "runs_executed",
                     (json_int_t)g->runs_executed, "runs_reused", (json_int_t)g->runs_reused, "runs_missing",
                     (json_int_t)g->runs_missing, "skipped_needs_gpu", skipped, "problems", g->problems, "elapsed_s",
                     g->elapsed_s, "runs_per_s", rate, "gradebook", bytes_to_json("gradebook.json"), "csv",
                     bytes_to_json("gradebook.csv"));
    /* The GPU lock over the runs executed (kernels/gpu_lock.h): where a
       grading's time on one GPU goes (gradebook.json's "time" per run). */
    json_object_set_new(sum, "gpu_lock", json_pack("{s:f, s:f, s:f, s:I}", "wait_s", g->lock.wait_s, "exclusive_s",
                                                   g->lock.exclusive_s, "shared_s", g->lock.shared_s, "runs",
                                                   (json_int_t)g->lock.runs));
    /* The emulator's second opinion on GPU passes (app/grade_verdict.c): runs
       this time, and the passes it found a bug in. */
    json_object_set_new(sum, "emu_check", json_pack("{s:b, s:I, s:I}", "on", g->emu_check, "runs",
                                                    (json_int_t)g->emu_checks, "overturned",
                                                    (json_int_t)g->emu_overturned));
    /* Programs' nvcc builds compiled ahead of the workers (app/grade_ahead.c), and those the workers ran. */
    json_object_set_new(sum, "compile_ahead", grade_ahead_json(&g->ahead_stats));
    return sum;
}

static void print_summary(Grade *g, const json_t *book) {
    size_t ns = json_array_size(json_object_get(book, "students"));
    printf(_("graded %zu students on %zu exercises: %lld runs in %.1f s (%.1f runs/s), %lld already graded, %lld "
             "missing files\n"),
           ns, json_array_size(json_object_get(book, "exercises")), g->runs_executed, g->elapsed_s,
           g->elapsed_s > 0 ? g->runs_executed / g->elapsed_s : 0, g->runs_reused, g->runs_missing);
    if (g->lock.runs)
        printf(_("GPU lock: %lld runs held it %.1f s alone (timed) and %.1f s shared, and waited %.1f s for it\n"),
               g->lock.runs, g->lock.exclusive_s, g->lock.shared_s, g->lock.wait_s);
    if (g->emu_checks)
        printf(_("emulator check: %lld GPU passes run again on the emulator; %lld of them passed on the GPU by luck "
                 "(the emulator found a bug: graded as failed)\n"),
               g->emu_checks, g->emu_overturned);
    json_t *ahead = grade_ahead_json(&g->ahead_stats);
    grade_ahead_print(stdout, ahead);
    json_decref(ahead);
    if (g->skipped_gpu) printf(_("%d exercises need a GPU and were not graded on the emulator (not counted)\n"), g->skipped_gpu);
    size_t i;
    json_t *p;
    json_array_foreach(g->problems, i, p) {
        char *t = bytes_printable(json_string_value(p));
        printf(_("problem: %s\n"), t);
        free(t);
    }
    char *o = bytes_printable(g->out_dir);
    printf(_("gradebook: %s/gradebook.csv, %s/gradebook.json; per student: %s/students/NAME/{results.json,feedback.md}; "
             "similarity: %s/similarity.md\n"),
           o, o, o, o);
    free(o);
}

static int grade_main(Grade *g, GradeArgs *a) {
    Diag *d = fs_mkdir_p(a->out);
    if (d) return cli_fail(d);
    g->out_dir = path_absolute(a->out);
    char *root = path_join(a->course, "lessons");
    g->course_root = path_absolute(fs_is_dir(root) ? root : a->course);
    free(root);
    d = course_load(g->course_root, &g->course);
    if (d) cli_print_diags(d);
    int errors = diag_count_errors(d);
    diag_free(&d);
    if (!g->course || errors || g->course->n_chapters == 0) {
        fprintf(stderr, "cudojo grade: the course at %s %s; not grading against it\n", g->course_root,
                g->course && !errors ? "has no chapters" : "has errors (above)");
        return 2;
    }
    g->course_version = course_version(g->course);
    bool have_gpu = g->cli->backend == BACKEND_CUDA ||
                    (g->cli->backend == BACKEND_AUTO && fs_exists("/dev/nvidiactl") && fs_exists("/dev/nvidia0"));
    g->have_gpu = have_gpu;
    g->emu_check = have_gpu && a->emu_check != 0;
    if (have_gpu && !getenv("CUDOJO_GPU_LOCK_DIR")) {
        /* Timed GPU work takes turns across workers and across graders of this
           user on this node (shards of an array job): kernels/gpu_lock.h. */
        const char *rt = getenv("XDG_RUNTIME_DIR");
        char *locks = rt && *rt ? path_join(rt, "cudojo-gpu-locks")
                                : xasprintf("/tmp/cudojo-gpu-locks-%ld", (long)getuid());
        Diag *ld = fs_mkdir_p(locks);
        if (!ld) setenv("CUDOJO_GPU_LOCK_DIR", locks, 1);
        diag_free(&ld);
        free(locks);
    }
    if (!getenv("CUDOJO_HOST_POOL_MB")) {
        /* Each worker's idle array buffers (page-locked on a GPU): together
           at most a quarter of the memory (kernels/host_pool.h). */
        char mb[32];
        int workers = g->jobs > 0 ? g->jobs : (int)sysconf(_SC_NPROCESSORS_ONLN);
        snprintf(mb, sizeof mb, "%zu", host_pool_share_cap(workers) >> 20);
        setenv("CUDOJO_HOST_POOL_MB", mb, 1);
    }
    d = plan_items(g, a->exercises, have_gpu);
    if (d) return cli_fail(d);
    char *dbp = path_join(g->out_dir, "grade.db");
    d = gradedb_open(dbp, &g->db);
    free(dbp);
    GradeExercise *gex = xcalloc((size_t)g->n_items + 1, sizeof *gex);
    for (int i = 0; i < g->n_items; i++)
        gex[i] = (GradeExercise){.id = g->items[i].ex->id, .chapter = g->items[i].ch->id, .title = g->items[i].ex->title,
                                 .points = g->items[i].ex->points, .program = g->items[i].ex->program,
                                 .skipped = g->items[i].skipped};
    if (!d) d = gradedb_set_course(g->db, g->course_version, g->course_root, gex, g->n_items);
    free(gex);
    if (!d) d = pick_seed(g, a->seed);
    if (!d) d = gradedb_meta_set(g->db, GRADEDB_META_BACKEND, have_gpu ? "cuda" : "emu");
    if (!d && a->shard) {
        int i = -1, k = 0;
        char tail;
        if (sscanf(a->shard, "%d/%d%c", &i, &k, &tail) != 2 || k < 1 || i < 0 || i >= k)
            d = diag_error("usage", "--shard %s: I/K with 0 <= I < K (e.g. 2/4)", a->shard);
        else d = gradedb_meta_set(g->db, GRADEDB_META_SHARD, a->shard);
        if (!d) g->shard_i = i, g->shard_k = k;
    }
    if (d) return cli_fail(d);
    double t0 = mono_s();
    int status = 0;
    if (a->n_merges) {
        for (int i = 0; i < a->n_merges && !d; i++) {
            GradeMergeStats st;
            d = gradedb_merge(g->db, a->merges[i], &st);
            if (!d && !g->cli->json)
                fprintf(stderr, "merged %s: %lld submissions, %lld runs added (%lld already here)\n", a->merges[i],
                        st.submissions_added, st.runs_added, st.runs_present);
        }
    } else {
        g->tmp_dir = path_join(g->out_dir, ".unpacked");
        d = fs_mkdir_p(g->tmp_dir);
        if (!d) d = grade_collect(g, a->subs, a->n_subs);
        if (!d && g->shard_k) grade_shard(g, g->shard_i, g->shard_k);
        if (!d) d = grade_run_all(g);
    }
    g->elapsed_s = mono_s() - t0;
    json_t *book = NULL;
    if (d && !strcmp(d->code ? d->code : "", "interrupted")) {
        cli_print_diags(d);
        diag_free(&d);
        status = 1;
    }
    if (!d && status == 0) d = grade_write_outputs(g, &book);
    if (d) {
        status = cli_fail(d);
    } else if (book) {
        if (g->cli->json) cli_print_json(summary_json(g, book));
        else print_summary(g, book);
    }
    json_decref(book);
    grade_students_free(g);
    if (g->tmp_dir) rmdir(g->tmp_dir);
    return status;
}

/* --slurm: the shards graded as an array job, then merged here like --merge
 * (grade_main writes the gradebook). A shard that failed is named with its
 * log; what finished is merged, and the exit status is 1. */
static int grade_slurm(Grade *g, GradeArgs *a) {
    Diag *d = fs_mkdir_p(a->out);
    if (d) return cli_fail(d);
    char self[4096];
    const char *wrapper = getenv("CUDOJO_SLURM_SELF");
    if (wrapper && *wrapper) {
        snprintf(self, sizeof self, "%s", wrapper);
    } else {
        ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
        if (n <= 0) return cli_fail(diag_error("io", "cannot find this cudojo's own path (/proc/self/exe)"));
        self[n] = 0;
    }
    char **subs = xcalloc((size_t)a->n_subs + 1, sizeof *subs);
    for (int i = 0; i < a->n_subs; i++) subs[i] = path_absolute(a->subs[i]);
    char *course = path_absolute(a->course), *out = path_absolute(a->out);
    char *task_opts[6], *global_opts[2];
    int n_task = 0, n_global = 0;
    if (a->exercises) task_opts[n_task++] = "--exercises", task_opts[n_task++] = (char *)a->exercises;
    if (a->seed) task_opts[n_task++] = "--seed", task_opts[n_task++] = (char *)a->seed;
    if (a->emu_check >= 0) task_opts[n_task++] = a->emu_check ? "--emu-check=on" : "--emu-check=off";
    if (g->cli->backend != BACKEND_AUTO)
        global_opts[n_global++] = g->cli->backend == BACKEND_CUDA ? "--backend=cuda" : "--backend=emu";
    SlurmGradeJob job = {.cudojo = self, .subs = subs, .n_subs = a->n_subs, .course = course, .out = out,
                         .task_options = task_opts, .n_task_options = n_task, .global_options = global_opts,
                         .n_global_options = n_global, .shards = a->shards, .partition = a->partition,
                         .gres = a->gres, .time_limit = a->time_limit, .cpus_per_task = a->jobs,
                         .no_wait = a->no_wait, .quiet = g->cli->json};
    SlurmOutcome o;
    d = grade_slurm_run(&job, &o);
    int status = 0;
    if (diag_count_errors(d)) {
        status = cli_fail(d);
        d = NULL;
    } else if (a->no_wait) {
        printf("submitted slurm job %s (%d tasks). When it has finished, merge the shards:\n"
               "  cudojo grade --course %s --out %s --merge %s/shards/*/grade.db\n",
               o.job_id, a->shards, course, out, out);
    } else if (o.n_done == 0) {
        cli_print_diags(d);
        fprintf(stderr, "cudojo grade: no shard of slurm job %s finished; nothing to merge\n", o.job_id);
        status = 1;
    } else {
        a->merges = xrealloc(a->merges, ((size_t)o.n_done + 1) * sizeof *a->merges);
        for (int i = 0; i < o.n_done; i++) a->merges[i] = o.shard_dbs[i];
        a->n_merges = o.n_done;
        a->n_subs = 0;
        status = grade_main(g, a);
        if (d) {
            cli_print_diags(d);
            fprintf(stderr, "cudojo grade: %d of %d shards failed or did not finish (above); the gradebook holds the other %d. "
                            "Run the same command again to grade the missing ones (finished runs are kept).\n",
                    o.n_failed, a->shards, o.n_done);
            if (!status) status = 1;
        }
    }
    diag_free(&d);
    slurm_outcome_fini(&o);
    for (int i = 0; subs[i]; i++) free(subs[i]);
    free(subs);
    free(course);
    free(out);
    return status;
}

int cmd_grade(Cli *cli, int argc, char **argv) {
    GradeArgs a;
    int status = parse_args(&a, argc, argv);
    if (status == 0) {
        Grade g = {.cli = cli, .jobs = a.jobs, .problems = json_array(), .quiet = false};
        status = a.slurm ? grade_slurm(&g, &a) : grade_main(&g, &a);
        gradedb_close(&g.db);
        course_free(&g.course);
        free(g.items);
        free(g.course_root);
        free(g.course_version);
        free(g.out_dir);
        free(g.tmp_dir);
        json_decref(g.problems);
    }
    free(a.subs);
    free(a.merges);
    return status;
}

/* The command's entry in the table app/cli.c lists. */
const Command CMD_GRADE = {"grade", "SUBMISSIONS... --course DIR --out DIR", N_("instructors: grade a class against your course"),
    N_("Grades every SUBMISSION (a learner's workspace folder, or an archive made by\n"
    "`cudojo submit`) against the course at --course DIR: each exercise file is\n"
    "compiled and run in a sandboxed worker with the exercise's timeout and its\n"
    "hidden checks (t:grading()), on data seeded apart from the learner's. A\n"
    "submission's own .lua files are never used. Results go to OUT/grade.db as\n"
    "each run ends: run the same command again after a crash or Ctrl-C and it\n"
    "goes on where it stopped; an unchanged file under an unchanged course is\n"
    "never run twice. Then it writes OUT/gradebook.csv, OUT/gradebook.json,\n"
    "OUT/students/NAME/results.json (Gradescope format) and feedback.md, and\n"
    "OUT/similarity.md. Exercises that need a GPU are not graded on the emulator\n"
    "(and not counted). On a GPU, a run that passes runs again on the emulator,\n"
    "which finds races and stray reads the hardware let pass: a pass it finds\n"
    "such a bug in is graded as failed (\"passed on the GPU by luck: the emulator\n"
    "found a race at FILE:LINE\"); missing a speed target there is no failure\n"
    "(the GPU's time counts).\n"
    "Options:\n"
    "  --course DIR        the instructor's course (its lessons/ folder, or the\n"
    "                      folder holding it)\n"
    "  --out DIR           where the database and the gradebook go (made if needed)\n"
    "  --jobs N, -j N      workers running at once (default: the cores)\n"
    "  --exercises A,B     grade only these exercises (ids)\n"
    "  --shard I/K         grade only the students whose place in the sorted list\n"
    "                      is I modulo K (one task of an array job)\n"
    "  --merge DB...       join shard databases into OUT/grade.db and write the\n"
    "                      gradebook (no runs; idempotent, any order)\n"
    "  --seed N            the grading seed (default: derived from the course)\n"
    "  --emu-check=on|off  on a GPU, run each pass again on the emulator (default:\n"
    "                      on); a file graded the other way is graded again\n"
    "  --slurm             grade as a Slurm array job: writes OUT/slurm/grade.sbatch\n"
    "                      (task I runs this cudojo with --shard I/K into\n"
    "                      OUT/shards/I), submits it with sbatch, shows tasks\n"
    "                      done/total while it waits, then merges the shards into\n"
    "                      OUT as --merge does. A shard that fails is named with\n"
    "                      its log (OUT/slurm/JOB_I.log); the others are merged and\n"
    "                      the exit status is 1. $CUDOJO_SLURM_SELF: a wrapper the\n"
    "                      tasks run instead of this cudojo (to load modules first)\n"
    "  --shards K          with --slurm: the number of array tasks (required)\n"
    "  --partition P       with --slurm: sbatch's --partition\n"
    "  --gres G            with --slurm: sbatch's --gres (gpu:1 for GPU grading)\n"
    "  --time T            with --slurm: each task's time limit (sbatch's --time)\n"
    "  --no-wait           with --slurm: submit, print the --merge command, return\n"
    "                      (--jobs N with --slurm: CPUs and workers per task)\n"
    "  --json              the summary as JSON on stdout (runs_executed, ...)\n"
    "Environment: CUDOJO_GRADE_AHEAD=K, the threads that compile programs ahead\n"
    "of the workers, at a lower priority, into the cache the workers read\n"
    "(default: a quarter of the workers, at least 1; 0: off).\n"
    "Progress goes to stderr: a bar with runs/s and ETA on a terminal, else a\n"
    "line every 5 s. Exit status: 0 graded, 1 interrupted (resumable), 2 usage\n"
    "or setup error.\n"),
    cmd_grade};
