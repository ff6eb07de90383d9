/* base/xalloc.c: allocation that aborts (after the app's hook) on failure. */
#include "base/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static XallocFailHook fail_hook;

void xalloc_set_fail_hook(XallocFailHook hook) { fail_hook = hook; }

static void out_of_memory(size_t size) {
    if (fail_hook) fail_hook();
    fprintf(stderr, "cudojo: out of memory (asked for %zu bytes)\n", size);
    abort();
}

void *xmalloc(size_t size) {
    void *p = malloc(size ? size : 1);
    if (!p) out_of_memory(size);
    return p;
}

void *xcalloc(size_t count, size_t size) {
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p) out_of_memory(count * size);
    return p;
}

void *xrealloc(void *ptr, size_t size) {
    void *p = realloc(ptr, size ? size : 1);
    if (!p) out_of_memory(size);
    return p;
}

char *xstrdup(const char *s) {
    if (!s) return NULL;
    return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n) {
    size_t len = strnlen(s, n);
    char *p = xmalloc(len + 1);
    memcpy(p, s, len);
    p[len] = '\0';
    return p;
}

char *xvasprintf(const char *fmt, va_list ap) {
    va_list copy;
    va_copy(copy, ap);
    int n = vsnprintf(NULL, 0, fmt, copy);
    va_end(copy);
    if (n < 0) n = 0;
    char *p = xmalloc((size_t)n + 1);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    return p;
}

char *xasprintf(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *p = xvasprintf(fmt, ap);
    va_end(ap);
    return p;
}
