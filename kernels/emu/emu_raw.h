/* kernels/emu/emu_raw.h: the parser's output, before decoding.
 *
 * Functions are kept as lists of raw statements with names unresolved so
 * the decoder can walk a .func body once per call site (inlining it with
 * fresh registers) and resolve every name in the scope it appears in. */
#ifndef CUDOJO_KERNELS_EMU_RAW_H
#define CUDOJO_KERNELS_EMU_RAW_H

#include <stdint.h>

#include "kernels/emu/emu_internal.h"

typedef struct Arena Arena;
void *arena_alloc(Arena *a, size_t n);
char *arena_strndup(Arena *a, const char *s, size_t n);

enum { RO_NONE, RO_REG, RO_INT, RO_F32, RO_F64, RO_FLT, RO_SYM, RO_MEM, RO_VEC, RO_LIST, RO_SINK };

typedef struct RawOpnd {
    uint8_t kind;
    bool neg;               /* !%p */
    const char *name;       /* register / symbol / memory base (NULL: absolute) */
    const char *name2;      /* second destination after '|' */
    int64_t imm;            /* integer immediate, symbol or memory offset */
    uint64_t bits;          /* float immediate bits */
    double fval;            /* decimal float immediate */
    int nvec;
    struct RawOpnd *vec;    /* RO_VEC / RO_LIST members */
} RawOpnd;

enum { RS_INSTR, RS_LABEL, RS_LOC, RS_REG, RS_VAR, RS_OPEN, RS_CLOSE };

typedef struct RawStmt {
    uint8_t kind;
    bool gneg;
    int ptx_line;
    const char *op;         /* opcode with modifiers ("ld.global.f32"); label / var / reg name */
    const char *guard;      /* predicate name or NULL */
    RawOpnd *ops;
    int nops;
    /* RS_REG: type and count (-1 = a single name); RS_VAR: space, size, align */
    EmuType type;
    int count;
    EmuSpace space;
    size_t size, align;
    bool is_extern;
    /* RS_LOC */
    int file, line, inl_file, inl_line;
} RawStmt;

typedef struct RawParam {
    const char *name;
    EmuType type;
    size_t size, align;
} RawParam;

typedef struct RawFunc {
    const char *name;
    bool is_entry, is_extern, has_body;
    RawParam *params;
    int n_params;
    RawParam *rets;
    int n_rets;
    RawStmt *body;
    int n_body;
    int ptx_line;
    int maxntid;
} RawFunc;

/* type names */
EmuType emu_type_parse(const char *s, size_t n);
int emu_type_bytes(EmuType t);

#endif
