/* app/trace.h: a run's timeline (metrics.timeline) as a Chrome trace.
 *
 * The Trace Event Format (the JSON object form) is what chrome://tracing,
 * Perfetto's UI and most trace viewers open: {"traceEvents": [...],
 * "displayTimeUnit": ..., "otherData": {...}}. Each copy, kernel, memset
 * and piece of host work becomes a complete event ("ph":"X", ts and dur in
 * microseconds); streams are threads of a "GPU" process, host work a thread
 * of a "host" process, and metadata events ("ph":"M") name and order them.
 * A modeled timeline (the emulator's cost model) says so in the process
 * name and in otherData, so nobody mistakes it for a measurement. */
#ifndef CUDOJO_APP_TRACE_H
#define CUDOJO_APP_TRACE_H

#include <jansson.h>
#include <stdbool.h>

#include "base/diag.h"
#include "base/result.h"

/* The process ids the trace uses: the device's streams and the host. */
#define TRACE_PID_DEVICE 1
#define TRACE_PID_HOST 2

/* res's metrics.timeline when it is an object, else NULL (borrowed). */
const json_t *trace_timeline_of(const RunResult *res);
/* The Chrome trace of a timeline (new reference); `title` (the exercise id,
 * may be NULL) goes into otherData. Never NULL for an object; a timeline
 * without events gives a trace with only its metadata. */
json_t *trace_from_timeline(const json_t *timeline, const char *title);
/* Writes res's timeline to `path` as Chrome trace JSON, atomically.
 * Returns NULL on success; a DIAG_WARNING (code "no-timeline", nothing
 * written) when the run has no timeline to write, saying why; a DIAG_ERROR
 * (code "io") when the file cannot be written. */
Diag *trace_write(const RunResult *res, const char *path);

/* What a timeline kind ("h2d", "kernel"...) is called on screen ("H2D",
 * "kernel"); unknown kinds come back as they are. */
const char *trace_kind_label(const char *kind);
/* Bandwidth of a copy in GB/s (10^9 bytes per second); < 0 when it has no
 * bytes or no duration. */
double trace_gbps(double bytes, double dur_us);

#endif
