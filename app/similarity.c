/* app/similarity.c: the similarity check of `cudojo grade` (shapes and rules
 * in similarity.h): a C/CUDA tokeniser that forgets names, spacing,
 * comments and literal formatting; a diff of the token stream against the
 * starter's, so only what the student wrote is compared; and the grouping
 * of equal written parts by their SHA-256. */
#include "app/similarity.h"

#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/bytes.h"
#include "base/fs.h"
#include "base/sha256.h"
#include "base/strbuf.h"
#include "base/xalloc.h"

/* Sources are small; a path that leads to something huge is left out. */
#define SIMILARITY_MAX_SOURCE ((size_t)1 << 20)
/* The diff's table is one bit per (student token, starter token) pair past
 * the common prefix and suffix; beyond this the whole middle counts as written. */
#define SIMILARITY_MAX_CELLS ((size_t)32 << 20)

/* Identifiers kept as they are: C and C++ keywords, types and CUDA's
 * built-in variables, none of which a copier can rename. Library functions
 * (sqrtf, max...) are left out on purpose: a student may name a variable
 * max. Anything starting with "__" (__syncthreads, __shfl_down_sync),
 * "cuda", "atomic" or "warp" is kept too. Sorted (bsearch). */
static const char *const KEEP[] = {
    "alignas", "alignof", "auto", "blockDim", "blockIdx", "bool", "break", "case", "char", "class", "const",
    "constexpr", "continue", "default", "delete", "dim3", "do", "double", "else", "enum", "extern", "false",
    "float", "float2", "float3", "float4", "for", "goto", "gridDim", "if", "inline", "int", "int2", "int3",
    "int32_t", "int4", "int64_t", "long", "new", "nullptr", "register", "restrict", "return", "short", "signed",
    "size_t", "sizeof", "static", "static_cast", "struct", "switch", "template", "this", "threadIdx", "true",
    "typedef", "typename", "uint2", "uint32_t", "uint4", "uint64_t", "uint8_t", "union", "unsigned", "void",
    "volatile", "while",
};

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

static bool keep_identifier(const char *s) {
    if (!strncmp(s, "__", 2) || !strncmp(s, "cuda", 4) || !strncmp(s, "atomic", 6) || !strncmp(s, "warp", 4))
        return true;
    return bsearch(&s, KEEP, sizeof KEEP / sizeof *KEEP, sizeof *KEEP, cmp_str) != NULL;
}

/* Longest first, so "<<<" wins over "<<" and "<". */
static const char *const PUNCT[] = {
    "<<<", ">>>", "<<=", ">>=", "...", "->", "::", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
    "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "##",
};

typedef struct TokList {
    char **v;
    int n, cap;
} TokList;

static void tok_push(TokList *l, char *s) {
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 64;
        l->v = xrealloc(l->v, (size_t)l->cap * sizeof *l->v);
    }
    l->v[l->n++] = s;
}

/* The canonical text of a number (pp-number s[0..n)): the value, so that
 * 1.0f, 1.f and 1.0 agree and 0x10 equals 16; integers and floating
 * literals stay apart ("i16", "f1"). Unparseable text is kept as it is. */
static char *number_token(const char *s, size_t n) {
    char buf[128];
    if (n >= sizeof buf) return xstrndup(s, n);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] != '\'') buf[k++] = s[i];   /* C++14 digit separators */
    buf[k] = '\0';
    bool hex = k > 1 && buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X');
    bool bin = k > 1 && buf[0] == '0' && (buf[1] == 'b' || buf[1] == 'B');
    bool flt = !bin && (strchr(buf, '.') || (hex ? strpbrk(buf, "pP") != NULL : strpbrk(buf, "eE") != NULL));
    /* Float suffixes (f, F, l, L) on a decimal float; f is a digit in hex. */
    if (!flt && !hex && !bin && k > 0 && (buf[k - 1] == 'f' || buf[k - 1] == 'F')) flt = true;
    char *end;
    if (flt) {
        double v = strtod(buf, &end);
        while (*end && strchr("fFlL", *end)) end++;
        if (*end) return xstrdup(buf);
        return xasprintf("f%.17g", v);
    }
    unsigned long long v = bin ? strtoull(buf + 2, &end, 2) : strtoull(buf, &end, 0);
    while (*end && strchr("uUlLzZ", *end)) end++;
    if (*end) return xstrdup(buf);
    return xasprintf("i%llu", v);
}

/* Skips a string or character literal starting at s[i] (the quote). */
static size_t skip_literal(const char *s, size_t len, size_t i) {
    char q = s[i++];
    while (i < len && s[i] != q && s[i] != '\n') i += s[i] == '\\' && i + 1 < len ? 2 : 1;
    return i < len && s[i] == q ? i + 1 : i;
}

void similarity_tokenize(const char *s, size_t len, char ***out, int *n) {
    TokList l = {0};
    bool after_member = false;   /* the previous token was . or -> : a member name follows */
    size_t i = 0;
    while (i < len) {
        unsigned char c = (unsigned char)s[i];
        if (isspace(c) || (c == '\\' && i + 1 < len && s[i + 1] == '\n')) {
            i++;
            continue;
        }
        if (c == '/' && i + 1 < len && s[i + 1] == '/') {
            while (i < len && s[i] != '\n') i++;
            continue;
        }
        if (c == '/' && i + 1 < len && s[i + 1] == '*') {
            const char *e = NULL;
            for (size_t k = i + 2; k + 1 < len; k++)
                if (s[k] == '*' && s[k + 1] == '/') {
                    e = s + k + 2;
                    break;
                }
            i = e ? (size_t)(e - s) : len;
            continue;
        }
        bool member = after_member;
        after_member = false;
        if (isalpha(c) || c == '_' || c >= 0x80) {
            size_t b = i;
            while (i < len && (isalnum((unsigned char)s[i]) || s[i] == '_' || (unsigned char)s[i] >= 0x80)) i++;
            if (i < len && (s[i] == '"' || s[i] == '\'') && i - b <= 2 && strchr("LuU8", s[b])) {
                i = skip_literal(s, len, i);   /* L"..", u8"..": one literal */
                tok_push(&l, xstrdup("S"));
                continue;
            }
            char *id = xstrndup(s + b, i - b);
            if (member || keep_identifier(id)) tok_push(&l, id);
            else {
                free(id);
                tok_push(&l, xstrdup("I"));
            }
            continue;
        }
        if (isdigit(c) || (c == '.' && i + 1 < len && isdigit((unsigned char)s[i + 1]))) {
            size_t b = i;
            while (i < len) {
                char ch = s[i];
                if ((ch == '+' || ch == '-') && i > b && strchr("eEpP", s[i - 1]))
                    i++;   /* 1e+5: the sign belongs to the number */
                else if (isalnum((unsigned char)ch) || ch == '.' || ch == '_' || (ch == '\'' && i > b))
                    i++;
                else
                    break;
            }
            tok_push(&l, number_token(s + b, i - b));
            continue;
        }
        if (c == '"' || c == '\'') {
            i = skip_literal(s, len, i);
            tok_push(&l, xstrdup(c == '"' ? "S" : "C"));
            continue;
        }
        size_t plen = 1;
        for (size_t k = 0; k < sizeof PUNCT / sizeof *PUNCT; k++) {
            size_t pl = strlen(PUNCT[k]);
            if (i + pl <= len && !memcmp(s + i, PUNCT[k], pl)) {
                plen = pl;
                break;
            }
        }
        tok_push(&l, xstrndup(s + i, plen));
        after_member = (plen == 1 && c == '.') || (plen == 2 && !memcmp(s + i, "->", 2));
        i += plen;
    }
    *out = l.v;
    *n = l.n;
}

void similarity_tokens_free(char ***toks, int n) {
    if (!*toks) return;
    for (int i = 0; i < n; i++) free((*toks)[i]);
    XFREE(*toks);
}

static uint64_t tok_hash(const char *s) {
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* Marks written[i] for each student token a[i] outside a longest common
 * subsequence with the starter b (compared by hash). */
static void diff_mark(const uint64_t *a, int n, const uint64_t *b, int m, bool *written) {
    int pre = 0;
    while (pre < n && pre < m && a[pre] == b[pre]) pre++;
    int suf = 0;
    while (suf < n - pre && suf < m - pre && a[n - 1 - suf] == b[m - 1 - suf]) suf++;
    const uint64_t *x = a + pre, *y = b + pre;
    int nx = n - pre - suf, ny = m - pre - suf;
    if (nx == 0) return;
    if (ny == 0 || (size_t)nx * (size_t)ny > SIMILARITY_MAX_CELLS) {
        for (int i = 0; i < nx; i++) written[pre + i] = true;
        return;
    }
    /* up[i][j]: at a mismatch, LCS(i-1, j) >= LCS(i, j-1): drop x[i-1]. */
    size_t stride = ((size_t)ny + 8) / 8;
    unsigned char *up = xcalloc((size_t)(nx + 1) * stride, 1);
    int *prev = xcalloc((size_t)ny + 1, sizeof *prev), *cur = xcalloc((size_t)ny + 1, sizeof *cur);
    for (int i = 1; i <= nx; i++) {
        cur[0] = 0;
        for (int j = 1; j <= ny; j++) {
            if (x[i - 1] == y[j - 1]) cur[j] = prev[j - 1] + 1;
            else if (prev[j] >= cur[j - 1]) {
                cur[j] = prev[j];
                up[(size_t)i * stride + (size_t)j / 8] |= (unsigned char)(1u << (j % 8));
            } else cur[j] = cur[j - 1];
        }
        int *t = prev;
        prev = cur;
        cur = t;
    }
    int i = nx, j = ny;
    while (i > 0) {
        if (j > 0 && x[i - 1] == y[j - 1]) {
            i--;
            j--;
        } else if (j == 0 || (up[(size_t)i * stride + (size_t)j / 8] >> (j % 8) & 1)) {
            written[pre + i - 1] = true;
            i--;
        } else {
            j--;
        }
    }
    free(up);
    free(prev);
    free(cur);
}

char *similarity_written_part(const char *source, size_t source_len, const char *starter, size_t starter_len,
                              int *count) {
    char **a = NULL, **b = NULL;
    int n = 0, m = 0;
    similarity_tokenize(source, source_len, &a, &n);
    if (starter) similarity_tokenize(starter, starter_len, &b, &m);
    uint64_t *ha = xcalloc((size_t)n + 1, sizeof *ha), *hb = xcalloc((size_t)m + 1, sizeof *hb);
    for (int i = 0; i < n; i++) ha[i] = tok_hash(a[i]);
    for (int i = 0; i < m; i++) hb[i] = tok_hash(b[i]);
    bool *written = xcalloc((size_t)n + 1, sizeof *written);
    diff_mark(ha, n, hb, m, written);
    StrBuf sb;
    strbuf_init(&sb);
    int k = 0;
    for (int i = 0; i < n; i++) {
        if (!written[i]) continue;
        if (k++) strbuf_append_char(&sb, ' ');
        strbuf_append(&sb, a[i]);
    }
    *count = k;
    free(written);
    free(ha);
    free(hb);
    similarity_tokens_free(&a, n);
    similarity_tokens_free(&b, m);
    return strbuf_steal(&sb);
}

/* One student's written part of one exercise. */
typedef struct Print {
    const char *exercise, *student;   /* borrowed from the items */
    char fingerprint[65];
    int tokens;
    uint64_t *kgrams;   /* the winnowed k-gram hashes of the written part, sorted, unique */
    int n_kgrams;
} Print;

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Sorts v[0..n) and drops repeats; returns the new length. */
static int sort_unique(uint64_t *v, int n) {
    if (n == 0) return 0;
    qsort(v, (size_t)n, sizeof *v, cmp_u64);
    int k = 1;
    for (int i = 1; i < n; i++)
        if (v[i] != v[k - 1]) v[k++] = v[i];
    return k;
}

/* Winnowing (Schleimer, Wilkerson, Aiken 2003, MOSS's method) over the
 * space-separated tokens of `part`: hashes of every SIMILARITY_KGRAM tokens,
 * and of each window of SIMILARITY_WINDOW hashes the smallest (the
 * rightmost on a tie), so a copy with a few lines added or moved keeps
 * most of its selection. */
static void winnow(const char *part, Print *p) {
    int n = 0, cap = 64;
    uint64_t *tok = xmalloc((size_t)cap * sizeof *tok);
    for (const char *s = part; *s;) {
        const char *e = strchr(s, ' ');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        uint64_t h = 1469598103934665603ull;
        for (size_t i = 0; i < len; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
        if (n == cap) tok = xrealloc(tok, (size_t)(cap *= 2) * sizeof *tok);
        tok[n++] = h;
        s += len + (e != NULL);
    }
    int ng = n >= SIMILARITY_KGRAM ? n - SIMILARITY_KGRAM + 1 : 0;
    uint64_t *gram = xcalloc((size_t)ng + 1, sizeof *gram);
    for (int i = 0; i < ng; i++) {
        uint64_t h = 14695981039346656037ull;
        for (int k = 0; k < SIMILARITY_KGRAM; k++) h = (h ^ tok[i + k]) * 1099511628211ull + (uint64_t)k;
        gram[i] = h;
    }
    p->kgrams = xcalloc((size_t)ng + 1, sizeof *p->kgrams);
    int last = -1;
    for (int w = 0; w + SIMILARITY_WINDOW <= ng || (w == 0 && ng > 0); w++) {
        int end = w + SIMILARITY_WINDOW < ng ? w + SIMILARITY_WINDOW : ng, best = w;
        for (int i = w; i < end; i++)
            if (gram[i] <= gram[best]) best = i;
        if (best != last) p->kgrams[p->n_kgrams++] = gram[best];
        last = best;
        if (end == ng) break;
    }
    p->n_kgrams = sort_unique(p->kgrams, p->n_kgrams);
    free(gram);
    free(tok);
}

/* |a ∩ b| / min(|a|, |b|) of two sorted unique sets: how much of the
 * smaller part is in the other (MOSS's percentages are of each file), so a
 * copy padded with extra lines still matches. */
static double overlap(const uint64_t *a, int na, const uint64_t *b, int nb) {
    int i = 0, j = 0, both = 0;
    while (i < na && j < nb) {
        if (a[i] == b[j]) {
            both++;
            i++;
            j++;
        } else if (a[i] < b[j]) i++;
        else j++;
    }
    int least = na < nb ? na : nb;
    return least ? (double)both / least : 0;
}

static int uf_find(int *parent, int i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
}

static int cmp_print(const void *pa, const void *pb) {
    const Print *a = pa, *b = pb;
    int c = strcmp(a->exercise, b->exercise);
    if (!c) c = strcmp(a->fingerprint, b->fingerprint);
    if (!c) c = strcmp(a->student, b->student);
    return c;
}

static int cmp_group(const void *pa, const void *pb) {
    const json_t *a = *(json_t *const *)pa, *b = *(json_t *const *)pb;
    int c = strcmp(json_string_value(json_object_get(a, "exercise")), json_string_value(json_object_get(b, "exercise")));
    if (!c)
        c = strcmp(json_string_value(json_array_get(json_object_get(a, "students"), 0)),
                   json_string_value(json_array_get(json_object_get(b, "students"), 0)));
    return c;
}

/* The near-duplicates among one exercise's prints p[0..n): students whose
 * written parts share at least SIMILARITY_NEAR of the smaller one's
 * winnowed k-grams though they are not the very same, once the k-grams
 * most of the class has (the common solution, MOSS's -m) are left out.
 * Linked students form one group {"exercise", "students", "near": true,
 * "similarity": the weakest link, "tokens": the smallest part,
 * "submissions"}, appended to groups. */
static void near_groups(Print *p, int n, json_t *groups) {
    /* k-grams in more than half of the submissions (of at least SIMILARITY_COMMON_MIN_STUDENTS) say nothing. */
    int total = 0;
    for (int i = 0; i < n; i++) total += p[i].n_kgrams;
    uint64_t *all = xcalloc((size_t)total + 1, sizeof *all);
    int k = 0;
    for (int i = 0; i < n; i++)
        for (int g = 0; g < p[i].n_kgrams; g++) all[k++] = p[i].kgrams[g];
    qsort(all, (size_t)total, sizeof *all, cmp_u64);
    uint64_t *common = xcalloc((size_t)total + 1, sizeof *common);
    int n_common = 0;
    for (int i = 0; i < total;) {
        int j = i;
        while (j < total && all[j] == all[i]) j++;
        if (n >= SIMILARITY_COMMON_MIN_STUDENTS && (j - i) * 2 > n) common[n_common++] = all[i];
        i = j;
    }
    free(all);
    for (int i = 0; i < n && n_common; i++) {
        int m = 0;
        for (int g = 0; g < p[i].n_kgrams; g++)
            if (!bsearch(&p[i].kgrams[g], common, (size_t)n_common, sizeof *common, cmp_u64))
                p[i].kgrams[m++] = p[i].kgrams[g];
        p[i].n_kgrams = m;
    }
    free(common);
    int *parent = xcalloc((size_t)n + 1, sizeof *parent);
    double *weakest = xcalloc((size_t)n + 1, sizeof *weakest);
    bool *linked = xcalloc((size_t)n + 1, sizeof *linked);
    for (int i = 0; i < n; i++) {
        parent[i] = i;
        weakest[i] = 1;
    }
    for (int i = 0; i < n; i++) {
        if (p[i].tokens < SIMILARITY_MIN_TOKENS || p[i].n_kgrams < SIMILARITY_NEAR_MIN_KGRAMS) continue;
        for (int j = i + 1; j < n; j++) {
            if (p[j].tokens < SIMILARITY_MIN_TOKENS || p[j].n_kgrams < SIMILARITY_NEAR_MIN_KGRAMS) continue;
            if (!strcmp(p[i].fingerprint, p[j].fingerprint) || !strcmp(p[i].student, p[j].student)) continue;
            double sim = overlap(p[i].kgrams, p[i].n_kgrams, p[j].kgrams, p[j].n_kgrams);
            if (sim < SIMILARITY_NEAR) continue;
            int ri = uf_find(parent, i), rj = uf_find(parent, j);
            double w = sim < weakest[ri] ? sim : weakest[ri];
            if (weakest[rj] < w) w = weakest[rj];
            parent[ri] = rj;
            weakest[rj] = w;
            linked[rj] = true;
        }
    }
    for (int r = 0; r < n; r++) {
        if (uf_find(parent, r) != r || !linked[r]) continue;
        /* p is sorted by fingerprint then student: collect names, sort, dedupe. */
        const char **names = xcalloc((size_t)n, sizeof *names);
        int nn = 0, tokens = 0;
        for (int i = 0; i < n; i++)
            if (uf_find(parent, i) == r) {
                names[nn++] = p[i].student;
                if (!tokens || p[i].tokens < tokens) tokens = p[i].tokens;
            }
        qsort(names, (size_t)nn, sizeof *names, cmp_str);
        json_t *students = json_array();
        for (int i = 0; i < nn; i++)
            if (i == 0 || strcmp(names[i], names[i - 1])) json_array_append_new(students, bytes_to_json(names[i]));
        free(names);
        json_t *g = json_object();
        json_object_set_new(g, "exercise", bytes_to_json(p[r].exercise));
        json_object_set_new(g, "students", students);
        json_object_set_new(g, "near", json_true());
        json_object_set_new(g, "similarity", json_real(floor(weakest[r] * 100) / 100));
        json_object_set_new(g, "tokens", json_integer(tokens));
        json_object_set_new(g, "submissions", json_integer(n));
        json_array_append_new(groups, g);
    }
    free(parent);
    free(weakest);
    free(linked);
}

/* The starters read so far (many items share one). */
typedef struct StarterCache {
    const char **path;
    char **text;   /* NULL: unreadable */
    size_t *len;
    int n;
} StarterCache;

static const char *starter_text(StarterCache *c, const char *path, size_t *len) {
    for (int i = 0; i < c->n; i++)
        if (!strcmp(c->path[i], path)) {
            *len = c->len[i];
            return c->text[i];
        }
    c->path = xrealloc(c->path, (size_t)(c->n + 1) * sizeof *c->path);
    c->text = xrealloc(c->text, (size_t)(c->n + 1) * sizeof *c->text);
    c->len = xrealloc(c->len, (size_t)(c->n + 1) * sizeof *c->len);
    char *text = NULL;
    size_t n = 0;
    Diag *d = fs_read_file_max(path, SIMILARITY_MAX_SOURCE, &text, &n);
    diag_free(&d);
    c->path[c->n] = path;
    c->text[c->n] = text;
    c->len[c->n] = n;
    c->n++;
    *len = n;
    return text;
}

static void starter_cache_fini(StarterCache *c) {
    for (int i = 0; i < c->n; i++) free(c->text[i]);
    free(c->path);
    free(c->text);
    free(c->len);
}

json_t *similarity_groups(const SimilarityItem *items, int n) {
    Print *prints = xcalloc((size_t)n + 1, sizeof *prints);
    int np = 0;
    StarterCache cache = {0};
    for (int i = 0; i < n; i++) {
        const SimilarityItem *it = &items[i];
        if (!it->student || !it->exercise || !it->path) continue;
        char *src = NULL;
        size_t len = 0;
        Diag *d = fs_read_file_max(it->path, SIMILARITY_MAX_SOURCE, &src, &len);
        if (d) {
            diag_free(&d);
            continue;
        }
        size_t slen = 0;
        const char *starter = it->starter_path ? starter_text(&cache, it->starter_path, &slen) : NULL;
        int count = 0;
        char *part = similarity_written_part(src, len, starter, slen, &count);
        /* Every readable source is kept: those below the threshold count
           among the exercise's submissions but never group. */
        Print *p = &prints[np++];
        p->exercise = it->exercise;
        p->student = it->student;
        p->tokens = count;
        sha256_hex(part, strlen(part), p->fingerprint);
        winnow(part, p);
        free(part);
        free(src);
    }
    starter_cache_fini(&cache);
    qsort(prints, (size_t)np, sizeof *prints, cmp_print);
    json_t *groups = json_array();
    int ex_students = 0;   /* readable submissions of the current exercise */
    for (int i = 0; i < np;) {
        if (i == 0 || strcmp(prints[i].exercise, prints[i - 1].exercise)) {
            ex_students = 0;
            for (int k = i; k < np && !strcmp(prints[k].exercise, prints[i].exercise); k++) ex_students++;
        }
        int j = i + 1;
        while (j < np && !strcmp(prints[j].exercise, prints[i].exercise) &&
               !strcmp(prints[j].fingerprint, prints[i].fingerprint))
            j++;
        json_t *students = json_array();
        for (int k = i; k < j; k++)
            if (k == i || strcmp(prints[k].student, prints[k - 1].student))
                json_array_append_new(students, bytes_to_json(prints[k].student));
        size_t ns = json_array_size(students);
        if (ns >= 2 && prints[i].tokens >= SIMILARITY_MIN_TOKENS) {
            json_t *g = json_object();
            json_object_set_new(g, "exercise", bytes_to_json(prints[i].exercise));
            json_object_set_new(g, "students", students);
            json_object_set_new(g, "fingerprint", json_string(prints[i].fingerprint));
            json_object_set_new(g, "tokens", json_integer(prints[i].tokens));
            json_object_set_new(g, "submissions", json_integer(ex_students));
            /* Most of a class writing the very same code is the obvious solution, not copying. */
            bool common = ns >= SIMILARITY_COMMON_MIN_STUDENTS && ns * 2 > (size_t)ex_students;
            if (common) json_object_set_new(g, "common", json_true());
            json_array_append_new(groups, g);
        } else {
            json_decref(students);
        }
        i = j;
    }
    for (int a = 0; a < np;) {
        int b = a + 1;
        while (b < np && !strcmp(prints[b].exercise, prints[a].exercise)) b++;
        near_groups(prints + a, b - a, groups);
        a = b;
    }
    for (int i = 0; i < np; i++) free(prints[i].kgrams);
    free(prints);
    /* Sort the array's members in place: take them out, sort, put back. */
    size_t ng = json_array_size(groups);
    if (ng > 1) {
        json_t **v = xcalloc(ng, sizeof *v);
        for (size_t k = 0; k < ng; k++) v[k] = json_incref(json_array_get(groups, k));
        qsort(v, ng, sizeof *v, cmp_group);
        json_array_clear(groups);
        for (size_t k = 0; k < ng; k++) json_array_append_new(groups, v[k]);
        free(v);
    }
    return groups;
}

/* Appends text for Markdown: no control characters or line breaks, and the
 * characters Markdown gives a meaning escaped, so a name stays a name. */
static void md_text(StrBuf *sb, const char *s) {
    char *p = bytes_printable(s ? s : "");
    for (const char *q = p; *q; q++) {
        if (*q == '\n' || *q == '\t' || *q == '\r') strbuf_append_char(sb, ' ');
        else if (strchr("\\`*_[]<>#|~&", *q)) {
            strbuf_append_char(sb, '\\');
            strbuf_append_char(sb, *q);
        } else strbuf_append_char(sb, *q);
    }
    free(p);
}

char *similarity_markdown(const json_t *groups) {
    StrBuf sb;
    strbuf_init(&sb);
    strbuf_printf(&sb,
                  "# Similar submissions\n\n"
                  "Students whose code for one exercise is the same up to identifier names, spacing, comments\n"
                  "and literal formatting, once the code the starter already had is left out (groups whose own\n"
                  "part has at least %d tokens); near-duplicates share most of their token sequences (MOSS's\n"
                  "winnowing) with a few lines added or changed. A group is something to look at, not a verdict.\n\n",
                  SIMILARITY_MIN_TOKENS);
    if (json_array_size(groups) == 0) {
        strbuf_append(&sb, "No two submissions of an exercise share their own code.\n");
        return strbuf_steal(&sb);
    }
    const char *last = NULL;
    size_t i;
    const json_t *g;
    int n_common = 0;
    json_array_foreach(groups, i, g) {
        const char *ex = json_string_value(json_object_get(g, "exercise"));
        if (!ex) continue;
        if (json_is_true(json_object_get(g, "common"))) {
            n_common++;
            continue;
        }
        if (!last || strcmp(last, ex)) {
            strbuf_append(&sb, "## ");
            md_text(&sb, ex);
            strbuf_append(&sb, "\n\n");
            last = ex;
        }
        const json_t *students = json_object_get(g, "students");
        strbuf_printf(&sb, "- %zu students: ", json_array_size(students));
        size_t k;
        const json_t *s;
        json_array_foreach(students, k, s) {
            if (k) strbuf_append(&sb, ", ");
            strbuf_append(&sb, "**");
            md_text(&sb, json_string_value(s));
            strbuf_append(&sb, "**");
        }
        const char *fp = json_string_value(json_object_get(g, "fingerprint"));
        if (json_is_true(json_object_get(g, "near")))
            strbuf_printf(&sb, " (near-duplicates: %.0f%% of their own k-grams shared, at least %lld tokens)\n",
                          json_number_value(json_object_get(g, "similarity")) * 100,
                          (long long)json_integer_value(json_object_get(g, "tokens")));
        else
            strbuf_printf(&sb, " (%lld tokens of their own, fingerprint `%.12s`)\n",
                          (long long)json_integer_value(json_object_get(g, "tokens")), fp ? fp : "?");
    }
    if (!last) strbuf_append(&sb, "No group stands out: only code most of the class wrote alike (below).\n");
    if (n_common) {
        strbuf_append(&sb, "\n## Common solutions\n\nMost of the students of these exercises wrote the very same "
                           "code: the obvious solution, not a sign of copying.\n\n");
        json_array_foreach(groups, i, g) {
            if (!json_is_true(json_object_get(g, "common"))) continue;
            strbuf_append(&sb, "- ");
            md_text(&sb, json_string_value(json_object_get(g, "exercise")));
            strbuf_printf(&sb, ": %zu of %lld submissions (%lld tokens of their own)\n",
                          json_array_size(json_object_get(g, "students")),
                          (long long)json_integer_value(json_object_get(g, "submissions")),
                          (long long)json_integer_value(json_object_get(g, "tokens")));
        }
    }
    return strbuf_steal(&sb);
}

Diag *similarity_write_markdown(const json_t *groups, const char *path) {
    char *md = similarity_markdown(groups);
    Diag *d = fs_write_file_atomic(path, md, strlen(md));
    free(md);
    return d;
}
