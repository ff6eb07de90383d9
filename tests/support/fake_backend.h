/* tests/support/fake_backend.h: a Backend for tests that runs "kernels"
 * written in C.
 *
 * Memory lives on the host (a DevPtr is a host address) and keeps the
 * label and element size it was allocated with; a launch calls the C
 * function registered under the kernel's name with those host addresses as
 * pointer arguments. So exercise runs can be tested without a GPU or the
 * emulator. Every copy is range-checked against its allocation. */
#ifndef CUDOJO_TESTS_FAKE_BACKEND_H
#define CUDOJO_TESTS_FAKE_BACKEND_H

#include <stdbool.h>

#include "kernels/backend.h"

typedef void (*FakeKernelFn)(Dim3 grid, Dim3 block, const KernelArg *args, int nargs, void *user);

/* A new fake backend (name "fake"); close with backend_close. */
Backend *fake_backend_new(void);
void fake_backend_register(Backend *b, const char *kernel, FakeKernelFn fn, void *user);

/* The next launch reports this finding (the chain is taken). */
void fake_backend_queue_finding(Backend *b, Diag *finding);
/* The next launch fails with this message (as a failed launch would). */
void fake_backend_fail_next_launch(Backend *b, const char *message);
/* Timed launches report this median (ms); < 0 = not measured (default). */
void fake_backend_set_time(Backend *b, double ms);
/* Sets the name reported by ops->name ("fake" by default), e.g. "emu"
 * to exercise emulator-only paths. */
void fake_backend_set_name(Backend *b, const char *name);
/* The next launch's report carries these metrics (reference taken). */
void fake_backend_set_metrics(Backend *b, json_t *metrics);

/* Device buffers allocated and not yet freed. */
int fake_backend_live_allocations(const Backend *b);
/* Whether any allocation so far carried this label. */
bool fake_backend_saw_label(const Backend *b, const char *label);
int fake_backend_launches(const Backend *b);
/* The host address a DevPtr stands for (what kernels dereference). */
static inline void *fake_ptr(const KernelArg *a) {
    DevPtr p;
    __builtin_memcpy(&p, a->bytes, sizeof p);
    return (void *)(uintptr_t)p;
}

#endif
