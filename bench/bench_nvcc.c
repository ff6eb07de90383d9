/* bench/bench_nvcc.c: what nvcc costs per program exercise, with the
 * options cudojo uses now (program_nvcc_options, kernels/program_compile.c)
 * against the ones it used before (OLD below: -g, and compute_80 PTX plus a
 * second -gencode for the SASS), in one run. Issue 13: grading 200
 * submissions must fit 30 minutes of a 16-core node, and every submission's
 * files are distinct, so each compile must be cheaper, not cached.
 *
 * Compiles every program exercise's solution of the course (lessons/, kind
 * = "program") with both option sets, for each SASS arch asked (0 = the
 * emulator's build, compute_80 PTX only; 90 = an H200's), REPS times,
 * old and new interleaved (their order alternating per rep) so that drift
 * in the machine's load falls on both. Measures the CPU seconds (user +
 * system) of nvcc and every process it ran (wait4), and the wall time.
 * Prints per program and in total the medians and new/old; a compile that
 * fails with either set is shown and the exit status is 1.
 *
 * Usage: build/bench/bench_nvcc [--reps N] [--arch A,B] [--jobs J] [--phases] [FILE.cu...]
 *   --reps N   repetitions per program and set (default 3; the median)
 *   --arch A,B SASS archs to measure (default 0,90)
 *   --jobs J   compiles at once (default half the cores, at most 8: each
 *              compile's own CPU time is what is compared)
 *   --phases   also where the time goes: nvcc -time's wall time of each
 *              phase (cudafe++, cicc per virtual arch, ptxas, fatbinary,
 *              gcc, nvlink, the link), summed over the programs, per rep
 *   FILE.cu    these programs instead of the course's solutions
 * Run from the repository root (make bench does); needs nvcc, no GPU. */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/xalloc.h"
#include "bench/bench_stats.h"
#include "kernels/program.h"
#include "lua/exercise.h"

extern char **environ;

#define MAX_ARCHS 8
#define MAX_JOBS 64
#define N_SETS 2                    /* 0 = old, 1 = new */
#define MAX_PHASES 24

/* nvcc -time's phases: seconds per (arch, set), summed over every compile. */
typedef struct Phases {
    char *name[MAX_PHASES];         /* "cicc compute_90", "gcc (compiling)" */
    double s[MAX_PHASES][MAX_ARCHS][N_SETS];
    int n;
} Phases;

/* Adds the rows of nvcc -time's CSV (source, phase, inputs, output, arch,
 * tool, metric, unit) in `path` to ph. cicc and ptxas are told by arch. */
static void phases_add(Phases *ph, const char *path, int arch, int set) {
    FILE *f = fopen(path, "r");
    char line[8192];
    while (f && fgets(line, sizeof line, f)) {
        char *field[8];
        int n = 0;
        for (char *p = line; n < 8;) {
            field[n++] = p;
            char *c = strstr(p, " , ");
            if (!c) break;
            *c = '\0';
            p = c + 3;
        }
        if (n < 8 || strncmp(field[7], "ms", 2)) continue;     /* the header, or a row of another kind */
        char *phase = field[1], *tag = field[4];
        while (*phase == ' ') phase++;
        while (*tag == ' ') tag++;
        for (char *e = tag + strlen(tag); e > tag && e[-1] == ' ';) *--e = '\0';
        bool by_arch = !strncmp(phase, "cicc", 4) || !strncmp(phase, "ptxas", 5);
        char *name = by_arch && *tag ? xasprintf("%s %s", phase, tag) : xstrdup(phase);
        int i = 0;
        while (i < ph->n && strcmp(ph->name[i], name)) i++;
        if (i == ph->n && ph->n < MAX_PHASES) ph->name[ph->n++] = xstrdup(name);
        if (i < ph->n) ph->s[i][arch][set] += atof(field[6]) / 1e3;
        free(name);
    }
    if (f) fclose(f);
}

/* The options before this bench: nvcc -g (gcc -g), the device link, and
 * compute_80 PTX with a second -gencode for the SASS. NULL-terminated;
 * caller frees with program_nvcc_options_free. */
static char **old_options(int sass_arch) {
    char **v = xcalloc(16, sizeof *v);
    int n = 0;
    const char *fixed[] = {"-lineinfo", "-g", "-cudart", "shared", "-gencode", "arch=compute_80,code=compute_80"};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) v[n++] = xstrdup(fixed[i]);
    if (sass_arch > 0) {
        v[n++] = xstrdup("-gencode");
        v[n++] = xasprintf("arch=compute_%d,code=sm_%d", sass_arch, sass_arch);
    }
    return v;
}

static char *joined(char **v) {
    size_t len = 1;
    for (char **p = v; *p; p++) len += strlen(*p) + 1;
    char *s = xcalloc(1, len);
    for (char **p = v; *p; p++) {
        if (p != v) strcat(s, " ");
        strcat(s, *p);
    }
    return s;
}

typedef struct Program {
    char *name;                     /* "06-events/host-timer", or the file given */
    char *path;                     /* absolute */
} Program;

typedef struct Task {
    int prog, arch, set;
    double cpu_s, wall_ms;
    bool failed;
} Task;

/* The course's program exercises' solutions, in course order. */
static int course_programs(Program **out) {
    char *root = path_absolute("lessons");
    Course *course = NULL;
    Diag *d = course_load(root, &course);
    if (!course || diag_count_errors(d)) {
        char *s = diag_format_all(d, false);
        fprintf(stderr, "bench_nvcc: the course at %s does not load (run from the repository root):\n%s", root,
                s ? s : "");
        free(s);
        diag_free(&d);
        course_free(&course);
        free(root);
        return -1;
    }
    diag_free(&d);
    int n = 0;
    Program *p = NULL;
    for (int c = 0; c < course->n_chapters; c++) {
        const ChapterMeta *ch = &course->chapters[c];
        for (int e = 0; e < ch->n_exercises; e++) {
            const ExerciseMeta *ex = &ch->exercises[e];
            if (!ex->program || !ex->solution) continue;
            p = xrealloc(p, (size_t)(n + 1) * sizeof *p);
            p[n].name = xasprintf("%s/%s", ch->id, ex->id);
            p[n].path = path_join(ch->dir, ex->solution);
            n++;
        }
    }
    course_free(&course);
    free(root);
    *out = p;
    return n;
}

/* Starts nvcc OPTS [-time DIR/time.csv] -o DIR/a.out FILE in DIR, its output into DIR/log. */
static pid_t start(const char *nvcc, char **opts, const char *file, const char *dir, bool timed) {
    int n = 0;
    while (opts[n]) n++;
    char **argv = xcalloc((size_t)n + 7, sizeof *argv);
    int k = 0;
    argv[k++] = (char *)nvcc;
    for (int i = 0; i < n; i++) argv[k++] = opts[i];
    char *exe = path_join(dir, "a.out"), *log = path_join(dir, "log"), *csv = path_join(dir, "time.csv");
    unlink(csv);    /* nvcc -time appends */
    if (timed) {
        argv[k++] = "-time";
        argv[k++] = csv;
    }
    argv[k++] = "-o";
    argv[k++] = exe;
    argv[k++] = (char *)file;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    pid_t pid = -1;
    int rc = posix_spawn(&pid, nvcc, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc) {
        fprintf(stderr, "bench_nvcc: cannot start %s: %s\n", nvcc, strerror(rc));
        pid = -1;
    }
    free(exe);
    free(log);
    free(csv);
    free(argv);
    return pid;
}

static void show_log(const char *dir) {
    char *log = path_join(dir, "log"), *text = NULL;
    size_t len = 0;
    Diag *d = fs_read_file_max(log, 1 << 20, &text, &len);
    fprintf(stderr, "%s\n", d ? "(no log)" : text);
    diag_free(&d);
    free(text);
    free(log);
}

static int default_jobs(void) {
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    long j = cores / 2;
    return j < 1 ? 1 : j > 8 ? 8 : (int)j;
}

int main(int argc, char **argv) {
    int reps = 3, jobs = default_jobs(), archs[MAX_ARCHS] = {0, 90}, n_archs = 2;
    bool phases = false;
    Phases ph = {0};
    Program *progs = NULL;
    int n_progs = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
            reps = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--phases")) {
            phases = true;
        } else if (!strcmp(argv[i], "--jobs") && i + 1 < argc) {
            jobs = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--arch") && i + 1 < argc) {
            n_archs = 0;
            for (char *s = argv[++i]; *s && n_archs < MAX_ARCHS;) {
                archs[n_archs++] = (int)strtol(s, &s, 10);
                if (*s == ',') s++;
                else if (*s) break;
            }
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "usage: bench_nvcc [--reps N] [--arch A,B] [--jobs J] [--phases] [FILE.cu...]\n");
            return 2;
        } else {
            progs = xrealloc(progs, (size_t)(n_progs + 1) * sizeof *progs);
            progs[n_progs].name = xstrdup(argv[i]);
            progs[n_progs].path = path_absolute(argv[i]);
            n_progs++;
        }
    }
    if (reps < 1) reps = 1;
    if (jobs < 1) jobs = 1;
    if (jobs > MAX_JOBS) jobs = MAX_JOBS;
    const char *nvcc = program_nvcc_path();
    if (!nvcc) {
        fprintf(stderr, "bench_nvcc: no nvcc (set CUDA_HOME or CUDOJO_NVCC)\n");
        return 1;
    }
    if (!n_progs && (n_progs = course_programs(&progs)) <= 0) {
        if (n_progs == 0) fprintf(stderr, "bench_nvcc: the course has no program exercises\n");
        return 1;
    }
    char **sets[MAX_ARCHS][N_SETS];
    for (int a = 0; a < n_archs; a++) {
        ProgramCompileOptions o = {.sass_arch = archs[a]};
        sets[a][0] = old_options(archs[a]);
        sets[a][1] = program_nvcc_options(&o);
    }
    printf("bench_nvcc: %s (%s), %d programs, median of %d reps, %d compile(s) at once\n", nvcc,
           program_nvcc_version() ? program_nvcc_version() : "?", n_progs, reps, jobs);
    for (int a = 0; a < n_archs; a++)
        for (int s = 0; s < N_SETS; s++) {
            char *line = joined(sets[a][s]);
            printf("  sass_arch %-3d %s: nvcc %s\n", archs[a], s ? "new" : "old", line);
            free(line);
        }
    fflush(stdout);

    /* Every compile, rep-major; old and new side by side, their order alternating. */
    int n_tasks = reps * n_progs * n_archs * N_SETS;
    Task *tasks = xcalloc((size_t)n_tasks, sizeof *tasks);
    int t = 0;
    for (int r = 0; r < reps; r++)
        for (int p = 0; p < n_progs; p++)
            for (int a = 0; a < n_archs; a++)
                for (int k = 0; k < N_SETS; k++)
                    tasks[t++] = (Task){.prog = p, .arch = a, .set = (k + r + p) % N_SETS};
    char tmpl[] = "/tmp/cudojo-bench-nvcc-XXXXXX";
    if (!mkdtemp(tmpl)) {
        fprintf(stderr, "bench_nvcc: cannot make a temporary directory: %s\n", strerror(errno));
        return 1;
    }
    char *slot_dir[MAX_JOBS];
    pid_t slot_pid[MAX_JOBS];
    int slot_task[MAX_JOBS];
    double slot_t0[MAX_JOBS];
    for (int j = 0; j < jobs; j++) {
        slot_dir[j] = xasprintf("%s/job%d", tmpl, j);
        mkdir(slot_dir[j], 0755);
        slot_pid[j] = 0;
    }
    int next = 0, running = 0, failures = 0;
    double t_start = bench_now_ms();
    while (next < n_tasks || running) {
        for (int j = 0; j < jobs && next < n_tasks; j++) {
            if (slot_pid[j]) continue;
            Task *k = &tasks[next];
            slot_t0[j] = bench_now_ms();
            pid_t pid = start(nvcc, sets[k->arch][k->set], progs[k->prog].path, slot_dir[j], phases);
            if (pid <= 0) {     /* said by start(); counted, nothing to wait for */
                k->failed = true;
                failures++;
                next++;
                continue;
            }
            slot_pid[j] = pid;
            slot_task[j] = next++;
            running++;
        }
        int status;
        struct rusage ru;
        pid_t pid = wait4(-1, &status, 0, &ru);
        if (pid < 0) {
            if (errno == EINTR) continue;
            break;
        }
        for (int j = 0; j < jobs; j++) {
            if (slot_pid[j] != pid) continue;
            Task *k = &tasks[slot_task[j]];
            k->wall_ms = bench_now_ms() - slot_t0[j];
            k->cpu_s = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
                       ru.ru_stime.tv_usec / 1e6;
            k->failed = !WIFEXITED(status) || WEXITSTATUS(status) != 0;
            if (phases && !k->failed) {
                char *csv = path_join(slot_dir[j], "time.csv");
                phases_add(&ph, csv, k->arch, k->set);
                free(csv);
            }
            if (k->failed) {
                failures++;
                fprintf(stderr, "bench_nvcc: %s failed to compile with the %s options (sass_arch %d):\n",
                        progs[k->prog].name, k->set ? "new" : "old", archs[k->arch]);
                show_log(slot_dir[j]);
            }
            slot_pid[j] = 0;
            running--;
        }
    }
    double elapsed_s = (bench_now_ms() - t_start) / 1e3;

    /* Medians per program, arch and set; totals are sums of the medians. */
    double *v = xcalloc((size_t)reps, sizeof *v), *w = xcalloc((size_t)reps, sizeof *w);
    double grand[N_SETS] = {0};
    for (int a = 0; a < n_archs; a++) {
        printf("\nsass_arch %d%s: CPU seconds of one compile (nvcc and its children), median of %d\n", archs[a],
               archs[a] ? "" : " (the emulator's build)", reps);
        printf("  %-44s %9s %9s %7s %9s %9s\n", "program", "old cpu", "new cpu", "new/old", "old wall", "new wall");
        double total[N_SETS] = {0}, total_wall[N_SETS] = {0};
        for (int p = 0; p < n_progs; p++) {
            double cpu[N_SETS], wall[N_SETS];
            for (int s = 0; s < N_SETS; s++) {
                int n = 0;
                for (int i = 0; i < n_tasks; i++)
                    if (tasks[i].prog == p && tasks[i].arch == a && tasks[i].set == s) {
                        v[n] = tasks[i].cpu_s;
                        w[n++] = tasks[i].wall_ms / 1e3;
                    }
                cpu[s] = bench_median(v, n);
                wall[s] = bench_median(w, n);
                total[s] += cpu[s];
                total_wall[s] += wall[s];
            }
            printf("  %-44s %8.3fs %8.3fs %7.2f %8.3fs %8.3fs\n", progs[p].name, cpu[0], cpu[1],
                   cpu[0] > 0 ? cpu[1] / cpu[0] : 0, wall[0], wall[1]);
        }
        printf("  %-44s %8.2fs %8.2fs %7.2f %8.2fs %8.2fs\n", "total", total[0], total[1],
               total[0] > 0 ? total[1] / total[0] : 0, total_wall[0], total_wall[1]);
        for (int s = 0; s < N_SETS; s++) grand[s] += total[s];
    }
    if (phases) {
        printf("\nwhere the time goes: nvcc -time's wall seconds per phase, all %d programs, per rep\n", n_progs);
        printf("  %-30s", "phase");
        for (int a = 0; a < n_archs; a++)
            for (int s = 0; s < N_SETS; s++) {
                char label[32];
                snprintf(label, sizeof label, "%s%d %s", archs[a] ? "sm_" : "emu/", archs[a], s ? "new" : "old");
                printf(" %11s", label);
            }
        printf("\n");
        double sum[MAX_ARCHS][N_SETS] = {{0}};
        for (int i = 0; i < ph.n; i++) {
            printf("  %-30s", ph.name[i]);
            for (int a = 0; a < n_archs; a++)
                for (int s = 0; s < N_SETS; s++) {
                    printf(" %10.2fs", ph.s[i][a][s] / reps);
                    sum[a][s] += ph.s[i][a][s] / reps;
                }
            printf("\n");
            free(ph.name[i]);
        }
        printf("  %-30s", "total");
        for (int a = 0; a < n_archs; a++)
            for (int s = 0; s < N_SETS; s++) printf(" %10.2fs", sum[a][s]);
        printf("\n");
    }
    printf("\nbench_nvcc: all %d programs x %d arch(s): CPU %.2f s old, %.2f s new, new/old %.3f; %.0f s elapsed%s\n",
           n_progs, n_archs, grand[0], grand[1], grand[0] > 0 ? grand[1] / grand[0] : 0, elapsed_s,
           failures ? " (SOME COMPILES FAILED)" : "");
    free(v);
    free(w);
    for (int j = 0; j < jobs; j++) {    /* each job's folder holds a.out, log, time.csv */
        const char *names[] = {"a.out", "log", "time.csv"};
        for (int i = 0; i < 3; i++) {
            char *f = path_join(slot_dir[j], names[i]);
            unlink(f);
            free(f);
        }
        rmdir(slot_dir[j]);
        free(slot_dir[j]);
    }
    rmdir(tmpl);
    for (int a = 0; a < n_archs; a++)
        for (int s = 0; s < N_SETS; s++) program_nvcc_options_free(&sets[a][s]);
    for (int p = 0; p < n_progs; p++) {
        free(progs[p].name);
        free(progs[p].path);
    }
    free(progs);
    free(tasks);
    return failures ? 1 : 0;
}
