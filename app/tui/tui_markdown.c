/* app/tui/tui_markdown.c: CommonMark (cmark AST) to styled, wrapped lines,
 * plus GitHub's pipe tables, which plain cmark leaves as paragraphs: a
 * paragraph whose source lines hold a header row and a `| --- |` delimiter
 * row is laid out here as a table with bordered columns measured in display
 * cells (CJK counts 2), cell text wrapped inside its column. */
#include "app/tui/tui_markdown.h"

#include <cmark.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/tui/tui_highlight.h"
#include "base/strbuf.h"
#include "base/xalloc.h"

typedef struct MdCtx {
    TextDoc *doc;
    int width;
    bool utf8;                 /* line-drawing characters; ASCII otherwise */
    const char **line_at;      /* line i (from 1) starts at line_at[i - 1] */
    size_t *line_len;          /* ...and is this long, without its line end */
    int n_lines;
} MdCtx;

static const char *glyph(const MdCtx *c, const char *utf8, const char *ascii) { return c->utf8 ? utf8 : ascii; }

/* The role of text nested in inline markup: code beats link beats strong beats emphasis. */
static int inline_role(int outer, cmark_node_type t) {
    switch (t) {
    case CMARK_NODE_CODE: return ROLE_CODE;
    case CMARK_NODE_LINK: return outer == ROLE_CODE ? outer : ROLE_LINK;
    case CMARK_NODE_STRONG: return outer == ROLE_NORMAL || outer == ROLE_EMPH ? ROLE_STRONG : outer;
    case CMARK_NODE_EMPH: return outer == ROLE_NORMAL ? ROLE_EMPH : outer;
    default: return outer;
    }
}

static void collect_inlines(cmark_node *parent, int role, TextLine *para, bool keep_breaks) {
    for (cmark_node *n = cmark_node_first_child(parent); n; n = cmark_node_next(n)) {
        cmark_node_type t = cmark_node_get_type(n);
        switch (t) {
        case CMARK_NODE_TEXT:
        case CMARK_NODE_HTML_INLINE:
            text_line_add(para, role, cmark_node_get_literal(n));
            break;
        case CMARK_NODE_CODE: {
            /* Spaces inside inline code must not become break points that
               get eaten: keep them as non-breaking by swapping in U+00A0. */
            const char *lit = cmark_node_get_literal(n);
            StrBuf sb;
            strbuf_init(&sb);
            for (const char *p = lit; *p; p++) {
                if (*p == ' ') strbuf_append(&sb, "\xc2\xa0");
                else strbuf_append_char(&sb, *p);
            }
            text_line_add(para, ROLE_CODE, sb.data);
            strbuf_fini(&sb);
            break;
        }
        case CMARK_NODE_SOFTBREAK: text_line_add(para, role, keep_breaks ? "\n" : "\v"); break;
        case CMARK_NODE_LINEBREAK: text_line_add(para, role, "\n"); break;
        case CMARK_NODE_LINK:
        case CMARK_NODE_IMAGE: {
            collect_inlines(n, inline_role(role, CMARK_NODE_LINK), para, keep_breaks);
            const char *url = cmark_node_get_url(n);
            if (url && *url && url[0] != '#') {
                text_line_add(para, role, " ");
                text_line_addf(para, ROLE_URL, "<%s>", url);
            }
            break;
        }
        default: collect_inlines(n, inline_role(role, t), para, keep_breaks); break;
        }
    }
}

/* Plain text of a node's inlines, for deciding whether a paragraph is a table. */
static bool starts_with_pipe(cmark_node *para) {
    cmark_node *first = cmark_node_first_child(para);
    if (!first || cmark_node_get_type(first) != CMARK_NODE_TEXT) return false;
    const char *lit = cmark_node_get_literal(first);
    while (lit && *lit == ' ') lit++;
    return lit && *lit == '|';
}

static void prefix_copy(TextLine *dst, const TextLine *src) {
    if (!src) return;
    for (int i = 0; i < src->n; i++) text_line_add(dst, src->spans[i].role, src->spans[i].text);
}

static void blank(MdCtx *c, const TextLine *prefix) {
    TextLine *l = text_doc_add_line(c->doc);
    /* A quote's bar continues over its blank lines; list indentation need not. */
    if (prefix)
        for (int i = 0; i < prefix->n; i++)
            if (prefix->spans[i].role == ROLE_QUOTE) text_line_add(l, ROLE_QUOTE, prefix->spans[i].text);
}

static void render_code(MdCtx *c, cmark_node *n, const TextLine *first, const TextLine *rest) {
    const char *lit = cmark_node_get_literal(n);
    const char *info = cmark_node_get_fence_info(n);
    bool hl = hl_is_c_like(info);
    HlState st = {0};
    const char *p = lit ? lit : "";
    bool is_first = true;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char *one = xstrndup(p, len);
        TextLine *l = text_doc_add_line(c->doc);
        prefix_copy(l, is_first ? first : rest);
        text_line_add(l, ROLE_CODEBLOCK, "  ");
        if (hl) {
            hl_line(l, one, &st, ROLE_CODEBLOCK);
        } else {
            /* Tabs would make the width lie: expand them. */
            for (char *q = one; *q; q++)
                if (*q == '\t') *q = ' ';
            text_line_add(l, ROLE_CODEBLOCK, one);
        }
        free(one);
        is_first = false;
        p += len + (nl ? 1 : 0);
    }
}

/* ---- pipe tables ---- */

typedef enum { ALIGN_LEFT, ALIGN_CENTER, ALIGN_RIGHT } CellAlign;

typedef struct MdRow {
    char **cells;   /* unescaped cell text, trimmed */
    int n;
} MdRow;

static void row_fini(MdRow *r) {
    for (int i = 0; i < r->n; i++) free(r->cells[i]);
    free(r->cells);
    *r = (MdRow){0};
}

static bool is_blank_char(char ch) { return ch == ' ' || ch == '\t'; }

/* One cell's text between s and e: trimmed, `\|` turned into `|`; caller frees. */
static char *cell_text(const char *s, const char *e) {
    while (s < e && is_blank_char(*s)) s++;
    while (e > s && is_blank_char(e[-1])) e--;
    StrBuf sb;
    strbuf_init(&sb);
    for (const char *p = s; p < e; p++) {
        if (*p == '\\' && p + 1 < e && p[1] == '|') continue;
        if (*p == '\\' && p + 1 < e) {
            strbuf_append_char(&sb, *p++);
        }
        strbuf_append_char(&sb, *p);
    }
    return strbuf_steal(&sb);
}

/* Splits one source line of a table at its unescaped pipes; the outer pipes
 * are optional, as on GitHub. False when the line has no pipe at all. */
static bool row_split(const char *s, size_t len, MdRow *row) {
    *row = (MdRow){0};
    const char *e = s + len;
    while (s < e && is_blank_char(*s)) s++;
    while (e > s && is_blank_char(e[-1])) e--;
    bool any_pipe = false;
    for (const char *p = s; p < e; p++) {
        if (*p == '\\' && p + 1 < e) p++;
        else if (*p == '|') any_pipe = true;
    }
    if (s < e && *s == '|') s++;
    if (e > s && e[-1] == '|' && !(e - s >= 2 && e[-2] == '\\')) e--;
    const char *cell = s;
    for (const char *p = s;; p++) {
        if (p < e && *p == '\\' && p + 1 < e) {
            p++;
            continue;
        }
        if (p == e || *p == '|') {
            row->cells = xrealloc(row->cells, (size_t)(row->n + 1) * sizeof *row->cells);
            row->cells[row->n++] = cell_text(cell, p);
            cell = p + 1;
            if (p == e) break;
        }
    }
    return any_pipe;
}

/* A delimiter row (`| :--- | ---: |`): true, with each column's alignment. */
static bool row_is_delimiter(const MdRow *r, CellAlign *align) {
    for (int i = 0; i < r->n; i++) {
        const char *t = r->cells[i];
        size_t n = strlen(t);
        bool lc = n && t[0] == ':', rc = n > 1 && t[n - 1] == ':';
        size_t dashes = 0;
        for (size_t k = lc; k < n - rc; k++) {
            if (t[k] != '-') return false;
            dashes++;
        }
        if (dashes == 0) return false;
        if (align) align[i] = lc && rc ? ALIGN_CENTER : rc ? ALIGN_RIGHT : ALIGN_LEFT;
    }
    return r->n > 0;
}

/* Source line `i` (from 1) of the document without the markers of the
 * `quotes` block quotes around it and its indentation. */
static const char *source_line(const MdCtx *c, int i, int quotes, size_t *len) {
    const char *s = c->line_at[i - 1], *e = s + c->line_len[i - 1];
    while (s < e && is_blank_char(*s)) s++;
    for (int q = 0; q < quotes && s < e && *s == '>'; q++) {
        s++;
        while (s < e && is_blank_char(*s)) s++;
    }
    *len = (size_t)(e - s);
    return s;
}

/* Line `i` of paragraph `para`: its first line starts where the paragraph
 * does (after a list item's marker), the others as source_line. */
static const char *para_line(const MdCtx *c, cmark_node *para, int i, int quotes, size_t *len) {
    const char *s = source_line(c, i, quotes, len);
    if (i != cmark_node_get_start_line(para)) return s;
    int col = cmark_node_get_start_column(para);
    const char *at = c->line_at[i - 1] + col - 1, *end = s + *len;
    if (col > 1 && (size_t)(col - 1) <= c->line_len[i - 1] && at > s) {
        *len = (size_t)(end - at);
        s = at;
    }
    return s;
}

/* The inlines of one line of markdown (a cell, a paragraph's lines) as spans.
 * What would parse as a block of its own (`# x`, `- x`) stays literal. */
static void inline_spans(const char *text, int role, TextLine *out, bool keep_breaks) {
    cmark_node *root = cmark_parse_document(text, strlen(text), CMARK_OPT_DEFAULT);
    cmark_node *first = root ? cmark_node_first_child(root) : NULL;
    if (first && cmark_node_get_type(first) == CMARK_NODE_PARAGRAPH && !cmark_node_next(first))
        collect_inlines(first, role, out, keep_breaks);
    else if (*text)
        text_line_add(out, role, text);
    if (root) cmark_node_free(root);
}

/* Truncates a line to `width` display columns. */
static void line_cut(TextLine *l, int width) {
    int col = 0;
    for (int s = 0; s < l->n; s++) {
        int w = text_width(l->spans[s].text);
        if (col + w <= width) {
            col += w;
            continue;
        }
        l->spans[s].text[text_fit(l->spans[s].text, width - col)] = '\0';
        for (int k = s + 1; k < l->n; k++) free(l->spans[k].text);
        l->n = s + 1;
        return;
    }
}

typedef struct MdTable {
    int ncols, nrows;          /* rows[0] is the header */
    MdRow *rows;
    CellAlign *align;
    int *width;                /* each column's width in display cells */
} MdTable;

/* Gives each column its natural width when the table fits in `avail`
 * columns; otherwise narrow columns keep theirs and the wide ones share
 * what is left evenly (at least 4 cells each, the narrowest text_wrap
 * keeps; then the table is wider than the pane and its lines are cut). */
static void table_widths(MdTable *t, const int *natural, int avail) {
    int sum = 0;
    for (int i = 0; i < t->ncols; i++) sum += natural[i];
    bool *settled = xcalloc((size_t)t->ncols, sizeof *settled);
    if (sum <= avail) {
        for (int i = 0; i < t->ncols; i++) t->width[i] = natural[i];
    } else {
        int left = avail, open = t->ncols;
        for (bool changed = true; changed && open > 0;) {
            changed = false;
            int share = left / open;
            for (int i = 0; i < t->ncols; i++)
                if (!settled[i] && natural[i] <= share) {
                    t->width[i] = natural[i];
                    settled[i] = true;
                    left -= natural[i];
                    open--;
                    changed = true;
                }
        }
        for (int i = 0, k = 0; i < t->ncols; i++)
            if (!settled[i]) {
                t->width[i] = left / open + (k++ < left % open ? 1 : 0);
                int floor = natural[i] < 4 ? natural[i] : 4;
                if (t->width[i] < floor) t->width[i] = floor;
            }
    }
    free(settled);
}

/* A border line: left, fill, joint and right glyphs over every column. */
static void table_rule(MdCtx *c, const MdTable *t, const TextLine *prefix, const char *const g[4]) {
    TextLine *l = text_doc_add_line(c->doc);
    prefix_copy(l, prefix);
    StrBuf sb;
    strbuf_init(&sb);
    strbuf_append(&sb, g[0]);
    for (int i = 0; i < t->ncols; i++) {
        for (int k = 0; k < t->width[i] + 2; k++) strbuf_append(&sb, g[1]);
        strbuf_append(&sb, i + 1 < t->ncols ? g[2] : g[3]);
    }
    text_line_add(l, ROLE_BORDER, sb.data);
    strbuf_fini(&sb);
    line_cut(l, c->width);
}

/* One table row: every cell wrapped in its column, as many lines as the tallest. */
static void table_row(MdCtx *c, const MdTable *t, const MdRow *r, bool header, const TextLine *prefix) {
    TextDoc **cell = xcalloc((size_t)t->ncols, sizeof *cell);
    int height = 1;
    for (int i = 0; i < t->ncols; i++) {
        TextLine spans = {0};
        inline_spans(i < r->n ? r->cells[i] : "", header ? ROLE_BOLD : ROLE_NORMAL, &spans, false);
        if (header)
            for (int s = 0; s < spans.n; s++)
                if (spans.spans[s].role == ROLE_NORMAL) spans.spans[s].role = ROLE_BOLD;
        cell[i] = text_doc_new();
        if (spans.n) text_wrap(cell[i], &spans, t->width[i], NULL, NULL);
        text_line_fini(&spans);
        if (cell[i]->n > height) height = cell[i]->n;
    }
    const char *bar = glyph(c, "│", "|");
    for (int k = 0; k < height; k++) {
        TextLine *l = text_doc_add_line(c->doc);
        prefix_copy(l, prefix);
        text_line_add(l, ROLE_BORDER, bar);
        for (int i = 0; i < t->ncols; i++) {
            const TextLine *part = k < cell[i]->n ? &cell[i]->lines[k] : NULL;
            int pad = t->width[i] - (part ? text_line_width(part) : 0);
            if (pad < 0) pad = 0;
            int before = t->align[i] == ALIGN_RIGHT ? pad : t->align[i] == ALIGN_CENTER ? pad / 2 : 0;
            text_line_addf(l, ROLE_NORMAL, " %*s", before, "");
            prefix_copy(l, part);
            text_line_addf(l, ROLE_NORMAL, "%*s ", pad - before, "");
            text_line_add(l, ROLE_BORDER, bar);
        }
        line_cut(l, c->width);
    }
    for (int i = 0; i < t->ncols; i++) text_doc_free(&cell[i]);
    free(cell);
}

static void table_draw(MdCtx *c, MdTable *t, const TextLine *first, const TextLine *rest) {
    int *natural = xcalloc((size_t)t->ncols, sizeof *natural);
    for (int r = 0; r < t->nrows; r++)
        for (int i = 0; i < t->ncols && i < t->rows[r].n; i++) {
            TextLine spans = {0};
            inline_spans(t->rows[r].cells[i], ROLE_NORMAL, &spans, false);
            int w = text_line_width(&spans);
            if (w > natural[i]) natural[i] = w;
            text_line_fini(&spans);
        }
    for (int i = 0; i < t->ncols; i++)
        if (natural[i] < 1) natural[i] = 1;
    int pw = rest ? text_line_width(rest) : 0;
    table_widths(t, natural, c->width - pw - (3 * t->ncols + 1));
    free(natural);
    static const char *const top_u[4] = {"┌", "─", "┬", "┐"}, *const mid_u[4] = {"├", "─", "┼", "┤"},
                             *const bot_u[4] = {"└", "─", "┴", "┘"}, *const rule_a[4] = {"+", "-", "+", "+"},
                             *const head_a[4] = {"+", "=", "+", "+"};
    table_rule(c, t, first, c->utf8 ? top_u : rule_a);
    table_row(c, t, &t->rows[0], true, rest);
    table_rule(c, t, rest, c->utf8 ? mid_u : head_a);
    /* Rows that wrap need a rule between them to be told apart. */
    bool tall = false;
    for (int r = 1; r < t->nrows && !tall; r++) {
        int before = c->doc->n;
        table_row(c, t, &t->rows[r], false, rest);
        tall = c->doc->n - before > 1;
        for (int k = c->doc->n - 1; k >= before; k--) text_line_fini(&c->doc->lines[k]);
        c->doc->n = before;
    }
    for (int r = 1; r < t->nrows; r++) {
        if (r > 1 && tall) table_rule(c, t, rest, c->utf8 ? mid_u : rule_a);
        table_row(c, t, &t->rows[r], false, rest);
    }
    table_rule(c, t, rest, c->utf8 ? bot_u : rule_a);
}

/* Lays a paragraph out as a table when its source holds one (a header row
 * directly above a delimiter row with as many cells); lines above the header
 * stay a paragraph, as on GitHub. False when there is no table. */
static bool table_render(MdCtx *c, cmark_node *para, const TextLine *first, const TextLine *rest) {
    int from = cmark_node_get_start_line(para), to = cmark_node_get_end_line(para);
    if (!c->line_at || from < 1 || to > c->n_lines || to - from < 1) return false;
    int quotes = 0;
    for (cmark_node *p = cmark_node_parent(para); p; p = cmark_node_parent(p))
        if (cmark_node_get_type(p) == CMARK_NODE_BLOCK_QUOTE) quotes++;
    MdRow head = {0}, delim = {0};
    int header_line = 0;
    for (int i = from; i < to && !header_line; i++) {
        size_t hl, dl;
        const char *h = para_line(c, para, i, quotes, &hl), *d = para_line(c, para, i + 1, quotes, &dl);
        bool hp = row_split(h, hl, &head), dp = row_split(d, dl, &delim);
        if (hp && dp && head.n == delim.n && row_is_delimiter(&delim, NULL)) header_line = i;
        else {
            row_fini(&head);
            row_fini(&delim);
        }
    }
    if (!header_line) return false;
    const TextLine *table_first = first;
    if (header_line > from) {
        /* The paragraph above the table, re-read from its own lines. */
        StrBuf sb;
        strbuf_init(&sb);
        for (int i = from; i < header_line; i++) {
            size_t n;
            const char *s = para_line(c, para, i, quotes, &n);
            strbuf_append_n(&sb, s, n);
            strbuf_append_char(&sb, '\n');
        }
        TextLine spans = {0};
        inline_spans(sb.data, ROLE_NORMAL, &spans, false);
        text_wrap(c->doc, &spans, c->width, first, rest);
        text_line_fini(&spans);
        strbuf_fini(&sb);
        blank(c, rest);
        table_first = rest;
    }
    MdTable t = {.ncols = head.n};
    t.align = xcalloc((size_t)t.ncols, sizeof *t.align);
    t.width = xcalloc((size_t)t.ncols, sizeof *t.width);
    row_is_delimiter(&delim, t.align);
    row_fini(&delim);
    t.rows = xcalloc((size_t)(to - header_line), sizeof *t.rows);
    t.rows[t.nrows++] = head;
    for (int i = header_line + 2; i <= to; i++) {
        size_t n;
        const char *s = source_line(c, i, quotes, &n);
        row_split(s, n, &t.rows[t.nrows++]);
    }
    table_draw(c, &t, table_first, rest);
    for (int r = 0; r < t.nrows; r++) row_fini(&t.rows[r]);
    free(t.rows);
    free(t.align);
    free(t.width);
    return true;
}

static void render_blocks(MdCtx *c, cmark_node *parent, const TextLine *first, const TextLine *rest, bool tight);

static void render_block(MdCtx *c, cmark_node *n, const TextLine *first, const TextLine *rest, bool tight) {
    switch (cmark_node_get_type(n)) {
    case CMARK_NODE_PARAGRAPH: {
        if (table_render(c, n, first, rest)) break;
        TextLine para = {0};
        collect_inlines(n, ROLE_NORMAL, &para, starts_with_pipe(n));
        text_wrap(c->doc, &para, c->width, first, rest);
        text_line_fini(&para);
        break;
    }
    case CMARK_NODE_HEADING: {
        int level = cmark_node_get_heading_level(n);
        int role = level == 1 ? ROLE_H1 : level == 2 ? ROLE_H2 : ROLE_H3;
        TextLine para = {0};
        collect_inlines(n, role, &para, false);
        /* Inline markup inside a heading keeps the heading's look. */
        for (int i = 0; i < para.n; i++)
            if (para.spans[i].role != ROLE_CODE) para.spans[i].role = role;
        int before = c->doc->n;
        text_wrap(c->doc, &para, c->width, first, rest);
        int widest = 0;
        for (int i = before; i < c->doc->n; i++) {
            c->doc->lines[i].tag = level;
            int w = text_line_width(&c->doc->lines[i]);
            if (w > widest) widest = w;
        }
        if (level <= 2) {
            TextLine *u = text_doc_add_line(c->doc);
            prefix_copy(u, rest);
            int pw = rest ? text_line_width(rest) : 0;
            StrBuf sb;
            strbuf_init(&sb);
            for (int i = pw; i < widest && i < c->width; i++) strbuf_append(&sb, level == 1 ? glyph(c, "═", "=") : glyph(c, "─", "-"));
            text_line_add(u, role, sb.data);
            strbuf_fini(&sb);
        }
        text_line_fini(&para);
        break;
    }
    case CMARK_NODE_CODE_BLOCK: render_code(c, n, first, rest); break;
    case CMARK_NODE_HTML_BLOCK: {
        TextLine para = {0};
        text_line_add(&para, ROLE_DIM, cmark_node_get_literal(n));
        text_wrap(c->doc, &para, c->width, first, rest);
        text_line_fini(&para);
        break;
    }
    case CMARK_NODE_THEMATIC_BREAK: {
        TextLine *l = text_doc_add_line(c->doc);
        prefix_copy(l, first);
        int pw = first ? text_line_width(first) : 0;
        StrBuf sb;
        strbuf_init(&sb);
        for (int i = pw; i < c->width; i++) strbuf_append(&sb, glyph(c, "─", "-"));
        text_line_add(l, ROLE_DIM, sb.data);
        strbuf_fini(&sb);
        break;
    }
    case CMARK_NODE_BLOCK_QUOTE: {
        TextLine f = {0}, r = {0};
        prefix_copy(&f, first);
        prefix_copy(&r, rest);
        text_line_add(&f, ROLE_QUOTE, glyph(c, "│ ", "| "));
        text_line_add(&r, ROLE_QUOTE, glyph(c, "│ ", "| "));
        /* Text inside a quote is drawn in the quote's role too. */
        int before = c->doc->n;
        render_blocks(c, n, &f, &r, false);
        for (int i = before; i < c->doc->n; i++)
            for (int s = 0; s < c->doc->lines[i].n; s++)
                if (c->doc->lines[i].spans[s].role == ROLE_NORMAL) c->doc->lines[i].spans[s].role = ROLE_QUOTE;
        text_line_fini(&f);
        text_line_fini(&r);
        break;
    }
    case CMARK_NODE_LIST: {
        bool ordered = cmark_node_get_list_type(n) == CMARK_ORDERED_LIST;
        int num = cmark_node_get_list_start(n);
        bool list_tight = cmark_node_get_list_tight(n);
        bool first_item = true;
        for (cmark_node *item = cmark_node_first_child(n); item; item = cmark_node_next(item), num++) {
            if (!first_item && !list_tight) blank(c, rest);
            char marker[32];
            if (ordered) snprintf(marker, sizeof marker, "%d. ", num);
            else snprintf(marker, sizeof marker, "%s ", glyph(c, "•", "*"));
            TextLine f = {0}, r = {0};
            prefix_copy(&f, first_item ? first : rest);
            prefix_copy(&r, rest);
            text_line_add(&f, ROLE_BOLD, marker);
            int mw = text_width(marker);
            text_line_addf(&r, ROLE_NORMAL, "%*s", mw, "");
            render_blocks(c, item, &f, &r, list_tight);
            text_line_fini(&f);
            text_line_fini(&r);
            first_item = false;
        }
        break;
    }
    default: render_blocks(c, n, first, rest, tight); break;
    }
}

static void render_blocks(MdCtx *c, cmark_node *parent, const TextLine *first, const TextLine *rest, bool tight) {
    bool is_first = true;
    for (cmark_node *n = cmark_node_first_child(parent); n; n = cmark_node_next(n)) {
        if (!is_first && !tight) blank(c, rest);
        render_block(c, n, is_first ? first : rest, rest, tight);
        is_first = false;
    }
}

/* Where each source line starts, numbered as cmark numbers them (a line
 * ends at \n, \r\n or \r). */
static void index_lines(MdCtx *c, const char *md, size_t len) {
    int cap = 0;
    for (size_t i = 0;;) {
        size_t e = i;
        while (e < len && md[e] != '\n' && md[e] != '\r') e++;
        if (c->n_lines == cap) {
            cap = cap ? 2 * cap : 64;
            c->line_at = xrealloc(c->line_at, (size_t)cap * sizeof *c->line_at);
            c->line_len = xrealloc(c->line_len, (size_t)cap * sizeof *c->line_len);
        }
        c->line_at[c->n_lines] = md + i;
        c->line_len[c->n_lines++] = e - i;
        if (e >= len) break;
        i = e + (md[e] == '\r' && e + 1 < len && md[e + 1] == '\n' ? 2 : 1);
    }
}

TextDoc *md_render(const char *md, size_t len, int width, bool utf8) {
    MdCtx c = {.doc = text_doc_new(), .width = width < 10 ? 10 : width, .utf8 = utf8};
    index_lines(&c, md, len);
    cmark_node *root = cmark_parse_document(md, len, CMARK_OPT_DEFAULT);
    if (root) {
        render_blocks(&c, root, NULL, NULL, false);
        cmark_node_free(root);
    }
    free(c.line_at);
    free(c.line_len);
    return c.doc;
}
