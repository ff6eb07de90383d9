/* kernels/emurt/emurt_register.c: what nvcc's generated code calls at
 * start-up — registering the fat binary, its kernels and its variables —
 * and loading a module onto an emulated device.
 *
 * The fat binary's PTX is read when a module is first needed (a launch, a
 * symbol, a __managed__ variable); its `.file` names the learner's source,
 * which is read for the excerpts of findings. Every pointer the program
 * gives is checked to lie in its loaded image before it is read, and the
 * fat binary itself is parsed with every size checked (kernels/fatbin.c):
 * a damaged or hostile program gets a finding, never a crash of ours. */
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "base/xalloc.h"
#include "kernels/cubin_info.h"
#include "kernels/emurt/emurt_internal.h"

#define EMU_PTX_ARCH 90          /* the emulator runs compute_90-level PTX and older */
#define MAX_SOURCE (4u << 20)

/* ---- where program memory may be read ----------------------------------------------------------- */
typedef struct Span {
    uintptr_t p;
    size_t avail;
} Span;

static int span_cb(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    Span *s = data;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD) continue;
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
        if (s->p >= lo && s->p < hi) {
            s->avail = hi - s->p;
            return 1;
        }
    }
    return 0;
}

/* Bytes readable from p within the loaded segment that holds it (0: none). */
static size_t readable_span(const void *p) {
    Span s = {(uintptr_t)p, 0};
    dl_iterate_phdr(span_cb, &s);
    return s.avail;
}

/* ---- names ------------------------------------------------------------------------------------------ */
static char *demangle(const char *name) {
    typedef char *(*DemangleFn)(const char *, char *, size_t *, int *);
    static DemangleFn fn;
    static bool looked;
    if (!looked) {
        looked = true;
        *(void **)&fn = dlsym(RTLD_DEFAULT, "__cxa_demangle");
    }
    int status = -1;
    char *d = fn && name[0] == '_' && name[1] == 'Z' ? fn(name, NULL, NULL, &status) : NULL;
    if (d && !status) return d;
    free(d);
    return xstrdup(name);
}

/* ---- registration -------------------------------------------------------------------------------- */
static RtModule *module_of(void **handle) {
    for (int i = 0; i < g_rt.n_mods; i++)
        if ((void **)g_rt.mods[i] == handle) return g_rt.mods[i];
    return NULL;
}

void **__cudaRegisterFatBinary(void *fatCubin) {
    rt_enter();
    RtModule *m = xcalloc(1, sizeof *m);
    m->fatbin = fatCubin;
    g_rt.mods = xrealloc(g_rt.mods, sizeof *g_rt.mods * (size_t)(g_rt.n_mods + 1));
    g_rt.mods[g_rt.n_mods++] = m;
    rt_leave_quiet();
    return (void **)m;
}

void __cudaRegisterFatBinaryEnd(void **handle) { (void)handle; }

void __cudaUnregisterFatBinary(void **handle) {
    /* at exit: modules stay until the process ends (the timeline is sent last) */
    (void)handle;
}

void __cudaRegisterFunction(void **handle, const char *hostFun, char *deviceFun, const char *deviceName,
                            int thread_limit, uint3 *tid, uint3 *bid, dim3 *bDim, dim3 *gDim, int *wSize) {
    (void)deviceName, (void)thread_limit, (void)tid, (void)bid, (void)bDim, (void)gDim, (void)wSize;
    pthread_mutex_lock(&g_rt.lock);
    RtModule *m = module_of(handle);
    if (m && deviceFun) {
        RtFunc *f = xcalloc(1, sizeof *f);
        f->host = hostFun;
        f->name = xstrdup(deviceFun);
        f->pretty = demangle(deviceFun);
        f->mod = m;
        g_rt.funcs = xrealloc(g_rt.funcs, sizeof *g_rt.funcs * (size_t)(g_rt.n_funcs + 1));
        g_rt.funcs[g_rt.n_funcs++] = f;
    }
    pthread_mutex_unlock(&g_rt.lock);
}

static void add_var(void **handle, const void *host, const char *name, size_t size, int constant, bool managed,
                    void **managed_ptr) {
    pthread_mutex_lock(&g_rt.lock);
    RtModule *m = module_of(handle);
    if (m && name) {
        RtVar *v = xcalloc(1, sizeof *v);
        v->host = host;
        v->name = xstrdup(name);
        v->mod = m;
        v->size = size;
        v->constant = constant != 0;
        v->managed = managed;
        v->managed_ptr = managed_ptr;
        g_rt.vars = xrealloc(g_rt.vars, sizeof *g_rt.vars * (size_t)(g_rt.n_vars + 1));
        g_rt.vars[g_rt.n_vars++] = v;
    }
    pthread_mutex_unlock(&g_rt.lock);
}

void __cudaRegisterVar(void **handle, char *hostVar, char *deviceAddress, const char *deviceName, int ext,
                       size_t size, int constant, int global) {
    (void)deviceAddress, (void)ext, (void)global;
    add_var(handle, hostVar, deviceName, size, constant, false, NULL);
}

void __cudaRegisterManagedVar(void **handle, void **hostVarPtrAddress, char *deviceAddress, const char *deviceName,
                              int ext, size_t size, int constant, int global) {
    (void)deviceAddress, (void)ext, (void)global;
    add_var(handle, hostVarPtrAddress, deviceName, size, constant, true, hostVarPtrAddress);
}

/* __managed__ variables: the host reaches them through *hostVarPtrAddress,
 * which the module load on device 0 fills in. */
char __cudaInitModule(void **handle) {
    rt_enter();
    RtModule *m = module_of(handle);
    cudaError_t err = cudaSuccess;
    if (m) rt_module_get(m, 0, &err);
    rt_leave_quiet();
    return m && !err;
}

RtFunc *rt_func_find(const void *p) {
    if (!p) return NULL;
    for (int i = 0; i < g_rt.n_funcs; i++)
        if ((const void *)g_rt.funcs[i] == p || g_rt.funcs[i]->host == p) return g_rt.funcs[i];
    return NULL;
}

RtVar *rt_var_find(const void *host) {
    if (!host) return NULL;
    for (int i = 0; i < g_rt.n_vars; i++)
        if (g_rt.vars[i]->host == host) return g_rt.vars[i];
    return NULL;
}

/* ---- loading ---------------------------------------------------------------------------------------- */
/* The learner's source the program was compiled from: the first `.file` of
 * the PTX that is not a toolkit header (a Thrust program's first is one). */
static char *ptx_source_path(const char *ptx) {
    for (const char *p = strstr(ptx, "\n.file"); p; p = strstr(p + 1, "\n.file")) {
        const char *q = strchr(p, '"');
        const char *nl = strchr(p + 1, '\n');
        if (!q || (nl && q > nl)) continue;
        const char *e = strchr(q + 1, '"');
        if (!e || (nl && e > nl)) continue;
        char *path = xstrndup(q + 1, (size_t)(e - q - 1));
        if (!emu_ptx_toolkit_file(path)) return path;
        free(path);
    }
    return NULL;
}

static Diag *module_parse(RtModule *m) {
    const unsigned char *w = m->fatbin;
    if (!w || readable_span(w) < 16)
        return diag_error("fatbin", "the program registered a fat binary at %p, which is not in its image", (void *)w);
    uint32_t magic;
    memcpy(&magic, w, 4);
    if (magic != FATBIN_WRAPPER_MAGIC)
        return diag_error("fatbin", "the program's fat binary wrapper has magic 0x%08x, not 0x%08x", magic,
                          FATBIN_WRAPPER_MAGIC);
    const void *data;
    memcpy(&data, w + 8, sizeof data);
    size_t avail = data ? readable_span(data) : 0;
    if (!avail) return diag_error("fatbin", "the program's fat binary points outside its image");
    Fatbin *fb = NULL;
    Diag *d = fatbin_parse(data, avail, &fb);
    if (d) return d;
    const FatbinEntry *e = fatbin_find_ptx(fb, EMU_PTX_ARCH);
    if (!e) {
        fatbin_free(&fb);
        /* the wrapper's version 2 (FATBINC_LINK_VERSION) marks device code linked by nvlink */
        uint32_t version;
        memcpy(&version, w + 4, 4);
        if (version == 2)
            return diag_error("no-ptx", "the program was built with -rdc=true (separate compilation, needed for "
                              "dynamic parallelism and device code across files): the emulator runs only "
                              "whole-program PTX; build it without -rdc and without kernels launching kernels");
        return diag_error("no-ptx", "the program has no PTX for the emulator to run: build it with PTX included, "
                          "e.g. nvcc -gencode arch=compute_80,code=compute_80 (cudojo does this for you)");
    }
    unsigned char *ptx;
    d = fatbin_entry_data(e, &ptx, &m->ptx_len);
    if (!d) m->ptx = (char *)ptx;
    m->ptx_arch = e->arch;
    const FatbinEntry *elf = fatbin_find_elf(fb, 90);
    if (!d && elf && !elf->lz4) {
        unsigned char *cubin;
        size_t n;
        Diag *d2 = fatbin_entry_data(elf, &cubin, &n);
        if (!d2) {
            m->cubin = cubin;
            m->cubin_size = n;
            Diag *d3 = cubin_info_parse(cubin, n, &m->cubin_info);
            diag_free(&d3);
        }
        diag_free(&d2);
    }
    fatbin_free(&fb);
    if (d) return d;
    m->source_path = ptx_source_path(m->ptx);
    if (m->source_path) {
        char *text = NULL;
        size_t len = 0;
        Diag *rd = fs_read_file_max(m->source_path, MAX_SOURCE, &text, &len);
        if (!rd) m->source = text;
        else free(text);
        diag_free(&rd);
    }
    return NULL;
}

static void add_symbols(RtModule *m, int dev, BackendModule *bm) {
    for (int i = 0; i < g_rt.n_vars; i++) {
        RtVar *v = g_rt.vars[i];
        DevPtr addr;
        size_t size;
        if (v->mod != m || !emu_module_var(bm, v->name, &addr, &size)) continue;
        if (!rt_alloc_find((void *)(uintptr_t)addr))
            rt_alloc_add((uintptr_t)addr, size, dev, v->managed ? RT_MEM_MANAGED : RT_MEM_SYMBOL, v->name);
        if (v->managed && v->managed_ptr && dev == 0) *v->managed_ptr = (void *)(uintptr_t)addr;
    }
}

BackendModule *rt_module_get(RtModule *m, int dev, cudaError_t *err) {
    *err = cudaSuccess;
    if (m->mods[dev]) return m->mods[dev];
    if (!m->parsed) {
        m->parsed = true;
        m->error = module_parse(m);
        if (m->error) rt_findings(diag_new(DIAG_ERROR, m->error->code, NULL, 0, 0, "%s", m->error->message));
    }
    if (!m->ptx) {
        *err = cudaErrorNoKernelImageForDevice;
        return NULL;
    }
    if (m->failed[dev]) {
        *err = cudaErrorNotSupported;
        return NULL;
    }
    CompiledModule cm;
    memset(&cm, 0, sizeof cm);
    cm.source_path = m->source_path;
    cm.source = m->source;
    cm.ptx = m->ptx;
    cm.ptx_size = m->ptx_len;
    int n = 0;
    for (int i = 0; i < g_rt.n_funcs; i++) n += g_rt.funcs[i]->mod == m;
    KernelInfo *ki = xcalloc((size_t)(n ? n : 1), sizeof *ki);
    n = 0;
    for (int i = 0; i < g_rt.n_funcs; i++)
        if (g_rt.funcs[i]->mod == m) {
            ki[n].name = g_rt.funcs[i]->pretty;
            ki[n].lowered = g_rt.funcs[i]->name;
            n++;
        }
    cm.kernels = ki;
    cm.n_kernels = n;
    Backend *b = g_rt.dev[dev].b;
    Diag *d = b->ops->module_load(b, &cm, &m->mods[dev]);
    free(ki);
    if (d) {
        m->failed[dev] = true;
        if (!m->error) {
            m->error = diag_new(DIAG_ERROR, "emu-unsupported", d->file, d->line, 0,
                                "The emulator cannot run this program's PTX: %s", d->message);
            rt_findings(diag_new(DIAG_ERROR, "emu-unsupported", d->file, d->line, 0,
                                 "The emulator cannot run this program's PTX: %s", d->message));
        }
        diag_free(&d);
        *err = cudaErrorNotSupported;
        return NULL;
    }
    add_symbols(m, dev, m->mods[dev]);
    return m->mods[dev];
}

cudaError_t rt_symbol_address(const void *symbol, uintptr_t *addr, size_t *size) {
    RtVar *v = rt_var_find(symbol);
    if (!v) return cudaErrorInvalidSymbol;
    cudaError_t err;
    BackendModule *bm = rt_module_get(v->mod, rt_current_device(), &err);
    if (!bm) return err;
    DevPtr a;
    if (!emu_module_var(bm, v->name, &a, size)) return cudaErrorInvalidSymbol;
    *addr = (uintptr_t)a;
    return cudaSuccess;
}
