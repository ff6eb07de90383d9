/* app/cmd_debug.c: `cudojo debug EXERCISE`: the warp debugger. Runs the
 * exercise on the emulator with one warp of one block traced, then opens
 * the debugger screen (app/tui/tui_debug.c) on the trace, or prints the
 * steps when the output is not a terminal (--print).
 *
 * The session half (debug_target_*, debug_trace_run) is shared with the
 * workbench, which opens the same screen from an exercise. The run happens
 * in this process on a fresh emulator backend: the emulator checks every
 * access, so the learner's kernel cannot reach our memory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/cli.h"
#include "app/cmd_args.h"
#include "app/debug.h"
#include "app/tui/tui_debug.h"
#include "app/workspace.h"
#include "base/fs.h"
#include "base/i18n.h"
#include "base/xalloc.h"

Diag *debug_target_init(DebugTarget *t, const ChapterMeta *ch, const ExerciseMeta *ex, const char *cu_path) {
    memset(t, 0, sizeof *t);
    t->ch = ch;
    t->ex = ex;
    t->cu_path = path_absolute(cu_path);
    t->display = workspace_display_path(t->cu_path);
    size_t len;
    Diag *d = fs_read_file(t->cu_path, &t->source, &len);
    if (d) debug_target_fini(t);
    return d;
}

void debug_target_fini(DebugTarget *t) {
    free(t->cu_path);
    free(t->display);
    free(t->source);
    memset(t, 0, sizeof *t);
}

EmuTrace *debug_trace_run(const DebugTarget *t, const unsigned block[3], int warp, Diag **err) {
    *err = NULL;
    EmuOptions eo = {.deterministic = true, .checks = true, .metrics = true};
    Diag *why = NULL;
    Backend *b = emu_backend_new(&eo, &why);
    if (!b) {
        *err = why ? why : diag_error("debug", "%s", N_("the emulator could not start"));
        return NULL;
    }
    EmuTraceRequest rq = {.block = {block[0], block[1], block[2]}, .warp = warp, .cap_bytes = t->cap_bytes,
                          .stop_after = true};
    Diag *d = emu_trace_arm(b, &rq);
    if (d) {
        *err = d;
        backend_close(&b);
        return NULL;
    }
    ExerciseRunOptions opts = {.cu_path = t->cu_path, .cu_display = t->display};
    RunResult *res = exercise_run(t->ex, b, &opts);
    EmuTrace *tr = emu_trace_take(b);
    if (!tr) {
        const Diag *first = res->diags;
        while (first && first->severity != DIAG_ERROR) first = first->next;
        if (first)
            *err = diag_new(DIAG_ERROR, first->code, first->file, first->line, first->col,
                            N_("%s: nothing to step through: %s"), t->ex->id, first->message);
        else
            *err = diag_error("debug", N_("%s launched no kernel, so there is nothing to step through (%s)"), t->ex->id,
                              res->summary ? res->summary : N_("no launch"));
    }
    run_result_free(&res);
    backend_close(&b);
    return tr;
}

bool debug_first_finding_at(const EmuTrace *tr, unsigned block[3], int *warp) {
    for (int i = 0; i < tr->n_findings; i++) {
        const EmuTraceFinding *f = &tr->findings[i];
        if (!f->error || !f->has_thread) continue;
        memcpy(block, f->block, sizeof f->block);
        unsigned tid = f->thread[0] + f->thread[1] * tr->block.x + f->thread[2] * tr->block.x * tr->block.y;
        *warp = (int)(tid / 32);
        return true;
    }
    return false;
}

/* ---- the command ----------------------------------------------------------------------- */
typedef struct DebugArgs {
    const char *exercise, *file;
    WarpPick pick;     /* --block, --warp */
    int line;
    bool first_finding, solution, print;
} DebugArgs;

static int parse_args(int argc, char **argv, DebugArgs *a) {
    memset(a, 0, sizeof *a);
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        unsigned u;
        int taken = cmd_take_warp_option(&a->pick, "debug", argc, argv, &i);
        if (taken == 2) return 2;
        if (taken) continue;
        if (!strcmp(s, "--line") && v) {
            if (!cmd_parse_uint(v, &u) || !u) { fprintf(stderr, _("cudojo debug: --line %s: expects a line number\n"), v); return 2; }
            a->line = (int)u;
            i++;
        } else if (!strcmp(s, "--file") && v) {
            a->file = v;
            i++;
        } else if (!strcmp(s, "--first-finding")) a->first_finding = true;
        else if (!strcmp(s, "--solution")) a->solution = true;
        else if (!strcmp(s, "--print")) a->print = true;
        else if (s[0] == '-' && s[1]) {
            fprintf(stderr, _("cudojo debug: unknown option %s (see cudojo debug --help)\n"), s);
            return 2;
        } else if (!a->exercise) a->exercise = s;
        else { fprintf(stderr, "%s", _("cudojo debug: expects one EXERCISE\n")); return 2; }
    }
    if (!a->exercise) { fprintf(stderr, "%s", _("cudojo debug: expects one EXERCISE (see `cudojo list`)\n")); return 2; }
    if (a->line && a->first_finding) { fprintf(stderr, "%s", _("cudojo debug: --line and --first-finding exclude each other\n")); return 2; }
    if (a->file && a->solution) { fprintf(stderr, "%s", _("cudojo debug: --file and --solution exclude each other\n")); return 2; }
    return 0;
}

/* The steps as text: one line per step with the variables of the first active lane. */
static void print_trace(const DebugTarget *tg, const EmuTrace *tr, int start, FILE *out) {
    printf(_("%s: kernel %s, block (%u,%u,%u), warp %d of %d: %d steps, %d memory instructions\n"), tg->ex->id,
           tr->kernel, tr->block_idx[0], tr->block_idx[1], tr->block_idx[2], tr->warp, tr->n_warps, tr->n_steps,
           tr->n_mem);
    if (tr->note) {
        char *note = i18n_message(tr->note);
        fprintf(out, _("note: %s\n"), note);
        free(note);
    }
    int shown = 0;
    for (int s = start < 0 ? 0 : start; s < tr->n_steps && shown < 400; s++, shown++) {
        const EmuTraceStep *st = &tr->steps[s];
        int lane = st->active ? __builtin_ctz(st->active) : 0;
        char kind[48];   /* padded by display width: 屏障 is two characters, four columns */
        i18n_pad(kind, sizeof kind, st->kind == EMU_STEP_BARRIER ? _("barrier") : st->kind == EMU_STEP_END ? _("end") : "",
                 8, false);
        fprintf(out, _("%5d  line %-4d %s %2d/32 "), s, st->line, kind, __builtin_popcount(st->active));
        const EmuTraceVal *v = emu_trace_vals(tr, s);
        for (int i = 0; i < tr->n_vars; i++) {
            if (!(v[i].set >> lane & 1)) continue;
            char buf[48];
            emu_trace_format(&v[i], lane, buf, sizeof buf);
            fprintf(out, " %s=%s", tr->var_names[i], buf);
        }
        fputc('\n', out);
    }
    if (tr->n_steps - (start < 0 ? 0 : start) > shown) fprintf(out, _("… %d more steps\n"), tr->n_steps - shown);
    for (int i = 0; i < tr->n_findings; i++) {
        char *msg = i18n_message(tr->findings[i].message);
        fprintf(out, _("finding: line %d: %s\n"), tr->findings[i].line, msg);
        free(msg);
    }
}

static int cmd_debug(Cli *cli, int argc, char **argv) {
    DebugArgs a;
    int rc = parse_args(argc, argv, &a);
    if (rc) return rc;
    CmdTarget t;
    Diag *d = cmd_target_open(&t, cli, "debug", a.exercise, a.file);
    if (d) return cli_fail(d);
    const ExerciseMeta *ex = t.ex;
    if (t.file && a.solution) {
        fprintf(stderr, _("cudojo debug: %s is not your copy of %s; --solution debugs the solution: give one of them\n"),
                a.exercise, ex->id);
        cmd_target_close(&t);
        return 2;
    }
    if (ex->program) {
        fprintf(stderr, _("cudojo debug: %s is a whole program, not kernels an exercise launches; the debugger "
                          "steps through kernels of kernel exercises\n"), ex->id);
        cmd_target_close(&t);
        return 3;
    }
    if (t.note) fputs(t.note, stderr);
    char *path = t.file ? xstrdup(t.file)
               : a.solution ? path_join(t.ch->dir, ex->solution) : workspace_exercise_path(t.ws, t.ch, ex);
    DebugTarget tg;
    d = debug_target_init(&tg, t.ch, ex, path);
    free(path);
    if (d) {
        cmd_target_close(&t);
        return cli_fail(d);
    }
    unsigned *block = a.pick.block;
    EmuTrace *tr = debug_trace_run(&tg, block, a.pick.warp, &d);
    if (tr && a.first_finding) {
        unsigned fb[3];
        int fw;
        if (!debug_first_finding_at(tr, fb, &fw)) {
            fprintf(stderr, _("cudojo debug: %s: the emulator found nothing to stop at; starting at the first line\n"),
                    ex->id);
        } else if (memcmp(fb, block, sizeof fb) || fw != a.pick.warp) {
            emu_trace_free(&tr);
            memcpy(block, fb, sizeof fb);
            a.pick.warp = fw;
            tr = debug_trace_run(&tg, block, a.pick.warp, &d);
        }
    }
    if (!tr) {
        debug_target_fini(&tg);
        cmd_target_close(&t);
        return cli_fail(d);
    }
    int start = 0;
    if (a.line) {
        start = emu_trace_find_line(tr, a.line, 0);
        if (start < 0) {
            fprintf(stderr, _("cudojo debug: warp %d of block (%u,%u,%u) never runs line %d; starting at the first "
                              "line\n"), a.pick.warp, block[0], block[1], block[2], a.line);
            start = 0;
        }
    } else if (a.first_finding) {
        start = emu_trace_find_finding(tr);
        if (start < 0) start = 0;
    }
    if (a.print || cli->json || !isatty(0) || !isatty(1)) {
        print_trace(&tg, tr, a.print ? 0 : start, stdout);
        rc = tr->n_steps > 0 ? 0 : 1;
        emu_trace_free(&tr);
    } else {
        rc = tui_debug_open(cli, &tg, tr, start);   /* takes tr */
    }
    debug_target_fini(&tg);
    cmd_target_close(&t);
    return rc;
}

/* The command's entry in the table app/cli.c lists. */
const Command CMD_DEBUG = {"debug", "EXERCISE", N_("step one warp of your kernel line by line (emulator)"),
    N_("Runs EXERCISE on the emulator with one warp of one block recorded, then\n"
       "steps through your kernel's source a line at a time: which of the 32 lanes\n"
       "run each line, your variables' values per lane, the block's shared memory.\n"
       "Stepping back is free (the run is recorded).\n"
       "Options:\n"
       "  --block X[,Y[,Z]]  the block to follow (default 0)\n"
       "  --warp W           its warp: threads 32*W .. 32*W+31 (default 0)\n"
       "  --line L           start at the first time the warp reaches line L\n"
       "  --first-finding    follow the thread of the emulator's first finding (an\n"
       "                     out-of-bounds access, a race) and stop at its line\n"
       "  --file F           debug F instead of your workspace copy (EXERCISE may\n"
       "                     also be a file: see cudojo run --help)\n"
       "  --solution         debug the exercise's solution (authors)\n"
       "  --print            print the steps instead of opening the screen (also\n"
       "                     when the output is not a terminal)\n"
       "Keys: n next line, p back, b next barrier, e end, w next warp, B next block,\n"
       "< > other lanes, q quit.\n"
       "Variable names come from the lines that assign them (the compiled code keeps\n"
       "only line numbers), so a value the compiler moved may show on a nearby line.\n"
       "Exit status: 0 shown, 1 nothing recorded, 2 usage or setup error, 3 a whole-\n"
       "program exercise (nothing to step).\n"),
    cmd_debug};
