/* base/i18n.c: the language shown, lookups in the catalogue
 * (base/i18n_zh*.c) through an index sorted once on first use, and the
 * translation of finished run messages by matching them against the
 * formats they were built from. */
#include "base/i18n.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "base/xalloc.h"

/* The texts (base/i18n_zh.c: the commands'; i18n_zh_screens.c: the
 * workbench's), and the run messages' formats (i18n_zh_run.c). */
extern const I18nEntry I18N_ZH[];
extern const size_t I18N_ZH_COUNT;
extern const I18nEntry I18N_ZH_SCREENS[];
extern const size_t I18N_ZH_SCREENS_COUNT;
extern const I18nEntry I18N_ZH_AUTHORS[];
extern const size_t I18N_ZH_AUTHORS_COUNT;
extern const I18nEntry I18N_ZH_RUN[];
extern const size_t I18N_ZH_RUN_COUNT;

static int lang = -1;                 /* -1: not decided yet, 0 English, 1 Chinese */
static const I18nEntry **sorted;      /* the catalogue by English text */
static size_t n_sorted, n_texts;
static I18nEntry *texts;              /* I18N_ZH, I18N_ZH_SCREENS, I18N_ZH_AUTHORS, for i18n_catalogue */
static pthread_once_t sorted_once = PTHREAD_ONCE_INIT;

bool i18n_locale_is_chinese(void) {
    const char *vars[] = {"LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v) return !strncmp(v, "zh", 2);
    }
    return false;
}

bool i18n_env_wants_utf8(void) {
    const char *vars[] = {"LC_ALL", "LC_CTYPE", "LANG"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v) return strcasestr(v, "utf-8") || strcasestr(v, "utf8");
    }
    return false;
}

void i18n_set_chinese(bool zh) { lang = zh; }

bool i18n_chinese(void) {
    if (lang < 0) lang = i18n_locale_is_chinese();
    return lang == 1;
}

static int entry_cmp(const void *a, const void *b) {
    return strcmp((*(const I18nEntry *const *)a)->en, (*(const I18nEntry *const *)b)->en);
}

static void sort_catalogue(void) {
    /* the texts looked up whole, then the run messages' formats (last: not in texts) */
    const I18nEntry *tables[] = {I18N_ZH, I18N_ZH_SCREENS, I18N_ZH_AUTHORS, I18N_ZH_RUN};
    size_t counts[] = {I18N_ZH_COUNT, I18N_ZH_SCREENS_COUNT, I18N_ZH_AUTHORS_COUNT, I18N_ZH_RUN_COUNT};
    enum { N_TABLES = sizeof tables / sizeof tables[0] };
    n_sorted = n_texts = 0;
    for (int t = 0; t < N_TABLES; t++) {
        n_sorted += counts[t];
        if (t < N_TABLES - 1) n_texts += counts[t];
    }
    sorted = malloc(n_sorted * sizeof *sorted);
    texts = malloc(n_texts * sizeof *texts);
    if (!sorted || !texts) abort();
    size_t k = 0, kt = 0;
    for (int t = 0; t < N_TABLES; t++)
        for (size_t i = 0; i < counts[t]; i++) {
            sorted[k++] = &tables[t][i];
            if (t < N_TABLES - 1) texts[kt++] = tables[t][i];
        }
    qsort(sorted, n_sorted, sizeof *sorted, entry_cmp);
}

static const char *lookup(const char *en) {
    pthread_once(&sorted_once, sort_catalogue);
    size_t lo = 0, hi = n_sorted;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(en, sorted[mid]->en);
        if (!c) return sorted[mid]->zh && *sorted[mid]->zh ? sorted[mid]->zh : en;
        if (c < 0) hi = mid;
        else lo = mid + 1;
    }
    return en;
}

const char *i18n_text(const char *en) {
    if (!en || !*en || !i18n_chinese()) return en;
    return lookup(en);
}

const char *i18n_plural(long long n, const char *one, const char *many) {
    if (i18n_chinese()) return lookup(many);
    return n == 1 ? one : many;
}

const I18nEntry *i18n_catalogue(size_t *n) {
    pthread_once(&sorted_once, sort_catalogue);
    *n = n_texts;
    return texts;
}

const I18nEntry *i18n_message_formats(size_t *n) {
    *n = I18N_ZH_RUN_COUNT;
    return I18N_ZH_RUN;
}

/* ---- run messages: a finished English text matched against its format ---- */

#define MAX_ARGS 16
#define MAX_DEPTH 3

typedef struct Args {
    const char *at[MAX_ARGS];
    size_t len[MAX_ARGS];
    int n;
} Args;

/* The conversion at p (p[0] == '%', not "%%"): its letter, whether it drops
 * its argument ("%.0s", how a translation leaves out English's plural "s"),
 * and where it ends. False for what a message cannot be matched against
 * (a '*' width). */
static bool conversion_at(const char *p, char *letter, bool *drop, const char **end) {
    const char *q = p + 1;
    bool zero_precision = false;
    for (; *q && strchr("-+ #0123456789.'lhzjtLq*", *q); q++) {
        if (*q == '*') return false;
        if (q[0] == '.' && q[1] == '0' && !(q[2] >= '0' && q[2] <= '9')) zero_precision = true;
    }
    if (!*q || !strchr("diouxXeEfFgGaAcs", *q)) return false;
    *letter = *q;
    *drop = zero_precision && *q == 's';
    *end = q + 1;
    return true;
}

/* The characters a conversion's output is made of; NULL: any. */
static const char *conversion_chars(char letter) {
    switch (letter) {
    case 'd': case 'i': case 'u': return " -+0123456789";
    case 'o': return "01234567";
    case 'x': case 'X': return "0123456789abcdefABCDEFx";
    case 's': return NULL;
    default: return " -+0123456789.eEinfaINFAxXp";   /* floating point */
    }
}

/* Whether text s matches format fmt, each conversion taking the shortest
 * run that lets the rest match (a number only digits and signs); with end,
 * fmt may match a prefix of s and *end is where it stopped. */
static bool match_format(const char *fmt, const char *s, Args *a, const char **end) {
    for (;;) {
        if (!*fmt) {
            if (end) *end = s;
            return end || !*s;
        }
        if (*fmt != '%' || fmt[1] == '%') {
            if (*s != *fmt) return false;
            fmt += *fmt == '%' ? 2 : 1;
            s++;
            continue;
        }
        char letter;
        bool drop;
        const char *after;
        if (!conversion_at(fmt, &letter, &drop, &after) || a->n == MAX_ARGS) return false;
        const char *set = conversion_chars(letter);
        size_t min = set ? 1 : 0, max = set ? strspn(s, set) : strlen(s);
        if (letter == 'c') min = max = *s ? 1 : 0;
        if (max < min) return false;
        int k = a->n++;
        for (size_t len = min; len <= max; len++) {
            a->at[k] = s;
            a->len[k] = len;
            if (match_format(after, s + len, a, end)) return true;
            a->n = k + 1;
        }
        a->n = k;
        return false;
    }
}

/* Characters of fmt outside its conversions: how specific a format is. */
static size_t literal_length(const char *fmt) {
    size_t n = 0;
    for (const char *p = fmt; *p; p++) {
        char letter;
        bool drop;
        const char *after;
        if (*p == '%' && p[1] != '%' && conversion_at(p, &letter, &drop, &after)) p = after - 1;
        else n++;
    }
    return n;
}

static void translate_into(StrBuf *out, const char *msg, size_t len, int depth);

/* e's Chinese format with a's arguments (each %s one translated in turn). */
static void rebuild(StrBuf *out, const I18nEntry *e, const Args *a, int depth) {
    int k = 0;
    for (const char *p = e->zh; *p; p++) {
        char letter;
        bool drop;
        const char *after;
        if (*p != '%') {
            strbuf_append_char(out, *p);
            continue;
        }
        if (p[1] == '%') {
            strbuf_append_char(out, '%');
            p++;
            continue;
        }
        if (!conversion_at(p, &letter, &drop, &after) || k >= a->n) {   /* the test keeps this from happening */
            strbuf_append_char(out, *p);
            continue;
        }
        if (!drop) {
            if (letter == 's') translate_into(out, a->at[k], a->len[k], depth + 1);
            else strbuf_append_n(out, a->at[k], a->len[k]);
        }
        k++;
        p = after - 1;
    }
}

/* msg[0..len) in Chinese, appended to out. */
static void translate_into(StrBuf *out, const char *msg, size_t len, int depth) {
    char *m = xstrndup(msg, len);
    const I18nEntry *best = NULL, *best_prefix = NULL;
    Args a, best_args, prefix_args;
    size_t best_lit = 0, prefix_lit = 0;
    const char *prefix_end = NULL;
    for (size_t i = 0; depth < MAX_DEPTH && *m && i < I18N_ZH_RUN_COUNT; i++) {
        const I18nEntry *e = &I18N_ZH_RUN[i];
        size_t lead = strcspn(e->en, "%");
        if (strncmp(m, e->en, lead) != 0) continue;
        size_t lit = literal_length(e->en);
        const char *end = NULL;
        a.n = 0;
        if (lit > best_lit && match_format(e->en, m, &a, NULL)) {
            best = e, best_args = a, best_lit = lit;
            continue;
        }
        a.n = 0;
        if (!best && lit > prefix_lit && lit > 0 && match_format(e->en, m, &a, &end) && end > m && *end)
            best_prefix = e, prefix_args = a, prefix_lit = lit, prefix_end = end;
    }
    if (best) rebuild(out, best, &best_args, depth);
    else if (best_prefix) {
        rebuild(out, best_prefix, &prefix_args, depth);
        translate_into(out, prefix_end, strlen(prefix_end), depth + 1);
    } else strbuf_append(out, lookup(m));
    free(m);
}

char *i18n_message(const char *msg) {
    if (!msg) return NULL;
    if (!i18n_chinese() || !*msg) return xstrdup(msg);
    StrBuf out;
    strbuf_init(&out);
    translate_into(&out, msg, strlen(msg), 0);
    char *s = strbuf_steal(&out);
    strbuf_fini(&out);
    return s;
}

/* East Asian Wide and Fullwidth ranges (the CJK a learner's text has). */
static bool wide(unsigned cp) {
    return (cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0x303E) || (cp >= 0x3041 && cp <= 0x33FF) ||
           (cp >= 0x3400 && cp <= 0x4DBF) || (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0xA000 && cp <= 0xA4CF) ||
           (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0xFE30 && cp <= 0xFE4F) ||
           (cp >= 0xFF00 && cp <= 0xFF60) || (cp >= 0xFFE0 && cp <= 0xFFE6) || (cp >= 0x20000 && cp <= 0x3FFFD);
}

int i18n_width(const char *s) {
    int w = 0;
    const unsigned char *p = (const unsigned char *)s;
    while (p && *p) {
        unsigned cp = *p;
        int len = cp < 0x80 ? 1 : (cp >> 5) == 6 ? 2 : (cp >> 4) == 14 ? 3 : (cp >> 3) == 30 ? 4 : 1;
        if (len > 1) {
            cp &= 0x3Fu >> (len - 1);
            for (int i = 1; i < len; i++) {
                if ((p[i] & 0xC0) != 0x80) { len = i; break; }   /* a broken sequence: count what we have */
                cp = cp << 6 | (p[i] & 0x3F);
            }
        }
        if (cp >= 0x20 || len > 1) w += wide(cp) ? 2 : 1;
        p += len;
    }
    return w;
}

char *i18n_pad(char *buf, size_t n, const char *s, int width, bool right) {
    int pad = width - i18n_width(s);
    if (pad < 0) pad = 0;
    if (right) snprintf(buf, n, "%*s%s", pad, "", s);
    else snprintf(buf, n, "%s%*s", s, pad, "");
    return buf;
}

char *i18n_format_us(double us, char *buf, size_t n) {
    double a = fabs(us);
    if (!isfinite(us)) snprintf(buf, n, "%g µs", us);
    else if (a == 0) snprintf(buf, n, "0 µs");
    /* the bounds are where %.3g would round up to the next unit (999.7 -> 1e+03) */
    else if (a < 0.9995) snprintf(buf, n, "%.3g ns", us * 1e3);
    else if (a < 999.5) snprintf(buf, n, "%.3g µs", us);
    else if (a < 999.5e3) snprintf(buf, n, "%.3g ms", us / 1e3);
    else if (a < 999.5e6) snprintf(buf, n, "%.3g s", us / 1e6);
    else snprintf(buf, n, "%.0f s", us / 1e6);
    return buf;
}
