/* kernels/confine/main.c: cudojo-confine, the trampoline a tool
 * (compute-sanitizer, ncu, nsys) runs in front of a learner's program:
 *   cudojo-confine [--cpu S] [--fsize B] [--as B] [--nproc N] [--no-fork]
 *                  [--no-unix] [--landlock ABI --read DIR... --write DIR...]
 *                  -- PROGRAM [ARGS...]
 * enters the cage the options describe (program_sandbox_enter, the one a
 * program without a tool enters in its forked child) and execs PROGRAM in
 * this process, so the tool goes on watching it. Written by
 * program_confine_args (kernels/program_confine.c), never by hand.
 * Exits 126 without running anything when the cage cannot be entered or
 * the options are wrong, 127 when PROGRAM cannot be run. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kernels/program_internal.h"

int main(int argc, char **argv) {
    ChildLimits l;
    char **r = NULL, **w = NULL;
    char err[512];
    int at = program_confine_parse(argc, argv, &l, &r, &w, err, sizeof err);
    if (at < 0) {
        fprintf(stderr, "cudojo-confine: %s\n", err);
        return 126;
    }
    if (!program_sandbox_enter(&l)) {
        fprintf(stderr, "cudojo-confine: cannot shut the program in (seccomp or Landlock refused): %s\n",
                strerror(errno));
        return 126;
    }
    execv(argv[at], argv + at);
    fprintf(stderr, "cudojo-confine: cannot run %s: %s\n", argv[at], strerror(errno));
    return 127;
}
