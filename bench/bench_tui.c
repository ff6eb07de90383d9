/* bench/bench_tui.c: how the workbench feels (issue 4's speed goals).
 *
 * Starts the real binary on a pseudo-terminal (80x24) in a fresh workspace
 * and measures (1) exec → first frame of the course map with the whole course
 * loaded (goal ≤ 50 ms), and (2) key latency while a run is in flight: `r`
 * starts a run of the starter (worker start, compile, emulation: 100 ms and
 * more), `?` follows 5 ms later and is timed until the help screen is drawn
 * (found by its "saving" line: ncurses sends only what changed) (goal: no
 * visible lag, i.e. well under 100 ms).
 * Usage: build/bench/bench_tui [REPS]   (the binary is $CUDOJO_BIN or build/cudojo) */
#include <errno.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/strbuf.h"
#include "base/xalloc.h"
#include "bench/bench_stats.h"

/* Reads the terminal until `needle` shows up (or timeout); returns ms waited, < 0 on timeout. */
static double wait_for(int fd, StrBuf *seen, const char *needle, double timeout_ms) {
    double t0 = bench_now_ms();
    while (!strstr(seen->data, needle)) {
        double left = timeout_ms - (bench_now_ms() - t0);
        if (left <= 0) return -1;
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, (int)left + 1) <= 0) continue;
        char buf[8192];
        ssize_t n = read(fd, buf, sizeof buf);
        if (n <= 0) return -1;
        strbuf_append_n(seen, buf, (size_t)n);
    }
    return bench_now_ms() - t0;
}

static pid_t start(const char *bin, const char *ws, int *fd) {
    struct winsize w = {.ws_row = 24, .ws_col = 80};
    pid_t pid = forkpty(fd, NULL, NULL, &w);
    if (pid == 0) {
        if (chdir(ws) != 0) _exit(127);
        setenv("TERM", "xterm-256color", 1);
        setenv("LANG", "C.UTF-8", 1);
        execl(bin, bin, "--backend=emu", (char *)NULL);
        _exit(127);
    }
    return pid;
}

static void stop(pid_t pid, int fd) {
    kill(pid, SIGTERM);
    char buf[4096];
    while (read(fd, buf, sizeof buf) > 0) {}
    waitpid(pid, NULL, 0);
    close(fd);
}

int main(int argc, char **argv) {
    int reps = argc > 1 ? atoi(argv[1]) : 10;
    if (reps < 3) reps = 3;
    const char *env = getenv("CUDOJO_BIN");
    char *bin = path_absolute(env && *env ? env : "build/cudojo");
    char *lessons = path_absolute("lessons");
    char dir[] = "/tmp/cudojo-bench-tui-XXXXXX";
    if (!mkdtemp(dir)) return 1;
    setenv("XDG_DATA_HOME", dir, 1);
    setenv("XDG_CACHE_HOME", dir, 1);
    char *ws = path_join(dir, "ws");
    char *cmd = xasprintf("%s --lessons %s init %s >/dev/null 2>&1", bin, lessons, ws);
    if (system(cmd) != 0) {
        fprintf(stderr, "bench_tui: cannot make a workspace with %s\n", bin);
        return 1;
    }
    free(cmd);
    double *first = xcalloc((size_t)reps, sizeof *first), *key = xcalloc((size_t)reps, sizeof *key);
    int nkey = 0;
    for (int i = 0; i < reps; i++) {
        int fd;
        StrBuf seen;
        strbuf_init(&seen);
        double t0 = bench_now_ms();
        pid_t pid = start(bin, ws, &fd);
        double w = wait_for(fd, &seen, "Course map", 5000);
        first[i] = w < 0 ? 1e9 : bench_now_ms() - t0;
        /* Open the first exercise, start a run, and ask for help at once. */
        if (write(fd, "\r", 1) == 1 && wait_for(fd, &seen, "hello-threads", 3000) >= 0) {
            strbuf_reset(&seen);
            /* The run (worker start, compile, emulate) takes 100 ms or more; the
               key goes in 5 ms after it started, while it is in flight. */
            if (write(fd, "r", 1) == 1) {
                usleep(5000);
                double k0 = bench_now_ms();
                if (write(fd, "?", 1) == 1 && wait_for(fd, &seen, "saving", 3000) >= 0) key[nkey++] = bench_now_ms() - k0;
            }
        }
        strbuf_fini(&seen);
        stop(pid, fd);
    }
    qsort(first, (size_t)reps, sizeof *first, bench_cmp_double);
    qsort(key, (size_t)nkey, sizeof *key, bench_cmp_double);
    printf("workbench responsiveness (80x24 pty, %d reps, emulator backend)\n", reps);
    printf("  %-44s p50 %7.1f ms  max %7.1f ms   goal <= 50 ms: %s\n", "exec -> first frame (whole course loaded)",
           first[reps / 2], first[reps - 1], first[reps / 2] <= 50 ? "met" : "NOT met");
    if (nkey > 0)
        printf("  %-44s p50 %7.1f ms  max %7.1f ms   goal < 100 ms: %s\n", "key -> screen while a run is in flight",
               key[nkey / 2], key[nkey - 1], key[nkey / 2] < 100 ? "met" : "NOT met");
    else
        printf("  key latency during a run: not measured (the run did not start)\n");
    cmd = xasprintf("rm -rf %s", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    free(cmd);
    free(first);
    free(key);
    free(ws);
    free(lessons);
    free(bin);
    return 0;
}
