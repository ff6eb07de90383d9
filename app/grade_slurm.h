/* app/grade_slurm.h: `cudojo grade --slurm`: the class graded as a Slurm
 * array job, one shard of the students per task, each into its own
 * database (OUT/shards/I/grade.db), which cmd_grade then merges with
 * gradedb_merge into OUT/grade.db and the gradebook.
 *
 * grade_slurm_run writes OUT/slurm/grade.sbatch, submits it with
 * `sbatch --parsable` (spawned, never through a shell), and waits for the
 * array, polling squeue and showing tasks done/total. Each task records its
 * exit status in OUT/slurm/task-I.status when its grade command ends, so
 * success is known without Slurm's accounting; a task with no status (killed
 * by its time limit, cancelled, a node lost) or a non-zero one is reported
 * with its log, OUT/slurm/<job>_<I>.log. */
#ifndef CUDOJO_APP_GRADE_SLURM_H
#define CUDOJO_APP_GRADE_SLURM_H

#include <stdbool.h>

#include "base/diag.h"

typedef struct SlurmGradeJob {
    const char *cudojo;         /* what the tasks run: this cudojo's absolute path, or $CUDOJO_SLURM_SELF
                                   (a wrapper that loads the cluster's modules first, then runs cudojo) */
    char *const *subs;          /* the submissions, absolute paths */
    int n_subs;
    const char *course;         /* absolute */
    const char *out;            /* OUT, absolute */
    char *const *task_options;  /* more arguments for each task's `cudojo grade` (--exercises X, --seed N) */
    int n_task_options;
    char *const *global_options;    /* arguments before `grade` (--backend=emu) */
    int n_global_options;
    int shards;                 /* K >= 1 */
    const char *partition;      /* NULL: the cluster's default */
    const char *gres;           /* "gpu:1", NULL for none */
    const char *time_limit;     /* Slurm's --time ("1:00:00"), NULL for the partition's */
    int cpus_per_task;          /* each task's --jobs (0 = 1) */
    bool no_wait;               /* submit, say how to merge later, return */
    double poll_s;              /* seconds between polls (0 = 5; $CUDOJO_SLURM_POLL_S overrides) */
    bool quiet;                 /* no progress lines on stderr */
} SlurmGradeJob;

typedef struct SlurmOutcome {
    char *job_id;               /* as sbatch printed it */
    char *script;               /* OUT/slurm/grade.sbatch */
    char **shard_dbs;           /* the databases of the tasks that succeeded, in shard order */
    int n_done;
    int *failed;                /* shard indices that failed or did not finish */
    int n_failed;
    bool waited;                /* false with no_wait */
} SlurmOutcome;

/* The shell-quoted text of the batch script for j (caller frees). */
char *grade_slurm_script(const SlurmGradeJob *j);
/* Writes the script, submits it and (unless no_wait) waits for every task.
 * A task that failed is not an error here: it is listed in out->failed and
 * the Diag chain holds one warning per failed shard, naming its log; the
 * error cases are a script that cannot be written, sbatch refusing, and
 * squeue failing for good. Caller finishes out with slurm_outcome_fini. */
Diag *grade_slurm_run(const SlurmGradeJob *j, SlurmOutcome *out);
void slurm_outcome_fini(SlurmOutcome *o);

/* Runs argv (argv[0] found on PATH) without a shell; *out and *err get its
 * output (each may be NULL; caller frees), *status its wait status. -1 when
 * it could not be started (errno set). */
int slurm_spawn(char *const argv[], char **out, char **err, int *status);

#endif
