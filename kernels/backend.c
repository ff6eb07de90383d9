/* kernels/backend.c: what both backends share: argument packing, reports,
 * closing. Choosing and opening one is backend_factory.c's. */
#include "kernels/backend.h"

#include <stdlib.h>
#include <string.h>

void launch_report_init(LaunchReport *r) {
    memset(r, 0, sizeof *r);
    r->ms_median = -1;
    r->ms_min = -1;
}

void launch_report_fini(LaunchReport *r) {
    diag_free(&r->findings);
    if (r->metrics) json_decref(r->metrics);
    free(r->device_output);
    free(r->device_stderr);
    launch_report_init(r);
}

static KernelArg arg_bytes(const void *p, size_t n) {
    KernelArg a;
    memset(&a, 0, sizeof a);
    a.size = n;
    memcpy(a.bytes, p, n);
    return a;
}

KernelArg kernel_arg_ptr(DevPtr p) { return arg_bytes(&p, sizeof p); }
KernelArg kernel_arg_i32(int32_t v) { return arg_bytes(&v, sizeof v); }
KernelArg kernel_arg_u32(uint32_t v) { return arg_bytes(&v, sizeof v); }
KernelArg kernel_arg_i64(int64_t v) { return arg_bytes(&v, sizeof v); }
KernelArg kernel_arg_u64(uint64_t v) { return arg_bytes(&v, sizeof v); }
KernelArg kernel_arg_f32(float v) { return arg_bytes(&v, sizeof v); }
KernelArg kernel_arg_f64(double v) { return arg_bytes(&v, sizeof v); }

bool backend_usable(const Backend *b) { return b && (!b->ops->usable || b->ops->usable(b)); }

void backend_close(Backend **b) {
    if (*b) (*b)->ops->destroy(*b);
    *b = NULL;
}

BackendChoice backend_choice_parse(const char *s, bool *ok) {
    *ok = true;
    if (!s || !strcmp(s, "auto")) return BACKEND_AUTO;
    if (!strcmp(s, "cuda") || !strcmp(s, "gpu")) return BACKEND_CUDA;
    if (!strcmp(s, "emu") || !strcmp(s, "emulator")) return BACKEND_EMU;
    *ok = false;
    return BACKEND_AUTO;
}
