/* app/tui/tui_progress.c: the progress screen: per chapter, each exercise's
 * status, attempts, first pass, best kernel time, hints and time spent, as
 * recorded in the store. */
#include "app/tui/tui.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/i18n.h"
#include "base/xalloc.h"
#include "progress-db/store.h"

static void fmt_when(char *buf, size_t n, long long unix_ms) {
    if (unix_ms <= 0) {
        snprintf(buf, n, "—");
        return;
    }
    time_t tt = (time_t)(unix_ms / 1000);
    struct tm tmv;
    localtime_r(&tt, &tmv);
    strftime(buf, n, "%Y-%m-%d %H:%M", &tmv);
}

static void fmt_spent(char *buf, size_t n, double ms) {
    long s = (long)(ms / 1000);
    if (s < 60) snprintf(buf, n, "%lds", s);
    else if (s < 3600) snprintf(buf, n, "%ldm%02lds", s / 60, s % 60);
    else snprintf(buf, n, "%ldh%02ldm", s / 3600, (s / 60) % 60);
}

/* Builds the progress document from the store. Caller frees. */
static TextDoc *progress_doc(Tui *t) {
    TextDoc *doc = text_doc_new();
    const Course *c = t->ws->course;
    int passed = 0, total = 0, attempts = 0, hints = 0;
    double spent = 0;
    int id_w = 12;
    for (int ci = 0; ci < c->n_chapters; ci++)
        for (int e = 0; e < c->chapters[ci].n_exercises; e++) {
            int w = text_width(c->chapters[ci].exercises[e].id);
            if (w > id_w) id_w = w;
        }
    if (id_w > 24) id_w = 24;
    for (int ci = 0; ci < c->n_chapters; ci++) {
        const ChapterMeta *ch = &c->chapters[ci];
        text_doc_add_line(doc);
        text_doc_addf(doc, ROLE_H2, "%d  %s", ch->order, tui_chapter_title(t, ch));
        TextLine *h = text_doc_add_line(doc);
        text_line_add(h, ROLE_DIM, "  ");
        text_line_add_cell(h, ROLE_DIM, _("exercise"), id_w, false);
        text_line_add(h, ROLE_DIM, "  ");
        text_line_add_cell(h, ROLE_DIM, _("status"), 8, false);
        text_line_add_cell(h, ROLE_DIM, _("attempts"), 9, true);
        text_line_add(h, ROLE_DIM, "  ");
        text_line_add_cell(h, ROLE_DIM, _("first pass"), 16, false);
        text_line_add_cell(h, ROLE_DIM, _("best ms"), 9, true);
        text_line_add_cell(h, ROLE_DIM, _("hints"), 6, true);
        text_line_add_cell(h, ROLE_DIM, _("time"), 8, true);
        for (int e = 0; e < ch->n_exercises; e++) {
            const ExerciseMeta *ex = &ch->exercises[e];
            ExerciseStatus st;
            memset(&st, 0, sizeof st);
            Diag *d = store_exercise_status(t->ws->store, ex->id, &st);
            if (d) {
                text_doc_addf(doc, ROLE_FAIL, "  %s: %s", ex->id, d->message);
                diag_free(&d);
                continue;
            }
            total++;
            passed += st.passed;
            attempts += st.attempts;
            hints += st.hints_taken;
            spent += st.time_spent_ms;
            char when[32], best[32], tspent[32];
            fmt_when(when, sizeof when, st.first_pass_unix_ms);
            if (st.best_kernel_ms >= 0) snprintf(best, sizeof best, "%.3f", st.best_kernel_ms);
            else snprintf(best, sizeof best, "—");
            fmt_spent(tspent, sizeof tspent, st.time_spent_ms);
            TextLine *l = text_doc_add_line(doc);
            text_line_add(l, ROLE_NORMAL, "  ");
            text_line_add_cell(l, ROLE_BOLD, ex->id, id_w, false);
            text_line_add(l, ROLE_NORMAL, "  ");
            const char *word = st.passed ? _("passed") : st.attempts ? _("failing") : "—";
            text_line_add_cell(l, st.passed ? ROLE_PASS : st.attempts ? ROLE_FAIL : ROLE_DIM, word, 8, false);
            char num[32];
            snprintf(num, sizeof num, "%d", st.attempts);
            text_line_add_cell(l, ROLE_NORMAL, num, 9, true);
            text_line_add(l, ROLE_NORMAL, "  ");
            text_line_add_cell(l, ROLE_NORMAL, when, 16, false);
            text_line_add_cell(l, ROLE_NORMAL, best, 9, true);
            snprintf(num, sizeof num, "%d", st.hints_taken);
            text_line_add_cell(l, ROLE_NORMAL, num, 6, true);
            text_line_add_cell(l, ROLE_NORMAL, tspent, 8, true);
            exercise_status_fini(&st);
        }
    }
    char tspent[32];
    fmt_spent(tspent, sizeof tspent, spent);
    TextDoc *out = text_doc_new();
    text_doc_addf(out, ROLE_H1, _("%d of %d exercises passed"), passed, total);
    char n_att[64], n_hints[64];
    snprintf(n_att, sizeof n_att, P_(attempts, "%d attempt", "%d attempts"), attempts);
    snprintf(n_hints, sizeof n_hints, P_(hints, "%d hint taken", "%d hints taken"), hints);
    text_doc_addf(out, ROLE_NORMAL, _("%s, %s, %s spent running"), n_att, n_hints, tspent);
    for (int i = 0; i < doc->n; i++) text_doc_add_copy(out, &doc->lines[i]);
    text_doc_free(&doc);
    return out;
}

Panel *tui_progress_new(Tui *t) {
    Panel *p = tui_textview_new(t, _("cudojo — Progress"), progress_doc(t));
    p->title = N_("Progress");
    return p;
}
