/* kernels/emu/emu_run.c: one launch: validate like a GPU, run the blocks on
 * the Backend's pool of host threads (emu_pool.c), and turn what the
 * workers saw into the report.
 *
 * Workers pull block ids from an atomic counter, so the work spreads over
 * all cores; everything a worker records is keyed so the merged result does
 * not depend on which worker ran which block, nor on how many took part
 * (findings keep the example with the smallest block and thread, printf
 * output is sorted by block and then by order within the block). The
 * launching thread starts alone and wakes the helpers only when the launch
 * is not over after ~100 us; a worker's state is made when its thread takes
 * its first block, so a small launch costs what one thread costs. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/i18n.h"
#include "base/xalloc.h"
#include "kernels/emu/emu_pool.h"
#include "kernels/emu/emu_run.h"
#include "kernels/emu/emu_trace_rec.h"
#include "kernels/emu/emu_worker.h"

void emu_finding_add(Finding **v, int *n, int *cap, const char *code, int severity, int line, uint64_t order,
                     const unsigned block[3], const unsigned thread[3], uint64_t count, char *message) {
    for (int i = 0; i < *n; i++) {
        Finding *f = &(*v)[i];
        if (f->line != line || strcmp(f->code, code)) continue;
        f->count += count;
        if (order < f->order && message) {
            free(f->message);
            f->message = message;
            f->order = order;
            memcpy(f->block, block, sizeof f->block);
            memcpy(f->thread, thread, sizeof f->thread);
        } else free(message);
        return;
    }
    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 16;
        *v = xrealloc(*v, sizeof **v * (size_t)*cap);
    }
    Finding *f = &(*v)[(*n)++];
    memset(f, 0, sizeof *f);
    snprintf(f->code, sizeof f->code, "%s", code);
    f->severity = severity;
    f->line = line;
    f->count = count;
    f->order = order;
    memcpy(f->block, block, sizeof f->block);
    memcpy(f->thread, thread, sizeof f->thread);
    f->message = message;
}

/* Moves a worker's statistics, findings and output into the launch (once
 * its threads have joined; the lock keeps it safe before that too). */
static void worker_merge(Worker *W, EmuLaunch *L) {
    emu_worker_fold_counts(W);
    pthread_mutex_lock(&L->lock);
    uint64_t *dst = (uint64_t *)&L->totals, *src = (uint64_t *)&W->t;
    for (size_t i = 0; i < sizeof(Totals) / sizeof(uint64_t); i++) dst[i] += src[i];
    for (int i = 0; i < W->n_lines && i < L->n_lines; i++) {
        uint64_t *d = (uint64_t *)&L->lines[i], *s = (uint64_t *)&W->lines[i];
        for (size_t j = 0; j < sizeof(LineStats) / sizeof(uint64_t); j++) d[j] += s[j];
    }
    for (int i = 0; i < W->nf; i++) {
        Finding *f = &W->f[i];
        emu_finding_add(&L->findings, &L->n_findings, &L->cap_findings, f->code, f->severity, f->line,
                        f->order, f->block, f->thread, f->count, f->message);
        f->message = NULL;
    }
    W->nf = 0;
    for (int i = 0; i < W->npr; i++) {
        if (L->n_prints == L->cap_prints) {
            L->cap_prints = L->cap_prints ? L->cap_prints * 2 : 64;
            L->prints = xrealloc(L->prints, sizeof *L->prints * (size_t)L->cap_prints);
        }
        L->prints[L->n_prints++] = W->pr[i];
    }
    W->npr = 0;
    pthread_mutex_unlock(&L->lock);
}

static Diag *validate(const EmuRunRequest *rq) {
    const LaunchConfig *c = rq->cfg;
    const Kernel *k = rq->kernel;
    Dim3 g = c->grid, b = c->block;
    if (!b.x || !b.y || !b.z || !g.x || !g.y || !g.z)
        return diag_error("launch", N_("invalid configuration argument: grid (%u,%u,%u) and block (%u,%u,%u) must "
                             "have every dimension at least 1."), g.x, g.y, g.z, b.x, b.y, b.z);
    uint64_t threads = (uint64_t)b.x * b.y * b.z;
    if (b.x > 1024 || b.y > 1024 || b.z > 64 || threads > 1024)
        return diag_error("launch", N_("invalid configuration argument: a block may have at most 1024 threads "
                             "(x, y ≤ 1024, z ≤ 64), but this launch asked for (%u,%u,%u) = %llu threads."),
                          b.x, b.y, b.z, (unsigned long long)threads);
    if (g.x > 2147483647u || g.y > 65535 || g.z > 65535)
        return diag_error("launch", N_("invalid configuration argument: the grid may be at most "
                             "(2147483647, 65535, 65535) blocks, but this launch asked for (%u,%u,%u)."), g.x, g.y, g.z);
    if (k->maxntid && threads > (uint64_t)k->maxntid)
        return diag_error("launch", N_("too many resources requested for launch: the kernel was compiled for at most "
                             "%d threads per block (__launch_bounds__), but the block has %llu."), k->maxntid,
                          (unsigned long long)threads);
    size_t shared = k->shared_dyn_off + c->shared_bytes;
    if (k->shared_static > EMU_SHARED_DEFAULT)
        return diag_error("launch", N_("too many resources requested for launch: the kernel declares %zu bytes of "
                             "static shared memory, more than the %zu a block may use."), k->shared_static,
                          EMU_SHARED_DEFAULT);
    uint64_t warps = (threads + 31) / 32;
    if (warps * (uint64_t)k->n_regs * 256 + threads * (uint64_t)k->local_size > (1ull << 31))
        return diag_error("launch", N_("too many resources requested for launch: %s needs %d registers and %zu bytes "
                             "of local memory per thread, more than the emulator holds for %llu threads."),
                          k->name, k->n_regs, k->local_size, (unsigned long long)threads);
    /* the GPU backend opts in to more than 48 KiB of dynamic shared memory
     * when a launch asks for it; so does the emulator, up to the profile's limit */
    if (shared > EMU_SHARED_OPTIN)
        return diag_error("launch", N_("invalid argument: the block needs %zu bytes of shared memory (%zu static + "
                             "%zu dynamic), but a block may use at most %zu bytes on this device (sm_90 profile)."),
                          shared, k->shared_static, c->shared_bytes, EMU_SHARED_OPTIN);
    return NULL;
}

/* One launch's workers, a slot per host thread that may take part (slot 0:
 * the launching thread); a slot's Worker is made when it takes a block. */
typedef struct Crew {
    EmuLaunch *L;
    Worker **w;
} Crew;

/* The launching thread wakes the pool's helpers once the launch has run
 * this long on it alone (checked between blocks; a block that runs long
 * wakes them from emu_exec.c): shorter launches, most of a program's many
 * small ones, never touch another thread. */
#define WAKE_AFTER_S 100e-6

static double run_now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void worker_main(void *arg, int slot, EmuPool *pool) {
    Crew *c = arg;
    EmuLaunch *L = c->L;
    double t0 = 0;
    if (slot == 0 && pool) {
        L->pool = pool;
        t0 = run_now_s();
    }
    for (uint64_t done = 0;; done++) {
        if (__atomic_load_n(&L->abort_flag, __ATOMIC_RELAXED)) break;
        if (slot == 0 && pool && done && run_now_s() - t0 > WAKE_AFTER_S) emu_pool_wake(pool);
        uint64_t b = __atomic_fetch_add(&L->next_block, 1, __ATOMIC_RELAXED);
        if (b >= L->n_blocks) break;
        if (!c->w[slot]) c->w[slot] = emu_worker_new(L, slot);
        emu_block_run(c->w[slot], b);
    }
}

static long online_cpus(void) {
    static long n;   /* sysconf reads /sys on every call: once per process */
    long v = __atomic_load_n(&n, __ATOMIC_RELAXED);
    if (v <= 0) {
        v = sysconf(_SC_NPROCESSORS_ONLN);
        __atomic_store_n(&n, v, __ATOMIC_RELAXED);
    }
    return v;
}

static int host_threads(const EmuOptions *o, uint64_t blocks) {
    long n = o->threads;
    if (o->deterministic) n = 1;
    if (n <= 0) n = online_cpus();
    if (n <= 0) n = 1;
    if (n > 256) n = 256;
    if ((uint64_t)n > blocks) n = (long)blocks;
    return (int)(n ? n : 1);
}

static int cmp_print(const void *a, const void *b) {
    const PrintRec *x = a, *y = b;
    if (x->block != y->block) return x->block < y->block ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int cmp_finding(const void *a, const void *b) {
    const Finding *x = a, *y = b;
    if (x->severity != y->severity) return x->severity - y->severity;
    if (x->line != y->line) return x->line - y->line;
    return strcmp(x->code, y->code);
}

static json_t *metrics_json(EmuLaunch *L) {
    Totals *t = &L->totals;
    json_t *tot = json_object();
    json_object_set_new(tot, "warp_instructions", json_integer((json_int_t)t->warp_instructions));
    json_object_set_new(tot, "thread_instructions", json_integer((json_int_t)t->thread_instructions));
    json_object_set_new(tot, "global_requests", json_integer((json_int_t)t->global_requests));
    json_object_set_new(tot, "global_sectors", json_integer((json_int_t)t->global_sectors));
    json_object_set_new(tot, "global_ideal_sectors", json_integer((json_int_t)t->global_ideal_sectors));
    json_object_set_new(tot, "shared_requests", json_integer((json_int_t)t->shared_requests));
    json_object_set_new(tot, "bank_conflict_wavefronts", json_integer((json_int_t)t->bank_conflict_wavefronts));
    json_object_set_new(tot, "shared_ideal_wavefronts", json_integer((json_int_t)t->shared_ideal_wavefronts));
    json_object_set_new(tot, "divergent_branches", json_integer((json_int_t)t->divergent_branches));
    json_object_set_new(tot, "branches", json_integer((json_int_t)t->branches));
    json_object_set_new(tot, "barriers", json_integer((json_int_t)t->barriers));
    json_object_set_new(tot, "atomics", json_integer((json_int_t)t->atomics));
    json_object_set_new(tot, "local_requests", json_integer((json_int_t)t->local_requests));
    json_object_set_new(tot, "global_layout_sectors", json_integer((json_int_t)t->global_layout_sectors));
    json_object_set_new(tot, "divergent_idle_lanes", json_integer((json_int_t)t->divergent_idle_lanes));
    json_object_set_new(tot, "blocks", json_integer((json_int_t)L->n_blocks));
    json_object_set_new(tot, "fp32_instructions", json_integer((json_int_t)t->fp32_instructions));
    json_object_set_new(tot, "fp64_instructions", json_integer((json_int_t)t->fp64_instructions));
    json_object_set_new(tot, "sfu_instructions", json_integer((json_int_t)t->sfu_instructions));
    json_object_set_new(tot, "int_instructions", json_integer((json_int_t)t->int_instructions));
    json_object_set_new(tot, "mem_instructions", json_integer((json_int_t)t->mem_instructions));
    json_object_set_new(tot, "ctrl_instructions", json_integer((json_int_t)t->ctrl_instructions));
    json_object_set_new(tot, "global_store_sectors", json_integer((json_int_t)t->global_store_sectors));
    json_object_set_new(tot, "memory_waits", json_integer((json_int_t)t->memory_waits));
    json_object_set_new(tot, "memory_waits_hit", json_integer((json_int_t)t->memory_waits_hit));
    json_object_set_new(tot, "critical_instructions", json_integer((json_int_t)t->critical_instructions));
    json_object_set_new(tot, "critical_waits", json_integer((json_int_t)t->critical_waits));
    json_object_set_new(tot, "critical_hit_waits", json_integer((json_int_t)t->critical_hit_waits));
    json_object_set_new(tot, "critical_requests", json_integer((json_int_t)t->critical_requests));
    json_object_set_new(tot, "warps", json_integer((json_int_t)(L->n_blocks * (uint64_t)((L->block.x * L->block.y * L->block.z + 31) / 32))));
    /* derived, as Nsight Compute shows them */
    if (t->global_requests) {
        json_object_set_new(tot, "sectors_per_request", json_real((double)t->global_sectors / (double)t->global_requests));
        json_object_set_new(tot, "ideal_sectors_per_request",
                            json_real((double)t->global_ideal_sectors / (double)t->global_requests));
    }
    if (t->shared_requests)
        json_object_set_new(tot, "bank_conflict_degree",
                            json_real((double)t->bank_conflict_wavefronts / (double)t->shared_ideal_wavefronts));
    json_object_set_new(tot, "active_lanes_avg",
                        json_real(t->warp_instructions ? (double)t->thread_instructions / (double)t->warp_instructions : 0));
    json_t *lines = json_array();
    for (int i = 1; i < L->n_lines; i++) {
        LineStats *s = &L->lines[i];
        if (!s->executions) continue;
        json_t *o = json_object();
        json_object_set_new(o, "line", json_integer(i));
        json_object_set_new(o, "executions", json_integer((json_int_t)s->executions));
        json_object_set_new(o, "active_lanes_avg", json_real((double)s->active_lanes / (double)s->executions));
        if (s->global_requests) {
            json_object_set_new(o, "global_requests", json_integer((json_int_t)s->global_requests));
            json_object_set_new(o, "sectors_per_request", json_real((double)s->global_sectors / (double)s->global_requests));
            json_object_set_new(o, "ideal_sectors_per_request", json_real((double)s->global_ideal / (double)s->global_requests));
            json_object_set_new(o, "layout_sectors_per_request",
                                json_real((double)s->global_layout / (double)s->global_requests));
            json_object_set_new(o, "strided_requests", json_integer((json_int_t)s->global_strided));
        }
        if (s->shared_requests) {
            json_object_set_new(o, "shared_requests", json_integer((json_int_t)s->shared_requests));
            json_object_set_new(o, "bank_conflict_degree", json_real((double)s->shared_wavefronts / (double)s->shared_ideal));
        }
        if (s->branches) {
            json_object_set_new(o, "branches", json_integer((json_int_t)s->branches));
            json_object_set_new(o, "divergent", json_integer((json_int_t)s->divergent));
            json_object_set_new(o, "divergent_idle_lanes", json_integer((json_int_t)s->divergent_idle));
        }
        json_array_append_new(lines, o);
    }
    json_t *root = json_object();
    json_object_set_new(root, "totals", tot);
    json_object_set_new(root, "lines", lines);
    return root;
}

/* Performance notes (warnings) for lines whose accesses cost at least twice
 * the ideal: uncoalesced global memory (against what the data's own layout
 * needs: 3-byte pixels read byte by byte are not), shared-memory bank
 * conflicts. */
static void perf_notes(EmuLaunch *L) {
    unsigned z[3] = {0, 0, 0};
    for (int i = 1; i < L->n_lines; i++) {
        LineStats *s = &L->lines[i];
        if (s->global_requests && s->global_sectors >= 2 * s->global_layout) {
            double spr = (double)s->global_sectors / (double)s->global_requests;
            double ideal = (double)s->global_layout / (double)s->global_requests;
            emu_finding_add(&L->findings, &L->n_findings, &L->cap_findings, "uncoalesced", DIAG_WARNING, i,
                            UINT64_MAX, z, z, 1,
                            xasprintf(N_("Uncoalesced global memory access: each warp request on this line touches "
                                         "%.1f sectors of 32 bytes where %.1f would hold the data (%.0f%% of the "
                                         "bytes moved are used). Let neighbouring threads access neighbouring "
                                         "addresses."), spr, ideal, 100.0 * ideal / spr));
        }
        if (s->shared_requests && s->shared_wavefronts >= 2 * s->shared_ideal) {
            double deg = (double)s->shared_wavefronts / (double)s->shared_ideal;
            emu_finding_add(&L->findings, &L->n_findings, &L->cap_findings, "bank-conflict", DIAG_WARNING, i,
                            UINT64_MAX, z, z, 1,
                            xasprintf(N_("Shared-memory bank conflicts: accesses on this line are %.1f-way conflicted "
                                         "on average (threads of a warp hit different words in the same bank, so "
                                         "the access is split). Padding the array (e.g. [32][33]) or changing the "
                                         "index order usually removes them."), deg));
        }
    }
}

Diag *emu_run(const EmuRunRequest *rq, LaunchReport *report) {
    launch_report_init(report);
    Diag *d = validate(rq);
    if (d) return d;
    const Kernel *k = rq->kernel;
    const LaunchConfig *c = rq->cfg;
    EmuLaunch *L = xcalloc(1, sizeof *L);
    L->k = k;
    L->allocs = rq->allocs;
    L->grid = c->grid;
    L->block = c->block;
    L->dyn_shared = c->shared_bytes;
    /* without dynamic shared memory the block has exactly the static bytes, so
     * an access in the alignment padding is out of bounds too */
    L->shared_total = c->shared_bytes ? k->shared_dyn_off + c->shared_bytes : k->shared_static;
    L->params = xcalloc(k->param_size + 16, 1);
    if (rq->params_raw)
        memcpy(L->params, rq->params_raw, rq->params_raw_size < k->param_size ? rq->params_raw_size : k->param_size);
    for (int i = 0; !rq->params_raw && i < rq->nargs; i++) {
        size_t n = rq->args[i].size < k->param_sizes[i] ? rq->args[i].size : k->param_sizes[i];
        memcpy(L->params + k->param_offsets[i], rq->args[i].bytes, n);
    }
    L->budget = rq->opts->instruction_budget ? rq->opts->instruction_budget : EMU_DEFAULT_BUDGET;
    L->deadline = rq->opts->deadline_s;
    L->n_blocks = (uint64_t)c->grid.x * c->grid.y * c->grid.z;
    L->metrics = rq->opts->metrics;
    L->checks = rq->opts->checks;
    L->adversarial = rq->opts->adversarial;
    L->seed = rq->opts->seed ? rq->opts->seed : 12345;
    L->n_lines = k->max_line + 1;
    L->lines = xcalloc((size_t)L->n_lines, sizeof *L->lines);
    L->heap = rq->heap;
    L->heap_size = rq->heap_size;
    L->heap_base = (uint64_t)(uintptr_t)rq->heap;
    pthread_mutex_init(&L->lock, NULL);

    emu_xblock_begin(L);
    if (rq->trace) emu_trace_launch_begin(rq->trace, L, rq->source);
    int nt = host_threads(rq->opts, L->n_blocks);
    Crew crew = {L, xcalloc((size_t)nt, sizeof *crew.w)};
    emu_pool_run(nt > 1 ? rq->pool : NULL, nt - 1, worker_main, &crew);
    for (int i = 0; i < nt; i++) {
        if (!crew.w[i]) continue;
        worker_merge(crew.w[i], L);
        emu_worker_free(&crew.w[i]);
    }
    free(crew.w);
    emu_xblock_end(L);

    /* findings → Diags */
    if (L->budget_hit && L->deadline_hit) {
        emu_finding_add(&L->findings, &L->n_findings, &L->cap_findings, "did-not-finish", DIAG_ERROR,
                        L->budget_line, 0, L->budget_block, L->budget_thread, 1,
                        xasprintf(N_("The kernel did not finish within the run's time limit: the emulator stopped "
                                     "it after %llu warp-instructions. Look for a loop whose condition never "
                                     "changes, or a thread waiting for another block."),
                                  (unsigned long long)L->executed));
    } else if (L->budget_hit) {
        emu_finding_add(&L->findings, &L->n_findings, &L->cap_findings, "did-not-finish", DIAG_ERROR,
                        L->budget_line, 0, L->budget_block, L->budget_thread, 1,
                        xasprintf(N_("The kernel did not finish: it ran more than %llu warp-instructions, so the "
                                     "emulator stopped it. Look for a loop whose condition never changes, or a "
                                     "thread waiting for another block."), (unsigned long long)L->budget));
    }
    if (L->metrics) perf_notes(L);
    if (L->n_findings) qsort(L->findings, (size_t)L->n_findings, sizeof *L->findings, cmp_finding);
    for (int i = 0; i < L->n_findings; i++) {
        Finding *f = &L->findings[i];
        const char *msg = f->message ? f->message : f->code;
        Diag *fd;
        if (f->count > 1)
            fd = diag_new((DiagSeverity)f->severity, f->code, f->line > 0 ? rq->source_path : NULL, f->line, 0,
                          "%s (%llu times in all)", msg, (unsigned long long)f->count);
        else
            fd = diag_new((DiagSeverity)f->severity, f->code, f->line > 0 ? rq->source_path : NULL, f->line, 0,
                          "%s", msg);
        if (f->line > 0 && rq->source) diag_set_excerpt(fd, rq->source);
        if (f->order != UINT64_MAX) diag_set_thread(fd, f->block, f->thread);
        diag_append(&report->findings, fd);
        free(f->message);
    }
    free(L->findings);
    if (L->n_prints) {
        qsort(L->prints, (size_t)L->n_prints, sizeof *L->prints, cmp_print);
        StrBuf out, err;
        strbuf_init(&out);
        strbuf_init(&err);
        for (int i = 0; i < L->n_prints; i++) {
            strbuf_append(L->prints[i].to_stderr ? &err : &out, L->prints[i].text);
            free(L->prints[i].text);
        }
        if (out.len) report->device_output = strbuf_steal(&out);
        if (err.len) report->device_stderr = strbuf_steal(&err);
        strbuf_fini(&out);
        strbuf_fini(&err);
    }
    free(L->prints);
    report->metrics = metrics_json(L);
    if (rq->trace) emu_trace_launch_end(rq->trace, report);
    report->modeled = true;
    report->ms_median = -1;
    report->ms_min = -1;
    report->reps = 0;
    free(L->lines);
    free(L->params);
    pthread_mutex_destroy(&L->lock);
    free(L);
    return NULL;
}
