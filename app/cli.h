/* app/cli.h: what every CLI command shares: global options, the command
 * table, and the workspace/course/store/runner a command may need. */
#ifndef CUDOJO_APP_CLI_H
#define CUDOJO_APP_CLI_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "base/diag.h"
#include "kernels/backend.h"
#include "lua/exercise.h"

typedef struct Store Store;

typedef struct Cli {
    bool json;                  /* --json: machine-readable output on stdout */
    bool color;                 /* stdout is a terminal and NO_COLOR is unset */
    BackendChoice backend;      /* --backend=cuda|emu|auto */
    int emu_threads;            /* --emu-threads=N (0 = all cores) */
    const char *workspace_arg;  /* -C DIR / --workspace DIR */
    const char *lessons_arg;    /* --lessons DIR */
    const char *argv0;
} Cli;

typedef struct Command {
    const char *name;
    const char *args;           /* "EXERCISE", "[DIR]" ... for usage */
    const char *summary;        /* one line for `cudojo --help` */
    const char *help;           /* the command's own --help text (options etc.) */
    int (*run)(Cli *cli, int argc, char **argv);   /* argv[0] is the command name */
} Command;

/* Every command, in --help order; NULL-terminated. Each entry lives with its
 * command in app/cmd_<name>.c (tmux's cmd_entry). */
extern const Command *const CLI_COMMANDS[];
extern const Command CMD_INIT, CMD_LIST, CMD_RUN, CMD_WATCH, CMD_HINT, CMD_PROGRESS, CMD_SUBMIT, CMD_RESET, CMD_DOCTOR, CMD_EXEC, CMD_VERIFY, CMD_NEW, CMD_LINT, CMD_CLASS, CMD_GRADE, CMD_WORKER, CMD_MAN, CMD_COMPLETE, CMD_DEBUG;

/* Prints a Diag chain to stderr (colour when stderr is a terminal). */
void cli_print_diags(const Diag *d);
/* Prints d and frees it; returns exit status 2 (usage/setup errors) for `return cli_fail(d);`. */
int cli_fail(Diag *d);
/* True when the text shown is Chinese: the locale asks for it (LANGUAGE,
 * LC_ALL, LC_MESSAGES or LANG starting "zh"; base/i18n.h) or the TUI's L key. */
bool cli_prefers_chinese(void);
/* A chapter's / exercise's title in the language shown (the English one when the course has no title_zh). */
const char *cli_chapter_title(const ChapterMeta *ch);
const char *cli_exercise_title(const ExerciseMeta *ex);
/* Prints a JSON value to stdout, indented, followed by a newline; steals the reference. */
void cli_print_json(json_t *j);
/* True when argv has --help or -h; prints the command's help then. */
bool cli_wants_help(const Command *cmd, int argc, char **argv);
const Command *cli_find_command(const char *name);
/* The options every command takes, as --help prints them. */
const char *cli_global_options(void);
void cli_print_usage(FILE *out);
/* Parses "--param k=v" pairs and the positional arguments of a command. */
int cli_command_help(const char *name);

/* The commands, one file each (app/cmd_<name>.c). */
int cmd_init(Cli *cli, int argc, char **argv);
int cmd_man(Cli *cli, int argc, char **argv);        /* hidden: the manual page (app/cmd_man.c) */
int cmd_complete(Cli *cli, int argc, char **argv);   /* hidden: words for shell completion */
int cmd_list(Cli *cli, int argc, char **argv);
int cmd_run(Cli *cli, int argc, char **argv);
int cmd_watch(Cli *cli, int argc, char **argv);
int cmd_hint(Cli *cli, int argc, char **argv);
int cmd_progress(Cli *cli, int argc, char **argv);
int cmd_submit(Cli *cli, int argc, char **argv);
int cmd_reset(Cli *cli, int argc, char **argv);
int cmd_doctor(Cli *cli, int argc, char **argv);
int cmd_verify(Cli *cli, int argc, char **argv);
int cmd_new(Cli *cli, int argc, char **argv);
int cmd_lint(Cli *cli, int argc, char **argv);
int cmd_exec(Cli *cli, int argc, char **argv);
int cmd_grade(Cli *cli, int argc, char **argv);
int cmd_class(Cli *cli, int argc, char **argv);
int cmd_worker(Cli *cli, int argc, char **argv);
/* No command: the workbench (app/tui/). */
int cmd_tui(Cli *cli, int argc, char **argv);

#endif
