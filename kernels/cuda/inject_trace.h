/* kernels/cuda/inject_trace.h: the Injector's state, shared by the three
 * files that make it (inside kernels/cuda/ only; the interface is inject.h):
 * inject_trace.c keeps the tables (CUPTI stream ids, correlation ids), the
 * names and the life cycle; inject_call.c turns runtime API callbacks into
 * "call" records; inject_activity.c keeps activity records and turns them
 * into "kernel" records and the "timeline" at exit.
 *
 * Everything here is used under Injector.mu. */
#ifndef CUDOJO_KERNELS_CUDA_INJECT_TRACE_H
#define CUDOJO_KERNELS_CUDA_INJECT_TRACE_H

#include <pthread.h>

#include "kernels/cuda/inject.h"
#include "kernels/timeline.h"

/* A loop of a million launches must not grow the program by gigabytes: past
 * these, activity records are only counted (as the timeline's dropped) and
 * calls no longer remember their stream for them. */
#define MAX_ACTS (2 * TIMELINE_MAX_ENTRIES)
#define MAX_CORR (8 * TIMELINE_MAX_ENTRIES)

typedef enum ActWhat { ACT_KERNEL, ACT_COPY, ACT_MEMSET, ACT_SYNC, ACT_EVENT, ACT_UM } ActWhat;

typedef struct Act {
    ActWhat what;
    int sub;                        /* copies, UM: TimelineKind; sync: CUPTI's synchronization type */
    bool pinned;
    uint32_t corr;
    uint64_t sid;                   /* stream key: context id << 32 | CUPTI's stream id */
    uint64_t start, end, bytes;
    int grid[3], block[3], shared_dyn, shared_static, regs;
    uint32_t local;
    char *name;                     /* kernels: the mangled name (owned) */
} Act;

typedef struct UmRec {             /* one unified-memory counter record */
    int kind;                       /* CUpti_ActivityUnifiedMemoryCounterKind */
    bool prefetch;                  /* a migration the program asked for (cudaMemPrefetchAsync) */
    uint64_t start, value;
} UmRec;

typedef struct Handle {             /* a stream or event the program created */
    const void *h;                  /* NULL once destroyed */
    int num, priority;
    unsigned flags;
} Handle;

typedef struct CorrInfo {           /* what a call said, for its activity records */
    uint32_t corr;                  /* 0 = empty slot */
    int stream, event;
    const char *fn;                 /* CUPTI's functionName: static */
} CorrInfo;

typedef struct SidMap {
    uint64_t sid;                   /* context id << 32 | stream id (stream ids are per context) */
    int num;
} SidMap;

#define STREAM_KEY(ctx, id) ((uint64_t)(ctx) << 32 | (uint32_t)(id))
#define MAX_CONTEXTS 16

struct Injector {
    InjectHooks hk;
    int captures;                   /* stream captures open (atomic; injector_capturing) */
    uint64_t t0;
    pthread_mutex_t mu;
    bool hello_sent, finished;
    CUcontext legacy_known[MAX_CONTEXTS];   /* contexts whose legacy stream id we know */
    int n_legacy;
    char device[160];
    Handle *streams, *events;
    int n_streams, n_events, next_stream, next_event;
    int per_thread;                 /* its number, 0 until used */
    SidMap *sids;
    int n_sids;
    CorrInfo *corr;                 /* open addressing, cap a power of two */
    size_t corr_cap, corr_n;
    Act *acts;
    size_t n_acts, cap_acts;
    size_t n_um_acts, last_um_act;  /* migrations among acts; 1 + the index of the last one (0: none) */
    long acts_dropped;
    uint64_t um_h2d, um_d2h, um_cpu_faults, um_gpu_faults, um_h2d_n, um_d2h_n;
    bool um_seen;
    bool um_enabled;                /* CUPTI accepted the unified-memory counters */
    char um_refusal[160];           /* CUPTI's word for why it did not ("" when unknown or accepted) */
    UmRec *um_recs;                 /* every counter record, for r.um's per-kernel phases */
    size_t n_um, cap_um;
};

/* Remembers that CUPTI's stream key `sid` is the program's stream `num`. */
void injector_learn_sid(Injector *ij, uint64_t sid, int num);
/* The stream number of CUPTI's stream key `sid`; NULL if not learnt. */
const int *injector_find_sid(const Injector *ij, uint64_t sid);
/* Remembers what the call of correlation id `corr` said (`fn` static); a
 * no-op for id 0 and past MAX_CORR ids. */
void injector_put_corr(Injector *ij, uint32_t corr, int stream, int event, const char *fn);
/* What the call of correlation id `corr` said; NULL if not remembered. */
const CorrInfo *injector_get_corr(const Injector *ij, uint32_t corr);
/* Sends the "hello" record (once: marks it sent). */
void injector_send_hello_locked(Injector *ij);

#endif
