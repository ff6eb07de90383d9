/* app/cmd_run.c: `cudojo run EXERCISE`: compile, run, check, record, verdict;
 * with --trace, the run's timeline as Chrome trace JSON; with --explain, the
 * access map of one line on the emulator instead (app/access_explain.h). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/access_explain.h"
#include "app/attempt.h"
#include "app/cli.h"
#include "app/cmd_args.h"
#include "app/cmd_common.h"
#include "app/trace.h"
#include "base/bytes.h"
#include "base/fs.h"
#include "base/i18n.h"
#include "base/strbuf.h"
#include "base/xalloc.h"

static volatile sig_atomic_t run_cancelled;

static void on_sigint(int sig) {
    (void)sig;
    run_cancelled = 1;
}

/* --explain's options, taken out of argv before the common ones are parsed. */
typedef struct ExplainArgs {
    const char *explain;     /* LINE or "worst"; NULL: no --explain */
    WarpPick pick;           /* --block, --warp */
} ExplainArgs;

/* Moves --explain, --block and --warp out of argv (argc updated); 2 on a bad value. */
static int explain_args_take(ExplainArgs *ea, int *argc, char **argv) {
    memset(ea, 0, sizeof *ea);
    int out = 1;
    for (int i = 1; i < *argc; i++) {
        int taken = cmd_take_warp_option(&ea->pick, "run", *argc, argv, &i);
        if (taken == 2) return 2;
        if (taken) continue;
        if (strcmp(argv[i], "--explain")) { argv[out++] = argv[i]; continue; }
        const char *v = i + 1 < *argc ? argv[++i] : NULL;
        if (!v) { fprintf(stderr, _("cudojo run: %s needs a value (see cudojo run --help)\n"), "--explain"); return 2; }
        unsigned line;
        if (strcmp(v, "worst") && (!cmd_parse_uint(v, &line) || line < 1 || line > 1000000)) {
            fprintf(stderr, _("cudojo run: --explain %s: expects a source line number or 'worst'\n"), v);
            return 2;
        }
        ea->explain = v;
    }
    *argc = out;
    argv[out] = NULL;
    if ((ea->pick.has_block || ea->pick.has_warp) && !ea->explain) {
        fprintf(stderr, "%s", _("cudojo run: --block and --warp go with --explain\n"));
        return 2;
    }
    return 0;
}

/* The access map of ea->explain's line, on the emulator; nothing recorded. */
static int run_explain(Cli *cli, const ExplainArgs *ea, const RunArgs *ra, const CmdTarget *tgt) {
    const ExerciseMeta *ex = tgt->ex;
    if (ex->program) {
        fprintf(stderr, _("cudojo run: %s is a whole program; --explain maps the accesses of kernel exercises "
                          "(try cudojo exec for programs)\n"), ex->id);
        return 2;
    }
    char *path = tgt->file ? xstrdup(tgt->file) : workspace_exercise_path(tgt->ws, tgt->ch, ex);
    DebugTarget tg;
    Diag *d = debug_target_init(&tg, tgt->ch, ex, path);
    free(path);
    if (d) return cli_fail(d);
    if (!cli->json && isatty(2)) fprintf(stderr, _("running %s on the emulator…\n"), ex->id);
    AccessExplainRequest rq = {.line = strcmp(ea->explain, "worst") ? atoi(ea->explain) : 0,
                               .has_warp = ea->pick.has_block || ea->pick.has_warp, .warp = ea->pick.warp,
                               .param_keys = (const char *const *)ra->keys,
                               .param_values = (const char *const *)ra->values, .n_params = ra->n_params};
    memcpy(rq.block, ea->pick.block, sizeof rq.block);
    AccessExplain x = {.rank = -1};
    d = access_explain_run(&tg, &rq, &x);
    int status = 0;
    if (d) {
        /* a line without accesses (or a run that failed first) is an answer, not a usage error */
        status = 1;
        if (cli->json) {
            cli_print_json(json_pack("{s:s, s:s}", "exercise", ex->id, "error", d->message));
        } else {
            StrBuf sb;
            strbuf_init(&sb);
            diag_format(d, &sb, cli->color);
            fputs(sb.data, stderr);
            strbuf_fini(&sb);
        }
        diag_free(&d);
    } else {
        AccessMapText t = {0};
        access_explain_render(&t, &x, tg.source, 80, !cli->json);
        if (cli->json) {
            json_t *lines = json_array();
            for (int i = 0; i < t.n; i++) json_array_append_new(lines, json_string(t.line[i]));
            json_t *acc = json_array();
            for (int i = x.first; i < x.end; i++) {
                const EmuTraceMem *m = &x.trace->mem[i];
                if (m->space == EMU_MEM_LOCAL) continue;
                AccessCost c;
                access_map_cost(m, &c);
                json_t *o = json_pack("{s:s, s:i, s:i}", "space", m->space == EMU_MEM_SHARED ? "shared" : "global",
                                      "bytes_per_lane", c.width, "lanes", c.active);
                if (m->space == EMU_MEM_SHARED) {
                    json_object_set_new(o, "wavefronts", json_integer(c.wavefronts));
                    json_object_set_new(o, "ideal_wavefronts", json_integer(c.ideal_wavefronts));
                    json_object_set_new(o, "bank_conflict_degree", json_integer(c.degree));
                } else {
                    json_object_set_new(o, "sectors", json_integer(c.sectors));
                    json_object_set_new(o, "ideal_sectors", json_integer(c.ideal));
                    json_object_set_new(o, "lines_128b", json_integer(c.lines));
                }
                if (c.has_stride) json_object_set_new(o, "stride_bytes", json_integer(c.stride));
                json_array_append_new(acc, o);
            }
            cli_print_json(json_pack("{s:s, s:i, s:s, s:[i,i,i], s:i, s:o, s:o}", "exercise", ex->id, "line", x.line,
                                     "kernel", x.trace->kernel, "block", x.trace->block_idx[0],
                                     x.trace->block_idx[1], x.trace->block_idx[2], "warp", x.trace->warp,
                                     "accesses", acc, "map", lines));
        } else {
            char *title = bytes_printable(cli_exercise_title(ex));
            printf("%s — %s\n", ex->id, title);
            printf(_("the run on the emulator: %s\n"), x.verdict ? x.verdict : "?");
            free(title);
            if (x.rank >= 0 && rq.line == 0)
                printf(_("line %d: the costliest of %d lines with global or shared accesses\n"), x.line, x.n_ranked);
            printf("\n");
            for (int i = 0; i < t.n; i++) printf("%s\n", t.line[i]);
        }
        access_map_text_fini(&t);
    }
    access_explain_fini(&x);
    debug_target_fini(&tg);
    return status;
}

/* The verdict, printed when it comes before the run's end (a profile or
 * compute-sanitizer after the verdict): the final result then adds only
 * what came after it. */
typedef struct EarlyVerdict {
    const Cli *cli;
    const ExerciseMeta *ex;
    bool printed;
} EarlyVerdict;

static void print_title(const ExerciseMeta *ex) {
    char *title = bytes_printable(cli_exercise_title(ex));   /* a course pack's text: no control sequences */
    printf("%s — %s\n", ex->id, title);
    free(title);
}

static void on_early_verdict(void *ud, const RunResult *v) {
    EarlyVerdict *e = ud;
    if (e->cli->json) return;   /* --json prints the final result, which holds it */
    print_title(e->ex);
    run_result_print(v, stdout, e->cli->color);
    fflush(stdout);
    if (isatty(2)) fprintf(stderr, "%s\n", _(run_result_after_doing(v)));     /* a profiler's, compute-sanitizer's */
    e->printed = true;
}

int cmd_run(Cli *cli, int argc, char **argv) {
    ExplainArgs ea;
    if (explain_args_take(&ea, &argc, argv) != 0) return 2;
    RunArgs ra;
    if (run_args_parse(&ra, argc, argv, "run") != 0) return 2;
    if (ra.n_positional != 1) {
        fprintf(stderr, "%s", _("cudojo run: expects one EXERCISE (see `cudojo list`)\n"));
        run_args_fini(&ra);
        return 2;
    }
    if (ea.explain && ra.trace) {
        fprintf(stderr, "%s", _("cudojo run: --explain and --trace exclude each other\n"));
        run_args_fini(&ra);
        return 2;
    }
    struct stat tst;
    if (ra.trace && lstat(ra.trace, &tst) == 0 && !S_ISREG(tst.st_mode)) {
        fprintf(stderr, _("cudojo run: --trace %s: it is %s; the trace replaces only a regular file\n"), ra.trace,
                _(fs_kind_name(tst.st_mode)));
        run_args_fini(&ra);
        return 2;
    }
    CmdTarget t;
    Diag *d = cmd_target_open(&t, cli, "run", ra.positional[0], ra.file);
    if (d) {
        run_args_fini(&ra);
        return cli_fail(d);
    }
    if (t.note) fputs(t.note, stderr);
    if (ea.explain) {
        int st = run_explain(cli, &ea, &ra, &t);
        cmd_target_close(&t);
        run_args_fini(&ra);
        return st;
    }
    Workspace *ws = t.ws;
    const ChapterMeta *ch = t.ch;
    const ExerciseMeta *ex = t.ex;
    struct sigaction sa = {.sa_handler = on_sigint};
    sigaction(SIGINT, &sa, NULL);
    if (!cli->json && isatty(2)) fprintf(stderr, _("running %s…\n"), ex->id);
    Runner *runner = attempt_runner_new(cli);
    AttemptParams params = {(const char *const *)ra.keys, (const char *const *)ra.values, ra.n_params};
    EarlyVerdict early = {cli, ex, false};
    RunResult *res = attempt_run_verdict(ws, runner, ch, ex, t.file, &params, t.file == NULL, &run_cancelled,
                                         on_early_verdict, &early);
    int status = res->verdict == VERDICT_PASS ? 0 : 1;
    if (cli->json) {
        cli_print_json(run_result_to_json(res));
    } else {
        if (early.printed) {
            cmd_print_after_verdict(res, stdout, cli->color);
        } else {
            print_title(ex);
            run_result_print(res, stdout, cli->color);
        }
        if (res->verdict == VERDICT_PASS) {
            const ChapterMeta *nch;
            const ExerciseMeta *next = attempt_next_exercise(ws, &nch);
            if (next && t.file == NULL) printf(_("\nNext: cudojo run %s\n"), next->id);
        } else if (res->verdict == VERDICT_FAIL && ex->n_hints > 0) {
            printf(_("\nStuck? `cudojo hint %s`\n"), ex->id);
        }
    }
    /* The trace is written last: the attempt is recorded and the verdict
     * shown whatever happens to the file. */
    if (ra.trace) {
        Diag *td = trace_write(res, ra.trace);
        if (td) {
            char *msg = i18n_message(td->message);
            fprintf(stderr, _("cudojo run: --trace: %s\n"), msg);
            free(msg);
            if (td->severity == DIAG_ERROR) status = 2;
        } else if (!cli->json) {
            const json_t *tl = trace_timeline_of(res);
            printf(_("\nTimeline%s written to %s (open it at https://ui.perfetto.dev or chrome://tracing)\n"),
                   json_is_true(json_object_get(tl, "modeled")) ? _(" (modeled)") : "", ra.trace);
        }
        diag_free(&td);
    }
    run_result_free(&res);
    runner_free(&runner);
    cmd_target_close(&t);
    run_args_fini(&ra);
    return status;
}

/* The command's entry in the table app/cli.c lists. */
const Command CMD_RUN = {"run", "EXERCISE", N_("compile, run and check one exercise; record the attempt"),
    N_("Compiles your copy of EXERCISE, runs it on the GPU or the emulator, checks\n"
       "the results against the CPU reference and records the attempt.\n"
       "EXERCISE is an exercise id (vector-add) or a file: your copy\n"
       "(hello-gpu/vector-add.cu) is the same as the id; another file whose name is\n"
       "an exercise's (solutions/vector-add.cu) runs instead of your copy, as --file\n"
       "runs it, and is not recorded.\n"
       "Options:\n"
       "  --param K=V         override an exercise parameter (e.g. --param n=1000)\n"
       "  --file F            run F instead of your workspace copy (not recorded)\n"
       "  --trace FILE.json   write the run's timeline (copies, kernels, host work per\n"
       "                      stream) as Chrome trace JSON for Perfetto or\n"
       "                      chrome://tracing; a modeled timeline says so. On a GPU\n"
       "                      the times are CUPTI's (CUDOJO_TIMELINE=events: CUDA\n"
       "                      events around each call instead)\n"
       "  --explain LINE      instead of the verdict: the access map of source line\n"
       "                      LINE on the emulator (not recorded): one warp's 32\n"
       "                      lanes → array elements, the 128-byte lines and 32-byte\n"
       "                      sectors a global access touches, the 32 banks of a\n"
       "                      shared one with conflicting lanes stacked. Its warp is\n"
       "                      the first that ran the line\n"
       "  --explain worst     the same for the costliest line (sectors per request,\n"
       "                      bank conflicts)\n"
       "  --block X[,Y[,Z]]   with --explain: the block whose warp is drawn\n"
       "  --warp W            with --explain: its warp (threads 32*W .. 32*W+31)\n"
       "Exit status: 0 pass, 1 fail, 2 usage or setup error (or the trace could not\n"
       "be written: the attempt is still recorded). With --explain: 0 drawn, 1 the\n"
       "line has no global or shared access, never ran, or the run failed first.\n"),
    cmd_run};
