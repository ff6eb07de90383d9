/* app/tui/tui_access.c: the access map in the exercise view's results
 * pane. `a` runs the learner's file on the emulator with one warp recorded
 * (app/access_explain.h) and draws the worst line's memory accesses
 * (app/access_map.h) at the end of the pane; `a` again draws the next line
 * by cost (the same recording when it covers that line), and after the
 * last one hides the map. A save makes the map stale: it says so, and the
 * next `a` records again. */
#include <stdlib.h>
#include <string.h>

#include "app/access_explain.h"
#include "app/tui/tui_exercise.h"
#include "base/fs.h"
#include "base/i18n.h"
#include "base/xalloc.h"

struct AccessPane {
    AccessExplain x;
    int rank;                /* the line shown: ranked[rank] */
    long long mtime;         /* the file's when recorded */
    char *source;            /* its text then */
    char *error;             /* why nothing is drawn; NULL when a map is */
    bool scroll;             /* bring the section into view at the next layout */
};

void exview_access_free(ExercisePanel *xp) {
    AccessPane *p = xp->access;
    if (!p) return;
    access_explain_fini(&p->x);
    free(p->source);
    free(p->error);
    free(p);
    xp->access = NULL;
}

void exview_access_key(ExercisePanel *xp, Tui *t) {
    AccessPane *p = xp->access;
    long long mtime = fs_mtime_ns(xp->path);
    if (p && p->mtime != mtime) {   /* the file changed: record it again, from the worst line */
        exview_access_free(xp);
        p = NULL;
    }
    int rank = 0;
    if (p) {
        if (p->error || p->x.n_ranked <= 1 || p->rank + 1 >= p->x.n_ranked) {
            exview_access_free(xp);
            xp->info_width = 0;
            tui_notify(t, false, _("access map hidden (a draws the worst line again)"));
            return;
        }
        rank = p->rank + 1;
    } else {
        p = xp->access = xcalloc(1, sizeof *p);
        p->x.rank = -1;
        p->mtime = mtime;
    }
    DebugTarget tg;
    Diag *d = debug_target_init(&tg, xp->ch, xp->ex, xp->path);
    if (!d) {
        free(p->source);
        p->source = xstrdup(tg.source);
        AccessExplainRequest rq = {.line = 0, .rank = rank};
        d = access_explain_run(&tg, &rq, &p->x);
        debug_target_fini(&tg);
    }
    free(p->error);
    p->error = NULL;
    if (d) {
        p->error = xstrdup(d->message);
        diag_free(&d);
    } else {
        p->rank = p->x.rank >= 0 ? p->x.rank : rank;
    }
    p->scroll = true;
    xp->info_width = 0;
}

void exview_access_render(ExercisePanel *xp, TextDoc *doc, int width, bool utf8) {
    AccessPane *p = xp->access;
    if (!p) return;
    text_doc_add_line(doc);
    if (p->scroll) {
        xp->info_scroll.top = doc->n;
        p->scroll = false;
    }
    if (p->x.trace && !p->error)
        text_doc_addf(doc, ROLE_H3, _("Access map: line %d (%d of %d by cost; a: the next)"), p->x.line, p->rank + 1,
                      p->x.n_ranked);
    else text_doc_add_text(doc, ROLE_H3, _("Access map"));
    if (p->error) {
        text_doc_add_text(doc, ROLE_WARN, p->error);
        return;
    }
    if (fs_mtime_ns(xp->path) != p->mtime)
        text_doc_add_text(doc, ROLE_DIM, _("(drawn from an earlier version of the file: a draws it again)"));
    if (width < 74) text_doc_add_text(doc, ROLE_DIM, _("(z widens this pane to show the whole map)"));
    AccessMapText m = {0};
    access_explain_render(&m, &p->x, p->source, width, utf8);
    for (int i = 0; i < m.n; i++) text_doc_add_text(doc, ROLE_NORMAL, m.line[i]);
    access_map_text_fini(&m);
}
