/* app/tui/tui_exercise_actions.c: what the exercise view does besides
 * running: reset to the starter (as `cudojo reset`), the solution after a
 * pass, the learner's editor, and moving to the next/previous exercise. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app/tui/tui_exercise.h"
#include "app/tui/tui_highlight.h"
#include "base/i18n.h"
#include "base/fs.h"
#include "base/strbuf.h"
#include "base/xalloc.h"

/* Same as `cudojo reset`: the learner's file goes to .cudojo/backups, then the starter is copied. */
bool exview_reset(ExercisePanel *xp, Tui *t) {
    char *starter = path_join(xp->ch->dir, xp->ex->source);
    char *backup = NULL;
    Diag *d = NULL;
    if (fs_exists(xp->path)) {
        char *dir = path_join(t->ws->state_dir, "backups");
        char stamp[32];
        time_t now = time(NULL);
        strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", localtime(&now));
        char *name = xasprintf("%s.%s.cu", xp->ex->id, stamp);
        backup = path_join(dir, name);
        d = fs_mkdir_p(dir);
        if (!d) d = fs_copy_file(xp->path, backup);
        free(name);
        free(dir);
    }
    if (!d) d = fs_copy_file(starter, xp->path);
    bool failed = d != NULL;
    if (d) {
        tui_notify(t, true, _("reset failed: %s"), d->message);
        diag_free(&d);
    } else {
        tui_notify(t, false, _("%s is the starter again%s%s"), xp->shown, backup ? _("; yours is in ") : "",
                   backup ? backup : "");
    }
    free(starter);
    free(backup);
    return !failed;
}

void exview_show_solution(ExercisePanel *xp, Tui *t) {
    if (!xp->st.passed) {
        tui_notify(t, true, _("The solution opens once you have passed this exercise (H gives a hint)."));
        return;
    }
    if (!xp->ex->solution) {
        tui_notify(t, true, _("This exercise has no solution file."));
        return;
    }
    char *sp = path_join(xp->ch->dir, xp->ex->solution);
    char *text = NULL;
    Diag *d = fs_read_file(sp, &text, NULL);
    free(sp);
    if (d) {
        tui_notify(t, true, "%s", d->message);
        diag_free(&d);
        return;
    }
    TextDoc *doc = text_doc_new();
    HlState hs = {0};
    const char *p = text;
    int ln = 1;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char *one = xstrndup(p, len);
        TextLine *l = text_doc_add_line(doc);
        text_line_addf(l, ROLE_LINENO, "%4d  ", ln++);
        hl_line(l, one, &hs, ROLE_NORMAL);
        free(one);
        p += len + (nl ? 1 : 0);
    }
    free(text);
    char *title = xasprintf(_("cudojo — Solution: %s"), xp->ex->id);
    tui_open(t, &(TuiRequest){.what = TUI_OPEN_TEXT, .title = title, .doc = doc});
    free(title);
}

/* The exercise before/after this one in course order. */
bool exview_neighbour(const ExercisePanel *xp, const Course *c, int dir, const ChapterMeta **ch,
                      const ExerciseMeta **ex) {
    int ci = (int)(xp->ch - c->chapters), ei = (int)(xp->ex - xp->ch->exercises);
    for (;;) {
        ei += dir;
        while (ci >= 0 && ci < c->n_chapters && (ei < 0 || ei >= c->chapters[ci].n_exercises)) {
            ci += dir;
            if (ci < 0 || ci >= c->n_chapters) return false;
            ei = dir > 0 ? 0 : c->chapters[ci].n_exercises - 1;
        }
        if (ci < 0 || ci >= c->n_chapters) return false;
        if (ei >= 0 && ei < c->chapters[ci].n_exercises) break;
    }
    *ch = &c->chapters[ci];
    *ex = &c->chapters[ci].exercises[ei];
    return true;
}

void exview_edit(ExercisePanel *xp, Tui *t) {
    const char *ed = getenv("VISUAL");
    if (!ed || !*ed) ed = getenv("EDITOR");
    if (!ed || !*ed) ed = "vi";
    /* The path is single-quoted for the shell; a quote inside becomes '\''. */
    StrBuf cmd;
    strbuf_init(&cmd);
    strbuf_printf(&cmd, "%s '", ed);
    for (const char *p = xp->path; *p; p++) {
        if (*p == '\'') strbuf_append(&cmd, "'\\''");
        else strbuf_append_char(&cmd, *p);
    }
    strbuf_append(&cmd, "'");
    int rc = tui_run_foreground(t, cmd.data);
    if (rc != 0) tui_notify(t, true, _("the editor (%s) exited with status %d"), ed, rc);
    strbuf_fini(&cmd);
}

