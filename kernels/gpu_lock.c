/* kernels/gpu_lock.c: the per-GPU lock file of timed sections (see
 * gpu_lock.h): flock on CUDOJO_GPU_LOCK_DIR/gpu-<device>.lock. */
#include "kernels/gpu_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

static double g_waited_s;   /* one thread takes the lock in a worker */

static double mono_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double gpu_lock_waited_s(void) { return g_waited_s; }

void gpu_lock_acquire(GpuLock *l) {
    l->fd = -1;
    const char *dir = getenv("CUDOJO_GPU_LOCK_DIR");
    if (!dir || !*dir) return;
    /* The GPU this process uses first, as a file-name-safe word. */
    char dev[64] = "0";
    const char *vis = getenv("CUDA_VISIBLE_DEVICES");
    if (vis && *vis) {
        size_t n = 0;
        for (const char *p = vis; *p && *p != ',' && n + 1 < sizeof dev; p++)
            dev[n++] = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '-' ? *p : '_';
        dev[n ? n : 1] = '\0';
    }
    char path[4096];
    if (snprintf(path, sizeof path, "%s/gpu-%s.lock", dir, dev) >= (int)sizeof path) return;
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) return;
    int rc;
    double t0 = mono_s();
    do rc = flock(fd, LOCK_EX);
    while (rc != 0 && errno == EINTR);
    g_waited_s += mono_s() - t0;
    if (rc != 0) {
        close(fd);
        return;
    }
    l->fd = fd;
}

void gpu_lock_release(GpuLock *l) {
    if (l->fd < 0) return;
    flock(l->fd, LOCK_UN);
    close(l->fd);
    l->fd = -1;
}
