/* kernels/emu/emu_mma.h: tensor-core instructions (emu_mma.c) — wmma.load /
 * wmma.store / wmma.mma, mma.sync and cvt.rna.tf32.f32 — for the decoder
 * and the executor (the tf32 cvt's handler is declared in emu_alu.h).
 * Internal to kernels/emu/. */
#ifndef CUDOJO_KERNELS_EMU_MMA_H
#define CUDOJO_KERNELS_EMU_MMA_H

#include "kernels/emu/emu_decode.h"
#include "kernels/emu/emu_worker.h"

/* true when `op` is an instruction emu_mma_decode handles (wmma.*, mma.*,
 * cvt to .tf32). */
bool emu_mma_is_mma(const char *op);
/* Decodes one of them into OP_WMMA_LD / OP_WMMA_ST / OP_MMA / OP_CVT_TF32;
 * anything else of the family is a Diag naming the instruction. */
void emu_mma_decode(Ctx *c, const RawStmt *s);

/* wmma.load / wmma.store for the lanes of m: one checked access per fragment
 * element and lane (through emu_exec_ld / emu_exec_st). */
void emu_exec_wmma_mem(Worker *W, Warp *w, const Instr *in, uint32_t m);
/* wmma.mma / mma.sync: the whole warp's fragments in, D out for the lanes of
 * m. The caller has waited for every live lane (warp-synchronous). */
void emu_exec_mma(Worker *W, Warp *w, const Instr *in, uint32_t m);

#endif
