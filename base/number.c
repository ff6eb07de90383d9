/* base/number.c: a whole number as a user writes it (base/number.h). */
#include "base/number.h"

#include <limits.h>

bool number_whole(const char *s, long long lo, long long hi, long long *out) {
    if (!s || !*s) return false;
    long long v = 0;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9') return false;
        int d = *p - '0';
        if (v > (LLONG_MAX - d) / 10) return false;     /* past any range */
        v = v * 10 + d;
    }
    if (v < lo || v > hi) return false;
    *out = v;
    return true;
}
