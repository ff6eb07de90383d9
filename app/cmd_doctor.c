/* app/cmd_doctor.c: `cudojo doctor`: toolkit, NVRTC, nvcc and cudojo's
 * runtime libraries for whole programs, driver, GPUs, backends, and the
 * GPU's measured peaks (copy bandwidth, FP32/FP64 FMA) with where they came
 * from. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app/cli.h"
#include "base/i18n.h"
#include "base/bytes.h"
#include "kernels/backend.h"
#include "kernels/doctor.h"

static const char *jstr(const json_t *o, const char *k, const char *dflt) {
    const char *v = json_string_value(json_object_get(o, k));
    return v ? v : dflt;
}

/* A line's heading ("driver", "GPU 0") in the language shown, padded to the
 * column the values start at. */
static void print_label(const char *text) {
    char buf[96];
    printf("%s ", i18n_pad(buf, sizeof buf, text, 14, false));
}

/* One "name: yes/no (why)" line for a backend. */
static void print_backend(const char *name, const json_t *b) {
    bool works = json_is_true(json_object_get(b, "works"));
    printf("  %-8s %s", name, works ? _("works") : _("does not work"));
    if (!works) {
        char *why = i18n_message(jstr(b, "why", N_("unknown reason")));
        printf(_(": %s"), why);
        free(why);
    }
    const char *tl = jstr(b, "timeline", NULL);
    if (tl && !strcmp(tl, "cupti")) fputs(_(", timeline from CUPTI activity records"), stdout);
    else if (tl) printf(_(", timeline from CUDA events (no CUPTI: %s)"), jstr(b, "cupti_why", "?"));
    printf("\n");
}

static double jnum(const json_t *o, const char *k) {
    const json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : -1;
}

/* The GPU's peaks, what they are the better of, and where they came from. */
static void print_peaks(const json_t *p) {
    if (!p) return;
    printf(_("\nPeaks of this GPU (every \"%% of the copy bandwidth\" is divided by the first)\n"));
    if (json_object_get(p, "error")) {
        printf(_("  not measured: %s\n"), jstr(p, "error", "?"));
        return;
    }
    printf(_("  copy bandwidth  %.0f GB/s (%s; read + written, median of %lld copies of %.1f GiB)\n"), jnum(p, "copy_gbs"),
           _(jstr(p, "copy_from", "?")), (long long)jnum(p, "reps"), jnum(p, "bytes") / (1u << 30));
    /* The cache keeps the copy kernel's shape as English text (see
     * cuda_peaks.c); its numbers are read back to say it in the reader's
     * language, and text of another shape is shown as it is. */
    const char *cfg = jstr(p, "kernel_config", "?");
    unsigned threads, blocks;
    int per_step;
    char shape[160];
    if (sscanf(cfg, "%u threads x %u blocks/SM, %d float4 per thread per step", &threads, &blocks, &per_step) == 3)
        snprintf(shape, sizeof shape, _("%u threads x %u blocks/SM, %d float4 per thread per step"), threads, blocks,
                 per_step);
    else
        snprintf(shape, sizeof shape, "%s", cfg);
    printf(_("    copy kernel   %.0f GB/s, spread %.1f%% (%s)\n"), jnum(p, "kernel_gbs"), 100 * jnum(p, "kernel_spread"),
           shape);
    printf(_("    cudaMemcpy    %.0f GB/s, spread %.1f%% (device to device)\n"), jnum(p, "memcpy_gbs"),
           100 * jnum(p, "memcpy_spread"));
    if (jnum(p, "fp32_gflops") > 0) printf("  FP32 FMA        %.1f TFLOP/s\n", jnum(p, "fp32_gflops") / 1e3);
    if (jnum(p, "fp64_gflops") > 0) printf("  FP64 FMA        %.1f TFLOP/s\n", jnum(p, "fp64_gflops") / 1e3);
    time_t at = (time_t)jnum(p, "measured_at");
    char when[32] = "?";
    struct tm tm;
    if (at > 0 && localtime_r(&at, &tm)) strftime(when, sizeof when, "%Y-%m-%d %H:%M", &tm);
    if (json_is_true(json_object_get(p, "cached")))
        printf(_("  measured %s for this device and driver, cached in %s (delete it to measure again)\n"), when,
               jstr(p, "cache", "?"));
    else
        printf(_("  measured now in %.1f s, cached in %s\n"), jnum(p, "measure_ms") / 1e3, jstr(p, "cache", "?"));
}

static void print_doctor(const json_t *j) {
    const json_t *tk = json_object_get(j, "toolkit"), *nv = json_object_get(j, "nvrtc");
    const json_t *rt = json_object_get(j, "cudart"), *drv = json_object_get(j, "driver");
    print_label(_("CUDA toolkit"));
    printf("%s (%s)%s\n", jstr(tk, "version", "?"), jstr(tk, "path", "?"),
           json_is_true(json_object_get(tk, "found")) ? "" : _("  NOT FOUND"));
    print_label("NVRTC");
    printf("%s, ", jstr(nv, "version", _("missing")));
    if (json_is_true(json_object_get(nv, "works")))
        printf(_("compiles a test kernel in %.0f ms\n"), json_number_value(json_object_get(nv, "compile_ms")));
    else
        printf(_("does not work: %s\n"), jstr(nv, "error", "?"));
    const json_t *nvcc = json_object_get(j, "nvcc");
    print_label("nvcc");
    if (json_is_true(json_object_get(nvcc, "works")))
        printf(_("%s (%s), compiles a test program in %.0f ms\n"), jstr(nvcc, "version", "?"), jstr(nvcc, "path", "?"),
               json_number_value(json_object_get(nvcc, "compile_ms")));
    else
        printf(_("%s: %s\n"), json_is_string(json_object_get(nvcc, "path")) ? _("does not work") : _("missing"),
               jstr(nvcc, "error", "?"));
    const json_t *emurt = json_object_get(j, "emurt"), *inject = json_object_get(j, "inject");
    print_label(_("emu runtime"));
    if (json_is_true(json_object_get(emurt, "found")))
        printf(_("%s in %s (whole programs without a GPU)\n"), jstr(emurt, "library", "?"), jstr(emurt, "dir", "?"));
    else
        printf("%s", _("not built: programs with main() cannot run without a GPU (`make` builds "
                       "it; CUDOJO_EMURT_DIR names another place)\n"));
    print_label(_("GPU recorder"));
    printf("%s\n", json_is_true(json_object_get(inject, "found"))
                       ? jstr(inject, "path", "?")
                       : _("not built (programs on a GPU run without calls or timeline)"));
    const json_t *confine = json_object_get(j, "confine");
    print_label(_("tool cage"));
    printf("%s\n", json_is_true(json_object_get(confine, "found"))
                       ? jstr(confine, "path", "?")
                       : _("not built: graded programs cannot run under compute-sanitizer (`make` builds it; "
                           "CUDOJO_CONFINE_DIR names another place)"));
    print_label(_("CUDA runtime"));
    printf("%s\n", jstr(rt, "version", "?"));
    print_label(_("driver"));
    if (json_is_false(json_object_get(j, "driver_installed")))
        printf("%s", _("none: no NVIDIA driver is installed (no /dev/nvidiactl, no libcuda.so.1)\n"));
    else
        printf("%s\n", jstr(drv, "version", _("none")));
    const json_t *gpus = json_object_get(j, "gpus");
    size_t i;
    json_t *g;
    if (json_array_size(gpus) == 0) {
        print_label(_("GPUs"));
        char *why = i18n_message(jstr(j, "gpu_error", N_("none found")));
        printf(_("none (%s)\n"), why);
        free(why);
    }
    json_array_foreach(gpus, i, g) {
        char label[32];
        snprintf(label, sizeof label, "GPU %zu", i);
        print_label(label);
        printf(_("%s, compute capability %s, %lld SMs, %.1f GiB\n"), jstr(g, "name", "?"), jstr(g, "cc", "?"),
               (long long)json_integer_value(json_object_get(g, "sms")),
               json_number_value(json_object_get(g, "memory_gib")));
    }
    printf("%s", _("\nBackends\n"));
    const json_t *bs = json_object_get(j, "backends");
    print_backend("cuda", json_object_get(bs, "cuda"));
    print_backend("emu", json_object_get(bs, "emu"));
    print_peaks(json_object_get(json_object_get(bs, "cuda"), "peaks"));
}

int cmd_doctor(Cli *cli, int argc, char **argv) {
    (void)argv;
    if (argc > 1) {
        fprintf(stderr, "%s", _("cudojo doctor: takes no arguments\n"));
        return 2;
    }
    json_t *j = kernels_doctor();
    EmuOptions emu = {.threads = cli->emu_threads};
    Diag *why = NULL;
    Backend *b = emu_backend_new(&emu, &why);
    json_t *backends = json_object_get(j, "backends");
    if (!backends) {
        backends = json_object();
        json_object_set_new(j, "backends", backends);
    }
    json_object_set_new(backends, "emu", b ? json_pack("{s:b}", "works", 1)
                                           : json_pack("{s:b, s:o}", "works", 0, "why", bytes_to_json(why ? why->message : "?")));
    backend_close(&b);
    diag_free(&why);
    json_t *cuda = json_object_get(backends, "cuda");
    bool gpu = cuda && json_is_true(json_object_get(cuda, "works"));
    const char *def = cli->backend == BACKEND_EMU ? "emu" : cli->backend == BACKEND_CUDA ? "cuda" : gpu ? "cuda" : "emu";
    json_object_set_new(j, "default_backend", json_string(def));
    if (cli->json) {
        cli_print_json(j);
        return 0;
    }
    print_doctor(j);
    bool no_driver = json_is_false(json_object_get(j, "driver_installed"));
    printf(_("\nRuns will use: %s%s\n"), def,
           gpu || cli->backend == BACKEND_CUDA ? ""
           : no_driver                         ? _(" (no NVIDIA driver found: running on the emulator)")
                                               : _(" (no working GPU here)"));
    json_decref(j);
    return 0;
}

/* The command's entry in the table app/cli.c lists. */
const Command CMD_DOCTOR = {"doctor", "", N_("what this machine has: GPU, driver, toolkit, NVRTC, backends"),
    N_("Reports the CUDA toolkit, NVRTC, the driver and GPUs, and which backends work\n"
    "here (and why not). On a GPU also its peaks: the copy bandwidth every\n"
    "\"percent of the copy bandwidth\" is divided by (the better of a tuned copy\n"
    "kernel and cudaMemcpy device to device) and FP32/FP64 FMA throughput,\n"
    "measured once per device and driver (a second or two) and cached.\n"),
    cmd_doctor};
