/* tests/emurt/test_progwire.c: the child's side of the report channel
 * (kernels/progwire.c), each case in a forked child so its one-time state
 * is fresh: records are JSON lines on CUDOJO_REPORT_FD; the exit record has
 * the exit code; call records stop at PROGWIRE_MAX_CALLS and the rest are
 * counted; bytes that are not UTF-8 are carried as the code point of their
 * value; a fatal signal writes a crash record with frames inside the
 * executable and still kills the process with that signal; without a valid
 * descriptor nothing is written and nothing breaks; a turn is asked once,
 * before the work, and only on the parent's socket named by CUDOJO_TURN_FD;
 * the runtime says it serves CUDOJO_DRAIN_FD at its first GPU work, not
 * before; a drain asked there holds new GPU work back, runs the hook
 * before it answers, and lets the work go on when the worker says, even
 * while the hook never returns. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <jansson.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kernels/progwire.h"

typedef void (*ChildFn)(void);

/* Runs fn in a child whose report channel is a temp file; returns the
 * records (a JSON array, caller decrefs) and the wait status. */
static json_t *in_child(ChildFn fn, int *status) {
    char path[] = "/tmp/cudojo-progwire-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    unlink(path);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        char v[16];
        snprintf(v, sizeof v, "%d", fd);
        setenv(PROGWIRE_ENV_FD, v, 1);
        fn();
        exit(7);
    }
    assert_int_equal(waitpid(pid, status, 0), pid);
    json_t *arr = json_array();
    lseek(fd, 0, SEEK_SET);
    FILE *f = fdopen(fd, "r");
    char *line = NULL;
    size_t cap = 0;
    while (getline(&line, &cap, f) > 0) {
        json_error_t err;
        json_t *o = json_loads(line, 0, &err);
        if (!o) fail_msg("not a JSON line: %s (%s)", line, err.text);
        json_array_append_new(arr, o);
    }
    free(line);
    fclose(f);
    return arr;
}

static json_t *find(json_t *arr, const char *type, int nth) {
    size_t i;
    json_t *o;
    json_array_foreach(arr, i, o) {
        if (!strcmp(json_string_value(json_object_get(o, "type")), type) && nth-- == 0) return o;
    }
    return NULL;
}

static void child_hello_call_exit(void) {
    progwire_init("emu");
    progwire_hello("cudojo PTX emulator");
    progwire_call("cudaMalloc", "&alloc1, 4000", 0, 0, "cudaSuccess", 12.5);
}

static void progwire__writes_hello_calls_and_the_exit_code__as_json_lines(void **state) {
    (void)state;
    int st;
    json_t *r = in_child(child_hello_call_exit, &st);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 7);
    json_t *h = find(r, "hello", 0);
    assert_non_null(h);
    assert_string_equal(json_string_value(json_object_get(h, "runtime")), "emu");
    assert_string_equal(json_string_value(json_object_get(h, "device")), "cudojo PTX emulator");
    assert_non_null(strstr(json_string_value(json_object_get(h, "exe")), "test_progwire"));
    json_t *c = find(r, "call", 0);
    assert_string_equal(json_string_value(json_object_get(c, "args")), "&alloc1, 4000");
    assert_int_equal(json_integer_value(json_object_get(c, "rc")), 0);
    json_t *e = find(r, "exit", 0);
    assert_non_null(e);
    assert_int_equal(json_integer_value(json_object_get(e, "code")), 7);
    assert_ptr_equal(json_array_get(r, json_array_size(r) - 1), e);
    json_decref(r);
}

static int g_turn_sv[2] = {-1, -1};     /* made by the test process: the child's parent, as a worker */

static void child_turn(void) {
    char v[16];
    snprintf(v, sizeof v, "%d", g_turn_sv[1]);
    setenv(PROGWIRE_ENV_TURN_FD, v, 1);
    progwire_init("cuda");
    progwire_turn();
    progwire_turn();                         /* had: no second record, no wait */
    progwire_call("cudaLaunchKernel", "k<<<1, 1>>>", 0, 0, "cudaSuccess", 1);
    if (fcntl(g_turn_sv[1], F_GETFD) < 0) exit(5);    /* kept for the turn's end at the exit */
    fflush(NULL);
    pid_t kid = fork();                      /* a child of the program: no turn, says nothing there */
    if (kid == 0) exit(0);
    if (kid < 0 || waitpid(kid, NULL, 0) != kid) exit(6);
}

/* What the child wrote on the turn channel (read after it is gone). */
static void turn_bytes(char *buf, size_t n) {
    ssize_t got = recv(g_turn_sv[0], buf, n - 1, MSG_DONTWAIT);
    buf[got > 0 ? got : 0] = 0;
}

static void child_turn_without_descriptor(void) {
    unsetenv(PROGWIRE_ENV_TURN_FD);
    progwire_init("cuda");
    progwire_turn();
    progwire_call("cudaMemcpy", "", 0, 0, "cudaSuccess", 1);
}

/* The variable inherited by a program the learner's program started: the
 * number names a descriptor of its own (a socket it made, a file), not its
 * parent's channel. */
static void child_turn_own_descriptors(void) {
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) exit(3);
    char v[16];
    snprintf(v, sizeof v, "%d", sv[0]);
    setenv(PROGWIRE_ENV_TURN_FD, v, 1);
    progwire_init("cuda");
    progwire_turn();                         /* would wait forever on its own socket */
    int f = open("/dev/null", O_RDONLY);
    snprintf(v, sizeof v, "%d", f);
    setenv(PROGWIRE_ENV_TURN_FD, v, 1);
    progwire_turn();
    progwire_call("cudaMemcpy", "", 0, 0, "cudaSuccess", 1);
}

static void progwire__asks_for_its_turn_once__and_only_on_its_parents_channel(void **state) {
    (void)state;
    int st;
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, g_turn_sv), 0);
    assert_int_equal(write(g_turn_sv[0], "gg", 2), 2);  /* the worker's answers (turn, exit), there already */
    json_t *r = in_child(child_turn, &st);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 7);
    char said[8];
    turn_bytes(said, sizeof said);
    assert_string_equal(said, "i");         /* the turn's end, once: not from the program's child */
    assert_non_null(find(r, "turn", 0));
    assert_null(find(r, "turn", 1));
    assert_ptr_equal(json_array_get(r, 0), find(r, "turn", 0));   /* before the work */
    assert_non_null(find(r, "call", 0));
    json_decref(r);
    close(g_turn_sv[0]);
    close(g_turn_sv[1]);
    r = in_child(child_turn_without_descriptor, &st);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 7);
    assert_null(find(r, "turn", 0));
    assert_non_null(find(r, "call", 0));
    json_decref(r);
    r = in_child(child_turn_own_descriptors, &st);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 7);
    assert_null(find(r, "turn", 0));
    assert_non_null(find(r, "call", 0));
    json_decref(r);
}


/* ---- the drain: the child plays the worker too, on the end of a socket
 * pair the test process (its parent) made, as a worker does ---- */
static int g_drain_sv[2] = {-1, -1};
static volatile int g_hook_ms;          /* how long the hook takes; < 0: forever */
static volatile int g_hook_started;

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void sleep_ms(int ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static void slow_hook(void) {
    g_hook_started = 1;
    if (g_hook_ms < 0)
        for (;;) pause();
    sleep_ms(g_hook_ms);
}

typedef struct DrainWorker {
    double asked, answered, opened;
    unsigned char answer[2];
    ssize_t got;
} DrainWorker;

/* The worker: asks drain 9, waits up to 1 s for the answer, then 100 ms more, then opens the gate. */
static void *drain_worker(void *arg) {
    DrainWorker *w = arg;
    unsigned char ask[2] = {'y', 9};
    struct timeval tv = {1, 0};
    setsockopt(g_drain_sv[0], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    unsigned char ready = 0;
    if (recv(g_drain_sv[0], &ready, 1, 0) != 1 || ready != 'r') return NULL;   /* the runtime serves it */
    w->asked = now_ms();
    if (send(g_drain_sv[0], ask, 2, 0) != 2) return NULL;
    w->got = recv(g_drain_sv[0], w->answer, 2, 0);
    w->answered = now_ms();
    sleep_ms(100);
    w->opened = now_ms();
    if (send(g_drain_sv[0], "o", 1, 0) != 1) return NULL;
    return NULL;
}

static int g_held_by_gate;       /* child_drain's held-back work: progwire_gate (a capture's begin), not a turn */

/* Exit codes past 7 name what went wrong. */
static void child_drain(void) {
    char v[16];
    snprintf(v, sizeof v, "%d", g_drain_sv[1]);
    setenv(PROGWIRE_ENV_DRAIN_FD, v, 1);
    progwire_set_drain(slow_hook);
    progwire_init("cuda");
    DrainWorker w = {0};
    unsigned char early;
    struct timeval tv = {0, 100000};
    setsockopt(g_drain_sv[0], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    if (recv(g_drain_sv[0], &early, 1, 0) > 0) exit(13);     /* no "r" before the first GPU work */
    progwire_turn();                    /* the first GPU work: "r" */
    pthread_t t;
    if (pthread_create(&t, NULL, drain_worker, &w)) exit(8);
    while (!g_hook_started) sleep_ms(1);
    if (g_held_by_gate) progwire_gate();   /* a capture's begin: held back the same way */
    else progwire_turn();               /* new work: held back until the gate opens */
    double through = now_ms();
    pthread_join(t, NULL);
    if (g_hook_ms >= 0) {
        if (w.got != 2 || w.answer[0] != 'd' || w.answer[1] != 9) exit(9);          /* the answer names the drain */
        if (w.answered - w.asked < g_hook_ms - 5) exit(10);                         /* after the hook */
    } else if (w.got > 0) {
        exit(11);       /* no answer from a hook that hangs */
    }
    if (through < w.opened) exit(12);   /* the work went before the gate opened */
    progwire_call("cudaLaunchKernel", "k<<<1, 1>>>", 0, 0, "cudaSuccess", 1);
}

static void progwire__holds_gpu_work_back_during_a_drain__and_answers_after_the_hook(void **state) {
    (void)state;
    int st;
    assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, g_drain_sv), 0);
    g_hook_ms = 200;
    json_t *r = in_child(child_drain, &st);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 7);
    assert_non_null(find(r, "call", 0));
    json_decref(r);
    g_hook_ms = -1;     /* a context that never finishes: the gate still opens */
    r = in_child(child_drain, &st);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 7);
    json_decref(r);
    g_hook_ms = 200;    /* a stream capture's begin waits at the gate as GPU work does (kernels/cuda/inject.c) */
    g_held_by_gate = 1;
    r = in_child(child_drain, &st);
    g_held_by_gate = 0;
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 7);
    json_decref(r);
    close(g_drain_sv[0]);
    close(g_drain_sv[1]);
}

/* A descriptor of the program's own at that number (the variable inherited by
 * a program the learner's program started): no drain threads, no gate. */
static void child_drain_own_descriptor(void) {
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv)) exit(3);
    char v[16];
    snprintf(v, sizeof v, "%d", sv[1]);
    setenv(PROGWIRE_ENV_DRAIN_FD, v, 1);
    progwire_set_drain(slow_hook);
    g_hook_ms = 0;
    progwire_init("cuda");
    unsigned char ask[2] = {'y', 1}, a[2];
    if (send(sv[0], ask, 2, 0) != 2) exit(8);
    struct timeval tv = {0, 200000};
    setsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    if (recv(sv[0], a, 2, 0) > 0) exit(9);     /* nobody serves it: not "r", no answer */
    progwire_turn();                            /* and nothing is held back */
}

static void progwire__drains_only_on_its_parents_channel(void **state) {
    (void)state;
    int st;
    json_t *r = in_child(child_drain_own_descriptor, &st);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 7);
    json_decref(r);
}

/* The turn's end at the exit: after the "exit" record, the drain hook
 * (synchronise the contexts), then "i" on the turn channel and a wait for
 * the worker's answer; a hook that hangs is given up after 1 s, and then
 * nothing is said; a program that had no turn says nothing. */
static void child_turn_then_exit(void) {
    char v[16];
    snprintf(v, sizeof v, "%d", g_turn_sv[1]);
    setenv(PROGWIRE_ENV_TURN_FD, v, 1);
    progwire_set_drain(slow_hook);
    progwire_init("cuda");
    progwire_turn();
}

static void child_no_turn_then_exit(void) {
    unsetenv(PROGWIRE_ENV_TURN_FD);
    progwire_set_drain(slow_hook);
    progwire_init("cuda");
    progwire_turn();
}

static void progwire__ends_its_turn_at_the_exit__once_its_gpu_work_is_done(void **state) {
    (void)state;
    int st;
    char said[8];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, g_turn_sv), 0);
    assert_int_equal(write(g_turn_sv[0], "gg", 2), 2);
    g_hook_ms = 200;
    double t0 = now_ms();
    json_t *r = in_child(child_turn_then_exit, &st);
    double took = now_ms() - t0;
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 7);
    turn_bytes(said, sizeof said);
    assert_string_equal(said, "i");
    assert_true(took >= 195);                                   /* after the hook */
    assert_non_null(find(r, "exit", 0));
    json_decref(r);
    assert_int_equal(write(g_turn_sv[0], "gg", 2), 2);
    g_hook_ms = -1;                                             /* a context that never finishes */
    t0 = now_ms();
    r = in_child(child_turn_then_exit, &st);
    took = now_ms() - t0;
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 7);
    turn_bytes(said, sizeof said);
    assert_string_equal(said, "");                              /* not idle: nothing said */
    assert_true(took >= 950 && took < 5000);
    json_decref(r);
    g_hook_ms = 0;
    r = in_child(child_no_turn_then_exit, &st);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 7);
    turn_bytes(said, sizeof said);
    assert_string_equal(said, "");
    json_decref(r);
    close(g_turn_sv[0]);
    close(g_turn_sv[1]);
}

static void child_many_calls(void) {
    progwire_init("emu");
    for (int i = 0; i < PROGWIRE_MAX_CALLS + 25; i++) progwire_call("cudaGetLastError", "", 0, 0, "cudaSuccess", i);
}

static void progwire__counts_the_calls_past_the_cap__instead_of_writing_them(void **state) {
    (void)state;
    int st;
    json_t *r = in_child(child_many_calls, &st);
    assert_non_null(find(r, "call", PROGWIRE_MAX_CALLS - 1));
    assert_null(find(r, "call", PROGWIRE_MAX_CALLS));
    json_t *d = find(r, "calls_dropped", 0);
    assert_non_null(d);
    assert_int_equal(json_integer_value(json_object_get(d, "count")), 25);
    json_decref(r);
}

static void child_bad_utf8(void) {
    progwire_init("emu");
    progwire_call("cudaMemcpy", "caf\xe9 ok \xc3\xa9 \xff", 0, 0, "cudaSuccess", 0);
}

static void progwire__carries_bytes_that_are_not_utf8__as_their_code_points(void **state) {
    (void)state;
    int st;
    json_t *r = in_child(child_bad_utf8, &st);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 7);    /* under make san: nothing leaked either */
    json_t *c = find(r, "call", 0);
    assert_non_null(c);
    assert_string_equal(json_string_value(json_object_get(c, "args")), "caf\xc3\xa9 ok \xc3\xa9 \xc3\xbf");
    json_decref(r);
}

static void child_crash(void) {
    progwire_init("emu");
    raise(SIGSEGV);
}

static void progwire__writes_a_crash_record_and_dies_of_the_signal__when_the_program_crashes(void **state) {
    (void)state;
    int st;
    json_t *r = in_child(child_crash, &st);
    assert_true(WIFSIGNALED(st));
    assert_int_equal(WTERMSIG(st), SIGSEGV);
    json_t *c = find(r, "crash", 0);
    assert_non_null(c);
    assert_int_equal(json_integer_value(json_object_get(c, "signal")), SIGSEGV);
    assert_true(json_array_size(json_object_get(c, "frames")) >= 1); /* child_crash, in_child, ... are ours */
    assert_non_null(strstr(json_string_value(json_object_get(c, "exe")), "test_progwire"));
    assert_null(find(r, "exit", 0));
    json_decref(r);
}

static void progwire__writes_nothing_and_still_works__without_a_valid_descriptor(void **state) {
    (void)state;
    pid_t pid = fork();
    if (pid == 0) {
        setenv(PROGWIRE_ENV_FD, "987", 1);
        progwire_init("emu");
        progwire_call("cudaFree", "NULL", 0, 0, "cudaSuccess", 0);
        progwire_send("finding", json_object());
        _exit(progwire_active() ? 1 : 0);
    }
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(progwire__writes_hello_calls_and_the_exit_code__as_json_lines),
        cmocka_unit_test(progwire__counts_the_calls_past_the_cap__instead_of_writing_them),
        cmocka_unit_test(progwire__carries_bytes_that_are_not_utf8__as_their_code_points),
        cmocka_unit_test(progwire__writes_a_crash_record_and_dies_of_the_signal__when_the_program_crashes),
        cmocka_unit_test(progwire__writes_nothing_and_still_works__without_a_valid_descriptor),
        cmocka_unit_test(progwire__asks_for_its_turn_once__and_only_on_its_parents_channel),
        cmocka_unit_test(progwire__holds_gpu_work_back_during_a_drain__and_answers_after_the_hook),
        cmocka_unit_test(progwire__drains_only_on_its_parents_channel),
        cmocka_unit_test(progwire__ends_its_turn_at_the_exit__once_its_gpu_work_is_done),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
