/* base/i18n.c: the language shown and lookups in the catalogue
 * (base/i18n_zh.c), through an index sorted once on first use. */
#include "base/i18n.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* base/i18n_zh.c */
extern const I18nEntry I18N_ZH[];
extern const size_t I18N_ZH_COUNT;

static int lang = -1;                 /* -1: not decided yet, 0 English, 1 Chinese */
static const I18nEntry **sorted;      /* the catalogue by English text */
static pthread_once_t sorted_once = PTHREAD_ONCE_INIT;

bool i18n_locale_is_chinese(void) {
    const char *vars[] = {"LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v) return !strncmp(v, "zh", 2);
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
    sorted = malloc(I18N_ZH_COUNT * sizeof *sorted);
    if (!sorted) abort();
    for (size_t i = 0; i < I18N_ZH_COUNT; i++) sorted[i] = &I18N_ZH[i];
    qsort(sorted, I18N_ZH_COUNT, sizeof *sorted, entry_cmp);
}

static const char *lookup(const char *en) {
    pthread_once(&sorted_once, sort_catalogue);
    size_t lo = 0, hi = I18N_ZH_COUNT;
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
    *n = I18N_ZH_COUNT;
    return I18N_ZH;
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
