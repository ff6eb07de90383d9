/* app/tui/tui_textview.c: scrolling and `/` search over a TextDoc, shared by
 * the lesson reader, help, progress, device and solution screens; and a
 * plain read-only document panel built on it. */
#include "app/tui/tui.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <wchar.h>

#include "base/i18n.h"
#include "base/xalloc.h"

void text_scroll_fini(TextScroll *s) { XFREE(s->search); }

static void clamp(TextScroll *s, const TextDoc *doc) {
    int max_top = doc->n - (s->height > 0 ? s->height : 1);
    if (s->top > max_top) s->top = max_top;
    if (s->top < 0) s->top = 0;
    if (s->hscroll < 0) s->hscroll = 0;
}

void text_scroll_draw(TextScroll *s, const TextDoc *doc, int top, int h, int x, int w) {
    s->height = h;
    clamp(s, doc);
    for (int i = 0; i < h; i++) {
        int li = s->top + i;
        if (li < doc->n) tui_put_line(top + i, x, w, &doc->lines[li], s->hscroll, s->search, -1, ROLE_NORMAL);
        else tui_fill(top + i, x, w, ROLE_NORMAL);
    }
    /* A scroll indicator on the right edge when the text is longer than the window. */
    if (doc->n > h && h > 2) {
        int pos = (int)((double)s->top / (doc->n - h) * (h - 1) + 0.5);
        tui_put(top + pos, x + w - 1, 1, ROLE_BORDER, "▐");
    }
}

static bool line_matches(const TextLine *l, const char *term) {
    char *plain = text_line_plain(l);
    size_t n = strlen(term);
    bool hit = false;
    for (const char *p = plain; *p && !hit; p++) hit = !strncasecmp(p, term, n);
    free(plain);
    return hit;
}

/* Moves to the next (dir = 1) or previous (-1) line matching the search. */
static bool search_step(TextScroll *s, const TextDoc *doc, int dir, bool include_current) {
    if (!s->search || !*s->search || doc->n == 0) return false;
    int start = include_current ? s->top : s->match + dir;
    for (int k = 0; k < doc->n; k++) {
        int i = ((start + dir * k) % doc->n + doc->n) % doc->n;
        if (line_matches(&doc->lines[i], s->search)) {
            s->match = i;
            s->top = i > 2 ? i - 2 : 0;   /* two lines of context above the match */
            return true;
        }
    }
    return false;
}

int text_scroll_key(TextScroll *s, const TextDoc *doc, Tui *t, int key) {
    if (s->typing) {
        if (key == '\n' || key == '\r' || key == KEY_ENTER) {
            s->typing = false;
            s->input[s->input_len] = '\0';
            if (s->input_len > 0) {
                free(s->search);
                s->search = xstrdup(s->input);
            }
            if (!search_step(s, doc, 1, true)) tui_notify(t, true, _("not found: %s"), s->search ? s->search : "");
        } else if (key == 27) {
            s->typing = false;
        } else if (key == KEY_BACKSPACE || key == 127 || key == 8) {
            /* Remove a whole UTF-8 character. */
            while (s->input_len > 0 && ((unsigned char)s->input[s->input_len - 1] & 0xC0) == 0x80) s->input_len--;
            if (s->input_len > 0) s->input_len--;
        } else if (key >= 32 && key < 0x110000 && key != 127) {
            char mb[8];
            wchar_t wc = (wchar_t)key;
            mbstate_t st;
            memset(&st, 0, sizeof st);
            size_t k = wcrtomb(mb, wc, &st);
            if (k != (size_t)-1 && s->input_len + (int)k < (int)sizeof s->input - 1) {
                memcpy(s->input + s->input_len, mb, k);
                s->input_len += (int)k;
            }
        }
        return TUI_HANDLED;
    }
    int page = s->height > 2 ? s->height - 1 : 1;
    switch (key) {
    case KEY_DOWN:
    case 'j': s->top++; break;
    case KEY_UP:
    case 'k': s->top--; break;
    case KEY_NPAGE:
    case ' ':
    case 6: s->top += page; break;      /* Ctrl-F */
    case KEY_PPAGE:
    case 'b':
    case 2: s->top -= page; break;      /* Ctrl-B */
    case 'd': s->top += page / 2; break;
    case 'u': s->top -= page / 2; break;
    case KEY_HOME:
    case 'g': s->top = 0; break;
    case KEY_END:
    case 'G': s->top = doc->n; break;
    case KEY_RIGHT: s->hscroll += 8; break;
    case KEY_LEFT: s->hscroll -= 8; break;
    case '/':
        s->typing = true;
        s->input_len = 0;
        break;
    case 'n':
        if (!search_step(s, doc, 1, false)) tui_notify(t, true, "%s", s->search ? _("no more matches") : _("no search yet: /"));
        break;
    case 'N':
        if (!search_step(s, doc, -1, false)) tui_notify(t, true, "%s", s->search ? _("no more matches") : _("no search yet: /"));
        break;
    default: return TUI_UNHANDLED;
    }
    clamp(s, doc);
    return TUI_HANDLED;
}

bool text_scroll_draw_prompt(const TextScroll *s, Tui *t) {
    if (!s->typing) return false;
    int y = t->rows - 1;
    tui_fill(y, 0, t->cols, ROLE_NORMAL);
    char buf[300];
    snprintf(buf, sizeof buf, "/%.*s", s->input_len, s->input);
    int used = tui_put(y, 0, t->cols - 1, ROLE_BOLD, buf);
    tui_put(y, used, 1, ROLE_SELECTED, " ");
    return true;
}

/* ---- a read-only document panel ---- */

typedef struct DocPanel {
    Panel base;
    char *title;
    TextDoc *doc;
    TextScroll scroll;
} DocPanel;

static const TuiKeyHelp DOC_HELP[] = {
    {"j/k ↑/↓", N_("scroll a line")},
    {"Space/b PgDn/PgUp", N_("scroll a page")},
    {"g/G", N_("top / bottom")},
    {"←/→", N_("scroll sideways")},
    {"/ n N", N_("search, next, previous match")},
    {"q Esc", N_("back")},
    {NULL, NULL},
};

static void doc_draw(Panel *p, Tui *t, int top, int h, int w) {
    DocPanel *dp = (DocPanel *)p;
    tui_draw_title(t, dp->title, NULL);
    for (int i = 0; i < h; i++) tui_fill(top + i, 0, w, ROLE_NORMAL);
    text_scroll_draw(&dp->scroll, dp->doc, top, h, 1, w - 1);
    if (!text_scroll_draw_prompt(&dp->scroll, t)) tui_draw_status(t, _("q back  / search  ? help"));
}

static int doc_key(Panel *p, Tui *t, int key) {
    DocPanel *dp = (DocPanel *)p;
    return text_scroll_key(&dp->scroll, dp->doc, t, key);
}

static void doc_free(Panel *p, Tui *t) {
    (void)t;
    DocPanel *dp = (DocPanel *)p;
    free(dp->title);
    text_doc_free(&dp->doc);
    text_scroll_fini(&dp->scroll);
    free(dp);
}

Panel *tui_textview_new(Tui *t, const char *title, TextDoc *doc) {
    (void)t;
    DocPanel *dp = xcalloc(1, sizeof *dp);
    dp->base = (Panel){.title = N_("Document"), .help = DOC_HELP, .draw = doc_draw, .key = doc_key, .free = doc_free};
    dp->title = xstrdup(title);
    dp->doc = doc;
    return &dp->base;
}
