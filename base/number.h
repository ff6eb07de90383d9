/* base/number.h: a whole number as a user writes it in an environment
 * variable or an option (CUDOJO_HOST_PIECE_MB=32, --jobs 8): decimal
 * digits only, no sign, space or suffix, within a range the caller names.
 * One reading for every such knob, so that " 8", "+8" and "8k" mean the
 * same (nothing) everywhere. */
#ifndef CUDOJO_BASE_NUMBER_H
#define CUDOJO_BASE_NUMBER_H

#include <stdbool.h>

/* s as a whole number from lo to hi (0 <= lo <= hi): true and *out; false
 * (*out untouched) for NULL, "", anything but digits, or a number out of
 * the range (however many digits). */
bool number_whole(const char *s, long long lo, long long hi, long long *out);

#endif
