/* kernels/program_compile.c: a learner's whole program (.cu with main) →
 * an executable, with the toolkit's nvcc, cached.
 *
 * Options (build_options; program_nvcc_options gives them to bench_nvcc):
 * -lineinfo, host debug info as gcc -g1, -pipe, -nodlink, -cudart shared,
 * the -D defines, -o. Device code: with no `sass_arch` (the emulator) PTX
 * for compute_80, what the emulator runtime runs and the driver JITs for
 * any newer GPU; with one (a GPU: 90 on an H200) one virtual architecture,
 * `arch=compute_90,code=[compute_90,sm_90]`: the SASS the GPU runs is the
 * one the old second -gencode built, and the PTX beside it is the one that
 * SASS came from, which grading's emulator check runs, unless the emulator
 * cannot decode it (an sm_90 instruction it lacks): then nvcc runs again
 * with compute_80 PTX beside the same SASS (emu_runs_ptx). Past the newest
 * PTX the emulator runs (sm_100 and up) compute_80 PTX stays beside the SASS.
 * What each choice saves is said at build_options; bench/bench_nvcc.c
 * measures these options against the older ones.
 *
 * Where nvcc sees the learner's file. nvcc runs in a private directory
 * (under the cache, so the executable can be renamed into place) on a copy
 * of the source named like it, whose first line is `#line 1 "DISPLAY"`:
 * every later line keeps its number, and cudafe++, gcc and __FILE__ all
 * name the display path, so errors need no rewriting and a learner's
 * CHECK() macro prints their own file. The host DWARF and the PTX's .file
 * are made absolute by nvcc: "<private dir>/DISPLAY" for a relative display
 * path; program_path_is() recognises that form (addr2line for host
 * crashes, the emulator's findings), and program_log.c strips the private
 * directory from anything printed, so no temporary path is ever shown.
 *
 * A graded source (ProgramCompileOptions.confine) is a stranger's: nvcc and
 * its whole pipeline (cudafe++, cicc, ptxas, gcc, as, ld) run shut in by
 * program_sandbox.c: Landlock reads only the system, its headers and the
 * toolkit and writes only the private directory (nvcc's TMPDIR too), so
 * an assembler directive or a header name the include check missed cannot
 * read the instructor's files; seccomp (no network, no signals to the
 * worker or grader, no new namespaces); RLIMIT_AS per compiler process
 * (CUDOJO_COMPILE_AS_MB, 4 GiB), RLIMIT_CPU and the wall limit, so a
 * template or constexpr bomb ends with "the compiler ran out of memory".
 *
 * Cache (program_cache.c): $XDG_CACHE_HOME/cudojo/nvcc/<sha256>/ holds the
 * executable and its warnings, keyed by (source, display path, options
 * (every one, as nvcc gets it: a changed option set builds anew; the
 * compute_80 fallback follows from the source and options),
 * nvcc's path and version, whether the compile was confined: an
 * executable built unconfined may hold what a confined compile could not
 * read, so it is never handed to a graded run). A miss compiles holding
 * the entry's lock (program_cache_lock) and looks again once it has it:
 * two compiles of one key at once (`cudojo grade` compiling ahead what a
 * worker then reaches) run nvcc once. The compiler's niceness
 * (ProgramCompileOptions.nice) is no part of the key.
 */
#include "kernels/program.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/sha256.h"
#include "base/strbuf.h"
#include "base/strlist.h"
#include "base/xalloc.h"
#include "kernels/emu/emu.h"
#include "kernels/fatbin.h"
#include "kernels/program_internal.h"

#define CACHE_MAGIC "cudojo-nvcc-cache 1"
extern char **environ;
#define COMPILE_TIMEOUT_S 120.0
#define LOG_CAP (1u << 20)

/* ---- finding nvcc ---- */

static bool is_exe(const char *p) {
    struct stat st;
    return p && stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0;
}

/* Where nvcc is: $CUDOJO_NVCC; $CUDA_HOME/bin when CUDA_HOME is set (then
 * it is the toolkit: the usual places are not searched); else
 * /usr/local/cuda/bin and /opt/cuda/bin; then $PATH. Searched again when
 * those variables change (tests and `cudojo doctor` change them). */
const char *program_nvcc_path(void) {
    static char found[4096], key[8192];
    static bool have;
    const char *env = getenv("CUDOJO_NVCC"), *home = getenv("CUDA_HOME"), *path = getenv("PATH");
    char now[8192];
    snprintf(now, sizeof now, "%s\n%s\n%s", env ? env : "", home ? home : "-", path ? path : "");
    if (have && !strcmp(now, key)) return found[0] ? found : NULL;
    snprintf(key, sizeof key, "%s", now);
    have = true;
    found[0] = '\0';
    char *hit = NULL;
    if (env && *env && is_exe(env)) hit = path_absolute(env);
    if (!hit && home && *home) {
        char *bin = path_join(home, "bin/nvcc");
        if (is_exe(bin)) hit = bin;
        else free(bin);
    } else if (!hit) {
        static const char *const fixed[] = {"/usr/local/cuda/bin/nvcc", "/opt/cuda/bin/nvcc"};
        for (size_t i = 0; i < sizeof fixed / sizeof fixed[0] && !hit; i++)
            if (is_exe(fixed[i])) hit = xstrdup(fixed[i]);
    }
    if (!hit) {
        char *p = proc_find_in_path("nvcc");
        if (p) hit = path_absolute(p);
        free(p);
    }
    if (hit) snprintf(found, sizeof found, "%s", hit);
    free(hit);
    return found[0] ? found : NULL;
}

const char *program_nvcc_version(void) {
    static char version[32], for_path[4096];
    const char *nvcc = program_nvcc_path();
    if (!nvcc) return NULL;
    if (version[0] && !strcmp(for_path, nvcc)) return version;
    version[0] = '\0';
    snprintf(for_path, sizeof for_path, "%s", nvcc);
    const char *argv[] = {nvcc, "--version", NULL};
    ProcCapture c;
    Diag *d = proc_capture(argv, NULL, NULL, 30, 64 * 1024, &c);
    const char *rel = c.out ? strstr(c.out, "release ") : NULL;
    int major = 0, minor = 0;
    if (!d && c.status == 0 && rel && sscanf(rel, "release %d.%d", &major, &minor) == 2)
        snprintf(version, sizeof version, "%d.%d", major, minor);
    diag_free(&d);
    proc_capture_fini(&c);
    return version[0] ? version : NULL;
}

static Diag *no_nvcc(void) {
    const char *home = getenv("CUDA_HOME");
    char *where = home && *home ? xasprintf("%s/bin (CUDA_HOME)", home)
                                : xstrdup("/usr/local/cuda/bin, /opt/cuda/bin");
    Diag *d = diag_error("no-nvcc",
                         "nvcc, the CUDA compiler driver, was not found (cudojo looked in %s and in "
                         "PATH). Programs with main() need it: install the CUDA toolkit's nvcc (e.g. "
                         "`apt-get install cuda-nvcc-13-0` from NVIDIA's repository), or set CUDA_HOME "
                         "to the toolkit's directory. Kernel exercises still work without it.",
                         where);
    free(where);
    return d;
}

/* ---- options and names ---- */


/* The newest PTX the emulator runtime runs (EMU_PTX_ARCH in
 * kernels/emurt/emurt_register.c): a GPU up to it gets its own PTX only. */
#define EMU_PTX_ARCH_MAX 90

/* The options that change the output (the key), without -o and the input.
 * What each costs, over the course's 35 programs (bench_nvcc):
 * - one -gencode when sass_arch is set, not compute_80 PTX plus compute_N
 *   for the SASS: cicc and its preprocessing ran once per virtual arch
 *   (~22% of a GPU build). The sm_90 SASS is byte for byte what it was
 *   (compute_90 PTX was its source before too), and the course's compute_80
 *   and compute_90 PTX differ only in .version/.target. When the emulator
 *   cannot decode the compute_90 PTX (an sm_90 instruction it lacks, such as
 *   add.s16x2 for __vadd2), program_compile builds again with `emu_ptx`:
 *   compute_80 PTX beside the same SASS, the old layout (emu_runs_ptx).
 * - host debug info: gcc -g1, line tables and function names, all that
 *   addr2line (program_crash.c) and the emulator runtime (emurt_dwarf.c)
 *   read; nvcc's -g is gcc -g, every type of every header (~2%).
 * - -nodlink: without -rdc the device link makes and registers an empty
 *   image (nvlink, fatbinary, a gcc run: ~4%).
 * - -pipe: gcc's stages talk through pipes, not temporary files (~2%). */
static void build_options(const ProgramCompileOptions *o, bool emu_ptx, StrList *a) {
    static const char *const fixed[] = {"-lineinfo", "-Xcompiler", "-g1", "-Xcompiler", "-pipe",
                                        "-nodlink",  "-cudart",    "shared"};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) strlist_add(a, xstrdup(fixed[i]));
    int sm = o->sass_arch;
    strlist_add(a, xstrdup("-gencode"));
    if (sm > 0 && sm <= EMU_PTX_ARCH_MAX && !emu_ptx) {
        strlist_add(a, xasprintf("arch=compute_%d,code=[compute_%d,sm_%d]", sm, sm, sm));
    } else {
        strlist_add(a, xstrdup("arch=compute_80,code=compute_80"));
        if (sm > 0) {
            strlist_add(a, xstrdup("-gencode"));
            strlist_add(a, xasprintf("arch=compute_%d,code=sm_%d", sm, sm));
        }
    }
    for (int i = 0; i < o->n_defines; i++) strlist_add(a, xasprintf("-D%s", o->defines[i]));
}

char **program_nvcc_options(const ProgramCompileOptions *o) {
    ProgramCompileOptions none = {0};
    StrList a = {0};
    build_options(o ? o : &none, false, &a);
    return a.v;
}

void program_nvcc_options_free(char ***pv) { strlist_free_v(pv); }

/* "hello-gpu/vector-add.cu" → "vector-add" (letters, digits, "-_." only). */
static char *exe_name_of(const char *display) {
    const char *base = path_basename(display);
    size_t n = strlen(base);
    if (n > 3 && !strcmp(base + n - 3, ".cu")) n -= 3;
    StrBuf sb;
    strbuf_init(&sb);
    for (size_t i = 0; i < n && sb.len < 64; i++) {
        unsigned char c = (unsigned char)base[i];
        strbuf_append_char(&sb, (c < 128 && (c == '-' || c == '_' || c == '.' || (c >= '0' && c <= '9') ||
                                             ((c | 32) >= 'a' && (c | 32) <= 'z')))
                                    ? (char)c
                                    : '_');
    }
    if (!sb.len || sb.data[0] == '.') strbuf_append(&sb, "program");
    char *s = strbuf_steal(&sb);
    strbuf_fini(&sb);
    return s;
}

/* The copy nvcc compiles: `#line 1 "DISPLAY"` then the source. */
static char *source_with_line(const char *display, const char *source) {
    StrBuf sb;
    strbuf_init(&sb);
    strbuf_append(&sb, "#line 1 \"");
    for (const char *p = display; *p; p++) {
        if (*p == '"' || *p == '\\') strbuf_append_char(&sb, '\\');
        if (*p == '\n') continue;
        strbuf_append_char(&sb, *p);
    }
    strbuf_append(&sb, "\"\n");
    strbuf_append(&sb, source);
    char *s = strbuf_steal(&sb);
    strbuf_fini(&sb);
    return s;
}

static void hash_item(Sha256 *s, const char *tag, const char *text) {
    uint64_t n = strlen(text);
    sha256_update(s, tag, strlen(tag) + 1);
    sha256_update(s, &n, sizeof n);
    sha256_update(s, text, n);
}

static void cache_key(const char *display, const char *source, const StrList *opts, const char *nvcc,
                      const char *version, bool confined, char hex[65]) {
    Sha256 s;
    sha256_init(&s);
    hash_item(&s, "magic", CACHE_MAGIC);
    hash_item(&s, "nvcc", nvcc);
    hash_item(&s, "version", version ? version : "?");
    hash_item(&s, "display", display);
    hash_item(&s, "source", source);
    for (int i = 0; i < opts->n; i++) hash_item(&s, "opt", opts->v[i]);
    hash_item(&s, "confined", confined ? "1" : "0");
    unsigned char d[32];
    sha256_final(&s, d);
    sha256_to_hex(d, hex);
}

/* ---- the emulator's view of a GPU build ---- */

/* Whether `o` builds one virtual arch, whose PTX the emulator may lack
 * instructions of (build_options). */
static bool one_virtual_arch(const ProgramCompileOptions *o) {
    return o->sass_arch > 0 && o->sass_arch <= EMU_PTX_ARCH_MAX;
}

/* Whether the emulator runtime can run `exe`: the PTX it would pick from
 * each fat binary (fatbin_find_ptx, as emurt_register.c does) decodes
 * (emu_parse_check: parse and decode, no run; 0.06 ms for hot-spot's PTX,
 * fuzzed, and the worker decodes kernels' PTX as hostile anyway). An
 * executable it cannot read counts as yes: the run says what is wrong. */
static bool emu_runs_ptx(const char *exe) {
    int fd = open(exe, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0) return true;
    if (fstat(fd, &st) != 0 || st.st_size <= 0) {
        close(fd);
        return true;
    }
    size_t len = (size_t)st.st_size;
    void *map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED) return true;
    size_t size = 0;
    const unsigned char *sec = program_elf_section(map, len, ".nv_fatbin", &size);
    bool ok = true;
    for (size_t off = 0; ok && sec && off + 16 <= size;) {
        uint32_t magic;
        memcpy(&magic, sec + off, sizeof magic);
        if (magic != FATBIN_MAGIC) {    /* the padding between fat binaries */
            off += 8;
            continue;
        }
        Fatbin *fb = NULL;
        Diag *d = fatbin_parse(sec + off, size - off, &fb);
        if (d) {
            diag_free(&d);
            break;
        }
        const FatbinEntry *e = fatbin_find_ptx(fb, EMU_PTX_ARCH_MAX);
        unsigned char *ptx = NULL;
        size_t n = 0;
        if (e && !(d = fatbin_entry_data(e, &ptx, &n))) {
            Diag *bad = emu_parse_check((const char *)ptx, n);
            ok = !bad;
            diag_free(&bad);
        }
        diag_free(&d);
        free(ptx);
        off += fb->size ? fb->size : 8;
        fatbin_free(&fb);
    }
    munmap(map, len);
    return ok;
}

/* ---- compile ---- */

/* Entry `key` of `cache`, when it is there: its executable and warnings. */
static bool cache_take(const char *cache, const char *key, const char *name, char **exe, Diag **warnings) {
    char *entry = path_join(cache, key);
    char *p = path_join(entry, name);
    bool hit = is_exe(p);
    if (hit) {
        *exe = p;
        *warnings = program_cache_warnings(entry);
        utimensat(AT_FDCWD, entry, NULL, 0);    /* least recently used goes first */
    } else {
        free(p);
    }
    free(entry);
    return hit;
}

static double now_ms(void) { return proc_now_ms(); }

void compiled_program_free(CompiledProgram **pp) {
    CompiledProgram *p = *pp;
    if (!p) return;
    if (p->temp_dir) proc_remove_tree(p->temp_dir);
    free(p->temp_dir);
    free(p->exe);
    free(p->display_path);
    diag_free(&p->warnings);
    free(p);
    *pp = NULL;
}

static char *cache_dir_of(const ProgramCompileOptions *o) {
    if (o->cache_dir) return o->cache_dir[0] ? xstrdup(o->cache_dir) : NULL;
    char *base = xdg_cache_dir();
    char *dir = path_join(base, "nvcc");
    free(base);
    return dir;
}

/* A fresh private directory: under the cache (same file system, so the
 * executable can be renamed in), else under $TMPDIR. Caller frees. */
static char *make_workdir(const char *cache) {
    char *tmpl;
    if (cache) {
        Diag *d = fs_mkdir_p(cache);
        if (d) {
            diag_free(&d);
            return NULL;
        }
        tmpl = path_join(cache, "tmp-XXXXXX");
    } else {
        const char *t = getenv("TMPDIR");
        char *base = path_join(t && *t ? t : "/tmp", "cudojo-nvcc-XXXXXX");
        tmpl = base;
    }
    if (!mkdtemp(tmpl)) XFREE(tmpl);
    return tmpl;
}

/* Whether a confined compile (`o->confine`, unless CUDOJO_SANDBOX=off) is in force. */
static bool compile_confined(const ProgramCompileOptions *o) {
    const char *sandbox = getenv("CUDOJO_SANDBOX");
    return o->confine && !(sandbox && !strcmp(sandbox, "off"));
}

/* Whether nvcc's output says a compiler ran out of memory. */
static bool log_out_of_memory(const char *log) {
    static const char *const marks[] = {"out of memory", "std::bad_alloc", "Cannot allocate memory",
                                        "Out of memory", "memory exhausted", "virtual memory exhausted"};
    for (size_t i = 0; log && i < sizeof marks / sizeof marks[0]; i++)
        if (strstr(log, marks[i])) return true;
    return false;
}

static Diag *run_nvcc(const char *nvcc, const StrList *opts, const char *workdir, const char *src_name,
                      const char *exe_name, const char *display, const char *source, bool confine, int nice,
                      Diag **warnings) {
    long long as_bytes;
    Diag *bad = program_env_mib("CUDOJO_COMPILE_AS_MB", 4096, &as_bytes);
    if (bad && confine) return bad;     /* a wrong limit is said, not replaced unseen */
    diag_free(&bad);
    StrList a = {0};
    strlist_add(&a, xstrdup(nvcc));
    for (int i = 0; i < opts->n; i++) strlist_add(&a, xstrdup(opts->v[i]));
    strlist_add(&a, xstrdup("-o"));
    strlist_add(&a, xstrdup(exe_name));
    strlist_add(&a, xstrdup(src_name));
    ProcCapture c;
    Diag *err;
    if (confine) {
        char **read_paths = NULL, **write_paths = NULL;
        ChildLimits lim = {
            .cpu_s = (long)COMPILE_TIMEOUT_S + 5, .fsize = 1ll << 30, .as_bytes = as_bytes, .compiler = true,
            .ancestors = {getpid(), getppid()},
            /* Graders run compiles beside other students' timed programs, whose
               own event timings open gaps when their host thread waits for a core. */
            .nice = nice > 10 ? nice : 10,
        };
        if (program_sandbox_landlock_abi() > 0) {
            program_sandbox_compile_paths(nvcc, workdir, &read_paths, &write_paths);
            lim.confine = true;
            lim.landlock_abi = program_sandbox_landlock_abi();
            lim.read_paths = (const char *const *)read_paths;
            lim.write_paths = (const char *const *)write_paths;
        }
        /* a confined nvcc may write nowhere but workdir: its temporary files too */
        char *tmpdir = xasprintf("TMPDIR=%s", workdir);
        char **envp = program_env_with(&tmpdir, 1);
        err = proc_capture_limited((const char *const *)a.v, (const char *const *)envp, workdir, COMPILE_TIMEOUT_S,
                                   LOG_CAP, &lim, &c);
        free(envp);
        free(tmpdir);
        program_sandbox_paths_free(&read_paths, &write_paths);
    } else {
        ChildLimits lim = {.nice = nice};
        err = proc_capture_limited((const char *const *)a.v, NULL, workdir, COMPILE_TIMEOUT_S, LOG_CAP,
                                   nice > 0 ? &lim : NULL, &c);
    }
    strlist_free(&a);
    if (err) return err;
    if (!c.started)
        err = diag_error("no-nvcc", "nvcc (%s) could not be started: %s", nvcc, strerror(c.exec_errno));
    else if (c.timed_out)
        err = diag_new(DIAG_ERROR, "compile-timeout", display, 0, 0,
                       "the compiler ran out of time on this file: compiling it took longer than %.0f s and "
                       "nvcc was stopped (a template or constexpr computation that never ends?)",
                       COMPILE_TIMEOUT_S);
    else
        err = program_log_parse(c.out, display, source, workdir, c.status, warnings);
    if (!err && c.status != 0)
        err = diag_new(DIAG_ERROR, "compile", display, 0, 0, "nvcc failed (exit status %d)", c.status);
    if (err && c.status == 0 && !c.timed_out && c.started) {
        /* nvcc said it worked: whatever we read as an error was not one. */
        diag_free(&err);
    }
    if (err && confine && c.status != 0 && !c.timed_out && log_out_of_memory(c.out)) {
        Diag *oom = diag_new(DIAG_ERROR, "compile-memory", display, 0, 0,
                             "the compiler ran out of memory on this file (graded work may use %lld MiB per "
                             "compiler process): a template or constexpr computation that grows without end?",
                             as_bytes >> 20);
        oom->next = err;
        err = oom;
    }
    proc_capture_fini(&c);
    return err;
}

Diag *program_compile(const char *display, const char *source, const ProgramCompileOptions *opts_in,
                      CompiledProgram **out) {
    double t0 = now_ms();
    *out = NULL;
    ProgramCompileOptions defaults = {0};
    const ProgramCompileOptions *o = opts_in ? opts_in : &defaults;
    if (!display || !*display) display = "program.cu";
    if (!source) return diag_error("compile", "no source to compile for %s", display);
    const char *nvcc = program_nvcc_path();
    if (!nvcc) return no_nvcc();
    const char *version = program_nvcc_version();

    StrList opts = {0};
    build_options(o, false, &opts);
    char key[65];
    bool confine = compile_confined(o);
    cache_key(display, source, &opts, nvcc, version, confine, key);
    char *name = exe_name_of(display);
    char *cache = cache_dir_of(o);
    Diag *err = NULL, *warnings = NULL;
    char *exe = NULL, *temp_dir = NULL;
    double wait_ms = 0;
    int lock = -1;
    bool hit = cache && cache_take(cache, key, name, &exe, &warnings);
    if (!hit && cache) {
        /* Whoever compiles this key now (another worker, the grader's compile ahead) is waited for. */
        Diag *md = fs_mkdir_p(cache);
        diag_free(&md);
        lock = program_cache_lock(cache, key, PROGRAM_COMPILE_WAIT_S * 1e3, &wait_ms);
        hit = cache_take(cache, key, name, &exe, &warnings);
    }
    if (!hit) {
        char *workdir = make_workdir(cache);
        if (!workdir && cache) {    /* an unwritable cache only costs time */
            free(cache);
            cache = NULL;
            workdir = make_workdir(NULL);
        }
        if (!workdir) {
            err = diag_error("io", "cannot make a temporary directory to compile %s in: %s", display,
                             strerror(errno));
        } else {
            char *src_name = xasprintf("%s.cu", name);
            char *src_path = path_join(workdir, src_name);
            char *text = source_with_line(display, source);
            err = fs_write_file_atomic(src_path, text, strlen(text));
            free(text);
            if (!err)
                err = run_nvcc(nvcc, &opts, workdir, src_name, name, display, source, confine, o->nice, &warnings);
            char *built = path_join(workdir, name);
            /* A confined linker's chmod by path is refused (program_sandbox.c): made executable here. */
            struct stat bst;
            if (!err && confine && lstat(built, &bst) == 0 && S_ISREG(bst.st_mode)) chmod(built, 0755);
            if (!err && one_virtual_arch(o) && !emu_runs_ptx(built)) {
                /* grading's emulator check would have nothing to run: the old layout */
                StrList old = {0};
                build_options(o, true, &old);
                diag_free(&warnings);   /* the same ones come again */
                err = run_nvcc(nvcc, &old, workdir, src_name, name, display, source, confine, o->nice, &warnings);
                if (!err && confine && lstat(built, &bst) == 0 && S_ISREG(bst.st_mode)) chmod(built, 0755);
                strlist_free(&old);
            }
            if (!err && !is_exe(built))
                err = diag_new(DIAG_ERROR, "compile", display, 0, 0, "nvcc reported success but made no executable");
            if (!err && cache) {
                exe = program_cache_publish(cache, key, built, name, warnings);
                if (exe) program_cache_prune(cache);
            }
            if (!err && !exe) {
                exe = xstrdup(built);
                temp_dir = xstrdup(workdir);
            }
            if (!temp_dir) proc_remove_tree(workdir);
            free(built);
            free(src_path);
            free(src_name);
            free(workdir);
        }
    }
    program_cache_unlock(cache, key, &lock, !hit && exe && !temp_dir);
    if (!err) {
        CompiledProgram *p = xcalloc(1, sizeof *p);
        p->exe = exe;
        p->display_path = xstrdup(display);
        p->warnings = warnings;
        p->cache_hit = hit;
        p->temp_dir = temp_dir;
        p->compile_ms = now_ms() - t0;
        p->wait_ms = wait_ms;
        *out = p;
    } else {
        free(exe);
        free(temp_dir);
        diag_free(&warnings);
    }
    free(cache);
    free(name);
    strlist_free(&opts);
    return err;
}
