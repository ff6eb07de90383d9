/* app/tui/tui_placeholder.c: until the workbench TUI lands, `cudojo` with no
 * command shows the course list and how to get going. */
#include <stdio.h>

#include "app/cli.h"

int cmd_tui(Cli *cli, int argc, char **argv) {
    char *list_argv[] = {"list", NULL};
    (void)argc;
    (void)argv;
    int rc = cmd_list(cli, 1, list_argv);
    printf("\n");
    cli_print_usage(stdout);
    return rc;
}
