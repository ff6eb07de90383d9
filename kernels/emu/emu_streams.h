/* kernels/emu/emu_streams.h: the emulator's streams, events and modeled
 * timeline (emu_streams.c). The emulator runs every operation at once, in
 * program order, so results are exact; this scheduler only works out when
 * each operation WOULD have run on the modeled GPU (kernels/costmodel.h),
 * following CUDA's stream semantics. Rules: kernels/emu/README.md. */
#ifndef CUDOJO_KERNELS_EMU_STREAMS_H
#define CUDOJO_KERNELS_EMU_STREAMS_H

#include <stdbool.h>
#include <stdint.h>

#include "kernels/backend.h"
#include "kernels/costmodel.h"

typedef struct EmuSched EmuSched;

EmuSched *emu_sched_new(const CostModel *m);
void emu_sched_free(EmuSched **s);
const CostModel *emu_sched_model(const EmuSched *s);
/* Clocks back to 0, timeline emptied; streams and events stay. */
void emu_sched_reset(EmuSched *s);
const Timeline *emu_sched_timeline(const EmuSched *s);

Diag *emu_sched_stream_create(EmuSched *s, const StreamOptions *o, int *out);
Diag *emu_sched_stream_destroy(EmuSched *s, int stream);
/* NULL when `stream` is 0 or a live stream, else the error CUDA gives. */
Diag *emu_sched_stream_check(const EmuSched *s, int stream);
Diag *emu_sched_stream_synchronize(EmuSched *s, int stream);
void emu_sched_device_synchronize(EmuSched *s);

Diag *emu_sched_event_create(EmuSched *s, int *out);
Diag *emu_sched_event_destroy(EmuSched *s, int event);
Diag *emu_sched_event_record(EmuSched *s, int event, int stream);
Diag *emu_sched_event_synchronize(EmuSched *s, int event);
Diag *emu_sched_event_query(EmuSched *s, int event, bool *done);
Diag *emu_sched_event_elapsed_ms(EmuSched *s, int ev0, int ev1, double *ms);
/* Whether everything issued to `stream` has finished by the host clock
 * (which the query advances, like an event query). */
Diag *emu_sched_stream_query(EmuSched *s, int stream, bool *done);
/* Work issued to `stream` from now on waits for event `ev` (cudaStreamWaitEvent). */
Diag *emu_sched_stream_wait_event(EmuSched *s, int stream, int ev);

/* Operations (the caller has already done them, or will, in program order). */
void emu_sched_copy(EmuSched *s, CopyDir dir, int stream, size_t bytes, bool pinned, const char *name);
void emu_sched_memset(EmuSched *s, int stream, size_t bytes, bool async, const char *name);
void emu_sched_kernel(EmuSched *s, int stream, bool async, const char *name, Dim3 grid, Dim3 block,
                      uint64_t warp_instructions, uint64_t global_sectors, double extra_us, double host_fraction);
/* Between these two, the operations scheduled are the nodes of one graph
 * launch (cudaGraphLaunch): the launch costs the host graph_launch_host_us
 * once, its nodes nothing more, and kernel nodes follow each other with
 * graph_node_gap_us instead of launch_gap_us (kernels/costmodel.h). */
void emu_sched_graph_begin(EmuSched *s);
void emu_sched_graph_end(EmuSched *s);
/* The host thread's modeled clock, and moving it on to `us` (never back;
 * no timeline entry): several devices of one program share one host. */
double emu_sched_host_now(const EmuSched *s);
void emu_sched_host_catch_up(EmuSched *s, double us);
void emu_sched_host_begin(EmuSched *s, const char *name);
void emu_sched_host_end(EmuSched *s, double us);

#endif
