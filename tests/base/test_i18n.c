/* tests/base/test_i18n.c: the message catalogue: lookups in either language,
 * plurals, the locale variables' order, column widths of CJK text, times in
 * plain units, and completeness: every string marked _(), N_() or P_() in
 * app/, app/tui/, base/, lua/, kernels/, kernels/emu/ and kernels/cuda/ (read from the
 * source tree: run from the repository root, as make test does) has a
 * translation whose printf conversions are the English ones, and every
 * literal a learner reads on a screen or from the learner's commands is
 * marked. */
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

static void env_wants_utf8__reads_lc_all__then_lc_ctype__then_lang(void **state) {
    (void)state;
    setenv("LC_ALL", "zh_CN.utf8", 1);
    setenv("LC_CTYPE", "C", 1);
    assert_true(i18n_env_wants_utf8());
    setenv("LC_ALL", "", 1);
    assert_false(i18n_env_wants_utf8());
    setenv("LC_CTYPE", "", 1);
    setenv("LANG", "zh_CN.UTF-8", 1);
    assert_true(i18n_env_wants_utf8());
    setenv("LANG", "POSIX", 1);
    assert_false(i18n_env_wants_utf8());
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

/* The printf conversions of a format, in order, as the arguments they take:
 * length and letter ("%-12s" and "%.0s" both "s", "%lld" "lld"), a '*' for
 * each star. Flags, widths and precisions may differ between languages (a
 * translation drops English's plural "s" with "%.0s"). */
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
        for (const char *k = p + 1; k < q; k++)
            if (*k == '*' || strchr("lhzjtLq", *k)) strbuf_append_char(out, *k);
        strbuf_append_char(out, *q);
        strbuf_append_char(out, ' ');
        p = q;
    }
}

/* Problems of one catalogue array c[0..n): no translation, an English text
 * twice (also across arrays: `others`), different conversions or newlines. */
static int catalogue_problems(const I18nEntry *c, size_t n, const I18nEntry *others, size_t n_others) {
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
        for (size_t k = 0; k < n_others; k++)
            if (!strcmp(c[i].en, others[k].en)) {
                print_message("in both the texts and the run messages: \"%s\"\n", c[i].en);
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
    return bad;
}

static void catalogue__has_each_english_text_once_with_the_same_conversions(void **state) {
    (void)state;
    size_t n, n_run;
    const I18nEntry *c = i18n_catalogue(&n), *run = i18n_message_formats(&n_run);
    assert_true(n > 50);
    assert_true(n_run > 50);
    assert_int_equal(catalogue_problems(c, n, run, n_run) + catalogue_problems(run, n_run, NULL, 0), 0);
}

/* The conversion check itself: a reordered or missing argument is caught. */
static void catalogue__conversions_tell_a_reordered_argument(void **state) {
    (void)state;
    const I18nEntry bad[] = {{"%s has %d", "%d 个 %s"}, {"%d element%s", "%d 个元素"}, {"%d element%s", "%d 个元素%.0s"}};
    StrBuf a, b;
    strbuf_init(&a);
    strbuf_init(&b);
    conversions(bad[0].en, &a), conversions(bad[0].zh, &b);
    assert_string_not_equal(a.data, b.data);
    conversions(bad[1].en, &a), conversions(bad[1].zh, &b);
    assert_string_not_equal(a.data, b.data);
    conversions(bad[2].en, &a), conversions(bad[2].zh, &b);
    assert_string_equal(a.data, b.data);
    strbuf_fini(&a);
    strbuf_fini(&b);
}

/* ---- run messages: built in English, translated where shown ---- */

static void message__stays_english__when_english_is_shown(void **state) {
    (void)state;
    char *m = i18n_message("3 elements wrong of 8; first at [2]: got 1, want 2");
    assert_string_equal(m, "3 elements wrong of 8; first at [2]: got 1, want 2");
    free(m);
    assert_null(i18n_message(NULL));
}

static void message__is_rebuilt_from_its_format__when_chinese_is_shown(void **state) {
    (void)state;
    i18n_set_chinese(true);
    struct {
        const char *en, *zh;
    } cases[] = {
        /* a check's message: numbers and values carried over, the plural "s" dropped */
        {"3 elements wrong of 8; first at [2]: got 1, want 2", "3 个元素错误（共 8 个）；第一个在 [2]：实际值 1，期望值 2"},
        {"1 element wrong of 1; first at [0]: got 1.5, want 2 (allowed error 0.001)",
         "1 个元素错误（共 1 个）；第一个在 [0]：实际值 1.5，期望值 2（允许误差 0.001）"},
        /* a %s argument is itself translated */
        {"all 1024 elements equal", "全部 1024 个元素都相等"},
        /* a finding, with THR written out and the verb translated */
        {"thread (40,0,0) of block (3,0,0) read x[1000] but x has 1000 elements.",
         "线程 (40,0,0)（线程块 (3,0,0)） 读取了 x[1000]，但 x 只有 1000 个元素。"},
        /* a finding repeated over launches: the format, then the suffix */
        {"thread (1,0,0) of block (0,0,0) wrote out[7] but out has 7 elements. (in 78 launches)",
         "线程 (1,0,0)（线程块 (0,0,0)） 写入了 out[7]，但 out 只有 7 个元素。（在 78 次启动中）"},
        /* a summary made of a place and a finding */
        {"vector-add.cu:12: thread (0,0,0) of block (0,0,0) read a[4] but a has 4 elements.",
         "vector-add.cu:12：线程 (0,0,0)（线程块 (0,0,0)） 读取了 a[4]，但 a 只有 4 个元素。"},
        {"Shared-memory race (read after write, lines 12 and 14): thread (1,0,0) of block (0,0,0) and thread (0,0,0) "
         "access tile[0] with no __syncthreads() in between.",
         "共享内存数据竞争（写后读，第 12 行和第 14 行）：线程 (1,0,0)（线程块 (0,0,0)） 和线程 (0,0,0) 访问 tile[0]，"
         "中间没有 __syncthreads()。"},
        /* the occupancy's explanation: a %s argument that is a format itself (kernels/occupancy.c) */
        {"Each thread uses 64 registers, so a block of 256 threads takes 16384 of the SM's 65536 registers: only 4 "
         "blocks fit (32 of 64 warps, 50%). Fewer registers per thread (__launch_bounds__, simpler code) would let "
         "more blocks in.",
         "每个线程用 64 个寄存器，所以一个 256 线程的线程块要占 SM 的 16384 个寄存器（共 65536 个）：只有 4 个线程块能放下"
         "（32 / 64 个线程束，50%）。每线程少用寄存器（__launch_bounds__、更简单的代码）能让更多线程块进来。"},
        /* an emulator launch error, and a memory error whose %s is itself translated */
        {"invalid configuration argument: a block may have at most 1024 threads (x, y ≤ 1024, z ≤ 64), but this "
         "launch asked for (2048,1,1) = 2048 threads.",
         "无效的启动配置（invalid configuration argument）：一个线程块最多 1024 个线程（x、y ≤ 1024，z ≤ 64），"
         "但这次启动要的是 (2048,1,1) = 2048 个线程。"},
        {"invalid argument: copy to host of 64 bytes at 0x7f00 is outside every allocation",
         "无效参数（invalid argument）：拷贝到主机（64 字节，在 0x7f00）不在任何一次分配的范围内"},
        /* a plain text, and one no format matches */
        {"stopped by the user", "被用户停止"},
        {"an author's own words", "an author's own words"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *m = i18n_message(cases[i].en);
        assert_string_equal(m, cases[i].zh);
        free(m);
    }
}

/* ---- extraction of the marked strings from the sources ---- */

static bool ident_char(char c) { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

/* String macros (#define THR "thread (%u,%u,%u) of block (%u,%u,%u)") of the
 * scanned sources, so N_(THR " read %s") is extracted written out. */
#define MAX_MACROS 256
static struct {
    char *name, *text;
} macros[MAX_MACROS];
static int n_macros;

static const char *read_literals(const char *p, StrBuf *out);

static void collect_macros(const char *text) {
    StrBuf lit;
    strbuf_init(&lit);
    for (const char *p = strstr(text, "#define "); p; p = strstr(p + 1, "#define ")) {
        const char *name = p + 8, *e = name;
        while (ident_char(*e)) e++;
        if (*e != ' ' || e == name || n_macros == MAX_MACROS) continue;
        char *line = xstrndup(e, strcspn(e, "\n"));   /* one line: #define NAME "text" */
        const char *after = read_literals(line, &lit);
        bool whole = after && !*after;
        free(line);
        if (!whole) continue;
        macros[n_macros].name = xstrndup(name, (size_t)(e - name));
        macros[n_macros++].text = xstrdup(lit.data);
    }
    strbuf_fini(&lit);
}

/* The string macro named at p, or NULL; *len its name's length. */
static const char *macro_at(const char *p, size_t *len) {
    size_t n = 0;
    while (ident_char(p[n])) n++;
    for (int i = 0; n && i < n_macros; i++)
        if (strlen(macros[i].name) == n && !strncmp(p, macros[i].name, n)) {
            *len = n;
            return macros[i].text;
        }
    return NULL;
}

/* Reads the C string literals (adjacent ones joined, string macros written
 * out) at p into out, unescaped; returns the position after them, or NULL
 * when p is not at a literal. */
static const char *read_literals(const char *p, StrBuf *out) {
    strbuf_reset(out);
    bool any = false;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
        size_t mlen;
        const char *m = macro_at(p, &mlen);
        if (m) {
            strbuf_append(out, m);
            p += mlen;
            any = true;
            continue;
        }
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
            case 'x': {
                int v = 0;
                while (p[1] && strchr("0123456789abcdefABCDEF", p[1])) p++, v = v * 16 + (*p <= '9' ? *p - '0' : (*p | 32) - 'a' + 10);
                strbuf_append_char(out, (char)v);
                break;
            }
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

/* Where learner-facing text is written: the workbench and the CLI, the
 * run's checks and summary (lua/), the emulator's findings (kernels/emu/),
 * the occupancy's explanation (kernels/), why there is no GPU (kernels/cuda/). */
static const char *const SOURCE_DIRS[] = {"app", "app/tui", "base", "lua", "kernels/emu", "kernels", "kernels/cuda"};

/* Calls fn on every .c (and with headers, .h) file of dir. */
static void each_source(const char *dir, bool headers, void (*fn)(const char *path, void *ctx), void *ctx) {
    DIR *dh = opendir(dir);
    if (!dh) fail_msg("cannot open %s: run the test from the repository root", dir);
    struct dirent *e;
    while ((e = readdir(dh))) {
        size_t len = strlen(e->d_name);
        bool c = len > 2 && !strcmp(e->d_name + len - 2, ".c"), h = len > 2 && !strcmp(e->d_name + len - 2, ".h");
        if (!(c || (headers && h)) || !strncmp(e->d_name, "i18n_zh", 7)) continue;   /* the catalogue */
        char *path = path_join(dir, e->d_name);
        fn(path, ctx);
        free(path);
    }
    closedir(dh);
}

static void collect_file_macros(const char *path, void *ctx) {
    (void)ctx;
    char *text = NULL;
    Diag *d = fs_read_file(path, &text, NULL);
    if (d) fail_msg("%s: %s", path, d->message);
    collect_macros(text);
    free(text);
}

static void collect_all_macros(void) {
    if (n_macros) return;
    for (size_t i = 0; i < sizeof SOURCE_DIRS / sizeof SOURCE_DIRS[0]; i++)
        each_source(SOURCE_DIRS[i], true, collect_file_macros, NULL);
}

typedef struct Scan {
    Extracted x;
    int files;
} Scan;

static void extract_one(const char *path, void *ctx) {
    Scan *s = ctx;
    extract_file(path, &s->x);
    s->files++;
}

static void sources__every_marked_string_has_a_translation(void **state) {
    (void)state;
    collect_all_macros();
    Scan s = {0};
    for (size_t i = 0; i < sizeof SOURCE_DIRS / sizeof SOURCE_DIRS[0]; i++)
        each_source(SOURCE_DIRS[i], false, extract_one, &s);
    print_message("%d strings marked in %d files, %d without a translation\n", s.x.n_marked, s.files, s.x.n_missing);
    assert_true(s.x.n_marked > 300);
    assert_int_equal(s.x.n_missing, 0);
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

/* ---- unmarked text: a literal a learner reads that is not wrapped in _() ---- */

/* The files whose every string literal is learner-facing unless shown
 * otherwise: the workbench's screens and the learner's commands. */
static const char *const SCREEN_DIRS[] = {"app/tui"};
static const char *const SCREEN_FILES[] = {"app/cmd_list.c", "app/cmd_progress.c", "app/cmd_hint.c", "app/cmd_run.c",
                                           "app/cmd_debug.c", "app/cmd_doctor.c",
                                           "app/cmd_verify.c", "app/cli.c",
                                           "app/exec_summary.c", "app/cmd_args.c", "app/cmd_watch.c",
                                           "app/cmd_exec.c", "app/cmd_class.c", "app/cmd_lint.c",
                                           "app/mutants_run.c", "app/cmd_reset.c", "app/cmd_common.c"};

/* Not scanned: tui_highlight.c's tables are C and CUDA keywords, not text.
 * Still to be marked and translated (issue 17; remove a file from here
 * once it is done, so the scan holds it): the rest of the screens. */
static const char *const NOT_SCANNED[] = {
    "app/tui/tui_highlight.c", NULL};

/* Calls whose string arguments are not text a learner reads: JSON keys,
 * formats parsed back (sscanf),
 * comparisons, environment, file names, glyph pairs, the terminal's own
 * protocol, and errors for a programmer (assert). The marking macros. */
static const char *const NOT_TEXT_CALLS[] = {
    "_", "N_", "P_", "json_object_get", "json_object_set_new", "json_object_set", "json_string", "json_pack",
    "json_unpack", "jstr", "num", "strcmp", "strncmp", "strstr", "strchr", "strspn", "strcspn", "getenv", "setenv",
    "fopen", "popen", "execlp", "execvp", "path_join", "tui_glyph", "setlocale", "assert", "run_mentions",
    "define_key", "tigetstr", "newterm", "keyname", "store_get", "workspace_path", "fs_join", "read_dim3", "jint", "readlink", "open", "execl",
    "strcasestr", "memcmp", "jnum", "sscanf", "memmem", "cli_command_help", NULL};

/* Static tables whose strings are names, not text: the timeline's event
 * kinds as the trace's JSON spells them, the statuses as --json does. */
static const char *const NOT_TEXT_TABLES[] = {"KIND_NAMES", "STATUS_NAMES", "FAMILIES", NULL};

/* Arguments that are names, not text, as "call:index" (from 0): a Diag's
 * code, the command name a parser puts in its messages, a command's
 * synopsis (its entry's second field: subcommands and placeholders). */
static const char *const NOT_TEXT_ARGS[] = {"diag_error:0", "diag_new:1", "run_args_parse:3",
                                            "cmd_take_warp_option:1", "cmd_target_open:2", "watch_event:0",
                                            "{CMD_CLASS:1", "{CMD_NEW:1", "{CMD_LINT:1", "lint_add:3",
                                            "field_line:1", NULL};

/* Words that are names, not language: keys, units, tools (checked
 * case-sensitively, after printf conversions are removed). */
static const char *const NOT_TEXT_WORDS[] = {
    "Esc", "Tab", "PgUp", "PgDn", "Home", "End", "Enter", "Ctrl", "Space", "GPU", "GPUs", "CPU", "CUDA", "NVRTC",
    "nvcc", "cudojo", "GiB", "KiB", "MiB", "GB", "SMs", "PTX", "emu", "cuda", "utf8", "UTF", "TERM", "xterm",
    "NO_COLOR", "VISUAL", "EDITOR", "LANG", "json", "md", "cu", "lua", "ms", "H2D", "D2H", "D2D", "memset", "English", "EXERCISE", "FILE", "PROGRAM", "ARGS", "FMA", "TFLOP", "FP32", "FP64", NULL};

static bool in_list(const char *const *list, const char *s, size_t n) {
    for (int i = 0; list[i]; i++)
        if (strlen(list[i]) == n && !strncmp(list[i], s, n)) return true;
    return false;
}

/* Whether text has a word of language in it: three letters or more (or two
 * words of two), outside printf conversions, options (--merge) and
 * NOT_TEXT_WORDS. Text without spaces that is a path ("/tmp"), an id
 * ("passed-fast", "progress-merge") or a file name ("chapter.lua") is not
 * language. */
static bool is_language(const char *text) {
    if (!strchr(text, ' ') && (strchr(text, '/') || (strchr(text, '-') && strspn(text, "abcdefghijklmnopqrstuvwxyz0123456789-_.") == strlen(text))))
        return false;
    const char *dot = strrchr(text, '.');   /* a file name: "CLAIMS.tsv", "README.zh-CN.md" */
    if (!strchr(text, ' ') && dot && dot > text && dot[1] && strlen(dot + 1) <= 4 &&
        strspn(dot + 1, "abcdefghijklmnopqrstuvwxyz0123456789") == strlen(dot + 1))
        return false;
    int words = 0;
    for (const char *p = text; *p;) {
        if (*p == '%') {   /* a conversion */
            p++;
            while (*p && strchr("-+ #0123456789.*'lhzjtLq", *p)) p++;
            if (*p) p++;
            continue;
        }
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z'))) {
            p++;
            continue;
        }
        const char *w = p;
        bool option = w - text >= 2 && w[-1] == '-' && w[-2] == '-';
        while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_' || (*p >= '0' && *p <= '9')) p++;
        size_t n = (size_t)(p - w);
        if (option) {   /* --first-finding: a name, to its end */
            while (*p == '-' || (*p >= 'a' && *p <= 'z')) p++;
            continue;
        }
        if (memchr(w, '_', n) || in_list(NOT_TEXT_WORDS, w, n)) continue;   /* an identifier, a name */
        if (n >= 3) return true;
        if (n == 2) words++;
    }
    return words >= 2;
}

/* The name of the call whose parentheses enclose position at (or "{" inside an
 * initializer's braces, "{NAME" inside NAME[] = {...}, its rows' braces
 * included, "" at none), and in *arg which of its arguments (from 0) at is in. */
static void enclosing_call(const char *text, const char *at, char *name, size_t n, int *arg) {
    int depth = 0;
    bool in_row = false;   /* inside braces without a name: a row of a table, or a compound literal */
    *arg = 0;
    for (const char *p = at - 1; p >= text; p--) {
        if (*p == '"' && !(p > text && p[-1] == '\'' && p[1] == '\'')) {   /* a literal before: its commas are not C's */
            while (p > text && !(p[-1] == '"' && (p - 1 == text || p[-2] != '\\'))) p--;
            p--;
            continue;
        }
        if (*p == ',' && !depth) (*arg)++;
        if (*p == ')' || *p == ']' || *p == '}') depth++;
        else if (*p == '(' || *p == '[' || *p == '{') {
            if (depth) {
                depth--;
                continue;
            }
            if (*p != '(') {
                const char *e = p;   /* NAME[N] = { */
                while (e > text && (e[-1] == ' ' || e[-1] == '=')) e--;
                while (*p == '{' && e > text && e[-1] == ']') {
                    while (e > text && e[-1] != '[') e--;
                    if (e > text) e--;
                }
                const char *b = e;
                while (b > text && ident_char(b[-1])) b--;
                if (*p == '{' && e == b && p > text) {   /* no NAME[] =: look for the table around */
                    in_row = true;
                    continue;
                }
                snprintf(name, n, "%c%.*s", *p, *p == '{' ? (int)(e - b) : 0, b);
                return;
            }
            if (in_row) break;
            const char *e = p;
            while (e > text && (e[-1] == ' ')) e--;
            const char *b = e;
            while (b > text && ident_char(b[-1])) b--;
            snprintf(name, n, "%.*s", (int)(e - b), b);
            return;
        }
        else if (*p == ';' && !depth) break;
    }
    snprintf(name, n, "%s", in_row ? "{" : "");
}

typedef struct Unmarked {
    int n;
} Unmarked;

/* Every literal of one screen file that is language and not marked. */
static void scan_file_unmarked(const char *path, Unmarked *u) {
    char *text = NULL;
    Diag *d = fs_read_file(path, &text, NULL);
    if (d) fail_msg("%s: %s", path, d->message);
    StrBuf lit;
    strbuf_init(&lit);
    for (const char *p = text; *p;) {
        if (p[0] == '/' && p[1] == '*') {
            const char *e = strstr(p + 2, "*/");
            p = e ? e + 2 : p + strlen(p);
            continue;
        }
        if (p[0] == '/' && p[1] == '/') {
            p += strcspn(p, "\n");
            continue;
        }
        if (*p == '#' && (p == text || p[-1] == '\n')) {   /* #include, #define: not text (THR-like macros are found where used) */
            while (*p && !(*p == '\n' && p[-1] != '\\')) p++;
            continue;
        }
        if (*p == '\'') {
            p += p[1] == '\\' ? 4 : 3;
            continue;
        }
        if (*p != '"') {
            p++;
            continue;
        }
        const char *start = p;
        const char *after = read_literals(p, &lit);
        char call[64], call_arg[80];
        int arg;
        enclosing_call(text, start, call, sizeof call, &arg);
        snprintf(call_arg, sizeof call_arg, "%s:%d", call, arg);
        const char *before = start;
        while (before > text && (before[-1] == ' ' || before[-1] == '\n')) before--;
        /* the first field of a help row, {"j/k ↑/↓", N_("move")}, is a key name (a key
         * that is a word is marked N_() by hand: tui_help.c translates the keys too) */
        bool key_name = before > text && before[-1] == '{';
        bool names = call[0] == '{' && in_list(NOT_TEXT_TABLES, call + 1, strlen(call + 1));
        if (is_language(lit.data) && !key_name && !names && !in_list(NOT_TEXT_CALLS, call, strlen(call)) &&
            !in_list(NOT_TEXT_ARGS, call_arg, strlen(call_arg))) {
            print_message("%s:%d: not marked _(): \"%s\" (in %s)\n", path, line_of(text, start), lit.data,
                          *call ? call : "?");
            u->n++;
        }
        p = after;
    }
    strbuf_fini(&lit);
    free(text);
}

static void scan_one_unmarked(const char *path, void *ctx) {
    if (!in_list(NOT_SCANNED, path, strlen(path))) scan_file_unmarked(path, ctx);
}

static void sources__every_learner_facing_literal_is_marked(void **state) {
    (void)state;
    collect_all_macros();
    Unmarked u = {0};
    for (size_t i = 0; i < sizeof SCREEN_DIRS / sizeof SCREEN_DIRS[0]; i++)
        each_source(SCREEN_DIRS[i], false, scan_one_unmarked, &u);
    for (size_t i = 0; i < sizeof SCREEN_FILES / sizeof SCREEN_FILES[0]; i++) scan_one_unmarked(SCREEN_FILES[i], &u);
    print_message("%d learner-facing literals not marked\n", u.n);
    assert_int_equal(u.n, 0);
}

/* The scan itself: unmarked text is found; marked text, JSON keys, key
 * names, conversions and tables of names (NOT_TEXT_TABLES) are not. */
static void sources__an_unmarked_sentence_is_reported(void **state) {
    (void)state;
    char path[] = "/tmp/cudojo-test-i18n-XXXXXX.c";
    int fd = mkstemps(path, 2);
    assert_true(fd >= 0);
    const char *src = "#include \"app/tui/tui.h\"\n/* a \"quoted comment\" */\n"
                      "void f(Tui *t) {\n  tui_notify(t, false, \"run stopped\");\n"
                      "  tui_notify(t, false, _(\"run stopped\"));\n  json_object_get(o, \"kernel_ms\");\n"
                      "  tui_draw_status(t, \"Esc  Tab  %d%%\");\n  snprintf(b, n, \"%s, %s\", x ? \"on time\" : \"late\");\n}\n"
                      "static const char *const KIND_NAMES[3] = {\"h2d\", \"host work\", \"sync\"};\n"
                      "static const char *const LABELS[] = {\"h2d\", \"host work\", \"sync\"};\n"
                      "static const struct Fam FAMILIES[] = {{{\"out of bounds\", NULL}, \"oob\"}};\n"
                      "void g(void) { names_add(&u, xstrdup(\"chapter.lua\")); }\n";
    assert_int_equal(write(fd, src, strlen(src)), (ssize_t)strlen(src));
    close(fd);
    Unmarked u = {0};
    scan_file_unmarked(path, &u);
    unlink(path);
    assert_int_equal(u.n, 5);   /* "run stopped", "on time", "late", LABELS' "host work", "sync"
                                  (KIND_NAMES' and FAMILIES' rows are names, a file name is
                                  no sentence; a row's first field is a key) */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(text__is_the_english__when_english_is_shown, english),
        cmocka_unit_test(env_wants_utf8__reads_lc_all__then_lc_ctype__then_lang),
        cmocka_unit_test_setup(text__is_the_translation__when_chinese_is_shown, english),
        cmocka_unit_test_setup(text__stays_english__when_the_catalogue_lacks_it, english),
        cmocka_unit_test_setup(plural__picks_the_singular_for_one__in_english, english),
        cmocka_unit_test_setup(locale__language_wins__then_lc_all__then_lang, english),
        cmocka_unit_test_setup(width__counts_a_cjk_character_as_two_columns, english),
        cmocka_unit_test_setup(format_us__says_three_digits_and_a_unit, english),
        cmocka_unit_test_setup(catalogue__has_each_english_text_once_with_the_same_conversions, english),
        cmocka_unit_test_setup(catalogue__conversions_tell_a_reordered_argument, english),
        cmocka_unit_test_setup(message__stays_english__when_english_is_shown, english),
        cmocka_unit_test_setup(message__is_rebuilt_from_its_format__when_chinese_is_shown, english),
        cmocka_unit_test_setup(sources__every_marked_string_has_a_translation, english),
        cmocka_unit_test_setup(sources__a_marked_string_without_translation_is_reported, english),
        cmocka_unit_test_setup(sources__every_learner_facing_literal_is_marked, english),
        cmocka_unit_test_setup(sources__an_unmarked_sentence_is_reported, english),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
