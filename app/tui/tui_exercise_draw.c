/* app/tui/tui_exercise_draw.c: the exercise view's panes: the source with
 * line numbers, heat column and marked lines, and the statement + result +
 * hints pane; side by side from 100 columns, stacked below, or one zoomed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/tui/tui_exercise.h"
#include "base/i18n.h"
#include "base/xalloc.h"

int exview_hints_shown(const ExercisePanel *xp) {
    int n = 0;
    for (int i = 0; xp->hint_seen && i < xp->ex->n_hints; i++) n += xp->hint_seen[i];
    return n;
}

bool exview_hint_seen(const ExercisePanel *xp, int i) {
    return xp->hint_seen && i >= 0 && i < xp->ex->n_hints && xp->hint_seen[i];
}

/* The task (title, file, statement) comes first and stays at the top of the
 * pane whatever the runs do; the result follows it, then the hints taken. */
void exview_layout_info(ExercisePanel *xp, Tui *t, int width) {
    text_doc_free(&xp->info);
    TextDoc *doc = xp->info = text_doc_new();
    xp->info_width = width;
    const ExerciseMeta *ex = xp->ex;
    TextLine *l = text_doc_add_line(doc);
    text_line_add(l, ROLE_H3, tui_exercise_title(t, ex));
    l = text_doc_add_line(doc);
    text_line_add(l, ROLE_DIM, _("file "));
    text_line_add(l, ROLE_BOLD, xp->shown);
    l = text_doc_add_line(doc);
    text_line_addf(l, ROLE_DIM, _("attempts %d"), xp->st.attempts);
    if (xp->st.passed) {
        text_line_add(l, ROLE_DIM, "  ");
        text_line_add(l, ROLE_PASS, xp->st.passed_fast ? _("passed-fast") : _("passed"));
        if (xp->st.best_kernel_ms >= 0) text_line_addf(l, ROLE_DIM, _("  best %.3f ms"), xp->st.best_kernel_ms);
    }
    int shown = exview_hints_shown(xp);
    text_line_addf(l, ROLE_DIM, _("  hints %d/%d"), shown, ex->n_hints);
    if (xp->statement) {
        /* Paragraphs of the statement are separated by blank lines. */
        const char *p = xp->statement;
        while (*p) {
            const char *end = strstr(p, "\n\n");
            size_t len = end ? (size_t)(end - p) : strlen(p);
            TextLine para = {0};
            text_line_addn(&para, ROLE_NORMAL, p, len);
            text_doc_add_line(doc);
            text_wrap(doc, &para, width, NULL, NULL);
            text_line_fini(&para);
            p += len + (end ? 2 : 0);
        }
    }
    text_doc_add_line(doc);
    xp->result_line = doc->n;
    if (xp->running && !xp->profiling) {
        text_doc_add_text(doc, ROLE_WARN, _("running…"));
    } else if (xp->result) {
        if (xp->result_is_stored) text_doc_add_text(doc, ROLE_DIM, _("Last recorded run:"));
        results_render(doc, xp->result, width, t->utf8, xp->all_metrics);
        if (xp->profiling) {
            text_doc_add_line(doc);
            /* a profiler's or compute-sanitizer's, as the verdict says; wrapped: a side pane is narrow */
            TextLine para = {0};
            text_line_add(&para, ROLE_WARN, _(run_result_after_doing(xp->result)));
            text_line_add(&para, ROLE_WARN, _(" (the verdict above is final)"));
            text_wrap(doc, &para, width, NULL, NULL);
            text_line_fini(&para);
        }
    } else {
        TextLine para = {0};
        text_line_add(&para, ROLE_NORMAL, _("Open the file with "));
        text_line_add(&para, ROLE_KEY, "e");
        text_line_add(&para, ROLE_NORMAL, _(" (or in any editor); every save runs it. "));
        text_line_add(&para, ROLE_KEY, "r");
        text_line_add(&para, ROLE_NORMAL, _(" runs it now, "));
        text_line_add(&para, ROLE_KEY, "l");
        text_line_add(&para, ROLE_NORMAL, _(" reads the lesson, "));
        text_line_add(&para, ROLE_KEY, "H");
        text_line_add(&para, ROLE_NORMAL, _(" asks for a hint."));
        text_wrap(doc, &para, width, NULL, NULL);
        text_line_fini(&para);
    }
    exview_access_render(xp, doc, width, t->utf8);
    if (shown > 0) {
        text_doc_add_line(doc);
        xp->hints_line = doc->n;
        text_doc_add_text(doc, ROLE_H3, _("Hints"));
        for (int i = 0; i < ex->n_hints; i++) {
            if (!exview_hint_seen(xp, i)) continue;
            TextLine para = {0}, first = {0}, rest = {0};
            text_line_addf(&first, ROLE_BOLD, "%d. ", i + 1);
            text_line_add(&rest, ROLE_NORMAL, "   ");
            text_line_add(&para, ROLE_NORMAL, tui_hint(t, ex, i));
            text_wrap(doc, &para, width, &first, &rest);
            text_line_fini(&para);
            text_line_fini(&first);
            text_line_fini(&rest);
        }
    }
}

static void exview_draw_source(ExercisePanel *xp, Tui *t, int top, int h, int x, int w) {
    int gut = 6;    /* "1234" + heat + space */
    xp->src_text_w = w - gut;
    TextScroll *s = &xp->src_scroll;
    s->height = h;
    int max_top = xp->src->n - h;
    if (s->top > max_top) s->top = max_top;
    if (s->top < 0) s->top = 0;
    for (int i = 0; i < h; i++) {
        int li = s->top + i;
        int y = top + i;
        if (li >= xp->src->n) {
            tui_fill(y, x, w, ROLE_NORMAL);
            continue;
        }
        const TextLine *line = &xp->src->lines[li];
        int ln = line->tag;
        bool err = xp->err_lines && ln >= 1 && ln <= xp->n_err_lines && xp->err_lines[ln];
        char num[16];
        snprintf(num, sizeof num, "%4d", ln);
        if (ln == 0) snprintf(num, sizeof num, "    ");
        tui_put(y, x, 4, err ? ROLE_ERRLINE : ROLE_LINENO, num);
        int heat = xp->heat && ln >= 1 && ln <= xp->heat_lines ? xp->heat[ln] : 0;
        static const int HEAT_ROLE[4] = {ROLE_NORMAL, ROLE_HEAT_LOW, ROLE_HEAT_MID, ROLE_HEAT_HIGH};
        const char *glyph = heat == 0 ? " " : heat == 1 ? tui_glyph(t, "░", ".") : heat == 2 ? tui_glyph(t, "▒", "o")
                                                                                         : tui_glyph(t, "█", "#");
        tui_put(y, x + 4, 1, HEAT_ROLE[heat], glyph);
        tui_put(y, x + 5, 1, err ? ROLE_FAIL : ROLE_NORMAL, err ? tui_glyph(t, "▶", ">") : " ");
        tui_put_line(y, x + gut, w - gut, line, s->hscroll, s->search, err ? ROLE_ERRLINE : -1,
                     err ? ROLE_ERRLINE : ROLE_NORMAL);
        /* Cut lines say so: › at the right edge, ‹ in the marker column when scrolled sideways. */
        int lw = text_line_width(line);
        if (lw - s->hscroll > w - gut) tui_put(y, x + w - 1, 1, ROLE_KEY, tui_glyph(t, "›", ">"));
        if (s->hscroll > 0 && lw > 0 && !err) tui_put(y, x + 5, 1, ROLE_KEY, tui_glyph(t, "‹", "<"));
    }
}

static void ex_pane_header(Tui *t, int y, int x, int w, bool focused, const char *text) {
    (void)t;
    tui_fill(y, x, w, focused ? ROLE_SELECTED : ROLE_BORDER);
    tui_put(y, x + 1, w - 2, focused ? ROLE_SELECTED : ROLE_BORDER, text);
}

void exview_draw(Panel *p, Tui *t, int top, int h, int w) {
    ExercisePanel *xp = (ExercisePanel *)p;
    char *title = xasprintf("cudojo — %s › %s", tui_chapter_title(t, xp->ch), xp->ex->id);
    char running[48];
    snprintf(running, sizeof running, _("running %.1f s"), tui_now() - xp->run_started);
    const char *badge = xp->running && !xp->profiling ? running : xp->result ? results_verdict_label(xp->result->verdict)
                                                           : xp->st.passed_fast ? _("passed-fast") : xp->st.passed ? _("passed") : NULL;
    tui_draw_title(t, title, badge);
    free(title);

    bool side = w >= 100 && !xp->zoom;
    int src_w = side ? w * 11 / 20 : w;
    int info_x = side ? src_w + 1 : 0;
    int info_w = side ? w - info_x : w;
    if (!xp->info || xp->info_width != info_w - 3) exview_layout_info(xp, t, info_w - 3);

    int src_top = top, src_h, info_top, info_h;
    bool draw_src = !xp->zoom || xp->focus_src, draw_info = !xp->zoom || !xp->focus_src;
    if (xp->zoom) {
        src_h = info_h = h;
        info_top = top;
    } else if (side) {
        src_h = info_h = h;
        info_top = top;
        for (int y = top; y < top + h; y++) tui_put(y, src_w, 1, ROLE_BORDER, tui_glyph(t, "│", "|"));
    } else {
        src_h = (h - 1) / 2;
        if (src_h > xp->src->n + 1) src_h = xp->src->n + 1 < 4 ? 4 : xp->src->n + 1;
        info_top = top + src_h;
        info_h = h - src_h;
    }
    char head[512];
    snprintf(head, sizeof head, "%s%s", xp->shown,
             xp->heat_lines ? _("   heat: ░ fine ▒ look █ costly") : "");
    if (!t->utf8 && xp->heat_lines) snprintf(head, sizeof head, _("%s   heat: . fine o look # costly"), xp->shown);
    xp->src_y0 = src_top;
    xp->src_y1 = draw_src ? src_top + src_h : src_top;
    xp->src_x1 = src_w;
    if (draw_src) {
        ex_pane_header(t, src_top, 0, src_w, xp->focus_src, head);
        exview_draw_source(xp, t, src_top + 1, src_h - 1, 0, src_w);
    }

    char ihead[160];
    if (xp->profiling) {
        snprintf(ihead, sizeof ihead,
                 run_result_after_kind(xp->result) == RUN_AFTER_SANITIZER ? _("Result: %s · compute-sanitizer %.1f s")
                                                                         : _("Result: %s · profiling %.1f s"),
                 results_verdict_label(xp->result->verdict), tui_now() - xp->run_started);
    } else if (xp->running) {
        static const char *const SPIN[] = {"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"};
        static const char *const SPIN_ASCII[] = {"|", "/", "-", "\\"};
        double el = tui_now() - xp->run_started;
        int f = (int)(el * 10);
        snprintf(ihead, sizeof ihead, _("%s running %.1f s — Esc stops it"), t->utf8 ? SPIN[f % 10] : SPIN_ASCII[f % 4],
                 el);
    } else if (xp->result) {
        snprintf(ihead, sizeof ihead, _("Exercise and result: %s"), results_verdict_label(xp->result->verdict));
    } else {
        snprintf(ihead, sizeof ihead, _("Exercise and result"));
    }
    /* After a run, a hint or m: bring what changed into view if it is below the pane. */
    int rows = info_h - 1;
    if (xp->scroll_to_result && xp->result_line >= xp->info_scroll.top + rows) xp->info_scroll.top = xp->result_line - 1;
    if (xp->scroll_to_hints) xp->info_scroll.top = xp->info->n;   /* clamped: the end, where the new hint is */
    xp->scroll_to_result = xp->scroll_to_hints = false;
    if (draw_info) {
        ex_pane_header(t, info_top, info_x, info_w, !xp->focus_src, ihead);
        for (int y = info_top + 1; y < info_top + info_h; y++) tui_fill(y, info_x, info_w, ROLE_NORMAL);
        text_scroll_draw(&xp->info_scroll, xp->info, info_top + 1, info_h - 1, info_x + 1, info_w - 1);
    }

    if (xp->confirm_reset) {
        char *q = xasprintf(_("Reset %s to the starter? Your version is backed up first."), xp->shown);
        tui_draw_confirm(t, q);
        free(q);
        return;
    }
    if (xp->confirm_hint >= 0) {
        char *q = xasprintf(_("Reveal hint %d of %d? It is recorded."), xp->confirm_hint + 1, xp->ex->n_hints);
        tui_draw_confirm(t, q);
        free(q);
        return;
    }
    TextScroll *fs = xp->focus_src ? &xp->src_scroll : &xp->info_scroll;
    if (!text_scroll_draw_prompt(fs, t))
        tui_draw_status(t, xp->running ? _("Esc stop  e edit  Tab pane  ? help")
                                       : _("r run  e edit  H hint  m metrics  t timeline  o occupancy  ? help  s solution  x reset  ] next  [ prev  Tab pane  z zoom  l lesson  ←→ sideways  q back"));
}

