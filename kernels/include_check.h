/* kernels/include_check.h: what a source graded from a stranger may
 * #include. The compilers (NVRTC in the worker, nvcc and its host
 * compiler) read any file the instructor can: `#include "/home/t/course/
 * lessons/x/solutions/x.cu"` would grade the solution, and an error
 * quoting `#include "/etc/shadow"` would put its first line in the
 * feedback. So a graded source may name a header only by a relative path
 * without a ".." component (<cuda_runtime.h>, <cooperative_groups/scan.h>,
 * "helpers.h"), and never through a macro; the assembler's .incbin and
 * .include are refused too.
 *
 * The scan is deliberately cruder than a preprocessor and errs on the side
 * of refusing: line splices (also ??/, and a backslash followed by blanks
 * before the newline, which GCC joins too) are joined first; then every '#'
 * (or %: or ??=) followed, past blanks and comments, by include,
 * include_next, import or embed is checked, wherever it stands (a
 * comment, a string, a disabled #if block), since a scanner that skipped
 * comments or strings could be fooled about where they end. */
#ifndef CUDOJO_KERNELS_INCLUDE_CHECK_H
#define CUDOJO_KERNELS_INCLUDE_CHECK_H

#include <stddef.h>

#include "base/diag.h"

/* NULL when every include of `text` (`len` bytes, shown as `display`) is
 * allowed; else an error at the line of the first one that is not, saying
 * why. A NUL byte in `text` is refused (GCC reads on past it). */
Diag *include_check_graded(const char *display, const char *text, size_t len);

#endif
