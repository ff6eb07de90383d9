/* base/strlist.h: a growable list of owned strings that is always
 * NULL-ended (an argv for execve, a list of paths): `v` can be handed out
 * as it is, and freed with strlist_free_v. */
#ifndef CUDOJO_BASE_STRLIST_H
#define CUDOJO_BASE_STRLIST_H

typedef struct StrList {
    char **v;       /* NULL until the first add */
    int n, cap;
} StrList;

/* Appends `owned` (taken; NULL adds nothing). */
void strlist_add(StrList *l, char *owned);
/* Frees the strings and the array; l is empty again. */
void strlist_free(StrList *l);
/* Frees a NULL-ended array of owned strings (a StrList's v) and sets *pv to NULL. */
void strlist_free_v(char ***pv);

#endif
