/* kernels/emu/emu_worker.h: per-host-thread state for running blocks.
 *
 * A Worker owns everything one block needs (register files of every warp,
 * shared memory and its shadow for race checks, local memory) and the
 * statistics and findings it gathered; emu_run.c merges them after the
 * launch. Nothing here is shared between host threads except EmuLaunch. */
#ifndef CUDOJO_KERNELS_EMU_WORKER_H
#define CUDOJO_KERNELS_EMU_WORKER_H

#include "kernels/emu/emu_internal.h"

enum { PARK_NONE = 0, PARK_BAR, PARK_WSYNC, PARK_FORCE, PARK_NBAR };

typedef struct Group {
    int pc;
    uint32_t mask;
    uint8_t parked;
} Group;

typedef struct Warp {
    uint64_t *r;            /* n_regs × 32 */
    uint32_t *p;            /* n_preds */
    Group g[34];
    int ng;
    uint32_t valid, live;   /* lanes that exist / have not exited */
    uint32_t bar_mask;      /* lanes waiting at a barrier */
    uint32_t nb_mask[16];   /* lanes waiting at named barrier i (bar.sync i, count) */
    uint16_t wsync;         /* __syncwarp count, for intra-warp hazards */
    int index;
    uint64_t clock;
    uint32_t stamp;         /* counts memory instructions: same stamp = same execution */
    int split_line;         /* metrics: the branch that split the warp (0: not split) */
    int n_pend;             /* metrics: registers a global load in flight will fill (emu_exec.c) */
    int32_t pend[32];
    uint32_t pend_bits;     /* metrics: bit (r & 31) of each register in pend (0 when none) */
    bool pend_frag;         /* metrics: a wmma fragment load from global memory is in flight */
    bool pend_shared_st;    /* metrics: a store to shared memory of a loaded value waits for it (deferred) */
    bool group_waited;      /* metrics: the warp waited for load group `group` (emu_group_loads) */
    int32_t group;          /* metrics: the pc of the first load of the group last issued; -1 none */
    bool pend_cold;         /* metrics: a load in flight missed the block's L1 (or was an atomic, volatile...) */
    uint64_t vmerged;       /* metrics: bit `slot` (Instr.sub) of each merged shared group whose first access counted it (emu_vector.c) */
    uint32_t seg_waits, seg_hit_waits, seg_requests; /* metrics: since the block's last barrier */
    uint64_t seg_instructions;
} Warp;

/* Shadow of one 4-byte shared-memory word (checks on). */
typedef struct Shadow {
    uint32_t w_epoch, r_epoch;
    uint16_t w_tid, r_tid, r_tid2;
    uint8_t w_atomic, r_atomic;
    uint8_t w_mask, r_mask, r_mask2;    /* bytes of the word the writer / the two readers touched */
    uint16_t w_wsync, r_wsync;
    int32_t w_line, r_line;
    uint32_t w_stamp;                   /* the writer's memory-instruction stamp */
} Shadow;

/* The bytes of 4-byte word `word` that an access of `bytes` at `off` covers. */
static inline uint8_t emu_word_mask(uint64_t word, uint64_t off, int bytes) {
    uint64_t lo = word * 4 > off ? word * 4 : off;
    uint64_t hi = word * 4 + 4 < off + (uint64_t)bytes ? word * 4 + 4 : off + (uint64_t)bytes;
    return (uint8_t)(((1u << (hi - lo)) - 1) << (lo - word * 4));
}

/* metrics: how often a warp ran one instruction and its active lanes in all
 * (folded into Totals and LineStats after the launch: emu_worker_fold_counts) */
typedef struct PcCount { uint64_t exec, lanes; } PcCount;

/* metrics: one set of the block's L1 (emu_metrics.c l1_read). The model:
 * 128-byte lines of four 32-byte sectors, each sector present or not (a
 * miss fetches only the sectors asked for, as sm_90's L1 does); 4 ways per
 * set, least recently used evicted; EMU_L1_SETS sets = 1024 lines, 128 KiB
 * (sm_90 has 256 KiB of L1 and shared memory per SM: this is the L1 beside
 * a 100-132 KiB shared carveout, the size the previous model had and the
 * prediction's constants were fitted with). A line is its allocation's id
 * and its offset in it, never a host address; its set a hash of the line's
 * offset and the allocation's salt (Alloc.l1_*), so a column of a matrix
 * (rows a power of two apart) spreads over the sets. */
enum { EMU_L1_SET_BITS = 8, EMU_L1_SETS = 1 << EMU_L1_SET_BITS, EMU_L1_WAYS = 4 };
typedef struct EmuL1Set {
    uint64_t tag[EMU_L1_WAYS];      /* the lines, most recently used first: l1_id << 32 | line in the allocation */
    uint8_t sectors[EMU_L1_WAYS];   /* each line's sectors present, a bit each; 0: the way is empty */
    uint32_t gen;                   /* the block that filled it (Worker.l1_gen); another block's set is empty */
} EmuL1Set;

struct Worker {
    EmuLaunch *L;
    const Kernel *k;
    int index;
    int nwarps;
    unsigned nthreads;
    Warp *warps;
    uint64_t *regs;
    uint32_t *preds;
    unsigned char *shared;
    size_t shared_size;
    Shadow *shadow;
    unsigned char *local;
    unsigned block[3];
    uint64_t block_linear;
    uint32_t epoch, epoch0;
    uint64_t pending;       /* instructions not yet added to L->executed */
    bool stop;
    int bar_pc;             /* pc of the barrier the block waits at; -1 none */
    uint32_t bar_popc;
    bool bar_and, bar_or;
    uint32_t nb_arrived[16];   /* threads arrived at named barrier i */
    LineStats *lines;
    int n_lines;
    PcCount *pcc;           /* metrics on: per pc of the kernel (emu_exec.c) */
    EmuL1Set *l1;           /* metrics on: the block's L1, EMU_L1_SETS sets (emu_metrics.c l1_read) */
    uint32_t l1_gen;        /* the block's generation: a set of another is empty (blocks_run) */
    Warp *cur;              /* metrics on: the warp running (warp_run) */
    Totals t;
    Finding *f;
    int nf, capf;
    PrintRec *pr;
    int npr, cappr;
    uint64_t pseq;
    int hint;
    uint64_t rng;
    int *order;
    uint64_t blocks_run;
    struct GShadow *gs;     /* global-memory shadow (emu_gshadow.c) */
    size_t gs_cap, gs_count;
    uint32_t gs_gen;
    bool store_same;        /* the store being checked writes the value already there */
    struct EmuTraceRec *trace; /* set while this worker runs the traced block (emu_trace.c) */
};

/* global-memory races inside a block (emu_gshadow.c); kind 0 read, 1 write, 2 atomic */
void emu_gshadow_begin_block(Worker *W);
void emu_gshadow_access(Worker *W, Warp *w, int lane, const Instr *in, uint64_t addr, int bytes, int kind,
                        bool same_value);
void emu_gshadow_free(Worker *W);

/* races between blocks (emu_xblock.c): begin/end around a launch (before
 * and after the workers run); an access of global memory (write: a store,
 * same_value: it stores what is there); a device-scope fence; an atomic or a
 * strong load (the block synchronised with others); forget frees an
 * allocation's shadow */
void emu_xblock_begin(EmuLaunch *L);
void emu_xblock_end(EmuLaunch *L);
void emu_xblock_access(Worker *W, Warp *w, int lane, const Instr *in, const Alloc *a, uint64_t addr, int bytes,
                       bool write, bool same_value);
void emu_xblock_fence(Worker *W);
void emu_xblock_publish(Worker *W);
void emu_xblock_sync(Worker *W);

/* uninitialised global memory (emu_init.c): the allocation holding addr when
 * it tracks initialisation (else NULL, at once when none does); a read
 * of bytes nothing wrote is reported; a write marks them */
Alloc *emu_init_alloc(Worker *W, uint64_t addr);
void emu_init_read(Worker *W, Warp *w, int lane, const Instr *in, const Alloc *a, uint64_t addr, int bytes);
void emu_init_write(Alloc *a, uint64_t addr, int bytes);

/* memory (emu_mem.c; the native calls in emu_native.c) */
void emu_exec_ld(Worker *W, Warp *w, const Instr *in, uint32_t m);
void emu_exec_st(Worker *W, Warp *w, const Instr *in, uint32_t m);
void emu_exec_atom(Worker *W, Warp *w, const Instr *in, uint32_t m);
void emu_exec_native(Worker *W, Warp *w, const Instr *in, uint32_t m);
void emu_exec_cpasync(Worker *W, Warp *w, const Instr *in, uint32_t m);
/* sm_90 transaction barriers and bulk copies (emu_async.c); emu_exec_mbarrier
 * returns false when a test_wait/try_wait found its phase incomplete */
bool emu_exec_mbarrier(Worker *W, Warp *w, const Instr *in, uint32_t m);
void emu_exec_bulk(Worker *W, Warp *w, const Instr *in, uint32_t m);
/* findings (emu_check.c) */
/* Finding bookkeeping: returns the slot to fill when this occurrence becomes
 * the example (first seen or smallest block/thread), else NULL (only counted). */
Finding *emu_finding(Worker *W, const char *code, int sev, int line, uint64_t order);
void emu_thread_coords(const Worker *W, unsigned tid, unsigned out[3]);
/* Records a finding for lane `lane` of warp w with a formatted message. */
void emu_report(Worker *W, Warp *w, int lane, const char *code, int sev, int line, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));

#endif
