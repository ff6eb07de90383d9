/* app/cmd_worker.c: `cudojo __worker`: the process that runs exercises (internal). */
#include "app/cli.h"
#include "app/runner.h"

int cmd_worker(Cli *cli, int argc, char **argv) {
    (void)argc;
    (void)argv;
    return runner_worker_main(cli->backend, cli->emu_threads);
}

/* The command's entry in the table app/cli.c lists. */
const Command CMD_WORKER = {"__worker", "", NULL, NULL, cmd_worker};
