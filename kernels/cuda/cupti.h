/* kernels/cuda/cupti.h: the GPU timeline from CUPTI activity records.
 *
 * libcupti is loaded at run time (dlopen), so a machine with a driver but no
 * CUPTI still runs everything, with the event-timed timeline instead. One
 * collector per process (CUPTI is process-wide):
 *
 *   cupti_start()            load, subscribe, enable kernel / memcpy / memset /
 *                            synchronization records; before the CUDA context
 *                            is created where possible
 *   cupti_bracket_open()     around one CUDA call of ours: the correlation ids
 *   cupti_bracket_close()    of the runtime and driver calls made in between
 *   cupti_take()             flush and hand over the records completed so far
 *
 * A record belongs to the bracket whose ids contain its correlationId; that
 * is how the timeline entry cudojo named ("copy x -> device", stream 2) gets
 * CUPTI's start, end, bytes and pinned/pageable. Internal to kernels/cuda/.
 *
 * The injection library (kernels/cuda/inject.c) shares this one subscriber
 * (CUPTI allows one per process): it sets hooks before cupti_start and then
 * sees every API callback and every activity record itself. */
#ifndef CUDOJO_KERNELS_CUDA_CUPTI_H
#define CUDOJO_KERNELS_CUDA_CUPTI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/timeline.h"

#define CUPTI_BRACKET_IDS 8

typedef struct CuptiRecord {
    TimelineKind kind;              /* TL_H2D, TL_D2H, TL_D2D, TL_MEMSET, TL_KERNEL, TL_SYNC */
    uint32_t corr;                  /* correlationId of the API call */
    uint64_t start_ns, end_ns;      /* CUPTI's clock (cupti_now_ns) */
    uint64_t bytes;
    bool pinned;                    /* copies: the host side was page-locked */
} CuptiRecord;

typedef struct CuptiBracket {
    uint32_t ids[CUPTI_BRACKET_IDS];
    int n;
} CuptiBracket;

/* Starts collection once per process; false (with the reason in `why`) when
 * libcupti cannot be loaded or refuses. Later calls return the first answer. */
bool cupti_start(char *why, size_t why_len);
bool cupti_active(void);
/* CUPTI's timestamp, in ns; 0 when inactive. */
uint64_t cupti_now_ns(void);
/* The correlation ids of the CUDA calls this thread makes between open and
 * close land in *br (the first CUPTI_BRACKET_IDS of them). */
void cupti_bracket_open(void);
void cupti_bracket_close(CuptiBracket *br);
/* Flushes CUPTI's buffers and moves the records completed so far to *out
 * (caller frees); returns how many. *dropped gets the number CUPTI lost
 * since the last call (its buffers were full). */
int cupti_take(CuptiRecord **out, long *dropped);

/* ---- for the injection library ---- */

/* `cbdata` is the CUpti_CallbackData of a runtime or driver API callback
 * (enter and exit), `record` a CUpti_Activity; void * keeps CUPTI's headers
 * out of this one. */
typedef void (*CuptiApiHook)(void *user, uint32_t domain, uint32_t cbid, const void *cbdata);
typedef void (*CuptiActivityHook)(void *user, const void *record);

typedef struct CuptiHooks {
    CuptiApiHook api;               /* every callback of the enabled domains; may be NULL */
    CuptiActivityHook activity;     /* every activity record, on the thread CUPTI hands buffers
                                       back on; when set, records are not kept for cupti_take */
    void *user;
    bool runtime_only;              /* do not enable the driver API domain (less overhead) */
} CuptiHooks;

/* Before cupti_start (later calls have no effect). */
void cupti_set_hooks(const CuptiHooks *h);
/* An entry point of the loaded libcupti, NULL when it is not loaded or lacks
 * it: for the optional activity kinds and queries the hooks need. */
void *cupti_symbol(const char *name);
/* Hands every completed record to the hook (or keeps it for cupti_take). */
void cupti_flush(void);
/* Records CUPTI lost since the last call (its buffers were full). */
long cupti_take_dropped(void);

#endif
