/* tests/emu/test_conformance.c: the PTX emulator's conformance suite.
 *
 * Each case is one kernel from tests/conformance/ (one .cu per family) with known answers: the
 * CPU references in tests/conformance/cases_*.h (bit-exact for integer and
 * IEEE operations, the documented bound for .approx). Every case runs on the
 * emulator in deterministic mode and in the default (all cores) mode with
 * checks on, race-prone ones also in adversarial mode, and must produce the
 * reference output with no error findings (a correct kernel must not be
 * flagged). With a GPU (always under CUDOJO_TEST_GPU=1, i.e. `make test-gpu`)
 * each case also runs on the cuda backend, is checked against the reference
 * and compared with the emulator element by element.
 *
 * CMocka test names are conformance__<case>; CONFORMANCE_FILTER=glob runs a
 * subset (cmocka's test filter). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <ftw.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/diag.h"
#include "base/fs.h"
#include "base/strbuf.h"
#include "base/xalloc.h"
#include "kernels/backend.h"
#include "kernels/compile.h"

#include "tests/conformance/harness.h"
#include "tests/conformance/cases_int.h"
#include "tests/conformance/cases_float.h"
#include "tests/conformance/cases_contract.h"
#include "tests/conformance/cases_misc.h"
#include "tests/conformance/cases_par.h"
#include "tests/conformance/cases_algo.h"
#include "tests/conformance/cases_tensor.h"
#include "tests/conformance/cases_async.h"

enum {
    F_RACY = 1,          /* also run in adversarial mode */
    F_FAST_MATH = 2,     /* compile with --use_fast_math */
    F_FINDING = 4,       /* the kernel is expected to produce an error finding */
    F_NO_GPU = 8,        /* not run on a GPU (assert poisons the context; printf goes to stdout) */
    F_TEMPLATES = 16,    /* compile with the name expressions of templates.cu */
    F_SM90 = 32,         /* compile for compute_90 (sm_90 instructions: mbarrier, cp.async.bulk, elect) */
};

typedef struct Case {
    const char *name;
    const char *file;    /* under tests/conformance/ */
    const char *kernel;
    Dim3 grid, block;
    size_t shared;
    unsigned flags;
    void (*setup)(Run *r);
    void (*check)(Run *r);
} Case;

#define D1(x) {(x), 1, 1}
#define E(name, file, grid, block, shared, flags) \
    {#name, file, #name, grid, block, shared, flags, setup_##name, check_##name}
#define ELEM(name, file) E(name, file, D1(4), D1(256), 0, 0)

static const Case CASES[] = {
    /* int_ops.cu */
    ELEM(int_addsub, "int_ops.cu"),
    ELEM(int_addsub64, "int_ops.cu"),
    ELEM(int_mul, "int_ops.cu"),
    ELEM(int_mul64, "int_ops.cu"),
    ELEM(int_mad, "int_ops.cu"),
    ELEM(int_asm_forms, "int_ops.cu"),
    ELEM(int_divrem, "int_ops.cu"),
    ELEM(int_divrem64, "int_ops.cu"),
    ELEM(int_minmax, "int_ops.cu"),
    ELEM(int_logic, "int_ops.cu"),
    ELEM(int_shift, "int_ops.cu"),
    ELEM(int_shift_clamp, "int_ops.cu"),
    /* bit_ops.cu */
    ELEM(bit_count, "bit_ops.cu"),
    ELEM(bit_brev, "bit_ops.cu"),
    ELEM(bit_bfind, "bit_ops.cu"),
    ELEM(bit_bfe_bfi, "bit_ops.cu"),
    ELEM(bit_prmt, "bit_ops.cu"),
    ELEM(bit_funnel, "bit_ops.cu"),
    E(bit_bmsk, "bit_ops.cu", D1(8), D1(256), 0, 0),
    E(bit_lop3, "bit_ops.cu", D1(2), D1(256), 0, 0),
    /* float_ops.cu, rounding.cu, fast_math.cu, approx.cu, half_ops.cu, half_cmp.cu */
    ELEM(f32_arith, "float_ops.cu"),
    ELEM(f32_misc, "float_ops.cu"),
    ELEM(f64_arith, "float_ops.cu"),
    ELEM(round_f32, "rounding.cu"),
    ELEM(round_f64, "rounding.cu"),
    ELEM(round_f2i, "rounding.cu"),
    ELEM(round_i2f, "rounding.cu"),
    ELEM(round_frnd, "rounding.cu"),
    E(fm_ftz, "fast_math.cu", D1(4), D1(256), 0, F_FAST_MATH),
    E(fm_approx, "fast_math.cu", D1(4), D1(256), 0, F_FAST_MATH),
    ELEM(approx_intrinsics, "approx.cu"),
    ELEM(approx_div_range, "approx.cu"),
    ELEM(half_arith, "half_ops.cu"),
    ELEM(half_compare, "half_cmp.cu"),
    E(half2_lows, "half_cmp.cu", D1(2), D1(256), 0, 0),
    E(half2_arith, "half_ops.cu", D1(2), D1(256), 0, 0),
    ELEM(contract_half, "contract.cu"),
    E(contract_half2, "contract.cu", D1(2), D1(256), 0, 0),
    ELEM(contract_f32, "contract.cu"),
    ELEM(contract_f64, "contract.cu"),
    ELEM(half_cvt, "half_ops.cu"),
    /* pred_cvt.cu, setp_asm.cu */
    ELEM(setp_f32, "pred_cvt.cu"),
    ELEM(setp_f32_asm, "setp_asm.cu"),
    ELEM(testp_modes, "setp_asm.cu"),
    ELEM(setp_int, "pred_cvt.cu"),
    ELEM(selp_predlogic, "pred_cvt.cu"),
    ELEM(cvt_widths, "pred_cvt.cu"),
    ELEM(cvt_sat, "pred_cvt.cu"),
    ELEM(cvt_f32_f64, "pred_cvt.cu"),
    /* memory.cu */
    ELEM(mem_vector, "memory.cu"),
    ELEM(mem_ldg_volatile, "memory.cu"),
    ELEM(mem_widths, "memory.cu"),
    ELEM(mem_local, "memory.cu"),
    ELEM(mem_const, "memory.cu"),
    ELEM(mem_device_global, "memory.cu"),
    E(mem_shared_static, "memory.cu", D1(8), D1(128), 0, F_RACY),
    E(mem_shared_dynamic, "memory.cu", D1(8), D1(128), 128 * 8, F_RACY),
    /* atomics.cu */
    E(atom_global_int, "atomics.cu", D1(8), D1(128), 0, F_RACY),
    E(atom_global_float, "atomics.cu", D1(8), D1(128), 0, F_RACY),
    E(atom_f32_subnormal, "atomics.cu", D1(1), D1(256), 0, F_RACY),
    E(atom_inc_dec_exch, "atomics.cu", D1(8), D1(128), 0, F_RACY),
    E(atom_cas, "atomics.cu", D1(4), D1(128), 0, F_RACY),
    E(atom_shared, "atomics.cu", D1(ATOM_BLOCKS), D1(ATOM_THREADS), 0, F_RACY),
    E(atom_generic, "atomics.cu", D1(ATOM_BLOCKS), D1(ATOM_THREADS), 0, F_RACY),
    /* sync_warp.cu, fence.cu */
    E(sync_votes, "sync_warp.cu", D1(VOTE_BLOCKS), D1(VOTE_THREADS), 0, F_RACY),
    {"sync_fence_last_block", "fence.cu", "sync_fence_last_block", D1(FENCE_BLOCKS), D1(FENCE_THREADS), 0,
     F_RACY, setup_sync_fence, check_sync_fence},
    E(shfl_modes, "sync_warp.cu", D1(2), D1(64), 0, 0),
    E(shfl_width, "sync_warp.cu", D1(2), D1(64), 0, 0),
    E(shfl_any_c, "sync_warp.cu", D1(2), D1(64), 0, 0),
    E(warp_vote, "sync_warp.cu", D1(2), D1(64), 0, 0),
    E(warp_match_reduce, "sync_warp.cu", D1(2), D1(64), 0, 0),
    E(shfl_reduce, "sync_warp.cu", D1(SHRED_BLOCKS), D1(SHRED_THREADS), 0, F_RACY),
    /* control.cu, templates.cu */
    ELEM(ctrl_divergent_loops, "control.cu"),
    ELEM(ctrl_early_return, "control.cu"),
    ELEM(ctrl_noinline, "control.cu"),
    E(ctrl_grid2d, "control.cu", ((Dim3){7, 5, 1}), ((Dim3){16, 8, 1}), 0, 0),
    E(ctrl_grid3d, "control.cu", ((Dim3){3, 3, 3}), ((Dim3){8, 4, 2}), 0, 0),
    E(ctrl_grid_stride, "control.cu", D1(3), D1(128), 0, 0),
    {"template_float", "templates.cu", "scale_t<float>", D1(4), D1(256), 0, F_TEMPLATES, setup_tmpl_float,
     check_tmpl_float},
    {"template_int", "templates.cu", "scale_t<int>", D1(4), D1(256), 0, F_TEMPLATES, setup_tmpl_int, check_tmpl_int},
    /* io.cu */
    E(io_printf, "io.cu", D1(1), D1(32), 0, F_NO_GPU),
    E(io_assert, "io.cu", D1(2), D1(64), 0, F_FINDING | F_NO_GPU),
    E(io_malloc, "io.cu", D1(4), D1(64), 0, 0),
    /* algos.cu, coop_groups.cu */
    E(tree_reduce, "algos.cu", D1(TREE_N / TREE_THREADS), D1(TREE_THREADS), TREE_THREADS * 4, F_RACY),
    E(blelloch_scan, "algos.cu", D1(8), D1(SCAN_THREADS), 2 * SCAN_THREADS * 4, F_RACY),
    E(bitonic_sort, "algos.cu", D1(4), D1(SORT_THREADS), SORT_THREADS * 4, F_RACY),
    E(transpose_tiled, "algos.cu", ((Dim3){(TR_W + 31) / 32, (TR_H + 31) / 32, 1}), ((Dim3){32, 8, 1}), 0, F_RACY),
    E(sgemm_tiled, "algos.cu", ((Dim3){(MM_N + 15) / 16, (MM_M + 15) / 16, 1}), ((Dim3){16, 16, 1}), 0, F_RACY),
    E(histogram_shared, "algos.cu", D1(8), D1(256), 0, F_RACY),
    E(monte_carlo, "algos.cu", D1(MC_BLOCKS), D1(MC_THREADS), 0, F_RACY),
    E(cg_tile_reduce, "coop_groups.cu", D1(CG_BLOCKS), D1(CG_THREADS), 0, F_RACY),
    /* tensor.cu: one warp per block */
    E(wmma_f16_layouts, "tensor.cu", D1(4), D1(32), 0, 0),
    E(wmma_f16_acc16, "tensor.cu", D1(1), D1(32), 0, 0),
    E(wmma_bf16_gemm, "tensor.cu", ((Dim3){2, 2, 1}), D1(32), 0, 0),
    E(wmma_tf32, "tensor.cu", D1(2), D1(32), 0, 0),
    E(tf32_convert, "tensor.cu", D1(4), D1(256), 0, 0),
    E(wmma_frag_map, "tensor.cu", D1(1), D1(32), 0, 0),
    E(wmma_f16_gemm_rand, "tensor.cu", ((Dim3){4, 4, 1}), D1(32), 0, 0),
    E(mma_m16n8k16, "tensor.cu", D1(2), D1(32), 0, 0),
    E(mma_m16n8k8, "tensor.cu", D1(2), D1(32), 0, 0),
    /* async.cu: compute_90 */
    E(async_elect, "async.cu", D1(ELECT_BLOCKS), D1(ELECT_THREADS), 0, F_SM90),
    E(async_mbarrier, "async.cu", D1(MBAR_BLOCKS), D1(MBAR_THREADS), 0, F_SM90 | F_RACY),
    E(async_bulk, "async.cu", D1(BULK_BLOCKS), D1(BULK_THREADS), 0, F_SM90 | F_RACY),
    E(async_cp_arrive, "async.cu", D1(CPA_BLOCKS), D1(CPA_THREADS), 0, F_SM90 | F_RACY),
    E(lookback_scan, "async.cu", D1(LB_BLOCKS), D1(LB_THREADS), 0, F_SM90 | F_RACY),
};
#define N_CASES ((int)(sizeof CASES / sizeof CASES[0]))

static const char *const TEMPLATE_NAMES[] = {"scale_t<float>", "scale_t<int>"};

/* ---- shared state: compiled modules and backends ---------------------- */

typedef struct ModEntry {
    char *key;
    CompiledModule *mod;
    Diag *err;
} ModEntry;

static ModEntry g_mods[32];
static int g_nmods;
static char g_cache_dir[64];

typedef enum Mode { MODE_DET, MODE_DEFAULT, MODE_ADV, N_MODES } Mode;
static const char *const MODE_NAMES[N_MODES] = {"emu/deterministic", "emu/default", "emu/adversarial"};
static Backend *g_emu[N_MODES];
static Diag *g_emu_why[N_MODES];
static Backend *g_gpu;
static Diag *g_gpu_why;

static int marker_line(const char *path, const char *marker) {
    char *text = NULL;
    Diag *d = fs_read_file(path, &text, NULL);
    if (d) {
        diag_free(&d);
        return 0;
    }
    int line = 1, found = 0;
    for (const char *p = text; *p; p++) {
        if (*p == '\n') line++;
        else if (!strncmp(p, marker, strlen(marker))) { found = line; break; }
    }
    free(text);
    return found;
}

/* The compiled module of a case's file (compiled once per run). */
static const CompiledModule *module_for(const Case *c, const Diag **err) {
    char *key = xasprintf("%s%s", c->file, (c->flags & F_FAST_MATH) ? "+fast" : "");
    for (int i = 0; i < g_nmods; i++)
        if (!strcmp(g_mods[i].key, key)) {
            free(key);
            *err = g_mods[i].err;
            return g_mods[i].mod;
        }
    ModEntry *e = &g_mods[g_nmods++];
    e->key = key;
    char *path = xasprintf("tests/conformance/%s", c->file);
    char *src = NULL;
    e->err = fs_read_file(path, &src, NULL);
    if (!e->err) {
        CompileOptions o;
        memset(&o, 0, sizeof o);
        o.virtual_arch = (c->flags & F_SM90) ? 90 : 80;
        o.opt_level = -1;
        o.fast_math = (c->flags & F_FAST_MATH) != 0;
        o.cache_dir = g_cache_dir;
        if (c->flags & F_TEMPLATES) {
            o.name_exprs = TEMPLATE_NAMES;
            o.n_name_exprs = 2;
        }
        e->err = compile_cuda(path, src, &o, &e->mod);
    }
    free(src);
    free(path);
    *err = e->err;
    return e->mod;
}

static Backend *emu_for(Mode m) {
    if (g_emu[m] || g_emu_why[m]) return g_emu[m];
    EmuOptions o;
    memset(&o, 0, sizeof o);
    o.checks = true;
    o.metrics = m == MODE_DEFAULT;
    o.deterministic = m == MODE_DET;
    o.threads = m == MODE_DET ? 1 : 0;
    o.adversarial = m == MODE_ADV;
    g_emu[m] = emu_backend_new(&o, &g_emu_why[m]);
    return g_emu[m];
}

/* ---- running one case on one backend ------------------------------------ */

static void run_init(Run *r, const Case *c, const char *mode, bool is_gpu) {
    memset(r, 0, sizeof *r);
    r->c = c;
    r->mode = mode;
    r->is_gpu = is_gpu;
    strbuf_init(&r->err);
    launch_report_init(&r->rep);
}

static void run_fini(Run *r) {
    run_free_buffers(r);
    launch_report_fini(&r->rep);
    strbuf_fini(&r->err);
}

/* Sets up, uploads, launches and downloads. Returns a Diag when the launch
 * itself could not happen (caller frees); findings stay in r->rep. */
static Diag *run_launch(Run *r, Backend *be, const CompiledModule *mod) {
    const Case *c = r->c;
    c->setup(r);
    const BackendOps *ops = be->ops;
    Diag *d = NULL;
    int allocated = 0;
    for (; allocated < r->nbufs; allocated++) {
        Buf *b = &r->bufs[allocated];
        size_t bytes = b->n * elem_size(b->type);
        d = ops->mem_alloc(be, bytes, b->name, elem_size(b->type), &b->dev);
        if (d) goto out;
        d = ops->copy_to_device(be, b->dev, b->host, bytes);
        if (d) { allocated++; goto out; }
    }
    KernelArg args[MAX_ARGS];
    for (int i = 0; i < r->nargs; i++)
        args[i] = r->args[i].buf >= 0 ? kernel_arg_ptr(r->bufs[r->args[i].buf].dev) : r->args[i].arg;
    BackendModule *bm = NULL;
    d = ops->module_load(be, mod, &bm);
    if (d) goto out;
    LaunchConfig cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.grid = c->grid;
    cfg.block = c->block;
    cfg.shared_bytes = c->shared;
    d = ops->launch(be, bm, c->kernel, &cfg, args, r->nargs, &r->rep);
    for (int i = 0; !d && i < r->nbufs; i++) {
        Buf *b = &r->bufs[i];
        if (b->output) d = ops->copy_to_host(be, b->host, b->dev, b->n * elem_size(b->type));
    }
    ops->module_unload(be, &bm);
out:
    for (int i = 0; i < allocated; i++) {
        Diag *f = ops->mem_free(be, r->bufs[i].dev);
        diag_free(&f);
    }
    return d;
}

/* Runs and checks; returns false (and has called fail_msg) on failure. */
static void run_and_check(Run *r, Backend *be, const CompiledModule *mod) {
    const Case *c = r->c;
    Diag *d = run_launch(r, be, mod);
    if (d) {
        char *msg = diag_format_all(d, false);
        diag_free(&d);
        run_fail(r, "  launch failed: %s", msg);
        free(msg);
        return;
    }
    if (!(c->flags & F_FINDING) && diag_count_errors(r->rep.findings)) {
        char *msg = diag_format_all(r->rep.findings, false);
        run_fail(r, "  a correct kernel was flagged:\n%s", msg);
        free(msg);
    }
    if (r->is_gpu && (c->flags & F_FINDING)) return;
    c->check(r);
}

/* Element-by-element GPU vs emulator comparison of every output buffer. */
static void compare_gpu_emu(Run *gpu, const Run *emu) {
    for (int bi = 0; bi < gpu->nbufs; bi++) {
        Buf *g = &gpu->bufs[bi];
        const Buf *e = &emu->bufs[bi];
        if (!g->output || g->nondeterministic) continue;
        int reported = 0;
        size_t wrong = 0, identical = 0;
        bool tolerant = false;
        for (size_t i = 0; i < g->n; i++) {
            bool ok;
            size_t s = g->seg ? i / g->seg : 0;
            Tol t = g->seg_tol[s < MAX_SEGS ? s : MAX_SEGS - 1];
            if (t.ulp > 0 || t.abs > 0 || t.rel > 0) {
                tolerant = true;
                identical += elem_equal(g->type, g->host, e->host, i, g->zero_sign_free);
                ok = elem_close(g->type, e->host, g->host, i, t);
            } else {
                ok = elem_equal(g->type, g->host, e->host, i, g->zero_sign_free);
            }
            if (ok) continue;
            wrong++;
            if (reported++ < MAX_REPORTED) {
                char gs[64], es[64];
                elem_format(g->type, g->host, i, gs, sizeof gs);
                elem_format(g->type, e->host, i, es, sizeof es);
                run_fail(gpu, "  GPU vs emulator: %s[%zu]: gpu %s, emulator %s", g->name, i, gs, es);
            }
        }
        if (wrong) run_fail(gpu, "  GPU vs emulator: %s: %zu of %zu elements differ", g->name, wrong, g->n);
        /* compared with a tolerance: say how close the emulator's model came */
        if (tolerant)
            fprintf(stderr, "note: %s: %s: %zu of %zu elements bit-identical GPU vs emulator\n", gpu->c->name, g->name,
                    identical, g->n);
    }
}

static void conformance_case(void **state) {
    const Case *c = *state;
    const Diag *cerr = NULL;
    const CompiledModule *mod = module_for(c, &cerr);
    if (!mod) {
        char *msg = diag_format_all(cerr, false);
        fail_msg("%s: compiling tests/conformance/%s failed:\n%s", c->name, c->file, msg ? msg : "(no diagnostic)");
    }
    StrBuf all;
    strbuf_init(&all);
    Run det;
    bool have_det = false;
    for (int m = 0; m < N_MODES; m++) {
        if (m == MODE_ADV && !(c->flags & F_RACY)) continue;
        Backend *be = emu_for((Mode)m);
        if (!be) {
            strbuf_printf(&all, "[%s] emu_backend_new failed: %s\n", MODE_NAMES[m],
                          g_emu_why[m] ? g_emu_why[m]->message : "?");
            continue;
        }
        Run r;
        run_init(&r, c, MODE_NAMES[m], false);
        run_and_check(&r, be, mod);
        if (r.nerr) strbuf_printf(&all, "[%s]\n%s", MODE_NAMES[m], r.err.data);
        if (m == MODE_DET) {
            det = r;
            have_det = true;
        } else {
            run_fini(&r);
        }
    }
    if (g_gpu && !(c->flags & F_NO_GPU)) {
        Run r;
        run_init(&r, c, "gpu", true);
        run_and_check(&r, g_gpu, mod);
        if (have_det && !r.nerr) compare_gpu_emu(&r, &det);
        if (r.nerr) strbuf_printf(&all, "[gpu]\n%s", r.err.data);
        run_fini(&r);
    }
    if (have_det) run_fini(&det);
    if (all.len) {
        print_error("%s", all.data);
        strbuf_fini(&all);
        fail_msg("conformance__%s failed", c->name);
    }
    strbuf_fini(&all);
}

/* ---- fixtures ----------------------------------------------------------- */

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static int group_setup(void **state) {
    (void)state;
    snprintf(g_cache_dir, sizeof g_cache_dir, "/tmp/cudojo-conformance-XXXXXX");
    if (!mkdtemp(g_cache_dir)) return -1;
    g_gpu = cuda_backend_new(&g_gpu_why);
    if (!g_gpu && getenv("CUDOJO_TEST_GPU"))
        fprintf(stderr, "CUDOJO_TEST_GPU is set but the GPU backend failed: %s\n",
                g_gpu_why ? g_gpu_why->message : "?");
    return 0;
}

static int group_teardown(void **state) {
    (void)state;
    for (int i = 0; i < g_nmods; i++) {
        free(g_mods[i].key);
        compiled_module_free(&g_mods[i].mod);
        diag_free(&g_mods[i].err);
    }
    for (int m = 0; m < N_MODES; m++) {
        backend_close(&g_emu[m]);
        diag_free(&g_emu_why[m]);
    }
    backend_close(&g_gpu);
    diag_free(&g_gpu_why);
    nftw(g_cache_dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
    return 0;
}

/* Under CUDOJO_TEST_GPU a missing GPU is a failure, not a silent skip. */
static void conformance__gpu_present__when_required(void **state) {
    (void)state;
    if (!getenv("CUDOJO_TEST_GPU")) skip();
    if (!g_gpu) fail_msg("CUDOJO_TEST_GPU is set but no GPU backend: %s", g_gpu_why ? g_gpu_why->message : "?");
}

int main(void) {
    struct CMUnitTest *tests = xcalloc(N_CASES + 1, sizeof *tests);
    char **names = xcalloc(N_CASES, sizeof *names);
    for (int i = 0; i < N_CASES; i++) {
        names[i] = xasprintf("conformance__%s", CASES[i].name);
        tests[i].name = names[i];
        tests[i].test_func = conformance_case;
        tests[i].initial_state = (void *)&CASES[i];
    }
    tests[N_CASES].name = "conformance__gpu_present__when_required";
    tests[N_CASES].test_func = conformance__gpu_present__when_required;
    const char *filter = getenv("CONFORMANCE_FILTER");
    if (filter) cmocka_set_test_filter(filter);
    int rc = _cmocka_run_group_tests("conformance", tests, N_CASES + 1, group_setup, group_teardown);
    for (int i = 0; i < N_CASES; i++) free(names[i]);
    free(names);
    free(tests);
    return rc;
}
