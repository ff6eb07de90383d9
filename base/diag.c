/* base/diag.c: user-facing diagnostics. */
#include "base/diag.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/bytes.h"
#include "base/i18n.h"
#include "base/xalloc.h"

static Diag *diag_vnew(DiagSeverity sev, const char *code, const char *file, int line, int col,
                       const char *fmt, va_list ap) __attribute__((format(printf, 6, 0)));

static Diag *diag_vnew(DiagSeverity sev, const char *code, const char *file, int line, int col,
                       const char *fmt, va_list ap) {
    Diag *d = xcalloc(1, sizeof *d);
    d->severity = sev;
    d->code = xstrdup(code ? code : "error");
    d->file = xstrdup(file);
    d->line = line;
    d->col = col;
    d->message = xvasprintf(fmt, ap);
    return d;
}

Diag *diag_new(DiagSeverity sev, const char *code, const char *file, int line, int col,
               const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    Diag *d = diag_vnew(sev, code, file, line, col, fmt, ap);
    va_end(ap);
    return d;
}

Diag *diag_error(const char *code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    Diag *d = diag_vnew(DIAG_ERROR, code, NULL, 0, 0, fmt, ap);
    va_end(ap);
    return d;
}

void diag_free(Diag **dp) {
    Diag *d = *dp;
    while (d) {
        Diag *next = d->next;
        free(d->code);
        free(d->file);
        free(d->message);
        free(d->excerpt);
        free(d);
        d = next;
    }
    *dp = NULL;
}

Diag *diag_append(Diag **list, Diag *d) {
    Diag **tail = list;
    while (*tail) tail = &(*tail)->next;
    *tail = d;
    return d;
}

static bool same_finding(const Diag *a, const Diag *b) {
    return a->severity == b->severity && !strcmp(a->code, b->code) && a->line == b->line &&
           (a->file ? b->file && !strcmp(a->file, b->file) : !b->file) &&
           (a->line > 0 || !strcmp(a->message, b->message));
}

/* "... (in 7 launches)": the count an earlier fold left at the end of m, or 1. */
static int launches_of(const char *m, size_t *base_len) {
    size_t n = strlen(m);
    *base_len = n;
    if (n < 14 || strcmp(m + n - 10, " launches)")) return 1;
    const char *p = m + n - 10;
    while (p > m && p[-1] >= '0' && p[-1] <= '9') p--;
    if (p - m < 5 || strncmp(p - 5, " (in ", 5)) return 1;
    *base_len = (size_t)(p - 5 - m);
    return atoi(p);
}

void diag_append_launch(Diag **list, Diag *launch) {
    Diag *last_old = *list;
    while (last_old && last_old->next) last_old = last_old->next;
    Diag **folded = NULL;   /* earlier entries this launch already counted once */
    size_t n_folded = 0;
    while (launch) {
        Diag *d = launch;
        launch = d->next;
        d->next = NULL;
        Diag *seen = NULL;
        for (Diag *e = last_old ? *list : NULL; e && !seen; e = e == last_old ? NULL : e->next) {
            bool used = false;
            for (size_t i = 0; i < n_folded && !used; i++) used = folded[i] == e;
            if (!used && same_finding(e, d)) seen = e;
        }
        if (!seen) {
            diag_append(list, d);
            continue;
        }
        folded = xrealloc(folded, (n_folded + 1) * sizeof *folded);
        folded[n_folded++] = seen;
        size_t base;
        int k = launches_of(seen->message, &base);
        char *m = xasprintf("%.*s (in %d launches)", (int)base, seen->message, k + 1);
        free(seen->message);
        seen->message = m;
        diag_free(&d);
    }
    free(folded);
}

int diag_count(const Diag *d) {
    int n = 0;
    for (; d; d = d->next) n++;
    return n;
}

int diag_count_errors(const Diag *d) {
    int n = 0;
    for (; d; d = d->next)
        if (d->severity == DIAG_ERROR) n++;
    return n;
}

void diag_set_thread(Diag *d, const unsigned block[3], const unsigned thread[3]) {
    d->has_thread = true;
    memcpy(d->block, block, sizeof d->block);
    memcpy(d->thread, thread, sizeof d->thread);
}

void diag_set_excerpt(Diag *d, const char *source) {
    if (!source || d->line <= 0) return;
    const char *p = source;
    for (int ln = 1; ln < d->line && p; ln++) {
        p = strchr(p, '\n');
        if (p) p++;
    }
    if (!p || !*p) return;
    size_t len = strcspn(p, "\r\n");
    /* A line of a hostile file may be megabytes long: keep a window of it
     * around the column (never half a UTF-8 character), marked with "…". */
    size_t start = 0, end = len;
    if (len > DIAG_EXCERPT_MAX) {
        size_t col = d->col > 0 ? (size_t)d->col - 1 : 0;
        if (col > DIAG_EXCERPT_MAX / 2) start = col - DIAG_EXCERPT_MAX / 2;
        if (start > len) start = len;
        while (start > 0 && ((unsigned char)p[start] & 0xC0) == 0x80) start--;
        end = start + DIAG_EXCERPT_MAX < len ? start + DIAG_EXCERPT_MAX : len;
        while (end < len && end > start && ((unsigned char)p[end] & 0xC0) == 0x80) end--;
    }
    StrBuf sb;
    strbuf_init(&sb);
    if (start > 0) strbuf_append(&sb, "…");
    strbuf_append_n(&sb, p + start, end - start);
    if (end < len) strbuf_append(&sb, "…");
    if (d->col > 0 && (size_t)d->col <= len + 1 && (size_t)d->col - 1 >= start && (size_t)d->col - 1 <= end) {
        strbuf_append_char(&sb, '\n');
        if (start > 0) strbuf_append_char(&sb, ' ');
        /* Keep tabs so the caret lines up under the same column in a terminal. */
        for (size_t i = start; i + 1 < (size_t)d->col; i++) strbuf_append_char(&sb, p[i] == '\t' ? '\t' : ' ');
        strbuf_append_char(&sb, '^');
    }
    free(d->excerpt);
    d->excerpt = strbuf_steal(&sb);
    strbuf_fini(&sb);
}

const char *diag_severity_name(DiagSeverity sev) {
    switch (sev) {
    case DIAG_ERROR: return "error";
    case DIAG_WARNING: return "warning";
    case DIAG_NOTE: return "note";
    }
    return "error";
}

void diag_format(const Diag *d, StrBuf *out, bool color) {
    static const char *sev_color[] = {"\033[1;31m", "\033[1;35m", "\033[1;36m"};
    if (d->file) {
        strbuf_append(out, color ? "\033[1m" : "");
        bytes_append_printable(out, d->file);
        if (d->line > 0) strbuf_printf(out, ":%d", d->line);
        if (d->line > 0 && d->col > 0) strbuf_printf(out, ":%d", d->col);
        strbuf_printf(out, ":%s ", color ? "\033[0m" : "");
    }
    strbuf_printf(out, "%s%s:%s ", color ? sev_color[d->severity] : "", diag_severity_name(d->severity),
                  color ? "\033[0m" : "");
    char *msg = i18n_message(d->message);   /* built in English; shown in the language shown */
    bytes_append_printable(out, msg);
    free(msg);
    if (d->has_thread && !strstr(d->message, "block (")) {
        strbuf_printf(out, " [block (%u,%u,%u), thread (%u,%u,%u)]", d->block[0], d->block[1],
                      d->block[2], d->thread[0], d->thread[1], d->thread[2]);
    }
    strbuf_append_char(out, '\n');
    if (d->excerpt) {
        const char *p = d->excerpt;
        while (*p) {
            size_t len = strcspn(p, "\n");
            char *line = xstrndup(p, len);
            strbuf_append(out, "    ");
            bytes_append_printable(out, line);
            strbuf_append_char(out, '\n');
            free(line);
            p += len;
            if (*p == '\n') p++;
        }
    }
}

char *diag_format_all(const Diag *d, bool color) {
    StrBuf sb;
    strbuf_init(&sb);
    for (; d; d = d->next) diag_format(d, &sb, color);
    char *s = strbuf_steal(&sb);
    strbuf_fini(&sb);
    return s;
}

json_t *diag_to_json(const Diag *d) {
    json_t *arr = json_array();
    for (; d; d = d->next) {
        /* file, message and excerpt are the user's text: any bytes (base/bytes.h). */
        json_t *o = json_pack("{s:s, s:o, s:o?, s:i, s:i, s:o, s:o?}", "severity",
                              diag_severity_name(d->severity), "code", bytes_to_json(d->code), "file",
                              bytes_to_json(d->file), "line", d->line, "col", d->col, "message",
                              bytes_to_json(d->message), "excerpt", bytes_to_json(d->excerpt));
        if (d->has_thread) {
            json_object_set_new(o, "block", json_pack("[i,i,i]", d->block[0], d->block[1], d->block[2]));
            json_object_set_new(o, "thread", json_pack("[i,i,i]", d->thread[0], d->thread[1], d->thread[2]));
        }
        json_array_append_new(arr, o);
    }
    return arr;
}

static const char *json_str(const json_t *o, const char *key) {
    return json_string_value(json_object_get(o, key));
}

Diag *diag_from_json(const json_t *arr) {
    Diag *list = NULL;
    size_t i;
    json_t *o;
    json_array_foreach(arr, i, o) {
        const char *sev = json_str(o, "severity");
        DiagSeverity s = DIAG_ERROR;
        if (sev && !strcmp(sev, "warning")) s = DIAG_WARNING;
        if (sev && !strcmp(sev, "note")) s = DIAG_NOTE;
        char *code = bytes_from_json(json_object_get(o, "code"));
        char *file = bytes_from_json(json_object_get(o, "file"));
        char *msg = bytes_from_json(json_object_get(o, "message"));
        Diag *d = diag_new(s, code, file, (int)json_integer_value(json_object_get(o, "line")),
                           (int)json_integer_value(json_object_get(o, "col")), "%s", msg ? msg : "");
        free(code);
        free(file);
        free(msg);
        d->excerpt = bytes_from_json(json_object_get(o, "excerpt"));
        json_t *b = json_object_get(o, "block"), *t = json_object_get(o, "thread");
        if (json_is_array(b) && json_is_array(t)) {
            unsigned bb[3], tt[3];
            for (int k = 0; k < 3; k++) {
                bb[k] = (unsigned)json_integer_value(json_array_get(b, (size_t)k));
                tt[k] = (unsigned)json_integer_value(json_array_get(t, (size_t)k));
            }
            diag_set_thread(d, bb, tt);
        }
        diag_append(&list, d);
    }
    return list;
}

const char *diag_finding_kind(const char *code) {
    if (!code) return NULL;
    if (!strncmp(code, "oob", 3)) return "out-of-bounds";
    if (!strncmp(code, "race", 4)) return "race";
    if (!strncmp(code, "barrier", 7) || !strcmp(code, "deadlock") || !strcmp(code, "divergent")) return "barrier";
    if (!strncmp(code, "uninit", 6)) return "uninitialised";
    if (!strcmp(code, "misaligned")) return "misaligned";
    return NULL;
}

bool diag_code_is_kernel_bug(const char *code) {
    return diag_finding_kind(code) ||
           (code && (!strcmp(code, "assert") || !strcmp(code, "trap") || !strncmp(code, "warp-sync", 9)));
}
