/* tests/base/test_i18n.c: the message catalogue: lookups in either language,
 * plurals, the locale variables' order, column widths of CJK text, times in
 * plain units, and completeness: every string marked _(), N_() or P_() in
 * app/, app/tui/ and base/ (read from the source tree: run from the
 * repository root, as make test does) has a translation whose printf
 * conversions are the English ones. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/fs.h"
#include "base/i18n.h"
#include "base/result.h"
#include "base/strbuf.h"
#include "base/xalloc.h"

static int english(void **state) {
    (void)state;
    i18n_set_chinese(false);
    return 0;
}

static void text__is_the_english__when_english_is_shown(void **state) {
    (void)state;
    assert_string_equal(_("passed"), "passed");
    assert_string_equal(verdict_words(VERDICT_COMPILE_ERROR), "compile error");
}

static void text__is_the_translation__when_chinese_is_shown(void **state) {
    (void)state;
    i18n_set_chinese(true);
    assert_string_equal(_("passed"), "已通过");
    assert_string_equal(_("not started"), "未开始");
    assert_string_equal(verdict_words(VERDICT_COMPILE_ERROR), "编译错误");
    assert_string_equal(verdict_words(VERDICT_TIMEOUT), "超时");
}

static void text__stays_english__when_the_catalogue_lacks_it(void **state) {
    (void)state;
    i18n_set_chinese(true);
    assert_string_equal(_("no such catalogue entry"), "no such catalogue entry");
    assert_null(i18n_text(NULL));
}

static void plural__picks_the_singular_for_one__in_english(void **state) {
    (void)state;
    assert_string_equal(P_(1, "%d attempt, ", "%d attempts, "), "%d attempt, ");
    assert_string_equal(P_(0, "%d attempt, ", "%d attempts, "), "%d attempts, ");
    assert_string_equal(P_(2, "%d attempt, ", "%d attempts, "), "%d attempts, ");
    i18n_set_chinese(true);
    assert_string_equal(P_(1, "%d attempt, ", "%d attempts, "), "尝试 %d 次，");
}

static void locale__language_wins__then_lc_all__then_lang(void **state) {
    (void)state;
    setenv("LANGUAGE", "zh_CN:en", 1);
    setenv("LC_ALL", "C.UTF-8", 1);
    assert_true(i18n_locale_is_chinese());
    setenv("LANGUAGE", "", 1);
    assert_false(i18n_locale_is_chinese());
    setenv("LC_ALL", "", 1);
    setenv("LC_MESSAGES", "", 1);
    setenv("LANG", "zh_TW.UTF-8", 1);
    assert_true(i18n_locale_is_chinese());
    setenv("LANG", "en_GB.UTF-8", 1);
    assert_false(i18n_locale_is_chinese());
}

static void width__counts_a_cjk_character_as_two_columns(void **state) {
    (void)state;
    assert_int_equal(i18n_width("status"), 6);
    assert_int_equal(i18n_width("状态"), 4);
    assert_int_equal(i18n_width("✓ 已通过"), 8);
    assert_int_equal(i18n_width("（）"), 4);
    char buf[64];
    assert_string_equal(i18n_pad(buf, sizeof buf, "状态", 6, false), "状态  ");
    assert_string_equal(i18n_pad(buf, sizeof buf, "状态", 6, true), "  状态");
    assert_string_equal(i18n_pad(buf, sizeof buf, "toolong", 3, false), "toolong");
}

static void format_us__says_three_digits_and_a_unit(void **state) {
    (void)state;
    char b[32];
    assert_string_equal(i18n_format_us(12.345678901234, b, sizeof b), "12.3 µs");
    assert_string_equal(i18n_format_us(0.25, b, sizeof b), "250 ns");
    assert_string_equal(i18n_format_us(4567.891, b, sizeof b), "4.57 ms");
    assert_string_equal(i18n_format_us(999.7, b, sizeof b), "1 ms");
    assert_string_equal(i18n_format_us(2.5e6, b, sizeof b), "2.5 s");
    assert_string_equal(i18n_format_us(0, b, sizeof b), "0 µs");
}

/* The printf conversions of a format ("%d", "%-*s", "%.1f"...), in order,
 * without flags' positions mattering less than their letters. */
static void conversions(const char *fmt, StrBuf *out) {
    strbuf_reset(out);
    for (const char *p = fmt; *p; p++) {
        if (*p != '%') continue;
        if (p[1] == '%') {
            p++;
            continue;
        }
        const char *q = p + 1;
        while (*q && strchr("-+ #0123456789.*'lhzjtLq", *q)) q++;
        if (!*q || !strchr("diouxXeEfFgGaAcspn", *q)) {   /* "5%）" is not a conversion, and no printf sees it */
            strbuf_append(out, "?bad% ");
            p = *q ? q : q - 1;
            continue;
        }
        strbuf_append_n(out, p, (size_t)(q - p + 1));
        strbuf_append_char(out, ' ');
        p = q;
    }
}

static void catalogue__has_each_english_text_once_with_the_same_conversions(void **state) {
    (void)state;
    size_t n;
    const I18nEntry *c = i18n_catalogue(&n);
    assert_true(n > 50);
    StrBuf a, b;
    strbuf_init(&a);
    strbuf_init(&b);
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        if (!c[i].zh || !*c[i].zh) {
            print_message("no translation: \"%s\"\n", c[i].en);
            bad++;
            continue;
        }
        for (size_t k = 0; k < i; k++)
            if (!strcmp(c[i].en, c[k].en)) {
                print_message("twice in the catalogue: \"%s\"\n", c[i].en);
                bad++;
            }
        conversions(c[i].en, &a);
        conversions(c[i].zh, &b);
        if (strcmp(a.data, b.data)) {
            print_message("conversions differ: \"%s\" has %s, \"%s\" has %s\n", c[i].en, a.data, c[i].zh, b.data);
            bad++;
        }
        /* a line the English ends (or starts) with a newline must do the same in Chinese */
        size_t le = strlen(c[i].en), lz = strlen(c[i].zh);
        if ((c[i].en[le - 1] == '\n') != (c[i].zh[lz - 1] == '\n') || (c[i].en[0] == '\n') != (c[i].zh[0] == '\n')) {
            print_message("newlines differ: \"%s\"\n", c[i].en);
            bad++;
        }
    }
    strbuf_fini(&a);
    strbuf_fini(&b);
    assert_int_equal(bad, 0);
}

/* ---- extraction of the marked strings from the sources ---- */

/* Reads the C string literals (adjacent ones joined) at p into out,
 * unescaped; returns the position after them, or NULL when p is not at a
 * literal. */
static const char *read_literals(const char *p, StrBuf *out) {
    strbuf_reset(out);
    bool any = false;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
        if (*p != '"') return any ? p : NULL;
        any = true;
        for (p++; *p && *p != '"'; p++) {
            if (*p != '\\') {
                strbuf_append_char(out, *p);
                continue;
            }
            p++;
            switch (*p) {
            case 'n': strbuf_append_char(out, '\n'); break;
            case 't': strbuf_append_char(out, '\t'); break;
            case 'r': strbuf_append_char(out, '\r'); break;
            case '0': case '1': case '2': case '3': {
                int v = 0, k = 0;
                while (k < 3 && *p >= '0' && *p <= '7') v = v * 8 + (*p++ - '0'), k++;
                p--;
                strbuf_append_char(out, (char)v);
                break;
            }
            default: strbuf_append_char(out, *p); break;
            }
        }
        if (*p == '"') p++;
    }
}

static bool ident_char(char c) { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

typedef struct Extracted {
    int n_marked, n_missing;
} Extracted;

static void check_marked(const char *file, int line, const char *en, Extracted *x) {
    x->n_marked++;
    i18n_set_chinese(true);
    const char *zh = i18n_text(en);
    i18n_set_chinese(false);
    if (zh == en || !strcmp(zh, en)) {
        print_message("%s:%d: no translation of \"%s\"\n", file, line, en);
        x->n_missing++;
    }
}

static int line_of(const char *text, const char *p) {
    int l = 1;
    for (const char *q = text; q < p; q++) l += *q == '\n';
    return l;
}

/* Every _("..."), N_("...") and P_(n, "...", "...") in one file. */
static void extract_file(const char *path, Extracted *x) {
    char *text = NULL;
    Diag *d = fs_read_file(path, &text, NULL);
    if (d) fail_msg("%s: %s", path, d->message);
    StrBuf lit;
    strbuf_init(&lit);
    for (const char *p = text; *p; p++) {
        bool plural = false;
        const char *open = NULL;
        if (p > text && ident_char(p[-1])) continue;
        if (!strncmp(p, "_(", 2)) open = p + 2;
        else if (!strncmp(p, "N_(", 3)) open = p + 3;
        else if (!strncmp(p, "P_(", 3)) open = p + 3, plural = true;
        if (!open) continue;
        if (plural) {   /* skip n: up to the first comma outside brackets */
            int depth = 0;
            while (*open && !(depth == 0 && *open == ',')) {
                depth += *open == '(' ? 1 : *open == ')' ? -1 : 0;
                open++;
            }
            if (*open != ',') continue;
            /* Chinese has one form: the plural's is the key, the singular needs none */
            const char *after_one = read_literals(open + 1, &lit);
            if (!after_one) continue;
            while (*after_one == ' ' || *after_one == '\n') after_one++;
            if (*after_one != ',' || !read_literals(after_one + 1, &lit)) continue;
            check_marked(path, line_of(text, p), lit.data, x);
            continue;
        }
        if (read_literals(open, &lit)) check_marked(path, line_of(text, p), lit.data, x);
    }
    strbuf_fini(&lit);
    free(text);
}

static void extract_dir(const char *dir, Extracted *x, int *files) {
    DIR *dh = opendir(dir);
    if (!dh) fail_msg("cannot open %s: run the test from the repository root", dir);
    struct dirent *e;
    while ((e = readdir(dh))) {
        size_t len = strlen(e->d_name);
        if (len < 3 || strcmp(e->d_name + len - 2, ".c") || !strcmp(e->d_name, "i18n_zh.c")) continue;
        char *path = path_join(dir, e->d_name);
        extract_file(path, x);
        (*files)++;
        free(path);
    }
    closedir(dh);
}

static void sources__every_marked_string_has_a_translation(void **state) {
    (void)state;
    Extracted x = {0};
    int files = 0;
    const char *dirs[] = {"app", "app/tui", "base"};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) extract_dir(dirs[i], &x, &files);
    print_message("%d strings marked in %d files, %d without a translation\n", x.n_marked, files, x.n_missing);
    assert_true(x.n_marked > 50);
    assert_int_equal(x.n_missing, 0);
}

/* The extractor itself: a marked string the catalogue lacks is found. */
static void sources__a_marked_string_without_translation_is_reported(void **state) {
    (void)state;
    char path[] = "/tmp/cudojo-test-i18n-XXXXXX.c";
    int fd = mkstemps(path, 2);
    assert_true(fd >= 0);
    const char *src = "printf(_(\"passed\"));\nputs(_(\"a new \"\n  \"sentence\"));\nP_(n, \"%d attempt, \", \"%d attempts, \");\n"
                      "x = MAP_(\"not marked\");\n";
    assert_int_equal(write(fd, src, strlen(src)), (ssize_t)strlen(src));
    close(fd);
    Extracted x = {0};
    extract_file(path, &x);
    unlink(path);
    assert_int_equal(x.n_marked, 3);
    assert_int_equal(x.n_missing, 1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(text__is_the_english__when_english_is_shown, english),
        cmocka_unit_test_setup(text__is_the_translation__when_chinese_is_shown, english),
        cmocka_unit_test_setup(text__stays_english__when_the_catalogue_lacks_it, english),
        cmocka_unit_test_setup(plural__picks_the_singular_for_one__in_english, english),
        cmocka_unit_test_setup(locale__language_wins__then_lc_all__then_lang, english),
        cmocka_unit_test_setup(width__counts_a_cjk_character_as_two_columns, english),
        cmocka_unit_test_setup(format_us__says_three_digits_and_a_unit, english),
        cmocka_unit_test_setup(catalogue__has_each_english_text_once_with_the_same_conversions, english),
        cmocka_unit_test_setup(sources__every_marked_string_has_a_translation, english),
        cmocka_unit_test_setup(sources__a_marked_string_without_translation_is_reported, english),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
