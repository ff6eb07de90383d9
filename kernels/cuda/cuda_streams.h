/* kernels/cuda/cuda_streams.h: streams, events, pinned memory, asynchronous
 * copies and the event-timed timeline of the GPU backend (cuda_streams.c).
 * What it shares with cuda_backend.c is in cuda_state.h. Internal to
 * kernels/cuda/. */
#ifndef CUDOJO_KERNELS_CUDA_STREAMS_H
#define CUDOJO_KERNELS_CUDA_STREAMS_H

#include <cuda_runtime_api.h>
#include <stdbool.h>

#include "kernels/backend.h"

typedef struct CudaStreams CudaStreams;

/* ---- cuda_streams.c ---- */
CudaStreams *cuda_streams_new(const char *device);
/* Destroys the CUDA objects unless the context is lost (broken). */
void cuda_streams_free(CudaStreams **s, bool broken);
/* The cudaStream_t of stream id (0 = the legacy default stream). */
Diag *cuda_streams_get(CudaStreams *s, int id, cudaStream_t *out);
/* Timeline marks around one operation on `st`. With CUPTI, begin opens a
 * bracket that catches the correlation ids of the CUDA calls made until end;
 * with events (no CUPTI, or CUDOJO_TIMELINE=events), begin records the start
 * event (none when timing is unavailable; the operation still runs). end adds
 * the entry; timeline_get fills in its times. */
typedef struct TlMark {
    cudaEvent_t ev;                 /* events: the start event */
    double issue_us;                /* host clock when the call was made, in the timeline's base */
    bool on;                        /* false: no timing (the entry still appears) */
} TlMark;
TlMark cuda_streams_mark_begin(CudaStreams *s, cudaStream_t st);
void cuda_streams_mark_end(CudaStreams *s, TlMark m, cudaStream_t st, TimelineKind kind, int stream,
                           const char *name, size_t bytes, bool pinned, const LaunchConfig *cfg);
/* "cupti", "events" or "off": where the times come from. */
const char *cuda_streams_source(const CudaStreams *s);

/* BackendOps entries (see kernels/backend.h). */
Diag *cuda_stream_create(Backend *b, const StreamOptions *o, int *out);
Diag *cuda_stream_destroy(Backend *b, int stream);
Diag *cuda_stream_synchronize(Backend *b, int stream);
Diag *cuda_device_synchronize(Backend *b);
Diag *cuda_event_create(Backend *b, int *out);
Diag *cuda_event_destroy(Backend *b, int event);
Diag *cuda_event_record(Backend *b, int event, int stream);
Diag *cuda_event_synchronize(Backend *b, int event);
Diag *cuda_event_query(Backend *b, int event, bool *done);
Diag *cuda_event_elapsed_ms(Backend *b, int ev0, int ev1, double *ms, bool *modeled);
Diag *cuda_host_alloc(Backend *b, size_t bytes, void **out);
void cuda_host_free(Backend *b, void *p);
Diag *cuda_copy_async(Backend *b, const CopyRequest *rq);
Diag *cuda_memset_async(Backend *b, DevPtr dst, int value, size_t bytes, int stream, const char *name);
void cuda_host_work_begin(Backend *b, const char *name);
void cuda_host_work_end(Backend *b, double us);
void cuda_timeline_reset(Backend *b);
Diag *cuda_timeline_get(Backend *b, Timeline **out);

#endif
