/* app/archive.h: submission archives, written by `cudojo submit` and read by
 * `cudojo grade` and `cudojo progress --merge`, with libarchive.
 *
 * An archive from a student is hostile input. The reader takes tar (plain,
 * gzip, zstd, bzip2, xz) and zip, and unpacks only regular files and folders
 * into a new private folder (0700, files 0600), each created relative to
 * that folder without following a symlink. It refuses, naming the archive
 * and the member: '..' components, absolute paths, names that are not UTF-8
 * or hold control characters, symlinks, hardlinks, devices, FIFOs, sockets,
 * a name given twice, a member over lim->max_member bytes, more than
 * lim->max_members entries, more than lim->max_total bytes unpacked in all
 * (bytes are counted as they come out; header sizes are never trusted), and
 * an unpacked size over lim->max_ratio times the archive's size (a bomb). On
 * any error the folder is removed and nothing is left behind.
 *
 * The layout inside (grade-design.md): cudojo-submission.json (the
 * manifest), progress.json (store_export_json) and <chapter-id>/<file> for
 * every exercise file. */
#ifndef CUDOJO_APP_ARCHIVE_H
#define CUDOJO_APP_ARCHIVE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"

#define SUBMISSION_MANIFEST "cudojo-submission.json"
#define SUBMISSION_PROGRESS "progress.json"
#define SUBMISSION_FORMAT "cudojo-submission"
#define SUBMISSION_FORMAT_VERSION 1
/* The longest student name a manifest may give, in bytes. */
#define SUBMISSION_STUDENT_MAX 64

typedef struct SubmissionLimits {
    size_t max_member;      /* bytes in one file (default 1 MiB) */
    size_t max_total;       /* bytes unpacked in all (default 16 MiB) */
    int max_members;        /* entries, folders included (default 2000) */
    double max_ratio;       /* unpacked bytes / archive bytes, checked past 1 MiB unpacked (default 100) */
} SubmissionLimits;

/* The defaults above. */
SubmissionLimits submission_limits_default(void);

/* Validates and unpacks a submission archive into a new folder under
 * tmp_parent (which must exist); *dir_out is its absolute path (caller frees,
 * caller removes with archive_remove_tree). lim may be NULL for the
 * defaults. On error *dir_out is NULL and nothing was left on disk. */
Diag *submission_unpack(const char *archive_path, const char *tmp_parent, const SubmissionLimits *lim,
                        char **dir_out);
/* Whether the file at path is an archive we read, judged by its first bytes
 * (gzip, zstd, bzip2, xz, zip, tar), not by its name. False for a folder. */
bool submission_is_archive(const char *path);
/* Removes a folder made by submission_unpack and everything in it, never
 * following a symlink out of it. Best effort: returns false when something
 * could not be removed. */
bool archive_remove_tree(const char *dir);

/* Whether name is acceptable as a student's name: 1..SUBMISSION_STUDENT_MAX
 * bytes of printable UTF-8, no '/', not "." or "..". */
bool submission_student_name_ok(const char *name);

/* Writes a tar + zstd archive to a temporary file beside path; closing
 * renames it over path, so nothing half-written is ever left at path. */
typedef struct SubmissionWriter SubmissionWriter;
Diag *submission_writer_open(const char *path, SubmissionWriter **out);
/* Adds a regular file (mode 0644) named name holding data[0..len). */
Diag *submission_writer_add(SubmissionWriter *w, const char *name, const void *data, size_t len,
                            long long mtime_unix);
/* Finishes the archive, syncs it and renames it to its path; on error the
 * temporary file is removed. Frees *w and NULLs it either way. */
Diag *submission_writer_close(SubmissionWriter **w);
/* Drops an unfinished archive (the temporary file is removed). */
void submission_writer_abort(SubmissionWriter **w);

#endif
