/* kernels/program_mps.c: several copies of a learner's program at once
 * (t:program{ processes = N, mps = true|false }), with a private MPS
 * control daemon on a GPU, and the one timeline of all of them.
 *
 * MPS (the Multi-Process Service) lets kernels of different processes run
 * on one GPU at the same time; without it the GPU time-slices between the
 * processes' contexts. cudojo never touches the machine's own daemon: it
 * starts one of its own with its pipe and log directories in a fresh
 * temporary folder (CUDA_MPS_PIPE_DIRECTORY, CUDA_MPS_LOG_DIRECTORY, also
 * given to the processes, whose CUDA driver then connects to it), and
 * stops it with "quit" on its control pipe after the processes, whatever
 * happened to them (in a workbench, a clean run's daemon is kept for the
 * next run instead: "the daemon kept between runs" below). Where there is
 * no nvidia-cuda-mps-control (or it fails
 * to start) the processes run without MPS and the result says why.
 *
 * The daemon detaches (it must: -d forks and leaves its own session), so
 * it would outlive a worker killed in the middle (a timeout): a keeper
 * process, in a session of its own too, waits on a pipe only the worker
 * holds open; when the worker dies, whatever kills it, the pipe closes and
 * the keeper says "quit" to the daemon and removes its folder. A normal
 * stop kills the keeper first, then says "quit" itself.
 *
 * The emulator runtime has no daemon to talk to: there the processes run
 * as they are, and program_processes_timeline puts their modeled timelines
 * on one modeled GPU, shared by time slicing or by MPS. */
#include "kernels/program.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/strbuf.h"
#include "base/xalloc.h"
#include "kernels/gpu_lock.h"
#include "kernels/program_internal.h"

extern char **environ;

#define MPS_WAIT_S 15.0
#define STREAMS_PER_PROCESS 1000

/* ---- the daemon ---- */

typedef struct MpsDaemon {
    char *control;                  /* nvidia-cuda-mps-control's path */
    char *dir;                      /* the temporary folder (pipe/ and log/ inside) */
    char *env_pipe, *env_log;       /* "CUDA_MPS_PIPE_DIRECTORY=...", "CUDA_MPS_LOG_DIRECTORY=..." */
    pid_t keeper;                   /* stops the daemon if we die first; 0 = none */
    int keeper_fd;                  /* the write end of its pipe (only we hold it) */
} MpsDaemon;

static char *mps_control_path(void) {
    const char *over = getenv("CUDOJO_MPS_CONTROL");
    if (over) return *over && access(over, X_OK) == 0 ? path_absolute(over) : NULL;
    char *p = proc_find_in_path("nvidia-cuda-mps-control");
    if (p) return p;
    const char *dirs[] = {"/usr/local/nvidia/bin/nvidia-cuda-mps-control", "/usr/bin/nvidia-cuda-mps-control"};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
        if (access(dirs[i], X_OK) == 0) return xstrdup(dirs[i]);
    return NULL;
}

/* The environment the control program gets: ours with the daemon's
 * directories. Free the array only. */
static char **control_env(const MpsDaemon *m) {
    char *const dirs[] = {m->env_pipe, m->env_log};
    return program_env_with(dirs, 2);
}

/* Runs the control program with `arg` (NULL: none) and `input` on its
 * stdin, in a session of its own (the daemon it starts must outlive
 * nothing of ours but its own), stdout and stderr to `log`; waits up to
 * MPS_WAIT_S. Returns its exit status, -1 when it could not run or was
 * killed. */
static int run_control(const MpsDaemon *m, const char *arg, const char *input, const char *log) {
    int in[2];
    if (pipe2(in, O_CLOEXEC) != 0) return -1;
    int out = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    char **envp = control_env(m);
    char *argv[3] = {m->control, (char *)arg, NULL};
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        setsid();
        proc_die_with_parent(parent);
        if (dup2(in[0], 0) < 0) _exit(127);
        if (out >= 0 && (dup2(out, 1) < 0 || dup2(out, 2) < 0)) _exit(127);
        execve(m->control, argv, envp);
        _exit(127);
    }
    free(envp);
    close(in[0]);
    if (out >= 0) close(out);
    if (pid < 0) {
        close(in[1]);
        return -1;
    }
    if (input) {
        ssize_t w = write(in[1], input, strlen(input));
        (void)w;
    }
    close(in[1]);
    double deadline = proc_now_ms() + MPS_WAIT_S * 1e3;
    int st = 0;
    for (;;) {
        pid_t w = waitpid(pid, &st, WNOHANG);
        if (w == pid) break;
        if (w < 0 && errno != EINTR) return -1;
        if (proc_now_ms() > deadline) {
            kill(pid, SIGKILL);
            waitpid(pid, &st, 0);
            return -1;
        }
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Starts the keeper (see the top): /bin/sh, in a session of its own, reads
 * its stdin (the pipe) until it closes, then tells the daemon "quit" and
 * removes its folder. Without a keeper the daemon still runs; a worker
 * killed in the middle would then leave it running. */
static void keeper_start(MpsDaemon *m) {
    int p[2];
    m->keeper = 0;
    m->keeper_fd = -1;
    if (pipe2(p, O_CLOEXEC) != 0) return;
    char **envp = control_env(m);
    char *argv[] = {"/bin/sh", "-c",
                    "while read -r _; do :; done; echo quit | \"$1\" >/dev/null 2>&1; rm -rf -- \"$2\"",
                    "cudojo-mps-keeper", m->control, m->dir, NULL};
    pid_t pid = fork();
    if (pid == 0) {
        setsid();
        int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
        if (dup2(p[0], 0) < 0) _exit(127);
        if (devnull >= 0) {
            dup2(devnull, 1);
            dup2(devnull, 2);
        }
        execve(argv[0], argv, envp);
        _exit(127);
    }
    free(envp);
    close(p[0]);
    if (pid < 0) {
        close(p[1]);
        return;
    }
    m->keeper = pid;
    m->keeper_fd = p[1];
}

/* A normal stop: the keeper goes without a word. */
static void keeper_stop(MpsDaemon *m) {
    if (m->keeper > 0) {
        kill(m->keeper, SIGKILL);
        waitpid(m->keeper, NULL, 0);
    }
    if (m->keeper_fd >= 0) close(m->keeper_fd);
    m->keeper = 0;
    m->keeper_fd = -1;
}

static void daemon_fini(MpsDaemon *m) {
    if (m->dir) proc_remove_tree(m->dir);
    free(m->control);
    free(m->dir);
    free(m->env_pipe);
    free(m->env_log);
    memset(m, 0, sizeof *m);
}

/* The last lines of the daemon's log, for a message (at most ~300 bytes). */
static void log_tail(const MpsDaemon *m, char *buf, size_t cap) {
    buf[0] = '\0';
    char *p = path_join(m->dir, "control.out");
    char *data = NULL;
    size_t len = 0;
    Diag *d = fs_read_file_max(p, 1 << 16, &data, &len);
    free(p);
    if (d) {
        diag_free(&d);
        return;
    }
    while (len && (data[len - 1] == '\n' || data[len - 1] == ' ')) len--;
    size_t from = len > 300 ? len - 300 : 0;
    for (size_t i = from; i < len; i++)
        if (data[i] == '\n') data[i] = ' ';
    snprintf(buf, cap, "%.*s", (int)(len - from), data + from);
    free(data);
}

/* Starts the private daemon; false (and why) when it cannot. */
static bool daemon_start(MpsDaemon *m, char *why, size_t why_cap) {
    memset(m, 0, sizeof *m);
    m->keeper_fd = -1;
    m->control = mps_control_path();
    if (!m->control) {
        snprintf(why, why_cap, "MPS is not available here: nvidia-cuda-mps-control (the MPS control "
                               "daemon, part of NVIDIA's driver) was not found, so the processes shared the "
                               "GPU by time slicing");
        return false;
    }
    const char *t = getenv("TMPDIR");
    m->dir = path_join(t && *t ? t : "/tmp", "cudojo-mps-XXXXXX");
    if (!mkdtemp(m->dir)) {
        snprintf(why, why_cap, "MPS is not available here: cannot make its temporary folder (%s)", strerror(errno));
        XFREE(m->dir);
        daemon_fini(m);
        return false;
    }
    char *pipe_dir = path_join(m->dir, "pipe"), *log_dir = path_join(m->dir, "log");
    mkdir(pipe_dir, 0700);
    mkdir(log_dir, 0700);
    m->env_pipe = xasprintf("CUDA_MPS_PIPE_DIRECTORY=%s", pipe_dir);
    m->env_log = xasprintf("CUDA_MPS_LOG_DIRECTORY=%s", log_dir);
    free(pipe_dir);
    free(log_dir);
    char *out = path_join(m->dir, "control.out");
    keeper_start(m);    /* before the daemon: there is never a moment it could be left behind */
    int rc = run_control(m, "-d", NULL, out);
    free(out);
    if (rc != 0) {
        keeper_stop(m);
        char tail[320];
        log_tail(m, tail, sizeof tail);
        snprintf(why, why_cap, "MPS is not available here: %s -d %s%s%s, so the processes shared the GPU by "
                               "time slicing", m->control, rc < 0 ? "did not finish" : "failed",
                 *tail ? ": " : "", tail);
        daemon_fini(m);
        return false;
    }
    return true;
}

/* Whether process `pid` is there and not a zombie (one reparented to an
 * init that reaps late is gone all the same). */
static bool pid_alive(long pid) {
    char state = 0;
    return proc_stat(pid, &state, NULL) && state != 'Z' && state != 'X';
}

/* "quit" on the control pipe: the daemon and its server end. With the GPU
 * lock on (grading) it waits (up to MPS_WAIT_S) until the servers it
 * listed are gone: a server tearing down its context frees and unmaps GPU
 * memory, which slows another process's bandwidth-bound kernels by ~14%
 * while it lasts (measured on the H200 beside an allocate/free loop), so it
 * must happen inside the hold of the GPU lock, not after it. Without the
 * lock (a learner's workbench: no other timed work shares the GPU) the
 * teardown goes on behind the verdict. */
static void daemon_stop(MpsDaemon *m) {
    if (!m->control) return;
    keeper_stop(m);
    char *list = path_join(m->dir, "servers.out"), *out = path_join(m->dir, "control.out");
    long servers[16];
    int n = 0;
    if (gpu_lock_enabled() && run_control(m, NULL, "get_server_list\n", list) == 0) {
        char *text = NULL;
        size_t len = 0;
        Diag *d = fs_read_file_max(list, 1 << 12, &text, &len);
        for (char *p = text, *end; !d && p && n < 16; p = end) {
            long pid = strtol(p, &end, 10);
            if (end == p) break;
            if (pid > 1) servers[n++] = pid;
        }
        diag_free(&d);
        free(text);
    }
    run_control(m, NULL, "quit\n", out);
    double deadline = proc_now_ms() + MPS_WAIT_S * 1e3;
    for (int i = 0; i < n; i++)
        while (pid_alive(servers[i]) && proc_now_ms() < deadline) {
            struct timespec ts = {0, 10 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
    free(list);
    free(out);
    daemon_fini(m);
}

/* ---- the daemon kept between runs ---- */

/* Without the GPU lock (a learner's workbench, which runs one thing at a
 * time) the daemon of a run that ended cleanly is kept for the next run of
 * MPS copies in this process, for CUDOJO_MPS_KEEP_S seconds (default
 * MPS_KEEP_S; 0: a daemon per run): its server, which starts with the first
 * client (~140 ms on an H200) and quits in ~1.3 s, then serves the next
 * save's run at once, and a quit's teardown never overlaps the next start.
 * An idle server runs no kernels: other work on the GPU does not share it
 * with anything. It goes when this process exits (atexit), when the keeper
 * sees this process die, when it has been idle too long, or when the next
 * run finds it gone. Never with the lock (grading): there every run starts
 * on a GPU as the run before left it, and the teardown happens inside the
 * hold (daemon_stop). */
#define MPS_KEEP_S 600.0

static pthread_mutex_t g_kept_mu = PTHREAD_MUTEX_INITIALIZER;
static MpsDaemon g_kept;            /* control == NULL: none kept */
static double g_kept_ms;            /* when it was kept */
static bool g_kept_atexit;

static double keep_s(void) {
    const char *v = getenv("CUDOJO_MPS_KEEP_S");
    if (!v || !*v) return MPS_KEEP_S;
    char *end;
    double s = strtod(v, &end);
    return *end || !(s >= 0) ? MPS_KEEP_S : s;
}

static void kept_stop_at_exit(void) {
    pthread_mutex_lock(&g_kept_mu);
    MpsDaemon k = g_kept;
    memset(&g_kept, 0, sizeof g_kept);
    pthread_mutex_unlock(&g_kept_mu);
    if (k.control) daemon_stop(&k);
}

/* Whether the kept daemon is still there: its keeper (our child) waits, and
 * its control socket is in its pipe folder. */
static bool kept_alive(const MpsDaemon *m) {
    if (m->keeper <= 0 || waitpid(m->keeper, NULL, WNOHANG) != 0) return false;
    const char *eq = strchr(m->env_pipe, '=');
    char *sock = path_join(eq ? eq + 1 : "", "control");
    bool there = access(sock, F_OK) == 0;
    free(sock);
    return there;
}

/* Takes the kept daemon into *m when it is fresh and alive (true); else
 * stops whatever was kept (false). */
static bool kept_take(MpsDaemon *m) {
    pthread_mutex_lock(&g_kept_mu);
    MpsDaemon k = g_kept;
    double at = g_kept_ms;
    memset(&g_kept, 0, sizeof g_kept);
    pthread_mutex_unlock(&g_kept_mu);
    if (!k.control) return false;
    if (!gpu_lock_enabled() && proc_now_ms() - at <= keep_s() * 1e3 && kept_alive(&k)) {
        *m = k;
        return true;
    }
    daemon_stop(&k);
    return false;
}

/* Keeps *m for the next run (see above) when that is allowed and every
 * process ended cleanly (a GPU fault can leave the server unusable); else
 * stops it. */
static void kept_put_or_stop(MpsDaemon *m, const ProgramResult *results, int n) {
    bool clean = !gpu_lock_enabled() && keep_s() > 0;
    for (int i = 0; clean && i < n; i++)
        clean = results[i].started && !results[i].signaled && !results[i].timed_out && !results[i].cancelled &&
                results[i].exit_code == 0;
    if (!clean) {
        daemon_stop(m);
        return;
    }
    pthread_mutex_lock(&g_kept_mu);
    MpsDaemon old = g_kept;
    g_kept = *m;
    g_kept_ms = proc_now_ms();
    bool first = !g_kept_atexit;
    g_kept_atexit = true;
    pthread_mutex_unlock(&g_kept_mu);
    memset(m, 0, sizeof *m);
    if (old.control) daemon_stop(&old);
    if (first) atexit(kept_stop_at_exit);
}

/* ---- the processes ---- */

typedef struct ProcJob {
    const char *exe;
    ProgramRunOptions o;
    ProgramResult *r;
    Diag *d;
    pthread_t th;
    bool started;
} ProcJob;

static void *proc_thread(void *arg) {
    ProcJob *j = arg;
    j->d = program_run(j->exe, &j->o, j->r);
    /* one that never started (or ended) does not hold the others at their start */
    if (j->o.group_turn) program_group_turn_gone(j->o.group_turn, j->o.group_member);
    return NULL;
}

/* `arg` with "{process}" and "{processes}" replaced. Caller frees. */
static char *arg_for(const char *arg, int i, int n) {
    StrBuf b;
    strbuf_init(&b);
    for (const char *p = arg; *p;) {
        if (!strncmp(p, "{processes}", 11)) {
            strbuf_printf(&b, "%d", n);
            p += 11;
        } else if (!strncmp(p, "{process}", 9)) {
            strbuf_printf(&b, "%d", i);
            p += 9;
        } else {
            strbuf_append_n(&b, p, 1);
            p++;
        }
    }
    return strbuf_steal(&b);
}

Diag *program_run_processes(const char *exe, const ProgramRunOptions *opts, int n, bool mps, ProgramResult *results,
                            ProgramMps *mps_out) {
    memset(mps_out, 0, sizeof *mps_out);
    mps_out->requested = mps;
    if (n < 1 || n > PROGRAM_MAX_PROCESSES)
        return diag_error("run", "processes must be 1..%d, not %d", PROGRAM_MAX_PROCESSES, n);
    if (opts->cwd || opts->inherit_stdin || opts->tool)
        return diag_error("run", "several processes run each in a folder of its own, without a tool or a terminal");
    for (int i = 0; i < n; i++) memset(&results[i], 0, sizeof results[i]);
    bool gpu = opts->runtime != PROGRAM_RT_EMU;
    /* looked up once here: their caches are not for threads to fill at once */
    (void)program_emurt_dir();
    (void)program_inject_path();
    MpsDaemon daemon;
    memset(&daemon, 0, sizeof daemon);
    bool running = false;
    if (mps && gpu) {
        running = kept_take(&daemon) || daemon_start(&daemon, mps_out->why, sizeof mps_out->why);
        mps_out->running = running;
    } else if (mps) {
        mps_out->modeled = true;
    }
    if (!gpu) mps_out->modeled = true;
    /* All the processes under one hold of the GPU lock (gpu_lock.h): the
       processes' own timeline is what such an exercise reads, so it is
       exclusive unless the caller says nobody reads its times; exclusive
       from the group's turn, before their first GPU work (program.h):
       their starts, contexts and the MPS server's start
       are shared. Before session 13 the hold was exclusive from the start:
       mps-share held the H200 alone ~1.7 s per graded run. The members
       start their GPU work together (program_group.c's start barrier),
       with the lock or without (a workbench); not on the emulator, whose
       modeled timelines have no start skew (unless it takes the lock). */
    GpuLock lock = GPU_LOCK_INIT;
    gpu_lock_what(&lock, "program-group:%d", n);
    if (gpu || gpu_lock_on_emulator()) gpu_lock_take(&lock, GPU_LOCK_SHARED);
    ProgramGroupTurn *group = (lock.fd >= 0 || gpu) && !opts->gpu_shared ? program_group_turn_new(&lock, n) : NULL;
    ProcJob *jobs = xcalloc((size_t)n, sizeof *jobs);
    const char **env = xcalloc((size_t)opts->n_extra_env + 3, sizeof *env);
    int n_env = 0;
    for (int k = 0; k < opts->n_extra_env; k++) env[n_env++] = opts->extra_env[k];
    if (running) {
        env[n_env++] = daemon.env_pipe;
        env[n_env++] = daemon.env_log;
    }
    char **args = xcalloc((size_t)(n * (opts->n_args + 1)), sizeof *args);
    for (int i = 0; i < n; i++) {
        ProcJob *j = &jobs[i];
        j->exe = exe;
        j->o = *opts;
        j->r = &results[i];
        j->o.extra_env = env;
        j->o.n_extra_env = n_env;
        j->o.gpu_lock_held = true;
        j->o.group_turn = group;
        j->o.group_member = i;
        j->o.tee_out = j->o.tee_err = -1;
        char **a = args + (size_t)i * (size_t)(opts->n_args + 1);
        for (int k = 0; k < opts->n_args; k++) a[k] = arg_for(opts->args[k], i, n);
        j->o.args = (const char *const *)a;
    }
    for (int i = 0; i < n; i++) {
        jobs[i].started = pthread_create(&jobs[i].th, NULL, proc_thread, &jobs[i]) == 0;
        if (!jobs[i].started && group) program_group_turn_gone(group, i);
    }
    Diag *d = NULL;
    int failed = 0;
    for (int i = 0; i < n; i++) {
        if (jobs[i].started) pthread_join(jobs[i].th, NULL);
        else jobs[i].d = diag_error("run", "cannot start a thread for process %d", i);
        if (jobs[i].d) {
            failed++;
            if (!d) d = jobs[i].d;
            else diag_free(&jobs[i].d);
        }
    }
    if (d && failed < n) {
        /* some ran: their results stand; the others say why they did not */
        for (int i = 0; i < n; i++)
            if (!results[i].started && !results[i].findings)
                diag_append(&results[i].findings, diag_error("exec", "process %d could not be started: %s", i, d->message));
        diag_free(&d);
    }
    if (running) kept_put_or_stop(&daemon, results, n);    /* a stop: inside the hold (daemon_stop) */
    gpu_lock_release(&lock);
    program_group_turn_free(&group);
    for (int i = 0; i < n * (opts->n_args + 1); i++) free(args[i]);
    free(args);
    free(env);
    free(jobs);
    return d;
}

/* ---- one timeline for all ---- */

typedef struct Slot {
    double start, end;
    int blocks, process;
} Slot;

/* Blocks one kernel can have resident on the modeled GPU at once. */
static int resident_blocks(const TimelineEntry *e, int sm_count) {
    unsigned threads = e->block[0] * (e->block[1] ? e->block[1] : 1) * (e->block[2] ? e->block[2] : 1);
    int per_sm = threads ? (int)(2048 / threads) : 32;
    if (per_sm > 32) per_sm = 32;
    if (per_sm < 1) per_sm = 1;
    return per_sm * (sm_count > 0 ? sm_count : 1);
}

static int grid_blocks(const TimelineEntry *e) {
    long long b = (long long)e->grid[0] * (e->grid[1] ? e->grid[1] : 1) * (e->grid[2] ? e->grid[2] : 1);
    return b > 1 << 30 ? 1 << 30 : b < 1 ? 1 : (int)b;
}

/* The earliest time >= t at which a kernel of process p needing `need` of
 * `cap` block slots can start beside the running kernels of other processes. */
static double earliest(const Slot *run, int n_run, int p, double t, bool mps, int need, int cap) {
    for (;;) {
        double next = -1;
        int used = 0;
        bool other = false;
        for (int i = 0; i < n_run; i++) {
            if (run[i].process == p || run[i].end <= t || run[i].start > t) continue;
            other = true;
            used += run[i].blocks;
            if (next < 0 || run[i].end < next) next = run[i].end;
        }
        bool fits = mps ? used + need <= cap || !other : !other;
        if (fits || next < 0) return t;
        t = next;
    }
}

Timeline *program_processes_timeline(Timeline *const *tls, int n, bool modeled, bool mps, int sm_count) {
    Timeline *out = NULL;
    double origin = 0;
    bool have_origin = false;
    for (int p = 0; p < n; p++) {
        if (!tls[p]) continue;
        if (!out) out = timeline_new(tls[p]->modeled, tls[p]->source, tls[p]->device);
        if (!modeled && tls[p]->n && (!have_origin || tls[p]->origin_us < origin)) {
            origin = tls[p]->origin_us;
            have_origin = true;
        }
    }
    if (!out) return timeline_new(modeled, modeled ? "emu-model" : "cupti", "");
    /* the shift each entry gets (modeled: the delay the shared GPU caused) */
    double **shift = xcalloc((size_t)n, sizeof *shift);
    for (int p = 0; p < n; p++)
        if (tls[p]) shift[p] = xcalloc((size_t)tls[p]->n + 1, sizeof **shift);
    if (modeled) {
        int *next = xcalloc((size_t)n, sizeof *next);      /* the next kernel of each, in start order */
        double *delta = xcalloc((size_t)n, sizeof *delta);
        int total = 0;
        for (int p = 0; p < n; p++)
            for (int i = 0; tls[p] && i < tls[p]->n; i++) total += tls[p]->v[i].kind == TL_KERNEL;
        Slot *run = xcalloc((size_t)total + 1, sizeof *run);
        int n_run = 0;
        /* each process's kernels in start order (a timeline lists them so; sort to be sure) */
        int **order = xcalloc((size_t)n, sizeof *order);
        int *n_order = xcalloc((size_t)n, sizeof *n_order);
        for (int p = 0; p < n; p++) {
            if (!tls[p]) continue;
            order[p] = xcalloc((size_t)tls[p]->n + 1, sizeof **order);
            for (int i = 0; i < tls[p]->n; i++)
                if (tls[p]->v[i].kind == TL_KERNEL) {
                    int k = n_order[p]++;
                    while (k > 0 && tls[p]->v[order[p][k - 1]].start_us > tls[p]->v[i].start_us) {
                        order[p][k] = order[p][k - 1];
                        k--;
                    }
                    order[p][k] = i;
                }
        }
        for (int placed = 0; placed < total; placed++) {
            int p = -1;
            double best = 0;
            for (int q = 0; q < n; q++) {
                if (next[q] >= n_order[q]) continue;
                double s = tls[q]->v[order[q][next[q]]].start_us + delta[q];
                if (p < 0 || s < best) p = q, best = s;
            }
            if (p < 0) break;
            const TimelineEntry *e = &tls[p]->v[order[p][next[p]]];
            int cap = resident_blocks(e, sm_count), need = grid_blocks(e);
            if (need > cap) need = cap;
            double s = earliest(run, n_run, p, best, mps, need, cap);
            delta[p] += s - best;
            shift[p][order[p][next[p]]] = delta[p];
            run[n_run++] = (Slot){s, s + e->dur_us, need, p};
            next[p]++;
        }
        /* other entries move with the process's last kernel that started before them */
        for (int p = 0; p < n; p++) {
            if (!tls[p]) continue;
            for (int i = 0; i < tls[p]->n; i++) {
                if (tls[p]->v[i].kind == TL_KERNEL) continue;
                double sh = 0, at = -1;
                for (int k = 0; k < n_order[p]; k++) {
                    const TimelineEntry *ke = &tls[p]->v[order[p][k]];
                    if (ke->start_us <= tls[p]->v[i].start_us && ke->start_us >= at) {
                        at = ke->start_us;
                        sh = shift[p][order[p][k]];
                    }
                }
                shift[p][i] = sh;
            }
            free(order[p]);
        }
        free(order);
        free(n_order);
        free(run);
        free(next);
        free(delta);
    } else {
        for (int p = 0; p < n; p++)
            for (int i = 0; tls[p] && i < tls[p]->n; i++) shift[p][i] = tls[p]->origin_us - origin;
    }
    for (int p = 0; p < n; p++) {
        const Timeline *t = tls[p];
        if (!t) continue;
        for (int k = 0; k < t->n_streams; k++) {
            char name[200];
            snprintf(name, sizeof name, "process %d: %s", p + 1, t->streams[k].name ? t->streams[k].name : "stream");
            timeline_set_stream(out, STREAMS_PER_PROCESS * (p + 1) + t->streams[k].id, name, t->streams[k].priority);
        }
        for (int i = 0; i < t->n; i++) {
            const TimelineEntry *e = &t->v[i];
            int stream = e->stream == TIMELINE_HOST ? TIMELINE_HOST : STREAMS_PER_PROCESS * (p + 1) + e->stream;
            TimelineEntry *c = timeline_add(out, e->kind, stream, e->name, e->start_us + shift[p][i], e->dur_us);
            if (!c) continue;
            c->bytes = e->bytes;
            c->pinned = e->pinned;
            memcpy(c->grid, e->grid, sizeof c->grid);
            memcpy(c->block, e->block, sizeof c->block);
            c->device = e->device;
            c->process = p + 1;
        }
        out->dropped += t->dropped;
        free(shift[p]);
    }
    free(shift);
    out->origin_us = modeled ? 0 : origin;
    return out;
}
