/* app/tui/tui_text.c: styled lines, display widths and word wrapping. */
#include "app/tui/tui_text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "base/xalloc.h"

TextDoc *text_doc_new(void) { return xcalloc(1, sizeof(TextDoc)); }

void text_line_fini(TextLine *line) {
    for (int i = 0; i < line->n; i++) free(line->spans[i].text);
    free(line->spans);
    memset(line, 0, sizeof *line);
}

void text_doc_free(TextDoc **docp) {
    TextDoc *doc = *docp;
    if (!doc) return;
    for (int i = 0; i < doc->n; i++) text_line_fini(&doc->lines[i]);
    free(doc->lines);
    free(doc);
    *docp = NULL;
}

TextLine *text_doc_add_line(TextDoc *doc) {
    if (doc->n == doc->cap) {
        doc->cap = doc->cap ? doc->cap * 2 : 32;
        doc->lines = xrealloc(doc->lines, (size_t)doc->cap * sizeof *doc->lines);
    }
    TextLine *l = &doc->lines[doc->n++];
    memset(l, 0, sizeof *l);
    return l;
}

void text_doc_add_copy(TextDoc *doc, const TextLine *src) {
    TextLine *l = text_doc_add_line(doc);
    l->tag = src->tag;
    for (int i = 0; i < src->n; i++) text_line_add(l, src->spans[i].role, src->spans[i].text);
}

void text_doc_add_text(TextDoc *doc, int role, const char *s) { text_line_add(text_doc_add_line(doc), role, s); }

void text_doc_addf(TextDoc *doc, int role, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *s = xvasprintf(fmt, ap);
    va_end(ap);
    text_doc_add_text(doc, role, s);
    free(s);
}

void text_line_addn(TextLine *line, int role, const char *s, size_t n) {
    if (!s || n == 0) return;
    if (line->n > 0 && line->spans[line->n - 1].role == role) {
        TextSpan *sp = &line->spans[line->n - 1];
        size_t old = strlen(sp->text);
        sp->text = xrealloc(sp->text, old + n + 1);
        memcpy(sp->text + old, s, n);
        sp->text[old + n] = '\0';
        return;
    }
    if (line->n == line->cap) {
        line->cap = line->cap ? line->cap * 2 : 4;
        line->spans = xrealloc(line->spans, (size_t)line->cap * sizeof *line->spans);
    }
    line->spans[line->n].text = xstrndup(s, n);
    line->spans[line->n].role = role;
    line->n++;
}

void text_line_add(TextLine *line, int role, const char *s) {
    if (s) text_line_addn(line, role, s, strlen(s));
}

void text_line_addf(TextLine *line, int role, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *s = xvasprintf(fmt, ap);
    va_end(ap);
    text_line_add(line, role, s);
    free(s);
}

char *text_line_plain(const TextLine *line) {
    size_t len = 0;
    for (int i = 0; i < line->n; i++) len += strlen(line->spans[i].text);
    char *out = xmalloc(len + 1), *p = out;
    for (int i = 0; i < line->n; i++) {
        size_t k = strlen(line->spans[i].text);
        memcpy(p, line->spans[i].text, k);
        p += k;
    }
    *p = '\0';
    return out;
}

int text_line_width(const TextLine *line) {
    int w = 0;
    for (int i = 0; i < line->n; i++) w += text_width(line->spans[i].text);
    return w;
}

size_t text_char(const char *s, size_t n, int *cols) {
    mbstate_t st;
    memset(&st, 0, sizeof st);
    wchar_t wc;
    size_t k = mbrtowc(&wc, s, n, &st);
    if (k == (size_t)-1 || k == (size_t)-2 || k == 0) {
        *cols = 1;
        return 1;
    }
    int w = wcwidth(wc);
    *cols = w < 0 ? 1 : w;
    return k;
}

int text_width_n(const char *s, size_t n) {
    int w = 0;
    size_t i = 0;
    while (i < n && s[i]) {
        int c;
        i += text_char(s + i, n - i, &c);
        w += c;
    }
    return w;
}

int text_width(const char *s) { return s ? text_width_n(s, strlen(s)) : 0; }

size_t text_fit(const char *s, int cols) {
    size_t i = 0, n = strlen(s);
    int w = 0;
    while (i < n) {
        int c;
        size_t k = text_char(s + i, n - i, &c);
        if (w + c > cols) break;
        w += c;
        i += k;
    }
    return i;
}

/* One unbreakable piece of a paragraph: a word, or one CJK character. */
typedef struct Atom {
    const char *text;
    size_t len;
    int role;
    int width;
    bool space_before;  /* a break opportunity that costs one column when not at a line start */
    bool hard_break;    /* a '\n': the atom is empty and ends the line */
} Atom;

typedef struct Atoms {
    Atom *a;
    int n, cap;
} Atoms;

static void atoms_push(Atoms *as, Atom at) {
    if (as->n == as->cap) {
        as->cap = as->cap ? as->cap * 2 : 64;
        as->a = xrealloc(as->a, (size_t)as->cap * sizeof *as->a);
    }
    as->a[as->n++] = at;
}

/* CJK punctuation that must not start a line (it sticks to the character before). */
static bool no_break_before(const char *s, size_t n) {
    static const char *const CLOSERS[] = {"，", "。", "；", "：", "！", "？", "）", "、", "”", "’", "」", "』", "》", "…", NULL};
    for (int i = 0; CLOSERS[i]; i++)
        if (strlen(CLOSERS[i]) == n && !memcmp(CLOSERS[i], s, n)) return true;
    return false;
}

/* CJK opening punctuation that must not end a line (it sticks to what follows). */
static bool ends_with_opener(const Atom *a) {
    static const char *const OPENERS[] = {"（", "“", "‘", "「", "『", "《", NULL};
    for (int i = 0; OPENERS[i]; i++) {
        size_t k = strlen(OPENERS[i]);
        if (a->len >= k && !memcmp(a->text + a->len - k, OPENERS[i], k)) return true;
    }
    return false;
}

static void atoms_split(Atoms *as, const TextLine *para) {
    bool space = false, soft = false;
    for (int s = 0; s < para->n; s++) {
        const char *t = para->spans[s].text;
        size_t n = strlen(t), i = 0;
        while (i < n) {
            if (t[i] == '\n') {
                atoms_push(as, (Atom){.hard_break = true});
                space = soft = false;
                i++;
                continue;
            }
            if (t[i] == ' ' || t[i] == '\t') {
                space = true;
                i++;
                continue;
            }
            if (t[i] == '\v') {
                soft = true;
                i++;
                continue;
            }
            /* A word: ASCII/latin runs up to a space; a wide character stands alone. */
            size_t start = i;
            int w = 0, c;
            size_t k = text_char(t + i, n - i, &c);
            bool wide = c == 2;
            if (wide) {
                i += k;
                w = 2;
                Atom *prev = as->n ? &as->a[as->n - 1] : NULL;
                if (prev && !space && !soft && !prev->hard_break && prev->text + prev->len == t + start &&
                    no_break_before(t + start, k)) {
                    prev->len += k;
                    prev->width += 2;
                    continue;
                }
            } else {
                while (i < n && t[i] != ' ' && t[i] != '\t' && t[i] != '\n' && t[i] != '\v') {
                    k = text_char(t + i, n - i, &c);
                    if (c == 2) break;
                    i += k;
                    w += c;
                }
            }
            /* A line break in the source between two CJK characters is no space in the text. */
            if (soft && !space) {
                Atom *prev = as->n ? &as->a[as->n - 1] : NULL;
                int lastw = 1;
                if (prev && prev->len) {
                    size_t j = prev->len - 1;
                    while (j > 0 && ((unsigned char)prev->text[j] & 0xC0) == 0x80) j--;
                    text_char(prev->text + j, prev->len - j, &lastw);
                }
                space = !wide && lastw != 2;
            }
            Atom *prev = as->n ? &as->a[as->n - 1] : NULL;
            if (prev && !space && !prev->hard_break && prev->text + prev->len == t + start && ends_with_opener(prev)) {
                prev->len += i - start;
                prev->width += w;
                space = soft = false;
                continue;
            }
            atoms_push(as, (Atom){.text = t + start, .len = i - start, .role = para->spans[s].role, .width = w,
                                  .space_before = space});
            space = soft = false;
        }
    }
}

static TextLine *wrap_start(TextDoc *doc, const TextLine *prefix, int *col) {
    TextLine *l = text_doc_add_line(doc);
    *col = 0;
    if (prefix) {
        for (int i = 0; i < prefix->n; i++) text_line_add(l, prefix->spans[i].role, prefix->spans[i].text);
        *col = text_line_width(prefix);
    }
    return l;
}

void text_line_add_cell(TextLine *l, int role, const char *text, int cols, bool right) {
    size_t fit = text_fit(text, cols);
    int w = text_width_n(text, fit);
    if (right) text_line_addf(l, ROLE_NORMAL, "%*s", cols - w, "");
    text_line_addn(l, role, text, fit);
    if (!right) text_line_addf(l, ROLE_NORMAL, "%*s", cols - w, "");
}

void text_wrap(TextDoc *doc, const TextLine *para, int width, const TextLine *first, const TextLine *rest) {
    Atoms as = {0};
    atoms_split(&as, para);
    int col;
    TextLine *line = wrap_start(doc, first, &col);
    int line_start = col;
    if (width < line_start + 4) width = line_start + 4;
    for (int i = 0; i < as.n; i++) {
        Atom *at = &as.a[i];
        if (at->hard_break) {
            line = wrap_start(doc, rest, &col);
            line_start = col;
            continue;
        }
        bool at_start = col == line_start;
        int need = at->width + (at->space_before && !at_start ? 1 : 0);
        if (!at_start && col + need > width) {
            line = wrap_start(doc, rest, &col);
            line_start = col;
            at_start = true;
            need = at->width;
        }
        if (at->space_before && !at_start) {
            /* The space takes the role of the text around it only when both
               sides share it, so an underlined link does not underline the gap. */
            int prev_role = i > 0 ? as.a[i - 1].role : ROLE_NORMAL;
            text_line_add(line, prev_role == at->role ? at->role : ROLE_NORMAL, " ");
            col++;
        }
        /* A word longer than a whole line is cut where the line ends. */
        const char *p = at->text;
        size_t left = at->len;
        while (left > 0) {
            int room = width - col;
            size_t fit = 0;
            int fw = 0;
            while (fit < left) {
                int c;
                size_t k = text_char(p + fit, left - fit, &c);
                if (fw + c > room) break;
                fit += k;
                fw += c;
            }
            if (fit == 0 && col == line_start) {
                int c;
                fit = text_char(p, left, &c);
                fw = c;
            }
            if (fit == 0) {
                line = wrap_start(doc, rest, &col);
                line_start = col;
                continue;
            }
            text_line_addn(line, at->role, p, fit);
            col += fw;
            p += fit;
            left -= fit;
            if (left > 0) {
                line = wrap_start(doc, rest, &col);
                line_start = col;
            }
        }
    }
    free(as.a);
}
