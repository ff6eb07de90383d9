/* kernels/emu/emu_alu.h: the register-to-register instructions (emu_alu.c). */
#ifndef CUDOJO_KERNELS_EMU_ALU_H
#define CUDOJO_KERNELS_EMU_ALU_H

#include "kernels/emu/emu_internal.h"

/* Executes `in` for the lanes in m on a warp's registers r (n_regs × 32)
 * and predicates p. Returns false when `in` is not an ALU instruction. */
bool emu_alu(const Instr *in, uint64_t *r, uint32_t *p, uint32_t m);
/* cvt and the packing cvt (emu_cvt.c): D from A (and B) for the lanes in m. */
void emu_alu_cvt(const Instr *in, uint64_t *D, const uint64_t *A, const uint64_t *B, uint32_t m);
/* cvt.rna.tf32.f32 (emu_mma.c): D from A for the lanes in m. */
void emu_alu_cvt_tf32(uint64_t *D, const uint64_t *A, uint32_t m);
/* Rewrites `in` to a specialised opcode (emu_fast.h) when one applies. */
void emu_specialise(Instr *in);
/* Turns each add/sub whose operand is a single-use mul into an fma over the
 * mul's sources, as ptxas does (emu_contract.c); F_NEGA / F_NEGC on the fma
 * negate the product / the addend. Runs before emu_specialise. */
void emu_contract_mul_add(Instr *code, int n_code, int n_regs);
/* Marks the global loads ptxas issues together: each such OP_LD's target is
 * the pc of its group's first load (emu_contract.c; metrics' memory waits). */
void emu_group_loads(Instr *code, int n_code, int n_regs);
/* Marks the shared loads and stores ptxas merges into one 64/128-bit
 * access: target = the pc of the group's first access, sub2 = its width in
 * bytes, sub = its slot in Warp.vmerged, distinct from every group open at
 * the same time (emu_vector.c; the metrics count a group once). */
enum { EMU_VEC_SLOTS = 64 };
void emu_group_shared_vectors(Instr *code, int n_code);
/* D = fma(A, B, C) for 32 f32 lanes, with the FMA instruction when the CPU has it. */
void emu_fma_loop(uint64_t *D, const uint64_t *A, const uint64_t *B, const uint64_t *C);

#endif
