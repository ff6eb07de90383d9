/* kernels/program_proc.c: running the helper tools of the whole-program path
 * (nvcc, addr2line) as children with a time limit, and small process and
 * directory helpers.
 *
 * A helper gets its own process group so that a timeout takes down nvcc's
 * whole pipeline (cudafe++, cicc, ptxas, gcc, ld), not just the driver.
 * The worker may have threads (the emulator's), so the child does nothing
 * between fork and execve but async-signal-safe calls on what the parent
 * prepared. A compile of a graded source runs under limits
 * (proc_capture_limited: program_sandbox.c's rlimits, seccomp, Landlock). */
#include "kernels/program_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/xalloc.h"

extern char **environ;

double proc_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

bool proc_stat(long pid, char *state, long *ppid) {
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return false;
    buf[n] = '\0';
    const char *after = strrchr(buf, ')');     /* "PID (COMM) STATE PPID ...": COMM may hold anything */
    char st = 0;
    long pp = 0;
    if (!after || sscanf(after + 1, " %c %ld", &st, &pp) != 2) return false;
    if (state) *state = st;
    if (ppid) *ppid = pp;
    return true;
}

char *proc_find_in_path(const char *name) {
    const char *path = getenv("PATH");
    if (!path || !*path || !name || !*name) return NULL;
    char *copy = xstrdup(path), *save = NULL;
    char *found = NULL;
    for (char *dir = strtok_r(copy, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
        if (!*dir) continue;
        char *p = path_join(dir, name);
        struct stat st;
        if (stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0)
            found = p;
        else
            free(p);
    }
    free(copy);
    return found;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st;
    (void)ftw;
    if (flag == FTW_DP || flag == FTW_D) {
        if (rmdir(path) != 0) {
            chmod(path, 0700);
            rmdir(path);
        }
    } else {
        unlink(path);
    }
    return 0;
}

/* A directory the program made unreadable (chmod 000) would stop the walk:
 * open every directory up first. */
static int open_up(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)ftw;
    if (flag == FTW_D || flag == FTW_DNR) {
        if ((st->st_mode & 0700) != 0700) chmod(path, st->st_mode | 0700);
    }
    return 0;
}

void proc_remove_tree(const char *dir) {
    if (!dir || !*dir) return;
    nftw(dir, open_up, 16, FTW_PHYS);
    nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

void proc_capture_fini(ProcCapture *c) {
    free(c->out);
    memset(c, 0, sizeof *c);
}

void proc_die_with_parent(pid_t parent) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
}

/* Child side: only async-signal-safe calls. */
static void child_exec(const char *const *argv, const char *const *envp, const char *cwd, int out_w,
                       int status_w, int devnull, pid_t parent, const ChildLimits *limits) {
    setpgid(0, 0);
    proc_die_with_parent(parent);
    if (cwd && chdir(cwd) != 0) goto fail;
    if (dup2(devnull, 0) < 0 || dup2(out_w, 1) < 0 || dup2(out_w, 2) < 0) goto fail;
    /* A confined or compiler child runs shut in or not at all. */
    errno = 0;
    if (limits && !program_sandbox_enter(limits) && (limits->confine || limits->compiler)) {
        if (!errno) errno = EPERM;
        goto fail;
    }
    execve(argv[0], (char *const *)argv, (char *const *)(envp ? envp : (const char *const *)environ));
fail:;
    int e = errno;
    ssize_t w = write(status_w, &e, sizeof e);
    (void)w;
    _exit(127);
}

Diag *proc_capture(const char *const *argv, const char *const *envp, const char *cwd, double timeout_s,
                   size_t cap, ProcCapture *out) {
    return proc_capture_limited(argv, envp, cwd, timeout_s, cap, NULL, out);
}

Diag *proc_capture_limited(const char *const *argv, const char *const *envp, const char *cwd, double timeout_s,
                           size_t cap, const ChildLimits *limits, ProcCapture *out) {
    memset(out, 0, sizeof *out);
    out->status = -1;
    int pout[2], pstat[2];
    if (pipe2(pout, O_CLOEXEC) != 0) return diag_error("io", "cannot make a pipe: %s", strerror(errno));
    if (pipe2(pstat, O_CLOEXEC) != 0) {
        close(pout[0]);
        close(pout[1]);
        return diag_error("io", "cannot make a pipe: %s", strerror(errno));
    }
    int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) child_exec(argv, envp, cwd, pout[1], pstat[1], devnull, parent, limits);
    int fork_errno = errno;
    close(pout[1]);
    close(pstat[1]);
    if (devnull >= 0) close(devnull);
    if (pid < 0) {
        close(pout[0]);
        close(pstat[0]);
        return diag_error("io", "cannot start %s: %s", argv[0], strerror(fork_errno));
    }
    setpgid(pid, pid);
    int e = 0;
    ssize_t got = read(pstat[0], &e, sizeof e);
    close(pstat[0]);
    out->started = got != (ssize_t)sizeof e;
    out->exec_errno = out->started ? 0 : e;

    StrBuf sb;
    strbuf_init(&sb);
    double deadline = proc_now_ms() + timeout_s * 1e3;
    bool open_out = true;
    char buf[16384];
    while (open_out) {
        double left = deadline - proc_now_ms();
        if (left <= 0) {
            out->timed_out = true;
            kill(-pid, SIGKILL);
            break;
        }
        struct pollfd p = {pout[0], POLLIN, 0};
        int r = poll(&p, 1, left > 200 ? 200 : (int)left + 1);
        if (r < 0 && errno != EINTR) break;
        if (r <= 0) continue;
        ssize_t n = read(pout[0], buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            open_out = false;
            break;
        }
        if (sb.len < cap) strbuf_append_n(&sb, buf, (size_t)n < cap - sb.len ? (size_t)n : cap - sb.len);
    }
    close(pout[0]);
    /* The output closed: the tool is finishing. Wait for it within the limit;
     * it stays a zombie (WNOWAIT) until its group is killed, so the group id
     * cannot have been reused by then. */
    siginfo_t si;
    for (;;) {
        memset(&si, 0, sizeof si);
        int w = waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT);
        if ((w == 0 && si.si_pid == pid) || (w < 0 && errno == ECHILD)) break;    /* ECHILD: SIGCHLD ignored */
        if (proc_now_ms() > deadline) {
            out->timed_out = true;
            break;
        }
        struct timespec ts = {0, 5 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    kill(-pid, SIGKILL);    /* the rest of its pipeline, if any */
    int st = 0;
    waitpid(pid, &st, 0);
    out->status = !out->timed_out && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    out->len = sb.len;
    out->out = strbuf_steal(&sb);
    strbuf_fini(&sb);
    return NULL;
}
