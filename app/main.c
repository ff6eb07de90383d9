/* app/main.c: cudojo's entry point: global options, then one command.
 * With no command it opens the workbench (the TUI). */
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/cli.h"
#include "base/i18n.h"
#include "base/number.h"

static const char *take_value(int *i, int argc, char **argv, const char *arg, const char *name) {
    size_t n = strlen(name);
    if (!strncmp(arg, name, n) && arg[n] == '=') return arg + n + 1;
    if (!strcmp(arg, name) && *i + 1 < argc) return argv[++*i];
    return NULL;
}

/* Pulls the global options out of argv (anywhere on the line); returns the
 * new argc, or -1 after printing a usage error. */
static int parse_globals(Cli *cli, int argc, char **argv) {
    int out = 1;
    bool after_dashdash = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v;
        if (after_dashdash || a[0] != '-') {
            /* `cudojo exec PROGRAM ARGS...`: the rest is exec's and the program's. */
            if (!after_dashdash && out == 1 && !strcmp(a, "exec")) after_dashdash = true;
            argv[out++] = argv[i];
            continue;
        }
        if (!strcmp(a, "--")) {
            after_dashdash = true;
            argv[out++] = argv[i];
        } else if (!strcmp(a, "--json")) {
            cli->json = true;
        } else if (!strcmp(a, "--no-color")) {
            cli->color = false;
        } else if ((v = take_value(&i, argc, argv, a, "--backend"))) {
            bool ok;
            cli->backend = backend_choice_parse(v, &ok);
            if (!ok) {
                fprintf(stderr, "cudojo: --backend must be cuda, emu or auto (got '%s')\n", v);
                return -1;
            }
        } else if ((v = take_value(&i, argc, argv, a, "--emu-threads"))) {
            long long n;
            if (!number_whole(v, 0, 1024, &n)) {
                fprintf(stderr, "cudojo: --emu-threads must be a number from 0 (all cores) to 1024\n");
                return -1;
            }
            cli->emu_threads = (int)n;
        } else if ((v = take_value(&i, argc, argv, a, "--workspace")) || (v = take_value(&i, argc, argv, a, "-C"))) {
            cli->workspace_arg = v;
        } else if ((v = take_value(&i, argc, argv, a, "--lessons"))) {
            cli->lessons_arg = v;
        } else {
            argv[out++] = argv[i];
        }
    }
    argv[out] = NULL;
    return out;
}

int main(int argc, char **argv) {
    /* LANG=zh_CN.UTF-8 on a machine without that locale leaves "C": keep
       UTF-8 (CJK text measured two columns wide, block characters) through
       C.UTF-8, so tables line up in every command, not only the workbench. */
    if (!setlocale(LC_ALL, "") && i18n_env_wants_utf8()) setlocale(LC_CTYPE, "C.UTF-8");
    Cli cli = {.argv0 = argv[0]};
    const char *no_color = getenv("NO_COLOR");
    cli.color = isatty(1) && !(no_color && *no_color);
    argc = parse_globals(&cli, argc, argv);
    if (argc < 0) return 2;
    if (argc < 2) return cmd_tui(&cli, argc, argv);
    const char *name = argv[1];
    if (!strcmp(name, "--help") || !strcmp(name, "-h") || !strcmp(name, "help")) {
        if (argc > 2) return cli_command_help(argv[2]);
        cli_print_usage(stdout);
        return 0;
    }
    if (!strcmp(name, "--version")) {
        printf("cudojo %s\n", CUDOJO_VERSION);
        return 0;
    }
    const Command *cmd = cli_find_command(name);
    if (!cmd) {
        fprintf(stderr, _("cudojo: unknown command '%s'\n"), name);
        fputc('\n', stderr);
        cli_print_usage(stderr);
        return 2;
    }
    /* exec reads its own --help: one after PROGRAM is the program's. */
    if (cmd->run != cmd_exec && cli_wants_help(cmd, argc - 1, argv + 1)) return 0;
    return cmd->run(&cli, argc - 1, argv + 1);
}
