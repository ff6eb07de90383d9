/* kernels/program_env.c: what a learner's program runs with: where
 * cudojo's runtime libraries are (the emulator runtime, the CUPTI
 * injection library) and the environment the child gets.
 *
 * Minimal unless the caller keeps its own (cudojo exec): PATH, HOME and
 * TMPDIR (the run directory), LANG; then the report channel's descriptor,
 * and per runtime: on the emulator LD_LIBRARY_PATH with our directory
 * first and LD_PRELOAD of our libcudart (a program with an RPATH to
 * NVIDIA's still gets ours: the loader matches DT_NEEDED by soname, and a
 * preloaded soname is already there), plus the CUDOJO_EMU_* options; on a
 * GPU the toolkit's lib64 and CUDA_INJECTION64_PATH. */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/number.h"
#include "base/xalloc.h"
#include "kernels/program_internal.h"
#include "kernels/progwire.h"

extern char **environ;

#if defined(__SANITIZE_ADDRESS__)
#include <link.h>

/* `make san` builds the emulator runtime with ASan too; a program that is
 * not instrumented can only load it when the ASan runtime is preloaded
 * first. The one this process runs with is the one it was built with. */
static int find_asan(struct dl_phdr_info *info, size_t size, void *out) {
    (void)size;
    if (info->dlpi_name && strstr(info->dlpi_name, "/libasan.so")) {
        *(const char **)out = info->dlpi_name;
        return 1;
    }
    return 0;
}

static const char *asan_runtime(void) {
    const char *path = NULL;
    dl_iterate_phdr(find_asan, &path);
    return path;
}
#endif

/* ---- where the runtime libraries are ---- */

static char *exe_dir(void) {
    char buf[4096];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0) return NULL;
    buf[n] = '\0';
    return path_dirname(buf);
}

/* `rel` under $ENV, then next to the running executable (DIR/sub,
 * DIR/../sub, DIR/../../sub: a bundle, the build dir, a test binary in
 * build/tests/x/; DIR/../lib/cudojo/sub: installed), then the build dir
 * compiled in. Caller frees. */
static char *find_beside(const char *env, const char *sub, const char *file) {
    const char *e = getenv(env);
    if (e && *e) {
        char *p = path_join(e, file);
        bool ok = fs_exists(p);
        free(p);
        if (ok) return path_absolute(e);
    }
    char *dir = exe_dir();
    static const char *const ups[] = {"", "..", "../..", "../lib/cudojo"};   /* ... and `make install`'s layout */
    for (size_t i = 0; dir && i < sizeof ups / sizeof ups[0]; i++) {
        char *base = *ups[i] ? path_join(dir, ups[i]) : xstrdup(dir);
        char *d = path_join(base, sub);
        char *p = path_join(d, file);
        bool ok = fs_exists(p);
        free(p);
        free(base);
        if (ok) {
            free(dir);
            char *abs = path_absolute(d);
            free(d);
            return abs;
        }
        free(d);
    }
    free(dir);
#ifdef CUDOJO_BUILD_DIR
    char *d = path_join(CUDOJO_BUILD_DIR, sub);
    char *p = path_join(d, file);
    bool ok = fs_exists(p);
    free(p);
    if (ok) return d;
    free(d);
#endif
    return NULL;
}

const char *program_cudart_soname(void) {
    static char name[32];
    if (!name[0]) snprintf(name, sizeof name, "libcudart.so.%d", CUDART_VERSION / 1000);
    return name;
}

const char *program_emurt_dir(void) {
    static char *dir;
    static bool searched;
    if (!searched) {
        searched = true;
        dir = find_beside("CUDOJO_EMURT_DIR", "emurt", program_cudart_soname());
    }
    return dir;
}

/* find_beside's folder joined with `file`, or NULL: the path a static
 * `*path` keeps once *searched. */
static const char *file_beside_once(char **path, bool *searched, const char *env, const char *sub, const char *file) {
    if (!*searched) {
        *searched = true;
        char *d = find_beside(env, sub, file);
        if (d) *path = path_join(d, file);
        free(d);
    }
    return *path;
}

const char *program_inject_path(void) {
    static char *path;
    static bool searched;
    return file_beside_once(&path, &searched, "CUDOJO_INJECT_DIR", "inject", "libcudojo_inject.so");
}

const char *program_confine_helper(void) {
    static char *path;
    static bool searched;
    return file_beside_once(&path, &searched, "CUDOJO_CONFINE_DIR", "confine", "cudojo-confine");
}

/* ---- environment ---- */

typedef struct Env {
    char **v;
    int n, cap;
} Env;

static void env_put(Env *e, char *owned) {
    size_t k = strcspn(owned, "=");
    for (int i = 0; i < e->n; i++)
        if (!strncmp(e->v[i], owned, k + 1)) {
            free(e->v[i]);
            e->v[i] = owned;
            return;
        }
    if (e->n + 1 >= e->cap) {
        e->cap = e->cap ? e->cap * 2 : 32;
        e->v = xrealloc(e->v, (size_t)e->cap * sizeof *e->v);
    }
    e->v[e->n++] = owned;
    e->v[e->n] = NULL;
}

static const char *cuda_home(void) {
    const char *h = getenv("CUDA_HOME");
    return h && *h ? h : "/usr/local/cuda";
}

int program_stream_queues_of(const char *v) {
    long long n = 0;
    number_whole(v, 1, 32, &n);
    return (int)n;
}

static void build_env(Env *e, const ProgramRunOptions *o, const char *cwd, unsigned flags) {
    if (o->keep_env) {     /* what we set below replaces the caller's */
        for (char **p = environ; p && *p; p++)
            if (strchr(*p, '=')) env_put(e, xstrdup(*p));
    } else {
        const char *path = getenv("PATH"), *lang = getenv("LANG");
        env_put(e, xasprintf("PATH=%s", path && *path ? path : "/usr/local/bin:/usr/bin:/bin"));
        env_put(e, xasprintf("HOME=%s", cwd));
        env_put(e, xasprintf("TMPDIR=%s", cwd));
        env_put(e, xasprintf("LANG=%s", lang && *lang ? lang : "C.UTF-8"));
    }
    env_put(e, xasprintf("%s=%d", PROGWIRE_ENV_FD, PROGRAM_REPORT_FD));
    if (flags & PROGRAM_ENV_TURN) env_put(e, xasprintf("%s=%d", PROGWIRE_ENV_TURN_FD, PROGRAM_TURN_FD));
    if (flags & PROGRAM_ENV_DRAIN) env_put(e, xasprintf("%s=%d", PROGWIRE_ENV_DRAIN_FD, PROGRAM_DRAIN_FD));
    if (!(o->keep_env && getenv("CUDA_DEVICE_MAX_CONNECTIONS"))) {
        int queues = program_stream_queues_of(getenv("CUDOJO_STREAM_QUEUES"));
        if (flags & PROGRAM_ENV_ONE_QUEUE)
            env_put(e, xstrdup("CUDA_DEVICE_MAX_CONNECTIONS=1"));
        else if (queues > 0 && o->runtime != PROGRAM_RT_EMU)
            env_put(e, xasprintf("CUDA_DEVICE_MAX_CONNECTIONS=%d", queues));
    }
    const char *old_ld = o->keep_env ? getenv("LD_LIBRARY_PATH") : NULL;
    char *lib64 = path_join(cuda_home(), "lib64");
    if (o->runtime == PROGRAM_RT_EMU) {
        const char *emurt = program_emurt_dir();
        env_put(e, xasprintf("LD_LIBRARY_PATH=%s:%s%s%s", emurt, lib64, old_ld && *old_ld ? ":" : "",
                             old_ld ? old_ld : ""));
#if defined(__SANITIZE_ADDRESS__)
        const char *asan = asan_runtime();
        if (asan) {
            env_put(e, xasprintf("LD_PRELOAD=%s:%s/%s", asan, emurt, program_cudart_soname()));
            if (!getenv("ASAN_OPTIONS")) env_put(e, xstrdup("ASAN_OPTIONS=detect_leaks=0"));
        } else
#endif
        env_put(e, xasprintf("LD_PRELOAD=%s/%s", emurt, program_cudart_soname()));
        env_put(e, xasprintf("CUDOJO_EMU_DEVICES=%d", o->emu_devices > 0 ? o->emu_devices : 1));
        if (o->emu_no_peer) env_put(e, xstrdup("CUDOJO_EMU_PEER=0"));
        if (o->emu) {
            env_put(e, xasprintf("CUDOJO_EMU_THREADS=%d", o->emu->threads));
            env_put(e, xasprintf("CUDOJO_EMU_CHECKS=%d", o->emu->checks));
            env_put(e, xasprintf("CUDOJO_EMU_METRICS=%d", o->emu->metrics));
            env_put(e, xasprintf("CUDOJO_EMU_DETERMINISTIC=%d", o->emu->deterministic));
            env_put(e, xasprintf("CUDOJO_EMU_ADVERSARIAL=%d", o->emu->adversarial));
            if (o->emu->instruction_budget)
                env_put(e, xasprintf("CUDOJO_EMU_BUDGET=%llu", (unsigned long long)o->emu->instruction_budget));
            if (o->emu->seed) env_put(e, xasprintf("CUDOJO_EMU_SEED=%llu", (unsigned long long)o->emu->seed));
            /* CLOCK_MONOTONIC is one clock for every process of the machine */
            if (o->emu->deadline_s > 0) env_put(e, xasprintf("CUDOJO_EMU_DEADLINE=%.3f", o->emu->deadline_s));
        }
    } else {
        env_put(e, xasprintf("LD_LIBRARY_PATH=%s%s%s", lib64, old_ld && *old_ld ? ":" : "", old_ld ? old_ld : ""));
        /* CUDOJO_TIMELINE=off (the overhead bench's baseline): no recorder */
        const char *tl = getenv("CUDOJO_TIMELINE");
        /* under a tool that injects its own library (compute-sanitizer, ncu, nsys): none */
        bool off = (tl && !strcmp(tl, "off")) || (o->tool && !o->tool->keep_inject);
        const char *inj = off ? NULL : program_inject_path();
        if (inj) env_put(e, xasprintf("CUDA_INJECTION64_PATH=%s", inj));
    }
    for (int i = 0; i < o->n_extra_env; i++)
        if (o->extra_env[i] && strchr(o->extra_env[i], '=')) env_put(e, xstrdup(o->extra_env[i]));
    free(lib64);
}

char **program_env_build(const ProgramRunOptions *o, const char *cwd, unsigned flags) {
    Env e = {0};
    build_env(&e, o, cwd, flags);
    return e.v;
}

void program_env_free(char ***envp) {
    for (char **p = *envp; p && *p; p++) free(*p);
    free(*envp);
    *envp = NULL;
}

char **program_env_with(char *const *set, int n) {
    size_t n_env = 0;
    while (environ && environ[n_env]) n_env++;
    char **envp = xcalloc(n_env + (size_t)n + 1, sizeof *envp);
    size_t k = 0;
    for (size_t i = 0; i < n_env; i++) {
        bool replaced = false;
        for (int j = 0; j < n && !replaced; j++) {
            size_t len = strcspn(set[j], "=") + 1;   /* "NAME=" */
            replaced = !strncmp(environ[i], set[j], len);
        }
        if (!replaced) envp[k++] = environ[i];
    }
    for (int j = 0; j < n; j++) envp[k++] = set[j];
    return envp;
}
