/* kernels/progwire.c: the child's side of kernels/progwire.h — JSON lines to
 * the worker over CUDOJO_REPORT_FD, and the fatal-signal handler.
 *
 * Linked into the emulator runtime and into the CUPTI injection library, so
 * it depends on nothing but libc, jansson and base/. The signal handler only
 * does async-signal-safe things: it formats into a static buffer by hand and
 * write()s it; backtrace() was called once at init so its first use does not
 * load libgcc inside the handler; the main executable's load range was found
 * at init with dl_iterate_phdr, so frames become offsets for addr2line. */
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/bytes.h"
#include "base/xalloc.h"
#include "kernels/progwire.h"

static int g_fd = -1;
static bool g_inited;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static long g_calls, g_dropped;
static char g_exe[PATH_MAX];
static uintptr_t g_exe_lo, g_exe_hi;     /* the main executable's mapped range */
static uintptr_t g_exe_base;             /* its load bias (0 for a non-PIE executable) */
static char g_altstack[64 * 1024];
static char g_runtime[16];
static volatile ProgwireCrashNote g_note;
static int g_turn_fd = -1;              /* CUDOJO_TURN_FD: the worker's answer to a "turn" */
static int g_turn_done;                 /* the turn was had (or there is none to ask for) */
static volatile ProgwireDrain g_drain_fn;    /* the drain hook (progwire_set_drain) */
static int g_turn_had;                  /* the worker answered a "turn": the program was alone on the GPU */
static pthread_mutex_t g_turn_lock = PTHREAD_MUTEX_INITIALIZER;

void progwire_set_crash_note(ProgwireCrashNote fn) { g_note = fn; }

static const int FATAL[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
#define N_FATAL ((int)(sizeof FATAL / sizeof FATAL[0]))

/* ---- writing ---------------------------------------------------------------- */
static void write_all(int fd, const char *p, size_t n) {
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return;
        }
        p += w;
        n -= (size_t)w;
    }
}

json_t *progwire_string(const char *s) {
    if (!s) return json_null();
    size_t n = strlen(s);
    if (n > PROGWIRE_MAX_STRING) n = PROGWIRE_MAX_STRING;
    json_t *j = json_stringn(s, n);
    if (j) return j;
    /* Not valid UTF-8 (or cut inside a character): carry each byte that is
     * not part of a valid sequence as the code point of its value. */
    char *buf = xmalloc(n * 2 + 1);
    size_t o = 0;
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        int len = p[i] < 0x80 ? 1 : (p[i] & 0xe0) == 0xc0 ? 2 : (p[i] & 0xf0) == 0xe0 ? 3 : (p[i] & 0xf8) == 0xf0 ? 4 : 0;
        bool ok = len > 0 && i + (size_t)len <= n;
        for (int k = 1; ok && k < len; k++) ok = (p[i + k] & 0xc0) == 0x80;
        if (ok && len > 1) ok = bytes_is_utf8((const char *)p + i, (size_t)len); /* overlong, surrogates */
        if (ok) {
            memcpy(buf + o, p + i, (size_t)len);
            o += (size_t)len;
            i += (size_t)len;
        } else {
            buf[o++] = (char)(0xc0 | p[i] >> 6);
            buf[o++] = (char)(0x80 | (p[i] & 0x3f));
            i++;
        }
    }
    j = json_stringn(buf, o);
    free(buf);
    return j ? j : json_string("");
}

void progwire_send(const char *type, json_t *fields) {
    if (!fields) fields = json_object();
    if (g_fd < 0) {
        json_decref(fields);
        return;
    }
    json_object_set_new(fields, "type", json_string(type));
    char *s = json_dumps(fields, JSON_COMPACT | JSON_ENSURE_ASCII);
    json_decref(fields);
    if (!s) return;
    size_t n = strlen(s);
    s[n] = '\n';
    pthread_mutex_lock(&g_lock);
    write_all(g_fd, s, n + 1);
    pthread_mutex_unlock(&g_lock);
    free(s);
}

void progwire_call(const char *fn, const char *args, int stream, int rc, const char *error, double t_us) {
    pthread_mutex_lock(&g_lock);
    bool drop = g_calls >= PROGWIRE_MAX_CALLS;
    if (drop) g_dropped++;
    else g_calls++;
    pthread_mutex_unlock(&g_lock);
    if (drop || g_fd < 0) return;
    json_t *o = json_object();
    json_object_set_new(o, "fn", progwire_string(fn));
    json_object_set_new(o, "args", progwire_string(args ? args : ""));
    json_object_set_new(o, "stream", json_integer(stream));
    json_object_set_new(o, "rc", json_integer(rc));
    json_object_set_new(o, "error", progwire_string(error ? error : ""));
    json_object_set_new(o, "t_us", json_real(t_us));
    progwire_send("call", o);
}

bool progwire_active(void) { return g_fd >= 0; }

/* ---- the crash record ---------------------------------------------------------- */
typedef struct Out {
    char buf[8192];
    size_t n;
} Out;

static void out_str(Out *o, const char *s) {
    while (*s && o->n < sizeof o->buf - 1) o->buf[o->n++] = *s++;
}

static void out_hex(Out *o, uintptr_t v) {
    char t[19];
    int i = 18;
    t[i] = 0;
    do {
        t[--i] = "0123456789abcdef"[v & 15];
        v >>= 4;
    } while (v && i > 2);
    t[--i] = 'x';
    t[--i] = '0';
    out_str(o, t + i);
}

static void out_dec(Out *o, long v) {
    char t[24];
    int i = 23;
    t[i] = 0;
    bool neg = v < 0;
    unsigned long u = neg ? (unsigned long)-v : (unsigned long)v;
    do {
        t[--i] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (neg) t[--i] = '-';
    out_str(o, t + i);
}

/* A JSON string of a path we found ourselves (no quotes or controls expected,
 * escaped anyway). */
static void out_jstr(Out *o, const char *s) {
    out_str(o, "\"");
    for (; *s && o->n < sizeof o->buf - 8; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            o->buf[o->n++] = '\\';
            o->buf[o->n++] = (char)c;
        } else if (c < 0x20 || c >= 0x7f) {
            out_str(o, "\\u00");
            o->buf[o->n++] = "0123456789abcdef"[c >> 4];
            o->buf[o->n++] = "0123456789abcdef"[c & 15];
        } else o->buf[o->n++] = (char)c;
    }
    out_str(o, "\"");
}

static void on_fatal(int sig, siginfo_t *si, void *uc) {
    (void)uc;
    int saved = errno;
    if (g_fd >= 0) {
        static Out o;
        static void *frames[64];
        ProgwireCrashNote note = g_note;
        if (note) {
            size_t n = note(sig, (uintptr_t)si->si_addr, o.buf, sizeof o.buf);
            if (n && n <= sizeof o.buf) write_all(g_fd, o.buf, n);
        }
        o.n = 0;
        out_str(&o, "{\"type\":\"crash\",\"signal\":");
        out_dec(&o, sig);
        out_str(&o, ",\"addr\":\"");
        out_hex(&o, (uintptr_t)si->si_addr);
        out_str(&o, "\",\"frames\":[");
        int n = backtrace(frames, 64);
        bool first = true;
        for (int i = 0; i < n; i++) {
            uintptr_t a = (uintptr_t)frames[i];
            if (a < g_exe_lo || a >= g_exe_hi) continue;
            /* return addresses point after the call; -1 lands inside it (not for the faulting frame) */
            if (!first) out_str(&o, ",");
            out_str(&o, "\"");
            out_hex(&o, a - g_exe_base - (first ? 0 : 1));
            out_str(&o, "\"");
            first = false;
        }
        out_str(&o, "],\"exe\":");
        out_jstr(&o, g_exe);
        out_str(&o, "}\n");
        write_all(g_fd, o.buf, o.n);
    }
    errno = saved;
    /* SA_RESETHAND restored the default action; the signal is blocked while
     * we run, so it is delivered (and kills) as soon as we return. A fault
     * re-executes the instruction and faults again with the default action. */
    if (si->si_code <= 0 || sig == SIGABRT) raise(sig);
}

static int find_exe(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    (void)data;
    /* the first object is the main executable */
    g_exe_base = (uintptr_t)info->dlpi_addr;
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD) continue;
        uintptr_t a = g_exe_base + ph->p_vaddr;
        if (a < lo) lo = a;
        if (a + ph->p_memsz > hi) hi = a + ph->p_memsz;
    }
    g_exe_lo = lo;
    g_exe_hi = hi;
    return 1;
}

/* Starts fn in a detached thread of 64 KiB of stack with every signal
 * blocked: the program's handlers never run there. False if it could not. */
static bool quiet_thread(void *(*fn)(void *)) {
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&a, 64 * 1024);
    pthread_t t;
    bool started = pthread_create(&t, &a, fn, NULL) == 0;
    pthread_attr_destroy(&a);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return started;
}

/* The end of a timed program's GPU work, at its exit (progwire_turn in
 * progwire.h): the drain hook (synchronise every context) runs in a thread
 * of its own, waited for at most EXIT_IDLE_WAIT_MS (a kernel that never ends
 * would hold the exit forever). True when it returned, or with no hook (the
 * emulator runtime: its work runs in its own threads, done by now). */
#define EXIT_IDLE_WAIT_MS 1000
static pthread_mutex_t g_idle_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_idle_cv = PTHREAD_COND_INITIALIZER;
static bool g_idle_done;

static void *idle_runner(void *arg) {
    (void)arg;
    g_drain_fn();
    pthread_mutex_lock(&g_idle_lock);
    g_idle_done = true;
    pthread_cond_signal(&g_idle_cv);
    pthread_mutex_unlock(&g_idle_lock);
    return NULL;
}

static bool gpu_idle_at_exit(void) {
    if (!g_drain_fn) return true;
    if (!quiet_thread(idle_runner)) return false;
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += EXIT_IDLE_WAIT_MS / 1000;
    until.tv_nsec += (EXIT_IDLE_WAIT_MS % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) until.tv_sec++, until.tv_nsec -= 1000000000L;
    pthread_mutex_lock(&g_idle_lock);
    int rc = 0;
    while (!g_idle_done && rc == 0) rc = pthread_cond_timedwait(&g_idle_cv, &g_idle_lock, &until);
    bool done = g_idle_done;
    pthread_mutex_unlock(&g_idle_lock);
    return done;
}

/* A child the program forks shares the report channel but had no turn:
 * its exit says nothing of the program's GPU work, and the worker's
 * answers are not its to read. */
static pid_t g_pid;

static void turn_after_fork(void) {
    if (g_turn_fd >= 0) close(g_turn_fd);
    g_turn_fd = -1;
    g_turn_had = 0;
    pthread_mutex_init(&g_turn_lock, NULL);     /* another thread may have held it at the fork */
}

static void on_exit_record(int code, void *arg) {
    (void)arg;
    if (g_fd < 0 || getpid() != g_pid) return;
    if (g_dropped) {
        json_t *o = json_object();
        json_object_set_new(o, "count", json_integer(g_dropped));
        progwire_send("calls_dropped", o);
    }
    json_t *o = json_object();
    json_object_set_new(o, "code", json_integer(code));
    progwire_send("exit", o);
    /* The turn's end (progwire_turn): the GPU work is done; the worker
     * answers once the GPU lock is shared again (or it is gone). */
    if (__atomic_load_n(&g_turn_had, __ATOMIC_ACQUIRE) && g_turn_fd >= 0 && gpu_idle_at_exit()) {
        ssize_t w;
        do w = send(g_turn_fd, "i", 1, MSG_NOSIGNAL);
        while (w < 0 && errno == EINTR);
        char c;
        if (w == 1)
            while (read(g_turn_fd, &c, 1) < 0 && errno == EINTR) {}
    }
    if (g_turn_fd >= 0) close(g_turn_fd);
    g_turn_fd = -1;
}

/* The descriptor the variable `name` names when it is the worker's socket,
 * made by our parent: not a descriptor that this program (a child of the
 * learner's program, which inherited the variable) opened at that number;
 * close-on-exec from now on. -1 otherwise. */
static int parent_socket(const char *name, int report_fd) {
    const char *env = getenv(name);
    if (!env || !*env) return -1;
    char *end;
    long fd = strtol(env, &end, 10);
    struct ucred cred;
    socklen_t len = sizeof cred;
    struct stat st;
    if (*end || fd < 0 || fd >= INT_MAX || fd == report_fd || fstat((int)fd, &st) != 0 || !S_ISSOCK(st.st_mode) ||
        getsockopt((int)fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 || cred.pid != getppid())
        return -1;
    fcntl((int)fd, F_SETFD, FD_CLOEXEC);
    return (int)fd;
}

/* ---- the drain (progwire.h): two threads, so that a drain that never ends
 * cannot keep the gate shut: the reader closes and opens the gate as the
 * worker says; the drainer runs the hook and answers ---- */
static int g_drain_fd = -1;
static pthread_mutex_t g_gate_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_gate_cv = PTHREAD_COND_INITIALIZER;    /* the gate opened */
static pthread_cond_t g_drain_cv = PTHREAD_COND_INITIALIZER;   /* a drain asked, or the channel gone */
static int g_gate_shut;             /* new GPU work waits (read without the lock on the fast path) */
static bool g_drain_asked, g_drain_gone;
static int g_drain_ready_said;      /* "r" was sent (before the first GPU work) */
static unsigned char g_drain_seq;   /* the number of the drain asked last */

void progwire_set_drain(ProgwireDrain fn) { g_drain_fn = fn; }

/* Sequentially consistent, as the capture count the drain hook reads after
   it (progwire_gate): a Dekker pair, shut-then-count here, count-then-gate
   in the program's thread. */
static void gate_set(bool shut) {
    __atomic_store_n(&g_gate_shut, shut, __ATOMIC_SEQ_CST);
    if (!shut) pthread_cond_broadcast(&g_gate_cv);
}

static void *drain_reader(void *arg) {
    (void)arg;
    for (;;) {
        unsigned char m[2];
        ssize_t n = recv(g_drain_fd, m, sizeof m, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        pthread_mutex_lock(&g_gate_lock);
        if (m[0] == 'y' && n == 2) {
            gate_set(true);
            g_drain_seq = m[1];
            g_drain_asked = true;
            pthread_cond_broadcast(&g_drain_cv);
        } else if (m[0] == 'o') {
            gate_set(false);
        }
        pthread_mutex_unlock(&g_gate_lock);
    }
    /* the worker is gone (or the program is ending): nothing holds work back */
    pthread_mutex_lock(&g_gate_lock);
    gate_set(false);
    g_drain_gone = true;
    pthread_cond_broadcast(&g_drain_cv);
    pthread_mutex_unlock(&g_gate_lock);
    return NULL;
}

static void *drain_runner(void *arg) {
    (void)arg;
    pthread_mutex_lock(&g_gate_lock);
    for (;;) {
        while (!g_drain_asked && !g_drain_gone) pthread_cond_wait(&g_drain_cv, &g_gate_lock);
        if (g_drain_gone) break;
        unsigned char answer[2] = {'d', g_drain_seq};
        g_drain_asked = false;
        pthread_mutex_unlock(&g_gate_lock);
        ProgwireDrain fn = g_drain_fn;
        if (fn) fn();
        ssize_t w;
        do w = send(g_drain_fd, answer, sizeof answer, MSG_NOSIGNAL);
        while (w < 0 && errno == EINTR);
        pthread_mutex_lock(&g_gate_lock);
    }
    pthread_mutex_unlock(&g_gate_lock);
    return NULL;
}

/* A child the program forks has none of the threads: its gate stays open. */
static void drain_after_fork(void) {
    g_drain_fd = -1;
    g_drain_ready_said = 1;
    g_gate_shut = 0;
    pthread_mutex_init(&g_gate_lock, NULL);    /* another thread may have held it at the fork */
    pthread_cond_init(&g_gate_cv, NULL);
}

/* Starts the two threads on `fd` (the worker's drain socket), with every
 * signal blocked in them: the program's handlers never run there. */
static void drain_start(int fd) {
    if (fd < 0) return;
    g_drain_fd = fd;
    if (!quiet_thread(drain_runner) || !quiet_thread(drain_reader)) {
        pthread_mutex_lock(&g_gate_lock);
        g_drain_gone = true;    /* a runner that started ends */
        pthread_cond_broadcast(&g_drain_cv);
        pthread_mutex_unlock(&g_gate_lock);
    } else {
        pthread_atfork(NULL, NULL, drain_after_fork);
    }
}

/* Before GPU work: says "r" the first time (from then on the program may
 * have work queued; a drain asked before, while its context was still
 * being made, would only wait for that), then waits while the gate is shut. */
static void gate_wait(void) {
    if (g_drain_fd >= 0 && !__atomic_load_n(&g_drain_ready_said, __ATOMIC_ACQUIRE) &&
        !__atomic_exchange_n(&g_drain_ready_said, 1, __ATOMIC_ACQ_REL)) {   /* a load first: no locked write per call */
        pthread_mutex_lock(&g_gate_lock);
        bool served = !g_drain_gone;
        pthread_mutex_unlock(&g_gate_lock);
        if (served) {
            ssize_t w;
            do w = send(g_drain_fd, "r", 1, MSG_NOSIGNAL);
            while (w < 0 && errno == EINTR);
        }
    }
    if (!__atomic_load_n(&g_gate_shut, __ATOMIC_SEQ_CST)) return;
    pthread_mutex_lock(&g_gate_lock);
    while (g_gate_shut) pthread_cond_wait(&g_gate_cv, &g_gate_lock);
    pthread_mutex_unlock(&g_gate_lock);
}

void progwire_gate(void) { gate_wait(); }

void progwire_init(const char *runtime) {
    pthread_mutex_lock(&g_lock);
    bool was = g_inited;
    g_inited = true;
    pthread_mutex_unlock(&g_lock);
    if (was) return;
    const char *env = getenv(PROGWIRE_ENV_FD);
    if (env && *env) {
        char *end;
        long fd = strtol(env, &end, 10);
        if (!*end && fd >= 0 && fd < INT_MAX && fcntl((int)fd, F_GETFD) >= 0) {
            g_fd = (int)fd;
            fcntl(g_fd, F_SETFD, FD_CLOEXEC); /* programs the learner starts do not inherit it */
        }
    }
    g_pid = getpid();
    if (g_fd >= 0) g_turn_fd = parent_socket(PROGWIRE_ENV_TURN_FD, g_fd);
    if (g_turn_fd >= 0) pthread_atfork(NULL, NULL, turn_after_fork);
    if (g_fd >= 0) drain_start(parent_socket(PROGWIRE_ENV_DRAIN_FD, g_fd));
    ssize_t n = readlink("/proc/self/exe", g_exe, sizeof g_exe - 1);
    g_exe[n > 0 ? n : 0] = 0;
    dl_iterate_phdr(find_exe, NULL);
    void *warm[4];
    backtrace(warm, 4);
    stack_t ss = {.ss_sp = g_altstack, .ss_size = sizeof g_altstack, .ss_flags = 0};
    sigaltstack(&ss, NULL);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fatal;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < N_FATAL; i++) sigaction(FATAL[i], &sa, NULL);
    on_exit(on_exit_record, NULL);
    snprintf(g_runtime, sizeof g_runtime, "%s", runtime ? runtime : "?");
}

void progwire_turn(void) {
    gate_wait();
    if (__atomic_load_n(&g_turn_done, __ATOMIC_ACQUIRE)) return;
    /* Every thread that gets here first waits for the one answer. */
    pthread_mutex_lock(&g_turn_lock);
    if (!g_turn_done) {
        if (g_turn_fd >= 0) {
            progwire_send("turn", NULL);
            char c;
            ssize_t got;
            do got = read(g_turn_fd, &c, 1);
            while (got < 0 && errno == EINTR);   /* 0 (the worker is gone) or an error: go on */
            if (got == 1) __atomic_store_n(&g_turn_had, 1, __ATOMIC_RELEASE);   /* kept for the exit's answer */
            else {
                close(g_turn_fd);
                g_turn_fd = -1;
            }
        }
        __atomic_store_n(&g_turn_done, 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&g_turn_lock);
}

void progwire_hello(const char *device) {
    json_t *o = json_object();
    json_object_set_new(o, "runtime", json_string(g_runtime));
    json_object_set_new(o, "pid", json_integer(getpid()));
    json_object_set_new(o, "device", progwire_string(device ? device : ""));
    json_object_set_new(o, "exe", progwire_string(g_exe));
    progwire_send("hello", o);
}
