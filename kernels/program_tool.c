/* kernels/program_tool.c: running a learner's program under a tool
 * (compute-sanitizer, ncu, nsys): the tool's argv in front of the
 * program's, "{out}" replaced by the tool's output file, that file read
 * back after the run, and finding a toolkit tool (kernels/program.h,
 * ProgramTool, says what the runner does differently under a tool). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/strbuf.h"
#include "base/xalloc.h"
#include "kernels/program_internal.h"

#define TOOL_OUT_CAP (16u << 20)

static bool is_exe(const char *p) {
    struct stat st;
    return p && stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0;
}

char *program_find_tool(const char *name) {
    if (!name || !*name || strchr(name, '/')) return NULL;
    const char *home = getenv("CUDA_HOME");
    const char *dirs[] = {home && *home ? home : NULL, "/usr/local/cuda", "/opt/cuda"};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        if (!dirs[i]) continue;
        char *bin = path_join(dirs[i], "bin");
        char *p = path_join(bin, name);
        free(bin);
        if (is_exe(p)) return p;
        free(p);
    }
    char *p = proc_find_in_path(name);
    if (!p) return NULL;
    char *abs = path_absolute(p);
    free(p);
    return abs;
}

/* `arg` with every "{out}" replaced by `out`. Caller frees. */
static char *substitute(const char *arg, const char *out) {
    StrBuf b;
    strbuf_init(&b);
    for (const char *p = arg; *p;) {
        const char *hit = strstr(p, "{out}");
        if (!hit) {
            strbuf_append(&b, p);
            break;
        }
        strbuf_append_n(&b, p, (size_t)(hit - p));
        strbuf_append(&b, out);
        p = hit + 5;
    }
    char *s = strbuf_steal(&b);
    strbuf_fini(&b);
    return s ? s : xstrdup("");
}

Diag *program_tool_prepare(const ProgramTool *t, const char *exe, const char *const *args, int n_args,
                           ToolRun *tr) {
    memset(tr, 0, sizeof *tr);
    if (!t->argv || t->argc < 1 || !t->argv[0] || t->argv[0][0] != '/')
        return diag_error("run", "the tool to run the program under needs an absolute path");
    const char *name = t->out_name && *t->out_name ? t->out_name : "tool.out";
    if (strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
        return diag_error("run", "the tool's output file name '%s' must be one path component", name);
    if (t->out_dir) {
        tr->dir = path_absolute(t->out_dir);
    } else {
        const char *tmp = getenv("TMPDIR");
        tr->dir = path_join(tmp && *tmp ? tmp : "/tmp", "cudojo-tool-XXXXXX");
        if (!mkdtemp(tr->dir)) {
            Diag *d = diag_error("io", "cannot make a directory for the tool's report: %s", strerror(errno));
            XFREE(tr->dir);
            return d;
        }
        tr->own_dir = true;
    }
    tr->name = xstrdup(name);
    tr->out_path = path_join(tr->dir, name);
    tr->argv = xcalloc((size_t)t->argc + (size_t)n_args + 2, sizeof *tr->argv);
    for (int i = 0; i < t->argc; i++) tr->argv[tr->argc++] = substitute(t->argv[i] ? t->argv[i] : "", tr->out_path);
    tr->exe_at = tr->argc;
    tr->argv[tr->argc++] = xstrdup(exe);
    for (int i = 0; i < n_args; i++) tr->argv[tr->argc++] = xstrdup(args[i] ? args[i] : "");
    tr->cap = t->out_cap ? t->out_cap : TOOL_OUT_CAP;
    return NULL;
}

void program_tool_wrap(ToolRun *tr, char *const *prefix) {
    int k = 0;
    while (prefix && prefix[k]) k++;
    if (!k) return;
    tr->argv = xrealloc(tr->argv, ((size_t)tr->argc + (size_t)k + 1) * sizeof *tr->argv);
    memmove(tr->argv + tr->exe_at + k, tr->argv + tr->exe_at, ((size_t)(tr->argc - tr->exe_at) + 1) * sizeof *tr->argv);
    for (int i = 0; i < k; i++) tr->argv[tr->exe_at + i] = xstrdup(prefix[i]);
    tr->argc += k;
    tr->exe_at += k;
}

/* The output file, or else the first regular file in the directory whose
 * name starts with it ("report" -> "report.nsys-rep"). Caller frees. */
static char *find_output(const ToolRun *tr) {
    struct stat st;
    if (lstat(tr->out_path, &st) == 0 && S_ISREG(st.st_mode)) return xstrdup(tr->out_path);
    DIR *d = opendir(tr->dir);
    if (!d) return NULL;
    char *hit = NULL;
    size_t k = strlen(tr->name);
    for (struct dirent *e; !hit && (e = readdir(d));) {
        if (strncmp(e->d_name, tr->name, k)) continue;
        char *p = path_join(tr->dir, e->d_name);
        if (lstat(p, &st) == 0 && S_ISREG(st.st_mode)) hit = p;
        else free(p);
    }
    closedir(d);
    return hit;
}

void program_tool_collect(const ToolRun *tr, ProgramResult *r) {
    char *path = find_output(tr);
    if (!path) return;
    FILE *f = fopen(path, "rb");
    free(path);
    if (!f) return;
    char *buf = xmalloc(tr->cap + 1);
    size_t got = fread(buf, 1, tr->cap, f);
    r->tool_output_truncated = got == tr->cap && fgetc(f) != EOF;
    fclose(f);
    buf[got] = '\0';
    r->tool_output = buf;
    r->tool_output_len = got;
}

void program_tool_fini(ToolRun *tr) {
    for (int i = 0; i < tr->argc; i++) free(tr->argv[i]);
    free(tr->argv);
    if (tr->own_dir && tr->dir) proc_remove_tree(tr->dir);
    free(tr->dir);
    free(tr->name);
    free(tr->out_path);
    memset(tr, 0, sizeof *tr);
}
