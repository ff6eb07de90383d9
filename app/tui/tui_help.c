/* app/tui/tui_help.c: `?` on any screen: that screen's keys, then the keys
 * that work everywhere, as a scrollable document. */
#include "app/tui/tui.h"

#include <stdlib.h>

#include "base/i18n.h"
#include "base/xalloc.h"

static const TuiKeyHelp GLOBAL_HELP[] = {
    {"?  F1", N_("help for the screen you are on")},
    {"q  Esc", N_("back (quit on the course map)")},
    {"Q", N_("quit from anywhere")},
    {"P", N_("progress screen")},
    {"D", N_("device screen")},
    {"L", N_("language of the lessons and the workbench: English / 中文")},
    {"Ctrl-L", N_("redraw the screen")},
    {"Ctrl-C", N_("stop a run in progress, else quit")},
    {NULL, NULL},
};

static void add_keys(TextDoc *doc, const TuiKeyHelp *keys) {
    int kw = 0;
    for (int i = 0; keys && keys[i].keys; i++) {
        int w = text_width(_(keys[i].keys));
        if (w > kw) kw = w;
    }
    for (int i = 0; keys && keys[i].keys; i++) {
        TextLine *l = text_doc_add_line(doc);
        text_line_add(l, ROLE_NORMAL, "  ");
        text_line_add(l, ROLE_BOLD, _(keys[i].keys));   /* a key that is a word is marked N_() */
        text_line_addf(l, ROLE_NORMAL, "%*s  ", kw - text_width(_(keys[i].keys)), "");
        text_line_add(l, ROLE_NORMAL, _(keys[i].what));   /* each screen's table marks them N_() */
    }
}

Panel *tui_help_new(Tui *t, const Panel *about) {
    TextDoc *doc = text_doc_new();
    text_doc_add_text(doc, ROLE_H2, about->title ? _(about->title) : _("This screen"));
    add_keys(doc, about->help);
    text_doc_add_line(doc);
    text_doc_add_text(doc, ROLE_H2, _("Everywhere"));
    add_keys(doc, GLOBAL_HELP);
    text_doc_add_line(doc);
    text_doc_add_text(doc, ROLE_DIM, _("  The mouse wheel scrolls. Lessons are in lessons/<chapter>/README.md;"));
    if (t->ws) {
        char *where = xasprintf(_("  your files are in %s, runs are recorded in its .cudojo/progress.db."), t->ws->dir);
        text_doc_add_text(doc, ROLE_DIM, where);
        free(where);
    }
    char *title = xasprintf(_("cudojo — Help: %s"), about->title ? _(about->title) : "");
    Panel *p = tui_textview_new(t, title, doc);
    p->title = N_("Help");
    free(title);
    return p;
}
