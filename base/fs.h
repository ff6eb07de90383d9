/* base/fs.h: files and paths (XDG directories, atomic writes, mkdir -p). */
#ifndef CUDOJO_BASE_FS_H
#define CUDOJO_BASE_FS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"

/* Reads a whole file; *out is NUL-terminated (caller frees), *len may be NULL. */
Diag *fs_read_file(const char *path, char **out, size_t *len);
/* Writes via a temporary file + fsync + rename, so a crash leaves old or new, never half. */
Diag *fs_write_file_atomic(const char *path, const void *data, size_t len);
/* mkdir -p with mode 0755. */
Diag *fs_mkdir_p(const char *path);
/* Copies a file (atomically at the destination). */
Diag *fs_copy_file(const char *src, const char *dst);
bool fs_exists(const char *path);
bool fs_is_dir(const char *path);
/* Modification time in nanoseconds, 0 when missing. */
long long fs_mtime_ns(const char *path);
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
