/* app/tui/tui_help.c: `?` on any screen: that screen's keys, then the keys
 * that work everywhere, as a scrollable document. */
#include "app/tui/tui.h"

#include <stdlib.h>

#include "base/xalloc.h"

static const TuiKeyHelp GLOBAL_HELP[] = {
    {"?  F1", "help for the screen you are on"},
    {"q  Esc", "back (quit on the course map)"},
    {"Q", "quit from anywhere"},
    {"P", "progress screen"},
    {"D", "device screen"},
    {"L", "lesson language: English / 中文"},
    {"Ctrl-L", "redraw the screen"},
    {"Ctrl-C", "stop a run in progress, else quit"},
    {NULL, NULL},
};

static void add_keys(TextDoc *doc, const TuiKeyHelp *keys) {
    int kw = 0;
    for (int i = 0; keys && keys[i].keys; i++) {
        int w = text_width(keys[i].keys);
        if (w > kw) kw = w;
    }
    for (int i = 0; keys && keys[i].keys; i++) {
        TextLine *l = text_doc_add_line(doc);
        text_line_add(l, ROLE_NORMAL, "  ");
        text_line_add(l, ROLE_BOLD, keys[i].keys);
        text_line_addf(l, ROLE_NORMAL, "%*s  ", kw - text_width(keys[i].keys), "");
        text_line_add(l, ROLE_NORMAL, keys[i].what);
    }
}

Panel *tui_help_new(Tui *t, const Panel *about) {
    TextDoc *doc = text_doc_new();
    text_doc_add_text(doc, ROLE_H2, about->title ? about->title : "This screen");
    add_keys(doc, about->help);
    text_doc_add_line(doc);
    text_doc_add_text(doc, ROLE_H2, "Everywhere");
    add_keys(doc, GLOBAL_HELP);
    text_doc_add_line(doc);
    text_doc_add_text(doc, ROLE_DIM, "  The mouse wheel scrolls. Lessons are in lessons/<chapter>/README.md;");
    text_doc_add_text(doc, ROLE_DIM, "  your files are in the workspace, runs are recorded in .cudojo/progress.db.");
    char *title = xasprintf("cudojo — Help: %s", about->title ? about->title : "");
    Panel *p = tui_textview_new(t, title, doc);
    p->title = "Help";
    free(title);
    return p;
}
