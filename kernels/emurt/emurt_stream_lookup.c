/* kernels/emurt/emurt_stream_lookup.c: which RtStream a cudaStream_t is:
 * the legacy default stream of each device, each host thread's per-thread
 * default stream (made on first use), created streams by handle, and their
 * names in call records. Apart from emurt_stream.c so that the runtime's
 * parts that only look streams up (captures, the queue) do not call into
 * the file that calls them. */
#include <stdio.h>
#include <stdlib.h>

#include "base/xalloc.h"
#include "kernels/emurt/emurt_internal.h"

static RtStream g_legacy[RT_MAX_DEVICES];

RtStream *rt_stream_legacy(int dev) {
    RtStream *s = &g_legacy[dev];
    s->magic = RT_STREAM_MAGIC;
    s->dev = dev;
    s->id = 0;
    return s;
}

/* Each host thread has its own per-thread default stream on each device. */
static __thread RtStream *t_per_thread[RT_MAX_DEVICES];

static RtStream *per_thread(int dev) {
    RtDevice *d = &g_rt.dev[dev];
    if (t_per_thread[dev]) return t_per_thread[dev];
    StreamOptions o = {0, false, "per-thread default stream"};
    int id = 0;
    Diag *e = d->b->ops->stream_create(d->b, &o, &id);
    if (e) {
        diag_free(&e);
        return rt_stream_legacy(dev);
    }
    RtStream *s = xcalloc(1, sizeof *s);
    s->magic = RT_STREAM_MAGIC;
    s->dev = dev;
    s->id = id;
    s->per_thread = true;
    g_rt.streams = xrealloc(g_rt.streams, sizeof *g_rt.streams * (size_t)(g_rt.n_streams + 1));
    g_rt.streams[g_rt.n_streams++] = s;
    t_per_thread[dev] = s;
    return s;
}

/* Set while a _ptds/_ptsz entry point runs (emurt_ptds.c): stream 0 and the
 * synchronous calls' stream are the calling thread's per-thread stream. */
static __thread bool t_ptsz;

void rt_ptsz(bool on) { t_ptsz = on; }

RtStream *rt_default_stream(int dev) { return t_ptsz ? per_thread(dev) : rt_stream_legacy(dev); }

RtStream *rt_stream(cudaStream_t st, bool ptsz) {
    int dev = rt_current_device();
    if (!st) return ptsz || t_ptsz ? per_thread(dev) : rt_stream_legacy(dev);
    if (st == cudaStreamLegacy) return rt_stream_legacy(dev);
    if (st == cudaStreamPerThread) return per_thread(dev);
    for (int i = 0; i < g_rt.n_streams; i++)
        if ((cudaStream_t)g_rt.streams[i] == st) return g_rt.streams[i];
    return NULL;
}

const char *rt_stream_name(const RtStream *s) {
    static __thread char buf[4][32];
    static __thread int next;
    char *b = buf[next++ & 3];
    if (!s->id) snprintf(b, 32, "stream 0");
    else if (s->per_thread) snprintf(b, 32, "cudaStreamPerThread");
    else snprintf(b, 32, "stream %d", s->id);
    return b;
}
