/* app/tui/tui_markdown.c: CommonMark (cmark AST) to styled, wrapped lines. */
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
} MdCtx;

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

static void render_blocks(MdCtx *c, cmark_node *parent, const TextLine *first, const TextLine *rest, bool tight);

static void render_block(MdCtx *c, cmark_node *n, const TextLine *first, const TextLine *rest, bool tight) {
    switch (cmark_node_get_type(n)) {
    case CMARK_NODE_PARAGRAPH: {
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
            for (int i = pw; i < widest && i < c->width; i++) strbuf_append(&sb, level == 1 ? "═" : "─");
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
        for (int i = pw; i < c->width; i++) strbuf_append(&sb, "─");
        text_line_add(l, ROLE_DIM, sb.data);
        strbuf_fini(&sb);
        break;
    }
    case CMARK_NODE_BLOCK_QUOTE: {
        TextLine f = {0}, r = {0};
        prefix_copy(&f, first);
        prefix_copy(&r, rest);
        text_line_add(&f, ROLE_QUOTE, "│ ");
        text_line_add(&r, ROLE_QUOTE, "│ ");
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
            else snprintf(marker, sizeof marker, "• ");
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

TextDoc *md_render(const char *md, size_t len, int width) {
    MdCtx c = {.doc = text_doc_new(), .width = width < 10 ? 10 : width};
    cmark_node *root = cmark_parse_document(md, len, CMARK_OPT_DEFAULT);
    if (root) {
        render_blocks(&c, root, NULL, NULL, false);
        cmark_node_free(root);
    }
    return c.doc;
}
