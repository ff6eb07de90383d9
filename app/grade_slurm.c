/* app/grade_slurm.c: grading a class as a Slurm array job (see
 * grade_slurm.h): the batch script, sbatch, waiting on squeue, and which
 * shards finished. */
#include "app/grade_slurm.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/strbuf.h"
#include "base/xalloc.h"

extern char **environ;

/* squeue failing this many polls in a row (the controller gone) ends the wait. */
#define SLURM_POLL_FAILURES_MAX 10

/* ---- running a program ---- */

int slurm_spawn(char *const argv[], char **out, char **err, int *status) {
    int po[2], pe[2];
    if (out) *out = NULL;
    if (err) *err = NULL;
    if (pipe2(po, O_CLOEXEC) != 0) return -1;
    if (pipe2(pe, O_CLOEXEC) != 0) {
        close(po[0]);
        close(po[1]);
        return -1;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, po[1], 1);
    posix_spawn_file_actions_adddup2(&fa, pe[1], 2);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(po[1]);
    close(pe[1]);
    if (rc != 0) {
        close(po[0]);
        close(pe[0]);
        errno = rc;
        return -1;
    }
    StrBuf sb[2];
    strbuf_init(&sb[0]);
    strbuf_init(&sb[1]);
    struct pollfd pfd[2] = {{.fd = po[0], .events = POLLIN}, {.fd = pe[0], .events = POLLIN}};
    int open_fds = 2;
    while (open_fds) {
        if (poll(pfd, 2, -1) < 0) {
            if (errno == EINTR) continue;
            break;
        }
        for (int i = 0; i < 2; i++) {
            if (pfd[i].fd < 0 || !(pfd[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            char buf[4096];
            ssize_t n = read(pfd[i].fd, buf, sizeof buf);
            if (n > 0 && sb[i].len < ((size_t)1 << 20)) strbuf_append_n(&sb[i], buf, (size_t)n);
            if (n == 0 || (n < 0 && errno != EINTR)) {
                close(pfd[i].fd);
                pfd[i].fd = -1;
                open_fds--;
            }
        }
    }
    for (int i = 0; i < 2; i++)
        if (pfd[i].fd >= 0) close(pfd[i].fd);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
    if (status) *status = st;
    if (out) *out = strbuf_steal(&sb[0]);
    if (err) *err = strbuf_steal(&sb[1]);
    strbuf_fini(&sb[0]);
    strbuf_fini(&sb[1]);
    return 0;
}

/* ---- the script ---- */

/* s in single quotes for the shell ('\'' for each quote). */
static void shell_quote(StrBuf *sb, const char *s) {
    strbuf_append_char(sb, '\'');
    for (; *s; s++) {
        if (*s == '\'') strbuf_append(sb, "'\\''");
        else strbuf_append_char(sb, *s);
    }
    strbuf_append_char(sb, '\'');
}

/* The words of an #SBATCH line may not hold what Slurm's parser or its
 * filename patterns would read differently. */
static bool slurm_word_ok(const char *s) {
    for (; *s; s++)
        if (*s <= ' ' || strchr("%\"'\\#", *s)) return false;
    return true;
}

char *grade_slurm_script(const SlurmGradeJob *j) {
    StrBuf sb;
    strbuf_init(&sb);
    strbuf_printf(&sb,
                  "#!/bin/bash\n"
                  "# Written by `cudojo grade --slurm`: task I of this array grades shard I of %d of the\n"
                  "# class into %s/shards/I/grade.db and records its exit status in\n"
                  "# %s/slurm/task-I.status; cudojo then merges the shards into %s.\n",
                  j->shards, j->out, j->out, j->out);
    strbuf_printf(&sb, "#SBATCH --job-name=cudojo-grade\n#SBATCH --array=0-%d\n", j->shards - 1);
    strbuf_printf(&sb, "#SBATCH --output=%s/slurm/%%A_%%a.log\n", j->out);
    strbuf_printf(&sb, "#SBATCH --chdir=%s\n", j->out);
    strbuf_printf(&sb, "#SBATCH --cpus-per-task=%d\n", j->cpus_per_task > 0 ? j->cpus_per_task : 1);
    if (j->partition) strbuf_printf(&sb, "#SBATCH --partition=%s\n", j->partition);
    if (j->gres) strbuf_printf(&sb, "#SBATCH --gres=%s\n", j->gres);
    if (j->time_limit) strbuf_printf(&sb, "#SBATCH --time=%s\n", j->time_limit);
    strbuf_append(&sb, "\ni=${SLURM_ARRAY_TASK_ID:?this script runs as a Slurm array task}\n");
    strbuf_append(&sb, "status_file=");
    char *slurm_dir = path_join(j->out, "slurm");
    shell_quote(&sb, slurm_dir);
    free(slurm_dir);
    strbuf_append(&sb, "/task-$i.status\nrm -f \"$status_file\"\n");
    shell_quote(&sb, j->cudojo);
    for (int i = 0; i < j->n_global_options; i++) {
        strbuf_append_char(&sb, ' ');
        shell_quote(&sb, j->global_options[i]);
    }
    strbuf_append(&sb, " grade \\\n");
    for (int i = 0; i < j->n_subs; i++) {
        strbuf_append(&sb, "    ");
        shell_quote(&sb, j->subs[i]);
        strbuf_append(&sb, " \\\n");
    }
    strbuf_append(&sb, "    --course ");
    shell_quote(&sb, j->course);
    strbuf_append(&sb, " --out ");
    char *shards = path_join(j->out, "shards");
    shell_quote(&sb, shards);
    free(shards);
    strbuf_printf(&sb, "/\"$i\" --shard \"$i/%d\" --jobs \"${SLURM_CPUS_PER_TASK:-1}\"", j->shards);
    for (int i = 0; i < j->n_task_options; i++) {
        strbuf_append_char(&sb, ' ');
        shell_quote(&sb, j->task_options[i]);
    }
    strbuf_append(&sb, "\nstatus=$?\n"
                       "echo \"$status\" > \"$status_file.tmp\" && mv \"$status_file.tmp\" \"$status_file\"\n"
                       "exit \"$status\"\n");
    return strbuf_steal(&sb);
}

/* ---- submitting and waiting ---- */

static char *trim(char *s) {
    while (*s == ' ' || *s == '\n' || *s == '\t') s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\n' || s[n - 1] == '\t' || s[n - 1] == '\r')) s[--n] = 0;
    return s;
}

/* Runs sbatch --parsable; *job_id is the array's id (caller frees). */
static Diag *slurm_submit(const char *script, char **job_id) {
    char *argv[] = {"sbatch", "--parsable", (char *)script, NULL};
    char *out = NULL, *err = NULL;
    int st = 0;
    Diag *d = NULL;
    if (slurm_spawn(argv, &out, &err, &st) != 0)
        d = diag_new(DIAG_ERROR, "slurm", script, 0, 0,
                     "cannot run sbatch (%s): is Slurm installed here and sbatch on PATH?", strerror(errno));
    else if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        d = diag_new(DIAG_ERROR, "slurm", script, 0, 0, "sbatch refused the grading job: %s", trim(err));
    else {
        /* --parsable prints "ID" or "ID;cluster". */
        char *id = trim(out);
        id[strcspn(id, ";\n")] = 0;
        if (!*id || strspn(id, "0123456789") != strlen(id))
            d = diag_new(DIAG_ERROR, "slurm", script, 0, 0, "sbatch printed no job id ('%s')", id);
        else *job_id = xstrdup(id);
    }
    free(out);
    free(err);
    return d;
}

static char *task_status_path(const SlurmGradeJob *j, int i) { return xasprintf("%s/slurm/task-%d.status", j->out, i); }

/* The task's exit status from its status file; -1 when it has none yet. */
static int task_status(const SlurmGradeJob *j, int i) {
    char *p = task_status_path(j, i);
    char *text = NULL;
    int v = -1;
    Diag *d = fs_read_file_max(p, 64, &text, NULL);
    if (!d) {
        char *end;
        long n = strtol(text, &end, 10);
        v = end != text && n >= 0 ? (int)n : 255;
    }
    diag_free(&d);
    free(text);
    free(p);
    return v;
}

static int tasks_finished(const SlurmGradeJob *j) {
    int n = 0;
    for (int i = 0; i < j->shards; i++) n += task_status(j, i) >= 0;
    return n;
}

static void sleep_s(double s) {
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {}
}

/* Waits until every task has a status or the job has left the queue. */
static Diag *slurm_wait(const SlurmGradeJob *j, const char *job_id) {
    double poll_s = j->poll_s > 0 ? j->poll_s : 5.0;
    const char *env = getenv("CUDOJO_SLURM_POLL_S");
    if (env && atof(env) > 0) poll_s = atof(env);
    char *argv[] = {"squeue", "-h", "-r", "-j", (char *)job_id, "-o", "%T", NULL};
    int failures = 0;
    char last[128] = "";
    for (;;) {
        int done = tasks_finished(j);
        if (done == j->shards) return NULL;
        char *out = NULL, *err = NULL;
        int st = 0;
        int rc = slurm_spawn(argv, &out, &err, &st);
        bool ok = rc == 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
        int running = 0, pending = 0, lines = 0;
        if (ok) {
            for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
                lines++;
                if (!strncmp(line, "RUNNING", 7) || !strncmp(line, "COMPLETING", 10)) running++;
                else if (!strncmp(line, "PENDING", 7)) pending++;
            }
        }
        bool gone = (ok && lines == 0) || (rc == 0 && err && strstr(err, "Invalid job id"));
        if (!ok && !gone && ++failures >= SLURM_POLL_FAILURES_MAX) {
            Diag *d = diag_error("slurm", "squeue failed %d times in a row while waiting for job %s (%s); the job "
                                          "may still be running",
                                 failures, job_id, err ? trim(err) : strerror(errno));
            free(out);
            free(err);
            return d;
        }
        if (ok) failures = 0;
        free(out);
        free(err);
        if (gone) {
            /* Out of the queue: give a shared file system a moment to show the last status files. */
            for (int tries = 0; tries < 3 && tasks_finished(j) < j->shards; tries++) sleep_s(1.0);
            return NULL;
        }
        char now[128];
        snprintf(now, sizeof now, "slurm job %s: %d/%d tasks done, %d running, %d pending", job_id, done, j->shards,
                 running, pending);
        if (!j->quiet && strcmp(now, last)) {
            fprintf(stderr, "%s\n", now);
            snprintf(last, sizeof last, "%s", now);
        }
        sleep_s(poll_s);
    }
}

/* Makes OUT/slurm and OUT/shards, and forgets the statuses of an earlier run. */
static Diag *slurm_prepare(const SlurmGradeJob *j) {
    if (!slurm_word_ok(j->out))
        return diag_new(DIAG_ERROR, "usage", j->out, 0, 0,
                        "--slurm needs an --out folder whose path has no spaces, quotes, '%%', '#' or '\\' (Slurm's "
                        "#SBATCH lines and log names cannot hold them)");
    const char *words[] = {j->partition, j->gres, j->time_limit};
    const char *names[] = {"--partition", "--gres", "--time"};
    for (int i = 0; i < 3; i++)
        if (words[i] && (!*words[i] || !slurm_word_ok(words[i])))
            return diag_error("usage", "%s '%s': one word without spaces or quotes", names[i], words[i]);
    char *dir = path_join(j->out, "slurm");
    Diag *d = fs_mkdir_p(dir);
    free(dir);
    dir = path_join(j->out, "shards");
    if (!d) d = fs_mkdir_p(dir);
    free(dir);
    for (int i = 0; i < j->shards && !d; i++) {
        char *p = task_status_path(j, i);
        unlink(p);
        free(p);
    }
    return d;
}

Diag *grade_slurm_run(const SlurmGradeJob *j, SlurmOutcome *o) {
    memset(o, 0, sizeof *o);
    if (j->shards < 1) return diag_error("usage", "--shards must be at least 1");
    Diag *d = slurm_prepare(j);
    if (d) return d;
    o->script = path_join(j->out, "slurm/grade.sbatch");
    char *text = grade_slurm_script(j);
    d = fs_write_file_atomic(o->script, text, strlen(text));
    free(text);
    if (!d) chmod(o->script, 0755);
    if (!d) d = slurm_submit(o->script, &o->job_id);
    if (d) return d;
    if (!j->quiet)
        fprintf(stderr, "submitted slurm job %s: %d shard%s (script %s, logs %s/slurm/%s_I.log)\n", o->job_id,
                j->shards, j->shards == 1 ? "" : "s", o->script, j->out, o->job_id);
    if (j->no_wait) return NULL;
    d = slurm_wait(j, o->job_id);
    if (d) return d;
    o->waited = true;
    o->shard_dbs = xcalloc((size_t)j->shards + 1, sizeof *o->shard_dbs);
    o->failed = xcalloc((size_t)j->shards + 1, sizeof *o->failed);
    for (int i = 0; i < j->shards; i++) {
        int st = task_status(j, i);
        char *db = xasprintf("%s/shards/%d/grade.db", j->out, i);
        if (st == 0 && fs_exists(db)) {
            o->shard_dbs[o->n_done++] = db;
            continue;
        }
        free(db);
        o->failed[o->n_failed++] = i;
        char *log = xasprintf("%s/slurm/%s_%d.log", j->out, o->job_id, i);
        if (st < 0)
            diag_append(&d, diag_new(DIAG_WARNING, "slurm", log, 0, 0,
                                     "shard %d of %d did not finish (cancelled, out of time or its node lost; no exit "
                                     "status): its students are not in the gradebook; see its log",
                                     i, j->shards));
        else
            diag_append(&d, diag_new(DIAG_WARNING, "slurm", log, 0, 0,
                                     "shard %d of %d failed (exit status %d): its students are not in the gradebook; "
                                     "see its log",
                                     i, j->shards, st));
        free(log);
    }
    return d;
}

void slurm_outcome_fini(SlurmOutcome *o) {
    for (int i = 0; i < o->n_done; i++) free(o->shard_dbs[i]);
    free(o->shard_dbs);
    free(o->failed);
    free(o->job_id);
    free(o->script);
    memset(o, 0, sizeof *o);
}
