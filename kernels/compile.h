/* kernels/compile.h: learner CUDA source → PTX (+ cubin) with NVRTC, cached.
 *
 * One compiler for both backends: the emulator interprets the PTX, the GPU
 * backend loads the cubin (or the PTX, JIT-compiled by the driver). Results
 * are cached under $XDG_CACHE_HOME/cudojo/nvrtc keyed by the SHA-256 of
 * (source, options, NVRTC version, arch, name expressions); a hit skips NVRTC.
 * Compile errors come back as Diags in the learner's file with line, column,
 * message and a caret excerpt. */
#ifndef CUDOJO_KERNELS_COMPILE_H
#define CUDOJO_KERNELS_COMPILE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"

/* The largest source NVRTC is given: it needs about 10 s per MB (a 1.2 MB
 * source took 12.8 s and always outran the run's timeout). */
#define COMPILE_SOURCE_MAX (256 << 10)
/* Every save in `cudojo watch` adds a cache entry: the most recently used
 * are kept, this many (then a quarter go). A pass of `cudojo verify
 * --mutants` over the course compiles ~600 kernel sources; fewer entries
 * than that and every pass starts cold. An entry is ~20 KB: ~40 MB at most. */
#define COMPILE_CACHE_KEEP 2048

typedef struct CompileOptions {
    int virtual_arch;               /* PTX target, e.g. 80 → compute_80 (0 = 80); with a cubin only
                                       when the emulator cannot decode the cubin's own PTX */
    int cubin_arch;                 /* also make a cubin for sm_XX, from the same program as the
                                       PTX (compute_XX); 0 = none */
    int opt_level;                  /* -O level for ptxas, 0..3 (default 3; -1 = default) */
    bool fast_math;                 /* --use_fast_math */
    const char *const *name_exprs;  /* template instantiations to lower, e.g. "scale<float>" */
    int n_name_exprs;
    const char *const *extra_opts;  /* passed to NVRTC as is (e.g. "-DN=256") */
    int n_extra_opts;
    const char *cache_dir;          /* NULL = default XDG cache; "" = no cache */
    bool confine;                   /* a stranger's source (grading): NVRTC reads no header beside the
                                       source's name (--no-source-include: it would read them relative
                                       to the worker's folder), only the built-in ones and the
                                       toolkit's; its memory is bounded (CUDOJO_COMPILE_AS_MB above
                                       what the worker had mapped) and running out says so */
} CompileOptions;

typedef struct KernelInfo {
    char *name;                     /* as the exercise names it ("vector_add", "scale<float>") */
    char *lowered;                  /* PTX entry name (mangled for C++/templates) */
    int registers;                  /* per thread, from ptxas (cubin builds; -1 unknown) */
    int shared_static;              /* bytes of static __shared__ (-1 unknown) */
    int local_bytes;                /* stack frame / local memory per thread (-1 unknown) */
    int spill_bytes;                /* spill stores (-1 unknown) */
} KernelInfo;

typedef struct CompiledModule {
    char *source_path;              /* the learner's file, as shown in messages */
    char *source;                   /* its text, for excerpts */
    char *ptx;                      /* NUL-terminated PTX; beside an sm_XX cubin the cubin program's
                                       (compute_XX), or the virtual arch's when the emulator cannot
                                       decode that one */
    size_t ptx_size;
    void *cubin;                    /* NULL unless cubin_arch was set */
    size_t cubin_size;
    int cubin_arch;
    KernelInfo *kernels;            /* every .entry in the PTX, plus lowered name expressions */
    int n_kernels;
    char *log;                      /* NVRTC warnings (may be NULL) */
    Diag *warnings;                 /* warnings mapped to the learner's file */
    bool cache_hit;
    double compile_ms;              /* wall time of this call (tiny on a cache hit) */
} CompiledModule;

/* Compiles `source` (the text of `path`). On error returns the Diag chain
 * (file:line:col, message, excerpt) and *out is NULL. Caller frees *out. */
Diag *compile_cuda(const char *path, const char *source, const CompileOptions *opts,
                   CompiledModule **out);
void compiled_module_free(CompiledModule **m);
/* Finds a kernel by the exercise's name, or by the lowered name; NULL if absent. */
const KernelInfo *compiled_module_find(const CompiledModule *m, const char *name);
/* "13.0", or NULL if NVRTC cannot be loaded. Static storage. */
const char *compile_nvrtc_version(void);

#endif
