/* app/cmd_man.c: `cudojo __man` prints the manual page cudojo(1) in troff,
 * made from the command table (app/cli.c), so the page says what --help
 * says; `make install` writes it. `cudojo __complete commands|exercises`
 * prints one word per line for the shell completions (completions/). */
#include <stdio.h>
#include <string.h>

#include "app/cli.h"
#include "app/workspace.h"
#include "base/xalloc.h"

/* The length of the UTF-8 sequence at p and its code point, or 0 when it is
 * not one (a stray byte). */
static int utf8_decode(const unsigned char *p, unsigned *cp) {
    int n = p[0] >= 0xf0 ? 4 : p[0] >= 0xe0 ? 3 : p[0] >= 0xc0 ? 2 : 0;
    if (!n) return 0;
    unsigned v = p[0] & (0x7fu >> n);
    for (int i = 1; i < n; i++) {
        if ((p[i] & 0xc0) != 0x80) return 0;
        v = v << 6 | (p[i] & 0x3fu);
    }
    *cp = v;
    return n;
}

/* Text as troff reads it: backslashes doubled, a leading . or ' escaped,
 * "--" kept as typed, anything beyond ASCII as a \[uXXXX] escape (troff
 * reads its input as Latin-1 and warns at every other byte). */
static void troff_text(const char *s) {
    bool bol = true;
    for (const char *p = s; *p; p++) {
        unsigned cp;
        int n;
        if (bol && (*p == '.' || *p == '\'')) fputs("\\&", stdout);
        if (*p == '\\') fputs("\\e", stdout);
        else if (*p == '-') fputs("\\-", stdout);
        else if ((unsigned char)*p < 0x80) putchar(*p);
        else if ((n = utf8_decode((const unsigned char *)p, &cp)) > 0) printf("\\[u%04X]", cp), p += n - 1;
        else putchar('?');
        bol = *p == '\n';
    }
    if (!bol) putchar('\n');
}

/* A block kept as it is laid out (option lists are aligned with spaces). */
static void troff_block(const char *s) {
    fputs(".nf\n", stdout);
    troff_text(s);
    fputs(".fi\n", stdout);
}

int cmd_man(Cli *cli, int argc, char **argv) {
    (void)cli;
    (void)argc;
    (void)argv;
    printf(".TH CUDOJO 1 \"\" \"cudojo %s\" \"User Commands\"\n", CUDOJO_VERSION);
    printf(".SH NAME\ncudojo \\- learn CUDA programming by doing: lessons, exercises, the GPU or a PTX emulator\n");
    printf(".SH SYNOPSIS\n.B cudojo\n[\\fIOPTIONS\\fR]\n.br\n.B cudojo\n\\fICOMMAND\\fR [\\fIARGS\\fR] "
           "[\\fIOPTIONS\\fR]\n");
    printf(".SH DESCRIPTION\n");
    troff_text("cudojo is a terminal workbench that teaches CUDA programming. Without a command it opens the "
               "workbench: the course map, lessons in English or Chinese, the exercise view that re-runs on every "
               "save, results, hints, the occupancy and timeline screens. Exercises run on the GPU when one works, "
               "else on cudojo's PTX emulator (kernels) and its emulator runtime (whole programs), which report "
               "out-of-bounds accesses, races and uninitialised reads with the learner's file, line, block and "
               "thread.");
    printf(".SH COMMANDS\n");
    for (const Command *const *cp = CLI_COMMANDS; *cp; cp++) {
        const Command *c = *cp;
        if (!c->summary) continue;
        printf(".TP\n.B %s", c->name);
        if (c->args && *c->args) {
            fputs(" ", stdout);
            troff_text(c->args);
        } else {
            putchar('\n');
        }
        troff_text(c->summary);
        if (c->help && *c->help) troff_block(c->help);
    }
    printf(".SH OPTIONS\n");
    troff_block(cli_global_options());
    printf(".SH FILES\n");
    troff_block("DIR/.cudojo/progress.db     a workspace's progress (SQLite)\n"
                "$XDG_DATA_HOME/cudojo       the default workspace\n"
                "$XDG_CACHE_HOME/cudojo      compiled kernels and programs\n"
                "PREFIX/share/cudojo/lessons the course\n"
                "PREFIX/lib/cudojo/emurt     the emulator runtime (libcudart over the PTX emulator)\n"
                "PREFIX/lib/cudojo/inject    the recorder loaded into programs on a GPU\n");
    printf(".SH ENVIRONMENT\n");
    troff_block("CUDA_HOME            the CUDA toolkit (default /usr/local/cuda)\n"
                "CUDOJO_LESSONS       the course to use\n"
                "NO_COLOR             no colours\n"
                "CUDOJO_EMURT_DIR     where the emulator runtime is\n");
    printf(".SH SEE ALSO\nnvcc(1), compute-sanitizer(1)\n");
    return 0;
}

int cmd_complete(Cli *cli, int argc, char **argv) {
    if (argc >= 2 && !strcmp(argv[1], "commands")) {
        for (const Command *const *cp = CLI_COMMANDS; *cp; cp++)
            if ((*cp)->summary) printf("%s\n", (*cp)->name);
        return 0;
    }
    if (argc >= 2 && !strcmp(argv[1], "exercises")) {
        Diag *d = NULL;
        char *root = lessons_find_root(cli->lessons_arg, NULL, &d);
        diag_free(&d);
        if (!root) return 1;
        Course *course = NULL;
        d = course_load(root, &course);
        diag_free(&d);
        free(root);
        if (!course) return 1;
        for (int i = 0; i < course->n_chapters; i++)
            for (int j = 0; j < course->chapters[i].n_exercises; j++) printf("%s\n", course->chapters[i].exercises[j].id);
        course_free(&course);
        return 0;
    }
    fprintf(stderr, "cudojo __complete commands|exercises\n");
    return 2;
}

/* The command's entry in the table app/cli.c lists. */
const Command CMD_MAN = {"__man", "", NULL, NULL, cmd_man};

/* The command's entry in the table app/cli.c lists. */
const Command CMD_COMPLETE = {"__complete", "", NULL, NULL, cmd_complete};
