/* kernels/doctor.c: a report of what this machine has for running CUDA.
 *
 * Every probe degrades to a reason instead of failing: no toolkit, no
 * NVRTC, no driver and no GPU each show up as a field that says so, because
 * `cudojo doctor` is what a learner runs when something does not work. */
#include "kernels/doctor.h"

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/bytes.h"
#include "base/fs.h"
#include "base/xalloc.h"
#include "kernels/backend.h"
#include "kernels/compile.h"
#include "kernels/compile_internal.h"
#include "kernels/program.h"

static json_t *version_of(int raw) {
    if (raw <= 0) return json_null();
    char buf[32];
    snprintf(buf, sizeof buf, "%d.%d", raw / 1000, (raw % 1000) / 10);
    return json_string(buf);
}

/* "13.0.88" from version.json, else "13.0" from CUDART_VERSION in the headers. */
static json_t *toolkit_version(const char *root, const char *include_dir) {
    char *vj = path_join(root, "version.json");
    json_t *doc = json_load_file(vj, 0, NULL);
    free(vj);
    if (doc) {
        const char *v = json_string_value(json_object_get(json_object_get(doc, "cuda"), "version"));
        json_t *out = v ? json_string(v) : NULL;
        json_decref(doc);
        if (out) return out;
    }
    if (!include_dir) return json_null();
    char *hdr = path_join(include_dir, "cuda_runtime_api.h");
    char *text = NULL;
    Diag *d = fs_read_file(hdr, &text, NULL);
    free(hdr);
    json_t *out = json_null();
    if (!d) {
        const char *p = strstr(text, "#define CUDART_VERSION");
        if (p) {
            json_decref(out);
            out = version_of(atoi(p + strlen("#define CUDART_VERSION")));
        }
    }
    diag_free(&d);
    free(text);
    return out;
}

static json_t *doctor_toolkit(void) {
    const char *home = getenv("CUDA_HOME");
    const char *root = home && *home ? home : "/usr/local/cuda";
    const char *inc = compile_cuda_include_dir();
    json_t *t = json_object();
    json_object_set_new(t, "path", bytes_to_json(root));
    json_object_set_new(t, "found", json_boolean(fs_is_dir(root)));
    json_object_set_new(t, "version", toolkit_version(root, inc));
    json_object_set_new(t, "include_dir", inc ? bytes_to_json(inc) : json_null());
    return t;
}

static json_t *doctor_nvrtc(void) {
    json_t *n = json_object();
    const char *v = compile_nvrtc_version();
    json_object_set_new(n, "version", v ? json_string(v) : json_null());
    CompileOptions o = {0};
    o.cache_dir = "";
    CompiledModule *m = NULL;
    Diag *d = compile_cuda("doctor.cu", "extern \"C\" __global__ void k(float *x) { x[threadIdx.x] += 1.0f; }\n",
                           &o, &m);
    json_object_set_new(n, "works", json_boolean(d == NULL && m != NULL));
    if (m) json_object_set_new(n, "compile_ms", json_real(m->compile_ms));
    if (d) {
        char *text = diag_format_all(d, false);
        json_object_set_new(n, "error", bytes_to_json(text));
        free(text);
    }
    diag_free(&d);
    compiled_module_free(&m);
    return n;
}

/* nvcc for whole programs: where, which version, and a timed compile of a
 * tiny program (uncached, so the time is a real cold compile). */
static json_t *doctor_nvcc(void) {
    json_t *n = json_object();
    const char *path = program_nvcc_path();
    const char *v = program_nvcc_version();
    json_object_set_new(n, "path", path ? bytes_to_json(path) : json_null());
    json_object_set_new(n, "version", v ? json_string(v) : json_null());
    ProgramCompileOptions o = {0};
    o.cache_dir = "";
    CompiledProgram *p = NULL;
    Diag *d = program_compile("doctor.cu",
                              "#include <cstdio>\n__global__ void k(int *x) { x[threadIdx.x] = 1; }\n"
                              "int main() { printf(\"ok\\n\"); return 0; }\n",
                              &o, &p);
    json_object_set_new(n, "works", json_boolean(d == NULL && p != NULL));
    if (p) json_object_set_new(n, "compile_ms", json_real(p->compile_ms));
    if (d) json_object_set_new(n, "error", bytes_to_json(d->message));
    diag_free(&d);
    compiled_program_free(&p);
    return n;
}

/* cudojo's own runtime libraries for whole programs. */
static json_t *doctor_program_libs(void) {
    json_t *r = json_object();
    const char *emurt = program_emurt_dir();
    char lib[32];
    snprintf(lib, sizeof lib, "libcudart.so.%d", CUDART_VERSION / 1000);
    json_object_set_new(r, "emurt", json_pack("{s:b, s:o, s:s}", "found", emurt != NULL, "dir",
                                              emurt ? bytes_to_json(emurt) : json_null(), "library", lib));
    const char *inject = program_inject_path();
    json_object_set_new(r, "inject", json_pack("{s:b, s:o}", "found", inject != NULL, "path",
                                               inject ? bytes_to_json(inject) : json_null()));
    const char *confine = program_confine_helper();
    json_object_set_new(r, "confine", json_pack("{s:b, s:o}", "found", confine != NULL, "path",
                                                confine ? bytes_to_json(confine) : json_null()));
    return r;
}

json_t *kernels_doctor(void) {
    json_t *r = json_object();
    json_object_set_new(r, "toolkit", doctor_toolkit());
    json_object_set_new(r, "nvrtc", doctor_nvrtc());
    json_object_set_new(r, "nvcc", doctor_nvcc());
    json_t *libs = doctor_program_libs();
    json_object_update(r, libs);
    json_decref(libs);

    int rt = 0, drv = 0;
    if (cudaRuntimeGetVersion(&rt) != cudaSuccess) rt = 0;
    if (cudaDriverGetVersion(&drv) != cudaSuccess) drv = 0;
    json_t *c = json_object();
    json_object_set_new(c, "version", version_of(rt));
    json_object_set_new(c, "raw", json_integer(rt));
    json_object_set_new(r, "cudart", c);
    json_t *d = json_object();
    json_object_set_new(d, "version", version_of(drv));
    json_object_set_new(d, "raw", json_integer(drv));
    json_object_set_new(r, "driver", d);

    /* The GPU's part comes from kernels/cuda/ through the factory. */
    json_t *gpu = backend_gpu_probe();
    json_t *backends = json_object();
    json_object_set(backends, "cuda", json_object_get(gpu, "cuda"));
    json_object_del(gpu, "cuda");
    json_object_update(r, gpu);
    json_decref(gpu);
    json_object_set_new(backends, "emu", json_null());
    json_object_set_new(r, "backends", backends);
    return r;
}
