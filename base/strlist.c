/* base/strlist.c: see strlist.h. */
#include "base/strlist.h"

#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

void strlist_add(StrList *l, char *owned) {
    if (!owned) return;
    if (l->n + 1 >= l->cap) {
        l->cap = l->cap ? l->cap * 2 : 32;
        l->v = xrealloc(l->v, (size_t)l->cap * sizeof *l->v);
    }
    l->v[l->n++] = owned;
    l->v[l->n] = NULL;
}

void strlist_free(StrList *l) {
    strlist_free_v(&l->v);
    memset(l, 0, sizeof *l);
}

void strlist_free_v(char ***pv) {
    for (char **p = *pv; p && *p; p++) free(*p);
    free(*pv);
    *pv = NULL;
}
