/* kernels/program_run.c: running a learner's compiled program as a child
 * of the worker, so that nothing it does can take the worker down.
 *
 * The child: its own process group; cwd a fresh directory (the input files
 * written there first, removed afterwards); stdin from the given bytes (a
 * memfd) or /dev/null; stdout, stderr and the report channel (fd 3, named
 * by CUDOJO_REPORT_FD) are pipes; fd 5 (CUDOJO_TURN_FD) the worker's answer
 * to a timed program's "turn", fd 6 (CUDOJO_DRAIN_FD) an untimed one's
 * drain (below); every other descriptor closed; signal
 * dispositions and mask reset; the rlimits and the anti-fork filter of
 * program_sandbox.c (Landlock too when o->confine); the environment of
 * program_env.c.
 *
 * The parent polls the three pipes: output is kept up to the cap and
 * counted past it (never stored, so a flood cannot grow the worker), and
 * optionally copied to tee descriptors as it comes; report lines become
 * the result (program_report.c). A fresh run folder is measured every
 * 250 ms: past CUDOJO_RUN_DISK_MB (1 GiB) the program is killed, so many
 * files under the per-file limit cannot fill the disk either. The timeout and the cancel flag kill the
 * whole process group; so does the child's exit, for anything it left.
 *
 * The GPU lock (gpu_lock.h): a timed program on a GPU starts holding it
 * shared, so its exec, loading, cuInit and context run beside other
 * graders' untimed work, never beside a timed section. Before its first
 * GPU work (a launch, copy, memset, event record or graph launch) the
 * injection library (or the emulator runtime, with CUDOJO_GPU_LOCK_EMU)
 * sends a "turn" record and waits; the worker lets go of the shared lock,
 * waits for the exclusive one, answers on fd 5, and holds it until the
 * program's exit: there its runtime synchronises, says "i" on fd 5 and
 * waits while the worker takes the lock back to shared (turn_rest), so
 * its teardown runs beside untimed work (and is not stopped for 1 s); without
 * that (a crash, a kill) the lock is exclusive until the child is reaped.
 * The waits are not the program's: the deadline moves by them and wall_ms
 * leaves them out. A program that never asks (no GPU work, or
 * one that does without the injection library) stays shared: noisy only
 * for itself. While a program holds the lock shared, a timed section that
 * waits for it stops it until that section is done (turn_yield); an untimed
 * program first drains the GPU work it queued (fd 6, CUDOJO_DRAIN_FD:
 * drain_ask). The turn, the rest, the yield and the drain are
 * kernels/program_turn.c; copies run together (program_run_processes) take
 * one turn for all and start their GPU work together: kernels/program_group.c. */
#include "kernels/program.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/strbuf.h"
#include "base/xalloc.h"
#include "kernels/gpu_lock.h"
#include "kernels/program_internal.h"
#include "kernels/progwire.h"

#define DEFAULT_TIMEOUT_S 10.0
#define DEFAULT_OUTPUT_CAP (1u << 20)
#define FSIZE_LIMIT (256ll << 20)
/* The emulator's address space: the machine's memory, within 8..64 GiB
 * (device memory and the emulator's threads' arenas are reserved, not
 * used, so less would fail big-but-fine programs on a many-core host). */
#define EMU_AS_MIN (8ll << 30)
#define EMU_AS_MAX (64ll << 30)
#define WANT_FILE_MAX (256u << 20)
#define PROGRAM_STATUS_FD 4     /* where the child says why execve failed */

static long long emu_as_limit(void) {
#if defined(__SANITIZE_ADDRESS__)
    return 0;   /* the ASan runtime preloaded with it (`make san`) reserves terabytes of shadow */
#endif
    long long mem = (long long)sysconf(_SC_PHYS_PAGES) * (long long)sysconf(_SC_PAGESIZE);
    return mem < EMU_AS_MIN ? EMU_AS_MIN : mem > EMU_AS_MAX ? EMU_AS_MAX : mem;
}

/* ---- the child ---- */

typedef struct ChildSetup {
    const char *exe;
    char *const *argv;
    char *const *envp;
    const char *cwd;
    int fd_in, fd_out, fd_err, fd_rep, fd_status;
    int fd_turn;                    /* the child's end of the turn channel; -1 = none */
    int fd_drain;                   /* the child's end of the drain channel; -1 = none */
    int fd_go;                      /* the child waits for a byte here before it goes on (the parent
                                       takes the GPU lock meanwhile); -1 = none */
    bool foreground;                /* take the terminal (cudojo exec reading the user's tty) */
    pid_t parent;                   /* the worker: the program dies with it */
    ChildLimits limits;
} ChildSetup;

/* Between fork and execve: async-signal-safe calls only. The descriptors
 * go first, before the wait for "go": a fork copies every descriptor of the
 * worker, and other threads' runs (a sanitizer's run beside the plain one,
 * the copies of t:program{ processes = }) have pipes open whose ends their
 * parents wait to see closed, and GPU lock files whose locks a copy would
 * keep. A child waiting for the lock while holding them kept another run
 * from ending, and so from letting go of the lock it waited for. */
static void child_main(const ChildSetup *c) {
    setpgid(0, 0);
    proc_die_with_parent(c->parent);
    /* descriptor i of the child is src[i]; the turn and drain channels only when there; then "go" */
    int src[7] = {c->fd_in, c->fd_out, c->fd_err, c->fd_rep, c->fd_status, c->fd_turn, c->fd_drain};
    int n_src = c->fd_drain >= 0 ? 7 : c->fd_turn >= 0 ? 6 : 5;
    int go = c->fd_go;
    if (go >= 0 && (go = fcntl(go, F_DUPFD_CLOEXEC, 10)) < 0) goto fail;
    for (int i = 0; i < n_src; i++) {    /* out of the way of 0..7 first */
        if (src[i] >= 0 && (src[i] = fcntl(src[i], F_DUPFD_CLOEXEC, 10)) < 0) goto fail;
    }
    for (int i = 0; i < n_src; i++)
        if (src[i] >= 0 ? dup2(src[i], i) < 0 : close(i) < 0 && errno != EBADF) goto fail;
    fcntl(PROGRAM_STATUS_FD, F_SETFD, FD_CLOEXEC);
    if (go >= 0) {
        if (dup2(go, n_src) < 0) goto fail;
        go = n_src;
        fcntl(go, F_SETFD, FD_CLOEXEC);
    }
    int keep = go >= 0 ? n_src + 1 : n_src;
    if (syscall(SYS_close_range, keep, ~0u, 0) != 0)
        for (int fd = keep; fd < 4096; fd++) close(fd);
    if (go >= 0) {
        char b;
        ssize_t got;
        do got = read(go, &b, 1);
        while (got < 0 && errno == EINTR);
        if (got != 1) _exit(127);       /* the worker is gone */
        close(go);
    }
    if (c->foreground) {
        /* A background group that reads its terminal is stopped (SIGTTIN):
         * be the terminal's foreground group, as a shell makes a job. The
         * parent does the same, whichever of the two runs first. */
        sigset_t ttou;
        sigemptyset(&ttou);
        sigaddset(&ttou, SIGTTOU);
        sigprocmask(SIG_BLOCK, &ttou, NULL);
        tcsetpgrp(0, getpid());     /* the terminal: c->fd_in, now 0 */
    }
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    for (int s = 1; s < 32; s++)
        if (s != SIGKILL && s != SIGSTOP) sigaction(s, &dfl, NULL);
    if (chdir(c->cwd) != 0) goto fail;
    /* A graded program runs shut in or not at all. */
    errno = 0;
    if (!program_sandbox_enter(&c->limits) && c->limits.confine) {
        if (!errno) errno = EPERM;
        goto fail;
    }
    execve(c->exe, c->argv, c->envp);
fail:;
    int e = errno;
    ssize_t w = write(PROGRAM_STATUS_FD, &e, sizeof e);
    (void)w;
    _exit(127);
}

/* ---- output ---- */

typedef struct Stream {
    int fd;                         /* -1 once at EOF */
    StrBuf kept;
    size_t total, cap;
    int tee;                        /* -1 = none (or it failed) */
} Stream;

static void stream_take(Stream *s, const char *buf, size_t n) {
    if (s->kept.len < s->cap) strbuf_append_n(&s->kept, buf, n < s->cap - s->kept.len ? n : s->cap - s->kept.len);
    s->total += n;
    for (size_t off = 0; s->tee >= 0 && off < n;) {
        ssize_t w = write(s->tee, buf + off, n - off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            s->tee = -1;    /* a closed terminal or pipe: stop copying, keep capturing */
            break;
        }
        off += (size_t)w;
    }
}

static bool valid_name(const char *n) {
    return n && *n && !strchr(n, '/') && strcmp(n, ".") && strcmp(n, "..") && strlen(n) < 256;
}

static Diag *write_inputs(const char *cwd, const ProgramRunOptions *o) {
    for (int i = 0; i < o->n_files; i++) {
        char *p = path_join(cwd, o->files[i].name);
        Diag *d = fs_write_file_atomic(p, o->files[i].data, o->files[i].size);
        free(p);
        if (d) return d;
    }
    return NULL;
}

static int stdin_fd(const ProgramRunOptions *o) {
    if (o->inherit_stdin) return fcntl(0, F_DUPFD_CLOEXEC, 3);
    if (!o->stdin_data) return open("/dev/null", O_RDONLY | O_CLOEXEC);
    int fd = memfd_create("cudojo-stdin", MFD_CLOEXEC);
    if (fd < 0) return -1;
    for (size_t off = 0; off < o->stdin_size;) {
        ssize_t w = write(fd, (const char *)o->stdin_data + off, o->stdin_size - off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            close(fd);
            return -1;
        }
        off += (size_t)w;
    }
    lseek(fd, 0, SEEK_SET);
    return fd;
}

static void read_back(ProgramResult *r, const char *cwd, const ProgramRunOptions *o) {
    for (int i = 0; i < o->n_want; i++) {
        if (!valid_name(o->want_files[i])) continue;
        char *p = path_join(cwd, o->want_files[i]);
        struct stat st;
        char *data = NULL;
        size_t len = 0;
        Diag *d = lstat(p, &st) == 0 && S_ISREG(st.st_mode) ? fs_read_file_max(p, WANT_FILE_MAX, &data, &len)
                                                           : diag_error("io", "absent");
        free(p);
        if (d) {
            diag_free(&d);
            continue;
        }
        r->files = xrealloc(r->files, (size_t)(r->n_files + 1) * sizeof *r->files);
        r->files[r->n_files++] = (ProgramFile){xstrdup(o->want_files[i]), (unsigned char *)data, len};
    }
}

static Diag *check_options(const char *exe, const ProgramRunOptions *o) {
    if (!exe || !*exe) return diag_error("run", "no program to run");
    for (int i = 0; i < o->n_files; i++)
        if (!valid_name(o->files[i].name))
            return diag_error("bad-file", "input file name '%s' must be one path component (no '/', not '.' or '..')",
                              o->files[i].name ? o->files[i].name : "");
    if (o->runtime == PROGRAM_RT_EMU && !program_emurt_dir())
        return diag_error("no-emurt",
                          "cudojo's emulator runtime (%s) was not found, so CUDA programs cannot run "
                          "without a GPU: build it with `make` (it goes to BUILD/emurt/), or set "
                          "CUDOJO_EMURT_DIR to the directory holding it",
                          program_cudart_soname());
    return NULL;
}

static void close_fd(int *fd) {
    if (*fd >= 0) close(*fd);
    *fd = -1;
}

/* ---- disk ---- */

/* What the run folder may hold, files deleted but held open included: a
 * file is capped by RLIMIT_FSIZE, their number and sum only by this. */
static long long disk_limit(void) {
    long long b;
    Diag *bad = program_env_mib("CUDOJO_RUN_DISK_MB", 1024, &b);   /* a wrong value: the default */
    diag_free(&bad);
    return b;
}

#define DISK_ENTRIES_MAX 100000

/* Adds the bytes and entries beneath directory fd `dir` (closed) to *bytes, *entries. */
static void disk_walk(int dir, int depth, long long *bytes, long *entries) {
    DIR *d = fdopendir(dir);
    if (!d) {
        close(dir);
        return;
    }
    for (struct dirent *e; (e = readdir(d)) && *entries < DISK_ENTRIES_MAX;) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        struct stat st;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
        (*entries)++;
        *bytes += (long long)st.st_blocks * 512;
        if (S_ISDIR(st.st_mode) && depth < 64) {
            int sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (sub >= 0) disk_walk(sub, depth + 1, bytes, entries);
        }
    }
    closedir(d);
}

/* The run folder's use plus the deleted files the program holds open; true when over the limit. */
static bool disk_over(const char *cwd, pid_t pid, long long limit, long long *bytes) {
    long entries = 0;
    *bytes = 0;
    int fd = open(cwd, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) disk_walk(fd, 0, bytes, &entries);
    char fds[64];
    snprintf(fds, sizeof fds, "/proc/%d/fd", (int)pid);
    DIR *d = opendir(fds);
    for (struct dirent *e; d && (e = readdir(d));) {
        struct stat st;
        if (fstatat(dirfd(d), e->d_name, &st, 0) == 0 && S_ISREG(st.st_mode) && st.st_nlink == 0)
            *bytes += (long long)st.st_blocks * 512;
    }
    if (d) closedir(d);
    return *bytes > limit || entries >= DISK_ENTRIES_MAX;
}

/* How long a program past its "exit" record is left to tear down without
 * a yield (the longest teardown in a grading on the H200: 301 ms, session
 * 15 call 1). */
#define TEARDOWN_NO_YIELD_MS 1000

/* Polls the pipes until they close and the child is gone, or the deadline,
 * the cancel flag or a run folder grown past the disk limit (checked every
 * 250 ms when `disk_dir` is set) kills the group; answers a "turn" record
 * (the deadline moves by the wait). Returns the wait status. */
static int supervise(pid_t pid, Stream *out, Stream *err, int *rep, ReportReader *rr, ProgramResult *r,
                     const ProgramRunOptions *o, double deadline, const char *disk_dir, Turn *turn) {
    char buf[65536];
    bool exited = false, killed = false;
    double exited_at = 0, disk_at = proc_now_ms(), exit_said_at = -1;
    int look_ms = turn_yield_look_ms(), poll_ms = look_ms < 20 ? look_ms : 20;
    long long limit = disk_limit();
    for (;;) {
        if (!killed && !exited && disk_dir && proc_now_ms() > disk_at + 250) {
            long long used = 0;
            if (disk_over(disk_dir, pid, limit, &used)) {
                r->disk_bytes = used > 0 ? used : 1;
                killed = true;
                kill(-pid, SIGKILL);
                kill(pid, SIGKILL);
            }
            disk_at = proc_now_ms();
        }
        if (!killed && o->cancel && *o->cancel) {
            r->cancelled = killed = true;
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);     /* in case it left its group (under a tool) */
        }
        if (!killed && proc_now_ms() > deadline) {
            r->timed_out = killed = true;
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
        }
        if (!exited) {
            siginfo_t si;
            memset(&si, 0, sizeof si);
            int w = waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT);
            if ((w == 0 && si.si_pid == pid) || (w < 0 && errno == ECHILD)) {    /* ECHILD: SIGCHLD ignored */
                exited = true;
                exited_at = proc_now_ms();
                kill(-pid, SIGKILL);    /* whatever it left behind; it is still a zombie */
                if (turn->group) group_turn_exited(turn);     /* its siblings stop waiting for it */
            }
        }
        if (exited && out->fd < 0 && err->fd < 0 && *rep < 0) break;
        int turn_fd = turn->granted && !turn->idle_said && !turn->exit_answered ? turn->fd : -1;
        struct pollfd p[4] = {{out->fd, POLLIN, 0}, {err->fd, POLLIN, 0}, {*rep, POLLIN, 0}, {turn_fd, POLLIN, 0}};
        int n = poll(p, 4, poll_ms);
        if (n > 0 && (p[3].revents & (POLLIN | POLLHUP | POLLERR))) {
            char c = 0;
            ssize_t got = recv(turn_fd, &c, 1, MSG_DONTWAIT);
            if (got == 1 && c == 'i') turn->idle_said = true;
            else if (got == 0 || (got < 0 && errno != EINTR && errno != EAGAIN)) turn->exit_answered = true;
        }
        if (n < 0 && errno != EINTR) break;
        for (int i = 0; n > 0 && i < 3; i++) {
            if (!(p[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            ssize_t got = read(p[i].fd, buf, sizeof buf);
            if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
            if (got <= 0) {
                if (i == 0) close_fd(&out->fd);
                if (i == 1) close_fd(&err->fd);
                if (i == 2) close_fd(rep);
                continue;
            }
            if (i == 0) stream_take(out, buf, (size_t)got);
            if (i == 1) stream_take(err, buf, (size_t)got);
            if (i == 2) report_reader_feed(rr, buf, (size_t)got, r, o);
        }
        if (rr->turn_asked && turn->fd >= 0 && !turn->granted && !killed)
            deadline += turn->group ? group_turn_ask(turn) : turn_grant(turn);
        if (turn->idle_said && !turn->exit_answered && !killed && (!turn->group || group_turn_rest(turn)))
            deadline += turn_rest(turn);    /* a member: once every member is idle (asked again at each look) */
        /* A program past its exit is not stopped for TEARDOWN_NO_YIELD_MS:
         * its teardown frees GPU memory, partly in the kernel, where a stop
         * does not reach. Bounded: a program that says "exit" and goes on
         * cannot keep timed sections waiting past that. */
        if (rr->exit_said && exit_said_at < 0) exit_said_at = proc_now_ms();
        /* Let go of at its exit (CUDOJO_GPU_REST_AT_EXIT=free) and still
           running past the teardown's time: shared again, so that it
           yields to a timed section like any shared holder. */
        if (turn->freed_at_ms > 0 && !exited && !killed && turn->lock->fd < 0 &&
            proc_now_ms() >= turn->freed_at_ms + TEARDOWN_NO_YIELD_MS) {
            double w0 = proc_now_ms();
            gpu_lock_what(turn->lock, "program-exit");
            gpu_lock_take(turn->lock, GPU_LOCK_SHARED);
            double waited = proc_now_ms() - w0;     /* not the program's, as every wait for the lock */
            deadline += waited;
            turn->waited_ms += waited;
            turn->freed_at_ms = 0;
        }
        bool may_yield = turn->yields && !killed && !exited &&
                         !(exit_said_at >= 0 && proc_now_ms() < exit_said_at + TEARDOWN_NO_YIELD_MS);
        if (turn->group) {
            if (may_yield && proc_now_ms() >= turn->next_look_ms) {
                turn->next_look_ms = proc_now_ms() + look_ms;
                group_turn_yield(turn);
            }
            deadline += group_turn_pauses(turn);
        } else if (may_yield && turn->lock->fd >= 0 && turn->lock->mode != GPU_LOCK_EXCLUSIVE &&
                   proc_now_ms() >= turn->next_look_ms) {
            turn->next_look_ms = proc_now_ms() + look_ms;
            if (gpu_lock_contended(turn->lock)) deadline += turn_yield(turn, pid);
        }
        /* The child is gone and killed its group: what is left in the pipes
         * comes now; a descendant that escaped cannot hold them forever. */
        if (exited && proc_now_ms() > exited_at + 2000) break;
    }
    int st = 0;
    if (turn->group) group_turn_leave(turn, pid);
    waitpid(pid, &st, 0);
    return st;
}

/* Puts the trampoline in front of the program in a tool's argv, with
 * `limits` (what the program would get without a tool) as the program's
 * cage; the tool's child keeps only the rlimits. Without the trampoline a
 * graded program (landlock) is not run at all: never a stranger's code
 * unconfined. */
static Diag *tool_cage(ToolRun *tool, ChildLimits *limits, bool landlock) {
    const char *helper = program_confine_helper();
    if (!helper) {
        if (landlock)
            return diag_error("run", "cannot shut the program in under %s: cudojo-confine is not beside cudojo "
                                     "(make confine, or set CUDOJO_CONFINE_DIR to its folder)",
                              path_basename(tool->argv[0]));
        return NULL;    /* as before the trampoline: the tool's run unconfined */
    }
    ChildLimits cage = *limits;
    cage.no_fork = true;
    char **wrap = program_confine_args(helper, &cage);
    program_tool_wrap(tool, wrap);
    program_confine_args_free(&wrap);
    limits->no_fork = false;    /* a tool starts the program itself */
    limits->confine = false;
    limits->no_unix = false;
    return NULL;
}

Diag *program_run(const char *exe, const ProgramRunOptions *opts, ProgramResult *r) {
    memset(r, 0, sizeof *r);
    ProgramRunOptions defaults = {.tee_out = -1, .tee_err = -1};
    const ProgramRunOptions *o = opts ? opts : &defaults;
    Diag *d = check_options(exe, o);
    if (d) return d;
    double timeout = o->timeout_s > 0 ? o->timeout_s : DEFAULT_TIMEOUT_S;

    char *cwd = NULL;
    bool own_cwd = !o->cwd;
    if (own_cwd) {
        const char *t = getenv("TMPDIR");
        cwd = path_join(t && *t ? t : "/tmp", "cudojo-run-XXXXXX");
        if (!mkdtemp(cwd)) {
            d = diag_error("io", "cannot make a directory to run the program in: %s", strerror(errno));
            free(cwd);
            return d;
        }
    } else {
        cwd = path_absolute(o->cwd);
    }
    if ((d = write_inputs(cwd, o))) {
        if (own_cwd) proc_remove_tree(cwd);
        free(cwd);
        return d;
    }

    /* Everything the child needs is made before fork. Under a tool
     * (program_tool.c) the child is the tool, the program its argument. */
    ToolRun tool = {0};
    if (o->tool && (d = program_tool_prepare(o->tool, exe, o->args, o->n_args, &tool))) {
        if (own_cwd) proc_remove_tree(cwd);
        free(cwd);
        return d;
    }
    /* A program on the real GPU holds the GPU lock for its whole run
       (gpu_lock.h): shared when nobody reads its times (o->gpu_shared);
       when it is timed, shared until its turn, then exclusive (alone on the
       GPU across graders; the top of this file). Under Nsight Compute
       shared, one profiler at a time (gpu_lock.h); under another tool
       exclusive from the start. A compile (nvcc) was done before: never
       under the lock. */
    bool locks = (o->runtime != PROGRAM_RT_EMU || gpu_lock_on_emulator()) && !o->gpu_lock_held;
    bool want_turn = locks && !o->gpu_shared && !o->tool;
    /* a member of a group's turn: the group's lock, held shared by the caller until the group's turn */
    ProgramGroupTurn *group = o->gpu_lock_held && !o->tool ? o->group_turn : NULL;
    char **envp = NULL;     /* made once the turn channel is known (below) */
    char **argv = xcalloc((size_t)o->n_args + 2, sizeof *argv);
    argv[0] = (char *)exe;
    for (int i = 0; i < o->n_args; i++) argv[i + 1] = (char *)o->args[i];
    const char *child_exe = o->tool ? tool.argv[0] : exe;
    int pout[2] = {-1, -1}, perr[2] = {-1, -1}, prep[2] = {-1, -1}, pstat[2] = {-1, -1};
    int in = stdin_fd(o);
    if (in < 0 || pipe2(pout, O_CLOEXEC) || pipe2(perr, O_CLOEXEC) || pipe2(prep, O_CLOEXEC) ||
        pipe2(pstat, O_CLOEXEC))
        d = diag_error("io", "cannot set up the program's input and output: %s", strerror(errno));
    ChildSetup cs = {
        .exe = child_exe, .argv = o->tool ? tool.argv : argv, .cwd = cwd,
        .fd_in = in, .fd_out = pout[1], .fd_err = perr[1], .fd_rep = prep[1], .fd_status = pstat[1],
        .fd_turn = -1, .fd_drain = -1, .fd_go = -1,
        .limits = {
            .cpu_s = o->cpu_s > 0 ? (long)(o->cpu_s + 0.999) : (long)timeout + 5,
            .fsize = FSIZE_LIMIT,
            .as_bytes = o->runtime == PROGRAM_RT_EMU ? emu_as_limit() : 0,
            .nproc = program_sandbox_nproc(512),
            .no_fork = true,       /* under a tool, the program's (tool_cage) */
        },
    };
    char **read_paths = NULL, **write_paths = NULL;
    const char *sandbox = getenv("CUDOJO_SANDBOX");
    bool landlock = o->confine && !(sandbox && !strcmp(sandbox, "off")) && program_sandbox_landlock_abi() > 0;
    if (landlock) {
        program_sandbox_paths(o, exe, cwd, &read_paths, &write_paths);
        cs.limits.confine = true;
        cs.limits.landlock_abi = program_sandbox_landlock_abi();
        /* Landlock does not cover connecting to a Unix socket by path (a local database, the X
           server), and seccomp cannot see the path: on the emulator runtime, which needs none,
           a graded program gets no Unix socket at all. NVIDIA's runtime needs them (MPS). */
        cs.limits.no_unix = o->runtime == PROGRAM_RT_EMU;
        cs.limits.read_paths = (const char *const *)read_paths;
        cs.limits.write_paths = (const char *const *)write_paths;
    }
    cs.foreground = o->inherit_stdin && in >= 0 && isatty(in) && tcgetpgrp(in) == getpgrp();
    long long as_env;
    Diag *bad = program_env_mib("CUDOJO_RUN_AS_MB", 0, &as_env);
    if (bad && !d) d = bad;     /* a wrong limit stops the run, saying so: never no limit at all */
    else diag_free(&bad);
    if (as_env) cs.limits.as_bytes = as_env;
    /* Under a tool the cage is the program's, entered by the trampoline
       the tool starts (program_confine.c); the tool itself may fork. */
    if (o->tool && !d && !(d = tool_cage(&tool, &cs.limits, landlock))) cs.argv = tool.argv;   /* moved */
    GpuLock lock = GPU_LOCK_INIT;
    Turn turn = {.lock = group ? group->lock : &lock, .fd = -1, .group = group, .member = o->group_member,
                 .drain_fd = -1};
    int pturn[2] = {-1, -1};
    gpu_lock_what(&lock, "%s", o->tool ? "tool" : o->gpu_shared ? "program-untimed" : "program");
    /* The lock is taken once the child is made, before it may exec (the
       "go" pipe): a fork of a worker holding GiBs of memory can take
       hundreds of milliseconds under load, and a shared holder cannot step
       aside before its supervision starts (session 14 call 3: 94 of 97
       untimed programs that kept a timed section waiting over 50 ms had
       held the lock under 300 ms). What the channels need is decided now,
       from the mode the take will have. */
    bool lock_on = !d && locks && gpu_lock_enabled();
    GpuLockMode mode = gpu_lock_mode_for(o->gpu_profiler                ? GPU_LOCK_PROFILER
                                         : o->gpu_shared || want_turn ? GPU_LOCK_SHARED
                                                                      : GPU_LOCK_EXCLUSIVE);
    /* Held shared for a timed program (not when the lock is off, nor when
       CUDOJO_GPU_LOCK_MODE=exclusive makes it exclusive): its turn comes. A
       group's member asks too while the group's lock is still shared, and
       wherever the members start together (program_group.c). */
    if (!d && ((want_turn && lock_on && mode == GPU_LOCK_SHARED) ||
               (group && (group_turn_shared(group) || group_turn_has_barrier(group))))) {
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pturn) == 0) {
            cs.fd_turn = pturn[1];
            turn.fd = pturn[0];
        } else if (!group) {    /* no channel: exclusive from the start, as before */
            mode = GPU_LOCK_EXCLUSIVE;
        }
    }
    /* A shared holder steps aside for a waiting timed section (turn_yield),
       so that section waits for the GPU's work, not for whole programs:
       a program of its own, one under compute-sanitizer (its runs are
       the longest shared holders) or under ncu (which runs with its clocks
       left alone under the lock: kernels/program_ncu.c).
       CUDOJO_GPU_YIELD=0 turns yields off, =programs leaves runs under a
       tool out (to compare). */
    const char *yield_env = getenv("CUDOJO_GPU_YIELD");
    turn.yields = !d && (group ? group_turn_shared(group) : lock_on && mode != GPU_LOCK_EXCLUSIVE) &&
                  !cs.foreground && !(yield_env && !strcmp(yield_env, "0")) &&
                  !(o->tool && yield_env && !strcmp(yield_env, "programs"));
    /* The drain channel (drain_ask) for an untimed program that yields: the
       one kind of shared holder with GPU work queued when it is stopped (a
       timed program asks for its turn before its first GPU work, a group's
       members too). Not under a tool: there the program is the tool's child,
       and its runtime answers only its parent. CUDOJO_GPU_DRAIN_MS bounds
       the wait (default DRAIN_WAIT_MS; 0: no drain, to compare). */
    int pdrain[2] = {-1, -1};
    if (!d && turn.yields && o->gpu_shared && !o->tool && !group && !(d = turn_drain_wait_ms(&turn.drain_wait_ms)) &&
        turn.drain_wait_ms > 0 && socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pdrain) == 0) {
        cs.fd_drain = pdrain[1];
        turn.drain_fd = pdrain[0];
    }
    /* CUDOJO_TURN_FD and CUDOJO_DRAIN_FD only with a channel: without one,
       descriptor 5 or 6 in the child is whatever the program (or the
       driver) opens there. One hardware queue for a program that can only
       use one stream per device (program_elf.c): its context is made
       faster beside the other graders' programs. CUDOJO_ONE_QUEUE=0 leaves
       the driver's default (to compare). */
    const char *one_queue = getenv("CUDOJO_ONE_QUEUE");
    unsigned env_flags = (turn.fd >= 0 ? PROGRAM_ENV_TURN : 0) | (turn.drain_fd >= 0 ? PROGRAM_ENV_DRAIN : 0);
    if (!d && o->runtime != PROGRAM_RT_EMU && !(one_queue && !strcmp(one_queue, "0")) && program_one_stream(exe))
        env_flags |= PROGRAM_ENV_ONE_QUEUE;
    envp = program_env_build(o, cwd, env_flags);
    cs.envp = envp;
    cs.parent = getpid();
    int pgo[2] = {-1, -1};
    if (!d && locks && pipe2(pgo, O_CLOEXEC) != 0)
        d = diag_error("io", "cannot set up the program's start: %s", strerror(errno));
    cs.fd_go = pgo[0];
    if (group) pthread_mutex_lock(&group->mu);     /* until it is on the group's list (group_turn_enter_locked) */
    pid_t pid = d ? -1 : fork();
    if (pid == 0) child_main(&cs);
    if (group && pid > 0) {
        setpgid(pid, pid);
        group_turn_enter_locked(&turn, pid);
    }
    if (group) pthread_mutex_unlock(&group->mu);
    if (!d && pid < 0) d = diag_error("io", "cannot start the program: %s", strerror(errno));
    sigset_t ttou, old_mask;
    sigemptyset(&ttou);
    sigaddset(&ttou, SIGTTOU);
    if (!d && cs.foreground) {
        pthread_sigmask(SIG_BLOCK, &ttou, &old_mask);   /* we are about to be in the background */
        setpgid(pid, pid);
        tcsetpgrp(in, pid);
    }
    int fds[] = {pout[1], perr[1], prep[1], pstat[1], pturn[1], pdrain[1], pgo[0]};
    for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++)
        if (fds[i] >= 0) close(fds[i]);
    /* The child waits on the go pipe: take the lock, then let it exec. Its
       time and deadline start now (the wait for the lock is not its). */
    if (lock_on && pid > 0) gpu_lock_take(&lock, mode);
    if (pgo[1] >= 0) {
        if (pid > 0 && write(pgo[1], "g", 1) != 1) (void)errno;   /* a child that is gone: its status says so */
        close(pgo[1]);
    }
    double t0 = proc_now_ms();
    if (!d) {
        setpgid(pid, pid);
        int e = 0;
        ssize_t got;
        do got = read(pstat[0], &e, sizeof e);
        while (got < 0 && errno == EINTR);
        r->started = got != (ssize_t)sizeof e;
        if (!r->started)
            diag_append(&r->findings, diag_error("exec", "cannot run %s: %s", child_exe, strerror(e)));
        Stream out = {.fd = pout[0], .cap = o->output_cap ? o->output_cap : DEFAULT_OUTPUT_CAP, .tee = o->tee_out};
        Stream err = {.fd = perr[0], .cap = out.cap, .tee = o->tee_err};
        strbuf_init(&out.kept);
        strbuf_init(&err.kept);
        ReportReader rr;
        report_reader_init(&rr);
        int st = supervise(pid, &out, &err, &prep[0], &rr, r, o, t0 + timeout * 1e3, own_cwd ? cwd : NULL, &turn);
        close_fd(&out.fd);
        close_fd(&err.fd);
        pout[0] = perr[0] = -1;     /* they were out.fd and err.fd */
        r->wall_ms = proc_now_ms() - t0 - turn.waited_ms;
        gpu_lock_release(&lock);
        if (!r->timed_out && !r->cancelled) {
            if (WIFEXITED(st)) r->exit_code = WEXITSTATUS(st);
            if (WIFSIGNALED(st)) {
                r->signaled = true;
                r->signal = WTERMSIG(st);
            }
        }
        r->out_len = out.kept.len;
        r->out_total = out.total;
        r->out = strbuf_steal(&out.kept);
        r->err_len = err.kept.len;
        r->err_total = err.total;
        r->err = strbuf_steal(&err.kept);
        strbuf_fini(&out.kept);
        strbuf_fini(&err.kept);
        read_back(r, cwd, o);
        if (o->tool) program_tool_collect(&tool, r);
        report_reader_finish(&rr, r, o, exe);
        report_reader_fini(&rr);
    }
    gpu_lock_release(&lock);
    close_fd(&turn.fd);
    close_fd(&turn.drain_fd);
    if (!d && cs.foreground) {
        tcsetpgrp(in, getpgrp());   /* the terminal is ours again */
        pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
    }
    if (in >= 0) close(in);
    int rest[] = {pout[0], perr[0], prep[0], pstat[0]};
    for (size_t i = 0; i < sizeof rest / sizeof rest[0]; i++)
        if (rest[i] >= 0) close(rest[i]);
    if (own_cwd) proc_remove_tree(cwd);
    free(cwd);
    free(argv);
    program_env_free(&envp);
    program_sandbox_paths_free(&read_paths, &write_paths);
    if (o->tool) program_tool_fini(&tool);
    return d;
}
