/* kernels/program_internal.h: pieces of the whole-program path shared
 * between the kernels/program_*.c files, kernels/doctor.c and the tests.
 * Not part of the engine's interface (that is kernels/program.h). */
#ifndef CUDOJO_KERNELS_PROGRAM_INTERNAL_H
#define CUDOJO_KERNELS_PROGRAM_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "base/diag.h"
#include "kernels/gpu_lock.h"
#include "kernels/program.h"

/* ---- running a helper tool (nvcc, addr2line): program_proc.c ---- */

typedef struct ProcCapture {
    char *out;                      /* stdout and stderr interleaved, NUL-terminated (caller frees) */
    size_t len;
    int status;                     /* exit status; -1 when killed or not started */
    bool timed_out;
    bool started;                   /* false: execve failed (errno in `exec_errno`) */
    int exec_errno;
} ProcCapture;

/* Runs argv[0] (an absolute path) with `envp` (NULL = this process's
 * environment) in `cwd` (NULL = here), in its own process group, stdin
 * /dev/null, stdout+stderr captured up to `cap` bytes; after `timeout_s`
 * the whole group is killed. Returns a Diag only when it could not try. */
Diag *proc_capture(const char *const *argv, const char *const *envp, const char *cwd, double timeout_s,
                   size_t cap, ProcCapture *out);
/* The same, with the child shut in by `limits` (program_sandbox_enter,
 * after its descriptors are set up; NULL = none) before execve. */
struct ChildLimits;
Diag *proc_capture_limited(const char *const *argv, const char *const *envp, const char *cwd, double timeout_s,
                           size_t cap, const struct ChildLimits *limits, ProcCapture *out);
void proc_capture_fini(ProcCapture *c);
/* The first executable `name` in $PATH, or NULL; caller frees. */
char *proc_find_in_path(const char *name);
/* rm -rf `dir` (does not follow symlinks); best effort. */
void proc_remove_tree(const char *dir);
/* Monotonic milliseconds. */
double proc_now_ms(void);
/* Process `pid`'s state letter (R, S, T, Z, ...) and parent from
 * /proc/PID/stat (either may be NULL); false when it is not there. */
bool proc_stat(long pid, char *state, long *ppid);
/* In a child between fork and exec (async-signal-safe): SIGKILL when the
 * process that forked it (pid `parent`, taken before the fork) dies, so a
 * killed worker leaves no program or compiler running; _exit(127) when it is
 * already gone. The child's own process group does not get the signal. */
void proc_die_with_parent(pid_t parent);

/* ---- running under a tool: program_tool.c ---- */

typedef struct ToolRun {
    char **argv;                    /* the tool's argv ("{out}" replaced), the program, its args; NULL-ended */
    int argc;
    int exe_at;                     /* where the program is in argv */
    char *dir;                      /* where the tool's output goes */
    bool own_dir;                   /* a private temporary directory, removed by program_tool_fini */
    char *name, *out_path;          /* the output file's name and absolute path */
    size_t cap;                     /* bytes of it read back */
} ToolRun;

/* Builds the child's argv for running `exe args...` under `t`, and the
 * output directory. Returns a Diag when it cannot (no absolute path, a bad
 * file name, no temporary directory). Free with program_tool_fini. */
Diag *program_tool_prepare(const ProgramTool *t, const char *exe, const char *const *args, int n_args,
                           ToolRun *tr);
/* Puts `prefix` (NULL-ended, copied) in front of the program in tr->argv:
 * the trampoline that cages it (program_confine.c). */
void program_tool_wrap(ToolRun *tr, char *const *prefix);
/* After the run: the tool's output file into r->tool_output. */
void program_tool_collect(const ToolRun *tr, ProgramResult *r);
void program_tool_fini(ToolRun *tr);

/* ---- nvcc's output: program_log.c ---- */

/* Turns nvcc's output (cudafe/EDG, gcc, ld, ptxas, nvlink, nvcc itself)
 * into Diags in the learner's file: errors are returned, warnings in the
 * learner's file go to *warnings. `workdir` is the private directory nvcc
 * ran in: any path under it is shown as the part after it, and nvcc's own
 * temporary files are never named. `rc` is nvcc's exit status: non-zero
 * with nothing parseable still gives an error quoting the output. */
Diag *program_log_parse(const char *log, const char *display, const char *source, const char *workdir,
                        int rc, Diag **warnings);
/* Whether `file` (from DWARF, a PTX .file or a finding) names the learner's
 * `display` file: equal, or `display` (relative) compiled under some
 * directory ("/tmp/cudojo-nvcc-x/hello/a.cu" names "hello/a.cu"). */
bool program_path_is(const char *file, const char *display);

/* ---- the executable cache: program_cache.c ---- */

/* Moves the executable `built` into cache `dir` as entry `key` (file
 * `name`, with `warnings`); returns its path there (caller frees), or
 * NULL when it could not (then `built` stays where it was). */
char *program_cache_publish(const char *dir, const char *key, const char *built, const char *name,
                            const Diag *warnings);
/* The warnings stored with cache entry directory `entry`; caller frees. */
Diag *program_cache_warnings(const char *entry);
/* Drops the least recently used entries and dead work directories (and
 * entry locks unused for as long). */
void program_cache_prune(const char *dir);
/* Takes entry `key`'s lock in cache `dir` (<dir>/<key>.lock, flock: a
 * process that dies lets go), waiting up to max_wait_ms for whoever holds
 * it; *waited_ms says how long it waited (0: it was free). Returns the lock's descriptor,
 * or -1 when it could not be taken in time (or at all): go on without. */
int program_cache_lock(const char *dir, const char *key, double max_wait_ms, double *waited_ms);
/* Lets go of entry `key`'s lock that program_cache_lock took (fd -1:
 * none), removing its file once the entry is `published`; sets *fd to -1. */
void program_cache_unlock(const char *dir, const char *key, int *fd, bool published);

/* ---- the child's environment: program_env.c ---- */

/* The descriptor the report pipe has in the child (CUDOJO_REPORT_FD). */
#define PROGRAM_REPORT_FD 3
/* The descriptor the worker answers a "turn" record on (CUDOJO_TURN_FD):
 * only for a timed program that starts beside untimed GPU work and asks to
 * be alone on the GPU before its first GPU work (program_run.c). */
#define PROGRAM_TURN_FD 5
/* The worker's drain channel (CUDOJO_DRAIN_FD, progwire.h): for a program
 * that holds the GPU lock shared and steps aside for timed sections, so
 * that the GPU work it queued is done before it is stopped (program_run.c). */
#define PROGRAM_DRAIN_FD 6

/* "libcudart.so.13" for the toolkit cudojo was built with. Static. */
const char *program_cudart_soname(void);
/* What program_env_build adds for a run (program_run.c). */
enum {
    PROGRAM_ENV_TURN = 1,       /* CUDOJO_TURN_FD */
    PROGRAM_ENV_DRAIN = 2,      /* CUDOJO_DRAIN_FD */
    PROGRAM_ENV_ONE_QUEUE = 4,  /* CUDA_DEVICE_MAX_CONNECTIONS=1 (program_one_stream), unless the kept
                                   environment sets it */
};
/* CUDOJO_STREAM_QUEUES (its value v; NULL: unset): the hardware work
 * queues (CUDA_DEVICE_MAX_CONNECTIONS) of a program on the GPU runtime that
 * may use more than one stream, 1 to 32; 0 (unset or anything else): the
 * driver's (8). A knob to measure: on the H200 (session 19 call 4) 16
 * trivial programs started at once took 2.8 s each with the driver's
 * queues, 1.1 s with one (one run each, noisy), the making of a context's
 * queues being serial in the driver; fewer than the streams a program runs
 * side by side would put two of its streams on one queue (false
 * dependencies), so the default stays the driver's. */
int program_stream_queues_of(const char *v);
/* The child's environment for `o`, run in `cwd`, with what `flags` adds:
 * a NULL-terminated array (free with program_env_free). */
char **program_env_build(const ProgramRunOptions *o, const char *cwd, unsigned flags);

/* ---- the program's ELF image: program_elf.c ---- */

/* Section `name` of the 64-bit ELF image buf[0..len), or NULL; every
 * offset checked (the executable was built from a stranger's source). */
const unsigned char *program_elf_section(const unsigned char *buf, size_t len, const char *name, size_t *size);
/* Whether the program `exe` can only ever use one stream per device (its
 * imports and libraries say so: program_elf.c); false when unsure. */
bool program_one_stream(const char *exe);
void program_env_free(char ***envp);
/* This process's environment with the n "NAME=value" entries of `set` in
 * place of any of the same name (a confined nvcc's TMPDIR, MPS's
 * directories for its control program). Free the array only: its strings
 * are environ's and the caller's. */
char **program_env_with(char *const *set, int n);

/* ---- the child's cage: program_sandbox.c ---- */

typedef struct ChildLimits {
    long cpu_s;                     /* RLIMIT_CPU soft; the hard limit is one more */
    long long fsize;                /* RLIMIT_FSIZE bytes */
    long long as_bytes;             /* RLIMIT_AS; 0 = leave alone */
    long nproc;                     /* RLIMIT_NPROC; 0 = leave alone (root ignores it anyway) */
    bool no_fork;                   /* the seccomp filter against fork/vfork/clone (and the rest
                                       of program_sandbox.c's list) */
    bool compiler;                  /* the same filter for a compiler's pipeline (nvcc): it may fork;
                                       signals only to its own process group and to processes that
                                       are not `ancestors` (its worker and grader) nor -1 */
    pid_t ancestors[2];             /* with `compiler`: the pids it may not signal (0 = none) */
    bool no_unix;                   /* the filter also refuses Unix sockets (AF_UNIX): a graded
                                       program on the emulator runtime, which needs none */
    bool confine;                   /* Landlock: only read_paths and write_paths */
    int landlock_abi;               /* program_sandbox_landlock_abi(), taken before the fork */
    const char *const *read_paths;  /* read, list and execute beneath these (NULL-ended) */
    const char *const *write_paths; /* and everything beneath these */
    int nice;                       /* added to the child's niceness (0 = none): a graded compile
                                       yields the CPU to a timed program's host thread */
} ChildLimits;

/* In the forked child before execve: async-signal-safe only. Sets the
 * rlimits, then PR_SET_NO_NEW_PRIVS and the seccomp filter that makes
 * fork, vfork and clone without CLONE_THREAD fail with EAGAIN (clone3 with
 * ENOSYS, so glibc falls back to clone). Returns false when the filter
 * or Landlock could not be installed (the rlimits still are): a confined
 * or compiler child then does not execve (program_run.c, program_proc.c). */
bool program_sandbox_enter(const ChildLimits *l);
/* ---- a program under a tool, in its cage: program_confine.c ---- */

/* `helper` and the options that carry `l` (NULL-ended, ending in "--"):
 * the program and its arguments go after them. Free with
 * program_confine_args_free. */
char **program_confine_args(const char *helper, const ChildLimits *l);
void program_confine_args_free(char ***pv);
/* The trampoline's side: reads argv into *l (its path lists into
 * *read_paths and *write_paths, free with program_confine_args_free) and
 * returns the index of the program in argv; -1 with a message in `err`. */
int program_confine_parse(int argc, char **argv, ChildLimits *l, char ***read_paths, char ***write_paths,
                          char *err, size_t err_len);

/* The paths a confined program of `o` may read and write (NULL-ended
 * arrays, free with program_sandbox_paths_free): program_run.c. */
void program_sandbox_paths(const ProgramRunOptions *o, const char *exe, const char *cwd, char ***read_paths,
                           char ***write_paths);
void program_sandbox_paths_free(char ***read_paths, char ***write_paths);
/* The paths a confined compile may read and write: the system's programs,
 * libraries and headers (/usr/include), the toolkit (CUDA_HOME and the one
 * holding `nvcc`), CUDOJO_SANDBOX_READ; writes only in `workdir` (where
 * the source's copy is and nvcc's TMPDIR points) and /dev/null. Free with
 * program_sandbox_paths_free. */
void program_sandbox_compile_paths(const char *nvcc, const char *workdir, char ***read_paths, char ***write_paths);
/* The address-space limit of one compiler process of a confined compile
 * (RLIMIT_AS; nvcc's cicc maps ~1 GiB for a small file):
 * CUDOJO_COMPILE_AS_MB, default 4096 MiB (also when the value is not one
 * program_env_mib takes: a compile refuses to start then). NVRTC, which runs inside the
 * worker, gets this much above what the worker had mapped (compile.c). */
long long program_sandbox_compile_as_bytes(void);
/* The largest amount program_env_mib takes: 16 TiB, far past any machine,
 * far below where `<< 20` or adding what is mapped would overflow. */
#define PROGRAM_ENV_MIB_MAX (1ll << 24)
/* Sets *bytes to the MiB environment variable `name` holds, or def_mib if
 * it is unset or empty. Anything but a whole number from 1 to
 * PROGRAM_ENV_MIB_MAX is an error naming the variable (*bytes: def_mib). */
Diag *program_env_mib(const char *name, long long def_mib, long long *bytes);
/* A value for RLIMIT_NPROC: the tasks this user runs now plus `headroom`
 * (threads count against it). 0 as root. */
long program_sandbox_nproc(long headroom);

/* ---- a program's turn on the GPU: program_turn.c, program_group.c ---- */

/* What the worker's thread knows of its program's turn (program_run.c's
 * header says what a turn is). */
typedef struct Turn {
    GpuLock *lock;                  /* held shared until the turn */
    int fd;                         /* the worker's end of the channel; -1 = none or answered */
    double waited_ms;               /* waiting for the exclusive lock, at the start barrier, and
                                       paused (yields) */
    bool yields;                    /* stopped while a timed section waits for its shared hold */
    double next_look_ms;            /* when to look at the turnstile again */
    ProgramGroupTurn *group;        /* a member of a group's turn (program.h); NULL = alone */
    int member;                     /* its place in the group (ProgramRunOptions.group_member) */
    double group_paused_seen;       /* the group's pauses this member has counted */
    double barrier_counted;         /* the ms of its wait at the start barrier counted so far */
    int drain_fd;                   /* the worker's end of the drain channel; -1 = none */
    bool drain_ready;               /* the program's runtime serves it (said "r") */
    unsigned char drain_seq;        /* the number of the last drain asked */
    double drain_wait_ms;           /* how long a yield waits for the program's GPU work */
    bool granted;                   /* the turn was answered: the lock is exclusive */
    bool idle_said;                 /* the child wrote "i" at its exit: its GPU work is done */
    bool exit_answered;             /* the answer to that was sent (turn_rest), or the channel closed */
    double freed_at_ms;             /* CUDOJO_GPU_REST_AT_EXIT=free: when turn_rest let go of the lock;
                                       0 = it did not (supervise takes it shared again if the program
                                       outlives TEARDOWN_NO_YIELD_MS) */
} Turn;

/* Where a member is on its way to the group's start barrier. */
typedef enum GroupMemberState {
    GROUP_MEMBER_COMING = 0,        /* may still ask for its turn */
    GROUP_MEMBER_ASKED,             /* asked ("turn", before its first GPU work) */
    GROUP_MEMBER_GONE,              /* will not ask: it exited first, or never started */
} GroupMemberState;

/* A group's turn (program.h): one lock and one start barrier for its
 * members' threads; everything indexed by the member's place. */
struct ProgramGroupTurn {
    pthread_mutex_t mu;             /* over everything below and the lock */
    GpuLock *lock;
    int members;                    /* how many the barrier waits for */
    double barrier_ms;              /* its bound after the first ask; 0 = no barrier */
    pid_t pids[PROGRAM_MAX_PROCESSES];  /* members running (0 = not, or no longer) */
    Turn *turns[PROGRAM_MAX_PROCESSES]; /* their threads' turns while they run */
    bool idle[PROGRAM_MAX_PROCESSES];   /* that member said its GPU work is done (turn_rest) */
    GroupMemberState state[PROGRAM_MAX_PROCESSES];
    bool answered[PROGRAM_MAX_PROCESSES];   /* its turn was answered */
    double asked_at[PROGRAM_MAX_PROCESSES], answered_at[PROGRAM_MAX_PROCESSES];  /* ms */
    double asked_paused[PROGRAM_MAX_PROCESSES], answered_paused[PROGRAM_MAX_PROCESSES];  /* paused_ms then */
    int asked, gone;                /* members in those states */
    double first_ask_ms, first_ask_paused;  /* when the first asked, and paused_ms then */
    bool open;                      /* the barrier opened: a turn asked from now on is answered at once */
    bool rested;                    /* every member was idle: the lock went back to shared */
    double paused_ms;               /* every member was stopped this long in all (yields, the grant) */
};

/* How often a shared holder looks for a waiting timed section (ms). */
int turn_yield_look_ms(void);
/* CUDOJO_GPU_DRAIN_MS, or its default: how long a yield waits for an
 * untimed program's queued GPU work. */
Diag *turn_drain_wait_ms(double *ms);
/* Sends `sig` to the child's process group and to every descendant of it
 * outside that group. */
void turn_signal_tree(pid_t pid, int sig);
/* One byte to the child on the turn channel (no SIGPIPE if it is gone). */
void turn_answer(int fd);
/* A lone program's turn: the shared lock exchanged for the exclusive one,
 * the child answered. Returns the milliseconds it waited. */
double turn_grant(Turn *t);
/* The end of a timed program's (or member's, once group_turn_rest says
 * so) time alone, once it said "i". */
double turn_rest(Turn *t);
/* A lone shared holder steps aside for a waiting timed section. */
double turn_yield(Turn *t, pid_t pid);
/* Whether CUDOJO_GPU_REST_AT_EXIT leaves resting at the exit on. */
bool turn_rest_at_exit(void);
/* Whether CUDOJO_GPU_REST_AT_EXIT=free lets go of a lone program's lock at
 * its exit (turn_rest; a group's goes back to shared as before). */
bool turn_rest_frees(void);
/* Exclusive to shared, behind a waiting timed section; the ms it took. */
double turn_rest_swap(GpuLock *l);

/* The group's side (program_group.c). Under g->mu, taken before the fork:
 * the member is on the list before any grant can stop the members. */
void group_turn_enter_locked(Turn *t, pid_t pid);
/* Its process ended (not yet reaped): it asks for no turn from now on. */
void group_turn_exited(Turn *t);
/* Before it is reaped: off the list. */
void group_turn_leave(Turn *t, pid_t pid);
/* Whether the group holds the lock shared (its turn is still to come). */
bool group_turn_shared(ProgramGroupTurn *g);
/* Whether its members wait for each other at their first GPU work. */
bool group_turn_has_barrier(const ProgramGroupTurn *g);
/* A member asked for its turn: counted at the barrier; answered (with
 * the group alone on the GPU when it holds the lock) once the barrier
 * opens; t->granted then. Called at each look until then; returns the
 * milliseconds it waited since the last call (for its deadline). */
double group_turn_ask(Turn *t);
/* A member said its GPU work is done: true once it may be answered. */
bool group_turn_rest(Turn *t);
/* Stops every member while a waiting timed section runs. */
void group_turn_yield(Turn *t);
/* The group's pauses since this member last looked. */
double group_turn_pauses(Turn *t);

/* ---- the report pipe: program_report.c ---- */

typedef struct ReportReader {
    char *line;                     /* the partial line so far */
    size_t len, cap;
    bool skipping;                  /* inside a line past the per-line cap */
    size_t total;                   /* bytes taken, for the total cap */
    bool truncated;                 /* some report data was thrown away */
    int n_findings;
    bool turn_asked;                /* a "turn" record came (progwire.h) */
    bool exit_said;                 /* an "exit" record came: the program is past its exit */
    /* the crash record, for after the exit */
    int crash_signal;
    char *crash_addr;
    char **crash_frames;
    int n_crash_frames;
} ReportReader;

void report_reader_init(ReportReader *rr);
void report_reader_fini(ReportReader *rr);
/* Feeds bytes read from the pipe; whole lines become records in *res. */
void report_reader_feed(ReportReader *rr, const char *data, size_t n, ProgramResult *res,
                        const ProgramRunOptions *opts);
/* After the child ended: the partial last line, the crash place (addr2line
 * on `exe`), limits hit. */
void report_reader_finish(ReportReader *rr, ProgramResult *res, const ProgramRunOptions *opts,
                          const char *exe);
/* Parses one record (a JSON object) into *res; false when it is not one. */
bool report_apply_line(ReportReader *rr, const char *line, size_t len, ProgramResult *res,
                       const ProgramRunOptions *opts);
/* The "host-crash" Diag for a program killed by a signal: the place from
 * the crash record when addr2line finds one in the learner's file
 * (program_crash.c). Caller frees. */
Diag *program_crash_diag(const ReportReader *rr, const ProgramResult *res, const ProgramRunOptions *o,
                         const char *exe);
/* "SIGSEGV" and "segmentation fault" for a signal number. Static strings. */
const char *program_signal_name(int sig);
const char *program_signal_meaning(int sig);

#endif
