/* kernels/emu/emu.h: the PTX emulator's entry points beyond the Backend.
 *
 * emu_backend_new() (declared in kernels/backend.h) is the way in for the
 * rest of cudojo. This header adds what tests and the fuzz target need:
 * running the PTX parser and decoder alone on arbitrary text. */
#ifndef CUDOJO_KERNELS_EMU_EMU_H
#define CUDOJO_KERNELS_EMU_EMU_H

#include <stddef.h>

#include "base/diag.h"

/* Parses and decodes `len` bytes of PTX (need not be NUL-terminated) the way
 * module_load does, then throws the result away. Returns NULL when every
 * entry decodes, else a Diag naming the PTX line and the instruction. Never
 * crashes or asserts on any input. Caller frees the Diag. */
Diag *emu_parse_check(const char *ptx, size_t len);

#endif
