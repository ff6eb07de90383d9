/* app/runner.c: the parent side of the worker protocol (spawn, send, wait,
 * time out, cancel, replace) and the worker's request loop. The worker runs
 * in a session of its own; when it stops, for whatever reason, whatever is
 * left in that session (a compiler's pipeline, a learner's program) is
 * killed with it. */
#include "app/runner.h"

#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/bytes.h"
#include "base/i18n.h"
#include "base/strbuf.h"
#include "base/xalloc.h"
#include "kernels/gpu_lock.h"
#include "lua/exercise.h"

struct Runner {
    RunnerConfig cfg;
    char *worker_exe;
    char *stderr_path;
    pid_t pid;
    int to_worker, from_worker;     /* pipe ends, -1 when no worker */
    StrBuf inbuf;                   /* partial response line */
    bool busy;
    double started;                 /* monotonic seconds */
    double timeout_s;
    /* What the worker said it is doing ({"activity": ...} lines before the
     * result): the timeout message says it. A compile does not use the
     * run's timeout; it has its own limit. */
    char *activity;
    bool compiling;
    double compile_since, compile_total;
    /* Waits for the GPU's lock the worker said it is in ("gpu-wait" lines,
     * gpu_lock_on_wait; several threads may wait at once): the run's
     * timeout leaves them out, up to RUNNER_GPU_WAIT_LIMIT_S in all. */
    int gpu_waits;
    double gpu_wait_since, gpu_wait_total;
    char *exercise_id;
    /* The {"verdict": ...} line's result, until the final one: the final
     * result when the run is stopped after it (runner_failure). */
    json_t *verdict;
    bool verdict_taken;
    /* A verdict line that came with the result, in the same read, never
       taken: runner_wait_verdict still calls back with it first. */
    json_t *late_verdict;
};

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

Runner *runner_new(const RunnerConfig *cfg) {
    Runner *r = xcalloc(1, sizeof *r);
    r->cfg = *cfg;
    if (cfg->worker_exe) {
        r->worker_exe = xstrdup(cfg->worker_exe);
    } else {
        char buf[PATH_MAX];
        ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
        buf[n > 0 ? n : 0] = '\0';
        r->worker_exe = xstrdup(buf);
    }
    r->stderr_path = xstrdup(cfg->stderr_path);
    r->cfg.worker_exe = r->worker_exe;
    r->cfg.stderr_path = r->stderr_path;
    r->pid = -1;
    r->to_worker = r->from_worker = -1;
    strbuf_init(&r->inbuf);
    return r;
}

/* Kills whatever is left in the worker's session (sid = the worker's pid):
 * nvcc's pipeline (cicc, ptxas, gcc: in nvcc's process group, they do not
 * die with the worker), a program or tool that left its group. Called while
 * the worker is unreaped (its pid, so the session id, cannot be reused yet);
 * a few rounds, in case one was forking while the last round ran. */
void runner_kill_session(pid_t sid) {
    for (int round = 0; round < 20; round++) {
        DIR *d = opendir("/proc");
        if (!d) return;
        int found = 0;
        for (struct dirent *e; (e = readdir(d));) {
            char *end = NULL;
            long p = strtol(e->d_name, &end, 10);
            if (!end || *end || p <= 0 || p == sid || p == getpid()) continue;
            char path[64], buf[512];
            snprintf(path, sizeof path, "/proc/%ld/stat", p);
            int fd = open(path, O_RDONLY | O_CLOEXEC);
            if (fd < 0) continue;
            ssize_t n = read(fd, buf, sizeof buf - 1);
            close(fd);
            buf[n > 0 ? n : 0] = '\0';
            char *rp = strrchr(buf, ')');   /* the name may hold spaces and ')' */
            char state = 0;
            int ppid = 0, pgrp = 0, session = 0;
            if (!rp || sscanf(rp + 1, " %c %d %d %d", &state, &ppid, &pgrp, &session) != 4) continue;
            if (session != sid || state == 'Z') continue;
            kill((pid_t)p, SIGKILL);
            found++;
        }
        closedir(d);
        if (!found) return;
        nanosleep(&(struct timespec){.tv_nsec = 5 * 1000 * 1000}, NULL);
    }
}

/* Kills and reaps the worker; returns a description of how it ended (caller frees). */
static char *runner_stop_worker(Runner *r, bool kill_it) {
    char *how = NULL;
    if (r->to_worker >= 0) close(r->to_worker);
    if (r->from_worker >= 0) close(r->from_worker);
    r->to_worker = r->from_worker = -1;
    if (r->pid > 0) {
        if (kill_it) kill(r->pid, SIGKILL);
        int status = 0;
        /* An idle worker ends when its input closes; one that does not (stuck
           in a driver call, or not reading) gets RUNNER_QUIT_GRACE_MS, then
           SIGKILL: closing the app or a grader never hangs on a worker. */
        for (int waited_ms = 0; !kill_it; waited_ms += 10) {
            siginfo_t si = {0};
            int w = waitid(P_PID, (id_t)r->pid, &si, WEXITED | WNOHANG | WNOWAIT);
            if ((w == 0 && si.si_pid == r->pid) || (w < 0 && errno != EINTR)) break;
            if (waited_ms >= RUNNER_QUIT_GRACE_MS) {
                kill(r->pid, SIGKILL);
                kill_it = true;
                break;
            }
            nanosleep(&(struct timespec){.tv_nsec = 10 * 1000 * 1000}, NULL);
        }
        /* Ended or killed, not yet reaped: nothing it started may stay behind. */
        if (getsid(r->pid) == r->pid) runner_kill_session(r->pid);
        while (waitpid(r->pid, &status, 0) < 0 && errno == EINTR) {}
        if (WIFSIGNALED(status))
            how = xasprintf(N_("killed by signal %d (%s)"), WTERMSIG(status), strsignal(WTERMSIG(status)));
        else if (WIFEXITED(status))
            how = xasprintf(N_("exited with status %d"), WEXITSTATUS(status));
    }
    r->pid = -1;
    strbuf_reset(&r->inbuf);
    return how;
}

void runner_free(Runner **rp) {
    Runner *r = *rp;
    if (!r) return;
    free(runner_stop_worker(r, r->busy));
    strbuf_fini(&r->inbuf);
    free(r->worker_exe);
    free(r->stderr_path);
    free(r->exercise_id);
    free(r->activity);
    if (r->verdict) json_decref(r->verdict);
    if (r->late_verdict) json_decref(r->late_verdict);
    free(r);
    *rp = NULL;
}

static const char *backend_arg(BackendChoice b) {
    switch (b) {
    case BACKEND_CUDA: return "--backend=cuda";
    case BACKEND_EMU: return "--backend=emu";
    case BACKEND_AUTO: break;
    }
    return "--backend=auto";
}

static Diag *runner_spawn(Runner *r) {
    int in[2], out[2];
    if (pipe2(in, O_CLOEXEC) != 0) return diag_error("worker", "cannot create a pipe: %s", strerror(errno));
    if (pipe2(out, O_CLOEXEC) != 0) {
        close(in[0]);
        close(in[1]);
        return diag_error("worker", "cannot create a pipe: %s", strerror(errno));
    }
    char threads[32];
    snprintf(threads, sizeof threads, "--emu-threads=%d", r->cfg.emu_threads);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) return diag_error("worker", "cannot start the worker: %s", strerror(errno));
    if (pid == 0) {
        /* The worker dies with the app, whatever kills it (SIGKILL, a closed
           terminal's SIGHUP, SIGTERM): the kernel sends SIGKILL when the
           parent goes. A parent that died before prctl shows up as a new ppid. */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) _exit(127);
        /* Own session (so its own process group): a Ctrl-C in the terminal
           reaches the app, which decides whether to cancel, and never the
           worker directly; and everything the worker starts stays in the
           session, which runner_kill_session empties when the worker stops. */
        if (setsid() < 0) setpgid(0, 0);
        if (r->cfg.nice > 0 && nice(r->cfg.nice) == -1) { /* best effort */ }
        dup2(in[0], 0);
        dup2(out[1], 1);
        if (r->cfg.stderr_path) {
            int fd = open(r->cfg.stderr_path, O_WRONLY | O_CREAT | O_APPEND, 0644);
            if (fd >= 0) dup2(fd, 2);
        }
        execl(r->worker_exe, r->worker_exe, backend_arg(r->cfg.backend), threads, "__worker", (char *)NULL);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    r->pid = pid;
    r->to_worker = in[1];
    r->from_worker = out[0];
    return NULL;
}

static bool write_all(int fd, const char *p, size_t n) {
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        p += w;
        n -= (size_t)w;
    }
    return true;
}

static double runner_timeout_s(const RunRequest *req) { return req->timeout_s > 0 ? req->timeout_s : 10.0; }

Diag *runner_start(Runner *r, const RunRequest *req) {
    if (r->busy) return diag_error("worker", "a run is already in progress");
    /* Paths, ids and --param values may be any bytes: base/bytes.h carries them exactly. */
    json_t *params = json_object();
    for (int i = 0; i < req->n_params; i++) {
        json_t *key = bytes_to_json(req->param_keys[i]);
        json_object_set_new(params, json_string_value(key), bytes_to_json(req->param_values[i]));
        json_decref(key);
    }
    json_t *j = json_pack("{s:o, s:o, s:o, s:o, s:o}", "exercise", bytes_to_json(req->exercise_id), "chapter_dir",
                          bytes_to_json(req->chapter_dir), "cu", bytes_to_json(req->cu_path), "display",
                          bytes_to_json(req->cu_display ? req->cu_display : req->cu_path), "params", params);
    assert(j);
    if (req->chapter_shown) json_object_set_new(j, "chapter_shown", bytes_to_json(req->chapter_shown));
    json_object_set_new(j, "timeout_s", json_real(runner_timeout_s(req)));
    if (req->emu_launch_budget) json_object_set_new(j, "emu_launch_budget", json_integer((json_int_t)req->emu_launch_budget));
    if (req->sass_arch > 0) json_object_set_new(j, "sass_arch", json_integer(req->sass_arch));
    if (req->grading) {
        /* A u64 does not fit a JSON integer: the seed travels as decimal text. */
        char seed[24];
        snprintf(seed, sizeof seed, "%llu", (unsigned long long)req->grading_seed);
        json_object_set_new(j, "grading", json_true());
        json_object_set_new(j, "grading_seed", json_string(seed));
        if (req->emu_checked) json_object_set_new(j, "emu_checked", json_true());
    }
    char *line = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    Diag *d = NULL;
    for (int attempt = 0; attempt < 2; attempt++) {
        if (r->pid <= 0 && (d = runner_spawn(r))) break;
        /* A worker that died between runs shows up as EPIPE here: replace it once. */
        if (write_all(r->to_worker, line, strlen(line)) && write_all(r->to_worker, "\n", 1)) break;
        free(runner_stop_worker(r, true));
        if (attempt == 1) d = diag_error("worker", "cannot talk to the worker: %s", strerror(errno));
    }
    free(line);
    if (d) return d;
    r->busy = true;
    r->started = now_s();
    r->timeout_s = runner_timeout_s(req);
    free(r->activity);
    r->activity = xstrdup("starting the worker and loading the exercise");
    r->compiling = false;
    r->compile_total = 0;
    r->gpu_waits = 0;
    r->gpu_wait_total = 0;
    free(r->exercise_id);
    r->exercise_id = xstrdup(req->exercise_id);
    if (r->verdict) json_decref(r->verdict);
    r->verdict = NULL;
    r->verdict_taken = false;
    if (r->late_verdict) json_decref(r->late_verdict);
    r->late_verdict = NULL;
    return NULL;
}

/* The run's verdict, sent before it was stopped, with a warning saying
 * what did not finish (message: why it stopped; freed). */
static RunResult *runner_verdict_stands(Runner *r, char *message) {
    RunResult *res = run_result_from_json(r->verdict);
    diag_append(&res->diags, diag_new(DIAG_WARNING, "after-verdict", NULL, 0, 0,
                                      N_("what ran after the verdict did not finish: %s (the verdict stands)"),
                                      message));
    free(message);
    json_decref(r->verdict);
    r->verdict = NULL;
    r->busy = false;
    return res;
}

static RunResult *runner_failure(Runner *r, Verdict v, const char *code, char *message /* freed */) {
    if (r->verdict && v != VERDICT_COMPILE_ERROR) return runner_verdict_stands(r, message);
    RunResult *res = run_result_new(v);
    res->exercise_id = xstrdup(r->exercise_id);
    res->summary = xstrdup(message);
    res->duration_ms = (now_s() - r->started) * 1000.0;
    diag_append(&res->diags, diag_error(code, "%s", message));
    free(message);
    r->busy = false;
    return res;
}

/* Takes an {"activity": kind, "what": phrase} line from the worker. */
static void runner_note_activity(Runner *r, const json_t *j) {
    const char *kind = json_string_value(json_object_get(j, "activity"));
    char *what = bytes_from_json(json_object_get(j, "what"));
    if (!kind || !what) {
        free(what);
        return;
    }
    if (!strcmp(kind, "gpu-wait")) {
        bool begin = !strcmp(what, "begin");
        free(what);
        if (begin && r->gpu_waits++ == 0) r->gpu_wait_since = now_s();
        if (!begin && r->gpu_waits > 0 && --r->gpu_waits == 0) r->gpu_wait_total += now_s() - r->gpu_wait_since;
        return;
    }
    bool compiling = !strcmp(kind, "compile");
    if (compiling && !r->compiling) r->compile_since = now_s();
    if (!compiling && r->compiling) r->compile_total += now_s() - r->compile_since;
    r->compiling = compiling;
    free(r->activity);
    r->activity = what;
}

static double runner_compile_limit(const Runner *r) {
    return r->cfg.compile_limit_s > 0 ? r->cfg.compile_limit_s : RUNNER_COMPILE_LIMIT_S;
}

/* Seconds the run has waited for the GPU's lock so far. */
static double runner_gpu_waited(const Runner *r) {
    return r->gpu_wait_total + (r->gpu_waits > 0 ? now_s() - r->gpu_wait_since : 0);
}

/* When the run in flight must be stopped: its timeout, not counting the
 * time spent compiling nor waiting for the GPU (up to
 * RUNNER_GPU_WAIT_LIMIT_S: a lock nobody lets go of still ends);
 * while compiling, the compile's own limit. */
static double runner_deadline(const Runner *r) {
    if (r->compiling) return r->compile_since + runner_compile_limit(r);
    double waited = runner_gpu_waited(r);
    if (waited > RUNNER_GPU_WAIT_LIMIT_S) waited = RUNNER_GPU_WAIT_LIMIT_S;
    return r->started + r->timeout_s + r->compile_total + waited;
}

/* The timeout verdict: what was running when it was stopped. */
static RunResult *runner_timed_out(Runner *r) {
    bool kernel = r->activity && !strncmp(r->activity, "running kernel", 14);
    char *msg = !r->compiling && r->gpu_waits > 0
                    ? xasprintf(N_("waited %.0f s for the GPU (other runs' timed sections) and was stopped while %s: "
                                   "another run held the GPU all that time."),
                                runner_gpu_waited(r), r->activity ? r->activity : N_("running"))
                : r->compiling
                    ? xasprintf(N_("%s took longer than %.3g s and was stopped. A source that takes NVRTC this long "
                                   "is very large or instantiates very many templates: make it smaller."),
                                r->activity, runner_compile_limit(r))
                : kernel ? xasprintf(N_("did not finish within %.0f s and was stopped while %s. A kernel that never "
                                        "ends usually loops on a condition that never changes, or waits at a barrier "
                                        "not every thread reaches."), r->timeout_s, r->activity)
                         : xasprintf(N_("did not finish within %.0f s and was stopped while %s."), r->timeout_s,
                                     r->activity ? r->activity : N_("running"));
    free(runner_stop_worker(r, true));
    RunResult *res = runner_failure(r, VERDICT_TIMEOUT, "timeout", msg);
    r->compiling = false;
    return res;
}

RunnerState runner_poll(Runner *r, int timeout_ms, RunResult **out) {
    *out = NULL;
    if (!r->busy) return RUNNER_IDLE;
    for (;;) {
        double left = runner_deadline(r) - now_s();
        if (left <= 0) {
            *out = runner_timed_out(r);
            return RUNNER_DONE;
        }
        int wait_ms = (int)(left * 1000.0) + 1;
        if (timeout_ms >= 0 && timeout_ms < wait_ms) wait_ms = timeout_ms;
        struct pollfd pfd = {.fd = r->from_worker, .events = POLLIN};
        int pr = poll(&pfd, 1, wait_ms);
        if (pr < 0 && errno != EINTR) return RUNNER_BUSY;
        if (pr <= 0) {
            if (timeout_ms >= 0) return RUNNER_BUSY;
            continue;
        }
        char buf[65536];
        ssize_t n = read(r->from_worker, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            bool compiling = r->compiling;
            char *what = compiling && r->activity ? xstrdup(r->activity) : NULL;
            char *how = runner_stop_worker(r, true);
            r->compiling = false;
            if (what) {
                /* NVRTC runs inside the worker: a source that makes it run out of memory
                   (graded work has a bounded address space) can end the worker. */
                *out = runner_failure(r, VERDICT_COMPILE_ERROR, "compile-memory",
                                      xasprintf(N_("the worker stopped while %s (%s) and has been restarted: the "
                                                   "compiler probably ran out of memory on this file. Make it smaller "
                                                   "(fewer template instantiations, smaller constexpr computations)."),
                                                what, how ? how : N_("no answer")));
                free(what);
                free(how);
                return RUNNER_DONE;
            }
            *out = runner_failure(r, VERDICT_CRASH, "crash",
                                  xasprintf(N_("the worker running the exercise crashed (%s); it has been restarted. "
                                               "This is usually a bug in cudojo or the exercise, not in your kernel."),
                                            how ? how : N_("no answer")));
            free(how);
            return RUNNER_DONE;
        }
        strbuf_append_n(&r->inbuf, buf, (size_t)n);
        char *nl = memchr(r->inbuf.data, '\n', r->inbuf.len);
        json_error_t err;
        json_t *j = NULL;
        /* Activity lines and at most one verdict line first, then one result line. */
        while (nl) {
            j = json_loadb(r->inbuf.data, (size_t)(nl - r->inbuf.data), 0, &err);
            size_t used = (size_t)(nl - r->inbuf.data) + 1;
            memmove(r->inbuf.data, r->inbuf.data + used, r->inbuf.len - used + 1);
            r->inbuf.len -= used;
            json_t *v = json_object_get(j, "verdict");
            if (v && !json_object_get(j, "result")) {
                if (json_is_object(v) && !r->verdict) r->verdict = json_incref(v);   /* one per run */
            } else if (!json_object_get(j, "activity")) {
                break;
            } else {
                runner_note_activity(r, j);
            }
            json_decref(j);
            j = NULL;
            nl = memchr(r->inbuf.data, '\n', r->inbuf.len);
        }
        if (!nl) {
            if (timeout_ms >= 0) return RUNNER_BUSY;
            continue;
        }
        strbuf_reset(&r->inbuf);
        r->busy = false;
        if (!j) {
            free(runner_stop_worker(r, true));
            *out = runner_failure(r, VERDICT_CRASH, "crash", xasprintf("the worker sent a garbled answer (%s)", err.text));
            return RUNNER_DONE;
        }
        *out = run_result_from_json(json_object_get(j, "result"));
        if (json_is_true(json_object_get(j, "restart"))) free(runner_stop_worker(r, false));
        json_decref(j);
        if (r->late_verdict) json_decref(r->late_verdict);
        r->late_verdict = r->verdict && !r->verdict_taken ? json_incref(r->verdict) : NULL;
        if (r->verdict) json_decref(r->verdict);
        r->verdict = NULL;
        return RUNNER_DONE;
    }
}

RunResult *runner_take_verdict(Runner *r) {
    if (!r->busy || !r->verdict || r->verdict_taken) return NULL;
    r->verdict_taken = true;
    return run_result_from_json(r->verdict);
}

bool runner_has_verdict(const Runner *r) { return r->busy && r->verdict; }

void runner_cancel(Runner *r) {
    if (!r->busy) return;
    free(runner_stop_worker(r, true));
    r->busy = false;
    if (r->verdict) json_decref(r->verdict);
    r->verdict = NULL;
}

RunResult *runner_cancel_result(Runner *r) {
    if (!r->busy) return NULL;
    if (r->verdict) {
        free(runner_stop_worker(r, true));
        return runner_verdict_stands(r, xstrdup(N_("stopped by the user")));
    }
    runner_cancel(r);
    RunResult *c = run_result_new(VERDICT_CANCELLED);
    c->exercise_id = xstrdup(r->exercise_id);
    c->summary = xstrdup(N_("stopped by the user"));
    return c;
}

int runner_fd(const Runner *r) { return r->busy ? r->from_worker : -1; }

double runner_elapsed_s(const Runner *r) { return r->busy ? now_s() - r->started : 0; }

const char *runner_activity(const Runner *r) { return r->busy ? r->activity : NULL; }

RunResult *runner_wait_verdict(Runner *r, volatile sig_atomic_t *cancel,
                               void (*on_verdict)(void *ud, const RunResult *v), void *ud) {
    for (;;) {
        RunResult *res = NULL;
        RunnerState st = runner_poll(r, 100, &res);
        if (st == RUNNER_DONE) {
            if (on_verdict && r->late_verdict) {    /* it came in the same read as the result */
                RunResult *v = run_result_from_json(r->late_verdict);
                on_verdict(ud, v);
                run_result_free(&v);
            }
            if (r->late_verdict) json_decref(r->late_verdict);
            r->late_verdict = NULL;
            return res;
        }
        if (st == RUNNER_IDLE) {
            res = run_result_new(VERDICT_CRASH);
            res->summary = xstrdup("no run in progress");
            return res;
        }
        RunResult *v = on_verdict ? runner_take_verdict(r) : NULL;
        if (v) {
            on_verdict(ud, v);
            run_result_free(&v);
        }
        if (cancel && *cancel) return runner_cancel_result(r);
    }
}

RunResult *runner_wait(Runner *r, volatile sig_atomic_t *cancel) { return runner_wait_verdict(r, cancel, NULL, NULL); }

RunResult *runner_run(Runner *r, const RunRequest *req, volatile sig_atomic_t *cancel) {
    Diag *d = runner_start(r, req);
    if (d) {
        RunResult *res = run_result_new(VERDICT_CRASH);
        res->exercise_id = xstrdup(req->exercise_id);
        res->summary = xstrdup(d->message);
        res->diags = d;
        return res;
    }
    return runner_wait(r, cancel);
}

/* ---- worker side ---- */

/* Writes j (taken; NULL: nothing) as one line to the parent, at once. */
static void worker_send_line(FILE *out, json_t *j) {
    char *text = j ? json_dumps(j, JSON_COMPACT) : NULL;
    if (text) {
        fprintf(out, "%s\n", text);
        fflush(out);
    }
    free(text);
    if (j) json_decref(j);
}

/* Tells the parent what the run is doing now (before its result line). */
static void worker_activity(void *ud, const char *kind, const char *what) {
    worker_send_line(ud, json_pack("{s:s, s:o}", "activity", kind, "what", bytes_to_json(what)));
}

/* Tells the parent a wait for the GPU's lock begins or ends (gpu_lock_on_wait). */
static void worker_gpu_wait(void *ud, bool waiting) {
    worker_send_line(ud, json_pack("{s:s, s:s}", "activity", "gpu-wait", "what", waiting ? "begin" : "end"));
}

/* Tells the parent the verdict, before what runs after it (lua/API.md's after =). */
static void worker_verdict(void *ud, const RunResult *r) {
    worker_send_line(ud, json_pack("{s:o}", "verdict", run_result_to_json(r)));
}

static RunResult *worker_run(Backend *b, Diag *backend_why, const char *id, const char *chapter_dir,
                             const char *chapter_shown, const char *cu, const char *display, const json_t *params,
                             const json_t *req, FILE *out) {
    if (!b) {
        RunResult *res = run_result_new(VERDICT_RUNTIME_ERROR);
        res->exercise_id = xstrdup(id);
        res->summary = xstrdup(backend_why ? backend_why->message : "no backend");
        diag_append(&res->diags, diag_error("backend", "%s", res->summary));
        return res;
    }
    Course *course = NULL;
    Diag *d = course_load_dirs_as(&chapter_dir, &chapter_shown, 1, &course);
    const ExerciseMeta *ex = course ? course_find_exercise(course, id, NULL) : NULL;
    if (!ex) {
        RunResult *res = run_result_new(VERDICT_EXERCISE_ERROR);
        res->exercise_id = xstrdup(id);
        res->summary = xasprintf("cannot load exercise %s", id);
        res->diags = d ? d : diag_error("exercise", "exercise %s is not in %s", id, chapter_dir);
        course_free(&course);
        return res;
    }
    diag_free(&d);
    size_t np = json_object_size(params), i = 0;
    char **keys = xcalloc(np + 1, sizeof *keys), **vals = xcalloc(np + 1, sizeof *vals);
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)params, k, v) {
        json_t *kj = json_string(k);
        keys[i] = bytes_from_json(kj);
        json_decref(kj);
        vals[i] = bytes_from_json(v);
        if (!vals[i]) vals[i] = xstrdup("");
        i++;
    }
    ExerciseRunOptions opts = {.cu_path = cu, .cu_display = display, .param_keys = (const char *const *)keys,
                               .param_values = (const char *const *)vals, .n_params = (int)np,
                               .on_activity = worker_activity, .activity_ud = out,
                               .on_verdict = worker_verdict, .verdict_ud = out,
                               .grading = json_is_true(json_object_get(req, "grading")),
                               .timeout_s = json_number_value(json_object_get(req, "timeout_s"))};
    const char *seed = json_string_value(json_object_get(req, "grading_seed"));
    if (opts.grading && seed) opts.grading_seed = strtoull(seed, NULL, 10);
    opts.emu_checked = opts.grading && json_is_true(json_object_get(req, "emu_checked"));
    json_t *budget = json_object_get(req, "emu_launch_budget");
    if (json_is_integer(budget) && json_integer_value(budget) > 0) opts.emu_launch_budget = (uint64_t)json_integer_value(budget);
    json_t *sass = json_object_get(req, "sass_arch");     /* sm_XX: two or three digits */
    if (json_is_integer(sass) && json_integer_value(sass) >= 10 && json_integer_value(sass) <= 999)
        opts.sass_arch = (int)json_integer_value(sass);
    RunResult *res = exercise_run(ex, b, &opts);
    for (i = 0; i < np; i++) {
        free(keys[i]);
        free(vals[i]);
    }
    free(keys);
    free(vals);
    course_free(&course);
    return res;
}

static RunResult *worker_handle(Backend *b, Diag *backend_why, const json_t *req, FILE *out) {
    char *id = bytes_from_json(json_object_get(req, "exercise"));
    char *chapter_dir = bytes_from_json(json_object_get(req, "chapter_dir"));
    char *cu = bytes_from_json(json_object_get(req, "cu"));
    char *display = bytes_from_json(json_object_get(req, "display"));
    char *shown = bytes_from_json(json_object_get(req, "chapter_shown"));   /* NULL when absent */
    RunResult *res;
    if (!id || !chapter_dir || !cu) {
        res = run_result_new(VERDICT_CRASH);
        res->summary = xstrdup("malformed request to the worker");
    } else {
        res = worker_run(b, backend_why, id, chapter_dir, shown, cu, display, json_object_get(req, "params"), req,
                         out);
    }
    free(id);
    free(chapter_dir);
    free(shown);
    free(cu);
    free(display);
    return res;
}

/* User and system time of a getrusage answer, in ms. */
static double cpu_ms(const struct rusage *u) {
    return ((double)u->ru_utime.tv_sec + (double)u->ru_stime.tv_sec) * 1e3 +
           ((double)u->ru_utime.tv_usec + (double)u->ru_stime.tv_usec) / 1e3;
}

int runner_worker_main(BackendChoice backend, int emu_threads) {
    signal(SIGINT, SIG_IGN);
    signal(SIGPIPE, SIG_IGN);
    /* Keep the protocol channel private: anything a library prints to stdout goes to stderr. */
    int proto = dup(1);
    dup2(2, 1);
    FILE *out = fdopen(proto, "w");
    if (!out) return 1;
    gpu_lock_on_wait(worker_gpu_wait, out);
    if (emu_threads > 0) {
        char buf[16];
        snprintf(buf, sizeof buf, "%d", emu_threads);
        setenv("CUDOJO_EMU_THREADS", buf, 1);
    }
    EmuOptions emu = {.threads = emu_threads, .adversarial = true, .metrics = true, .checks = true};
    Backend *b = NULL;
    Diag *why = NULL;
    bool opened = false;
    char *line = NULL;
    size_t cap = 0;
    while (getline(&line, &cap, stdin) > 0) {
        if (!opened) {
            /* Opened lazily so a worker that is never used costs no CUDA context. */
            b = backend_open(backend, &emu, &why, NULL);
            opened = true;
        }
        json_error_t err;
        json_t *req = json_loads(line, 0, &err);
        struct rusage self0, kids0, self1, kids1;
        getrusage(RUSAGE_SELF, &self0);
        getrusage(RUSAGE_CHILDREN, &kids0);
        RunResult *res = req ? worker_handle(b, why, req, out) : run_result_new(VERDICT_CRASH);
        getrusage(RUSAGE_SELF, &self1);
        getrusage(RUSAGE_CHILDREN, &kids1);
        /* metrics.cpu: the CPU this run took, the worker's threads and the processes it waited for
           (nvcc, the learner's programs, tools): what a grading's cores go to */
        if (!res->metrics) res->metrics = json_object();
        json_object_set_new(res->metrics, "cpu",
                            json_pack("{s:f, s:f}", "worker_ms", cpu_ms(&self1) - cpu_ms(&self0), "children_ms",
                                      cpu_ms(&kids1) - cpu_ms(&kids0)));
        if (!res->backend && b) res->backend = xstrdup(b->ops->name);
        /* A sticky GPU error poisons the context: answer, then let the parent start a fresh worker. */
        bool restart = b && !backend_usable(b);
        json_t *resp = json_pack("{s:o, s:b}", "result", run_result_to_json(res), "restart", restart);
        char *text = resp ? json_dumps(resp, JSON_COMPACT) : NULL;
        if (!text) text = xstrdup("{\"result\": {\"verdict\": \"crash\", \"summary\": \"the worker could not encode "
                                  "the result as JSON (a bug in cudojo)\"}}");
        fprintf(out, "%s\n", text);
        fflush(out);
        free(text);
        if (resp) json_decref(resp);
        run_result_free(&res);
        if (req) json_decref(req);
        if (restart) break;
    }
    free(line);
    backend_close(&b);
    diag_free(&why);
    fclose(out);
    return 0;
}
