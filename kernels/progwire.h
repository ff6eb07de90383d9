/* kernels/progwire.h: what a learner's CUDA program tells the worker about
 * itself while it runs, and how it is said.
 *
 * A whole program (kernels/program.h) runs as a child of the worker with one
 * of two cudojo libraries loaded into it: the emulator runtime (our own
 * libcudart.so.<major>, kernels/emurt/) or, on a GPU, the CUPTI injection
 * library (kernels/cuda/inject.c) beside NVIDIA's libcudart. Both write the
 * same records, one JSON object per line, to the file descriptor named by
 * the environment variable CUDOJO_REPORT_FD (when it is unset or not a
 * valid descriptor, nothing is written and findings go to stderr instead).
 * The worker (kernels/program_run.c) reads them back into a ProgramResult.
 *
 * Records (every one has "type"; unknown types and fields are ignored, so
 * either side may grow):
 *
 *   {"type":"hello", "runtime":"emu"|"cuda", "pid":N, "device":"NVIDIA H200",
 *    "exe":"/abs/path"}                                 first, at load
 *   {"type":"call", "fn":"cudaMemcpyAsync", "args":"d_x, h_x, 4000,
 *    cudaMemcpyHostToDevice, stream 1", "stream":1, "rc":0,
 *    "error":"cudaSuccess", "t_us":12.5}               one per runtime call
 *                                                      (capped: see below)
 *   {"type":"kernel", "name":"busy" (demangled), "mangled":"_Z4busyPKfPfii",
 *    "grid":[x,y,z], "block":[x,y,z], "shared":0, "stream":0,
 *    "registers":N, "local_bytes":N, "shared_static":N (-1 unknown),
 *    "ms":0.042 (GPU: measured by CUPTI; emu: modeled), "modeled":bool,
 *    "metrics":{...}  (emulator: the LaunchReport metrics object)}
 *   {"type":"um", "phase":"kernel"|"host"|"prefetch"|"status", "kernel":K,
 *    "gpu_faults":N, "cpu_faults":N, "h2d":bytes, "d2h":bytes,
 *    "source":"emu-model"|"cupti", "ok":bool, "why":"..."}
 *                                                      managed memory's page
 *                                                      faults and migrations:
 *                                                      "kernel" during launch
 *                                                      K (1-based, as kernel
 *                                                      records count), "host"
 *                                                      and "prefetch" after K
 *                                                      launches; "status" says
 *                                                      whether counting works
 *   {"type":"finding", "diag":[ ...diag_to_json... ]}  emulator findings
 *                                                      (oob, races, ...),
 *                                                      with the learner's
 *                                                      file:line
 *   {"type":"unimplemented", "fn":"cudaGraphFoo"}      a runtime function the
 *                                                      emulator runtime lacks
 *                                                      was called (it returned
 *                                                      cudaErrorNotSupported)
 *   {"type":"timeline", "timeline":{ ...timeline_to_json... }}
 *                                                      at exit (and at
 *                                                      cudaDeviceReset)
 *   {"type":"crash", "signal":11, "addr":"0x0", "frames":["0x1234",...],
 *    "exe":"/abs/path"}                                from the fatal-signal
 *                                                      handler; frames are
 *                                                      offsets into exe (for
 *                                                      addr2line), innermost
 *                                                      first
 *   {"type":"exit", "code":N}                          from exit()/return of
 *                                                      main
 *   {"type":"turn"}                                    before the program's
 *                                                      first GPU work (a
 *                                                      launch, copy, memset,
 *                                                      event record, graph
 *                                                      launch), only when
 *                                                      CUDOJO_TURN_FD names a
 *                                                      descriptor: the program
 *                                                      then waits until the
 *                                                      worker writes a byte
 *                                                      there (or closes it).
 *                                                      A timed program starts
 *                                                      beside other untimed GPU
 *                                                      work and is alone on
 *                                                      the GPU from its first
 *                                                      work on (gpu_lock.h)
 *
 * Limits: at most PROGWIRE_MAX_CALLS call records are written (then one
 * {"type":"calls_dropped","count":N} at exit); a string field is cut at
 * PROGWIRE_MAX_STRING bytes. A byte that is not part of valid UTF-8 is
 * carried as the code point of the same value (byte 0xE9 becomes "\u00e9"),
 * so no text is ever dropped. */
#ifndef CUDOJO_KERNELS_PROGWIRE_H
#define CUDOJO_KERNELS_PROGWIRE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PROGWIRE_ENV_FD "CUDOJO_REPORT_FD"
#define PROGWIRE_ENV_TURN_FD "CUDOJO_TURN_FD"
#define PROGWIRE_ENV_DRAIN_FD "CUDOJO_DRAIN_FD"
#define PROGWIRE_MAX_CALLS 20000
#define PROGWIRE_MAX_STRING 4096

/* ---- the child's side (linked into the emulator runtime and the injection
 * library; thread-safe; never allocates in the signal handler) ---- */

/* Opens the channel from the environment and installs the fatal-signal
 * handler (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) that writes a "crash"
 * record and then re-raises the signal with the default action. Idempotent. */
void progwire_init(const char *runtime);
/* Whether records go anywhere (CUDOJO_REPORT_FD was valid). */
bool progwire_active(void);
/* Writes one record (steals the reference). Adds "type". */
void progwire_send(const char *type, json_t *fields);
/* Writes a "call" record unless PROGWIRE_MAX_CALLS were written already. */
void progwire_call(const char *fn, const char *args, int stream, int rc, const char *error, double t_us);
/* A hook the fatal-signal handler calls with the faulting address before
 * the crash record: it may write one more record line (a "finding") into
 * buf (at most n bytes, async-signal-safe code only) and return its length,
 * or 0. The emulator runtime names the device allocation a host access hit. */
typedef size_t (*ProgwireCrashNote)(int sig, uintptr_t addr, char *buf, size_t n);
void progwire_set_crash_note(ProgwireCrashNote fn);
/* Before each piece of GPU work (a launch, copy, memset, event record, graph
 * launch, prefetch): waits while the gate of a drain is shut (below). Before
 * the program's first GPU work, when the worker gave a turn descriptor
 * (CUDOJO_TURN_FD, read by progwire_init), also writes one "turn" record and
 * waits for the worker's answer (a byte on the descriptor); every thread
 * that comes here meanwhile waits too. Once answered (or with no
 * descriptor) that part returns at once. The copies of a program run
 * together (t:program{ processes = N }) are answered together, once all of
 * them asked (the start barrier: kernels/program_group.c), on a workbench
 * without the GPU lock too.
 * The turn's end: at the exit of a program that had its turn, after the
 * "exit" record, the drain hook (below: every context synchronised) runs,
 * waited for at most 1 s; when it returned (at once with no hook), the
 * program writes "i" (idle) on the descriptor and waits for one more byte:
 * its GPU work is done, and the worker lets the teardown that follows
 * (contexts, pinned memory, the process's exit) run beside other untimed
 * work (kernels/program_run.c turn_rest). The descriptor is a socket, not
 * the report channel: a report cut at its cap cannot lose it. A child the
 * program forks has no turn. */
void progwire_turn(void);
/* The drain: a program that holds the GPU lock shared (gpu_lock.h) is
 * stopped while another grader's timed section runs, but the GPU work it
 * queued before the stop would still run then. With CUDOJO_DRAIN_FD (a
 * SOCK_SEQPACKET socket of the worker, our parent; read by progwire_init)
 * two threads serve the worker's messages (the runtime says "r" before
 * its first GPU work, and the worker asks nothing of a program before that:
 * one still making its context has nothing queued): "y" and a number shuts the gate
 * (progwire_turn holds new GPU work back), runs the hook set here (the
 * injection library: synchronise every context the program has) and
 * answers "d" with the same number; "o" opens the gate. The worker waits
 * for the answer a bounded time before it stops the program, and opens the
 * gate after the section. A hook that never returns keeps nothing shut: the
 * reader still opens the gate. No hook (the emulator runtime, whose work
 * runs in its own threads and stops with them): the answer comes at once. */
typedef void (*ProgwireDrain)(void);
void progwire_set_drain(ProgwireDrain fn);
/* Waits while the gate of a drain is shut (progwire_turn's first part,
 * without the turn). Before a stream capture begins the injection library
 * counts the capture as open and then waits here: the drain hook looks at
 * that count after the gate shut (both sequentially consistent), so either
 * it sees the capture and does not synchronise (a synchronisation from
 * another thread would invalidate a cudaStreamCaptureModeGlobal capture) or
 * the capture begins only once the gate opens again, after the drain. */
void progwire_gate(void);
/* Writes the "hello" record (runtime from progwire_init, pid, exe, device). */
void progwire_hello(const char *device);
/* A JSON string of `s` cut at PROGWIRE_MAX_STRING bytes, bytes that are not
 * valid UTF-8 carried as the code point of the same value (never NULL). */
json_t *progwire_string(const char *s);

#endif
