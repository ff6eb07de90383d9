/* app/tui/tui_debug.c: the warp debugger's screen: one warp of one block
 * of the learner's kernel, a source line at a time.
 *
 * The run is recorded once (app/cmd_debug.c's debug_trace_run, the
 * recorder kernels/emu/emu_trace.c); stepping forward and back replays the
 * recording, so a key costs one frame: what the frame shows is built off
 * screen, free of curses (tui_debug_frame.c, which bench/bench_debug.c
 * times), and painted here. w and B follow another warp or block: that is
 * a new recording. */
#include "app/tui/tui.h"

#include <stdlib.h>
#include <string.h>

#include "app/tui/tui_debug.h"
#include "app/tui/tui_debug_frame.h"
#include "base/i18n.h"
#include "base/xalloc.h"

typedef struct DebugPanel {
    Panel base;
    DebugTarget tg;          /* copies of the strings */
    EmuTrace *tr;
    DebugView view;          /* the step, the lanes shown, the source */
    DebugFrame frame;        /* the last frame built (its size follows the screen's) */
} DebugPanel;

static const TuiKeyHelp DEBUG_HELP[] = {
    {"n → Space", N_("next step (the warp's next line)")},
    {"p ←", N_("step back")},
    {"b", N_("run to the next __syncthreads()")},
    {"e / g", N_("run to the end / back to the start")},
    {"f", N_("the line of the first finding")},
    {"w / B", N_("follow the next warp / the next block (records it)")},
    {"< >", N_("other lanes in the variables table")},
    {"q Esc", N_("back")},
    {NULL, NULL},
};

/* Paints frame f at (top, 0): each row in runs of one role. */
static void paint_frame(const DebugFrame *f, int top) {
    size_t cap = (size_t)f->cols * 7 + 1;
    char *run = xmalloc(cap);
    for (int y = 0; y < f->rows; y++) {
        int x = 0;
        while (x < f->cols) {
            int role = debug_frame_cell(f, y, x)->role, x0 = x;
            size_t n = 0;
            for (; x < f->cols && debug_frame_cell(f, y, x)->role == role; x++) {
                const char *g = debug_frame_cell(f, y, x)->g;
                size_t k = strlen(g);
                memcpy(run + n, g, k);
                n += k;
            }
            run[n] = 0;
            tui_put(top + y, x0, x - x0, role, run);
        }
    }
    free(run);
}

static void debug_draw(Panel *pn, Tui *t, int top, int h, int w) {
    DebugPanel *dp = (DebugPanel *)pn;
    const EmuTrace *tr = dp->tr;
    char *title = xasprintf(_("cudojo — Debugger: %s"), tui_exercise_title(t, dp->tg.ex));
    char right[96];
    snprintf(right, sizeof right, _("block (%u,%u,%u) warp %d/%d"), tr->block_idx[0], tr->block_idx[1],
             tr->block_idx[2], tr->warp, tr->n_warps);
    tui_draw_title(t, title, right);
    free(title);
    tui_draw_status(t, _("n next  p back  b barrier  e end  f finding  w warp  B block  < > lanes  q quit"));
    if (dp->frame.rows != h || dp->frame.cols != w || dp->frame.utf8 != t->utf8) {
        debug_frame_fini(&dp->frame);
        debug_frame_init(&dp->frame, h, w, t->utf8);
    }
    debug_frame_build(&dp->frame, &dp->view);
    paint_frame(&dp->frame, top);
}

/* Records another warp or block and keeps the place: the first step at the line shown. */
static void follow(DebugPanel *dp, Tui *t, const unsigned block[3], int warp) {
    Diag *err = NULL;
    EmuTrace *tr = debug_trace_run(&dp->tg, block, warp, &err);
    if (!tr) {
        char *why = i18n_message(err ? err->message : N_("the run failed"));
        tui_notify(t, true, "%s", why);
        free(why);
        diag_free(&err);
        return;
    }
    debug_view_retrace(&dp->view, tr);
    emu_trace_free(&dp->tr);
    dp->tr = tr;
}

static int debug_key(Panel *pn, Tui *t, int key) {
    DebugPanel *dp = (DebugPanel *)pn;
    EmuTrace *tr = dp->tr;
    switch (key) {
    case 'q': case 27: return TUI_POP;
    case 'n': case ' ': case KEY_RIGHT: case 'j': case KEY_DOWN:
        if (!debug_view_move(&dp->view, DEBUG_MOVE_NEXT))
            tui_notify(t, false, "%s", _("The warp has finished: this is the last step."));
        return TUI_HANDLED;
    case 'p': case KEY_LEFT: case 'k': case KEY_UP: debug_view_move(&dp->view, DEBUG_MOVE_BACK); return TUI_HANDLED;
    case 'b': debug_view_move(&dp->view, DEBUG_MOVE_BARRIER); return TUI_HANDLED;
    case 'e': case 'G': debug_view_move(&dp->view, DEBUG_MOVE_END); return TUI_HANDLED;
    case 'g': debug_view_move(&dp->view, DEBUG_MOVE_START); return TUI_HANDLED;
    case 'f':
        if (!debug_view_move(&dp->view, DEBUG_MOVE_FINDING))
            tui_notify(t, false, "%s", _("This warp's block made no finding."));
        return TUI_HANDLED;
    case '<': debug_view_move(&dp->view, DEBUG_MOVE_LANES_LEFT); return TUI_HANDLED;
    case '>': debug_view_move(&dp->view, DEBUG_MOVE_LANES_RIGHT); return TUI_HANDLED;
    case 'w': {
        int nw = tr->n_warps > 0 ? tr->n_warps : 1;
        follow(dp, t, tr->block_idx, (tr->warp + 1) % nw);
        return TUI_HANDLED;
    }
    case 'B': {
        unsigned b[3] = {tr->block_idx[0] + 1, tr->block_idx[1], tr->block_idx[2]};
        if (b[0] >= tr->grid.x) {
            b[0] = 0;
            if (++b[1] >= tr->grid.y) { b[1] = 0; if (++b[2] >= tr->grid.z) b[2] = 0; }
        }
        follow(dp, t, b, tr->warp);
        return TUI_HANDLED;
    }
    default: return TUI_UNHANDLED;
    }
}

static void debug_free(Panel *pn, Tui *t) {
    (void)t;
    DebugPanel *dp = (DebugPanel *)pn;
    debug_frame_fini(&dp->frame);
    debug_view_fini(&dp->view);
    emu_trace_free(&dp->tr);
    debug_target_fini(&dp->tg);
    free(dp);
}

Panel *tui_debug_new_trace(Tui *t, const DebugTarget *tg, EmuTrace *tr, int start) {
    (void)t;
    DebugPanel *dp = xcalloc(1, sizeof *dp);
    dp->base = (Panel){.title = N_("Warp debugger"), .help = DEBUG_HELP, .draw = debug_draw, .key = debug_key,
                       .free = debug_free};
    dp->tg = *tg;
    dp->tg.cu_path = xstrdup(tg->cu_path);
    dp->tg.display = xstrdup(tg->display);
    dp->tg.source = xstrdup(tg->source ? tg->source : "");
    dp->tr = tr;
    debug_view_init(&dp->view, tr, dp->tg.source);
    dp->view.step = start >= 0 && start < tr->n_steps ? start : 0;
    return &dp->base;
}

Panel *tui_debug_new(Tui *t, const ChapterMeta *ch, const ExerciseMeta *ex) {
    if (ex->program) {
        tui_notify(t, true, "%s", _("The debugger steps through kernels of kernel exercises; this one is a whole program."));
        return NULL;
    }
    char *path = workspace_exercise_path(t->ws, ch, ex);
    DebugTarget tg;
    Diag *d = debug_target_init(&tg, ch, ex, path);
    free(path);
    if (d) {
        tui_notify(t, true, "%s", d->message);
        diag_free(&d);
        return NULL;
    }
    unsigned b[3] = {0, 0, 0};
    EmuTrace *tr = debug_trace_run(&tg, b, 0, &d);
    if (!tr) {
        char *why = i18n_message(d ? d->message : N_("the run failed"));
        tui_notify(t, true, "%s", why);
        free(why);
        diag_free(&d);
        debug_target_fini(&tg);
        return NULL;
    }
    Panel *p = tui_debug_new_trace(t, &tg, tr, 0);
    debug_target_fini(&tg);
    return p;
}
