/* kernels/program_log.c: what nvcc's pipeline prints, as Diags in the
 * learner's file.
 *
 * nvcc runs several tools and each has its own format:
 *   cudafe++ (EDG, host and device C++):  a.cu(4): error: identifier "b" is undefined
 *                                         + the echoed line and a caret (compile_log.c reads these)
 *   gcc (preprocessor, host compiler):    a.cu:2:2: error: #error no
 *   ld:                                   /tmp/…/a.cu:3: undefined reference to `f(int)'
 *   ptxas:                                ptxas /tmp/tmpxft_….ptx, line 29; error   : Unknown modifier '.op'
 *                                         ptxas error   : Entry function '_Z1kPi' uses too much shared data (…)
 *   nvlink, nvcc:                         nvlink error   : …   nvcc fatal   : …
 * The file is compiled under a private directory (program_compile.c), so
 * any path under it is shown relative to it — which is the learner's
 * display path — and nvcc's own temporary files (tmpxft_…) are never named.
 * ptxas speaks of PTX lines; when its message quotes a token of an inline
 * asm statement, or names a kernel, the learner's line is found in the source. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "base/xalloc.h"
#include "kernels/compile_internal.h"
#include "kernels/program_internal.h"

#define MAX_QUOTED_LOG 4000

bool program_path_is(const char *file, const char *display) {
    if (!file || !display) return false;
    if (!strcmp(file, display)) return true;
    if (display[0] == '/') return false;
    size_t fl = strlen(file), dl = strlen(display);
    const char *d = display;
    if (!strncmp(d, "./", 2)) {
        d += 2;
        dl -= 2;
    }
    return fl > dl && file[fl - dl - 1] == '/' && !strcmp(file + fl - dl, d);
}

/* Replaces every occurrence of `from` in s (caller frees the result). */
static char *replace_all(const char *s, const char *from, const char *to) {
    StrBuf sb;
    strbuf_init(&sb);
    size_t fl = strlen(from);
    const char *p = s;
    for (const char *q; fl && (q = strstr(p, from)); p = q + fl) {
        strbuf_append_n(&sb, p, (size_t)(q - p));
        strbuf_append(&sb, to);
    }
    strbuf_append(&sb, p);
    char *r = strbuf_steal(&sb);
    strbuf_fini(&sb);
    return r;
}

/* The log with the private directory taken out of every path and nvcc's
 * temporary files ("/tmp/tmpxft_00003576_00000000-10_f.o") named as such. */
static char *log_sanitize(const char *log, const char *workdir) {
    char *wd = workdir ? xasprintf("%s/", workdir) : xstrdup("");
    char *s = replace_all(log ? log : "", wd, "");
    free(wd);
    StrBuf sb;
    strbuf_init(&sb);
    const char *p = s;
    for (const char *q; (q = strstr(p, "tmpxft_"));) {
        const char *start = q;
        while (start > p && !isspace((unsigned char)start[-1]) && start[-1] != '\'' && start[-1] != '"' &&
               start[-1] != '(' && start[-1] != '`')
            start--;
        const char *end = q;
        while (*end && !isspace((unsigned char)*end) && *end != ':' && *end != ',' && *end != '\'' &&
               *end != '"' && *end != ')')
            end++;
        strbuf_append_n(&sb, p, (size_t)(start - p));
        strbuf_append(&sb, "(nvcc's temporary file)");
        p = end;
    }
    strbuf_append(&sb, p);
    free(s);
    char *r = strbuf_steal(&sb);
    strbuf_fini(&sb);
    return r;
}

static const char *skip_ws(const char *s) {
    while (*s == ' ' || *s == '\t') s++;
    return s;
}

/* The first source line (1-based) containing `needle` and, when `also` is
 * not NULL, `also` too; 0 when none or when the needle is too short. */
static int source_line_with(const char *source, const char *needle, const char *also) {
    if (!source || !needle || strlen(needle) < 2) return 0;
    int line = 1;
    for (const char *p = source; *p; line++) {
        size_t len = strcspn(p, "\n");
        char *l = xstrndup(p, len);
        bool hit = strstr(l, needle) && (!also || strstr(l, also));
        free(l);
        if (hit) return line;
        p += len;
        if (*p == '\n') p++;
    }
    return 0;
}

/* The text between the first pair of single quotes, or NULL; caller frees. */
static char *first_quoted(const char *s) {
    const char *a = strchr(s, '\'');
    const char *b = a ? strchr(a + 1, '\'') : NULL;
    return b && b > a + 1 ? xstrndup(a + 1, (size_t)(b - a - 1)) : NULL;
}

/* "Entry function '_Z1kPi' uses too much shared data (0x13880 bytes, 0xc000 max)"
 * → "kernel k uses too much shared data (80000 bytes, 49152 max)". */
static char *ptxas_message(const char *msg, char **kernel) {
    *kernel = NULL;
    char *q = first_quoted(msg);
    char *m;
    if (q && !strncmp(msg, "Entry function '", 16)) {
        *kernel = compile_demangle(q);
        const char *rest = msg + 16 + strlen(q) + 1;
        unsigned long used = 0, max = 0;
        const char *paren = strstr(rest, "(0x");
        if (paren && sscanf(paren, "(0x%lx bytes, 0x%lx max)", &used, &max) == 2)
            m = xasprintf("kernel %s%.*s(%lu bytes, %lu max)", *kernel, (int)(paren - rest), rest, used, max);
        else
            m = xasprintf("kernel %s%s", *kernel, rest);
    } else {
        m = xstrdup(msg);
    }
    free(q);
    return m;
}

/* One ptxas line → a Diag (or NULL for its summary lines). */
static Diag *ptxas_diag(const char *s, const char *display, const char *source) {
    const char *sev = strstr(s, "error");
    const char *colon = strstr(s, " : ");
    if (!colon) colon = strchr(s, ':');
    if (!sev || !colon || !strncmp(s, "ptxas fatal", 11)) return NULL;
    const char *msg = skip_ws(colon + (colon[0] == ' ' ? 3 : 1));
    char *kernel = NULL;
    char *m = ptxas_message(msg, &kernel);
    int line = 0;
    if (kernel) {
        const char *base = strrchr(kernel, ':');
        char *call = xasprintf("%s(", base ? base + 1 : kernel);
        line = source_line_with(source, call, "__global__");
        free(call);
    } else {
        char *tok = first_quoted(msg);
        if (tok && tok[0] == '.' && strlen(tok) > 2) memmove(tok, tok + 1, strlen(tok));
        line = source_line_with(source, tok, "asm");
        free(tok);
    }
    Diag *d = diag_new(DIAG_ERROR, "compile", display, line, 0,
                       "ptxas: %s%s", m,
                       kernel || line ? "" : " (in the PTX made from a kernel or an inline asm statement)");
    if (line) diag_set_excerpt(d, source);
    free(m);
    free(kernel);
    return d;
}

/* "FILE:LINE[:COL]: SEVERITY: MESSAGE" (gcc, ld) → its parts; false if not one. */
static bool gcc_header(const char *s, char **file, int *line, int *col, DiagSeverity *sev, const char **msg) {
    static const struct { const char *tag; DiagSeverity sev; } tags[] = {
        {": fatal error: ", DIAG_ERROR}, {": error: ", DIAG_ERROR},
        {": warning: ", DIAG_WARNING},   {": note: ", DIAG_NOTE},
    };
    const char *m = NULL;
    for (size_t i = 0; i < sizeof tags / sizeof tags[0] && !m; i++) {
        const char *hit = strstr(s, tags[i].tag);
        if (hit) {
            m = hit;
            *sev = tags[i].sev;
            *msg = hit + strlen(tags[i].tag);
        }
    }
    if (!m) return false;
    /* Walk back over ":COL" and ":LINE". */
    const char *end = m;
    int nums[2] = {0, 0}, n = 0;
    while (n < 2) {
        const char *q = end;
        while (q > s && isdigit((unsigned char)q[-1])) q--;
        if (q == end || q == s || q[-1] != ':') break;
        nums[n++] = atoi(q);
        end = q - 1;
    }
    if (n == 0) {   /* no place: only a tool's own line ("cc1plus: error: ...") */
        for (const char *q = s; q < m; q++)
            if (!isalnum((unsigned char)*q) && !strchr("_+.-", *q)) return false;
    }
    *file = n ? xstrndup(s, (size_t)(end - s)) : NULL;
    *line = n == 2 ? nums[1] : n == 1 ? nums[0] : 0;
    *col = n == 2 ? nums[0] : 0;
    return true;
}

/* "FILE:LINE: undefined reference to `f(int)'" and the like from ld; binutils
 * 2.42 (Ubuntu 24.04) writes "FILE:LINE:(.text+0x71): undefined ..." */
static Diag *ld_diag(const char *s, const char *display, const char *source) {
    const char *what = strstr(s, "undefined reference to ");
    const char *kind = "undefined";
    if (!what) {
        what = strstr(s, "multiple definition of ");
        kind = "multiple";
    }
    if (!what) return NULL;
    int line = 0;
    const char *end = what;             /* "FILE:LINE: " or "FILE:LINE:(SECTION+OFF): " ends here */
    if (end - s >= 2 && end[-1] == ' ' && end[-2] == ':') end -= 2;
    if (end > s && end[-1] == ')') {
        const char *open = end - 1;
        while (open > s && *open != '(') open--;
        if (open > s && *open == '(' && open[-1] == ':') end = open - 1;
    }
    const char *q = end;
    while (q > s && isdigit((unsigned char)q[-1])) q--;
    if (q < end && q > s && q[-1] == ':') {
        char *file = xstrndup(s, (size_t)(q - 1 - s));
        const char *f = strrchr(file, ' ');
        if (program_path_is(f ? f + 1 : file, display)) line = atoi(q);
        free(file);
    }
    Diag *d = diag_new(DIAG_ERROR, "link", display, line, 0, "%s%s", what,
                       !strcmp(kind, "undefined")
                           ? " (it is declared but defined nowhere: a program is this one file, linked "
                             "with the C and C++ libraries and the CUDA runtime)"
                           : "");
    if (line) diag_set_excerpt(d, source);
    return d;
}

static bool is_edg_header(const char *s) {
    static const char *const tags[] = {"): error", "): warning", "): remark", "): catastrophic error",
                                       "): internal error", "): fatal error"};
    for (size_t i = 0; i < sizeof tags / sizeof tags[0]; i++) {
        const char *t = strstr(s, tags[i]);
        if (t && t > s && isdigit((unsigned char)t[-1])) return true;
    }
    return false;
}

static bool is_tool_line(const char *s, const char *tool) {
    size_t n = strlen(tool);
    return !strncmp(s, tool, n) && (s[n] == ' ' || s[n] == ':');
}

Diag *program_log_parse(const char *log, const char *display, const char *source, const char *workdir,
                        int rc, Diag **warnings) {
    char *clean = log_sanitize(log, workdir);
    Diag *w = NULL;
    /* cudafe++ (EDG) entries: NVRTC's format. */
    Diag *errors = compile_log_parse(clean, display, source, 0, &w);
    for (Diag *d = w, *next; d; d = next) {
        next = d->next;
        d->next = NULL;
        if (warnings && d->file && !strcmp(d->file, display))
            diag_append(warnings, d);
        else
            diag_free(&d);
    }
    bool collect2 = false, in_edg = false;
    const char *p = clean;
    while (*p) {
        size_t len = strcspn(p, "\n");
        char *s = xstrndup(p, len);
        p += len;
        if (*p) p++;
        /* An EDG entry (read above) runs from its header to a blank line;
         * its echoed source line may hold anything. */
        if (is_edg_header(s)) in_edg = true;
        if (in_edg) {
            if (!*skip_ws(s)) in_edg = false;
            free(s);
            continue;
        }
        Diag *d = NULL;
        char *file = NULL;
        int line = 0, col = 0;
        DiagSeverity sev;
        const char *msg;
        if (strstr(s, "undefined reference to ") || strstr(s, "multiple definition of ")) {
            d = ld_diag(s, display, source);
        } else if (is_tool_line(s, "ptxas")) {
            d = ptxas_diag(s, display, source);
        } else if (is_tool_line(s, "nvlink") || is_tool_line(s, "nvcc")) {
            const char *c = strstr(s, " : ");
            if (strstr(s, "error") || strstr(s, "fatal"))
                d = diag_new(DIAG_ERROR, "compile", display, 0, 0, "%.*s: %s", (int)strcspn(s, " "), s,
                             c ? skip_ws(c + 3) : s);
        } else if (!strncmp(s, "collect2: error: ld returned", 28)) {
            collect2 = true;
        } else if (gcc_header(s, &file, &line, &col, &sev, &msg)) {
            bool ours = file && program_path_is(file, display);
            if (sev == DIAG_NOTE) {
                /* gcc's notes only explain the entry above. */
            } else if (ours || sev == DIAG_ERROR) {
                d = diag_new(sev, "compile", ours ? display : file, ours || file ? line : 0,
                             ours || file ? col : 0, "%s", msg);
                if (ours && line) diag_set_excerpt(d, source);
            }
        }
        free(file);
        free(s);
        if (d) compile_route_diag(&errors, warnings, d);
    }
    if (rc != 0 && !errors) {
        size_t n = strlen(clean);
        while (n && isspace((unsigned char)clean[n - 1])) clean[--n] = '\0';
        const char *tail = n > MAX_QUOTED_LOG ? clean + n - MAX_QUOTED_LOG : clean;
        errors = diag_new(DIAG_ERROR, "compile", display, 0, 0, "nvcc could not %s this file (exit status %d)%s%s",
                          collect2 ? "link" : "compile", rc, n ? ":\n" : ", and it printed nothing", tail);
    }
    free(clean);
    return errors;
}
