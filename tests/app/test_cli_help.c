/* tests/app/test_cli_help.c: every command that `cudojo --help` lists
 * (app/cli.c's CLI_COMMANDS) has its summary and its own --help text in
 * the Chinese catalogue, and the Chinese help names every option the
 * English one does: a command added or an option documented in English
 * only fails here, whichever file the command's entry lives in. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "app/cli.h"
#include "base/i18n.h"

static int chinese(void **state) {
    (void)state;
    i18n_set_chinese(true);
    return 0;
}

/* Whether the option starting at en (a "--name" or a "-x" after a blank)
 * appears in zh as a whole word. */
static bool option_in(const char *zh, const char *opt, size_t n) {
    for (const char *p = strstr(zh, "-"); p; p = strstr(p + 1, "-")) {
        if (strncmp(p, opt, n) != 0) continue;
        char after = p[n];
        bool word_end = !(after == '-' || after == '_' || (after >= 'a' && after <= 'z') ||
                          (after >= 'A' && after <= 'Z') || (after >= '0' && after <= '9'));
        bool word_start = p == zh || p[-1] != '-';
        if (word_end && word_start) return true;
    }
    return false;
}

/* The options of en missing from zh, printed; returns how many. */
static int options_missing(const char *name, const char *en, const char *zh) {
    int missing = 0;
    for (const char *p = en; *p; p++) {
        bool start = p == en || p[-1] == ' ' || p[-1] == '\n' || p[-1] == '(' || p[-1] == ',' || p[-1] == '[';
        if (!start || p[0] != '-') continue;
        size_t n = p[1] == '-' ? 2 : 1;
        if (!((p[n] >= 'a' && p[n] <= 'z') || (p[n] >= 'A' && p[n] <= 'Z'))) continue;
        while ((p[n] >= 'a' && p[n] <= 'z') || (p[n] >= 'A' && p[n] <= 'Z') || (p[n] >= '0' && p[n] <= '9') ||
               (p[n] == '-' && p[n + 1] != ' ' && p[n + 1] != '\n' && p[n + 1] != '\0'))
            n++;
        if (!option_in(zh, p, n)) {
            print_message("cudojo %s --help: the Chinese help does not name %.*s\n", name, (int)n, p);
            missing++;
        }
        p += n - 1;
    }
    return missing;
}

/* What one command's entry lacks in Chinese, printed; returns how many. */
static int command_gaps(const Command *c) {
    int gaps = 0;
    if (i18n_text(c->summary) == c->summary) {
        print_message("cudojo %s: its summary has no Chinese: \"%s\"\n", c->name, c->summary);
        gaps++;
    }
    const char *zh = i18n_text(c->help);
    if (zh == c->help) {
        print_message("cudojo %s --help: its help text has no Chinese (mark it N_() and translate it)\n", c->name);
        return gaps + 1;
    }
    return gaps + options_missing(c->name, c->help, zh);
}

static void every_listed_command__has_its_summary_and_help_in_chinese(void **state) {
    (void)state;
    int listed = 0, gaps = 0;
    for (const Command *const *cp = CLI_COMMANDS; *cp; cp++) {
        if (!(*cp)->summary) continue;   /* not listed: worker, man, complete */
        listed++;
        assert_non_null((*cp)->help);
        gaps += command_gaps(*cp);
    }
    print_message("%d commands listed, %d gaps in Chinese\n", listed, gaps);
    assert_true(listed >= 15);
    assert_int_equal(gaps, 0);
}

/* The check itself: an English-only help, and a translation that drops an
 * option, are found. */
static void command_gaps__finds_english_only_help_and_a_dropped_option(void **state) {
    (void)state;
    const Command fresh = {"frob", "X", "frob a thing, in English only", "Frobs X.\n  --hard   harder\n", NULL};
    assert_int_equal(command_gaps(&fresh), 2);
    assert_int_equal(options_missing("x", "  --jobs N, -j N  runs\n  --no-wait  returns\n",
                                     "  --jobs N  并行\n  --no  返回\n"),
                     2);   /* -j and --no-wait (--no is another option) */
    assert_int_equal(options_missing("x", "  --json  as JSON (see --merge)\n", "  --json  JSON（见 --merge）\n"), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(every_listed_command__has_its_summary_and_help_in_chinese, chinese),
        cmocka_unit_test_setup(command_gaps__finds_english_only_help_and_a_dropped_option, chinese),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
