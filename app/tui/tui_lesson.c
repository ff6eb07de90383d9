/* app/tui/tui_lesson.c: the lesson reader: a chapter's README.md (or its
 * README.zh-CN.md translation when the locale or the L key asks) laid out
 * by tui_markdown.c, scrollable and searchable. The layout is redone when
 * the width or the language changes, keeping the reading position. */
#include "app/tui/tui.h"

#include <stdlib.h>
#include <string.h>

#include "app/tui/tui_markdown.h"
#include "base/fs.h"
#include "base/i18n.h"
#include "base/xalloc.h"
#include "progress-db/store.h"

typedef struct LessonPanel {
    Panel base;
    const ChapterMeta *ch;
    char *text;             /* the markdown */
    size_t len;
    bool text_zh;           /* text is the translation */
    TextDoc *doc;
    int doc_width;          /* width doc was laid out for */
    TextScroll scroll;
} LessonPanel;

static const TuiKeyHelp LESSON_HELP[] = {
    {"j/k ↑/↓", N_("scroll a line")},
    {"Space/b PgDn/PgUp", N_("scroll a page")},
    {"d/u", N_("half a page down / up")},
    {"g/G", N_("start / end")},
    {"]/[", N_("next / previous section")},
    {"/ n N", N_("search, next, previous match")},
    {"Enter", N_("open the chapter's next exercise")},
    {"L", N_("English / 中文")},
    {"q Esc", N_("back to the map")},
    {NULL, NULL},
};

static void lesson_load(LessonPanel *lp, Tui *t) {
    free(lp->text);
    lp->text = NULL;
    lp->len = 0;
    lp->text_zh = false;
    Diag *d = NULL;
    if (t->zh) {
        char *zh = path_join(lp->ch->dir, "README.zh-CN.md");
        if (fs_exists(zh) && !(d = fs_read_file(zh, &lp->text, &lp->len))) lp->text_zh = true;
        diag_free(&d);
        free(zh);
    }
    if (!lp->text) {
        char *en = path_join(lp->ch->dir, "README.md");
        d = fs_read_file(en, &lp->text, &lp->len);
        free(en);
        if (d) {
            lp->text = xasprintf(_("# %s\n\nThis chapter has no lesson text (%s).\n"), lp->ch->title, d->message);
            lp->len = strlen(lp->text);
            diag_free(&d);
        }
    }
    text_doc_free(&lp->doc);
    lp->doc_width = 0;
}

static int layout_width(int w) { return w > 102 ? 100 : w - 2; }

static void lesson_layout(LessonPanel *lp, int w, bool utf8) {
    int lw = layout_width(w);
    if (lp->doc && lp->doc_width == lw) return;
    /* Keep the reader at the same place in the text across a re-layout. */
    double frac = lp->doc && lp->doc->n ? (double)lp->scroll.top / lp->doc->n : 0;
    text_doc_free(&lp->doc);
    lp->doc = md_render(lp->text, lp->len, lw, utf8);
    lp->doc_width = lw;
    lp->scroll.top = (int)(frac * lp->doc->n);
}

static void lesson_draw(Panel *p, Tui *t, int top, int h, int w) {
    LessonPanel *lp = (LessonPanel *)p;
    lesson_layout(lp, w, t->utf8);
    char *title = xasprintf(_("cudojo — Lesson: %s"), tui_chapter_title(t, lp->ch));
    char pos[32];
    int pct = lp->doc->n > h ? (int)(100.0 * (lp->scroll.top + h) / lp->doc->n) : 100;
    snprintf(pos, sizeof pos, "%s %d%%", lp->text_zh ? "中文" : "EN", pct > 100 ? 100 : pct);
    tui_draw_title(t, title, pos);
    free(title);
    int x = (w - lp->doc_width) / 2;
    for (int i = 0; i < h; i++) tui_fill(top + i, 0, w, ROLE_NORMAL);
    text_scroll_draw(&lp->scroll, lp->doc, top, h, x, w - x);
    if (!text_scroll_draw_prompt(&lp->scroll, t))
        tui_draw_status(t, _("Enter exercise  / search  n next  ] section  L lang  ? help  q back"));
}

static void jump_section(LessonPanel *lp, int dir) {
    for (int i = lp->scroll.top + dir; i >= 0 && i < lp->doc->n; i += dir)
        if (lp->doc->lines[i].tag > 0 && lp->doc->lines[i].tag <= 3) {
            lp->scroll.top = i;
            return;
        }
    if (dir < 0) lp->scroll.top = 0;
}

static int lesson_key(Panel *p, Tui *t, int key) {
    LessonPanel *lp = (LessonPanel *)p;
    if (!lp->doc) lesson_layout(lp, t->cols, t->utf8);
    int r = text_scroll_key(&lp->scroll, lp->doc, t, key);
    if (r != TUI_UNHANDLED) return r;
    switch (key) {
    case ']': jump_section(lp, 1); return TUI_HANDLED;
    case '[': jump_section(lp, -1); return TUI_HANDLED;
    case '\n':
    case '\r':
    case KEY_ENTER: {
        const ChapterMeta *ch = lp->ch;
        if (ch->n_exercises == 0) return TUI_HANDLED;
        int pick = 0;
        for (int e = 0; e < ch->n_exercises; e++) {
            ExerciseStatus st;
            memset(&st, 0, sizeof st);
            Diag *d = store_exercise_status(t->ws->store, ch->exercises[e].id, &st);
            bool passed = !d && st.passed;
            diag_free(&d);
            exercise_status_fini(&st);
            if (!passed) {
                pick = e;
                break;
            }
        }
        tui_open(t, &(TuiRequest){.what = TUI_OPEN_EXERCISE, .ch = ch, .ex = &ch->exercises[pick]});
        return TUI_HANDLED;
    }
    default: return TUI_UNHANDLED;
    }
}

static void lesson_resume(Panel *p, Tui *t) {
    LessonPanel *lp = (LessonPanel *)p;
    if (lp->text_zh != t->zh) lesson_load(lp, t);
    lp->doc_width = 0;   /* re-layout at the next draw (the width may have changed) */
}

static void lesson_free(Panel *p, Tui *t) {
    (void)t;
    LessonPanel *lp = (LessonPanel *)p;
    free(lp->text);
    text_doc_free(&lp->doc);
    text_scroll_fini(&lp->scroll);
    free(lp);
}

Panel *tui_lesson_new(Tui *t, const ChapterMeta *ch) {
    LessonPanel *lp = xcalloc(1, sizeof *lp);
    lp->base = (Panel){.title = N_("Lesson reader"), .help = LESSON_HELP, .draw = lesson_draw, .key = lesson_key,
                       .resume = lesson_resume, .free = lesson_free};
    lp->ch = ch;
    lesson_load(lp, t);
    return &lp->base;
}
