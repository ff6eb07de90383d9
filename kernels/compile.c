/* kernels/compile.c: learner CUDA source → PTX (+ cubin) with NVRTC, cached.
 *
 * Without a GPU the PTX is built for the virtual arch (compute_80 by
 * default); with -lineinfo every instruction maps back to the learner's
 * line. For a GPU one NVRTC program (-arch=sm_XX, ptxas -v) gives both the
 * cubin and the PTX (compute_XX), unless the emulator cannot decode that
 * PTX: then a compute_80 program makes the PTX (emu_ptx_fallback).
 * Registers, stack frame and static shared memory per kernel are read from
 * the cubin itself (cubin_info.c), spills from ptxas's log, which NVRTC
 * leaves empty when the driver's compute cache answered instead of ptxas.
 * Compile errors are parsed out of NVRTC's log into Diags in the learner's
 * file (compile_log.c). Results are cached on disk by SHA-256 of
 * everything that influences the output. */
#include "kernels/compile.h"

#include <ctype.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <nvrtc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/sha256.h"
#include "base/strbuf.h"
#include "base/xalloc.h"
#include "kernels/compile_internal.h"
#include "kernels/cubin_info.h"
#include "kernels/emu/emu.h"
#include "kernels/program_internal.h"

/* 3: resources come from the cubin; entries of 2 may hold -1 registers
 * (written when the driver's compute cache left ptxas's log empty). */
#define CACHE_MAGIC "cudojo-nvrtc-cache 3\n"
#define CACHE_KEEP COMPILE_CACHE_KEEP

/* NVRTC ships no C library headers, yet every tutorial starts with
 * `#include <stdio.h>`. These stand-ins make the common ones compile:
 * printf, assert, malloc and the math functions are built into device code;
 * the integer types come from the toolkit's libcu++. */
static const char *const BUILTIN_HEADER_NAMES[] = {
    "stdio.h", "cstdio", "stdlib.h", "cstdlib", "assert.h", "cassert",
    "math.h", "cmath", "stdint.h", "cstdint", "limits.h", "climits", "float.h", "cfloat",
};
#define STDIO_H "/* cudojo: printf is built into CUDA device code. */\n#pragma once\n"
#define ASSERT_H "/* cudojo: assert is built into CUDA device code. */\n#pragma once\n"
#define MATH_H "/* cudojo: sqrtf, expf, fabsf ... are built into CUDA device code. */\n#pragma once\n"
#define STDINT_H "#pragma once\n#include <cuda/std/cstdint>\n"
#define LIMITS_H                                                                              \
    "#pragma once\n#ifndef INT_MAX\n#define CHAR_BIT 8\n#define SCHAR_MIN (-128)\n"              \
    "#define SCHAR_MAX 127\n#define UCHAR_MAX 255\n#define SHRT_MIN (-32768)\n"                  \
    "#define SHRT_MAX 32767\n#define USHRT_MAX 65535\n#define INT_MIN (-2147483647 - 1)\n"      \
    "#define INT_MAX 2147483647\n#define UINT_MAX 4294967295U\n"                                 \
    "#define LONG_MIN (-9223372036854775807L - 1)\n#define LONG_MAX 9223372036854775807L\n"     \
    "#define ULONG_MAX 18446744073709551615UL\n#define LLONG_MIN (-9223372036854775807LL - 1)\n" \
    "#define LLONG_MAX 9223372036854775807LL\n#define ULLONG_MAX 18446744073709551615ULL\n#endif\n"
#define FLOAT_H                                                                             \
    "#pragma once\n#ifndef FLT_MAX\n#define FLT_MAX 3.402823466e+38F\n"                       \
    "#define FLT_MIN 1.175494351e-38F\n#define FLT_EPSILON 1.192092896e-07F\n"                \
    "#define DBL_MAX 1.7976931348623158e+308\n#define DBL_MIN 2.2250738585072014e-308\n"      \
    "#define DBL_EPSILON 2.2204460492503131e-16\n#define FLT_DIG 6\n#define DBL_DIG 15\n#endif\n"
static const char *const BUILTIN_HEADERS[] = {
    STDIO_H, STDIO_H, STDIO_H, STDIO_H, ASSERT_H, ASSERT_H, MATH_H,
    MATH_H, STDINT_H, STDINT_H, LIMITS_H, LIMITS_H, FLOAT_H, FLOAT_H,
};
#define N_BUILTIN_HEADERS ((int)(sizeof BUILTIN_HEADER_NAMES / sizeof BUILTIN_HEADER_NAMES[0]))

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

const char *compile_nvrtc_version(void) {
    static char buf[32];
    if (!buf[0]) {
        int major = 0, minor = 0;
        if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS) return NULL;
        snprintf(buf, sizeof buf, "%d.%d", major, minor);
    }
    return buf;
}

static bool has_fp16_header(const char *dir) {
    char *p = path_join(dir, "cuda_fp16.h");
    bool ok = fs_exists(p);
    free(p);
    return ok;
}

/* Where the toolkit's headers are: $CUDOJO_CUDA_INCLUDE, $CUDA_HOME/include,
 * next to the libnvrtc we loaded (../include: a bundle ships them there), then
 * the usual install paths. NULL when none has cuda_fp16.h. Static storage. */
const char *compile_cuda_include_dir(void) {
    static char *found;
    static bool searched;
    if (searched) return found;
    searched = true;
    const char *env = getenv("CUDOJO_CUDA_INCLUDE");
    if (env && *env && has_fp16_header(env)) return found = xstrdup(env);
    const char *home = getenv("CUDA_HOME");
    if (home && *home) {
        char *p = path_join(home, "include");
        if (has_fp16_header(p)) return found = p;
        free(p);
    }
    Dl_info info;
    if (dladdr((void *)nvrtcVersion, &info) && info.dli_fname) {
        char *libdir = path_dirname(info.dli_fname);
        char *up = path_join(libdir, "../include");
        char *p = path_absolute(up);
        free(libdir);
        free(up);
        if (has_fp16_header(p)) return found = p;
        free(p);
    }
    static const char *const fixed[] = {"/usr/local/cuda/include", "/opt/cuda/include",
                                        "/usr/include"};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        if (has_fp16_header(fixed[i])) return found = xstrdup(fixed[i]);
    return NULL;
}

/* ---- options ---- */

typedef struct OptList {
    char **v;
    int n, cap;
} OptList;

static void opts_add(OptList *o, char *owned) {
    if (o->n == o->cap) {
        o->cap = o->cap ? o->cap * 2 : 16;
        o->v = xrealloc(o->v, (size_t)o->cap * sizeof *o->v);
    }
    o->v[o->n++] = owned;
}

static void opts_free(OptList *o) {
    for (int i = 0; i < o->n; i++) free(o->v[i]);
    free(o->v);
    memset(o, 0, sizeof *o);
}

/* Options of every program; the arch and ptxas flags are added per program. */
static void opts_common(const CompileOptions *opts, OptList *o) {
    opts_add(o, xstrdup("-lineinfo"));
    opts_add(o, xstrdup("--std=c++17"));
    const char *inc = compile_cuda_include_dir();
    if (inc) {
        opts_add(o, xasprintf("-I%s", inc));
        /* CUDA 13 moved libcu++ (cuda/std/...), which cooperative_groups needs, here. */
        char *cccl = path_join(inc, "cccl");
        if (fs_is_dir(cccl)) opts_add(o, xasprintf("-I%s", cccl));
        free(cccl);
    }
    if (opts->fast_math) opts_add(o, xstrdup("--use_fast_math"));
    for (int i = 0; i < opts->n_extra_opts; i++) opts_add(o, xstrdup(opts->extra_opts[i]));
}

static int opt_level_of(const CompileOptions *opts) {
    return opts->opt_level < 0 || opts->opt_level > 3 ? 3 : opts->opt_level;
}

/* ---- one NVRTC program ---- */

typedef struct NvrtcOut {
    nvrtcResult rc;
    char *log;                      /* NULL when empty */
    char *ptx;
    size_t ptx_size;
    void *cubin;
    size_t cubin_size;
    char **lowered;                 /* per name expression, NULL when not found */
} NvrtcOut;

static void nvrtc_out_fini(NvrtcOut *o, int n_names) {
    free(o->log);
    free(o->ptx);
    free(o->cubin);
    if (o->lowered)
        for (int i = 0; i < n_names; i++) free(o->lowered[i]);
    free(o->lowered);
    memset(o, 0, sizeof *o);
}

static unsigned long nvrtc_runs;

unsigned long compile_nvrtc_runs(void) { return nvrtc_runs; }

/* This process's mapped bytes (/proc/self/statm), 0 when unknown. */
static long long mapped_bytes(void) {
    FILE *f = fopen("/proc/self/statm", "r");
    long long pages = 0;
    if (f) {
        if (fscanf(f, "%lld", &pages) != 1) pages = 0;
        fclose(f);
    }
    return pages * sysconf(_SC_PAGESIZE);
}

/* A graded compile (opts->confine) may map CUDOJO_COMPILE_AS_MB more than
 * the worker had: RLIMIT_AS's soft limit for the time of the compile. NVRTC
 * runs inside the worker; the worker runs one exercise at a time, so
 * nothing else of it allocates meanwhile. Returns whether it was set (and
 * the old limit in *old). */
static bool memory_bound_begin(const CompileOptions *opts, struct rlimit *old) {
    if (!opts->confine || getrlimit(RLIMIT_AS, old) != 0) return false;
    long long now = mapped_bytes();
    if (now <= 0) return false;
    rlim_t want = (rlim_t)(now + program_sandbox_compile_as_bytes());
    if (old->rlim_cur != RLIM_INFINITY && old->rlim_cur <= want) return false;
    if (old->rlim_max != RLIM_INFINITY && want > old->rlim_max) return false;
    struct rlimit r = {want, old->rlim_max};
    return setrlimit(RLIMIT_AS, &r) == 0;
}

/* NVRTC looks for a quoted "name.h" beside the program's name, relative to
 * this process's folder: a graded source named "ch/x.cu" could include the
 * course's ch/solutions/x.cu. --no-source-include stops that, but it also
 * stops every header from finding its neighbours (<mma.h> -> "crt/mma.h"
 * -> "mma.hpp", cooperative_groups' "helpers.h"): graded tensor-core and
 * cooperative-groups exercises then failed to compile. So a confined
 * compile of a relative name runs with the process in an empty folder of
 * its own: the name's folder holds nothing there, and the toolkit's headers,
 * found through absolute -I folders, still see theirs. The worker compiles
 * on the thread that runs the exercise, with nothing else of it reading
 * relative paths meanwhile. An absolute name, or no empty folder to be had,
 * falls back to --no-source-include. */
typedef struct ConfinedCwd {
    int back_fd;                    /* the folder to return to; -1 when not moved */
    char dir[64];
} ConfinedCwd;

static bool confined_cwd_enter(const char *path, ConfinedCwd *c) {
    c->back_fd = -1;
    if (path[0] == '/') return false;
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp || strlen(tmp) > 40) tmp = "/tmp";
    snprintf(c->dir, sizeof c->dir, "%s/cudojo-cc-XXXXXX", tmp);
    if (!mkdtemp(c->dir)) return false;
    c->back_fd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (c->back_fd < 0 || chdir(c->dir) != 0) {
        if (c->back_fd >= 0) close(c->back_fd);
        c->back_fd = -1;
        rmdir(c->dir);
        return false;
    }
    return true;
}

static void confined_cwd_leave(ConfinedCwd *c) {
    if (c->back_fd < 0) return;
    /* The folder we came from went away meanwhile: "/" rather than a folder about to be removed. */
    if (fchdir(c->back_fd) != 0 && chdir("/") != 0) { /* nowhere left to go */ }
    close(c->back_fd);
    c->back_fd = -1;
    rmdir(c->dir);
}

static void nvrtc_run(const char *path, const char *source, const CompileOptions *opts,
                      const OptList *ol, bool want_cubin, NvrtcOut *out) {
    memset(out, 0, sizeof *out);
    nvrtc_runs++;
    ConfinedCwd cwd = {.back_fd = -1};
    OptList with = *ol;
    char *no_source = NULL;
    if (opts->confine && !confined_cwd_enter(path, &cwd)) {
        /* ol's array, one option longer: the fallback above */
        with.v = xmalloc((size_t)(ol->n + 1) * sizeof *with.v);
        memcpy(with.v, ol->v, (size_t)ol->n * sizeof *with.v);
        with.v[with.n++] = no_source = xstrdup("--no-source-include");
    }
    struct rlimit old_as;
    bool bounded = memory_bound_begin(opts, &old_as);
    nvrtcProgram prog;
    out->rc = nvrtcCreateProgram(&prog, source, path, N_BUILTIN_HEADERS, BUILTIN_HEADERS,
                                 BUILTIN_HEADER_NAMES);
    bool created = out->rc == NVRTC_SUCCESS;
    if (created) {
        for (int i = 0; i < opts->n_name_exprs; i++) nvrtcAddNameExpression(prog, opts->name_exprs[i]);
        out->rc = nvrtcCompileProgram(prog, with.n, (const char *const *)with.v);
    }
    if (bounded) setrlimit(RLIMIT_AS, &old_as);
    confined_cwd_leave(&cwd);
    if (no_source) {
        free(no_source);
        free(with.v);
    }
    if (!created) return;
    size_t n = 0;
    if (nvrtcGetProgramLogSize(prog, &n) == NVRTC_SUCCESS && n > 1) {
        out->log = xmalloc(n);
        if (nvrtcGetProgramLog(prog, out->log) != NVRTC_SUCCESS) XFREE(out->log);
    }
    if (out->rc == NVRTC_SUCCESS) {
        if (nvrtcGetPTXSize(prog, &n) == NVRTC_SUCCESS && n > 0) {
            out->ptx = xmalloc(n);
            if (nvrtcGetPTX(prog, out->ptx) == NVRTC_SUCCESS) {
                out->ptx[n - 1] = '\0';
                out->ptx_size = strlen(out->ptx);
            } else {
                XFREE(out->ptx);
            }
        }
        if (want_cubin && nvrtcGetCUBINSize(prog, &n) == NVRTC_SUCCESS && n > 0) {
            out->cubin = xmalloc(n);
            if (nvrtcGetCUBIN(prog, out->cubin) == NVRTC_SUCCESS)
                out->cubin_size = n;
            else
                XFREE(out->cubin);
        }
        if (opts->n_name_exprs > 0) {
            out->lowered = xcalloc((size_t)opts->n_name_exprs, sizeof *out->lowered);
            for (int i = 0; i < opts->n_name_exprs; i++) {
                const char *low = NULL;
                if (nvrtcGetLoweredName(prog, opts->name_exprs[i], &low) == NVRTC_SUCCESS && low)
                    out->lowered[i] = xstrdup(low);
            }
        }
    }
    nvrtcDestroyProgram(&prog);
}

/* ---- kernels ---- */

static void kernel_add(CompiledModule *m, const char *name, const char *lowered) {
    m->kernels = xrealloc(m->kernels, (size_t)(m->n_kernels + 1) * sizeof *m->kernels);
    KernelInfo *k = &m->kernels[m->n_kernels++];
    k->name = xstrdup(name);
    k->lowered = xstrdup(lowered);
    k->registers = k->shared_static = k->local_bytes = k->spill_bytes = -1;
}

static KernelInfo *kernel_by_lowered(CompiledModule *m, const char *lowered) {
    for (int i = 0; i < m->n_kernels; i++)
        if (!strcmp(m->kernels[i].lowered, lowered)) return &m->kernels[i];
    return NULL;
}

/* Name expressions first (so "scale<float>" names its instantiation), then
 * every other .entry under its demangled name. */
static void kernels_from_ptx(CompiledModule *m, const CompileOptions *opts, char **lowered) {
    for (int i = 0; i < opts->n_name_exprs; i++)
        if (lowered && lowered[i] && !kernel_by_lowered(m, lowered[i]))
            kernel_add(m, opts->name_exprs[i], lowered[i]);
    char **entries = NULL;
    int n = compile_ptx_entries(m->ptx, &entries);
    for (int i = 0; i < n; i++) {
        if (!kernel_by_lowered(m, entries[i])) {
            char *plain = compile_demangle(entries[i]);
            kernel_add(m, plain, entries[i]);
            free(plain);
        }
        free(entries[i]);
    }
    free(entries);
}

Diag *compile_kernel_resources(const void *cubin, size_t cubin_size, const char *ptxas_log,
                               KernelInfo *kernels, int n) {
    if (ptxas_log) compile_ptxas_info(ptxas_log, kernels, n);
    CubinInfo *info = NULL;
    Diag *d = cubin_info_parse(cubin, cubin_size, &info);
    for (int i = 0; info && i < n; i++) {
        const CubinKernel *ck = cubin_info_find(info, kernels[i].lowered);
        if (!ck) continue;
        if (ck->registers >= 0) kernels[i].registers = ck->registers;
        if (ck->local_bytes >= 0) kernels[i].local_bytes = ck->local_bytes;
        if (ck->shared_static >= 0) kernels[i].shared_static = ck->shared_static;
    }
    cubin_info_free(&info);
    return d;
}

const KernelInfo *compiled_module_find(const CompiledModule *m, const char *name) {
    if (!m || !name) return NULL;
    for (int i = 0; i < m->n_kernels; i++)
        if (!strcmp(m->kernels[i].name, name)) return &m->kernels[i];
    for (int i = 0; i < m->n_kernels; i++)
        if (!strcmp(m->kernels[i].lowered, name)) return &m->kernels[i];
    /* "vector_add" finds "ns::vector_add" and a template instantiation of vector_add. */
    for (int i = 0; i < m->n_kernels; i++) {
        char *plain = compile_demangle(m->kernels[i].lowered);
        const char *base = strrchr(plain, ':');
        bool hit = !strcmp(base ? base + 1 : plain, name) || !strcmp(plain, name);
        free(plain);
        if (hit) return &m->kernels[i];
    }
    return NULL;
}

void compiled_module_free(CompiledModule **mp) {
    CompiledModule *m = *mp;
    if (!m) return;
    free(m->source_path);
    free(m->source);
    free(m->ptx);
    free(m->cubin);
    for (int i = 0; i < m->n_kernels; i++) {
        free(m->kernels[i].name);
        free(m->kernels[i].lowered);
    }
    free(m->kernels);
    free(m->log);
    diag_free(&m->warnings);
    free(m);
    *mp = NULL;
}

/* ---- cache ---- */

static void hash_item(Sha256 *s, const char *tag, const void *data, size_t len) {
    uint64_t n = len;
    sha256_update(s, tag, strlen(tag) + 1);
    sha256_update(s, &n, sizeof n);
    if (len) sha256_update(s, data, len);
}

static void cache_key(const char *path, const char *source, const CompileOptions *opts,
                      const OptList *ptx_opts, const OptList *cubin_opts, char hex[65]) {
    Sha256 s;
    sha256_init(&s);
    hash_item(&s, "magic", CACHE_MAGIC, strlen(CACHE_MAGIC));
    const char *ver = compile_nvrtc_version();
    hash_item(&s, "nvrtc", ver ? ver : "?", ver ? strlen(ver) : 1);
    hash_item(&s, "path", path, strlen(path));
    hash_item(&s, "source", source, strlen(source));
    for (int i = 0; i < ptx_opts->n; i++) hash_item(&s, "ptx-opt", ptx_opts->v[i], strlen(ptx_opts->v[i]));
    for (int i = 0; cubin_opts && i < cubin_opts->n; i++)
        hash_item(&s, "cubin-opt", cubin_opts->v[i], strlen(cubin_opts->v[i]));
    /* A cubin build's PTX is its own program's (ptx_opts' only when the
     * emulator cannot decode that); entries made by two programs per build
     * (compute_80 PTX beside the cubin) had the same options: kept apart. */
    if (cubin_opts) hash_item(&s, "ptx-from", "cubin", 5);
    for (int i = 0; i < opts->n_name_exprs; i++)
        hash_item(&s, "name", opts->name_exprs[i], strlen(opts->name_exprs[i]));
    for (int i = 0; i < N_BUILTIN_HEADERS; i++)
        hash_item(&s, BUILTIN_HEADER_NAMES[i], BUILTIN_HEADERS[i], strlen(BUILTIN_HEADERS[i]));
    unsigned char d[32];
    sha256_final(&s, d);
    sha256_to_hex(d, hex);
}

static char *cache_dir_resolve(const CompileOptions *opts) {
    if (opts->cache_dir) return opts->cache_dir[0] ? xstrdup(opts->cache_dir) : NULL;
    char *base = xdg_cache_dir();
    char *dir = path_join(base, "nvrtc");
    free(base);
    return dir;
}

char *compile_cache_path(const char *dir, const char *key) {
    char *name = xasprintf("%s.nvrtc", key);
    char *p = path_join(dir, name);
    free(name);
    return p;
}

/* Layout: magic, then sections "NAME LEN\n<LEN bytes>\n" (ptx, cubin, log,
 * kernels), then "sha256 HEX\n" over everything before it, so a truncated or
 * scribbled file is detected and recompiled. */
static void cache_section(StrBuf *sb, const char *name, const void *data, size_t len) {
    strbuf_printf(sb, "%s %zu\n", name, len);
    strbuf_append_n(sb, data ? data : "", len);
    strbuf_append_char(sb, '\n');
}

static void cache_store(const char *file, const CompiledModule *m) {
    StrBuf sb, ks;
    strbuf_init(&sb);
    strbuf_init(&ks);
    strbuf_append(&sb, CACHE_MAGIC);
    cache_section(&sb, "ptx", m->ptx, m->ptx_size);
    cache_section(&sb, "cubin", m->cubin, m->cubin_size);
    cache_section(&sb, "log", m->log, m->log ? strlen(m->log) : 0);
    strbuf_printf(&ks, "%d\n", m->cubin_arch);
    for (int i = 0; i < m->n_kernels; i++) {
        const KernelInfo *k = &m->kernels[i];
        strbuf_printf(&ks, "%s\t%s\t%d\t%d\t%d\t%d\n", k->name, k->lowered, k->registers,
                      k->shared_static, k->local_bytes, k->spill_bytes);
    }
    cache_section(&sb, "kernels", ks.data, ks.len);
    char hex[65];
    sha256_hex(sb.data, sb.len, hex);
    strbuf_printf(&sb, "sha256 %s\n", hex);
    char *dir = path_dirname(file);
    Diag *d = fs_mkdir_p(dir);
    if (!d) d = fs_write_file_atomic(file, sb.data, sb.len);
    diag_free(&d);     /* a cache that cannot be written only costs time */
    free(dir);
    strbuf_fini(&sb);
    strbuf_fini(&ks);
}

/* Removes the least recently used entries once there are more than CACHE_KEEP. */
static void cache_prune(const char *dir) { fs_prune_lru(dir, ".nvrtc", CACHE_KEEP, UINT64_MAX, 0); }

static bool cache_take(const char **p, const char *end, const char *name, const char **data,
                       size_t *len) {
    size_t nl = strlen(name);
    if ((size_t)(end - *p) < nl + 2 || memcmp(*p, name, nl) || (*p)[nl] != ' ') return false;
    char *after;
    errno = 0;
    unsigned long long n = strtoull(*p + nl + 1, &after, 10);
    if (errno || *after != '\n' || (size_t)(end - (after + 1)) < n + 1 || after[1 + n] != '\n')
        return false;
    *data = after + 1;
    *len = (size_t)n;
    *p = after + 1 + n + 1;
    return true;
}

/* Returns the module stored in `file`, or NULL if absent or corrupt. */
static CompiledModule *cache_load(const char *file) {
    char *buf = NULL;
    size_t len = 0;
    Diag *d = fs_read_file(file, &buf, &len);
    if (d) {
        diag_free(&d);
        return NULL;
    }
    CompiledModule *m = NULL;
    const char *end = buf + len, *p = buf;
    const char *ptx, *cubin, *log, *ks;
    size_t ptx_n, cubin_n, log_n, ks_n;
    size_t magic_n = strlen(CACHE_MAGIC);
    if (len < magic_n + 72 || memcmp(buf, CACHE_MAGIC, magic_n)) goto out;
    const char *sum = end - 72;     /* "sha256 " + 64 hex + "\n" */
    if (memcmp(sum, "sha256 ", 7) || end[-1] != '\n') goto out;
    char hex[65];
    sha256_hex(buf, (size_t)(sum - buf), hex);
    if (memcmp(hex, sum + 7, 64)) goto out;
    p += magic_n;
    end = sum;
    if (!cache_take(&p, end, "ptx", &ptx, &ptx_n) || !cache_take(&p, end, "cubin", &cubin, &cubin_n) ||
        !cache_take(&p, end, "log", &log, &log_n) || !cache_take(&p, end, "kernels", &ks, &ks_n) ||
        p != end || ptx_n == 0)
        goto out;
    m = xcalloc(1, sizeof *m);
    m->ptx = xstrndup(ptx, ptx_n);
    m->ptx_size = ptx_n;
    if (cubin_n) {
        m->cubin = xmalloc(cubin_n);
        memcpy(m->cubin, cubin, cubin_n);
        m->cubin_size = cubin_n;
    }
    m->log = log_n ? xstrndup(log, log_n) : NULL;
    char *kt = xstrndup(ks, ks_n), *save = NULL;
    char *line = strtok_r(kt, "\n", &save);
    m->cubin_arch = line ? atoi(line) : 0;
    while ((line = strtok_r(NULL, "\n", &save))) {
        char name[1024], lowered[1024];
        int r, s, l, sp;
        if (sscanf(line, "%1023[^\t]\t%1023[^\t]\t%d\t%d\t%d\t%d", name, lowered, &r, &s, &l, &sp) != 6)
            continue;
        kernel_add(m, name, lowered);
        KernelInfo *k = &m->kernels[m->n_kernels - 1];
        k->registers = r;
        k->shared_static = s;
        k->local_bytes = l;
        k->spill_bytes = sp;
    }
    free(kt);
out:
    free(buf);
    return m;
}

/* ---- compile ---- */

Diag *compile_cuda(const char *path, const char *source, const CompileOptions *opts,
                   CompiledModule **out) {
    return compile_cuda_logged(path, source, opts, out, NULL);
}

static bool log_has_ptxas(const char *log) {
    for (const char *p = log; p && *p; p += strcspn(p, "\n"), p += *p == '\n')
        if (!strncmp(p, "ptxas", 5)) return true;
    return false;
}

/* NVRTC's own lines of `log`, without ptxas -v's (a cubin build's log has
 * both): what the module keeps as its warnings. NULL when none; caller frees. */
static char *log_front_end(const char *log) {
    StrBuf sb;
    strbuf_init(&sb);
    for (const char *p = log; p && *p;) {
        size_t n = strcspn(p, "\n");
        if (strncmp(p, "ptxas", 5)) strbuf_append_n(&sb, p, n + (p[n] == '\n'));
        p += n + (p[n] == '\n');
    }
    char *s = NULL;
    for (size_t i = 0; i < sb.len && !s; i++)
        if (!isspace((unsigned char)sb.data[i])) s = strbuf_steal(&sb);
    strbuf_fini(&sb);
    return s;
}

/* The errors of the program that ran: the front end's, in the learner's
 * file; when it gave none and the build failed, ptxas's (a cubin build:
 * a kernel too big for the machine) or whatever NVRTC printed. A confined
 * build that ran out of memory says so first. Warnings go to *warnings. */
static Diag *program_errors(const NvrtcOut *o, const char *path, const char *source,
                            const CompileOptions *opts, Diag **warnings) {
    Diag *err = compile_log_parse(o->log, path, source, NVRTC_SUCCESS, warnings);
    bool cubin = opts->cubin_arch > 0;
    if (!err && o->rc != NVRTC_SUCCESS)
        err = cubin && log_has_ptxas(o->log) ? compile_ptxas_failure(o->log, path, opts->cubin_arch, o->rc)
                                            : compile_log_parse(o->log, path, source, o->rc, NULL);
    if (err && opts->confine && o->rc != NVRTC_SUCCESS && o->log && strstr(o->log, "out of memory")) {
        Diag *oom = diag_new(DIAG_ERROR, "compile-memory", path, 0, 0,
                             "the compiler ran out of memory on this file (graded work may use %lld MiB "
                             "to compile): a template or constexpr computation that grows without end?",
                             program_sandbox_compile_as_bytes() >> 20);
        oom->next = err;
        err = oom;
    }
    if (!err && !o->ptx) err = diag_error("compile", "NVRTC produced no PTX for %s", path);
    if (!err && cubin && !o->cubin) err = compile_ptxas_failure(o->log, path, opts->cubin_arch, o->rc);
    return err;
}

/* A cubin build's PTX comes from the cubin's own program (compute_XX, as
 * the cubin): one NVRTC program, not two, is ~0.6x the time (bench_compile).
 * Its PTX differs from compute_80's at most where __CUDA_ARCH__ or the
 * compiler picked an sm_XX instruction; when the emulator cannot decode it
 * (its parse check: at most 1 ms on the course's solutions, beside 20 ms
 * to 1 s of NVRTC), the PTX is compiled again for `ptx_opts` (compute_80;
 * the caller sees to it being older than the cubin's arch, PTX the GPU
 * could JIT too) and replaces it. Eagerly, here, not when the emulator
 * first asks: no run of today hands a GPU build to the emulator (grading's
 * emulator check compiles for it), the check costs next to nothing beside
 * NVRTC, and the module (and its cache entry) then always holds PTX the
 * emulator runs, with no compile recipe to carry to it. When the
 * compute_80 build fails (the source needs sm_XX), the sm_XX PTX stays:
 * the GPU runs the cubin either way. */
static void emu_ptx_fallback(const char *path, const char *source, const CompileOptions *opts,
                             const OptList *ptx_opts, NvrtcOut *built) {
    Diag *bad = emu_parse_check(built->ptx, built->ptx_size);
    if (!bad) return;
    diag_free(&bad);
    NvrtcOut fb;
    nvrtc_run(path, source, opts, ptx_opts, false, &fb);
    if (fb.rc == NVRTC_SUCCESS && fb.ptx) {
        free(built->ptx);
        built->ptx = fb.ptx;
        built->ptx_size = fb.ptx_size;
        fb.ptx = NULL;
    }
    nvrtc_out_fini(&fb, opts->n_name_exprs);
}

/* The module of a program that built (o's PTX, cubin and log move into it). */
static CompiledModule *module_from(NvrtcOut *o, const CompileOptions *opts) {
    CompiledModule *m = xcalloc(1, sizeof *m);
    m->ptx = o->ptx;
    m->ptx_size = o->ptx_size;
    o->ptx = NULL;
    m->log = log_front_end(o->log);
    m->cubin = o->cubin;
    m->cubin_size = o->cubin_size;
    m->cubin_arch = o->cubin ? opts->cubin_arch : 0;
    o->cubin = NULL;
    kernels_from_ptx(m, opts, o->lowered);
    if (m->cubin) {
        /* A cubin we cannot read leaves the log's numbers (or -1,
         * "unknown", which the features that need them report). */
        Diag *cd = compile_kernel_resources(m->cubin, m->cubin_size, o->log, m->kernels, m->n_kernels);
        diag_free(&cd);
    }
    return m;
}

Diag *compile_cuda_logged(const char *path, const char *source, const CompileOptions *opts_in,
                          CompiledModule **out, char **ptxas_log) {
    double t0 = now_ms();
    *out = NULL;
    if (ptxas_log) *ptxas_log = NULL;
    CompileOptions defaults = {0};
    const CompileOptions *opts = opts_in ? opts_in : &defaults;
    if (!path) path = "kernel.cu";
    if (!source) return diag_error("compile", "no source to compile for %s", path);
    size_t source_len = strlen(source);
    if (source_len > COMPILE_SOURCE_MAX)
        return diag_new(DIAG_ERROR, "compile", path, 0, 0,
                        "%s is %zu KiB; a kernel source may be at most %d KiB (NVRTC needs about 10 s per MB, "
                        "longer than a run may take)", path, source_len >> 10, COMPILE_SOURCE_MAX >> 10);
    if (!compile_nvrtc_version())
        return diag_error("compile", "NVRTC cannot be loaded: install the CUDA toolkit (libnvrtc)");
    if (opts->confine) {
        long long as_bytes;
        Diag *bad = program_env_mib("CUDOJO_COMPILE_AS_MB", 4096, &as_bytes);
        if (bad) return bad;
    }

    /* ptx_opts: the PTX-only program (no cubin), or a cubin build's emulator fallback. */
    int varch = opts->virtual_arch > 0 ? opts->virtual_arch : 80;
    bool cubin = opts->cubin_arch > 0;
    OptList ptx_opts = {0}, cubin_opts = {0};
    opts_add(&ptx_opts, xasprintf("-arch=compute_%d", varch));
    opts_common(opts, &ptx_opts);
    if (cubin) {
        opts_add(&cubin_opts, xasprintf("-arch=sm_%d", opts->cubin_arch));
        opts_common(opts, &cubin_opts);
        opts_add(&cubin_opts, xstrdup("--ptxas-options=-v"));
        opts_add(&cubin_opts, xasprintf("--ptxas-options=-O%d", opt_level_of(opts)));
    }

    char key[65];
    cache_key(path, source, opts, &ptx_opts, cubin ? &cubin_opts : NULL, key);
    char *dir = cache_dir_resolve(opts);
    char *file = dir ? compile_cache_path(dir, key) : NULL;
    Diag *err = NULL;
    CompiledModule *m = file ? cache_load(file) : NULL;
    if (m) {
        m->cache_hit = true;
        utimensat(AT_FDCWD, file, NULL, 0);     /* least recently used goes first */
    } else {
        NvrtcOut o;
        nvrtc_run(path, source, opts, cubin ? &cubin_opts : &ptx_opts, cubin, &o);
        Diag *warnings = NULL;
        err = program_errors(&o, path, source, opts, &warnings);
        if (!err && cubin && varch < opts->cubin_arch) emu_ptx_fallback(path, source, opts, &ptx_opts, &o);
        if (!err) {
            m = module_from(&o, opts);
            if (ptxas_log && cubin) {
                *ptxas_log = o.log;
                o.log = NULL;
            }
            if (file) {
                cache_store(file, m);
                cache_prune(dir);
            }
        }
        diag_free(&warnings);   /* re-derived below, the same way for hits and misses */
        nvrtc_out_fini(&o, opts->n_name_exprs);
    }
    if (m) {
        m->source_path = xstrdup(path);
        m->source = xstrdup(source);
        Diag *w = NULL;
        Diag *e = compile_log_parse(m->log, path, source, NVRTC_SUCCESS, &w);
        diag_free(&e);
        m->warnings = w;
        m->compile_ms = now_ms() - t0;
    }
    free(file);
    free(dir);
    opts_free(&ptx_opts);
    opts_free(&cubin_opts);
    *out = m;
    return err;
}
