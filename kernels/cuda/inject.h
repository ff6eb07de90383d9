/* kernels/cuda/inject.h: the inside of the CUPTI injection library.
 *
 * On a GPU a learner's program runs on NVIDIA's libcudart with
 * libcudojo_inject.so named by CUDA_INJECTION64_PATH; the driver calls its
 * one export, InitializeInjection, when the program first initialises CUDA.
 * From then on every runtime API callback and every activity record goes
 * through an Injector, which writes the records of kernels/progwire.h: a
 * "call" per runtime call (readable arguments, stream numbers 1, 2, ... in
 * creation order, 0 = legacy, the return code and its name), and at exit a
 * "kernel" per launch (CUPTI's measured time, registers, shared and local
 * memory) and one "timeline" (source "cupti": kernels, copies with bytes and
 * pinned/pageable, memsets, events, managed-memory migrations on their
 * streams; host waits on the host row), plus "unified_memory" totals when
 * the program used managed memory.
 *
 * The Injector knows nothing of how it is fed, so the tests give it
 * hand-made callback data and activity records without a GPU. Internal to
 * kernels/cuda/ and its tests; the library exports InitializeInjection only. */
#ifndef CUDOJO_KERNELS_CUDA_INJECT_H
#define CUDOJO_KERNELS_CUDA_INJECT_H

#include <cupti_activity.h>
#include <cupti_callbacks.h>
#include <cupti_runtime_cbid.h>
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where the records go and what the Injector may ask CUPTI and the driver.
 * Production: progwire_call / progwire_send, cuptiGetStreamIdEx, the
 * driver's device name. Any member may be NULL (records are then dropped,
 * queries answered "unknown"). The queries are never made under the
 * Injector's lock. */
typedef struct InjectHooks {
    void (*call)(void *user, const char *fn, const char *args, int stream, int rc, const char *error,
                 double t_us);
    void (*send)(void *user, const char *type, json_t *fields);          /* steals fields */
    void (*hello)(void *user, const char *device);                        /* the "hello" record */
    /* The key of `stream` (NULL = the legacy stream) in `ctx`: CUPTI's context
     * id << 32 | its stream id, as activity records carry them; false if unknown. */
    bool (*stream_id)(void *user, CUcontext ctx, const void *stream, uint64_t *key);
    /* The name of the device of `ctx` (NULL: device 0) into buf; false if unknown. */
    bool (*device_name)(void *user, CUcontext ctx, char *buf, size_t len);
    void *user;
} InjectHooks;

typedef struct Injector Injector;

/* Caller frees with injector_free. `t0_ns` is the CUPTI time that call
 * records' t_us count from; 0 = from the first call recorded. */
Injector *injector_new(const InjectHooks *hooks, uint64_t t0_ns);
void injector_free(Injector **ij);
/* One CUPTI callback: `cbdata` is a CUpti_CallbackData of the runtime API
 * domain (other domains are ignored), `now_ns` CUPTI's time now. Only the
 * outermost runtime call of a thread is recorded; nvcc's private hooks
 * (__cudaRegisterFatBinary, __cudaPushCallConfiguration...) are not, except
 * the <<<>>> launch (__cudaLaunchKernel), recorded as cudaLaunchKernel.
 * Thread-safe. */
void injector_api(Injector *ij, uint32_t domain, uint32_t cbid, const CUpti_CallbackData *cbdata,
                  uint64_t now_ns);
/* Whether a stream capture may be open in the program: counted from the
 * runtime calls that begin one (from their entry, less those that fail)
 * and end one (cudaStreamEndCapture, successful or invalidated). A
 * context-wide synchronisation from another thread then must not run: it
 * would invalidate a capture in the global mode (on the H200, graph-update's
 * solution failed 1 in 16 graded runs when a drain's cuCtxSynchronize met
 * its capture: session 15). Thread-safe. */
bool injector_capturing(Injector *ij);
/* One activity record (CUpti_Activity of CUDA 13's versions); thread-safe. */
void injector_activity(Injector *ij, const CUpti_Activity *record);
/* Says whether CUPTI accepted the unified-memory counters (the "um"
 * records' status: without them r.um has no counts). */
void injector_set_um_enabled(Injector *ij, bool on);
/* Why CUPTI refused the unified-memory counters (its result string), for the
 * status record. */
void injector_set_um_refusal(Injector *ij, const char *why);
/* Sends the "hello" if no call did yet, then the "kernel" records, the
 * "unified_memory" totals, the "um" records (per kernel and host phase)
 * and the "timeline"; `dropped` activity records
 * CUPTI lost are counted in the timeline. Records arriving later are
 * ignored. */
void injector_finish(Injector *ij, long dropped);

/* "cudaErrorInvalidValue" for 1, "cudaSuccess" for 0 (the toolkit's
 * driver_types.h); NULL when the toolkit has no such code. Static. */
const char *inject_error_name(int rc);
/* The kernel's name as a learner wrote it: "_Z4busyPKfPfii" → "busy",
 * "_Z5scaleIfEvPT_i" → "scale<float>"; a name that is not mangled stays.
 * Caller frees. */
char *inject_kernel_name(const char *mangled);

#endif
