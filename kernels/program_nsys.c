/* kernels/program_nsys.c: Nsight Systems (nsys) around a learner's program
 * on a GPU: `nsys profile` records it into a report, `nsys stats` turns
 * that into two summary tables (kernels: instances and time; copies and
 * sets: count and time per kind), read here (kernels/program_profile.h).
 *
 * `nsys stats --format csv` prints to stdout, for each report, a title and
 * a table (nsys 2023-2025):
 *
 *    ** CUDA GPU Kernel Summary (cuda_gpu_kern_sum):
 *
 *   "Time (%)","Total Time (ns)","Instances","Avg (ns)","Med (ns)","Min (ns)","Max (ns)","StdDev (ns)","Name"
 *   "58.5","5,850,000","50","117000.0","116000.0","100000","130000","4000.0","smooth(float *, int)"
 *
 *    ** CUDA GPU MemOps Summary (by Time) (cuda_gpu_mem_time_sum):
 *
 *   "Time (%)","Total Time (ns)","Count","Avg (ns)",...,"Operation"
 *   "71.4","2,411,520","48","50240.0",...,"[CUDA memcpy Host-to-Device]"
 *
 * Releases differ in quoting, separators and the lines around the tables
 * (older ones: "Processing [...] with [...]...", "Average" for "Avg (ns)",
 * "[CUDA memcpy HtoD]"), so tables are found by their header's columns.
 * The report file is binary (SQLite is exported from it by nsys itself):
 * cudojo never reads it, only what nsys stats prints. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/strbuf.h"
#include "base/xalloc.h"
#include "kernels/program_internal.h"
#include "kernels/program_profile.h"

#define MAX_FIELDS 32
#define MAX_ROWS 4096
#define STATS_CAP (4u << 20)
#define STATS_TIMEOUT_S 120

typedef enum Table { T_NONE, T_KERNELS, T_MEMOPS } Table;

typedef struct Cols {
    int total, count, avg, min, max, share, name;
    int n;
} Cols;

/* The column whose header is one of `names`, or -1. */
static int col_of(char **f, int n, const char *const *names) {
    for (int i = 0; i < n; i++)
        for (int k = 0; names[k]; k++)
            if (!strcmp(f[i], names[k])) return i;
    return -1;
}

static Table read_header(char **f, int n, Cols *c) {
    static const char *const total[] = {"Total Time (ns)", "Total Time", NULL};
    static const char *const instances[] = {"Instances", NULL};
    static const char *const count[] = {"Count", "Operations", "Instances", NULL};
    static const char *const avg[] = {"Avg (ns)", "Average (ns)", "Average", NULL};
    static const char *const min[] = {"Min (ns)", "Minimum (ns)", "Minimum", NULL};
    static const char *const max[] = {"Max (ns)", "Maximum (ns)", "Maximum", NULL};
    static const char *const share[] = {"Time (%)", "Time(%)", NULL};
    static const char *const name[] = {"Name", NULL};
    static const char *const operation[] = {"Operation", NULL};
    c->total = col_of(f, n, total);
    c->avg = col_of(f, n, avg);
    c->min = col_of(f, n, min);
    c->max = col_of(f, n, max);
    c->share = col_of(f, n, share);
    c->n = n;
    if (c->total < 0) return T_NONE;
    if ((c->name = col_of(f, n, name)) >= 0 && (c->count = col_of(f, n, instances)) >= 0) return T_KERNELS;
    if ((c->name = col_of(f, n, operation)) >= 0 && (c->count = col_of(f, n, count)) >= 0) return T_MEMOPS;
    return T_NONE;
}

static double num_at(char **f, int n, int col) {
    double v;
    return col >= 0 && col < n && profile_number_parse(f[col], &v) ? v : NAN;
}

const char *nsys_memop_kind(const char *op) {
    static const struct {
        const char *text, *kind;
    } KINDS[] = {
        {"Host-to-Device", "HtoD"}, {"HtoD", "HtoD"}, {"Device-to-Host", "DtoH"}, {"DtoH", "DtoH"},
        {"Device-to-Device", "DtoD"}, {"DtoD", "DtoD"}, {"Host-to-Host", "HtoH"}, {"HtoH", "HtoH"},
        {"Peer-to-Peer", "PtoP"}, {"PtoP", "PtoP"}, {"memset", "memset"},
    };
    for (size_t i = 0; op && i < sizeof KINDS / sizeof KINDS[0]; i++)
        if (strstr(op, KINDS[i].text)) return KINDS[i].kind;
    return "other";
}

/* A bare (unquoted) last column split at the commas of a signature
 * ("k(float *, int)"): its pieces joined again. */
static void rejoin_last(char **f, int *n, const Cols *c) {
    if (*n <= c->n || c->name != c->n - 1) return;
    StrBuf b;
    strbuf_init(&b);
    for (int i = c->name; i < *n; i++) {
        strbuf_printf(&b, "%s%s", i > c->name ? ", " : "", f[i]);
        free(f[i]);
    }
    f[c->name] = strbuf_steal(&b);
    strbuf_fini(&b);
    *n = c->n;
}

static void add_row(NsysSummary *s, Table t, char **f, int n, const Cols *c) {
    double total = num_at(f, n, c->total), count = num_at(f, n, c->count);
    if (n < c->n || !isfinite(total) || !isfinite(count) || count < 0 || !*f[c->name]) {
        s->skipped++;
        return;
    }
    if (s->n_kernels + s->n_memops >= MAX_ROWS) {
        s->skipped++;
        return;
    }
    double avg = num_at(f, n, c->avg);
    if (!isfinite(avg)) avg = count > 0 ? total / count : 0;
    if (t == T_KERNELS) {
        s->kernels = xrealloc(s->kernels, (size_t)(s->n_kernels + 1) * sizeof *s->kernels);
        NsysKernel *k = &s->kernels[s->n_kernels++];
        k->name = xstrdup(f[c->name]);
        k->function = profile_function_name(k->name);
        k->count = (long)count;
        k->total_ns = total;
        k->avg_ns = avg;
        k->min_ns = num_at(f, n, c->min);
        k->max_ns = num_at(f, n, c->max);
        k->share_pct = num_at(f, n, c->share);
    } else {
        s->memops = xrealloc(s->memops, (size_t)(s->n_memops + 1) * sizeof *s->memops);
        NsysMemop *m = &s->memops[s->n_memops++];
        m->operation = xstrdup(f[c->name]);
        m->kind = xstrdup(nsys_memop_kind(m->operation));
        m->count = (long)count;
        m->total_ns = total;
        m->avg_ns = avg;
    }
}

void nsys_summary_parse(const char *text, NsysSummary *out) {
    memset(out, 0, sizeof *out);
    if (!text) return;
    Table t = T_NONE;
    Cols c = {0};
    char *f[MAX_FIELDS];
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        const char *line = p;
        p = nl ? nl + 1 : p + len;
        while (len && (line[len - 1] == '\r' || line[len - 1] == ' ')) len--;
        if (!len) {
            t = T_NONE;     /* a table ends at a blank line */
            continue;
        }
        int n = profile_csv_split(line, len, f, MAX_FIELDS);
        if (n < 2) {        /* a title, "Processing [...]", "SKIPPED: ...", a bad line */
            if (n >= 0) free(f[0]);
            if (t != T_NONE && n < 0) out->skipped++;
            else t = T_NONE;
            continue;
        }
        Cols nc;
        Table nt = read_header(f, n, &nc);
        if (nt != T_NONE) {
            t = nt;
            c = nc;
            if (nt == T_KERNELS) out->has_kernel_table = true;
        } else if (t != T_NONE) {
            rejoin_last(f, &n, &c);
            add_row(out, t, f, n, &c);
        }
        for (int i = 0; i < n; i++) free(f[i]);
    }
}

void nsys_summary_fini(NsysSummary *s) {
    for (int i = 0; i < s->n_kernels; i++) {
        free(s->kernels[i].name);
        free(s->kernels[i].function);
    }
    free(s->kernels);
    for (int i = 0; i < s->n_memops; i++) {
        free(s->memops[i].operation);
        free(s->memops[i].kind);
    }
    free(s->memops);
    memset(s, 0, sizeof *s);
}

Diag *nsys_run_program(const char *nsys, const char *exe, const ProgramRunOptions *ro, ProgramResult *res,
                       NsysSummary *sum, char **stats_text, char **why) {
    memset(sum, 0, sizeof *sum);
    *stats_text = NULL;
    *why = NULL;
    if (!nsys || nsys[0] != '/') return diag_error("run", "nsys needs an absolute path");
    const char *tmp = getenv("TMPDIR");
    char *dir = path_join(tmp && *tmp ? tmp : "/tmp", "cudojo-nsys-XXXXXX");
    if (!mkdtemp(dir)) {
        Diag *d = diag_error("io", "cannot make a directory for nsys's report: %s", strerror(errno));
        free(dir);
        return d;
    }
    const char *argv[] = {nsys, "profile", "--trace=cuda", "--sample=none", "--cpuctxsw=none",
                          "--force-overwrite=true", "--output={out}"};
    ProgramTool t = {.argv = argv, .argc = (int)(sizeof argv / sizeof argv[0]), .out_dir = dir,
                     .out_name = "profile", .out_cap = 1};
    ProgramRunOptions o = *ro;
    o.tool = &t;
    double t0 = proc_now_ms();
    Diag *d = program_run(exe, &o, res);
    char *rep = path_join(dir, "profile.nsys-rep");
    if (d) {
        /* nothing ran */
    } else if (res->timed_out) {
        *why = xstrdup("the program did not finish under nsys profile in time");
    } else if (!fs_exists(rep)) {
        *why = xstrdup("nsys profile wrote no report (profile.nsys-rep)");
    } else {
        double left = ro->timeout_s > 0 ? ro->timeout_s - (proc_now_ms() - t0) / 1e3 : STATS_TIMEOUT_S;
        if (left < 5) left = 5;
        if (left > STATS_TIMEOUT_S) left = STATS_TIMEOUT_S;
        const char *sargv[] = {nsys, "stats", "--report", "cuda_gpu_kern_sum,cuda_gpu_mem_time_sum", "--format",
                               "csv", "--force-export=true", rep, NULL};
        ProcCapture pc;
        Diag *sd = proc_capture(sargv, NULL, dir, left, STATS_CAP, &pc);
        if (sd) {
            *why = xasprintf("nsys stats could not run: %s", sd->message);
            diag_free(&sd);
        } else {
            *stats_text = pc.out ? xstrdup(pc.out) : xstrdup("");
            nsys_summary_parse(pc.out, sum);
            if (pc.timed_out) *why = xstrdup("nsys stats did not finish in time");
            else if (!sum->has_kernel_table && pc.status != 0)
                *why = xasprintf("nsys stats failed (exit status %d)", pc.status);
            proc_capture_fini(&pc);
        }
    }
    free(rep);
    proc_remove_tree(dir);
    free(dir);
    return d;
}
