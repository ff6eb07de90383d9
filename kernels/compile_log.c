/* kernels/compile_log.c: reading what NVRTC and ptxas print.
 *
 * NVRTC's log is the EDG front end's format:
 *     vector_add.cu(4): error: identifier "b" is undefined
 *         if (i < n) a[i] = b[i] * 2.0f;
 *                           ^
 * i.e. a header line, optional continuation lines, the source line indented
 * by two spaces and a caret line (tabs kept) under the offending column.
 * We turn each entry into a Diag in the learner's file so the learner sees
 * file:line:col, the message and their own line with a caret; NVRTC's raw log
 * is never the only thing shown. ptxas -v output gives per-kernel resources.
 * Also here: listing PTX entries and recovering plain names from mangled
 * ones, so a kernel written without extern "C" is found by its name. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "base/xalloc.h"
#include "kernels/compile_internal.h"

#define NVRTC_OK 0
#define STATIC_SHARED_LIMIT 49152

typedef struct LogLines {
    char **v;
    int n;
} LogLines;

static LogLines lines_split(const char *text) {
    LogLines l = {0};
    int cap = 0;
    const char *p = text;
    while (p && *p) {
        size_t len = strcspn(p, "\n");
        size_t keep = len;
        if (keep && p[keep - 1] == '\r') keep--;
        if (l.n == cap) {
            cap = cap ? cap * 2 : 64;
            l.v = xrealloc(l.v, (size_t)cap * sizeof *l.v);
        }
        l.v[l.n++] = xstrndup(p, keep);
        p += len;
        if (*p == '\n') p++;
    }
    return l;
}

static void lines_free(LogLines *l) {
    for (int i = 0; i < l->n; i++) free(l->v[i]);
    free(l->v);
    memset(l, 0, sizeof *l);
}

static bool is_blank(const char *s) {
    while (*s && isspace((unsigned char)*s)) s++;
    return !*s;
}

static const char *skip_space(const char *s) {
    while (*s == ' ' || *s == '\t') s++;
    return s;
}

typedef struct Header {
    char *file;                     /* NULL for "nvrtc: error: ..." */
    int line;
    DiagSeverity sev;
    char *message;
} Header;

/* "SEVERITY[ #NNN-D]: message" → severity and message; false if not one. */
static bool parse_severity(const char *s, DiagSeverity *sev, const char **msg) {
    static const struct { const char *word; DiagSeverity sev; } words[] = {
        {"catastrophic error", DIAG_ERROR}, {"internal error", DIAG_ERROR},
        {"fatal error", DIAG_ERROR},        {"error", DIAG_ERROR},
        {"warning", DIAG_WARNING},          {"remark", DIAG_NOTE},
    };
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        size_t n = strlen(words[i].word);
        if (strncmp(s, words[i].word, n)) continue;
        const char *p = s + n;
        if (*p == ' ' && p[1] == '#') {       /* " #177-D" diagnostic number */
            p += 2;
            while (*p && *p != ':' && *p != ' ') p++;
        }
        if (*p != ':') return false;
        *sev = words[i].sev;
        *msg = skip_space(p + 1);
        return true;
    }
    return false;
}

/* "file(12): error: msg" or "nvrtc: error: msg". */
static bool parse_header(const char *s, Header *h) {
    memset(h, 0, sizeof *h);
    const char *msg;
    if (!strncmp(s, "nvrtc: ", 7) && parse_severity(s + 7, &h->sev, &msg)) {
        h->message = xstrdup(msg);
        return true;
    }
    /* The file name may itself contain "(": take the last "(digits): " match. */
    const char *best = NULL, *close = NULL;
    for (const char *p = strstr(s, "): "); p; p = strstr(p + 1, "): ")) {
        const char *q = p;
        while (q > s && isdigit((unsigned char)q[-1])) q--;
        if (q < p && q > s && q[-1] == '(' && parse_severity(p + 3, &h->sev, &msg)) {
            best = q - 1;
            close = p;
            break;
        }
    }
    if (!best) return false;
    h->file = xstrndup(s, (size_t)(best - s));
    h->line = atoi(best + 1);
    parse_severity(close + 3, &h->sev, &msg);
    h->message = xstrdup(msg);
    return true;
}

static bool is_caret_line(const char *s) {
    int carets = 0;
    for (; *s; s++) {
        if (*s == '^') carets++;
        else if (*s != ' ' && *s != '\t') return false;
    }
    return carets == 1;
}

static bool is_noise(const char *s) {
    return !strncmp(s, "Remark: The warnings can be suppressed", 38) ||
           strstr(s, " detected in the compilation of ") || !strncmp(s, "Compilation terminated", 22) ||
           !strncmp(s, "ptxas", 5);
}

/* Line `n` (1-based) of `text`, or NULL; caller frees. */
static char *nth_line(const char *text, int n) {
    for (int i = 1; text && *text; i++) {
        size_t len = strcspn(text, "\n");
        if (i == n) return xstrndup(text, len);
        text += len;
        if (*text == '\n') text++;
    }
    return NULL;
}

static bool is_ident(char c) { return isalnum((unsigned char)c) || c == '_'; }

/* The front end echoes a line after macro expansion (nvcc shows
 * `__global__` as `__attribute__((global))`), so the caret's column in the
 * echo is not the learner's. The token under the caret is found in the
 * learner's line instead: the occurrence with as many of the same token
 * after it (expansions sit before it, at the start of a declaration).
 * Returns the learner's column, or `col` when the lines agree or the
 * token cannot be placed. */
static int learner_column(const char *echo, int col, const char *line) {
    if (!echo || !line || col < 1 || !strcmp(echo, line)) return col;
    size_t elen = strlen(echo);
    size_t at = (size_t)col - 1;
    if (at >= elen) return col;
    size_t tlen = 1;
    if (is_ident(echo[at]))
        while (at + tlen < elen && is_ident(echo[at + tlen])) tlen++;
    int after = 0;
    for (const char *q = echo + at + 1; *q; q++)
        if (!strncmp(q, echo + at, tlen) && (!is_ident(echo[at]) || (!is_ident(q[-1]) && !is_ident(q[tlen]))))
            after++;
    size_t llen = strlen(line);
    int seen = 0;
    for (size_t i = llen; i-- > 0;) {
        const char *q = line + i;
        if (strncmp(q, echo + at, tlen)) continue;
        if (is_ident(echo[at]) && ((i > 0 && is_ident(q[-1])) || is_ident(q[tlen]))) continue;
        if (seen++ == after) return (int)i + 1;
    }
    return col;
}

void compile_route_diag(Diag **errors, Diag **warnings, Diag *d) {
    if (d->severity == DIAG_ERROR)
        diag_append(errors, d);
    else if (warnings)
        diag_append(warnings, d);
    else
        diag_free(&d);
}

Diag *compile_log_parse(const char *log, const char *path, const char *source, int nvrtc_rc,
                        Diag **warnings) {
    Diag *errors = NULL;
    LogLines l = lines_split(log);
    for (int i = 0; i < l.n; i++) {
        Header h;
        if (!parse_header(l.v[i], &h)) continue;
        /* The entry runs until a blank line or the next header. */
        int end = i + 1;
        while (end < l.n && !is_blank(l.v[end])) {
            Header probe;
            if (parse_header(l.v[end], &probe)) {
                free(probe.file);
                free(probe.message);
                break;
            }
            end++;
        }
        int caret = -1;
        for (int j = i + 1; j < end; j++)
            if (is_caret_line(l.v[j])) {
                caret = j;
                break;
            }
        StrBuf msg;
        strbuf_init(&msg);
        strbuf_append(&msg, h.message);
        int src_line = caret > i + 1 ? caret - 1 : -1;
        for (int j = i + 1; j < end; j++) {
            if (j == caret || j == src_line || is_noise(l.v[j])) continue;
            strbuf_printf(&msg, "\n%s", skip_space(l.v[j]));
        }
        int col = 0;
        if (caret >= 0) {
            /* Two columns of indent precede the echoed source line. */
            int off = (int)(strchr(l.v[caret], '^') - l.v[caret]);
            col = off >= 2 ? off - 1 : 1;
        }
        bool ours = h.file && !strcmp(h.file, path);
        if (h.file && !strcmp(h.file, "__nv_name_map")) {
            /* A name expression (the exercise's kernel name, e.g. "scale<float>")
             * that this file cannot instantiate: one error per expression. */
            const char *pragma = src_line > 0 ? strstr(l.v[src_line], "nv_mangled_name ") : NULL;
            char *expr = xstrdup(pragma ? skip_space(pragma + 16) : "?");
            bool seen = false;
            for (Diag *e = errors; e; e = e->next)
                if (strstr(e->message, expr)) seen = true;
            if (!seen && h.sev == DIAG_ERROR)
                diag_append(&errors, diag_new(DIAG_ERROR, "compile", path, 0, 0,
                                              "the exercise launches kernel %s, which cannot be made "
                                              "from this file: %s",
                                              expr, h.message));
            free(expr);
            strbuf_fini(&msg);
            free(h.file);
            free(h.message);
            i = end - 1;
            continue;
        }
        Diag *d = diag_new(h.sev, "compile", h.file ? (ours ? path : h.file) : NULL, h.line,
                           h.file ? col : 0, "%s", msg.data);
        if (ours) {
            if (caret >= 0 && src_line > 0) {
                char *mine = nth_line(source, h.line);
                const char *echo = l.v[src_line] + (strncmp(l.v[src_line], "  ", 2) ? 0 : 2);
                d->col = learner_column(echo, d->col, mine);
                free(mine);
            }
            diag_set_excerpt(d, source);
        } else if (src_line > 0) {
            /* A toolkit header: show NVRTC's own echo of the line. */
            StrBuf ex;
            strbuf_init(&ex);
            strbuf_printf(&ex, "%s\n%s", l.v[src_line] + (strncmp(l.v[src_line], "  ", 2) ? 0 : 2),
                          l.v[caret] + (strncmp(l.v[caret], "  ", 2) ? 0 : 2));
            d->excerpt = strbuf_steal(&ex);
            strbuf_fini(&ex);
        }
        strbuf_fini(&msg);
        free(h.file);
        free(h.message);
        compile_route_diag(&errors, warnings, d);
        i = end - 1;
    }
    lines_free(&l);
    if (nvrtc_rc != NVRTC_OK && !errors) {
        /* Nothing parseable (an option NVRTC rejected, a crash): still say what happened. */
        char *trimmed = xstrdup(log ? log : "");
        size_t n = strlen(trimmed);
        while (n && isspace((unsigned char)trimmed[n - 1])) trimmed[--n] = '\0';
        errors = diag_new(DIAG_ERROR, "compile", path, 0, 0, "NVRTC could not compile this file%s%s",
                          n ? ": " : " (it printed nothing)", trimmed);
        free(trimmed);
    }
    return errors;
}

/* ---- ptxas ---- */

static char *quoted_after(const char *s, const char *prefix) {
    const char *p = strstr(s, prefix);
    if (!p) return NULL;
    p += strlen(prefix);
    const char *q = strchr(p, '\'');
    return q ? xstrndup(p, (size_t)(q - p)) : NULL;
}

static KernelInfo *find_lowered(KernelInfo *k, int n, const char *lowered) {
    for (int i = 0; lowered && i < n; i++)
        if (!strcmp(k[i].lowered, lowered)) return &k[i];
    return NULL;
}

/* "N bytes <what>" somewhere in s → N, else -1. */
static int bytes_of(const char *s, const char *what) {
    char pat[64];
    snprintf(pat, sizeof pat, " bytes %s", what);
    const char *p = strstr(s, pat);
    if (!p) return -1;
    const char *q = p;
    while (q > s && isdigit((unsigned char)q[-1])) q--;
    return q < p ? atoi(q) : -1;
}

void compile_ptxas_info(const char *log, KernelInfo *kernels, int n) {
    LogLines l = lines_split(log);
    char *cur = NULL, *props = NULL;
    for (int i = 0; i < l.n; i++) {
        const char *s = l.v[i];
        if (strncmp(s, "ptxas", 5)) continue;
        char *name;
        if ((name = quoted_after(s, "Compiling entry function '"))) {
            free(cur);
            cur = name;
        } else if (strstr(s, "Function properties for ")) {
            free(props);
            props = xstrdup(skip_space(strstr(s, "Function properties for ") + 24));
        } else if (strstr(s, " bytes stack frame")) {
            KernelInfo *k = find_lowered(kernels, n, props);
            if (k) {
                k->local_bytes = bytes_of(s, "stack frame");
                k->spill_bytes = bytes_of(s, "spill stores");
            }
        } else if (strstr(s, "Used ") && strstr(s, " registers")) {
            KernelInfo *k = find_lowered(kernels, n, cur);
            if (k) {
                k->registers = atoi(strstr(s, "Used ") + 5);
                int smem = bytes_of(s, "smem");
                k->shared_static = smem < 0 ? 0 : smem;
            }
        }
    }
    free(cur);
    free(props);
    lines_free(&l);
}

Diag *compile_ptxas_failure(const char *log, const char *path, int arch, int nvrtc_rc) {
    (void)nvrtc_rc;
    LogLines l = lines_split(log);
    Diag *d = NULL;
    char *cur = NULL;
    for (int i = 0; i < l.n && !d; i++) {
        const char *s = l.v[i];
        char *name = quoted_after(s, "Compiling entry function '");
        if (name) {
            free(cur);
            cur = name;
            continue;
        }
        int smem = strstr(s, "Used ") ? bytes_of(s, "smem") : -1;
        if (smem > STATIC_SHARED_LIMIT) {
            char *plain = compile_demangle(cur ? cur : "?");
            d = diag_new(DIAG_ERROR, "compile", path, 0, 0,
                         "kernel %s declares %d bytes of static __shared__ memory, more than the "
                         "%d bytes (48 KiB) a kernel may declare statically: make the arrays "
                         "smaller, or use `extern __shared__` and pass the size at launch",
                         plain, smem, STATIC_SHARED_LIMIT);
            free(plain);
        } else if (!strncmp(s, "ptxas error", 11) || !strncmp(s, "ptxas fatal", 11)) {
            const char *colon = strchr(s, ':');
            d = diag_new(DIAG_ERROR, "compile", path, 0, 0, "ptxas (sm_%d): %s", arch,
                         colon ? skip_space(colon + 1) : s);
        }
    }
    free(cur);
    lines_free(&l);
    if (!d) {
        char *trimmed = xstrdup(log ? log : "");
        size_t n = strlen(trimmed);
        while (n && isspace((unsigned char)trimmed[n - 1])) trimmed[--n] = '\0';
        d = diag_new(DIAG_ERROR, "compile", path, 0, 0,
                     "the PTX was built but ptxas could not make machine code for sm_%d%s%s", arch,
                     n ? ":\n" : "", trimmed);
        free(trimmed);
    }
    return d;
}

/* ---- PTX entries and names ---- */

int compile_ptx_entries(const char *ptx, char ***out) {
    char **v = NULL;
    int n = 0;
    for (const char *p = ptx ? strstr(ptx, ".entry") : NULL; p; p = strstr(p + 6, ".entry")) {
        bool word_start = p == ptx || isspace((unsigned char)p[-1]);
        if (!word_start || !isspace((unsigned char)p[6])) continue;
        const char *q = skip_space(p + 6);
        size_t len = strcspn(q, " \t\r\n(;");
        if (!len) continue;
        v = xrealloc(v, (size_t)(n + 1) * sizeof *v);
        v[n++] = xstrndup(q, len);
    }
    *out = v;
    return n;
}

/* Reads <length><identifier>; returns false if not at one. */
static bool source_name(const char **p, StrBuf *sb) {
    if (!isdigit((unsigned char)**p)) return false;
    char *end;
    long len = strtol(*p, &end, 10);
    if (len <= 0 || (long)strnlen(end, (size_t)len) < len) return false;
    if (len > 10 && !strncmp(end, "_GLOBAL__N", 10))
        strbuf_append(sb, "(anonymous namespace)");
    else
        strbuf_append_n(sb, end, (size_t)len);
    *p = end + len;
    return true;
}

/* Skips a template argument list "I...E" (nesting via I/N/L/X ... E). */
static void skip_template_args(const char **p) {
    int depth = 0;
    do {
        char c = **p;
        if (!c) return;
        if (isdigit((unsigned char)c)) {
            char *end;
            long len = strtol(*p, &end, 10);
            *p = end + ((long)strnlen(end, (size_t)len) < len ? 0 : len);
            continue;
        }
        if (c == 'I' || c == 'N' || c == 'L' || c == 'X') depth++;
        else if (c == 'E') depth--;
        (*p)++;
    } while (depth > 0);
}

char *compile_demangle(const char *lowered) {
    if (strncmp(lowered, "_Z", 2)) return xstrdup(lowered);
    const char *p = lowered + 2;
    if (*p == 'L') p++;
    StrBuf sb;
    strbuf_init(&sb);
    if (*p == 'N') {
        p++;
        while (*p == 'r' || *p == 'V' || *p == 'K') p++;
        while (*p && *p != 'E') {
            if (!strncmp(p, "St", 2)) {
                strbuf_append(&sb, "std");
                p += 2;
                continue;
            }
            if (*p == 'I') {
                skip_template_args(&p);
                continue;
            }
            if (sb.len && sb.data[sb.len - 1] != ':') strbuf_append(&sb, "::");
            if (!source_name(&p, &sb)) break;
        }
    } else {
        source_name(&p, &sb);
    }
    if (!sb.len) {
        strbuf_fini(&sb);
        return xstrdup(lowered);
    }
    char *s = strbuf_steal(&sb);
    strbuf_fini(&sb);
    return s;
}
