/* app/workspace.h: a learner's workspace — editable copies of every
 * exercise's starter plus .cudojo/progress.db — and where the course lives.
 *
 * Layout: DIR/.cudojo/{workspace.json,progress.db,backups/}, and one folder
 * per chapter named by the chapter's stable id (DIR/hello-gpu/vector-add.cu),
 * so renumbering chapter folders in lessons/ never moves a learner's file. */
#ifndef CUDOJO_APP_WORKSPACE_H
#define CUDOJO_APP_WORKSPACE_H

#include <stdbool.h>

#include "app/cli.h"
#include "base/diag.h"
#include "lua/exercise.h"

typedef struct Workspace {
    char *dir;              /* absolute */
    char *state_dir;        /* dir/.cudojo */
    char *db_path;
    char *lessons_root;     /* absolute path of the course's lessons/ */
    Course *course;
    Diag *course_diags;     /* problems loading some chapters (shown by list/verify) */
    Store *store;
} Workspace;

/* Finds the course: --lessons, $CUDOJO_LESSONS, the workspace's record,
 * next to the binary (bundle), ../lessons of the binary (source tree),
 * /usr/share/cudojo/lessons. Caller frees. */
char *lessons_find_root(const char *arg, const char *recorded, Diag **why);
/* Opens the workspace containing the cwd (or cli->workspace_arg); outside
 * one, the default workspace under $XDG_DATA_HOME/cudojo, made on first use. */
Diag *workspace_open(const Cli *cli, Workspace **out);
/* Makes a workspace in dir (created if needed); an existing one is reopened
 * and only missing starters are added — never overwrites a learner's file. */
Diag *workspace_init(const Cli *cli, const char *dir, Workspace **out, int *n_copied);
void workspace_close(Workspace **ws);
/* The learner's copy of an exercise (absolute). Caller frees. */
char *workspace_exercise_path(const Workspace *ws, const ChapterMeta *ch, const ExerciseMeta *ex);
/* How messages name that file: relative to the cwd when below it. Caller frees. */
char *workspace_display_path(const char *abs_path);
/* Copies starters that are missing in the workspace; *n_copied may be NULL. */
Diag *workspace_copy_missing(Workspace *ws, int *n_copied);
/* workspace_open + workspace_find in one: on failure nothing stays open. */
Diag *workspace_open_exercise(const Cli *cli, const char *id, Workspace **ws, const ChapterMeta **ch,
                              const ExerciseMeta **ex);
/* Looks an exercise up by id; a Diag that lists close matches when unknown. */
Diag *workspace_find(const Workspace *ws, const char *id, const ChapterMeta **ch, const ExerciseMeta **ex);

#endif
