/* kernels/program_profile.h: NVIDIA's profilers around a learner's program
 * on a GPU: Nsight Compute (ncu: per-launch hardware metrics such as
 * achieved occupancy and sectors per request, kernels/program_ncu.c) and
 * Nsight Systems (nsys: time per kernel and per kind of copy,
 * kernels/program_nsys.c). Each has the command line cudojo runs it with,
 * a parser for what it writes (recorded real outputs are the tests'
 * fixtures, tests/kernels/profile/), and one call that runs the program
 * under it (kernels/program.h's ProgramTool) and reads the result back.
 *
 * The parsers never fail: what they do not understand (the program's own
 * output, ==PROF== lines, a cut-off or garbled record) is skipped and
 * counted, and a tool's own errors (==ERROR== ERR_NVGPUCTRPERM: no
 * permission for the counters) are kept for the caller to show. */
#ifndef CUDOJO_KERNELS_PROGRAM_PROFILE_H
#define CUDOJO_KERNELS_PROGRAM_PROFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "kernels/program.h"

/* ---- Nsight Compute: program_ncu.c ---------------------------------------- */

typedef struct NcuMetric {
    char *name;                     /* "sm__warps_active.avg.pct_of_peak_sustained_active" */
    char *unit;                     /* in base units: "ns", "byte", "byte/s", "hz", "%", "block", "" */
    double value;                   /* in `unit`; NAN when the value is not a number */
    char *text;                     /* the value as ncu printed it ("5,792", "n/a") */
} NcuMetric;

typedef struct NcuRule {            /* a section's advice (--section SpeedOfLight's SOLBottleneck) */
    char *name, *type, *description;
} NcuRule;

typedef struct NcuKernel {          /* one profiled launch */
    char *name;                     /* as ncu prints it: "busy(float *, int, int)" */
    char *function;                 /* without parameters and return type: "busy" */
    long pid;                       /* ncu's "Process ID" */
    int id;                         /* ncu's "ID": the launch's index among the profiled ones */
    int grid[3], block[3];          /* 0 when not given */
    NcuMetric *metrics;
    int n_metrics;
    NcuRule *rules;
    int n_rules;
} NcuKernel;

typedef struct NcuReport {
    NcuKernel *kernels;             /* in the order ncu reported them */
    int n_kernels;
    char **errors;                  /* ncu's "==ERROR== ..." lines, the prefix left out */
    int n_errors;
    char **warnings;                /* "==WARNING== ..." */
    int n_warnings;
    int skipped;                    /* CSV records that could not be read (cut off, bad quotes) */
    bool truncated;                 /* more kernels, metrics or messages than are kept */
} NcuReport;

/* The metrics cudojo asks for when an exercise names none: time, launch
 * shape, registers, theoretical and achieved occupancy, what limits it. */
extern const char *const NCU_DEFAULT_METRICS[];

/* Parses what `ncu --csv` writes (its --log-file, or stdout with the
 * program's own lines among it) in the "details" page layout: one record
 * per (launch, metric) under the header "ID","Process ID",...,"Metric
 * Name","Metric Unit","Metric Value" (sections add rule columns). Values
 * may carry thousands separators ("3,182,765,151.52"); scaled units
 * ("usecond", "Kbyte", "Gbyte/second") are brought to base units. Never
 * fails. Caller frees with ncu_report_fini. */
void ncu_report_parse(const char *text, NcuReport *out);
void ncu_report_fini(NcuReport *r);
/* The metric `name` of a launch, or NULL. */
const NcuMetric *ncu_kernel_metric(const NcuKernel *k, const char *name);
/* Its value, or NAN when it is absent or not a number. */
double ncu_kernel_value(const NcuKernel *k, const char *name);

typedef struct ProfileArgv {
    char *v[24];                    /* NULL-ended; owned */
    int argc;
} ProfileArgv;
void profile_argv_fini(ProfileArgv *a);

/* ncu's command line for `metrics` (NULL = NCU_DEFAULT_METRICS), at most
 * `launch_count` launches (0 = 200), its CSV to "{out}":
 * `ncu --csv --print-units base --target-processes all --launch-count N
 *  --metrics a,b,c --log-file {out}`. Returns false (and *out empty) when
 * a metric name is not one (ncu's names are letters, digits, "_", "." and
 * ":"), with the bad name in *bad. */
bool ncu_tool_argv(const char *ncu, const char *const *metrics, int n_metrics, int launch_count, ProfileArgv *out,
                   const char **bad);

/* Runs `exe` (ro: as program_run takes it; ro->tool is ignored) under ncu
 * at `ncu` with `argv` from ncu_tool_argv, fills *res as program_run does
 * and *rep from the CSV. Returns a Diag only when the run could not be
 * attempted. Caller frees both. */
Diag *ncu_run_program(const ProfileArgv *argv, const char *exe, const ProgramRunOptions *ro, ProgramResult *res,
                      NcuReport *rep);

/* ---- Nsight Systems: program_nsys.c --------------------------------------- */

typedef struct NsysKernel {         /* one row of cuda_gpu_kern_sum */
    char *name;                     /* as nsys prints it */
    char *function;                 /* without parameters and return type */
    long count;                     /* instances */
    double total_ns, avg_ns, min_ns, max_ns;
    double share_pct;               /* its "Time (%)" of all kernel time */
} NsysKernel;

typedef struct NsysMemop {          /* one row of cuda_gpu_mem_time_sum */
    char *operation;                /* "[CUDA memcpy Host-to-Device]" as printed */
    char *kind;                     /* "HtoD", "DtoH", "DtoD", "HtoH", "PtoP", "memset", "other" */
    long count;
    double total_ns, avg_ns;
} NsysMemop;

typedef struct NsysSummary {
    NsysKernel *kernels;            /* in nsys's order (most time first) */
    int n_kernels;
    NsysMemop *memops;
    int n_memops;
    bool has_kernel_table;          /* the kernel summary's header was found */
    int skipped;                    /* rows that could not be read */
} NsysSummary;

/* Parses what `nsys stats --report cuda_gpu_kern_sum,cuda_gpu_mem_time_sum
 * --format csv` prints: each report's table is found by its header (a
 * "Name" column with "Total Time (ns)" and "Instances": kernels; an
 * "Operation" column with "Count": copies), whatever comes around it
 * (" ** CUDA GPU Kernel Summary ...", "Processing [...]", "SKIPPED: ...");
 * quoted or bare fields, thousands separators. Never fails. Caller frees
 * with nsys_summary_fini. */
void nsys_summary_parse(const char *text, NsysSummary *out);
void nsys_summary_fini(NsysSummary *s);
/* "HtoD" for "[CUDA memcpy Host-to-Device]" (and the older "[CUDA memcpy
 * HtoD]"), "memset" for "[CUDA memset]", "other" else. Static. */
const char *nsys_memop_kind(const char *operation);

/* Runs `exe` under `nsys profile --trace=cuda --sample=none
 * --cpuctxsw=none --force-overwrite=true --output=DIR/profile` (DIR a
 * private temporary directory), then `nsys stats --report
 * cuda_gpu_kern_sum,cuda_gpu_mem_time_sum --format csv
 * --force-export=true DIR/profile.nsys-rep`, and parses its output into
 * *sum; the stats text into *stats_text (caller frees; NULL when stats did
 * not run). *why says, when no summary came, why not (caller frees; NULL
 * when one did). Returns a Diag only when nothing could be attempted. */
Diag *nsys_run_program(const char *nsys, const char *exe, const ProgramRunOptions *ro, ProgramResult *res,
                       NsysSummary *sum, char **stats_text, char **why);

/* ---- shared by the two parsers ---- */

/* Splits one CSV line (no newline inside) into at most `max` fields
 * (malloc'ed, caller frees each); quoted fields with "" for a quote, or
 * bare ones. Returns the field count, or -1 for a line with an unclosed
 * quote or text after a closing quote. */
int profile_csv_split(const char *line, size_t len, char **fields, int max);
/* "5,792" -> 5792, "3,182,765,151.52", "-1.5e3", " 42 "; false for
 * anything else ("n/a", "", "1,23"). */
bool profile_number_parse(const char *s, double *out);
/* "busy(float *, int, int)" -> "busy"; "void scale<float>(float *)" ->
 * "scale<float>"; a name without parameters as it is. Caller frees. */
char *profile_function_name(const char *signature);

#endif
