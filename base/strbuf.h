/* base/strbuf.h: a growable, always NUL-terminated byte string. */
#ifndef CUDOJO_BASE_STRBUF_H
#define CUDOJO_BASE_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

typedef struct StrBuf {
    char *data;     /* never NULL after strbuf_init; NUL-terminated */
    size_t len;
    size_t cap;
} StrBuf;

void strbuf_init(StrBuf *sb);
void strbuf_fini(StrBuf *sb);
void strbuf_reset(StrBuf *sb);                       /* len = 0, keeps memory */
void strbuf_append(StrBuf *sb, const char *s);
void strbuf_append_n(StrBuf *sb, const char *s, size_t n);
void strbuf_append_char(StrBuf *sb, char c);
void strbuf_printf(StrBuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void strbuf_vprintf(StrBuf *sb, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/* Hands the string to the caller (caller frees). sb is left empty and owns no
 * memory: strbuf_init it before reuse; strbuf_fini on it is harmless. */
char *strbuf_steal(StrBuf *sb);

/* Levenshtein distance between two short strings, for "did you mean"
 * suggestions; strings over 64 bytes count as far apart (returns 99). */
int str_edit_distance(const char *a, const char *b);

/* The first `len` bytes of s, or, when len > max, at most `max` of them
 * (never half a UTF-8 character) followed by "… (N bytes cut)": how text a
 * script or a learner chose is kept bounded. Caller frees. */
char *str_cut(const char *s, size_t len, size_t max);

#endif
