/* app/mutants.c: the mutants of a CUDA source (app/mutants.h): a small
 * tokenizer that knows where device code is, and one function per kind of
 * mutation, each adding the mutants it finds. The driver that runs them is
 * app/mutants_run.c. */
#include "app/mutants.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "base/xalloc.h"

/* ---- tokens ---- */

typedef enum TokKind { TOK_IDENT, TOK_NUMBER, TOK_PUNCT } TokKind;

typedef struct Tok {
    TokKind kind;
    int start, end;     /* byte offsets into the source */
    int line;
    bool device;        /* inside a __global__/__device__ function body */
    int body;           /* the index of that body's "{" (-1 outside) */
} Tok;

typedef struct Src {
    const char *text;
    Tok *t;
    int n;
    bool program;
    MutantList *out;
} Src;

static bool tok_is(const Src *s, int i, const char *word) {
    if (i < 0 || i >= s->n) return false;
    size_t len = (size_t)(s->t[i].end - s->t[i].start);
    return strlen(word) == len && !memcmp(s->text + s->t[i].start, word, len);
}

static bool is_ident_char(char c) { return isalnum((unsigned char)c) || c == '_'; }

/* Longest punctuator first. */
static const char *const puncts[] = {
    "<<<", ">>>", "<<=", ">>=", "->*", "...", "::", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=",
    "&&", "||", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", ".*", NULL,
};

/* Skips a string or character literal starting at p (the quote); returns the end. */
static const char *skip_quoted(const char *p) {
    char q = *p++;
    while (*p && *p != q && *p != '\n') {
        if (*p == '\\' && p[1]) p++;
        p++;
    }
    return *p == q ? p + 1 : p;
}

/* Skips a raw string R"delim( ... )delim" starting at the quote. */
static const char *skip_raw(const char *p) {
    const char *open = strchr(p + 1, '(');
    if (!open || open - p > 17) return skip_quoted(p);
    char close[20];
    size_t dl = (size_t)(open - p - 1);
    close[0] = ')';
    memcpy(close + 1, p + 1, dl);
    close[dl + 1] = '"';
    close[dl + 2] = '\0';
    const char *e = strstr(open, close);
    return e ? e + dl + 2 : p + strlen(p);
}

static void tokenize(Src *s) {
    const char *p = s->text, *base = s->text;
    int line = 1, cap = 0;
    bool line_start = true;
    while (*p) {
        if (*p == '\n') {
            line++;
            line_start = true;
            p++;
            continue;
        }
        if (isspace((unsigned char)*p)) {
            p++;
            continue;
        }
        if (p[0] == '/' && p[1] == '/') {
            while (*p && *p != '\n') p++;
            continue;
        }
        if (p[0] == '/' && p[1] == '*') {
            const char *e = strstr(p + 2, "*/");
            const char *stop = e ? e + 2 : p + strlen(p);
            for (; p < stop; p++) line += *p == '\n';
            continue;
        }
        if (*p == '#' && line_start) {    /* a preprocessor line, with its continuations */
            while (*p && *p != '\n') {
                if (*p == '\\' && p[1] == '\n') {
                    line++;
                    p++;
                }
                p++;
            }
            continue;
        }
        line_start = false;
        if (*p == '"' || *p == '\'') {
            const char *e = skip_quoted(p);
            for (; p < e; p++) line += *p == '\n';
            continue;
        }
        Tok t = {.start = (int)(p - base), .line = line, .body = -1};
        if (isalpha((unsigned char)*p) || *p == '_') {
            const char *q = p;
            while (is_ident_char(*q)) q++;
            /* An encoding prefix or raw string: u8"...", L'x', R"(...)". */
            if (*q == '"' || *q == '\'') {
                bool raw = q[-1] == 'R' && *q == '"';
                const char *e = raw ? skip_raw(q) : skip_quoted(q);
                for (; p < e; p++) line += *p == '\n';
                continue;
            }
            t.kind = TOK_IDENT;
            p = q;
        } else if (isdigit((unsigned char)*p) || (*p == '.' && isdigit((unsigned char)p[1]))) {
            t.kind = TOK_NUMBER;
            while (is_ident_char(*p) || *p == '.' || *p == '\'' ||
                   ((*p == '+' || *p == '-') && strchr("eEpP", p[-1])))
                p++;
        } else {
            t.kind = TOK_PUNCT;
            size_t len = 1;
            for (const char *const *q = puncts; *q; q++)
                if (!strncmp(p, *q, strlen(*q))) {
                    len = strlen(*q);
                    break;
                }
            p += len;
        }
        t.end = (int)(p - base);
        if (s->n == cap) {
            cap = cap ? cap * 2 : 256;
            s->t = xrealloc(s->t, (size_t)cap * sizeof *s->t);
        }
        s->t[s->n++] = t;
    }
}

/* The index of the token closing the bracket at i ("(", "{" or "["), or s->n. */
static int match_close(const Src *s, int i) {
    int depth = 0;
    for (int j = i; j < s->n; j++) {
        if (tok_is(s, j, "(") || tok_is(s, j, "{") || tok_is(s, j, "[")) depth++;
        else if (tok_is(s, j, ")") || tok_is(s, j, "}") || tok_is(s, j, "]")) {
            if (--depth == 0) return j;
        }
    }
    return s->n;
}

/* Marks the bodies of __global__ and __device__ functions (and lambdas). A
 * declaration that reaches `;` or `=` first is a variable or a prototype. */
static void mark_device(Src *s) {
    for (int i = 0; i < s->n; i++) {
        if (s->t[i].device || !(tok_is(s, i, "__global__") || tok_is(s, i, "__device__"))) continue;
        int paren = 0;
        for (int j = i + 1; j < s->n; j++) {
            if (tok_is(s, j, "(")) paren++;
            else if (tok_is(s, j, ")")) paren--;
            else if (paren == 0 && (tok_is(s, j, ";") || tok_is(s, j, "="))) break;
            else if (paren == 0 && tok_is(s, j, "{")) {
                int end = match_close(s, j);
                for (int k = j; k <= end && k < s->n; k++) {
                    s->t[k].device = true;
                    s->t[k].body = j;
                }
                i = end;
                break;
            }
        }
    }
}

/* ---- making one mutant ---- */

typedef struct Edit {
    int start, end;     /* byte range replaced */
    const char *text;   /* by this */
} Edit;

/* The trimmed text of line `line` (1-based) of `text`, whitespace runs as one space. Caller frees. */
static char *line_text(const char *text, int line) {
    const char *p = text;
    for (int l = 1; l < line && p; l++) {
        p = strchr(p, '\n');
        if (p) p++;
    }
    StrBuf sb;
    strbuf_init(&sb);
    bool space = false;
    for (; p && *p && *p != '\n'; p++) {
        if (isspace((unsigned char)*p)) {
            space = sb.len > 0;
            continue;
        }
        if (space) strbuf_append_char(&sb, ' ');
        space = false;
        strbuf_append_char(&sb, *p);
    }
    char *r = strbuf_steal(&sb);
    strbuf_fini(&sb);
    return r;
}

/* Adds the mutant made by replacing the byte ranges of `edits` (in order,
 * not overlapping). The newlines a replaced range held are put back after
 * its replacement, so every line keeps its number. */
static void add_mutant(Src *s, int line, const Edit *edits, int n_edits, const char *op_fmt, ...)
    __attribute__((format(printf, 5, 6)));

static void add_mutant(Src *s, int line, const Edit *edits, int n_edits, const char *op_fmt, ...) {
    StrBuf sb;
    strbuf_init(&sb);
    int at = 0;
    for (int e = 0; e < n_edits; e++) {
        strbuf_append_n(&sb, s->text + at, (size_t)(edits[e].start - at));
        strbuf_append(&sb, edits[e].text);
        for (int k = edits[e].start; k < edits[e].end; k++)
            if (s->text[k] == '\n') strbuf_append_char(&sb, '\n');
        at = edits[e].end;
    }
    strbuf_append(&sb, s->text + at);
    MutantList *l = s->out;
    l->v = xrealloc(l->v, (size_t)(l->n + 1) * sizeof *l->v);
    Mutant *m = &l->v[l->n++];
    va_list ap;
    va_start(ap, op_fmt);
    m->op = xvasprintf(op_fmt, ap);
    va_end(ap);
    m->line = line;
    m->source = strbuf_steal(&sb);
    strbuf_fini(&sb);
    m->before = line_text(s->text, line);
    m->after = line_text(m->source, line);
}

/* Replaces tokens a..b (inclusive) by `text`. */
static void replace_tokens(Src *s, int a, int b, const char *text, const char *op) {
    Edit e = {s->t[a].start, s->t[b].end, text};
    add_mutant(s, s->t[a].line, &e, 1, "%s", op);
}

static char *tok_text(const Src *s, int a, int b) {
    return xstrndup(s->text + s->t[a].start, (size_t)(s->t[b].end - s->t[a].start));
}

/* ---- the mutations ---- */

/* Drops barrier-like calls: __syncthreads(), __syncwarp(mask), g.sync(). */
static void mutate_barriers(Src *s) {
    for (int i = 0; i < s->n; i++) {
        if (!s->t[i].device) continue;
        if ((tok_is(s, i, "__syncthreads") || tok_is(s, i, "__syncwarp")) && tok_is(s, i + 1, "(")) {
            int close = match_close(s, i + 1);
            if (close >= s->n) continue;
            char *op = xasprintf("drop %s()", tok_is(s, i, "__syncwarp") ? "__syncwarp" : "__syncthreads");
            replace_tokens(s, i, close, "((void)0)", op);
            free(op);
        } else if (tok_is(s, i, "sync") && i >= 2 && tok_is(s, i - 1, ".") && s->t[i - 2].kind == TOK_IDENT &&
                   !tok_is(s, i - 3, ".") && !tok_is(s, i - 3, "->") && !tok_is(s, i - 3, "::") &&
                   tok_is(s, i + 1, "(") && tok_is(s, i + 2, ")")) {
            char *recv = tok_text(s, i - 2, i - 2);
            char *op = xasprintf("drop %s.sync()", recv);
            replace_tokens(s, i - 2, i + 2, "((void)0)", op);
            free(op);
            free(recv);
        }
    }
}

static bool is_relational(const Src *s, int i) {
    return s->t[i].kind == TOK_PUNCT && (tok_is(s, i, "<") || tok_is(s, i, "<=") || tok_is(s, i, ">") ||
                                         tok_is(s, i, ">="));
}

/* A `<` that opens template arguments (static_cast<int>, tile<32>): the
 * token before it is a cast, `template` or a known template name. */
static bool opens_template(const Src *s, int i) {
    static const char *const words[] = {"static_cast", "reinterpret_cast", "const_cast", "dynamic_cast",
                                        "template", "tiled_partition", "thread_block_tile", "plus", "less",
                                        "greater", "max", "min", "numeric_limits", NULL};
    if (!tok_is(s, i, "<")) return false;
    for (const char *const *w = words; *w; w++)
        if (tok_is(s, i - 1, *w)) return true;
    return false;
}

/* Calls f on every relational operator of tokens a..b (exclusive of b),
 * leaving out template brackets. */
typedef void (*RelFn)(Src *s, int i, const char *kind);

static void each_relational(Src *s, int a, int b, RelFn f, const char *kind) {
    for (int i = a; i < b; i++) {
        if (opens_template(s, i)) {   /* skip to its closing > */
            int depth = 0;
            for (; i < b; i++) {
                if (tok_is(s, i, "<")) depth++;
                else if (tok_is(s, i, ">") && --depth == 0) break;
                else if (tok_is(s, i, ">>") && (depth -= 2) <= 0) break;
            }
            continue;
        }
        if (is_relational(s, i)) f(s, i, kind);
    }
}

/* A guard admits one more: `<` → `<=`, `>=` → `>`. */
static void weaken_one(Src *s, int i, const char *kind) {
    const char *to = tok_is(s, i, "<") ? "<=" : tok_is(s, i, ">=") ? ">" : NULL;
    if (!to) return;
    char *from = tok_text(s, i, i);
    char *op = xasprintf("%s %s to %s", kind, from, to);
    replace_tokens(s, i, i, to, op);
    free(op);
    free(from);
}

/* A loop bound moves by one either way: `<` ↔ `<=`, `>` ↔ `>=`. */
static void shift_bound(Src *s, int i, const char *kind) {
    const char *to = tok_is(s, i, "<") ? "<=" : tok_is(s, i, "<=") ? "<" : tok_is(s, i, ">") ? ">=" : ">";
    char *from = tok_text(s, i, i);
    char *op = xasprintf("%s %s to %s", kind, from, to);
    replace_tokens(s, i, i, to, op);
    free(op);
    free(from);
}

static bool has_relational(const Src *s, int a, int b) {
    for (int i = a; i < b; i++)
        if (is_relational(s, i) && !opens_template(s, i)) return true;
    return false;
}

/* The last token of the statement starting at i (a block or up to `;`), or -1. */
static int statement_end(const Src *s, int i) {
    if (tok_is(s, i, "{")) return match_close(s, i) < s->n ? match_close(s, i) : -1;
    if (tok_is(s, i, "if") || tok_is(s, i, "for") || tok_is(s, i, "while") || tok_is(s, i, "do") ||
        tok_is(s, i, "switch"))
        return -1;
    int depth = 0;
    for (int j = i; j < s->n; j++) {
        if (tok_is(s, j, "(") || tok_is(s, j, "[") || tok_is(s, j, "{")) depth++;
        else if (tok_is(s, j, ")") || tok_is(s, j, "]") || tok_is(s, j, "}")) depth--;
        else if (depth == 0 && tok_is(s, j, ";")) return j;
        if (depth < 0) return -1;
    }
    return -1;
}

/* if (COND): weaken each comparison; drop the guard of an if without else
 * whose condition compares (true, or false when it guards an early exit). */
static void mutate_ifs(Src *s) {
    for (int i = 0; i < s->n; i++) {
        if (!s->t[i].device || !tok_is(s, i, "if")) continue;
        int open = i + 1;
        if (tok_is(s, open, "constexpr")) continue;
        if (!tok_is(s, open, "(")) continue;
        int close = match_close(s, open);
        if (close >= s->n) continue;
        each_relational(s, open + 1, close, weaken_one, "weaken guard");
        if (!has_relational(s, open + 1, close)) continue;
        int end = statement_end(s, close + 1);
        if (end < 0 || tok_is(s, end + 1, "else")) continue;
        int first = tok_is(s, close + 1, "{") ? close + 2 : close + 1;
        bool exit = tok_is(s, first, "return") || tok_is(s, first, "continue") || tok_is(s, first, "break");
        Edit e = {s->t[open + 1].start, s->t[close - 1].end, exit ? "false" : "true"};
        add_mutant(s, s->t[i].line, &e, 1, "%s", exit ? "drop early-exit guard" : "drop guard");
    }
}

static bool is_assignment(const Src *s, int i) {
    static const char *const ops[] = {"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", NULL};
    for (const char *const *o = ops; *o; o++)
        if (tok_is(s, i, *o)) return true;
    return false;
}

/* cond ? a : b: the condition runs back from `?` to the start of the expression. */
static void mutate_ternaries(Src *s) {
    for (int i = 0; i < s->n; i++) {
        if (!s->t[i].device || !tok_is(s, i, "?")) continue;
        int depth = 0, a = i - 1;
        for (; a >= 0; a--) {
            if (tok_is(s, a, ")") || tok_is(s, a, "]")) depth++;
            else if (tok_is(s, a, "(") || tok_is(s, a, "[")) {
                if (depth-- == 0) break;
            } else if (depth == 0 && (is_assignment(s, a) || tok_is(s, a, ",") || tok_is(s, a, ";") ||
                                      tok_is(s, a, "{") || tok_is(s, a, "}") || tok_is(s, a, "return") ||
                                      tok_is(s, a, "?") || tok_is(s, a, ":"))) {
                break;
            }
        }
        each_relational(s, a + 1, i, weaken_one, "weaken guard");
    }
}

/* for (init; COND; step) and while (COND): the bound moves by one. */
static void mutate_loops(Src *s) {
    for (int i = 0; i < s->n; i++) {
        if (!s->t[i].device || !(tok_is(s, i, "for") || tok_is(s, i, "while")) || !tok_is(s, i + 1, "(")) continue;
        int open = i + 1, close = match_close(s, open);
        if (close >= s->n) continue;
        int a = open + 1, b = close;
        if (tok_is(s, i, "for")) {
            int semi[2], ns = 0, depth = 0;
            for (int j = open + 1; j < close && ns < 2; j++) {
                if (tok_is(s, j, "(") || tok_is(s, j, "[") || tok_is(s, j, "{")) depth++;
                else if (tok_is(s, j, ")") || tok_is(s, j, "]") || tok_is(s, j, "}")) depth--;
                else if (depth == 0 && tok_is(s, j, ";")) semi[ns++] = j;
            }
            if (ns < 2) continue;     /* a range for */
            a = semi[0] + 1;
            b = semi[1];
        }
        each_relational(s, a, b, shift_bound, "loop bound");
    }
}

/* Whether the function body `body` names builtin.comp (threadIdx.y ...). */
static bool body_uses(const Src *s, int body, const char *builtin, const char *comp) {
    for (int i = body; i + 2 < s->n && s->t[i].body == body; i++)
        if (tok_is(s, i, builtin) && tok_is(s, i + 1, ".") && tok_is(s, i + 2, comp)) return true;
    return false;
}

/* threadIdx.x ↔ threadIdx.y, blockIdx.x ↔ blockIdx.y, one occurrence at a
 * time, in functions that index in two dimensions (use both .x and .y of
 * it): in a one-dimensional kernel .y is always 0, a mutant every check
 * kills, and a program's mutant costs a whole nvcc build. */
static void mutate_indices(Src *s) {
    for (int i = 0; i + 2 < s->n; i++) {
        if (!s->t[i].device || !(tok_is(s, i, "threadIdx") || tok_is(s, i, "blockIdx")) || !tok_is(s, i + 1, "."))
            continue;
        const char *to = tok_is(s, i + 2, "x") ? "y" : tok_is(s, i + 2, "y") ? "x" : NULL;
        if (!to) continue;
        char *name = tok_text(s, i, i), *from = tok_text(s, i + 2, i + 2);
        if (body_uses(s, s->t[i].body, name, to)) {
            char *op = xasprintf("swap %s.%s to %s.%s", name, from, name, to);
            replace_tokens(s, i + 2, i + 2, to, op);
            free(op);
        }
        free(name);
        free(from);
    }
}

/* atomicOp(p, v) → the same read-modify-write without the atomic. Where
 * the old value is used, only add and sub (whose old value can be rebuilt)
 * are mutated. */
static void mutate_atomics(Src *s) {
    static const struct {
        const char *name, *assign;   /* the plain operator; NULL: a max/min */
        const char *undo;            /* rebuilds the old value from the new; NULL: cannot */
    } ops[] = {
        {"atomicAdd", "+=", "-"}, {"atomicSub", "-=", "+"}, {"atomicOr", "|=", NULL}, {"atomicAnd", "&=", NULL},
        {"atomicXor", "^=", NULL}, {"atomicExch", "=", NULL}, {"atomicMax", NULL, NULL}, {"atomicMin", NULL, NULL},
    };
    for (int i = 0; i < s->n; i++) {
        if (!s->t[i].device || s->t[i].kind != TOK_IDENT || !tok_is(s, i + 1, "(")) continue;
        size_t k = 0, nops = sizeof ops / sizeof ops[0];
        const char *name = s->text + s->t[i].start;
        size_t len = (size_t)(s->t[i].end - s->t[i].start);
        for (; k < nops; k++) {
            size_t nl = strlen(ops[k].name);
            if (len >= nl && !memcmp(name, ops[k].name, nl) &&
                (len == nl || (len == nl + 6 && !memcmp(name + nl, "_block", 6)) ||
                 (len == nl + 7 && !memcmp(name + nl, "_system", 7))))
                break;
        }
        if (k == nops) continue;
        int close = match_close(s, i + 1), comma = -1, depth = 0, commas = 0;
        if (close >= s->n) continue;
        for (int j = i + 2; j < close; j++) {
            if (tok_is(s, j, "(") || tok_is(s, j, "[") || tok_is(s, j, "{")) depth++;
            else if (tok_is(s, j, ")") || tok_is(s, j, "]") || tok_is(s, j, "}")) depth--;
            else if (depth == 0 && tok_is(s, j, ",")) {
                comma = j;
                commas++;
            }
        }
        if (commas != 1 || comma == i + 2 || comma + 1 == close) continue;
        bool stmt = (i == 0 || tok_is(s, i - 1, ";") || tok_is(s, i - 1, "{") || tok_is(s, i - 1, "}") ||
                     tok_is(s, i - 1, ")") || tok_is(s, i - 1, "else")) && tok_is(s, close + 1, ";");
        if (!stmt && !ops[k].undo) continue;
        char *p = tok_text(s, i + 2, comma - 1), *v = tok_text(s, comma + 1, close - 1), *text;
        if (!ops[k].assign)
            text = xasprintf("(*(%s) = %s(*(%s), (%s)))", p, !strcmp(ops[k].name, "atomicMax") ? "max" : "min", p, v);
        else if (stmt)
            text = xasprintf("(*(%s) %s (%s))", p, ops[k].assign, v);
        else
            text = xasprintf("((*(%s) %s (%s)) %s (%s))", p, ops[k].assign, v, ops[k].undo, v);
        char *fn = xstrndup(name, len);
        char *op = xasprintf("%s to a plain read-modify-write", fn);
        replace_tokens(s, i, close, text, op);
        free(op);
        free(fn);
        free(text);
        free(p);
        free(v);
    }
}

/* Host code of a program: cudaDeviceSynchronize() / cudaStreamSynchronize(s) → cudaSuccess. */
static void mutate_host_syncs(Src *s) {
    for (int i = 0; i < s->n; i++) {
        if (s->t[i].device || !(tok_is(s, i, "cudaDeviceSynchronize") || tok_is(s, i, "cudaStreamSynchronize")) ||
            !tok_is(s, i + 1, "("))
            continue;
        int close = match_close(s, i + 1);
        if (close >= s->n) continue;
        char *name = tok_text(s, i, i), *op = xasprintf("drop %s()", name);
        replace_tokens(s, i, close, "cudaSuccess", op);
        free(op);
        free(name);
    }
}

static int mutant_cmp(const void *a, const void *b) {
    const Mutant *x = a, *y = b;
    return x->line - y->line;
}

void mutants_generate(const char *source, bool program, MutantList *out) {
    memset(out, 0, sizeof *out);
    Src s = {.text = source, .program = program, .out = out};
    tokenize(&s);
    mark_device(&s);
    mutate_barriers(&s);
    mutate_ifs(&s);
    mutate_ternaries(&s);
    mutate_loops(&s);
    mutate_indices(&s);
    mutate_atomics(&s);
    if (program) mutate_host_syncs(&s);
    free(s.t);
    /* Source order; mergesort keeps each line's mutations in the order made. */
    if (out->n > 1) {
        Mutant *tmp = xmalloc((size_t)out->n * sizeof *tmp);
        for (int w = 1; w < out->n; w *= 2)
            for (int lo = 0; lo < out->n; lo += 2 * w) {
                int mid = lo + w < out->n ? lo + w : out->n, hi = lo + 2 * w < out->n ? lo + 2 * w : out->n;
                int a = lo, b = mid, k = lo;
                while (a < mid || b < hi)
                    tmp[k++] = (b >= hi || (a < mid && mutant_cmp(&out->v[a], &out->v[b]) <= 0)) ? out->v[a++]
                                                                                                 : out->v[b++];
                memcpy(out->v + lo, tmp + lo, (size_t)(hi - lo) * sizeof *tmp);
            }
        free(tmp);
    }
}

void mutants_free(MutantList *l) {
    for (int i = 0; i < l->n; i++) {
        free(l->v[i].op);
        free(l->v[i].before);
        free(l->v[i].after);
        free(l->v[i].source);
    }
    free(l->v);
    memset(l, 0, sizeof *l);
}

bool mutants_entry_matches(const MutantEquivalent *e, const Mutant *m) {
    if (!e->op || !e->line || strcmp(e->op, m->op)) return false;
    /* The entry's text, whitespace runs as one space, trimmed, against the line (already so). */
    char *want = line_text(e->line, 1);
    bool ok = *want && strstr(m->before, want) != NULL;
    free(want);
    return ok;
}
