/* kernels/emu/emu_alu.h: the register-to-register instructions (emu_alu.c). */
#ifndef CUDOJO_KERNELS_EMU_ALU_H
#define CUDOJO_KERNELS_EMU_ALU_H

#include "kernels/emu/emu_internal.h"

/* Executes `in` for the lanes in m on a warp's registers r (n_regs × 32)
 * and predicates p. Returns false when `in` is not an ALU instruction. */
bool emu_alu(const Instr *in, uint64_t *r, uint32_t *p, uint32_t m);

#endif
