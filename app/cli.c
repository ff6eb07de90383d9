/* app/cli.c: the list of commands (each entry lives in its app/cmd_<name>.c), usage text and output helpers. */
#include "app/cli.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/i18n.h"
#include "base/xalloc.h"

/* English here and in the man page (cli_global_options); translated where
 * --help prints it. */
static const char *const GLOBAL_OPTIONS = N_(
    "Options for every command:\n"
    "  --json              machine-readable output on stdout: one JSON document\n"
    "                      (watch: JSON Lines); messages go to stderr. Text that is\n"
    "                      not UTF-8 (a path, kernel output) keeps its bytes: each\n"
    "                      byte that is not UTF-8 becomes U+EF00 + the byte\n"
    "  --backend=B         cuda (the GPU), emu (the PTX emulator) or auto (default:\n"
    "                      the GPU when one works, else the emulator)\n"
    "  --emu-threads=N     host threads the emulator uses (default: all cores)\n"
    "  -C, --workspace DIR use the workspace at DIR (default: the one holding the\n"
    "                      current directory, else $XDG_DATA_HOME/cudojo)\n"
    "  --lessons DIR       the course to use (default: the one shipped with cudojo)\n"
    "  --no-color          no colours (NO_COLOR is honoured too)\n"
    "  -h, --help          help for cudojo or a command\n");

const Command *const CLI_COMMANDS[] = {
    &CMD_INIT,
    &CMD_LIST,
    &CMD_RUN,
    &CMD_WATCH,
    &CMD_HINT,
    &CMD_PROGRESS,
    &CMD_SUBMIT,
    &CMD_RESET,
    &CMD_DOCTOR,
    &CMD_EXEC,
    &CMD_DEBUG,
    &CMD_VERIFY,
    &CMD_NEW,
    &CMD_LINT,
    &CMD_CLASS,
    &CMD_GRADE,
    &CMD_WORKER,
    &CMD_MAN,
    &CMD_COMPLETE,
    NULL,
};

const char *cli_global_options(void) { return GLOBAL_OPTIONS; }

const Command *cli_find_command(const char *name) {
    for (const Command *const *cp = CLI_COMMANDS; *cp; cp++)
        if (!strcmp((*cp)->name, name)) return *cp;
    return NULL;
}

void cli_print_usage(FILE *out) {
    fputs(_("cudojo — learn CUDA by doing\n\n"
            "Usage: cudojo [OPTIONS]              open the workbench\n"
            "       cudojo COMMAND [ARGS] [OPTIONS]\n\nCommands:\n"), out);
    for (const Command *const *cp = CLI_COMMANDS; *cp; cp++) {
        const Command *c = *cp;
        if (!c->summary) continue;
        char left[64];
        snprintf(left, sizeof left, "%s %s", c->name, c->args);
        fprintf(out, "  %-24s %s\n", left, _(c->summary));   /* a learner's command marks its own N_() */
    }
    fprintf(out, _("\n%s\n`cudojo COMMAND --help` tells more about one command.\n"), _(GLOBAL_OPTIONS));
}

int cli_command_help(const char *name) {
    const Command *c = cli_find_command(name);
    if (!c || !c->summary) {
        fprintf(stderr, _("cudojo: unknown command '%s'\n"), name);
        return 2;
    }
    printf(_("Usage: cudojo %s %s\n\n%s\n%s"), c->name, c->args, _(c->help), _(GLOBAL_OPTIONS));
    return 0;
}

bool cli_wants_help(const Command *cmd, int argc, char **argv) {
    if (!cmd->summary) return false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--")) break;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            cli_command_help(cmd->name);
            return true;
        }
    }
    return false;
}

void cli_print_diags(const Diag *d) {
    const char *no_color = getenv("NO_COLOR");
    char *s = diag_format_all(d, isatty(2) && !(no_color && *no_color));
    fputs(s, stderr);
    free(s);
}

int cli_fail(Diag *d) {
    cli_print_diags(d);
    diag_free(&d);
    return 2;
}

bool cli_prefers_chinese(void) { return i18n_chinese(); }

const char *cli_chapter_title(const ChapterMeta *ch) {
    return i18n_chinese() && ch->title_zh && *ch->title_zh ? ch->title_zh : ch->title;
}

const char *cli_exercise_title(const ExerciseMeta *ex) {
    return i18n_chinese() && ex->title_zh && *ex->title_zh ? ex->title_zh : ex->title;
}

void cli_print_json(json_t *j) {
    char *s = json_dumps(j, JSON_INDENT(2) | JSON_ENSURE_ASCII * 0);
    if (s) printf("%s\n", s);
    free(s);
    json_decref(j);
}
