/* base/bytes.h: text that may be any bytes (paths, kernel printf, compiler
 * logs, t:log lines), carried through JSON and shown on a terminal.
 *
 * JSON strings must be UTF-8 and jansson refuses anything else (json_string
 * returns NULL), so text that a learner, an author or the file system chose
 * goes through bytes_to_json. Valid UTF-8 is kept as it is; each byte that is
 * not part of valid UTF-8 becomes one code point U+EF80..U+EFFF (U+EF00 plus
 * the byte, the "UTF-8b" convention). bytes_from_json maps those code points
 * back, so the worker protocol round-trips any bytes exactly. A real U+EF80..
 * U+EFFF in the input (private use; rare) is stored as its three bytes, each
 * mapped, so it too comes back unchanged. */
#ifndef CUDOJO_BASE_BYTES_H
#define CUDOJO_BASE_BYTES_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/strbuf.h"

/* A JSON string holding s (any bytes up to the NUL); NULL for NULL. New reference. */
json_t *bytes_to_json(const char *s);
/* The same for n bytes that may contain NULs (a NUL is kept as U+0000). */
json_t *bytes_to_json_n(const char *s, size_t n);
/* The UTF-8 text bytes_to_json would store, as a C string: for a JSON object
 * key made of any bytes. NULL for NULL. Caller frees. */
char *bytes_to_utf8(const char *s);
/* The bytes a bytes_to_json string stands for; NULL when j is not a string.
 * Caller frees. */
char *bytes_from_json(const json_t *j);
/* Whether s[0..n) is valid UTF-8 as JSON needs it (no surrogates, no overlongs). */
bool bytes_is_utf8(const char *s, size_t n);
/* Appends s for a terminal: valid printable UTF-8 as it is, newlines and
 * tabs kept, control characters as ^X (ESC as ^[) and each byte that is not
 * UTF-8 as \xHH, so no text of a learner's can move the cursor or change
 * colours. */
void bytes_append_printable(StrBuf *sb, const char *s);
/* bytes_append_printable into a new string; NULL for NULL. Caller frees. */
char *bytes_printable(const char *s);

#endif
