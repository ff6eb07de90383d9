/* kernels/emu/emu_internal.h: data shared by the emulator's files.
 *
 * Pipeline: emu_parse.c turns PTX text into a Program of raw statements per
 * function; emu_decode.c lowers one .entry (inlining .func calls) into a
 * Kernel: a flat array of Instr with dense register indices, immediates and
 * special registers turned into pre-filled registers, symbols resolved.
 * emu_exec.c runs one warp's instructions (32 lanes, structure of arrays);
 * emu_run.c schedules warps and blocks and collects findings and metrics;
 * emu_backend.c is the Backend. */
#ifndef CUDOJO_KERNELS_EMU_INTERNAL_H
#define CUDOJO_KERNELS_EMU_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "kernels/backend.h"

/* Invariants of the hot paths (register and operand indices, pc, masks,
 * shadow indices): checked when built with CUDOJO_DEBUG (make san, or
 * make DEBUG=1), compiled out of release builds so their speed is
 * unchanged. The expression is never evaluated in release builds. */
#ifdef CUDOJO_DEBUG
#include <assert.h>
#define EMU_ASSERT(x) assert(x)
#else
#define EMU_ASSERT(x) ((void)sizeof(!(x)))
#endif

#define EMU_FULL 0xffffffffu
/* Generic-address windows for shared and local memory (global addresses are
 * host addresses, which never have these top bits set). */
#define EMU_SHARED_WIN (1ull << 56)
#define EMU_LOCAL_WIN (2ull << 56)
#define EMU_WIN_MASK (0xffull << 56)

/* ---- types, spaces, modifiers -------------------------------------------- */
typedef enum EmuType {
    T_NONE = 0, T_B8, T_B16, T_B32, T_B64, T_B128, T_U8, T_U16, T_U32, T_U64,
    T_S8, T_S16, T_S32, T_S64, T_F16, T_F16X2, T_BF16, T_BF16X2, T_F32, T_F64, T_PRED,
} EmuType;

typedef enum EmuSpace { SP_GENERIC = 0, SP_GLOBAL, SP_SHARED, SP_LOCAL, SP_PARAM, SP_CONST } EmuSpace;

enum { RND_DEF = 0, RND_RN, RND_RZ, RND_RM, RND_RP, RND_RNI, RND_RZI, RND_RMI, RND_RPI, RND_RNA };

enum {
    F_FTZ = 1 << 0, F_SAT = 1 << 1, F_APPROX = 1 << 2, F_HI = 1 << 3, F_WIDE = 1 << 4,
    F_NEGA = 1 << 5, F_NEGB = 1 << 6, F_NEGC = 1 << 7, F_PRED2 = 1 << 8, F_ATOMIC = 1 << 9,
    F_FULL = 1 << 10, F_CC = 1 << 11, F_USECC = 1 << 12, F_SHFL_L = 1 << 13, F_CLAMP = 1 << 14,
    F_STRONG = 1 << 15,     /* ld.volatile / .acquire / .relaxed: a load meant to see other blocks' stores */
    F_NAN = F_CLAMP,        /* min/max.NaN (sm_80): a NaN operand gives NaN (shares shf's .clamp bit) */
    F_STRONG_ST = F_NEGA,   /* st.volatile / .relaxed / .release: a store other blocks may read while it
                             * happens, no race between blocks with a strong load (shares neg-a's bit) */
    F_RELEASE_ST = F_NEGB,  /* st.release: orders the block's earlier writes before it, as a fence does
                             * (shares neg-b's bit) */
};

typedef enum EmuOp {
    OP_NOP = 0,
    /* integer / bit / generic ALU (type in Instr.type) */
    OP_MOV, OP_ADD, OP_SUB, OP_MUL, OP_MAD, OP_DIV, OP_REM, OP_MIN, OP_MAX, OP_NEG, OP_ABS,
    OP_AND, OP_OR, OP_XOR, OP_NOT, OP_CNOT, OP_SHL, OP_SHR, OP_POPC, OP_CLZ, OP_BREV, OP_BFIND,
    OP_BFE, OP_BFI, OP_PRMT, OP_SHF, OP_SAD, OP_MUL24, OP_MAD24, OP_DP4A, OP_DP2A,
    OP_BMSK, OP_LOP3,
    /* floating point */
    OP_FMA, OP_SQRT, OP_RSQRT, OP_RCP, OP_EX2, OP_LG2, OP_SIN, OP_COS, OP_TANH, OP_COPYSIGN,
    OP_TESTP,
    /* compare / select / convert */
    OP_SETP, OP_SET, OP_SELP, OP_SLCT, OP_CVT, OP_CVTA, OP_CVTA_TO, OP_CVT_PACK,
    OP_MOV_PACK, OP_MOV_UNPACK, OP_MOV_PRED_PACK,
    /* predicates */
    OP_PAND, OP_POR, OP_PXOR, OP_PNOT, OP_PMOV,
    /* memory */
    OP_LD, OP_ST, OP_LD_PARAM, OP_ATOM, OP_RED, OP_PREFETCH,
    /* control */
    OP_BRA, OP_BRX, OP_RET, OP_EXIT, OP_TRAP, OP_BAR, OP_BAR_WARP, OP_MEMBAR,
    OP_SHFL, OP_VOTE, OP_ACTIVEMASK, OP_MATCH, OP_REDUX, OP_CLOCK,
    OP_CALL_PRINTF, OP_CALL_ASSERT, OP_CALL_MALLOC, OP_CALL_FREE, OP_BRKPT, OP_CPASYNC,
    /* sm_90 asynchronous copies and their barriers (emu_async.c) */
    OP_ELECT, OP_MBAR, OP_BULK,
    /* tensor cores (emu_mma.c): fragment registers are listed in Kernel.xops from Instr.target */
    OP_WMMA_LD, OP_WMMA_ST, OP_MMA, OP_CVT_TF32,
    /* specialised forms of the hottest instructions (emu_fast.h) */
    OPF_FIRST, OPF_MOV32 = OPF_FIRST, OPF_MOV64, OPF_ADD32, OPF_SUB32, OPF_MUL32, OPF_MAD32,
    OPF_ADD64, OPF_SUB64, OPF_MULWS32, OPF_MULWU32, OPF_SHL32, OPF_SHRU32, OPF_SHRS32, OPF_AND32,
    OPF_OR32, OPF_XOR32, OPF_FADD, OPF_FSUB, OPF_FMUL, OPF_FFMA, OPF_SETPS32, OPF_SETPU32, OPF_SETPF32,
    OPF_SELP, OPF_SHL32I, OPF_SHRU32I, OPF_SHRS32I, OPF_LAST = OPF_SHRS32I,
    OP_COUNT_
} EmuOp;

/* sub-operations */
enum { CMP_EQ, CMP_NE, CMP_LT, CMP_LE, CMP_GT, CMP_GE, CMP_LO, CMP_LS, CMP_HI, CMP_HS,
       CMP_EQU, CMP_NEU, CMP_LTU, CMP_LEU, CMP_GTU, CMP_GEU, CMP_NUM, CMP_NAN };
enum { BOP_NONE, BOP_AND, BOP_OR, BOP_XOR };
enum { AOP_ADD, AOP_MIN, AOP_MAX, AOP_INC, AOP_DEC, AOP_EXCH, AOP_CAS, AOP_AND, AOP_OR, AOP_XOR };
enum { SHFL_UP, SHFL_DOWN, SHFL_BFLY, SHFL_IDX };
enum { VOTE_ALL, VOTE_ANY, VOTE_UNI, VOTE_BALLOT };
enum { BAR_SYNC, BAR_ARRIVE, BAR_RED_POPC, BAR_RED_AND, BAR_RED_OR };
/* mbarrier operations (Instr.sub) and their modifiers (Instr.sub2) */
enum { MB_INIT, MB_INVAL, MB_EXPECT_TX, MB_COMPLETE_TX, MB_ARRIVE, MB_TEST_WAIT, MB_TRY_WAIT, MB_PENDING };
enum { MBF_DROP = 1, MBF_NOCOMPLETE = 2, MBF_EXPECT_TX = 4, MBF_PARITY = 8 };
/* cp.async.bulk directions (Instr.sub); Instr.sub2 BULKF_* */
enum { BULK_G2S, BULK_S2S, BULK_S2G };
enum { BULKF_MULTICAST = 1, BULKF_BYTEMASK = 2 };

/* One decoded instruction. Register operands index the warp's 64-bit
 * register file (immediates and special registers are pre-filled registers);
 * predicate operands index the predicate masks. */
typedef struct Instr {
    uint16_t op;
    uint8_t type, type2;    /* type2: cvt source type, mul.wide source type */
    uint8_t space, vec, rnd, sub, sub2;
    uint8_t dbits;          /* width of the destination register (for extension) */
    uint8_t size;           /* access size in bytes for ld/st/atom (per element) */
    uint8_t gneg : 1;       /* guard negated */
    uint8_t toolkit : 1;    /* from a toolkit header's line (CUB, Thrust): its by-design reads of unwritten shared memory are not reported */
    uint16_t flags;
    int16_t guard;          /* predicate index or -1 */
    int32_t d[4];           /* destinations (pred index for setp/vote/.. ) */
    int32_t a[4];           /* sources (store values; vectors) */
    int32_t b, c, e, f;     /* more sources */
    int64_t imm;            /* address offset / constant */
    int32_t target;         /* branch target */
    int32_t line;           /* learner's source line; 0 unknown */
    int32_t ptx_line;
    uint32_t src_bits;      /* bit (r & 31) of each register in a[], b, c, e, f and a store's d[] (metrics: emu_exec.c's memory waits) */
} Instr;

typedef enum SpecialKind {
    SR_TID_X, SR_TID_Y, SR_TID_Z, SR_NTID_X, SR_NTID_Y, SR_NTID_Z, SR_CTAID_X, SR_CTAID_Y,
    SR_CTAID_Z, SR_NCTAID_X, SR_NCTAID_Y, SR_NCTAID_Z, SR_LANEID, SR_WARPID, SR_NWARPID,
    SR_LANEMASK_EQ, SR_LANEMASK_LT, SR_LANEMASK_LE, SR_LANEMASK_GT, SR_LANEMASK_GE, SR_SMID,
    SR_NSMID, SR_GRIDID, SR_DYN_SMEM, SR_TOTAL_SMEM, SR_DYNBASE, SR_COUNT_
} SpecialKind;

typedef struct ConstReg { int32_t reg; uint64_t value; } ConstReg;
typedef struct SpecialReg { int32_t reg; int kind; } SpecialReg;

/* A shared-memory variable, for messages ("s[258]" rather than "byte 1032"). */
typedef struct SharedVar {
    char name[48];          /* demangled: _ZZ9block_sumE1s → s */
    size_t off, size;       /* size 0 = dynamic (extern __shared__): the launch's bytes */
    size_t elem;            /* element size guessed from the alignment (1..8) */
} SharedVar;

typedef struct Kernel {
    char *name;
    SharedVar *svars;
    int n_svars;
    Instr *code;
    int n_code;
    int n_regs, n_preds;
    ConstReg *consts;
    int n_consts;
    SpecialReg *specials;
    int n_specials;
    size_t param_size;      /* kernel parameter buffer */
    int n_params;
    size_t *param_offsets, *param_sizes;
    size_t shared_static;   /* bytes of static shared memory */
    size_t shared_dyn_off;  /* where extern __shared__ starts */
    size_t local_size;      /* per thread: depots + call parameters */
    int max_line;           /* highest learner line seen */
    int maxntid;            /* .maxntid product, 0 none */
    int32_t *xops;          /* register lists of tensor-core instructions (emu_mma.c) */
    int n_xops;
} Kernel;

/* A module-scope variable (.global/.const) with host storage. */
typedef struct ModVar {
    char *name;
    EmuSpace space;
    unsigned char *data;    /* host storage (globals/consts); NULL for shared */
    size_t size, align;
    size_t shared_off;      /* for module-scope .shared */
    bool is_extern;
} ModVar;

struct RawFunc;
typedef struct Program {
    struct Arena *arena;
    struct RawFunc *funcs;
    int n_funcs;
    ModVar *vars;
    int n_vars;
    char **files;           /* .file N → name (index N) */
    int n_files;
    int user_file;          /* the learner's source: the first .file not the toolkit's (1 if none) */
} Program;

/* parse (emu_parse.c) */
Diag *emu_program_parse(const char *ptx, size_t len, Program **out);
void emu_program_free(Program **p);
/* decode (emu_decode.c): lowers entry `name` into a Kernel. */
Diag *emu_kernel_decode(Program *p, const char *name, Kernel **out);
void emu_kernel_free(Kernel **k);
/* names of all entries (valid while the Program lives) */
int emu_program_entries(const Program *p, const char **names, int max);

/* ---- runtime ------------------------------------------------------------- */
typedef struct Alloc {
    uint64_t base, size, end; /* [base, base+size) valid; reserved through end */
    size_t elem;
    char *label;
    unsigned char *map;       /* mmap base */
    size_t map_len;
    int written;              /* a kernel has stored to it (race checks track its reads from then on) */
    uint8_t *init;            /* one bit per byte, set once written; NULL: the whole allocation counts as
                               * written (Lua arrays, zero-filled) — see Backend.mem_track_init */
    uint64_t *xb;             /* per 4-byte word: which blocks wrote and read it in this launch (emu_xblock.c) */
    bool shared_map;          /* MAP_SHARED: its pages are also mapped by a view (Backend.mem_view) */
    /* where the metrics' L1 model (emu_metrics.c l1_read) puts it, never the
     * host address: l1_id names it in the tags (unique in its table; a
     * view has its parent's), l1_off is added to an offset in it (a view:
     * its offset in the parent), l1_salt picks the set of its first line (a
     * hash of its label and size, a view's its parent's: the same on every
     * host and run) */
    uint32_t l1_id;
    uint64_t l1_off, l1_salt;
} Alloc;

typedef struct AllocTable {
    pthread_rwlock_t lock;
    Alloc *v;                 /* sorted by base */
    int n, cap;
    int n_tracked;            /* allocations with an init bitmap: 0 keeps the hot paths free of the check */
    uint32_t xb_gen;          /* launches with cross-block checks so far (emu_xblock.c) */
    uint32_t l1_ids;          /* Alloc.l1_id given so far */
} AllocTable;

int emu_alloc_find(AllocTable *t, uint64_t addr); /* index of the alloc whose reserved range holds addr, or -1 */
/* Initialisation of global memory (emu_init.c): mark [addr, addr+n) of the
 * allocation holding it as never written (a bitmap is made) or as written;
 * a device-to-device copy carries the source's state; forget drops the map. */
void emu_init_track(AllocTable *t, uint64_t addr, uint64_t n, bool written);
void emu_init_copy(AllocTable *t, uint64_t dst, uint64_t src, uint64_t n);
void emu_init_forget(AllocTable *t, Alloc *a);
/* Frees an allocation's shadow of races between blocks (emu_xblock.c). */
void emu_xblock_forget(Alloc *a);

typedef struct LineStats {
    uint64_t executions, active_lanes, global_requests, global_sectors, global_ideal;
    uint64_t shared_requests, shared_wavefronts, shared_ideal, divergent, branches;
    uint64_t global_layout;   /* sectors the accesses' own layout needs (emu_metrics.c) */
    uint64_t global_strided;  /* requests at twice that or more */
    uint64_t divergent_idle;  /* lane slots idle while a branch of this line kept its warp split */
} LineStats;

typedef struct Totals {
    uint64_t warp_instructions, thread_instructions, global_requests, global_sectors,
        global_ideal_sectors, shared_requests, bank_conflict_wavefronts, shared_ideal_wavefronts,
        divergent_branches, branches, barriers, atomics, local_requests, global_layout_sectors,
        divergent_idle_lanes;
    /* for the time prediction (kernels/predict.h): warp instructions by the
     * pipe that runs them, the sectors of stores among global_sectors, and
     * memory_waits: how often a warp used a register a global load had not
     * yet delivered (each is one round trip to memory that warp waits for) */
    uint64_t fp32_instructions, fp64_instructions, sfu_instructions, int_instructions, mem_instructions,
        ctrl_instructions, global_store_sectors, memory_waits;
    /* memory_waits_hit: the waits whose loads all read sectors the block had
     * read before (an L1 hit, not a trip to L2 or DRAM); critical_*: a
     * block's barrier-synchronised path, summed over blocks: between two
     * barriers (and to the block's end) the block waits for its slowest
     * warp, so each stretch adds the most instructions, waits, hit waits
     * and global requests any one warp of the block had in it (emu_exec.c
     * metrics_segment_end) */
    uint64_t memory_waits_hit, critical_instructions, critical_waits, critical_hit_waits, critical_requests;
} Totals;

/* A finding seen during a launch, merged by (code, line). */
typedef struct Finding {
    char code[24];
    int line;
    int severity;
    uint64_t count;
    uint64_t order;           /* block linear id << 20 | thread linear: smallest example wins */
    unsigned block[3], thread[3];
    char *message;
} Finding;

typedef struct PrintRec { uint64_t block; uint64_t seq; char *text; bool to_stderr; } PrintRec;

struct EmuLaunch;
typedef struct Worker Worker;

/* exec (emu_exec.c): runs warps of a block; returns when the block is done.
 * emu_run.c merges a worker into its launch. */
void emu_block_run(Worker *w, uint64_t block_linear);
Worker *emu_worker_new(struct EmuLaunch *L, int index);
void emu_worker_free(Worker **w);
/* metrics: adds the per-instruction counts the worker gathered (executions,
 * active lanes) to its totals (thread_instructions, the pipes) and lines;
 * before merging it into the launch (emu_exec.c) */
void emu_worker_fold_counts(Worker *W);

typedef struct EmuLaunch {
    const Kernel *k;
    const struct EmuBackendModule *mod;
    AllocTable *allocs;
    Dim3 grid, block;
    size_t dyn_shared, shared_total;
    unsigned char *params;
    uint64_t budget;
    double deadline;             /* EmuOptions.deadline_s; 0 = none */
    /* shared by the workers, only through __atomic builtins */
    uint64_t executed;           /* warp instructions, all workers */
    uint64_t next_block;
    int abort_flag;              /* trap/assert/budget: stop starting blocks */
    uint64_t n_blocks;
    bool metrics, checks, adversarial;
    uint64_t seed;
    /* races between blocks (emu_xblock.c): on when checks are and there are
     * several blocks; per block, whether it fenced (device scope) / synchronised
     * (an atomic or a strong load), set with __atomic builtins */
    bool xb;
    uint32_t xb_gen;
    uint8_t *xb_fenced, *xb_synced;
    /* the warp debugger (emu_trace.c): the recorder and the block and warp it
     * follows; NULL when this launch is not traced */
    struct EmuTraceRec *trace;
    uint64_t trace_block;
    int trace_warp;
    /* merged results */
    pthread_mutex_t lock;
    Finding *findings;
    int n_findings, cap_findings;
    LineStats *lines;
    int n_lines;
    Totals totals;
    PrintRec *prints;
    int n_prints, cap_prints;
    bool budget_hit;
    bool deadline_hit;           /* the budget that ran out was the run's time, not instructions */
    int budget_line;             /* where a warp was when the budget ran out */
    unsigned budget_block[3], budget_thread[3];
    /* device heap for malloc in kernels */
    unsigned char *heap;
    size_t heap_size, heap_used;
    uint64_t heap_base;
    /* the host threads running it (emu_pool.h): a long block wakes them */
    struct EmuPool *pool;
} EmuLaunch;

/* findings (emu_run.c) */
void emu_finding_add(Finding **v, int *n, int *cap, const char *code, int severity, int line,
                     uint64_t order, const unsigned block[3], const unsigned thread[3],
                     uint64_t count, char *message_owned);

/* half precision helpers (emu_cvt.c) */
float emu_half_to_float(uint16_t h);
uint16_t emu_float_to_half(float f, int rnd);

#endif
