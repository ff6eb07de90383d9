/* kernels/emu/emu_decode.h: what the parts of the decoder share.
 *
 * emu_decode.c walks function bodies (and inlines calls); emu_decode_instr.c
 * turns one PTX instruction into Instr records, emu_mma.c the tensor-core
 * ones; emu_decode_opnd.c owns the context's services (registers, names,
 * constants, operands) that all three use. Calls go one way: decode →
 * decode_instr / mma → decode_opnd. Internal to kernels/emu/. */
#ifndef CUDOJO_KERNELS_EMU_DECODE_H
#define CUDOJO_KERNELS_EMU_DECODE_H

#include "kernels/emu/emu_raw.h"

enum { N_REG, N_PRED, N_VAR_SHARED, N_VAR_LOCAL, N_KPARAM, N_DYNSHARED };

typedef struct Name {
    const char *name;
    int kind;
    int count;              /* -1: exact name; else a %r<N> range */
    int base;
    uint8_t bits;
    int64_t val;            /* offset for variables/params */
} Name;

typedef struct Label { const char *name; int frame; int pc; } Label;
typedef struct Fixup { int instr; const char *name; int frame; int ptx_line; } Fixup;

typedef struct Ctx {
    Program *p;
    Kernel *k;
    Instr *code;
    int n_code, cap_code;
    Name *names;
    int n_names, cap_names;
    int frame_base;         /* names visible: [frame_base, n_names) */
    int frame_id, next_frame;
    Label *labels;
    int n_labels, cap_labels;
    Fixup *fix;
    int n_fix, cap_fix;
    uint8_t *reg_bits;
    int cap_regs;
    ConstReg *consts;
    int n_consts, cap_consts;
    SpecialReg *specials;
    int n_specials, cap_specials;
    int line;               /* current learner line */
    bool toolkit;           /* the current .loc is in a toolkit header (emu_ptx_toolkit_file) */
    int ptx_line;
    const char *op;         /* current opcode text, for messages */
    size_t local_size;
    size_t shared_size;
    SharedVar *svars;
    int n_svars, cap_svars;
    const char *stack[16];
    int depth;
    int sink;
    int cc;                 /* predicate index holding the carry flag (CC.CF); -1 until used */
    int32_t *xops;          /* register lists of tensor-core instructions (Kernel.xops) */
    int n_xops, cap_xops;
    Diag *err;
} Ctx;

#define GROW(arr, n, cap) do { if ((n) == (cap)) { (cap) = (cap) ? (cap) * 2 : 64; \
    (arr) = xrealloc((arr), sizeof *(arr) * (size_t)(cap)); } } while (0)

/* Records a decode error at the current PTX line (first one wins). */
void emu_decode_fail(Ctx *c, const char *fmt, const char *arg);
/* A fresh register of `bits` bits (a temporary no PTX name reaches). */
int emu_decode_new_reg(Ctx *c, int bits);
/* A register pre-filled with `v` / with special register `kind`. */
int emu_decode_const(Ctx *c, uint64_t v);
int emu_decode_special(Ctx *c, int kind);
/* A name in the current frame (exact, or %r<N> range with *index set). */
Name *emu_decode_lookup(Ctx *c, const char *name, int *index);
/* The address of a symbol: offset or host address, or a register (dynamic shared). */
bool emu_decode_symbol(Ctx *c, const char *name, int64_t *val, int *reg, EmuSpace *space);
/* Operands: a source register (immediates become constants), predicates, a destination. */
int emu_decode_src(Ctx *c, const RawOpnd *o, EmuType t);
int emu_decode_pred(Ctx *c, const RawOpnd *o, bool *neg);
int emu_decode_pred_name(Ctx *c, const char *name);
bool emu_decode_is_pred(Ctx *c, const RawOpnd *o);
int emu_decode_dst(Ctx *c, const RawOpnd *o, int *bits);
/* A memory operand [reg+off] / [sym+off] → base register (-1 for a kernel
 * parameter), offset, and the space of a symbol (SP_GENERIC if none). */
bool emu_decode_mem(Ctx *c, const RawOpnd *o, int *reg, int64_t *off, EmuSpace *sym_space);
/* The statement's guard predicate (@p / @!p) onto `in`. */
void emu_decode_guard(Ctx *c, Instr *in, const RawStmt *s);
/* Appends an instruction at the current line. */
Instr *emu_decode_emit(Ctx *c, int op);
/* Walks a .func body inline (arg/ret offsets bind its parameters), or the entry (NULL) (emu_decode.c). */
void emu_decode_walk(Ctx *c, RawFunc *f, const int64_t *arg_offs, const int64_t *ret_offs);
/* Decodes the sm_90 asynchronous-copy family (mbarrier, cp.async.bulk,
 * elect.sync, griddepcontrol); false when `s` is none of them
 * (emu_decode_async.c). */
bool emu_decode_async(Ctx *c, const RawStmt *s);
/* Decodes one instruction statement other than `call` (emu_decode_instr.c). */
void emu_decode_instr(Ctx *c, const RawStmt *s);

#endif
