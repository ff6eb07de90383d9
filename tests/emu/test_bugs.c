/* tests/emu/test_bugs.c: the emulator must catch every deliberately wrong
 * kernel in tests/bugs/ and point at the right line.
 *
 * Each tests/bugs/<name>.cu holds one kernel `<name>(float *in, float *out,
 * int n)`, a `// LAUNCH: grid=.. block=.. n=.. [shared=..] [in=..] [expect=..]`
 * comment and a `// BUG: <kind>` marker on the exact line the emulator must
 * report. The test launches it on the emulator (deterministic, checks on)
 * with `in` and `out` allocated at exactly n floats, and asserts that a
 * finding with one of the kind's codes (KIND_CODES below) names that file and
 * line; a `// SAYS: text` comment makes the finding's message contain text.
 * Kind `wrong-result` is a bug only the output shows: no error finding,
 * and the output differs from what the kernel meant to compute.
 *
 * CUDOJO_BUGS_REPORT=1 prints every finding as "kernel<TAB>code<TAB>line"
 * instead of testing (tools/sanitizer-compare.sh uses it). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <ftw.h>
#include <glob.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/diag.h"
#include "base/fs.h"
#include "base/strbuf.h"
#include "base/xalloc.h"
#include "kernels/backend.h"
#include "kernels/compile.h"

/* Which finding codes (as kernels/emu emits them) count for each BUG kind. */
typedef struct KindCodes {
    const char *kind;
    const char *codes[4];
} KindCodes;

static const KindCodes KIND_CODES[] = {
    {"oob-global", {"oob-global"}},
    {"oob-shared", {"oob-shared"}},
    {"oob-local", {"oob-local"}},
    {"race-shared", {"race-shared"}},
    {"race-global", {"race-global"}},
    {"race-warp", {"race-warp"}},
    {"barrier-divergence", {"barrier-divergence"}},
    {"deadlock", {"deadlock", "warp-sync-exited", "warp-sync-mask"}},
    {"uninit-shared", {"uninit-shared"}},
    {"misaligned", {"misaligned"}},
    {"trap", {"trap"}},
    {"assert", {"assert"}},
    {"did-not-finish", {"did-not-finish"}},
    {"wrong-result", {NULL}},
};
#define N_KINDS ((int)(sizeof KIND_CODES / sizeof KIND_CODES[0]))

#define BUG_BUDGET 20000000ull   /* warp-instructions: runaway kernels stop quickly */

typedef struct BugCase {
    char *path;          /* tests/bugs/x.cu */
    char *name;          /* x: the kernel's name */
    char *kind;          /* from the BUG marker */
    int line;            /* the marker's line */
    Dim3 grid, block;
    int n;
    size_t shared;
    char in_fill[16];    /* ramp (default), unit, signed */
    char expect[16];     /* wrong-result only: scale2 */
    char *says;          /* from a SAYS marker: text the finding's message must contain */
    char *parse_error;   /* a malformed file: the test says so */
} BugCase;

static BugCase *g_cases;
static int g_ncases;
static char g_cache_dir[64];
static Backend *g_emu;
static Diag *g_emu_why;

/* "4" -> {4,1,1}; "4x2" -> {4,2,1}; "2x2x2" -> {2,2,2}. */
static bool parse_dim(const char *s, Dim3 *d) {
    unsigned v[3] = {1, 1, 1};
    int k = sscanf(s, "%ux%ux%u", &v[0], &v[1], &v[2]);
    if (k < 1) return false;
    d->x = v[0];
    d->y = v[1];
    d->z = v[2];
    return true;
}

static void bug_case_parse(BugCase *c, const char *text) {
    int line = 1;
    bool launch = false;
    for (const char *p = text; *p; p++) {
        if (*p == '\n') { line++; continue; }
        if (!strncmp(p, "// BUG: ", 8) && !c->kind) {
            const char *e = p + 8;
            while (*e && *e != '\n' && *e != ' ') e++;
            c->kind = xstrndup(p + 8, (size_t)(e - p - 8));
            c->line = line;
        } else if (!strncmp(p, "// SAYS: ", 9) && !c->says) {
            const char *e = strchr(p, '\n');
            c->says = xstrndup(p + 9, e ? (size_t)(e - p - 9) : strlen(p + 9));
        } else if (!strncmp(p, "// LAUNCH:", 10) && !launch) {
            launch = true;
            const char *e = strchr(p, '\n');
            char *spec = xstrndup(p + 10, e ? (size_t)(e - p - 10) : strlen(p + 10));
            char *save = NULL;
            for (char *tok = strtok_r(spec, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
                if (!strncmp(tok, "grid=", 5)) parse_dim(tok + 5, &c->grid);
                else if (!strncmp(tok, "block=", 6)) parse_dim(tok + 6, &c->block);
                else if (!strncmp(tok, "n=", 2)) c->n = atoi(tok + 2);
                else if (!strncmp(tok, "shared=", 7)) c->shared = (size_t)atol(tok + 7);
                else if (!strncmp(tok, "in=", 3)) snprintf(c->in_fill, sizeof c->in_fill, "%s", tok + 3);
                else if (!strncmp(tok, "expect=", 7)) snprintf(c->expect, sizeof c->expect, "%s", tok + 7);
            }
            free(spec);
        }
    }
    if (!c->kind) c->parse_error = xasprintf("%s has no // BUG: marker", c->path);
    else if (!launch || !c->n || !c->grid.x || !c->block.x)
        c->parse_error = xasprintf("%s has no complete // LAUNCH: grid= block= n= comment", c->path);
}

static void load_cases(void) {
    glob_t g;
    if (glob("tests/bugs/*.cu", 0, NULL, &g) != 0) return;
    g_cases = xcalloc(g.gl_pathc ? g.gl_pathc : 1, sizeof *g_cases);
    for (size_t i = 0; i < g.gl_pathc; i++) {
        const char *base = path_basename(g.gl_pathv[i]);
        if (!strcmp(base, "driver.cu")) continue;
        BugCase *c = &g_cases[g_ncases++];
        c->path = xstrdup(g.gl_pathv[i]);
        c->name = xstrndup(base, strlen(base) - 3);
        char *text = NULL;
        Diag *d = fs_read_file(c->path, &text, NULL);
        if (d) {
            c->parse_error = xasprintf("cannot read %s: %s", c->path, d->message);
            diag_free(&d);
            continue;
        }
        bug_case_parse(c, text);
        free(text);
    }
    globfree(&g);
}

static const KindCodes *kind_codes(const char *kind) {
    for (int i = 0; i < N_KINDS; i++)
        if (!strcmp(KIND_CODES[i].kind, kind)) return &KIND_CODES[i];
    return NULL;
}

static void fill_input(const BugCase *c, float *in) {
    for (int i = 0; i < c->n; i++) {
        if (!strcmp(c->in_fill, "unit")) in[i] = c->n > 1 ? (float)i / (float)(c->n - 1) : 0.0f;
        else if (!strcmp(c->in_fill, "signed")) in[i] = i == c->n / 2 ? -1.0f : (float)i;
        else in[i] = (float)(i % 97);
    }
}

/* Compiles and runs a bug kernel; fills *report and out (n floats). Returns a
 * Diag when it could not run at all (caller frees). */
static Diag *bug_run(const BugCase *c, LaunchReport *report, float *in, float *out) {
    char *src = NULL;
    Diag *d = fs_read_file(c->path, &src, NULL);
    if (d) return d;
    CompileOptions o;
    memset(&o, 0, sizeof o);
    o.virtual_arch = 80;
    o.opt_level = -1;
    o.cache_dir = g_cache_dir;
    CompiledModule *mod = NULL;
    d = compile_cuda(c->path, src, &o, &mod);
    free(src);
    if (d) return d;
    const BackendOps *ops = g_emu->ops;
    size_t bytes = (size_t)c->n * sizeof(float);
    DevPtr din = 0, dout = 0;
    BackendModule *bm = NULL;
    fill_input(c, in);
    if (!(d = ops->mem_alloc(g_emu, bytes, "in", sizeof(float), &din)) &&
        !(d = ops->mem_alloc(g_emu, bytes, "out", sizeof(float), &dout)) &&
        !(d = ops->copy_to_device(g_emu, din, in, bytes)) && !(d = ops->memset(g_emu, dout, 0, bytes)) &&
        !(d = ops->module_load(g_emu, mod, &bm))) {
        KernelArg args[3] = {kernel_arg_ptr(din), kernel_arg_ptr(dout), kernel_arg_i32(c->n)};
        LaunchConfig cfg;
        memset(&cfg, 0, sizeof cfg);
        cfg.grid = c->grid;
        cfg.block = c->block;
        cfg.shared_bytes = c->shared;
        d = ops->launch(g_emu, bm, c->name, &cfg, args, 3, report);
        if (!d) d = ops->copy_to_host(g_emu, out, dout, bytes);
    }
    if (bm) ops->module_unload(g_emu, &bm);
    Diag *f = NULL;
    if (din) f = ops->mem_free(g_emu, din);
    diag_free(&f);
    if (dout) f = ops->mem_free(g_emu, dout);
    diag_free(&f);
    compiled_module_free(&mod);
    return d;
}

static bool same_file(const char *a, const char *b) {
    return a && b && !strcmp(path_basename(a), path_basename(b));
}

static void bug_case_test(void **state) {
    const BugCase *c = *state;
    if (c->parse_error) fail_msg("%s", c->parse_error);
    const KindCodes *kc = kind_codes(c->kind);
    if (!kc) fail_msg("%s:%d: unknown BUG kind '%s' (add it to KIND_CODES)", c->path, c->line, c->kind);
    if (!g_emu) fail_msg("emu_backend_new failed: %s", g_emu_why ? g_emu_why->message : "?");
    LaunchReport rep;
    launch_report_init(&rep);
    float *in = xcalloc((size_t)c->n, sizeof *in), *out = xcalloc((size_t)c->n, sizeof *out);
    Diag *d = bug_run(c, &rep, in, out);
    char *err = NULL;
    if (d) {
        char *msg = diag_format_all(d, false);
        /* A launch that failed with the right code and line still counts (e.g. trap). */
        bool hit = false;
        for (const Diag *x = d; x && !hit; x = x->next)
            for (int k = 0; kc->codes[k] && !hit; k++)
                hit = x->code && !strcmp(x->code, kc->codes[k]) && x->line == c->line && same_file(x->file, c->path);
        if (!hit) err = xasprintf("%s: the launch failed instead:\n%s", c->path, msg);
        free(msg);
        diag_free(&d);
    } else if (!strcmp(c->kind, "wrong-result")) {
        if (diag_count_errors(rep.findings)) {
            char *msg = diag_format_all(rep.findings, false);
            err = xasprintf("%s: a wrong-result kernel got error findings (it has no memory or sync bug):\n%s",
                            c->path, msg);
            free(msg);
        } else if (!strcmp(c->expect, "scale2")) {
            bool differs = false;
            for (int i = 0; i < c->n && !differs; i++) differs = out[i] != 2.0f * in[i];
            if (!differs) err = xasprintf("%s: the output equals 2 * in, so the bug is not visible", c->path);
        } else {
            err = xasprintf("%s: wrong-result needs expect=scale2 in its LAUNCH line", c->path);
        }
    } else {
        bool hit = false;
        for (const Diag *x = rep.findings; x && !hit; x = x->next)
            for (int k = 0; kc->codes[k] && !hit; k++)
                hit = x->code && !strcmp(x->code, kc->codes[k]) && x->line == c->line && same_file(x->file, c->path) &&
                      (!c->says || (x->message && strstr(x->message, c->says)));
        if (!hit) {
            char *msg = diag_format_all(rep.findings, false);
            err = xasprintf("%s:%d: want a '%s' finding at this line%s%s%s; the emulator reported:\n%s", c->path,
                            c->line, c->kind, c->says ? " saying \"" : "", c->says ? c->says : "",
                            c->says ? "\"" : "", msg && *msg ? msg : "(nothing)\n");
            free(msg);
        }
    }
    free(in);
    free(out);
    launch_report_fini(&rep);
    if (err) {
        print_error("%s", err);
        free(err);
        fail_msg("bugs__%s failed", c->name);
    }
}

/* CUDOJO_BUGS_REPORT=1: one line per finding, for tools/sanitizer-compare.sh. */
static int report_all(void) {
    for (int i = 0; i < g_ncases; i++) {
        const BugCase *c = &g_cases[i];
        if (c->parse_error || !g_emu) {
            printf("%s\t-\t0\n", c->name);
            continue;
        }
        LaunchReport rep;
        launch_report_init(&rep);
        float *in = xcalloc((size_t)c->n, sizeof *in), *out = xcalloc((size_t)c->n, sizeof *out);
        Diag *d = bug_run(c, &rep, in, out);
        int lines = 0;
        for (const Diag *x = d; x; x = x->next, lines++) printf("%s\t%s\t%d\n", c->name, x->code ? x->code : "?", x->line);
        for (const Diag *x = rep.findings; x; x = x->next, lines++)
            printf("%s\t%s\t%d\n", c->name, x->code ? x->code : "?", x->line);
        if (!lines) printf("%s\t-\t0\n", c->name);
        diag_free(&d);
        launch_report_fini(&rep);
        free(in);
        free(out);
    }
    return 0;
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

/* At least 25 wrong kernels, as issue 3 asks. */
static void bugs__suite_has_25_kernels__always(void **state) {
    (void)state;
    assert_true(g_ncases >= 25);
}

int main(void) {
    snprintf(g_cache_dir, sizeof g_cache_dir, "/tmp/cudojo-bugs-XXXXXX");
    if (!mkdtemp(g_cache_dir)) return 1;
    load_cases();
    EmuOptions o;
    memset(&o, 0, sizeof o);
    o.threads = 1;
    o.deterministic = true;
    o.checks = true;
    o.instruction_budget = BUG_BUDGET;
    g_emu = emu_backend_new(&o, &g_emu_why);
    int rc;
    if (getenv("CUDOJO_BUGS_REPORT")) {
        rc = report_all();
    } else {
        struct CMUnitTest *tests = xcalloc((size_t)g_ncases + 1, sizeof *tests);
        char **names = xcalloc((size_t)g_ncases + 1, sizeof *names);
        for (int i = 0; i < g_ncases; i++) {
            names[i] = xasprintf("bugs__%s__flags_%s_at_its_line", g_cases[i].name,
                                 g_cases[i].kind ? g_cases[i].kind : "?");
            tests[i].name = names[i];
            tests[i].test_func = bug_case_test;
            tests[i].initial_state = &g_cases[i];
        }
        tests[g_ncases].name = "bugs__suite_has_25_kernels__always";
        tests[g_ncases].test_func = bugs__suite_has_25_kernels__always;
        const char *filter = getenv("BUGS_FILTER");
        if (filter) cmocka_set_test_filter(filter);
        rc = _cmocka_run_group_tests("bugs", tests, (size_t)g_ncases + 1, NULL, NULL);
        for (int i = 0; i < g_ncases; i++) free(names[i]);
        free(names);
        free(tests);
    }
    backend_close(&g_emu);
    diag_free(&g_emu_why);
    for (int i = 0; i < g_ncases; i++) {
        free(g_cases[i].path);
        free(g_cases[i].name);
        free(g_cases[i].kind);
        free(g_cases[i].says);
        free(g_cases[i].parse_error);
    }
    free(g_cases);
    nftw(g_cache_dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
    return rc;
}
