/* kernels/include_check.c: the #include rule of graded sources (see
 * include_check.h): splices joined with each character's line kept, then
 * every directive-looking '#' checked. */
#include "kernels/include_check.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/xalloc.h"

typedef struct Text {
    char *c;
    int *line;      /* the physical line of each character */
    size_t n;
} Text;

/* Copies `src` without its line splices: a backslash or ??/, then (as GCC
 * also accepts, with a warning) blanks, then a newline: \n, \r\n or a lone
 * \r. */
static void text_unsplice(const char *src, size_t len, Text *t) {
    t->c = xmalloc(len + 1);
    t->line = xmalloc((len + 1) * sizeof *t->line);
    t->n = 0;
    int line = 1;
    for (size_t i = 0; i < len;) {
        size_t k = src[i] == '\\' ? 1 : (i + 3 <= len && !strncmp(src + i, "?\?/", 3) ? 3 : 0);
        if (k) {
            size_t j = i + k;
            while (j < len && (src[j] == ' ' || src[j] == '\t' || src[j] == '\v' || src[j] == '\f')) j++;
            if (j < len && (src[j] == '\n' || src[j] == '\r')) {
                i = j + (src[j] == '\r' && j + 1 < len && src[j + 1] == '\n' ? 2 : 1);
                line++;
                continue;
            }
        }
        t->c[t->n] = src[i];
        t->line[t->n++] = line;
        if (src[i++] == '\n') line++;
    }
    t->c[t->n] = '\0';
}

/* Past blanks and comments on the same line. */
static size_t skip_blank(const Text *t, size_t i) {
    for (;;) {
        if (i < t->n && (t->c[i] == ' ' || t->c[i] == '\t' || t->c[i] == '\v' || t->c[i] == '\f' ||
                         t->c[i] == '\r')) {
            i++;
        } else if (i + 1 < t->n && t->c[i] == '/' && t->c[i + 1] == '*') {
            const char *end = strstr(t->c + i + 2, "*/");
            i = end ? (size_t)(end - t->c) + 2 : t->n;
        } else {
            return i;
        }
    }
}

/* Why header name `name` (n bytes) is refused, or NULL. */
static const char *name_refused(const char *name, size_t n) {
    if (n && name[0] == '/') return "an absolute path";
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && name[j] != '/') j++;
        if (j - i == 2 && name[i] == '.' && name[i + 1] == '.') return "a path that climbs out with ..";
        i = j + 1;
    }
    return NULL;
}

static bool is_ident(char c) { return isalnum((unsigned char)c) || c == '_'; }

/* Checks the directive whose '#' ends just before `i`; an error or NULL. */
static Diag *check_directive(const Text *t, size_t hash, size_t i, const char *display) {
    i = skip_blank(t, i);
    size_t w = i;
    while (i < t->n && is_ident(t->c[i])) i++;
    size_t wl = i - w;
    static const char *const words[] = {"include", "include_next", "import", "embed"};
    bool inc = false;
    for (size_t k = 0; k < sizeof words / sizeof words[0]; k++)
        if (wl == strlen(words[k]) && !strncmp(t->c + w, words[k], wl)) inc = true;
    if (!inc) return NULL;
    i = skip_blank(t, i);
    char close = i < t->n && t->c[i] == '<' ? '>' : i < t->n && t->c[i] == '"' ? '"' : 0;
    size_t end = i + 1;
    while (close && end < t->n && t->c[end] != close && t->c[end] != '\n') end++;
    if (!close || end >= t->n || t->c[end] != close)
        return diag_new(DIAG_ERROR, "include-refused", display, t->line[hash], 0,
                        "#%.*s with a file name made by a macro is refused in graded work: name the header as "
                        "<name.h> or \"name.h\"", (int)wl, t->c + w);
    const char *why = name_refused(t->c + i + 1, end - i - 1);
    if (!why) return NULL;
    return diag_new(DIAG_ERROR, "include-refused", display, t->line[hash], 0,
                    "#%.*s %c%.*s%c is refused in graded work (%s): only headers named by a relative path "
                    "without .. may be included, such as <cuda_runtime.h>", (int)wl, t->c + w, t->c[i],
                    (int)(end - i - 1), t->c + i + 1, close, why);
}

Diag *include_check_graded(const char *display, const char *text, size_t len) {
    if (!text) return NULL;
    /* GCC reads past a NUL byte (as a blank); a scan of the C string would not. */
    const char *nul = memchr(text, '\0', len);
    if (nul) {
        int line = 1;
        for (const char *p = text; p < nul; p++) line += *p == '\n';
        return diag_new(DIAG_ERROR, "include-refused", display, line, 0,
                        "a NUL byte is refused in graded work: a source file is text");
    }
    Text t;
    text_unsplice(text, len, &t);
    Diag *d = NULL;
    for (size_t i = 0; i < t.n && !d; i++) {
        size_t k = t.c[i] == '#' ? 1 : !strncmp(t.c + i, "%:", 2) ? 2 : !strncmp(t.c + i, "?\?=", 3) ? 3 : 0;
        if (k) d = check_directive(&t, i, i + k, display);
        /* The assembler reads files too: asm(".incbin \"/etc/passwd\""). */
        size_t dl = t.c[i] != '.' ? 0 : !strncasecmp(t.c + i, ".incbin", 7) ? 7 : !strncasecmp(t.c + i, ".include", 8) ? 8 : 0;
        if (!d && dl && !is_ident(t.c[i + dl]))
            d = diag_new(DIAG_ERROR, "include-refused", display, t.line[i], 0,
                         "the assembler directive %.*s is refused in graded work: it reads a file at compile time",
                         (int)dl, t.c + i);
    }
    free(t.c);
    free(t.line);
    return d;
}
