/* app/tui/tui_text.h: styled text for the workbench, independent of curses.
 *
 * Every screen that shows prose or code builds a TextDoc: lines made of
 * spans, each span UTF-8 text with a semantic role (heading, keyword,
 * failing check...). tui_draw.c maps roles to colours or, under NO_COLOR, to
 * bold/underline/reverse. Widths are display columns (wcwidth), so CJK text
 * wraps and aligns correctly. Being free of curses, the layout is unit-tested
 * (tests/tui/). */
#ifndef CUDOJO_APP_TUI_TEXT_H
#define CUDOJO_APP_TUI_TEXT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

typedef enum TextRole {
    ROLE_NORMAL = 0,
    ROLE_DIM,
    ROLE_BOLD,
    ROLE_TITLE,        /* the title bar */
    ROLE_STATUS,       /* the status/key bar */
    ROLE_KEY,          /* a key name in the status bar or help */
    ROLE_H1,
    ROLE_H2,
    ROLE_H3,
    ROLE_EMPH,
    ROLE_STRONG,
    ROLE_CODE,         /* inline code */
    ROLE_CODEBLOCK,    /* plain text inside a code block */
    ROLE_KEYWORD,
    ROLE_TYPE,
    ROLE_BUILTIN,      /* threadIdx, __syncthreads ... */
    ROLE_COMMENT,
    ROLE_STRING,
    ROLE_NUMBER,
    ROLE_PREPROC,
    ROLE_LINK,
    ROLE_URL,
    ROLE_QUOTE,
    ROLE_PASS,
    ROLE_FAIL,
    ROLE_WARN,
    ROLE_NOTE,
    ROLE_SELECTED,     /* the cursor row */
    ROLE_NEXT,         /* the next exercise on the map */
    ROLE_SEARCH,       /* a search match */
    ROLE_ERRLINE,      /* a source line a diagnostic points at */
    ROLE_HEAT_LOW,
    ROLE_HEAT_MID,
    ROLE_HEAT_HIGH,
    ROLE_LINENO,
    ROLE_BAR_DONE,
    ROLE_BAR_TODO,
    ROLE_BORDER,
    /* timeline bars by kind (tui_timeline.c) */
    ROLE_TL_H2D,
    ROLE_TL_D2H,
    ROLE_TL_D2D,
    ROLE_TL_MEMSET,
    ROLE_TL_KERNEL,
    ROLE_TL_HOST,
    ROLE_TL_SYNC,
    ROLE_COUNT
} TextRole;

typedef struct TextSpan {
    char *text;
    int role;
} TextSpan;

typedef struct TextLine {
    TextSpan *spans;
    int n, cap;
    int tag;           /* what the line stands for (a source line number...); 0 = nothing */
} TextLine;

typedef struct TextDoc {
    TextLine *lines;
    int n, cap;
} TextDoc;

TextDoc *text_doc_new(void);
void text_doc_free(TextDoc **doc);
/* Appends an empty line and returns it (valid until the next add). */
TextLine *text_doc_add_line(TextDoc *doc);
/* Appends a copy of `line` (spans and tag). */
void text_doc_add_copy(TextDoc *doc, const TextLine *line);
/* Appends one line holding `s` in `role`. */
void text_doc_add_text(TextDoc *doc, int role, const char *s);
void text_doc_addf(TextDoc *doc, int role, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

void text_line_fini(TextLine *line);
/* Appends a span (the text is copied; adjacent spans of one role merge). */
void text_line_add(TextLine *line, int role, const char *s);
void text_line_addn(TextLine *line, int role, const char *s, size_t n);
void text_line_addf(TextLine *line, int role, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Appends text padded (or cut) to `cols` display columns, aligned left or
 * right: a table cell. */
void text_line_add_cell(TextLine *line, int role, const char *text, int cols, bool right);
/* The line's text without roles; caller frees. */
char *text_line_plain(const TextLine *line);
/* Display columns of the line. */
int text_line_width(const TextLine *line);

/* Display columns of UTF-8 text (wcwidth; invalid bytes and controls count 1). */
int text_width(const char *s);
int text_width_n(const char *s, size_t n);
/* Decodes one UTF-8 character at s (n bytes available): its length in bytes
 * (>= 1) and display width (0..2) in *cols. */
size_t text_char(const char *s, size_t n, int *cols);
/* Bytes of s that fit in `cols` columns without splitting a character. */
size_t text_fit(const char *s, int cols);

/* Wraps the spans of `para` to `width` columns and appends the lines to
 * doc. A '\n' inside a span forces a break; a '\v' is a
 * source line break: a space, except next to a CJK character. Words break at spaces; CJK
 * characters may break anywhere; a word wider than the line is cut. The
 * first line starts with the spans of `first` and later ones with `rest`
 * (either may be NULL). */
void text_wrap(TextDoc *doc, const TextLine *para, int width, const TextLine *first, const TextLine *rest);

#endif
