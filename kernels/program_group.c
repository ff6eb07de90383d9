/* kernels/program_group.c: the turn of a group of copies of one timed
 * program run at once (t:program{ processes = N }: program_run_processes,
 * program.h), seen from the members' supervising threads.
 *
 * The start barrier: processes make their CUDA contexts at different
 * speeds (on the H200 the four ranks of mps-share started their GPU work
 * up to a few hundred ms apart), so without it the first member's kernels
 * run alone while the others are still starting, and an exercise that
 * reads how the members' kernels overlap needs runs long against that
 * skew. Each member's runtime asks for its turn before its first GPU work
 * (progwire.h: a "turn" record, then it waits for a byte on
 * CUDOJO_TURN_FD); the group answers none until every member has asked or
 * will not (it exited, crashed or never started), or until
 * CUDOJO_GROUP_BARRIER_MS (GROUP_BARRIER_MS) passed after the first ask,
 * pauses of the group left out: a member that never touches the GPU, or
 * takes long to reach it, holds the others back that long at most. Then
 * one thread answers all of them at once (microseconds apart), and a
 * member that asks later is answered at once. The wait moves each
 * member's deadline and is left out of its wall time, like the wait for
 * the lock (as it grows: a member is not timed out while it waits).
 * CUDOJO_GROUP_BARRIER_MS=0: no barrier (each answered at its
 * own ask, as before session 16).
 *
 * The GPU lock (gpu_lock.h), when it is on: the group holds it shared
 * (the members' exec, cuInit, contexts and an MPS server's start beside
 * other graders' untimed work) until the barrier opens; then it takes it
 * exclusive, with the members that are not waiting at the barrier stopped
 * (SIGSTOP: none of their GPU work runs with no lock held), and answers.
 * It goes back to shared once every member running said its GPU work is
 * done (group_turn_rest). While it holds the lock shared, a timed section
 * that waits stops every member (group_turn_yield). Without the lock (a
 * workbench) the barrier is all there is. On the emulator runtime the
 * group exists only with CUDOJO_GPU_LOCK_EMU: there each member's modeled
 * timeline starts at 0 (program_processes_timeline), so the members'
 * start skew does not exist to be removed. */
#include <assert.h>
#include <signal.h>
#include <stdlib.h>

#include "base/xalloc.h"
#include "kernels/gpu_lock.h"
#include "kernels/program_internal.h"

/* The barrier's bound (ms after the first member asked): longer than the
 * members' start skew (a few hundred ms on the H200, MPS server start
 * included), short enough that a member that never asks costs little. */
#define GROUP_BARRIER_MS 2000

/* CUDOJO_GROUP_BARRIER_MS: 0..60000, else GROUP_BARRIER_MS. */
static double barrier_ms_env(void) {
    const char *v = getenv("CUDOJO_GROUP_BARRIER_MS");
    if (!v || !*v) return GROUP_BARRIER_MS;
    char *end;
    double ms = strtod(v, &end);
    return !*end && ms >= 0 && ms <= 60000 ? ms : GROUP_BARRIER_MS;
}

ProgramGroupTurn *program_group_turn_new(GpuLock *lock, int members) {
    assert(members >= 1 && members <= PROGRAM_MAX_PROCESSES);
    ProgramGroupTurn *g = xcalloc(1, sizeof *g);
    pthread_mutex_init(&g->mu, NULL);
    g->lock = lock;
    g->members = members;
    g->barrier_ms = members > 1 ? barrier_ms_env() : 0;
    return g;
}

void program_group_turn_free(ProgramGroupTurn **gp) {
    if (!*gp) return;
    pthread_mutex_destroy(&(*gp)->mu);
    free(*gp);
    *gp = NULL;
}

bool group_turn_has_barrier(const ProgramGroupTurn *g) { return g->barrier_ms > 0; }

bool group_turn_shared(ProgramGroupTurn *g) {
    pthread_mutex_lock(&g->mu);
    bool shared = g->lock->fd >= 0 && g->lock->mode != GPU_LOCK_EXCLUSIVE;
    pthread_mutex_unlock(&g->mu);
    return shared;
}

/* Whether the barrier opens now: a member asked, and every member asked or
 * will not, or the bound passed (the group's pauses since the first ask
 * left out), or there is no barrier. Under g->mu. */
static bool barrier_due_locked(const ProgramGroupTurn *g) {
    if (!g->asked) return false;
    if (g->barrier_ms <= 0 || g->asked + g->gone >= g->members) return true;
    return proc_now_ms() >= g->first_ask_ms + g->barrier_ms + (g->paused_ms - g->first_ask_paused);
}

/* A member neither waiting at the barrier nor past its start: not asked
 * yet, or answered. Under g->mu. */
static bool running_locked(const ProgramGroupTurn *g, int i) {
    return g->pids[i] && !(g->state[i] == GROUP_MEMBER_ASKED && !g->answered[i]);
}

/* Sends `sig` to every member that is running (not waiting at the
 * barrier). Under g->mu. */
static void signal_running_locked(ProgramGroupTurn *g, int sig) {
    for (int i = 0; i < g->members; i++)
        if (running_locked(g, i)) turn_signal_tree(g->pids[i], sig);
}

/* Opens the barrier (or answers a member that asked after it opened):
 * with the lock held shared, exchanges it for the exclusive one with the
 * running members stopped; then answers every member waiting. Under g->mu. */
static void open_locked(ProgramGroupTurn *g) {
    g->open = true;
    if (g->lock->fd >= 0 && g->lock->mode != GPU_LOCK_EXCLUSIVE) {
        double w0 = proc_now_ms();
        signal_running_locked(g, SIGSTOP);
        gpu_lock_release(g->lock);
        gpu_lock_take(g->lock, GPU_LOCK_EXCLUSIVE);
        signal_running_locked(g, SIGCONT);
        g->paused_ms += proc_now_ms() - w0;     /* every member's: waiting or stopped */
    }
    double now = proc_now_ms();
    for (int i = 0; i < g->members; i++) {
        if (g->state[i] != GROUP_MEMBER_ASKED || g->answered[i] || !g->turns[i]) continue;
        turn_answer(g->turns[i]->fd);
        g->answered[i] = true;
        g->answered_at[i] = now;
        g->answered_paused[i] = g->paused_ms;
    }
}

/* Member i will not ask (it exited, or never started); the barrier may
 * open for the others. Under g->mu. */
static void gone_locked(ProgramGroupTurn *g, int i) {
    if (g->state[i] != GROUP_MEMBER_COMING) return;
    g->state[i] = GROUP_MEMBER_GONE;
    g->gone++;
    if (!g->open && barrier_due_locked(g)) open_locked(g);
}

void program_group_turn_gone(ProgramGroupTurn *g, int member) {
    assert(member >= 0 && member < g->members);
    pthread_mutex_lock(&g->mu);
    gone_locked(g, member);
    pthread_mutex_unlock(&g->mu);
}

void group_turn_enter_locked(Turn *t, pid_t pid) {
    ProgramGroupTurn *g = t->group;
    assert(t->member >= 0 && t->member < g->members);
    g->pids[t->member] = pid;
    g->turns[t->member] = t;
    g->idle[t->member] = false;
}

void group_turn_exited(Turn *t) {
    pthread_mutex_lock(&t->group->mu);
    gone_locked(t->group, t->member);
    pthread_mutex_unlock(&t->group->mu);
}

/* Under g->mu: once every member still running said its GPU work is done,
 * the group's lock goes back to shared (the members wait for their
 * answers meanwhile: turn_rest). */
static void rest_locked(ProgramGroupTurn *g) {
    if (g->rested || g->lock->fd < 0 || g->lock->mode != GPU_LOCK_EXCLUSIVE || !turn_rest_at_exit()) return;
    for (int i = 0; i < g->members; i++)
        if (g->pids[i] && !g->idle[i]) return;
    g->paused_ms += turn_rest_swap(g->lock);
    g->rested = true;
}

void group_turn_leave(Turn *t, pid_t pid) {
    ProgramGroupTurn *g = t->group;
    pthread_mutex_lock(&g->mu);
    if (g->pids[t->member] == pid) {
        g->pids[t->member] = 0;
        g->turns[t->member] = NULL;     /* its channel closes after this */
    }
    gone_locked(g, t->member);
    rest_locked(g);
    pthread_mutex_unlock(&g->mu);
}

double group_turn_ask(Turn *t) {
    ProgramGroupTurn *g = t->group;
    int i = t->member;
    pthread_mutex_lock(&g->mu);
    if (g->state[i] == GROUP_MEMBER_COMING) {
        g->state[i] = GROUP_MEMBER_ASKED;
        g->asked_at[i] = proc_now_ms();
        g->asked_paused[i] = g->paused_ms;
        if (!g->asked++) {
            g->first_ask_ms = g->asked_at[i];
            g->first_ask_paused = g->paused_ms;
        }
    }
    if (!g->answered[i] && (g->open || barrier_due_locked(g))) open_locked(g);
    bool answered = g->answered[i];
    /* its wait so far, less the group's pauses meanwhile (group_turn_pauses counts those),
       counted as it grows: its deadline moves while it waits */
    double waited = answered ? (g->answered_at[i] - g->asked_at[i]) - (g->answered_paused[i] - g->asked_paused[i])
                             : (proc_now_ms() - g->asked_at[i]) - (g->paused_ms - g->asked_paused[i]);
    pthread_mutex_unlock(&g->mu);
    double more = waited - t->barrier_counted;
    t->barrier_counted = waited;
    t->waited_ms += more;
    t->granted = answered;
    return more;
}

bool group_turn_rest(Turn *t) {
    ProgramGroupTurn *g = t->group;
    pthread_mutex_lock(&g->mu);
    g->idle[t->member] = true;
    rest_locked(g);
    bool go = g->rested || g->lock->fd < 0 || g->lock->mode != GPU_LOCK_EXCLUSIVE || !turn_rest_at_exit();
    pthread_mutex_unlock(&g->mu);
    return go;
}

/* Whichever member's thread sees a timed section waiting stops them all
 * (one at a time: a thread that finds the group busy looks again later),
 * and every member counts the pause (group_turn_pauses). */
void group_turn_yield(Turn *t) {
    ProgramGroupTurn *g = t->group;
    if (pthread_mutex_trylock(&g->mu) != 0) return;
    if (g->lock->fd >= 0 && g->lock->mode != GPU_LOCK_EXCLUSIVE && gpu_lock_contended(g->lock)) {
        double w0 = proc_now_ms();
        for (int i = 0; i < g->members; i++)
            if (g->pids[i]) turn_signal_tree(g->pids[i], SIGSTOP);
        gpu_lock_step_aside(g->lock);
        for (int i = 0; i < g->members; i++)
            if (g->pids[i]) turn_signal_tree(g->pids[i], SIGCONT);
        g->paused_ms += proc_now_ms() - w0;
    }
    pthread_mutex_unlock(&g->mu);
}

/* They move its deadline and are left out of its time. */
double group_turn_pauses(Turn *t) {
    pthread_mutex_lock(&t->group->mu);
    double d = t->group->paused_ms - t->group_paused_seen;
    t->group_paused_seen = t->group->paused_ms;
    pthread_mutex_unlock(&t->group->mu);
    t->waited_ms += d;
    return d;
}
