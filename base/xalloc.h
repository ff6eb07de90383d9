/* base/xalloc.h: allocation that never returns NULL.
 *
 * Out of memory is not something a learner can fix, so these abort: first
 * they run the hook the app installed (the TUI uses it to restore the
 * terminal), then print one line and call abort(). */
#ifndef CUDOJO_BASE_XALLOC_H
#define CUDOJO_BASE_XALLOC_H

#include <stdarg.h>
#include <stddef.h>

typedef void (*XallocFailHook)(void);

void xalloc_set_fail_hook(XallocFailHook hook);

void *xmalloc(size_t size);                  /* caller frees */
void *xcalloc(size_t count, size_t size);    /* caller frees */
void *xrealloc(void *ptr, size_t size);      /* caller frees */
char *xstrdup(const char *s);                /* NULL in, NULL out; caller frees */
char *xstrndup(const char *s, size_t n);     /* caller frees */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

/* Frees *p and sets it to NULL. */
#define XFREE(p) do { free(p); (p) = NULL; } while (0)

#endif
