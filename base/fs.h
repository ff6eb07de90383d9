/* base/fs.h: files and paths (XDG directories, atomic writes, mkdir -p). */
#ifndef CUDOJO_BASE_FS_H
#define CUDOJO_BASE_FS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"

/* The most fs_read_file reads (64 MiB): learners' and authors' files are
 * small, and a path that leads somewhere huge must not take the memory. */
#define FS_READ_MAX ((size_t)64 << 20)

/* Reads a whole regular file of at most FS_READ_MAX bytes; *out is
 * NUL-terminated (caller frees), *len may be NULL. Anything else (a FIFO, a
 * device such as /dev/zero, a directory, a file over the limit) is an error
 * that says what it is, and never blocks. Symlinks are followed. */
Diag *fs_read_file(const char *path, char **out, size_t *len);
/* fs_read_file with its own limit in bytes. */
Diag *fs_read_file_max(const char *path, size_t max, char **out, size_t *len);
/* fs_read_file_max of `rel` (names joined by '/') beneath the folder `dir`,
 * following no link on the way, not even the last name, and no "..": a
 * file or folder swapped for a link after a caller's checks is not read. */
Diag *fs_read_file_beneath(const char *dir, const char *rel, size_t max, char **out, size_t *len);
/* Writes via a temporary file (created exclusively, beside it) + fsync +
 * rename, so a crash leaves old or new, never half. Replaces only a regular
 * file: when path is a symlink, a directory, a FIFO, a device or a socket it
 * writes nothing and says so. */
Diag *fs_write_file_atomic(const char *path, const void *data, size_t len);
/* What kind of thing st_mode is, for messages ("a FIFO", "a directory"...). */
const char *fs_kind_name(unsigned mode);
/* Like fs_write_file_atomic, but never replaces anything: when path already
 * exists it writes nothing and returns a Diag with code "exists". */
Diag *fs_write_file_new(const char *path, const void *data, size_t len);
/* mkdir -p with mode 0755. */
Diag *fs_mkdir_p(const char *path);
/* Copies a file (atomically at the destination). */
Diag *fs_copy_file(const char *src, const char *dst);
/* Copies a file to a path that must not exist yet (fs_write_file_new). */
Diag *fs_copy_file_new(const char *src, const char *dst);
bool fs_exists(const char *path);
bool fs_is_dir(const char *path);
/* Modification time in nanoseconds, 0 when missing. */
long long fs_mtime_ns(const char *path);
/* A least-recently-used cache folder kept in bounds: once its regular files
 * named *suffix number more than keep or hold more than max_bytes, the
 * oldest by mtime are removed down to three quarters of both. With
 * stale_s > 0, leftovers of writers that died (fs_write_file_atomic's
 * "NAME.tmp.PID.N" beside a *suffix name) older than stale_s seconds go too.
 * Another process pruning at the same time only makes some unlinks fail. */
void fs_prune_lru(const char *dir, const char *suffix, size_t keep, uint64_t max_bytes, long stale_s);
/* "a" + "/" + "b", tolerant of trailing slashes; caller frees. */
char *path_join(const char *a, const char *b);
/* Directory part of a path ("." when none); caller frees. */
char *path_dirname(const char *path);
/* Last component; points into `path`. */
const char *path_basename(const char *path);
/* Absolute, normalised path (realpath when it exists, else cwd-joined); caller frees. */
char *path_absolute(const char *path);
/* $XDG_DATA_HOME/cudojo (default ~/.local/share/cudojo); caller frees. */
char *xdg_data_dir(void);
/* $XDG_CACHE_HOME/cudojo (default ~/.cache/cudojo); caller frees. */
char *xdg_cache_dir(void);

#endif
