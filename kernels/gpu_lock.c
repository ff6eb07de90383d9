/* kernels/gpu_lock.c: the per-GPU lock of GPU work (see gpu_lock.h): flock
 * on CUDOJO_GPU_LOCK_DIR/gpu-<device>.lock, shared or exclusive, taken
 * through the turnstile DIR/gpu-<device>.turnstile; and what this process
 * spent waiting for it and holding it. */
#include "kernels/gpu_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t g_stats_mu = PTHREAD_MUTEX_INITIALIZER;
static GpuLockStats g_stats;

static double mono_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- the trace (CUDOJO_GPU_LOCK_TRACE) ---- */

static char g_label[96] = "-";

void gpu_lock_set_label(const char *label) {
    pthread_mutex_lock(&g_stats_mu);
    size_t k = 0;
    for (const char *p = label && *label ? label : "-"; *p && k + 1 < sizeof g_label; p++)
        g_label[k++] = (*p > ' ' && *p < 127) ? *p : '_';     /* one word */
    g_label[k] = '\0';
    pthread_mutex_unlock(&g_stats_mu);
}

static const char *mode_word(GpuLockMode m) {
    return m == GPU_LOCK_EXCLUSIVE ? "exclusive" : m == GPU_LOCK_SHARED ? "shared" : "profiler";
}

/* One line per take and release, appended with O_APPEND in one write (a
 * line shorter than PIPE_BUF never interleaves with another process's):
 * "<monotonic s> <pid> take|release <mode> <waited|held ms> <label>[/<what>]". */
static void trace(const char *event, GpuLockMode mode, double at_s, double ms, const char *what) {
    const char *path = getenv("CUDOJO_GPU_LOCK_TRACE");
    if (!path || !*path) return;
    char line[256];
    pthread_mutex_lock(&g_stats_mu);
    int n = snprintf(line, sizeof line, "%.6f %ld %s %s %.3f %s%s%s\n", at_s, (long)getpid(), event, mode_word(mode),
                     ms, g_label, what && *what ? "/" : "", what ? what : "");
    pthread_mutex_unlock(&g_stats_mu);
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return;
    if (n > 0 && write(fd, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1) < 0) (void)errno;
    close(fd);
}

void gpu_lock_trace_event(const char *event, double ms) { trace(event, GPU_LOCK_SHARED, mono_s(), ms, NULL); }

void gpu_lock_what(GpuLock *l, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(l->what, sizeof l->what, fmt, ap);
    va_end(ap);
    for (char *p = l->what; *p; p++)
        if (*p <= ' ' || *p >= 127) *p = '_';     /* one word */
}

void gpu_lock_stats(GpuLockStats *out) {
    pthread_mutex_lock(&g_stats_mu);
    *out = g_stats;
    pthread_mutex_unlock(&g_stats_mu);
}

GpuLockStats gpu_lock_stats_diff(const GpuLockStats *after, const GpuLockStats *before) {
    return (GpuLockStats){
        .wait_exclusive_s = after->wait_exclusive_s - before->wait_exclusive_s,
        .wait_shared_s = after->wait_shared_s - before->wait_shared_s,
        .held_exclusive_s = after->held_exclusive_s - before->held_exclusive_s,
        .held_shared_s = after->held_shared_s - before->held_shared_s,
        .exclusive_sections = after->exclusive_sections - before->exclusive_sections,
        .shared_sections = after->shared_sections - before->shared_sections,
    };
}

double gpu_lock_waited_s(void) {
    GpuLockStats s;
    gpu_lock_stats(&s);
    return s.wait_exclusive_s + s.wait_shared_s;
}

bool gpu_lock_enabled(void) {
    const char *dir = getenv("CUDOJO_GPU_LOCK_DIR");
    return dir && *dir;
}

bool gpu_lock_on_emulator(void) {
    const char *e = getenv("CUDOJO_GPU_LOCK_EMU");
    return e && *e && strcmp(e, "0") != 0;
}

/* DIR/gpu-<device><suffix>; false when it does not fit. */
static bool lock_path(const char *dir, const char *suffix, char *path, size_t n) {
    /* The GPU this process uses first, as a file-name-safe word. */
    char dev[64] = "0";
    const char *vis = getenv("CUDA_VISIBLE_DEVICES");
    if (vis && *vis) {
        size_t k = 0;
        for (const char *p = vis; *p && *p != ',' && k + 1 < sizeof dev; p++)
            dev[k++] = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '-'
                           ? *p
                           : '_';
        dev[k ? k : 1] = '\0';
    }
    return snprintf(path, n, "%s/gpu-%s%s", dir, dev, suffix) < (int)n;
}

static int flock_retry(int fd, int op) {
    int rc;
    do rc = flock(fd, op);
    while (rc != 0 && errno == EINTR);
    return rc;
}

static void (*g_on_wait)(void *ud, bool waiting);
static void *g_on_wait_ud;

void gpu_lock_on_wait(void (*fn)(void *ud, bool waiting), void *ud) {
    g_on_wait_ud = ud;
    g_on_wait = fn;
}

static void waiting(bool w) {
    if (g_on_wait) g_on_wait(g_on_wait_ud, w);
}

/* flock(fd, op), telling the wait hook a wait begins (once per take:
 * *announced) only when the lock is not free at once. Most takes find it
 * free (on the H200 a grading's workers took it ~6,000 times a
 * submission, launches mostly), and each announcement is two lines to
 * the worker's runner. */
static int flock_waiting(int fd, int op, bool *announced) {
    if (flock(fd, op | LOCK_NB) == 0) return 0;
    if (errno != EWOULDBLOCK && errno != EINTR) return -1;
    if (!*announced) {
        *announced = true;
        waiting(true);
    }
    return flock_retry(fd, op);
}

/* Waits for and takes the GPU's lock itself in `mode` (the profilers' lock,
 * when wanted, is the caller's): the turnstile, then the lock. Returns its
 * descriptor; -1 when the lock is off or failed. (Session 12 tried a queue
 * in front of the turnstile that ran the timed sections waiting at one time
 * back to back, so the shared holders drained once per batch: on the H200,
 * bench_grade 3 took 111.6 s with it and 109.8 s without, the exclusive
 * takers' waiting 23.2 s and 21.9 s. Not kept.) */
static int take_gpu(const char *dir, GpuLockMode mode, bool *announced) {
    char path[4096], gate[4096];
    if (!dir || !*dir || !lock_path(dir, ".lock", path, sizeof path) || !lock_path(dir, ".turnstile", gate, sizeof gate)) return -1;
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) return -1;
    /* The turnstile, held until the lock is ours: a waiting exclusive taker
       keeps new shared takers out, so the shared holders drain and it gets
       its turn. Without a turnstile file (unwritable) the lock still works,
       without that guarantee. */
    int gfd = open(gate, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (gfd >= 0 && flock_waiting(gfd, LOCK_EX, announced) != 0) {
        close(gfd);
        gfd = -1;
    }
    int rc = flock_waiting(fd, mode == GPU_LOCK_EXCLUSIVE ? LOCK_EX : LOCK_SH, announced);
    if (gfd >= 0) close(gfd);   /* closing the file lets go of its lock */
    if (rc != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static void count_wait(GpuLockMode mode, double s) {
    pthread_mutex_lock(&g_stats_mu);
    if (mode != GPU_LOCK_EXCLUSIVE) g_stats.wait_shared_s += s;
    else g_stats.wait_exclusive_s += s;
    pthread_mutex_unlock(&g_stats_mu);
}

/* A take that waited since t0 is done: counts the wait and, when fd (the
 * GPU's lock) was had, keeps it with the profilers' lock pfd (-1: none) and
 * traces it; else lets go of pfd. l->mode is the mode taken. */
static void took(GpuLock *l, int fd, int pfd, double t0) {
    double t1 = mono_s();
    count_wait(l->mode, t1 - t0);
    if (fd < 0) {
        if (pfd >= 0) close(pfd);
        return;
    }
    l->fd = fd;
    l->profiler_fd = pfd;
    l->taken_s = t1;
    trace("take", l->mode, t1, (t1 - t0) * 1e3, l->what);
}

GpuLockMode gpu_lock_mode_for(GpuLockMode mode) {
    const char *only = getenv("CUDOJO_GPU_LOCK_MODE");
    return only && !strcmp(only, "exclusive") ? GPU_LOCK_EXCLUSIVE : mode;   /* everything alone: to compare */
}

void gpu_lock_take(GpuLock *l, GpuLockMode mode) {
    l->fd = l->profiler_fd = l->gate_fd = -1;
    const char *dir = getenv("CUDOJO_GPU_LOCK_DIR");
    mode = gpu_lock_mode_for(mode);
    l->mode = mode;
    if (!dir || !*dir) return;
    char prof[4096];
    if (!lock_path(dir, ".profiler", prof, sizeof prof)) return;
    double t0 = mono_s();
    bool announced = false;
    /* One profiler at a time (ncu cannot profile two processes on one GPU),
       before the GPU's lock: a profiler waiting here holds nothing that
       anyone else waits for. Held for the whole profiled run, through its
       yields (gpu_lock_step_aside): a stopped profiler keeps its place.
       Nobody else takes it: a profiled run yields to a waiting timed
       section like any shared holder (kernels/program_run.c). */
    int pfd = -1;
    if (mode == GPU_LOCK_PROFILER) {
        pfd = open(prof, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
        if (pfd >= 0 && flock_waiting(pfd, LOCK_EX, &announced) != 0) {
            close(pfd);
            pfd = -1;
        }
    }
    took(l, take_gpu(dir, mode, &announced), pfd, t0);
    if (announced) waiting(false);
}

void gpu_lock_step_aside(GpuLock *l) {
    if (l->fd < 0) return;
    int pfd = l->profiler_fd;
    l->profiler_fd = -1;    /* kept: no other profiler starts meanwhile */
    gpu_lock_release(l);    /* (leaves l->mode as it was) */
    double t0 = mono_s();
    bool announced = false;
    took(l, take_gpu(getenv("CUDOJO_GPU_LOCK_DIR"), l->mode, &announced), pfd, t0);
    if (announced) waiting(false);
}

void gpu_lock_acquire(GpuLock *l) { gpu_lock_take(l, GPU_LOCK_EXCLUSIVE); }

bool gpu_lock_contended(GpuLock *l) {
    if (l->fd < 0) return false;
    if (l->gate_fd < 0) {   /* once per hold: a shared holder looks every few milliseconds */
        const char *dir = getenv("CUDOJO_GPU_LOCK_DIR");
        char gate[4096];
        if (!dir || !*dir || !lock_path(dir, ".turnstile", gate, sizeof gate)) return false;
        l->gate_fd = open(gate, O_RDWR | O_CLOEXEC);
        if (l->gate_fd < 0) return false;
    }
    if (flock(l->gate_fd, LOCK_EX | LOCK_NB) == 0) {
        flock(l->gate_fd, LOCK_UN);     /* nobody waits: let go of it at once */
        return false;
    }
    return errno == EWOULDBLOCK;
}

void gpu_lock_release(GpuLock *l) {
    if (l->fd < 0) return;
    double now = mono_s(), held = now - l->taken_s;
    flock(l->fd, LOCK_UN);
    close(l->fd);
    l->fd = -1;
    if (l->profiler_fd >= 0) close(l->profiler_fd);     /* closing lets go of its lock */
    if (l->gate_fd >= 0) close(l->gate_fd);
    l->profiler_fd = l->gate_fd = -1;
    pthread_mutex_lock(&g_stats_mu);
    if (l->mode != GPU_LOCK_EXCLUSIVE) {
        g_stats.held_shared_s += held;
        g_stats.shared_sections++;
    } else {
        g_stats.held_exclusive_s += held;
        g_stats.exclusive_sections++;
    }
    pthread_mutex_unlock(&g_stats_mu);
    trace("release", l->mode, now, held * 1e3, l->what);
}
