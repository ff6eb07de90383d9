/* app/cmd_class.c: `cudojo class report GRADEDB [--html FILE] [--json]
 * [--tui]`: where the class struggles, from a grading database (read only,
 * through gradedb_export_json), a gradebook.json, or a `cudojo grade --out`
 * folder holding either. Prints the report as text (block-character
 * histogram, a table per exercise), writes it as one HTML page, gives it as
 * JSON, or opens it in the workbench's class screen. */
#include <langinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "app/class_report.h"
#include "app/cli.h"
#include "app/tui/tui_class.h"
#include "base/i18n.h"
#include "base/xalloc.h"

static bool locale_utf8(void) {
    const char *cs = nl_langinfo(CODESET);
    return cs && (!strcasecmp(cs, "UTF-8") || !strcasecmp(cs, "utf8"));
}

/* The terminal's width, 80 when stdout is not one. */
static int term_width(void) {
    struct winsize ws;
    if (isatty(1) && ioctl(1, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40) return ws.ws_col > 160 ? 160 : ws.ws_col;
    return 80;
}

/* SGR of a role, "" when plain. */
static const char *role_sgr(int role) {
    switch (role) {
    case ROLE_H1: return "\033[1m";
    case ROLE_H2: return "\033[1;4m";
    case ROLE_BOLD: return "\033[1m";
    case ROLE_DIM: return "\033[2m";
    case ROLE_PASS: return "\033[32m";
    case ROLE_FAIL: return "\033[31m";
    case ROLE_WARN: return "\033[33m";
    case ROLE_NOTE: return "\033[36m";
    case ROLE_BAR_DONE: return "\033[35m";
    default: return "";
    }
}

/* Prints doc, with colours when `color`; trailing blanks dropped. */
static void print_doc(const TextDoc *doc, bool color) {
    for (int i = 0; i < doc->n; i++) {
        const TextLine *l = &doc->lines[i];
        int last = l->n - 1;   /* the last span with something other than blanks */
        while (last >= 0 && l->spans[last].text[strspn(l->spans[last].text, " ")] == '\0') last--;
        for (int k = 0; k <= last; k++) {
            const char *sgr = color ? role_sgr(l->spans[k].role) : "";
            const char *text = l->spans[k].text;
            size_t n = strlen(text);
            if (k == last)
                while (n > 0 && text[n - 1] == ' ') n--;
            printf("%s%.*s%s", sgr, (int)n, text, *sgr ? "\033[0m" : "");
        }
        putchar('\n');
    }
}

static int usage(void) {
    fputs(_("usage: cudojo class report GRADEDB [--html FILE] [--json] [--tui]\n"), stderr);
    return 2;
}

int cmd_class(Cli *cli, int argc, char **argv) {
    if (argc < 2 || strcmp(argv[1], "report")) {
        if (argc >= 2) fprintf(stderr, _("cudojo class: unknown subcommand '%s' (there is: report)\n"), argv[1]);
        return usage();
    }
    const char *db = NULL, *html = NULL;
    bool tui = false;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--html") && i + 1 < argc) html = argv[++i];
        else if (!strncmp(a, "--html=", 7) && a[7]) html = a + 7;
        else if (!strcmp(a, "--tui")) tui = true;
        else if (a[0] == '-' && a[1]) {
            fprintf(stderr, _("cudojo class report: unknown option '%s'%s\n"), a,
                    !strcmp(a, "--html") ? _(" (--html needs a FILE)") : "");
            return usage();
        } else if (!db) db = a;
        else {
            fprintf(stderr, _("cudojo class report: one GRADEDB only ('%s' is a second)\n"), a);
            return usage();
        }
    }
    if (!db) return usage();
    if (tui && cli->json) {
        fputs(_("cudojo class report: --tui and --json do not go together\n"), stderr);
        return 2;
    }
    json_t *book = NULL;
    char *source = NULL;
    Diag *d = class_report_load(db, &book, &source);
    json_t *report = NULL;
    if (!d) d = class_report_compute(book, source, &report);
    json_decref(book);
    free(source);
    if (d) return cli_fail(d);
    if (html) {
        d = class_report_write_html(report, html);
        if (d) {
            json_decref(report);
            return cli_fail(d);
        }
        fprintf(stderr, _("Class report written to %s\n"), html);
    }
    int rc = 0;
    if (cli->json) {
        cli_print_json(report);
        return 0;
    }
    if (tui) rc = tui_class_open(cli, report);
    else if (!html) {
        TextDoc *doc = text_doc_new();
        class_report_render(doc, report, term_width(), locale_utf8());
        print_doc(doc, cli->color);
        text_doc_free(&doc);
    }
    json_decref(report);
    return rc;
}

/* The command's entry in the table app/cli.c lists. */
const Command CMD_CLASS = {"class", "report GRADEDB", N_("instructors: where the class struggles, from a grading database"),
    N_("Reads GRADEDB (the grade.db of `cudojo grade --out DIR`, read only; its\n"
    "gradebook.json; or DIR itself) and shows, per exercise, the pass rate, the\n"
    "passed-fast rate, the median attempts and time to pass (from the students'\n"
    "progress records), the most common failure kinds (out of bounds, race,\n"
    "wrong result, too slow...), and the class's score histogram; then the\n"
    "groups of similar submissions and the submissions' problems.\n"
    "Options:\n"
    "  --html FILE         write the report as one self-contained HTML page (no\n"
    "                      scripts, nothing fetched) instead of printing it\n"
    "  --json              the computed report as JSON\n"
    "  --tui               show it in the workbench's class screen (q leaves)\n"
    "Exit status: 0 done, 2 when GRADEDB cannot be read or an option is wrong.\n"),
    cmd_class};
