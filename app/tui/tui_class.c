/* app/tui/tui_class.c: the workbench's class report screen (`cudojo class
 * report GRADEDB --tui`): the summary, the score histogram and the table of
 * exercises of tui_class_render.c, scrolled and searched like every text
 * screen, laid out again when the terminal's width changes. */
#include "app/tui/tui.h"

#include <stdlib.h>

#include "app/tui/tui_class.h"
#include "base/i18n.h"
#include "base/xalloc.h"

typedef struct ClassPanel {
    Panel base;
    json_t *report;
    TextDoc *doc;
    int width;          /* the width doc was laid out for */
    TextScroll scroll;
} ClassPanel;

static const TuiKeyHelp CLASS_HELP[] = {
    {"j/k ↑/↓", N_("scroll a line")},
    {"Space/b PgDn/PgUp", N_("scroll a page")},
    {"g/G", N_("top / bottom")},
    {"/ n N", N_("search, next, previous match")},
    {"q Esc", N_("leave")},
    {NULL, NULL},
};

static void class_layout(ClassPanel *cp, Tui *t, int w) {
    text_doc_free(&cp->doc);
    cp->doc = text_doc_new();
    class_report_render(cp->doc, cp->report, w, t->utf8);
    cp->width = w;
}

static void class_draw(Panel *p, Tui *t, int top, int h, int w) {
    ClassPanel *cp = (ClassPanel *)p;
    if (cp->width != w - 2) class_layout(cp, t, w - 2);
    tui_draw_title(t, _("cudojo — Class report"), NULL);
    for (int i = 0; i < h; i++) tui_fill(top + i, 0, w, ROLE_NORMAL);
    text_scroll_draw(&cp->scroll, cp->doc, top, h, 1, w - 1);
    if (!text_scroll_draw_prompt(&cp->scroll, t)) tui_draw_status(t, _("q leave  j/k scroll  / search  ? help"));
}

static int class_key(Panel *p, Tui *t, int key) {
    ClassPanel *cp = (ClassPanel *)p;
    return text_scroll_key(&cp->scroll, cp->doc, t, key);
}

static void class_free(Panel *p, Tui *t) {
    (void)t;
    ClassPanel *cp = (ClassPanel *)p;
    json_decref(cp->report);
    text_doc_free(&cp->doc);
    text_scroll_fini(&cp->scroll);
    free(cp);
}

Panel *tui_class_new(Tui *t, json_t *report) {
    ClassPanel *cp = xcalloc(1, sizeof *cp);
    cp->base = (Panel){.title = N_("Class report"), .help = CLASS_HELP, .draw = class_draw, .key = class_key,
                       .free = class_free};
    cp->report = json_incref(report);
    class_layout(cp, t, t->cols > 2 ? t->cols - 2 : 78);
    return &cp->base;
}
