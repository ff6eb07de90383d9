/* kernels/program.h: whole CUDA programs — the learner's main(), host code,
 * <<<...>>> and any CUDA runtime call — compiled by nvcc and run as a child
 * process of the worker, on the GPU's libcudart or on cudojo's emulator
 * runtime (kernels/emurt/, our libcudart.so.<major> over the emulator).
 *
 * program_compile (kernels/program_compile.c): nvcc is found the way NVRTC
 * is (CUDA_HOME, /usr/local/cuda, PATH). Options: -lineinfo, host line
 * tables (gcc -g1), -cudart shared; device code: PTX for compute_80, or
 * with `sass_arch` PTX and SASS for it (compute_90 + sm_90 on an H200;
 * compute_80 PTX + SASS past sm_90, the newest PTX the emulator runs). The
 * executable is cached under $XDG_CACHE_HOME/cudojo/nvcc keyed by the
 * SHA-256 of (source, display path, options, nvcc version); nvcc's and the
 * host compiler's errors come back as Diags in the learner's file (line,
 * column, caret excerpt), never a temp path.
 *
 * program_run (kernels/program_run.c): the child gets its own process
 * group, a fresh temporary directory as cwd (the input files written there
 * first), rlimits (CPU seconds, address space on the emulator, file size,
 * processes), the timeout, stdout/stderr captured up to a cap. The runtime
 * library inside the child reports over a pipe (kernels/progwire.h); what
 * it says becomes the ProgramResult. Nothing the child does can take the
 * worker down: a crash, a hang, a fork bomb or a flood of output all end
 * in a result that says what happened. */
#ifndef CUDOJO_KERNELS_PROGRAM_H
#define CUDOJO_KERNELS_PROGRAM_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "kernels/backend.h"
#include "kernels/gpu_lock.h"
#include "kernels/timeline.h"

/* ---- compiling ------------------------------------------------------------ */

typedef struct ProgramCompileOptions {
    int sass_arch;                  /* SASS for sm_XX too (90 on an H200), beside compute_XX PTX up
                                       to 90; 0 = compute_80 PTX only */
    const char *const *defines;     /* "N=1000" → -DN=1000 */
    int n_defines;
    const char *cache_dir;          /* NULL = default XDG cache; "" = no cache */
    bool confine;                   /* a stranger's source (grading): nvcc and its pipeline run shut in
                                       (program_sandbox.c: Landlock reads the system and the toolkit,
                                       writes only the compile's folder; seccomp; address space and
                                       CPU limits), unless CUDOJO_SANDBOX=off */
    int nice;                       /* the compiler processes' niceness added to the caller's; a confined
                                       compile takes at least 10 (0 = that, or none unconfined). Not part
                                       of the cache key: `cudojo grade` compiles ahead at 15 what its
                                       workers, at 10, then find in the cache */
} ProgramCompileOptions;

typedef struct CompiledProgram {
    char *exe;                      /* absolute path of the executable (in the cache; do not delete) */
    char *display_path;             /* the learner's file as shown in messages */
    Diag *warnings;                 /* nvcc/host compiler warnings in the learner's file */
    bool cache_hit;                 /* also when another compile of the same key, which this one
                                       waited for (wait_ms), built it */
    double compile_ms;
    double wait_ms;                 /* waited for another process or thread compiling the same key */
    char *temp_dir;                 /* set when not cached: the directory holding exe, which
                                       compiled_program_free removes */
} CompiledProgram;

/* Compiles `source` (the text of display_path). On error returns the Diag
 * chain and *out is NULL; a missing nvcc is a Diag with code "no-nvcc"
 * saying what to install. Caller frees *out. A miss takes the cache
 * entry's lock (<cache>/<key>.lock) around its compile and publish: a
 * compile of the same key in another process or thread at that moment is
 * waited for (up to PROGRAM_COMPILE_WAIT_S) and its entry taken, so nvcc
 * runs once. Safe to call from several threads once program_nvcc_path,
 * program_nvcc_version and program_sandbox_landlock_abi have been called
 * (they fill static caches) and while nobody changes the environment. */
Diag *program_compile(const char *display_path, const char *source, const ProgramCompileOptions *opts,
                      CompiledProgram **out);
/* The longest a compile waits for another one of the same key before it
 * runs nvcc itself (a holder starved of CPU, or a slow one). */
#define PROGRAM_COMPILE_WAIT_S 10.0
void compiled_program_free(CompiledProgram **p);
/* nvcc's absolute path, or NULL when there is none. Static storage. */
const char *program_nvcc_path(void);
/* "13.0" (from nvcc --version), or NULL. Static storage. */
const char *program_nvcc_version(void);
/* The options program_compile gives nvcc for `o` (NULL = defaults), less
 * "-o EXE FILE": a NULL-terminated array (bench/bench_nvcc.c times them).
 * Caller frees with program_nvcc_options_free. */
char **program_nvcc_options(const ProgramCompileOptions *o);
void program_nvcc_options_free(char ***v);

/* ---- running -------------------------------------------------------------- */

typedef enum ProgramRuntime {
    PROGRAM_RT_EMU = 0,             /* cudojo's libcudart over the emulator */
    PROGRAM_RT_CUDA,                /* NVIDIA's libcudart + cudojo's CUPTI injection */
} ProgramRuntime;

typedef struct ProgramFile {
    char *name;                     /* one path component, no "/" and no ".." */
    unsigned char *data;
    size_t size;
} ProgramFile;

/* Running the program under a tool (compute-sanitizer, ncu, nsys): the
 * child is `argv[0] argv[1..argc-1] PROGRAM ARGS...`, in the program's cwd,
 * with the program's environment (a tool passes it on to the program it
 * starts), the same timeout, output capture and process group (killing the
 * group kills the tool and the program). Under a tool the anti-fork filter
 * is off (the tool must start the program; RLIMIT_NPROC still holds).
 *
 * Every "{out}" inside an argument becomes the absolute path of the tool's
 * output file: out_name in out_dir. After the run that file (and, when it
 * is absent, the first file in out_dir whose name starts with out_name:
 * nsys and ncu add their own extension) is read back into
 * ProgramResult.tool_output, up to out_cap bytes.
 *
 * cudojo's CUPTI injection (calls, kernels, timeline) is left out on a GPU
 * unless keep_inject: compute-sanitizer, ncu and nsys inject their own
 * library, and CUPTI takes one subscriber at a time. On the emulator
 * runtime the tool process itself gets LD_PRELOAD of cudojo's libcudart:
 * cudojo runs NVIDIA's tools only on a GPU. */
typedef struct ProgramTool {
    const char *const *argv;        /* the tool and its options; argv[0] an absolute path */
    int argc;
    const char *out_dir;            /* the caller's directory for the output file (kept: the caller
                                       reads and removes it); NULL = a private temporary one, removed
                                       after the file is read back */
    const char *out_name;           /* the output file's name in out_dir; NULL = "tool.out" */
    size_t out_cap;                 /* bytes read back into tool_output; 0 = 16 MiB */
    bool keep_inject;               /* keep cudojo's CUPTI injection under the tool */
} ProgramTool;

typedef struct ProgramRunOptions {
    ProgramRuntime runtime;
    const char *const *args;        /* argv[1..]; argv[0] is the executable */
    int n_args;
    const void *stdin_data;         /* NULL = /dev/null */
    size_t stdin_size;
    const ProgramFile *files;       /* written into the child's cwd before it starts */
    int n_files;
    const char *const *want_files;  /* read back from the cwd after it ends */
    int n_want;
    double timeout_s;               /* wall clock; 0 = 10 s */
    double cpu_s;                   /* RLIMIT_CPU; 0 = timeout_s + 5 */
    size_t output_cap;              /* bytes kept per stream (the rest counted); 0 = 1 MiB */
    int emu_devices;                /* emulated devices (cudaGetDeviceCount); 0 = 1 */
    const EmuOptions *emu;          /* the emulator's options; NULL = defaults */
    const char *display_path;       /* the learner's file, for host crash lines; may be NULL */
    const char *source;             /* its text, for excerpts; may be NULL */
    volatile int *cancel;           /* set non-zero (another thread) to kill the child; may be NULL */
    int tee_out, tee_err;           /* also copy the child's stdout/stderr here as it comes
                                       (cudojo exec); -1 = no (the zero value 0 means fd 0: set both) */
    bool keep_env;                  /* pass the caller's environment (cudojo exec); else a minimal one */
    const char *cwd;                /* run in this directory (cudojo exec: the user's), not a fresh
                                       temporary one; NULL = fresh (removed afterwards) */
    bool inherit_stdin;             /* the child reads the caller's stdin (cudojo exec); overrides
                                       stdin_data */
    const ProgramTool *tool;        /* run it under this tool; NULL = directly */
    const char *const *extra_env;   /* "NAME=value" added to the child's environment (MPS's
                                       directories); may be NULL */
    int n_extra_env;
    bool gpu_lock_held;             /* the caller holds the GPU lock (several processes at once) */
    struct ProgramGroupTurn *group_turn;   /* with gpu_lock_held: the caller's lock is this group's,
                                       held shared until the group's turn, and the members start
                                       their GPU work together (program_group.c); NULL = the
                                       caller's hold is as it is */
    int group_member;               /* with group_turn: this member's place, 0..members-1 */
    bool gpu_shared;                /* on a GPU, nobody reads the program's times: it holds the GPU
                                       lock shared, beside other untimed work (gpu_lock.h); false =
                                       exclusive, alone on the GPU (timed, the default) */
    bool gpu_profiler;              /* under Nsight Compute: the GPU lock shared, one profiler at a
                                       time (GPU_LOCK_PROFILER); overrides gpu_shared */
    bool emu_no_peer;               /* emulated devices cannot reach each other's memory */
    bool confine;                   /* a stranger's program (grading): Landlock shuts it in its run
                                       folder and the system's libraries (program_sandbox.c); not
                                       under a tool, nor with CUDOJO_SANDBOX=off */
} ProgramRunOptions;

typedef struct ProgramResult {
    bool started;                   /* the child ran main() (false: exec failed) */
    int exit_code;                  /* valid when !signaled && !timed_out */
    bool signaled;
    int signal;                     /* the signal that ended it */
    bool timed_out;
    bool cancelled;
    double wall_ms;
    char *out;                      /* stdout, NUL-terminated, up to the cap */
    size_t out_len, out_total;      /* kept / produced */
    char *err;                      /* stderr likewise */
    size_t err_len, err_total;
    ProgramFile *files;             /* the want_files that exist (a missing one is absent) */
    int n_files;
    char *runtime_name;             /* from the hello record: "emu", "cuda"; NULL if none came */
    char *device;                   /* the device the program saw */
    json_t *calls;                  /* array of the call records (fn, args, stream, rc, error, t_us) */
    long calls_dropped;
    json_t *kernels;                /* array of the kernel records */
    json_t *um;                     /* array of the managed-memory records ("um": phase, kernel,
                                       gpu_faults, cpu_faults, h2d, d2h); NULL when none came */
    Timeline *timeline;             /* NULL when the program sent none */
    Diag *findings;                 /* emulator findings, the crash place, unimplemented calls,
                                       limits hit: in the learner's file where known */
    bool touched_gpu;               /* at least one CUDA runtime call */
    char *tool_output;              /* under a tool: its output file, NUL-terminated; NULL when it
                                       wrote none */
    size_t tool_output_len;         /* bytes kept (at most the tool's out_cap) */
    bool tool_output_truncated;     /* the file was longer */
    long long disk_bytes;           /* > 0: the program filled its run folder (and files it held open
                                       after deleting them) past the limit, and was killed; that much
                                       was counted (CUDOJO_RUN_DISK_MB, default 1024) */
} ProgramResult;

/* Runs `exe` and fills *out (caller frees with program_result_fini, also
 * after an error). Returns a Diag only when the run could not be attempted
 * (no emulator runtime library, cannot make the temp dir, a bad file name);
 * everything the program itself does is in *out. */
Diag *program_run(const char *exe, const ProgramRunOptions *opts, ProgramResult *out);
void program_result_fini(ProgramResult *r);
/* One line saying how the program ended: "exited with status 0",
 * "was killed by SIGSEGV (segmentation fault) at vector-add.cu:31 (host code)",
 * "did not finish within 10 s (killed)". Caller frees. */
char *program_result_ending(const ProgramResult *r);
/* The Landlock ABI this kernel offers to confine a program (ProgramRunOptions.confine);
 * 0: none, a confined program can still read every file the user can. */
int program_sandbox_landlock_abi(void);
/* Where the emulator runtime library lives (the directory holding
 * libcudart.so.<major>), NULL when it was not built/bundled. Static. */
const char *program_emurt_dir(void);
/* The libraries the program `exe` needs that call NVIDIA's driver
 * themselves (cuBLAS, cuFFT, cuRAND's host API, the driver API's libcuda...:
 * kernels/program_elf.c), as "libcublas.so.13, libcuda.so.1"; NULL when
 * none. On the emulator runtime, which stands in for libcudart only, their
 * calls fail. Caller frees. */
char *program_driver_libraries(const char *exe);
/* Where the CUPTI injection library lives (its full path), or NULL. Static. */
const char *program_inject_path(void);
/* cudojo-confine, the trampoline a tool (compute-sanitizer, ncu, nsys)
 * runs in front of a program to shut it in (kernels/program_confine.c),
 * found like the injection library: CUDOJO_CONFINE_DIR, beside the
 * binary, the build; NULL when there is none. */
const char *program_confine_helper(void);
/* A toolkit tool's absolute path ("compute-sanitizer", "ncu", "nsys"):
 * $CUDA_HOME/bin, /usr/local/cuda/bin, /opt/cuda/bin, then $PATH; NULL when
 * there is none. Caller frees. */
char *program_find_tool(const char *name);

/* ---- several processes at once, with or without MPS: program_mps.c ------- */

#define PROGRAM_MAX_PROCESSES 8

/* Copies of a timed program run together (program_run_processes) take
 * their turn alone on the GPU as one, and start their GPU work together
 * (kernels/program_group.c): each member waits before its first GPU work
 * until every member got there or will not (it exited first), or 2 s
 * (CUDOJO_GROUP_BARRIER_MS) passed; then all go at once. The group holds
 * the GPU lock shared (their exec, cuInit, contexts and an MPS server's
 * start beside other graders' untimed work) until then; it takes it
 * exclusive before it lets them go, with the members that are not waiting
 * stopped (SIGSTOP: no GPU work of theirs runs with no lock held). A
 * member that asks later is answered at once. While the group holds the
 * lock shared, a timed section that waits stops every member (a yield).
 * Without the lock (a workbench) the start barrier alone. */
typedef struct ProgramGroupTurn ProgramGroupTurn;
/* A group of `members` (1..PROGRAM_MAX_PROCESSES) over `lock`, which the
 * caller holds (shared, for a turn to come; or not at all: the lock is
 * off) and releases after the members end. */
ProgramGroupTurn *program_group_turn_new(GpuLock *lock, int members);
/* Member `member` will ask for no turn (its run ended or never started):
 * the others stop waiting for it. Idempotent; a member that asked stays
 * counted as one that did. */
void program_group_turn_gone(ProgramGroupTurn *g, int member);
void program_group_turn_free(ProgramGroupTurn **g);

typedef struct ProgramMps {
    bool requested;                 /* mps = true */
    bool running;                   /* a private MPS control daemon served the processes (GPU) */
    bool modeled;                   /* the emulator: the processes' combined timeline is the model's */
    char why[512];                  /* requested but not running: why ("MPS is not available here: ...") */
} ProgramMps;

/* Runs `n` (1..PROGRAM_MAX_PROCESSES) copies of `exe` at the same time,
 * each as program_run would (its own folder, result, timeout), every "{process}"
 * in an argument replaced by its index (0..n-1) and "{processes}" by n.
 * With `mps` on a GPU a private MPS control daemon is started first
 * (nvidia-cuda-mps-control -d, or $CUDOJO_MPS_CONTROL, with
 * CUDA_MPS_PIPE_DIRECTORY and CUDA_MPS_LOG_DIRECTORY in a fresh temporary
 * folder, given to the processes too) and stopped after them ("quit"),
 * also when they fail; when it cannot start, the processes run without it
 * and mps_out->why says so. On the emulator nothing is started: the
 * combined timeline models it (program_processes_timeline). results[i] is
 * filled for every i (caller frees each with program_result_fini). Returns
 * a Diag only when no process could be attempted. */
Diag *program_run_processes(const char *exe, const ProgramRunOptions *opts, int n, bool mps,
                            ProgramResult *results, ProgramMps *mps_out);
/* One timeline of the n processes' (NULL entries skipped): each entry
 * tagged with its process (from 1), process p's stream s as p*1000 + s
 * (host rows stay -1). Measured timelines (a GPU) are placed by their
 * origin_us, the clock the processes share. Modeled ones (the emulator,
 * each process's model starting at 0) are combined by the cost model's
 * view of one GPU shared by processes: without MPS the GPU time-slices
 * between them, so a kernel never runs while another process's kernel
 * does; with MPS kernels of different processes run at once while their
 * blocks fit on the GPU together (sm_count SMs, each holding
 * min(32, 2048 / threads per block) blocks). A process whose kernel waits
 * is delayed from there on. Caller frees. */
Timeline *program_processes_timeline(Timeline *const *tls, int n, bool modeled, bool mps, int sm_count);

/* ---- compute-sanitizer's report: program_sanitizer.c ---------------------- */

typedef struct SanitizerError {
    char *kind;                     /* "Invalid __global__ write of size 4", "race", "uninitialized",
                                       "leak", "api", "barrier", ... (see program_sanitizer.c) */
    char *message;                  /* the error's first line as the tool printed it */
    char *kernel;                   /* "vector_add(float const*, float*, int)", or NULL */
    char *file;                     /* where in the source (built with -lineinfo), or NULL */
    int line;                       /* 0 when unknown */
    int thread[3], block[3];        /* -1 when not given */
    int count;                      /* how many times it was reported (1, more for merged repeats) */
} SanitizerError;

typedef struct SanitizerReport {
    char *tool;                     /* "memcheck", "racecheck", "initcheck", "synccheck" */
    SanitizerError *errors;
    int n_errors;
    int total;                      /* "ERROR SUMMARY: N errors" (may exceed n_errors: print limit) */
    bool has_summary;               /* the summary line was found (the tool finished) */
} SanitizerReport;

/* Parses compute-sanitizer's text report (its --log-file, or its stdout)
 * for `tool`. Never fails: what is not understood is skipped. Caller frees
 * with sanitizer_report_fini. */
void sanitizer_report_parse(const char *text, const char *tool, SanitizerReport *out);
void sanitizer_report_fini(SanitizerReport *r);
/* Every error's file that names the learner's `display` file (nvcc built
 * it under a private directory, so the report has that path) becomes
 * `display`; other files are left as they are. */
void sanitizer_report_relocate(SanitizerReport *r, const char *display);
/* Whether an error of this kind fails a run: an invalid access, a race, an
 * uninitialised read, a barrier error; not a failed API call (a program
 * may check for one on purpose) or a leak. */
bool sanitizer_kind_is_error(const char *kind);
/* The ProgramTool for compute-sanitizer's `tool` ("memcheck", ...) at
 * `path`, its log going to "{out}": argv is written into `argv` (room for
 * 16). Returns argc. */
int sanitizer_tool_argv(const char *path, const char *tool, const char **argv);

#endif
