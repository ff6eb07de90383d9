/* kernels/emu/emu_trace_rec.h: the recorder's hooks inside the emulator
 * (emu_trace.c), for emu_backend.c, emu_run.c and emu_exec.c only.
 *
 * The backend holds an armed recorder (emu_trace_arm/take in emu_backend.c,
 * which make and empty it with emu_trace_rec_new/take); a launch
 * it wants (emu_trace_wants) is bracketed by launch_begin/end; the worker
 * running the traced block has Worker.trace set and runs the traced warp
 * one instruction at a time, calling emu_trace_before() before each and
 * emu_trace_block_end() when the block is done. */
#ifndef CUDOJO_KERNELS_EMU_TRACE_REC_H
#define CUDOJO_KERNELS_EMU_TRACE_REC_H

#include "kernels/emu/emu_trace.h"
#include "kernels/emu/emu_worker.h"

typedef struct EmuTraceRec EmuTraceRec;

/* A recorder armed with rq (copied). */
EmuTraceRec *emu_trace_rec_new(const EmuTraceRequest *rq);
/* The trace it recorded (caller frees), NULL when no launch matched; r keeps none. */
EmuTrace *emu_trace_rec_take(EmuTraceRec *r);
void emu_trace_rec_free(EmuTraceRec **r);
/* Whether the armed recorder takes a launch of this kernel. */
bool emu_trace_wants(const EmuTraceRec *r, const char *exercise_name, const char *ptx_name);
/* Whether launches after the traced one are to be refused (EmuTraceRequest.stop_after). */
bool emu_trace_stops_launches(const EmuTraceRec *r);
/* Starts recording launch L (sets L->trace when its grid has the block and warp). */
void emu_trace_launch_begin(EmuTraceRec *r, EmuLaunch *L, const char *source);
/* Ends it: keeps the launch's findings; later launches run untraced. */
void emu_trace_launch_end(EmuTraceRec *r, const LaunchReport *report);
/* Before the traced warp runs the instruction of its group gi. */
void emu_trace_before(Worker *W, Warp *w, int gi);
/* The traced block is done. */
void emu_trace_block_end(Worker *W, Warp *w);

#endif
