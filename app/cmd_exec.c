/* app/cmd_exec.c: `cudojo exec [OPTIONS] PROGRAM [ARGS...]`: any program
 * built with `nvcc -cudart shared`, run on the GPU with cudojo's recorder
 * or, without one, on cudojo's emulator runtime; its output and exit
 * status pass through, then its findings and a summary of what it did.
 *
 * Everything after PROGRAM belongs to the program (main.c stops taking
 * global options at "exec"; this file reads the ones before PROGRAM).
 * The program runs in the current directory with the user's environment
 * and stdin, like any command, but as a child in its own process group
 * under kernels/program_run.c's limits; Ctrl-C kills that group.
 *
 * --profile=ncu|nsys and --sanitizer=TOOL run it under NVIDIA's profiler
 * or compute-sanitizer instead (on a GPU only: the emulator's own checks
 * and modeled timeline stand in for them there), and the tool's report
 * follows the program's output (app/exec_tool.c). */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/cli.h"
#include "app/exec_summary.h"
#include "app/trace.h"
#include "base/fs.h"
#include "base/i18n.h"
#include "base/strbuf.h"
#include "base/xalloc.h"
#include "kernels/program.h"
#include "kernels/program_profile.h"

#define NO_TIMEOUT_S 1e9

static volatile int exec_cancel;

static void on_signal(int sig) {
    (void)sig;
    exec_cancel = 1;
}

typedef struct ExecArgs {
    const char *trace;
    double timeout_s;               /* 0 = none */
    int devices;
    const char *profile;            /* "ncu" or "nsys"; NULL = none */
    const char *sanitizer;          /* compute-sanitizer's tool; NULL = none */
    char **prog;                    /* PROGRAM and its arguments */
    int n_prog;
} ExecArgs;

static const char *opt_value(int *i, int argc, char **argv, const char *name, bool *bad) {
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (!strncmp(a, name, n) && a[n] == '=') return a + n + 1;
    if (!strcmp(a, name)) {
        if (*i + 1 < argc) return argv[++*i];
        fprintf(stderr, _("cudojo exec: %s needs a value\n"), name);
        *bad = true;
    }
    return NULL;
}

static bool parse_number(const char *v, double lo, double hi, double *out) {
    char *end;
    double d = strtod(v, &end);
    if (!*v || *end || !(d >= lo && d <= hi)) return false;
    *out = d;
    return true;
}

/* Returns -1 to go on, else the exit status (help, usage error). */
static int parse_args(Cli *cli, int argc, char **argv, ExecArgs *ea) {
    memset(ea, 0, sizeof *ea);
    ea->devices = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        bool bad = false;
        double num;
        if (!strcmp(a, "--") || a[0] != '-') {
            int first = !strcmp(a, "--") ? i + 1 : i;
            ea->prog = argv + first;
            ea->n_prog = argc - first;
            break;
        }
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) return cli_command_help("exec");
        if (!strcmp(a, "--json")) {
            cli->json = true;
        } else if (!strcmp(a, "--no-color")) {
            cli->color = false;
        } else if ((v = opt_value(&i, argc, argv, "--backend", &bad))) {
            bool ok;
            cli->backend = backend_choice_parse(v, &ok);
            if (!ok) {
                fprintf(stderr, _("cudojo exec: --backend must be cuda, emu or auto (got '%s')\n"), v);
                return 2;
            }
        } else if ((v = opt_value(&i, argc, argv, "--trace", &bad))) {
            ea->trace = v;
        } else if ((v = opt_value(&i, argc, argv, "--timeout", &bad))) {
            if (!parse_number(v, 0, 1e7, &ea->timeout_s)) {
                fprintf(stderr, _("cudojo exec: --timeout takes seconds (0 = none), got '%s'\n"), v);
                return 2;
            }
        } else if ((v = opt_value(&i, argc, argv, "--devices", &bad))) {
            if (!parse_number(v, 1, 16, &num) || num != (int)num) {
                fprintf(stderr, _("cudojo exec: --devices takes a number from 1 to 16, got '%s'\n"), v);
                return 2;
            }
            ea->devices = (int)num;
        } else if ((v = opt_value(&i, argc, argv, "--profile", &bad))) {
            if (strcmp(v, "ncu") && strcmp(v, "nsys")) {
                fprintf(stderr, _("cudojo exec: --profile must be ncu (Nsight Compute) or nsys (Nsight Systems), "
                                  "got '%s'\n"), v);
                return 2;
            }
            ea->profile = v;
        } else if ((v = opt_value(&i, argc, argv, "--sanitizer", &bad))) {
            if (strcmp(v, "memcheck") && strcmp(v, "racecheck") && strcmp(v, "initcheck") && strcmp(v, "synccheck")) {
                fprintf(stderr, _("cudojo exec: --sanitizer must be memcheck, racecheck, initcheck or synccheck, "
                                  "got '%s'\n"), v);
                return 2;
            }
            ea->sanitizer = v;
        } else if ((v = opt_value(&i, argc, argv, "--emu-threads", &bad))) {
            if (!parse_number(v, 0, 1024, &num)) {
                fputs(_("cudojo exec: --emu-threads takes a number from 0 (all cores) to 1024\n"), stderr);
                return 2;
            }
            cli->emu_threads = (int)num;
        } else if (!bad) {
            fprintf(stderr, _("cudojo exec: unknown option '%s' (cudojo's options go before PROGRAM; "
                              "see `cudojo exec --help`)\n"), a);
            return 2;
        }
        if (bad) return 2;
    }
    if (ea->profile && ea->sanitizer) {
        fputs(_("cudojo exec: --profile and --sanitizer each run the program under a tool: give one\n"), stderr);
        return 2;
    }
    if (ea->n_prog < 1) {
        fputs(_("cudojo exec: which program? (cudojo exec [OPTIONS] PROGRAM [ARGS...])\n"), stderr);
        return 2;
    }
    return -1;
}

/* PROGRAM as the shell finds it: a path when it has a "/", else $PATH. */
static char *resolve_program(const char *name, int *status) {
    char *p = strchr(name, '/') ? path_absolute(name) : NULL;
    if (!p) {
        char *in_path = NULL;
        const char *path = getenv("PATH");
        char *copy = xstrdup(path ? path : ""), *save = NULL;
        for (char *dir = strtok_r(copy, ":", &save); dir && !in_path; dir = strtok_r(NULL, ":", &save)) {
            char *c = path_join(*dir ? dir : ".", name);
            if (access(c, X_OK) == 0 && !fs_is_dir(c)) in_path = path_absolute(c);
            free(c);
        }
        free(copy);
        p = in_path;
    }
    if (!p || !fs_exists(p)) {
        if (strchr(name, '/')) fprintf(stderr, _("cudojo exec: %s: not found\n"), name);
        else fprintf(stderr, _("cudojo exec: %s: not found in PATH (for a program here, write ./%s)\n"), name, name);
        *status = EXIT_NOT_FOUND;
        free(p);
        return NULL;
    }
    if (fs_is_dir(p) || access(p, X_OK) != 0) {
        fprintf(stderr, _("cudojo exec: %s: not an executable file\n"), name);
        *status = EXIT_CANNOT_EXEC;
        free(p);
        return NULL;
    }
    return p;
}

/* Whether `exe` carries NVIDIA's runtime inside it (nvcc's default,
 * -cudart static): its calls never reach a runtime cudojo can load. Such a
 * file has libcudart_static's symbols and no "libcudart.so." to import. */
static bool links_static_cudart(const char *exe) {
    int fd = open(exe, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || st.st_size <= 0 || st.st_size > (1ll << 30)) {
        if (fd >= 0) close(fd);
        return false;
    }
    void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (m == MAP_FAILED) return false;
    bool is_static = memmem(m, (size_t)st.st_size, "libcudart_static", 16) &&
                     !memmem(m, (size_t)st.st_size, "libcudart.so.", 13);
    munmap(m, (size_t)st.st_size);
    return is_static;
}

static ProgramRuntime pick_runtime(const Cli *cli, char **note) {
    *note = NULL;
    if (cli->backend == BACKEND_EMU) return PROGRAM_RT_EMU;
    if (cli->backend == BACKEND_CUDA) return PROGRAM_RT_CUDA;
    Diag *why = NULL;
    Backend *b = backend_open(BACKEND_CUDA, NULL, &why, NULL);
    bool gpu = b != NULL;
    backend_close(&b);
    if (!gpu) {   /* shown only, never in --json: in the language shown */
        char *reason = i18n_message(why ? why->message : N_("no working GPU"));
        *note = xasprintf(_("%s; running on cudojo's emulator runtime"), reason);
        free(reason);
    }
    diag_free(&why);
    return gpu ? PROGRAM_RT_CUDA : PROGRAM_RT_EMU;
}

/* The findings name the program's files as its DWARF and PTX do
 * (absolute): one under the current directory is shown relative to it. */
static void relative_files(Diag *d, const char *cwd) {
    size_t n = strlen(cwd);
    for (; d; d = d->next)
        if (d->file && !strncmp(d->file, cwd, n) && d->file[n] == '/' && d->file[n + 1]) {
            char *rel = xstrdup(d->file + n + 1);
            free(d->file);
            d->file = rel;
        }
}

/* Returns false when the trace could not be written (said on stderr). */
static bool write_trace(const char *path, const ProgramResult *r, const char *title, bool quiet) {
    if (!r->timeline || r->timeline->n == 0) {
        fprintf(stderr, _("cudojo exec: --trace: %s not written: %s\n"), path,
                r->touched_gpu ? _("the runtime sent no timeline (the program may have ended before it could)")
                               : _("the program made no CUDA calls, so there is no timeline"));
        return true;
    }
    json_t *tl = timeline_to_json(r->timeline);
    json_t *trace = trace_from_timeline(tl, title);
    json_decref(tl);
    char *text = json_dumps(trace, JSON_COMPACT | JSON_REAL_PRECISION(12));
    json_decref(trace);
    char *with_nl = xasprintf("%s\n", text ? text : "{}");
    Diag *d = fs_write_file_atomic(path, with_nl, strlen(with_nl));
    free(with_nl);
    free(text);
    if (d) {
        char *msg = i18n_message(d->message);
        fprintf(stderr, _("cudojo exec: --trace: %s\n"), msg);
        free(msg);
        diag_free(&d);
        return false;
    }
    if (!quiet)
        fprintf(stderr, _("cudojo exec: timeline%s written to %s (open it at https://ui.perfetto.dev or chrome://tracing)\n"),
                r->timeline->modeled ? _(" (modeled)") : "", path);
    return true;
}

int cmd_exec(Cli *cli, int argc, char **argv) {
    ExecArgs ea;
    int st = parse_args(cli, argc, argv, &ea);
    if (st >= 0) return st;
    char *exe = resolve_program(ea.prog[0], &st);
    if (!exe) return st;
    char *note = NULL;
    ProgramRuntime rt = pick_runtime(cli, &note);
    if (note && !cli->json) fprintf(stderr, _("cudojo exec: %s\n"), note);
    free(note);
    if (rt == PROGRAM_RT_CUDA && !program_inject_path() && !cli->json)
        fputs(_("cudojo exec: cudojo's GPU recorder (inject/libcudojo_inject.so) is not built, so the "
                "program's calls and timeline are not recorded (`make` builds it)\n"), stderr);

    struct sigaction sa = {.sa_handler = on_signal};
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);       /* a closed stdout stops the copy, not cudojo (the child resets it) */
    EmuOptions emu = {.threads = cli->emu_threads, .checks = true, .metrics = true};
    char *cwd = path_absolute(".");
    ProgramRunOptions o = {
        .runtime = rt,
        .args = (const char *const *)ea.prog + 1,
        .n_args = ea.n_prog - 1,
        .timeout_s = ea.timeout_s > 0 ? ea.timeout_s : NO_TIMEOUT_S,
        .output_cap = cli->json ? 16u << 20 : 64u << 10,
        .emu_devices = ea.devices,
        .emu = &emu,
        .cancel = &exec_cancel,
        .tee_out = cli->json ? -1 : 1,
        .tee_err = 2,
        .keep_env = true,
        .cwd = cwd,
        .inherit_stdin = true,
    };
    ProgramResult r;
    bool is_static = links_static_cudart(exe);
    if (is_static && !cli->json)
        fprintf(stderr, _("cudojo exec: %s has NVIDIA's CUDA runtime linked in (nvcc's default), so cudojo "
                          "can neither see nor emulate its CUDA calls: rebuild it with `nvcc -cudart shared`\n"),
                ea.prog[0]);
    char *driver_libs = rt == PROGRAM_RT_EMU ? program_driver_libraries(exe) : NULL;
    if (driver_libs && !cli->json)
        fprintf(stderr, _("cudojo exec: %s needs %s; such NVIDIA libraries call the GPU driver themselves, and "
                          "cudojo's emulator runtime stands in for libcudart only: here their calls fail (an "
                          "error status, or the program cannot start). Run it on a GPU.\n"),
                ea.prog[0], driver_libs);
    const char *tool = ea.profile ? ea.profile : ea.sanitizer;
    if (tool && rt == PROGRAM_RT_EMU) {
        if (!cli->json)
            fprintf(stderr, _("cudojo exec: %s=%s runs NVIDIA's tool on a GPU only; on the emulator runtime its "
                              "own checks and modeled timeline stand in for it\n"),
                    ea.profile ? "--profile" : "--sanitizer", tool);
        tool = NULL;
    }
    ExecToolReport tr;
    Diag *d = tool ? exec_tool_run(ea.profile, ea.sanitizer, exe, &o, &r, &tr) : program_run(exe, &o, &r);
    if (!tool) memset(&tr, 0, sizeof tr);
    if (!d) relative_files(r.findings, cwd);
    if (!d && is_static && cli->json) {     /* the text mode said it before the run */
        Diag *w = diag_new(DIAG_WARNING, "static-cudart", NULL, 0, 0, "%s",   /* --json's: English */
                           N_("the program has NVIDIA's CUDA runtime linked in statically: rebuild it with "
                              "`nvcc -cudart shared` so that cudojo can record or emulate its CUDA calls"));
        w->next = r.findings;
        r.findings = w;
    }
    if (!d && driver_libs && cli->json) {   /* likewise */
        Diag *w = diag_new(DIAG_WARNING, "driver-library", NULL, 0, 0,     /* --json's: English */
                           N_("the program needs %s; such NVIDIA libraries call the GPU driver themselves, and "
                              "the emulator runtime stands in for libcudart only: there their calls fail"),
                           driver_libs);
        w->next = r.findings;
        r.findings = w;
    }
    free(driver_libs);
    if (d) {
        program_result_fini(&r);
        exec_tool_report_fini(&tr);
        free(cwd);
        free(exe);
        cli_print_diags(d);
        diag_free(&d);
        return EXIT_SETUP;
    }
    st = exec_exit_status(&r);
    if (cli->json) {
        json_t *doc = exec_result_json(exe, ea.prog + 1, ea.n_prog - 1, &r, rt);
        if (tool) json_object_set_new(doc, "tool", exec_tool_json(&tr, &r));
        cli_print_json(doc);
    } else {
        /* Findings, then the summary; "output-capped" is about the copy we
         * kept, not what the user saw (all of it went through). */
        const char *no_color = getenv("NO_COLOR");
        bool color = cli->color && isatty(2) && !(no_color && *no_color);
        StrBuf sb;
        strbuf_init(&sb);
        for (const Diag *f = r.findings; f; f = f->next)
            if (strcmp(f->code, "output-capped")) diag_format(f, &sb, color);
        fputs(sb.data, stderr);
        strbuf_fini(&sb);
        if (tool) exec_tool_print(ea.prog[0], &tr, &r, cwd);
        else exec_print_summary(ea.prog[0], &r, rt);
    }
    if (ea.trace && !write_trace(ea.trace, &r, path_basename(exe), cli->json) && st == 0) st = EXIT_SETUP;
    program_result_fini(&r);
    exec_tool_report_fini(&tr);
    free(cwd);
    free(exe);
    return st;
}

/* The command's entry in the table app/cli.c lists. */
const Command CMD_EXEC = {"exec", "PROGRAM [ARGS...]", N_("run any nvcc-built CUDA program on the GPU or the emulator runtime"),
    N_("Runs PROGRAM (built with `nvcc -cudart shared`) with ARGS, in the current\n"
    "directory with your environment and stdin. On a GPU it uses NVIDIA's runtime\n"
    "and cudojo records its calls and a CUPTI timeline; without one (or with\n"
    "--backend=emu) it runs on cudojo's emulator runtime, which checks every\n"
    "kernel: out-of-bounds accesses, races, barriers, uninitialised reads, with\n"
    "the program's file:line, block and thread. Its stdout and stderr pass\n"
    "through as it runs; then the findings and a summary (calls per function,\n"
    "kernels with their modeled or measured time, how it ended) go to stderr.\n"
    "cudojo's options go before PROGRAM; everything after it is the program's.\n"
    "Options:\n"
    "  --backend=B         cuda, emu or auto (default: the GPU when one works)\n"
    "  --trace FILE.json   write the program's timeline as Chrome trace JSON\n"
    "                      (Perfetto, chrome://tracing); a modeled one says so\n"
    "  --json              one JSON document on stdout instead: exit status,\n"
    "                      stdout and stderr (captured), calls, kernels,\n"
    "                      timeline, findings\n"
    "  --timeout S         kill the program (and its process group) after S\n"
    "                      seconds (default: no limit)\n"
    "  --devices N         emulated GPUs the program sees (default 1)\n"
    "  --emu-threads=N     host threads the emulator uses (default: all cores)\n"
    "  --profile=ncu       on a GPU, run it under Nsight Compute (ncu) with\n"
    "                      cudojo's metrics (time, occupancy achieved and\n"
    "                      theoretical, its limits, registers) and list its\n"
    "                      launches after its output\n"
    "  --profile=nsys      likewise under Nsight Systems: time per kernel and copy\n"
    "  --sanitizer=TOOL    on a GPU, run it under compute-sanitizer (memcheck,\n"
    "                      racecheck, initcheck, synccheck) and list its errors\n"
    "                      (on the emulator runtime --profile and --sanitizer\n"
    "                      are left out: its own checks stand in)\n"
    "Exit status: the program's own; 128+N when signal N killed it, 124 when\n"
    "the timeout did, 130 when interrupted, 127 when PROGRAM is not found, 126\n"
    "when it cannot be run, 125 when cudojo cannot run it here (e.g. the\n"
    "emulator runtime is not built), 2 for a usage error.\n"),
    cmd_exec};
