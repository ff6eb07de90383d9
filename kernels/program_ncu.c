/* kernels/program_ncu.c: Nsight Compute (ncu) around a learner's program on
 * a GPU: the command line, running it (a ProgramTool, kernels/program.h),
 * and a parser for its CSV into one record per profiled launch with its
 * metrics (kernels/program_profile.h).
 *
 * What `ncu --csv --metrics ... --log-file F` writes (ncu 2025.3.1 on an
 * H200; tests/kernels/profile/ncu.csv is that output):
 *
 *   ==PROF== Connected to process 658 (/work/main/.probe/bugs)
 *   "ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size",
 *     "Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"
 *   "0","658","bugs","127.0.0.1","busy(float *, int, int)","1","7","(128, 1, 1)","(132, 1, 1)",
 *     "0","9.0","Command line profiler metrics","gpu__time_duration.sum","ns","5,792"
 *   ...
 *   ==PROF== Disconnected from process 658
 *
 * A --section adds "Rule Name","Rule Type","Rule Description",... columns
 * and rule rows with an empty metric name. Columns are found by their
 * header names, so their order may change; every header seen (one per
 * process) replaces the last. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "base/xalloc.h"
#include "kernels/gpu_lock.h"
#include "kernels/program_internal.h"
#include "kernels/program_profile.h"

#define MAX_FIELDS 64
#define MAX_KERNELS 4096
#define MAX_METRICS 512         /* per launch */
#define MAX_RULES 32            /* per launch */
#define MAX_MESSAGES 64
#define MAX_TEXT 4096           /* a name or value longer than this is cut */
#define DEFAULT_LAUNCHES 200

const char *const NCU_DEFAULT_METRICS[] = {
    "gpu__time_duration.sum",
    "launch__grid_size",
    "launch__block_size",
    "launch__registers_per_thread",
    "launch__shared_mem_per_block_static",
    "launch__shared_mem_per_block_dynamic",
    "sm__maximum_warps_per_active_cycle_pct",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
    "launch__occupancy_limit_registers",
    "launch__occupancy_limit_shared_mem",
    "launch__occupancy_limit_blocks",
    "launch__occupancy_limit_warps",
    NULL,
};

/* ---- CSV and numbers (shared with program_nsys.c) ---- */

static char *cut_dup(const char *s, size_t n) {
    return xstrndup(s, n > MAX_TEXT ? MAX_TEXT : n);
}

int profile_csv_split(const char *line, size_t len, char **fields, int max) {
    int n = 0;
    size_t i = 0;
    for (;;) {
        if (n == max) goto bad;
        while (i < len && line[i] == ' ') i++;
        if (i < len && line[i] == '"') {
            char *buf = xmalloc(len - i + 1);
            size_t k = 0;
            bool closed = false;
            for (i++; i < len; i++) {
                if (line[i] == '"') {
                    if (i + 1 < len && line[i + 1] == '"') {
                        buf[k++] = '"';
                        i++;
                    } else {
                        closed = true;
                        i++;
                        break;
                    }
                } else {
                    buf[k++] = line[i];
                }
            }
            while (i < len && (line[i] == ' ' || line[i] == '\r')) i++;
            if (!closed || (i < len && line[i] != ',')) {
                free(buf);
                goto bad;
            }
            if (k > MAX_TEXT) k = MAX_TEXT;
            buf[k] = '\0';
            fields[n++] = buf;
        } else {
            size_t s = i;
            while (i < len && line[i] != ',') {
                if (line[i] == '"') goto bad;
                i++;
            }
            size_t e = i;
            while (e > s && (line[e - 1] == ' ' || line[e - 1] == '\r')) e--;
            fields[n++] = cut_dup(line + s, e - s);
        }
        if (i >= len) return n;
        i++;    /* the comma */
    }
bad:
    for (int k = 0; k < n; k++) free(fields[k]);
    return -1;
}

static void free_fields(char **f, int n) {
    for (int i = 0; i < n; i++) free(f[i]);
}

bool profile_number_parse(const char *s, double *out) {
    while (*s == ' ') s++;
    char buf[128];
    size_t k = 0;
    const char *p = s;
    if (*p == '-' || *p == '+') buf[k++] = *p++;
    /* the integer part: "," only between groups of three digits */
    int group = 0, groups = 0;
    for (;; p++) {
        if (isdigit((unsigned char)*p)) {
            if (k + 1 >= sizeof buf) return false;
            buf[k++] = *p;
            group++;
        } else if (*p == ',') {
            if (group == 0 || group > 3 || (groups && group != 3)) return false;
            groups++;
            group = 0;
        } else {
            break;
        }
    }
    if (groups && group != 3) return false;
    for (; *p && *p != ' '; p++) {     /* the fraction and exponent: strtod judges them */
        if (k + 1 >= sizeof buf || !strchr("0123456789.eE+-", *p)) return false;
        buf[k++] = *p;
    }
    while (*p == ' ') p++;
    buf[k] = '\0';
    if (*p || !k) return false;
    char *end;
    double v = strtod(buf, &end);
    if (end == buf || *end || !isfinite(v)) return false;
    *out = v;
    return true;
}

char *profile_function_name(const char *sig) {
    size_t n = strlen(sig), end = n;
    if (n && sig[n - 1] == ')') {
        int depth = 0;
        for (size_t i = n; i-- > 0;) {
            if (sig[i] == ')') depth++;
            else if (sig[i] == '(' && --depth == 0) {
                if (i) end = i;
                break;
            }
        }
    }
    /* a return type before the name ("void scale<float>"): the last word
     * outside template brackets */
    size_t start = 0;
    int angle = 0;
    for (size_t i = 0; i < end; i++) {
        if (sig[i] == '<') angle++;
        else if (sig[i] == '>' && angle) angle--;
        else if (sig[i] == ' ' && !angle) start = i + 1;
    }
    if (start >= end) start = 0;
    return xstrndup(sig + start, end - start);
}

/* ---- units ---- */

typedef struct UnitScale {
    const char *unit, *base;
    double scale;
} UnitScale;

static const UnitScale UNITS[] = {
    {"nsecond", "ns", 1},        {"ns", "ns", 1},          {"usecond", "ns", 1e3},     {"us", "ns", 1e3},
    {"msecond", "ns", 1e6},      {"ms", "ns", 1e6},        {"second", "ns", 1e9},      {"s", "ns", 1e9},
    {"byte", "byte", 1},         {"Kbyte", "byte", 1e3},   {"Mbyte", "byte", 1e6},     {"Gbyte", "byte", 1e9},
    {"Tbyte", "byte", 1e12},     {"KB", "byte", 1e3},      {"MB", "byte", 1e6},        {"GB", "byte", 1e9},
    {"byte/second", "byte/s", 1}, {"Kbyte/second", "byte/s", 1e3}, {"Mbyte/second", "byte/s", 1e6},
    {"Gbyte/second", "byte/s", 1e9}, {"Tbyte/second", "byte/s", 1e12}, {"byte/s", "byte/s", 1},
    {"hz", "hz", 1},             {"Khz", "hz", 1e3},       {"Mhz", "hz", 1e6},         {"Ghz", "hz", 1e9},
    {"cycle/nsecond", "cycle/ns", 1}, {"cycle/usecond", "cycle/ns", 1e-3}, {"cycle/second", "cycle/ns", 1e-9},
};

/* The unit in base form and the factor that brings a value there. */
static const char *unit_base(const char *unit, double *scale) {
    for (size_t i = 0; i < sizeof UNITS / sizeof UNITS[0]; i++)
        if (!strcmp(unit, UNITS[i].unit)) {
            *scale = UNITS[i].scale;
            return UNITS[i].base;
        }
    *scale = 1;
    return unit;
}

/* ---- the report ---- */

enum { COL_ID, COL_PID, COL_KERNEL, COL_BLOCK, COL_GRID, COL_METRIC, COL_UNIT, COL_VALUE, COL_RULE, COL_RULE_TYPE,
       COL_RULE_DESC, N_COLS };
static const char *const COL_NAMES[N_COLS] = {"ID", "Process ID", "Kernel Name", "Block Size", "Grid Size",
                                              "Metric Name", "Metric Unit", "Metric Value", "Rule Name",
                                              "Rule Type", "Rule Description"};

typedef struct Header {
    int col[N_COLS];                /* -1 when absent */
    bool ok;
} Header;

static bool read_header(char **f, int n, Header *h) {
    for (int c = 0; c < N_COLS; c++) {
        h->col[c] = -1;
        for (int i = 0; i < n; i++)
            if (!strcmp(f[i], COL_NAMES[c])) h->col[c] = i;
    }
    h->ok = h->col[COL_ID] >= 0 && h->col[COL_KERNEL] >= 0 && h->col[COL_METRIC] >= 0 && h->col[COL_VALUE] >= 0;
    return h->ok;
}

static const char *field(char **f, int n, const Header *h, int c) {
    return h->col[c] >= 0 && h->col[c] < n ? f[h->col[c]] : "";
}

/* "(128, 1, 1)" into v[3]; zeros when it is not that. */
static void parse_dim3(const char *s, int v[3]) {
    int x, y, z;
    if (sscanf(s, " (%d , %d , %d )", &x, &y, &z) == 3 && x >= 0 && y >= 0 && z >= 0) {
        v[0] = x;
        v[1] = y;
        v[2] = z;
    } else {
        v[0] = v[1] = v[2] = 0;
    }
}

static void add_message(char ***list, int *n, const char *text, bool *truncated) {
    if (*n == MAX_MESSAGES) {
        *truncated = true;
        return;
    }
    *list = xrealloc(*list, (size_t)(*n + 1) * sizeof **list);
    (*list)[(*n)++] = cut_dup(text, strlen(text));
}

/* The launch (pid, id) named `name`, a new one when it is not there yet;
 * NULL when there are too many. Records come grouped by launch: the
 * search starts at the last one. */
static NcuKernel *kernel_for(NcuReport *r, long pid, int id, const char *name, char **f, int n, const Header *h) {
    for (int i = r->n_kernels; i-- > 0;) {
        NcuKernel *k = &r->kernels[i];
        if (k->id == id && k->pid == pid && !strcmp(k->name, name)) return k;
    }
    if (r->n_kernels == MAX_KERNELS) {
        r->truncated = true;
        return NULL;
    }
    r->kernels = xrealloc(r->kernels, (size_t)(r->n_kernels + 1) * sizeof *r->kernels);
    NcuKernel *k = &r->kernels[r->n_kernels++];
    memset(k, 0, sizeof *k);
    k->name = xstrdup(name);
    k->function = profile_function_name(name);
    k->pid = pid;
    k->id = id;
    parse_dim3(field(f, n, h, COL_GRID), k->grid);
    parse_dim3(field(f, n, h, COL_BLOCK), k->block);
    return k;
}

static void add_metric(NcuReport *r, NcuKernel *k, const char *name, const char *unit, const char *text) {
    for (int i = 0; i < k->n_metrics; i++)
        if (!strcmp(k->metrics[i].name, name)) return;     /* the first one counts */
    if (k->n_metrics == MAX_METRICS) {
        r->truncated = true;
        return;
    }
    k->metrics = xrealloc(k->metrics, (size_t)(k->n_metrics + 1) * sizeof *k->metrics);
    NcuMetric *m = &k->metrics[k->n_metrics++];
    double scale, v;
    m->name = xstrdup(name);
    m->unit = xstrdup(unit_base(unit, &scale));
    m->text = xstrdup(text);
    m->value = profile_number_parse(text, &v) ? v * scale : NAN;
}

static void add_rule(NcuReport *r, NcuKernel *k, const char *name, const char *type, const char *desc) {
    if (k->n_rules == MAX_RULES) {
        r->truncated = true;
        return;
    }
    k->rules = xrealloc(k->rules, (size_t)(k->n_rules + 1) * sizeof *k->rules);
    k->rules[k->n_rules++] = (NcuRule){xstrdup(name), xstrdup(type), xstrdup(desc)};
}

static void parse_record(NcuReport *r, char **f, int n, const Header *h) {
    /* A record cut off before its value is no record. (Metric rows under a
     * header with rule columns end early: "...,"Metric Value",".) */
    if (n <= h->col[COL_VALUE] || n <= h->col[COL_METRIC] || n <= h->col[COL_KERNEL] || n <= h->col[COL_ID]) {
        r->skipped++;
        return;
    }
    double id, pid;
    const char *name = field(f, n, h, COL_KERNEL);
    if (!profile_number_parse(field(f, n, h, COL_ID), &id) || id < 0 || id > 1e9 || !*name) {
        r->skipped++;
        return;
    }
    if (!profile_number_parse(field(f, n, h, COL_PID), &pid) || pid < 0 || pid > 1e12) pid = 0;
    NcuKernel *k = kernel_for(r, (long)pid, (int)id, name, f, n, h);
    if (!k) return;
    const char *metric = field(f, n, h, COL_METRIC);
    if (*metric) add_metric(r, k, metric, field(f, n, h, COL_UNIT), field(f, n, h, COL_VALUE));
    else if (*field(f, n, h, COL_RULE))
        add_rule(r, k, field(f, n, h, COL_RULE), field(f, n, h, COL_RULE_TYPE), field(f, n, h, COL_RULE_DESC));
}

void ncu_report_parse(const char *text, NcuReport *out) {
    memset(out, 0, sizeof *out);
    if (!text) return;
    Header h = {.ok = false};
    char *f[MAX_FIELDS];
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        const char *line = p;
        p = nl ? nl + 1 : p + len;
        while (len && (line[len - 1] == '\r' || line[len - 1] == ' ')) len--;
        if (len > 11 && !strncmp(line, "==ERROR== ", 10)) {
            char *msg = cut_dup(line + 10, len - 10);
            add_message(&out->errors, &out->n_errors, msg, &out->truncated);
            free(msg);
            continue;
        }
        if (len > 13 && !strncmp(line, "==WARNING== ", 12)) {
            char *msg = cut_dup(line + 12, len - 12);
            add_message(&out->warnings, &out->n_warnings, msg, &out->truncated);
            free(msg);
            continue;
        }
        if (!len || line[0] != '"') continue;   /* ==PROF==, the program's own output */
        int n = profile_csv_split(line, len, f, MAX_FIELDS);
        if (n < 0) {
            out->skipped++;
            continue;
        }
        if (!strcmp(f[0], "ID")) read_header(f, n, &h);
        else if (h.ok) parse_record(out, f, n, &h);
        else out->skipped++;
        free_fields(f, n);
    }
}

void ncu_report_fini(NcuReport *r) {
    for (int i = 0; i < r->n_kernels; i++) {
        NcuKernel *k = &r->kernels[i];
        free(k->name);
        free(k->function);
        for (int m = 0; m < k->n_metrics; m++) {
            free(k->metrics[m].name);
            free(k->metrics[m].unit);
            free(k->metrics[m].text);
        }
        free(k->metrics);
        for (int m = 0; m < k->n_rules; m++) {
            free(k->rules[m].name);
            free(k->rules[m].type);
            free(k->rules[m].description);
        }
        free(k->rules);
    }
    free(r->kernels);
    for (int i = 0; i < r->n_errors; i++) free(r->errors[i]);
    free(r->errors);
    for (int i = 0; i < r->n_warnings; i++) free(r->warnings[i]);
    free(r->warnings);
    memset(r, 0, sizeof *r);
}

const NcuMetric *ncu_kernel_metric(const NcuKernel *k, const char *name) {
    for (int i = 0; i < k->n_metrics; i++)
        if (!strcmp(k->metrics[i].name, name)) return &k->metrics[i];
    return NULL;
}

double ncu_kernel_value(const NcuKernel *k, const char *name) {
    const NcuMetric *m = ncu_kernel_metric(k, name);
    return m ? m->value : NAN;
}

/* ---- running it ---- */

void profile_argv_fini(ProfileArgv *a) {
    for (int i = 0; i < a->argc; i++) free(a->v[i]);
    memset(a, 0, sizeof *a);
}

static bool metric_name_ok(const char *s) {
    if (!s || !*s || strlen(s) > 200) return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_' && *s != '.' && *s != ':') return false;
    return true;
}

bool ncu_tool_argv(const char *ncu, const char *const *metrics, int n_metrics, int launch_count, ProfileArgv *out,
                   const char **bad) {
    memset(out, 0, sizeof *out);
    *bad = NULL;
    if (!metrics) {
        metrics = NCU_DEFAULT_METRICS;
        for (n_metrics = 0; metrics[n_metrics]; n_metrics++) {}
    }
    StrBuf list;
    strbuf_init(&list);
    for (int i = 0; i < n_metrics; i++) {
        if (!metric_name_ok(metrics[i])) {
            *bad = metrics[i] ? metrics[i] : "";
            strbuf_fini(&list);
            return false;
        }
        strbuf_printf(&list, "%s%s", i ? "," : "", metrics[i]);
    }
    const char *fixed[] = {"--csv", "--print-units", "base", "--target-processes", "all", "--launch-count"};
    out->v[out->argc++] = xstrdup(ncu);
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) out->v[out->argc++] = xstrdup(fixed[i]);
    out->v[out->argc++] = xasprintf("%d", launch_count > 0 ? launch_count : DEFAULT_LAUNCHES);
    /* Shared with other graders (the GPU lock on), a profiled run yields to
       their timed sections (kernels/program_run.c): clocks ncu locked to
       base would stay locked while it is stopped, under another's timed
       kernel. What the course reads from ncu (counts, ratios, occupancy)
       does not depend on the clock. */
    if (gpu_lock_enabled()) {
        out->v[out->argc++] = xstrdup("--clock-control");
        out->v[out->argc++] = xstrdup("none");
    }
    if (n_metrics) {
        out->v[out->argc++] = xstrdup("--metrics");
        out->v[out->argc++] = strbuf_steal(&list);
    }
    strbuf_fini(&list);
    out->v[out->argc++] = xstrdup("--log-file");
    out->v[out->argc++] = xstrdup("{out}");
    out->v[out->argc] = NULL;
    return true;
}

Diag *ncu_run_program(const ProfileArgv *argv, const char *exe, const ProgramRunOptions *ro, ProgramResult *res,
                      NcuReport *rep) {
    memset(rep, 0, sizeof *rep);
    ProgramTool t = {.argv = (const char *const *)argv->v, .argc = argv->argc, .out_name = "ncu.csv",
                     .out_cap = 8u << 20};
    ProgramRunOptions o = *ro;
    o.tool = &t;
    Diag *d = program_run(exe, &o, res);
    if (d) return d;
    ncu_report_parse(res->tool_output, rep);
    if (res->tool_output_truncated) rep->truncated = true;
    return NULL;
}
