/* app/cli.c: the command table, usage text and output helpers. */
#include "app/cli.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/i18n.h"
#include "base/xalloc.h"

static const char GLOBAL_OPTIONS[] =
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
    "  -h, --help          help for cudojo or a command\n";

const Command CLI_COMMANDS[] = {
    {"init", "[DIR]", "make a workspace: editable copies of every exercise + progress db",
     "Makes DIR (default: the current directory) a workspace: one folder per chapter\n"
     "with the starter of every exercise, and .cudojo/progress.db. Running it again\n"
     "adds exercises that are new in the course and never overwrites your files.\n",
     cmd_init},
    {"list", "", "chapters and exercises with your status",
     "Lists every chapter and exercise with its status (not started, failing,\n"
     "passed) and the next exercise to do.\n",
     cmd_list},
    {"run", "EXERCISE", "compile, run and check one exercise; record the attempt",
     "Compiles your copy of EXERCISE, runs it on the GPU or the emulator, checks\n"
     "the results against the CPU reference and records the attempt.\n"
     "EXERCISE is an exercise id (vector-add) or your file (hello-gpu/vector-add.cu).\n"
     "Options:\n"
     "  --param K=V         override an exercise parameter (e.g. --param n=1000)\n"
     "  --file F            run F instead of your workspace copy (not recorded)\n"
     "  --trace FILE.json   write the run's timeline (copies, kernels, host work per\n"
     "                      stream) as Chrome trace JSON for Perfetto or\n"
     "                      chrome://tracing; a modeled timeline says so. On a GPU\n"
     "                      the times are CUPTI's (CUDOJO_TIMELINE=events: CUDA\n"
     "                      events around each call instead)\n"
     "Exit status: 0 pass, 1 fail, 2 usage or setup error (or the trace could not\n"
     "be written: the attempt is still recorded).\n",
     cmd_run},
    {"watch", "[EXERCISE]", "re-run an exercise on every save of your file",
     "Runs EXERCISE (default: the first one you have not passed) and again every\n"
     "time you save its file; after a pass it moves on to the next exercise.\n"
     "Ctrl-C stops a run in progress; a second Ctrl-C quits.\n"
     "With --json: JSON Lines, one object per line: {\"event\": \"result\", \"exercise\",\n"
     "\"file\", \"result\"} after each run, \"watching\" while it waits for a save,\n"
     "\"next\" when it moves on, \"done\" when nothing is left.\n",
     cmd_watch},
    {"hint", "EXERCISE", "show the next hint (recorded)",
     "Shows the hints you have already seen plus the next one.\n", cmd_hint},
    {"progress", "[--merge FILE...]", "your progress: attempts, passes, best times; merge another workspace's",
     "Shows, per chapter and exercise, attempts, first pass, best kernel time and\n"
     "hints taken. With --json, the whole record (for instructors).\n"
     "Options:\n"
     "  --merge FILE        join another workspace's progress into this one (your lab\n"
     "                      machine's and your laptop's): FILE is its progress.db, its\n"
     "                      folder, a `cudojo progress --json` export or a `cudojo\n"
     "                      submit` archive. Its attempts and hints are added; one\n"
     "                      already here is not added twice, so merging again changes\n"
     "                      nothing. FILE is only read. May be given several times.\n"
     "Exit status: 0 done, 1 when a FILE could not be merged (the others are), 2 for\n"
     "a usage error.\n",
     cmd_progress},
    {"submit", "[-o FILE]", "learners: one archive of your work for your instructor",
     "Writes one archive (tar + zstd) of this workspace for `cudojo grade`: your copy\n"
     "of every exercise file, your progress record, and a manifest with your name,\n"
     "the workspace's id, the course version, the time and each file's SHA-256.\n"
     "Nothing else from your machine goes in. The archive is written to a temporary\n"
     "file and renamed, so a failure leaves nothing half-written.\n"
     "Options:\n"
     "  -o, --output FILE   where to write it (default: NAME-YYYY-MM-DD-HHMM.cudojo.tar.zst\n"
     "                      in the current directory)\n"
     "  --student NAME      your name as the instructor knows it (default:\n"
     "                      $CUDOJO_STUDENT, else your login name); at most 64 bytes,\n"
     "                      no '/'\n"
     "  --json              the manifest and the archive's path as JSON\n"
     "Exit status: 0 written, 2 when it could not be (nothing is left behind).\n",
     cmd_submit},
    {"reset", "EXERCISE", "put the starter back (your file is kept as a backup)",
     "Copies the starter over your file after saving your version under\n"
     ".cudojo/backups/. Your recorded attempts are kept.\n",
     cmd_reset},
    {"doctor", "", "what this machine has: GPU, driver, toolkit, NVRTC, backends",
     "Reports the CUDA toolkit, NVRTC, the driver and GPUs, and which backends work\n"
     "here (and why not).\n",
     cmd_doctor},
    {"exec", "PROGRAM [ARGS...]", "run any nvcc-built CUDA program on the GPU or the emulator runtime",
     "Runs PROGRAM (built with `nvcc -cudart shared`) with ARGS, in the current\n"
     "directory with your environment and stdin. On a GPU it uses NVIDIA's runtime\n"
     "and cudojo records its calls and a CUPTI timeline; without one (or with\n"
     "--backend=emu) it runs on cudojo's emulator runtime, which checks every\n"
     "kernel: out-of-bounds accesses, races, barriers, uninitialised reads, with\n"
     "the program's file:line, block and thread. Its stdout and stderr pass\n"
     "through as it runs; then the findings and a summary (calls per function,\n"
     "kernels with their modeled or measured time, how it ended) go to stderr.\n"
     "cudojo's options go before PROGRAM; everything after it is the program's.\n"
     "Options:\n"
     "  --backend=B         cuda, emu or auto (default: the GPU when one works)\n"
     "  --trace FILE.json   write the program's timeline as Chrome trace JSON\n"
     "                      (Perfetto, chrome://tracing); a modeled one says so\n"
     "  --json              one JSON document on stdout instead: exit status,\n"
     "                      stdout and stderr (captured), calls, kernels,\n"
     "                      timeline, findings\n"
     "  --timeout S         kill the program (and its process group) after S\n"
     "                      seconds (default: no limit)\n"
     "  --devices N         emulated GPUs the program sees (default 1)\n"
     "  --emu-threads=N     host threads the emulator uses (default: all cores)\n"
     "  --profile=ncu       on a GPU, run it under Nsight Compute (ncu) with\n"
     "                      cudojo's metrics (time, occupancy achieved and\n"
     "                      theoretical, its limits, registers) and list its\n"
     "                      launches after its output\n"
     "  --profile=nsys      likewise under Nsight Systems: time per kernel and copy\n"
     "  --sanitizer=TOOL    on a GPU, run it under compute-sanitizer (memcheck,\n"
     "                      racecheck, initcheck, synccheck) and list its errors\n"
     "                      (on the emulator runtime --profile and --sanitizer\n"
     "                      are left out: its own checks stand in)\n"
     "Exit status: the program's own; 128+N when signal N killed it, 124 when\n"
     "the timeout did, 130 when interrupted, 127 when PROGRAM is not found, 126\n"
     "when it cannot be run, 125 when cudojo cannot run it here (e.g. the\n"
     "emulator runtime is not built), 2 for a usage error.\n",
     cmd_exec},
    {"verify", "[LESSON_DIR...]", "authors: every solution passes, every starter and wrong variant fails",
     "For each exercise of the chapters given (default: the whole course), runs the\n"
     "solution (must pass), the starter (must fail) and every wrong variant (must\n"
     "fail). Exit status 0 when everything behaves. On a GPU, a wrong variant that\n"
     "the hardware lets pass (a race, a stray read: undefined behaviour) counts as\n"
     "caught when the emulator catches it, and says so.\n",
     cmd_verify},
    {"class", "report GRADEDB", "instructors: where the class struggles, from a grading database",
     "Reads GRADEDB (the grade.db of `cudojo grade --out DIR`, read only; its\n"
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
     "Exit status: 0 done, 2 when GRADEDB cannot be read or an option is wrong.\n",
     cmd_class},
    {"grade", "SUBMISSIONS... --course DIR --out DIR", "instructors: grade a class against your course",
     "Grades every SUBMISSION (a learner's workspace folder, or an archive made by\n"
     "`cudojo submit`) against the course at --course DIR: each exercise file is\n"
     "compiled and run in a sandboxed worker with the exercise's timeout and its\n"
     "hidden checks (t:grading()), on data seeded apart from the learner's. A\n"
     "submission's own .lua files are never used. Results go to OUT/grade.db as\n"
     "each run ends: run the same command again after a crash or Ctrl-C and it\n"
     "goes on where it stopped; an unchanged file under an unchanged course is\n"
     "never run twice. Then it writes OUT/gradebook.csv, OUT/gradebook.json,\n"
     "OUT/students/NAME/results.json (Gradescope format) and feedback.md, and\n"
     "OUT/similarity.md. Exercises that need a GPU are not graded on the emulator\n"
     "(and not counted).\n"
     "Options:\n"
     "  --course DIR        the instructor's course (its lessons/ folder, or the\n"
     "                      folder holding it)\n"
     "  --out DIR           where the database and the gradebook go (made if needed)\n"
     "  --jobs N, -j N      workers running at once (default: the cores)\n"
     "  --exercises A,B     grade only these exercises (ids)\n"
     "  --shard I/K         grade only the students whose place in the sorted list\n"
     "                      is I modulo K (one task of an array job)\n"
     "  --merge DB...       join shard databases into OUT/grade.db and write the\n"
     "                      gradebook (no runs; idempotent, any order)\n"
     "  --seed N            the grading seed (default: derived from the course)\n"
     "  --slurm             grade as a Slurm array job: writes OUT/slurm/grade.sbatch\n"
     "                      (task I runs this cudojo with --shard I/K into\n"
     "                      OUT/shards/I), submits it with sbatch, shows tasks\n"
     "                      done/total while it waits, then merges the shards into\n"
     "                      OUT as --merge does. A shard that fails is named with\n"
     "                      its log (OUT/slurm/JOB_I.log); the others are merged and\n"
     "                      the exit status is 1. $CUDOJO_SLURM_SELF: a wrapper the\n"
     "                      tasks run instead of this cudojo (to load modules first)\n"
     "  --shards K          with --slurm: the number of array tasks (required)\n"
     "  --partition P       with --slurm: sbatch's --partition\n"
     "  --gres G            with --slurm: sbatch's --gres (gpu:1 for GPU grading)\n"
     "  --time T            with --slurm: each task's time limit (sbatch's --time)\n"
     "  --no-wait           with --slurm: submit, print the --merge command, return\n"
     "                      (--jobs N with --slurm: CPUs and workers per task)\n"
     "  --json              the summary as JSON on stdout (runs_executed, ...)\n"
     "Progress goes to stderr: a bar with runs/s and ETA on a terminal, else a\n"
     "line every 5 s. Exit status: 0 graded, 1 interrupted (resumable), 2 usage\n"
     "or setup error.\n",
     cmd_grade},
    {"__worker", "", NULL, NULL, cmd_worker},
    {"__man", "", NULL, NULL, cmd_man},
    {"__complete", "", NULL, NULL, cmd_complete},
    {NULL, NULL, NULL, NULL, NULL},
};

const char *cli_global_options(void) { return GLOBAL_OPTIONS; }

const Command *cli_find_command(const char *name) {
    for (const Command *c = CLI_COMMANDS; c->name; c++)
        if (!strcmp(c->name, name)) return c;
    return NULL;
}

void cli_print_usage(FILE *out) {
    fprintf(out, "cudojo — learn CUDA by doing\n\n"
                 "Usage: cudojo [OPTIONS]              open the workbench\n"
                 "       cudojo COMMAND [ARGS] [OPTIONS]\n\nCommands:\n");
    for (const Command *c = CLI_COMMANDS; c->name; c++) {
        if (!c->summary) continue;
        char left[64];
        snprintf(left, sizeof left, "%s %s", c->name, c->args);
        fprintf(out, "  %-24s %s\n", left, c->summary);
    }
    fprintf(out, "\n%s\n`cudojo COMMAND --help` tells more about one command.\n", GLOBAL_OPTIONS);
}

int cli_command_help(const char *name) {
    const Command *c = cli_find_command(name);
    if (!c || !c->summary) {
        fprintf(stderr, "cudojo: unknown command '%s'\n", name);
        return 2;
    }
    printf("Usage: cudojo %s %s\n\n%s\n%s", c->name, c->args, c->help, GLOBAL_OPTIONS);
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
