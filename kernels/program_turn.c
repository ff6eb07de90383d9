/* kernels/program_turn.c: a timed program's turn alone on the GPU, seen
 * from the worker's thread that supervises it (kernels/program_run.c says
 * what a turn is; the group's turn of several copies at once, with its
 * start barrier, is kernels/program_group.c): the grant (shared lock
 * exchanged for the exclusive one, the child answered on its turn
 * channel), the rest at its exit (back to shared for its teardown), and
 * the yield of a program that holds the lock shared (stopped while
 * another grader's timed section runs), with the drain of the GPU work an
 * untimed program queued before that. */
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/number.h"
#include "base/xalloc.h"
#include "kernels/gpu_lock.h"
#include "kernels/program_internal.h"

static void close_fd(int *fd) {
    if (*fd >= 0) close(*fd);
    *fd = -1;
}

/* CUDOJO_GPU_YIELD_LOOK_MS, 1..1000, else 5. Every timed section waits for
 * the slowest shared holder's look: on the H200, bench_grade 3 graded at
 * 4.32 runs/s looking every 5 ms, 3.83 every 25 ms (session 14 call 3,
 * same call; exclusive takers waited 27.0 vs 35.1 s). */
int turn_yield_look_ms(void) {
    long long ms = 5;
    number_whole(getenv("CUDOJO_GPU_YIELD_LOOK_MS"), 1, 1000, &ms);
    return (int)ms;
}

/* How long a yield waits at most for the program's queued GPU work (drain_ask). */
#define DRAIN_WAIT_MS 1000

Diag *turn_drain_wait_ms(double *ms) {
    const char *v = getenv("CUDOJO_GPU_DRAIN_MS");
    *ms = DRAIN_WAIT_MS;
    if (!v || !*v) return NULL;
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (errno || *end || !(x >= 0 && x <= 600e3))
        return diag_error("usage", "CUDOJO_GPU_DRAIN_MS=%s: not a number of milliseconds from 0 to 600000", v);
    *ms = x;
    return NULL;
}

void turn_answer(int fd) {
    if (fd < 0) return;
    ssize_t w;
    do w = send(fd, "g", 1, MSG_NOSIGNAL);
    while (w < 0 && errno == EINTR);
}

/* Exchanges the shared lock for the exclusive one and answers the child.
 * Returns the milliseconds it waited. */
double turn_grant(Turn *t) {
    double w0 = proc_now_ms();
    gpu_lock_release(t->lock);
    gpu_lock_take(t->lock, GPU_LOCK_EXCLUSIVE);
    double waited = proc_now_ms() - w0;
    turn_answer(t->fd);     /* the channel stays open for the answer at the exit (turn_rest) */
    t->granted = true;
    t->waited_ms += waited;
    return waited;
}

/* CUDOJO_GPU_REST_AT_EXIT=0 keeps a timed program's lock exclusive until
 * it is reaped (as before session 15, to compare); =free lets go of it
 * at the exit, the teardown holding nothing: to measure what the
 * teardown's shared hold costs the timed sections that wait for it (on
 * the H200 the most common last holder before one, 106 ms each: session
 * 19 call 4) against whether a teardown beside a timed kernel disturbs
 * it (bench_grade's spread of timings). A lone program only (a group's
 * lock goes back to shared). The "i" comes from the program's side of
 * the channel: a program that says it early and goes on runs unlocked
 * until TEARDOWN_NO_YIELD_MS has passed, then supervise (program_run.c)
 * takes the lock shared again and it yields to timed sections as any
 * shared holder (held shared, it would only keep them waiting that long:
 * why this is a knob to measure, not the default). */
bool turn_rest_at_exit(void) {
    const char *v = getenv("CUDOJO_GPU_REST_AT_EXIT");
    return !(v && !strcmp(v, "0"));
}

bool turn_rest_frees(void) {
    const char *v = getenv("CUDOJO_GPU_REST_AT_EXIT");
    return v && !strcmp(v, "free");
}

/* With the program (or every member of a group) waiting in its exit
 * handler: a timed section that waits goes first. Under g->mu for a group. */
double turn_rest_swap(GpuLock *l) {
    double w0 = proc_now_ms();
    gpu_lock_release(l);
    gpu_lock_what(l, "program-exit");
    gpu_lock_take(l, GPU_LOCK_SHARED);
    return proc_now_ms() - w0;
}

/* At its exit the program's runtime synchronised its GPU work and said so
 * ("i" on the turn channel: progwire.h progwire_turn); it waits for an
 * answer there. What it has left is its runtime's teardown (contexts,
 * pinned memory, the process's exit), which needs the GPU but not alone,
 * like its start: the lock goes back to shared first, behind a timed
 * section that waits. A group's member comes here once every member is
 * idle (program_run.c asks group_turn_rest first). Past its exit record
 * the program is not stopped for a while (program_run.c
 * TEARDOWN_NO_YIELD_MS: its teardown frees GPU memory, partly in the
 * kernel, where a stop does not reach: see program_mps.c daemon_stop). Returns the milliseconds it waited, for the
 * deadline. */
double turn_rest(Turn *t) {
    double waited = 0;
    if (!t->group && turn_rest_at_exit() && t->lock->fd >= 0 && t->lock->mode == GPU_LOCK_EXCLUSIVE) {
        if (turn_rest_frees()) {
            gpu_lock_release(t->lock);
            t->freed_at_ms = proc_now_ms();
        } else {
            waited = turn_rest_swap(t->lock);
            t->waited_ms += waited;
        }
    }
    turn_answer(t->fd);
    close_fd(&t->fd);
    t->exit_answered = true;
    return waited;
}

/* Found by parent links in /proc: a tool may start the program in a group
 * or session of its own. */
void turn_signal_tree(pid_t pid, int sig) {
    kill(-pid, sig);
    DIR *d = opendir("/proc");
    if (!d) return;
    enum { MAX_PROCS = 1 << 15 };
    pid_t *self = xmalloc(MAX_PROCS * sizeof *self), *parent = xmalloc(MAX_PROCS * sizeof *parent);
    int n = 0;
    for (struct dirent *e; n < MAX_PROCS && (e = readdir(d));) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
        long ppid = 0, self_pid = atol(e->d_name);
        if (!proc_stat(self_pid, NULL, &ppid)) continue;
        self[n] = (pid_t)self_pid;
        parent[n++] = (pid_t)ppid;
    }
    closedir(d);
    /* The tree: the child, then whoever's parent is in it, until it stops growing. */
    enum { TREE_MAX = 256 };
    pid_t tree[TREE_MAX] = {pid};
    int m = 1;
    for (bool grew = true; grew && m < TREE_MAX;) {
        grew = false;
        for (int i = 0; i < n && m < TREE_MAX; i++) {
            bool in = false, under = false;
            for (int j = 0; j < m; j++) {
                in = in || tree[j] == self[i];
                under = under || tree[j] == parent[i];
            }
            if (under && !in) tree[m++] = self[i], grew = true;
        }
    }
    for (int i = 1; i < m; i++)
        if (getpgid(tree[i]) != pid) kill(tree[i], sig);
    free(self);
    free(parent);
}

/* The drain (progwire.h): before a yield stops the program, its runtime
 * holds new GPU work back and waits until the work it queued is done, so
 * that none of it runs during the timed section. Only once the runtime
 * said it serves the channel ("r", sent before its first GPU work): a
 * program still loading or making its context, or one without our
 * runtime, has none queued and is stopped at once (a drain asked of a
 * program making its context waited for the context: up to 318 ms in
 * session 14 call 3). A first GPU work queued between the worker's look
 * for "r" and the stop (microseconds) still runs during the section. The
 * wait is bounded (t->drain_wait_ms): a program whose kernel spins until
 * its host says so is stopped anyway, as before. Each drain and its time
 * go to the lock's trace ("drain" or "drain-late"). */
static void drain_ask(Turn *t) {
    if (t->drain_fd < 0) return;
    unsigned char m[2];
    for (ssize_t got; (got = recv(t->drain_fd, m, sizeof m, MSG_DONTWAIT)) != 0;) {
        if (got < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) break;
            close_fd(&t->drain_fd);
            return;
        }
        if (m[0] == 'r') t->drain_ready = true;     /* else a late answer to an earlier drain */
    }
    if (!t->drain_ready) return;
    double w0 = proc_now_ms(), until = w0 + t->drain_wait_ms;
    unsigned char ask[2] = {'y', ++t->drain_seq};
    if (send(t->drain_fd, ask, sizeof ask, MSG_NOSIGNAL) != (ssize_t)sizeof ask) {
        close_fd(&t->drain_fd);     /* the program is ending */
        return;
    }
    for (;;) {
        double left = until - proc_now_ms();
        if (left <= 0) break;
        struct pollfd p = {t->drain_fd, POLLIN, 0};
        if (poll(&p, 1, (int)left + 1) <= 0) continue;
        unsigned char a[2];
        ssize_t got = recv(t->drain_fd, a, sizeof a, MSG_DONTWAIT);
        if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (got <= 0) {
            close_fd(&t->drain_fd);
            return;
        }
        if (got == 2 && a[0] == 'd' && a[1] == t->drain_seq) {
            gpu_lock_trace_event("drain", proc_now_ms() - w0);
            return;
        }
    }
    gpu_lock_trace_event("drain-late", proc_now_ms() - w0);
}

/* After the yield: the program may queue GPU work again. */
static void drain_open(Turn *t) {
    if (t->drain_fd < 0) return;
    if (send(t->drain_fd, "o", 1, MSG_NOSIGNAL) != 1) close_fd(&t->drain_fd);
}

/* A timed section (another grader's) waits for the shared holders: let
 * the program's GPU work already queued finish (drain_ask), stop the
 * program's whole tree, let go, take the lock shared again once that
 * section is done, and let the program go on. Returns the milliseconds it
 * was stopped. */
double turn_yield(Turn *t, pid_t pid) {
    double w0 = proc_now_ms();
    drain_ask(t);
    turn_signal_tree(pid, SIGSTOP);
    gpu_lock_step_aside(t->lock);   /* a profiler keeps the profilers' lock */
    turn_signal_tree(pid, SIGCONT);
    drain_open(t);
    double paused = proc_now_ms() - w0;
    t->waited_ms += paused;
    return paused;
}
