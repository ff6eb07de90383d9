/* kernels/cuda/cuda_doctor.c: the GPU's part of `cudojo doctor`: whether a
 * driver is installed, the GPUs cudart sees, whether the GPU backend works
 * (and why not), where its timeline comes from, and the device's peaks
 * (cuda_peaks.h: cached, or measured now). kernels/doctor.c reaches it
 * through the backend factory (backend_gpu_probe), so no file outside
 * kernels/cuda/ names the GPU backend's functions. */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/bytes.h"
#include "kernels/cuda/cuda_backend.h"
#include "kernels/cuda/cuda_peaks.h"
#include "kernels/cuda/cuda_state.h"
#include "kernels/cuda/cupti.h"

static json_t *probe_gpus(json_t *report) {
    json_t *gpus = json_array();
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    bool driver = cuda_driver_installed();
    json_object_set_new(report, "driver_installed", json_boolean(driver));
    if (e != cudaSuccess) {
        json_object_set_new(report, "gpu_error", json_string(cuda_no_gpu_reason(e, driver)));
        (void)cudaGetLastError();
        return gpus;
    }
    if (count == 0) json_object_set_new(report, "gpu_error", json_string(N_("the driver found no CUDA device")));
    for (int i = 0; i < count; i++) {
        struct cudaDeviceProp p;
        json_t *g = json_object();
        json_object_set_new(g, "index", json_integer(i));
        if ((e = cudaGetDeviceProperties(&p, i)) != cudaSuccess) {
            json_object_set_new(g, "error", json_string(cudaGetErrorString(e)));
            (void)cudaGetLastError();
        } else {
            char cc[16];
            snprintf(cc, sizeof cc, "%d.%d", p.major, p.minor);
            json_object_set_new(g, "name", json_string(p.name));
            json_object_set_new(g, "cc", json_string(cc));
            json_object_set_new(g, "sms", json_integer(p.multiProcessorCount));
            json_object_set_new(g, "memory_bytes", json_integer((json_int_t)p.totalGlobalMem));
            json_object_set_new(g, "memory_gib", json_real((double)p.totalGlobalMem / (1u << 30)));
        }
        json_array_append_new(gpus, g);
    }
    return gpus;
}

/* The peaks of the backend's device, with where they came from. */
static json_t *probe_peaks(Backend *b) {
    int device = cuda_state_of(b)->device;
    CudaPeaks p;
    Diag *d = cuda_peaks_get(device, NULL, &p);
    char *path = cuda_peaks_cache_path(device, NULL);
    json_t *j = d ? json_pack("{s:s}", "error", d->message) : cuda_peaks_to_json(&p);
    json_object_set_new(j, "cache", bytes_to_json(path));
    free(path);
    diag_free(&d);
    return j;
}

json_t *cuda_doctor_probe(void) {
    json_t *r = json_object();
    json_object_set_new(r, "gpus", probe_gpus(r));
    json_t *cuda = json_object();
    Diag *why = NULL;
    Backend *b = cuda_backend_new(&why);
    json_object_set_new(cuda, "works", json_boolean(b != NULL));
    if (!b) json_object_set_new(cuda, "why", json_string(why ? why->message : N_("unknown reason")));
    if (b) {    /* where the GPU's timeline comes from */
        char cupti_why[200] = "";
        bool cupti = cupti_start(cupti_why, sizeof cupti_why);
        json_object_set_new(cuda, "timeline", json_string(cupti ? "cupti" : "events"));
        if (!cupti) json_object_set_new(cuda, "cupti_why", json_string(cupti_why));
        json_object_set_new(cuda, "peaks", probe_peaks(b));
    }
    backend_close(&b);
    diag_free(&why);
    json_object_set_new(r, "cuda", cuda);
    return r;
}
