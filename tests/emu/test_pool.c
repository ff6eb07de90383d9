/* tests/emu/test_pool.c: the emulator's pool of host threads (emu_pool.c):
 * every job's work done once whatever the helpers, threads made once and
 * reused, launches of every grid size giving the results, findings and
 * metrics of one thread, a launch that faults leaving the next one whole,
 * and a pool used before fork() working in the child. */
#include "tests/emu/emu_fixture.h"

#include <dirent.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "kernels/emu/emu_pool.h"

/* ---- the pool alone --------------------------------------------------------------------- */

enum { ITEMS = 2000, MAX_SLOTS = 8 };

typedef struct Job {
    int next;                 /* the shared counter, taken with __atomic */
    int done[ITEMS];          /* how often each item ran */
    int slot_items[MAX_SLOTS];
    int max_slot;
    bool wake;                /* the caller wakes the helpers at once */
} Job;

static void job_fn(void *arg, int slot, EmuPool *pool) {
    Job *j = arg;
    if (slot == 0 && j->wake) emu_pool_wake(pool);
    for (;;) {
        int i = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED);
        if (i >= ITEMS) break;
        __atomic_fetch_add(&j->done[i], 1, __ATOMIC_RELAXED);
        __atomic_fetch_add(&j->slot_items[slot], 1, __ATOMIC_RELAXED);
    }
    int m = __atomic_load_n(&j->max_slot, __ATOMIC_RELAXED);
    while (slot > m && !__atomic_compare_exchange_n(&j->max_slot, &m, slot, false, __ATOMIC_RELAXED,
                                                    __ATOMIC_RELAXED)) {}
}

static void pool__runs_every_item_once__for_many_jobs_and_helper_counts(void **state) {
    (void)state;
    EmuPool *p = NULL;
    Job *j = malloc(sizeof *j);
    for (int round = 0; round < 300; round++) {
        int helpers = round % 5;   /* 0..4 */
        memset(j, 0, sizeof *j);
        j->wake = true;
        emu_pool_run(&p, helpers, job_fn, j);
        for (int i = 0; i < ITEMS; i++) assert_int_equal(j->done[i], 1);
        int sum = 0;
        for (int s = 0; s < MAX_SLOTS; s++) sum += j->slot_items[s];
        assert_int_equal(sum, ITEMS);
        assert_true(j->max_slot <= helpers);
    }
    /* made once, as many as the most helpers asked for, then reused */
    assert_int_equal(emu_pool_threads(p), 4);
    emu_pool_free(&p);
    assert_null(p);
    emu_pool_free(&p);   /* NULL-safe */
    free(j);
}

static void pool__runs_on_the_caller_alone__without_helpers_a_pool_or_a_wake(void **state) {
    (void)state;
    EmuPool *p = NULL;
    Job *j = calloc(1, sizeof *j);
    j->wake = true;
    emu_pool_run(&p, 0, job_fn, j);
    assert_int_equal(j->slot_items[0], ITEMS);
    assert_null(p);   /* nothing made for a job the caller does alone */
    memset(j, 0, sizeof *j);
    j->wake = true;
    emu_pool_run(NULL, 3, job_fn, j);
    assert_int_equal(j->slot_items[0], ITEMS);
    /* a job that never wakes its helpers makes none */
    for (int i = 0; i < 20; i++) {
        memset(j, 0, sizeof *j);
        emu_pool_run(&p, 3, job_fn, j);
        assert_int_equal(j->slot_items[0], ITEMS);
    }
    assert_int_equal(emu_pool_threads(p), 0);
    emu_pool_free(&p);
    free(j);
}

/* ---- launches on the backend ------------------------------------------------------------ */

/* Every block sums its slice into out[block] through shared memory, and
 * every thread writes its global index: results depend on every block. */
static const char KERNEL[] =
    "extern \"C\" __global__ void fill(const int *in, int *out, int *idx, int n, int bad_block, int trap_block,\n"
    "                                   int spin) {\n"
    "    __shared__ int s[64];\n"
    "    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;\n"
    "    s[t] = i < n ? in[i] : 0;\n"
    "    __syncthreads();\n"
    "    for (int st = 32; st > 0; st >>= 1) {\n"
    "        if (t < st) s[t] += s[t + st];\n"
    "        __syncthreads();\n"
    "    }\n"
    "    if (t == 0) out[blockIdx.x] = s[0];\n"
    "    if (i < n) idx[i] = i;\n"
    "    if ((int)blockIdx.x == bad_block && t == 7) idx[2581] = 1;\n"   /* idx has MAXB * BT + 16 */
    "    if ((int)blockIdx.x == trap_block && t == 0) __trap();\n"
    "    unsigned acc = 0;\n"
    "    for (int k = 0; k < spin; k++) acc = acc * 3u + (unsigned)k;\n"   /* a long block when spin > 0 */
    "    if (t == 0 && acc == 0x7fffffffu) out[blockIdx.x] = 0;\n"
    "}\n";

enum { MAXB = 40, BT = 64 };

typedef struct Run {
    int out[MAXB];
    char *findings;
    char *metrics;
} Run;

/* Threads of this process now (Linux: /proc/self/task). */
static int task_count(void) {
    DIR *d = opendir("/proc/self/task");
    if (!d) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.') n++;
    closedir(d);
    return n;
}

/* Waits (up to 5 s) until every other thread of this process sleeps: the
 * pool's helpers, made by a launch that the calling thread may finish
 * before they are even up, are asleep between launches. Under ASan (GCC 12)
 * a fork() while a new thread is still in its allocator start-up leaves
 * the allocator's lock held in the child; glibc's malloc is fork-safe. */
static void wait_others_asleep(void) {
    char self[32];
    snprintf(self, sizeof self, "%d", (int)getpid());
    for (int tries = 0; tries < 500; tries++) {
        DIR *d = opendir("/proc/self/task");
        if (!d) return;
        bool busy = false;
        struct dirent *e;
        while ((e = readdir(d)) && !busy) {
            if (e->d_name[0] == '.' || !strcmp(e->d_name, self)) continue;
            char path[300], buf[256];
            snprintf(path, sizeof path, "/proc/self/task/%s/stat", e->d_name);
            FILE *f = fopen(path, "r");
            if (!f) continue;
            size_t n = fread(buf, 1, sizeof buf - 1, f);
            fclose(f);
            buf[n] = 0;
            const char *st = strrchr(buf, ')');
            if (st && st[1] == ' ' && st[2] != 'S') busy = true;
        }
        closedir(d);
        if (!busy) return;
        usleep(10000);
    }
}

/* Launches fill on `blocks` blocks (block bad_block writes out of bounds,
 * block trap_block traps; -1: none; every thread loops `spin` times first)
 * and checks idx unless a block trapped. */
static void launch_fill_spin(EmuFx *f, DevPtr in, DevPtr out, DevPtr idx, int blocks, int bad_block,
                             int trap_block, int spin, Run *r) {
    int n = blocks * BT - 3;   /* a partial last block */
    assert_null(f->b->ops->memset(f->b, out, 0, MAXB * sizeof(int)));
    assert_null(f->b->ops->memset(f->b, idx, 0xff, (MAXB * BT + 16) * sizeof(int)));
    KernelArg args[] = {kernel_arg_ptr(in), kernel_arg_ptr(out), kernel_arg_ptr(idx), kernel_arg_i32(n),
                        kernel_arg_i32(bad_block), kernel_arg_i32(trap_block), kernel_arg_i32(spin)};
    fx_run(f, "fill", (unsigned)blocks, BT, args, 7);
    fx_get(f, r->out, out, sizeof r->out);
    int *ix = malloc((size_t)n * sizeof *ix);
    fx_get(f, ix, idx, (size_t)n * sizeof *ix);
    for (int i = 0; i < n && trap_block < 0; i++) assert_int_equal(ix[i], i);
    free(ix);
    r->findings = strdup(f->findings);
    r->metrics = json_dumps(f->r.metrics, JSON_SORT_KEYS | JSON_COMPACT);
}

/* Long blocks (a few ms each): the pool's helpers take part. */
#define SPIN 3000

static void launch_fill(EmuFx *f, DevPtr in, DevPtr out, DevPtr idx, int blocks, int bad_block, Run *r) {
    launch_fill_spin(f, in, out, idx, blocks, bad_block, -1, SPIN, r);
}

static void open_fill(EmuFx *f, int threads, DevPtr *in, DevPtr *out, DevPtr *idx) {
    EmuOptions o = fx_opts(true, true);
    o.threads = threads;
    fx_load(f, KERNEL, &o);
    int *h = malloc(MAXB * BT * sizeof *h);
    for (int i = 0; i < MAXB * BT; i++) h[i] = (i * 7919) % 1000 - 500;
    *in = fx_array(f, "in", 4, MAXB * BT, h);
    *out = fx_array(f, "out", 4, MAXB, NULL);
    *idx = fx_array(f, "idx", 4, MAXB * BT + 16, NULL);
    free(h);
}

static void pool__gives_one_threads_results_findings_and_metrics__for_grids_1_to_40(void **state) {
    (void)state;
    EmuFx one, many;
    DevPtr i1, o1, x1, in, on, xn;
    open_fill(&one, 1, &i1, &o1, &x1);
    open_fill(&many, 4, &in, &on, &xn);
    for (int blocks = 1; blocks <= MAXB; blocks++) {
        for (int rep = 0; rep < 2; rep++) {
            Run a, b;
            int spin = rep ? SPIN : 0;   /* short launches stay on one thread, long ones spread */
            launch_fill_spin(&one, i1, o1, x1, blocks, -1, -1, spin, &a);
            launch_fill_spin(&many, in, on, xn, blocks, -1, -1, spin, &b);
            assert_memory_equal(a.out, b.out, sizeof a.out);
            assert_string_equal(a.findings, b.findings);
            assert_string_equal(a.metrics, b.metrics);
            assert_true(fx_total(&many, "blocks") == blocks);
            assert_true(fx_line(&many, 11, "executions") > 0);   /* out[blockIdx.x] = s[0] */
            free(a.findings); free(a.metrics); free(b.findings); free(b.metrics);
        }
    }
    fx_free(&one);
    fx_free(&many);
}

static void pool__leaves_the_next_launch_whole__after_a_launch_that_faults(void **state) {
    (void)state;
    EmuFx one, many;
    DevPtr i1, o1, x1, in, on, xn;
    open_fill(&one, 1, &i1, &o1, &x1);
    open_fill(&many, 4, &in, &on, &xn);
    for (int rep = 0; rep < 5; rep++) {
        Run a, b;
        /* block 17 of 32 writes past the end of idx */
        launch_fill(&one, i1, o1, x1, 32, 17, &a);
        launch_fill(&many, in, on, xn, 32, 17, &b);
        const Diag *oob = fx_finding(&many, "oob-global");
        assert_non_null(oob);
        assert_non_null(strstr(oob->message, "idx["));
        assert_string_equal(a.findings, b.findings);
        assert_string_equal(a.metrics, b.metrics);
        free(a.findings); free(a.metrics); free(b.findings); free(b.metrics);
        /* and the next launch is clean and right */
        launch_fill(&one, i1, o1, x1, 32, -1, &a);
        launch_fill(&many, in, on, xn, 32, -1, &b);
        assert_string_equal(b.findings, "");
        assert_memory_equal(a.out, b.out, sizeof a.out);
        assert_string_equal(a.metrics, b.metrics);
        free(a.findings); free(a.metrics); free(b.findings); free(b.metrics);
        /* a trap in block 9 stops the launch from starting blocks (how many
         * ran depends on the threads); the next launch runs every block */
        launch_fill_spin(&many, in, on, xn, 32, -1, 9, SPIN, &b);
        assert_non_null(fx_finding(&many, "trap"));
        free(b.findings); free(b.metrics);
        launch_fill(&one, i1, o1, x1, 32, -1, &a);
        launch_fill(&many, in, on, xn, 32, -1, &b);
        assert_string_equal(b.findings, "");
        assert_memory_equal(a.out, b.out, sizeof a.out);
        assert_string_equal(a.metrics, b.metrics);
        free(a.findings); free(a.metrics); free(b.findings); free(b.metrics);
    }
    fx_free(&one);
    fx_free(&many);
}

static void pool__makes_no_thread_for_one_block__and_keeps_its_threads_between_launches(void **state) {
    (void)state;
    EmuFx f;
    DevPtr in, out, idx;
    open_fill(&f, 4, &in, &out, &idx);
    int before = task_count();
    assert_true(before >= 1);
    Run r;
    for (int i = 0; i < 20; i++) {
        launch_fill(&f, in, out, idx, 1, -1, &r);
        free(r.findings); free(r.metrics);
    }
    assert_int_equal(task_count(), before);   /* a 1-block grid runs on the calling thread */
    launch_fill(&f, in, out, idx, 3, -1, &r);
    free(r.findings); free(r.metrics);
    int with_pool = task_count();
    assert_true(with_pool > before && with_pool <= before + 2);   /* no more helpers than blocks - 1 */
    for (int i = 0; i < 50; i++) {
        launch_fill(&f, in, out, idx, 2 + i % 2, -1, &r);   /* 1 or 2 helpers */
        free(r.findings); free(r.metrics);
    }
    assert_int_equal(task_count(), with_pool);   /* reused, not made again */
    fx_free(&f);
    assert_int_equal(task_count(), before);      /* joined when the backend closes */
}

static void pool__works_in_a_forked_child__after_the_parent_used_it(void **state) {
    (void)state;
    EmuFx f;
    DevPtr in, out, idx;
    open_fill(&f, 4, &in, &out, &idx);
    Run want, r;
    launch_fill(&f, in, out, idx, 40, -1, &want);   /* the pool has its helpers now */
    wait_others_asleep();
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        /* the child: only this thread exists; the parent's pool must not be waited on */
        int bad = 0;
        for (int i = 0; i < 10 && !bad; i++) {
            LaunchConfig cfg;
            memset(&cfg, 0, sizeof cfg);
            cfg.grid = (Dim3){40, 1, 1};
            cfg.block = (Dim3){BT, 1, 1};
            KernelArg args[] = {kernel_arg_ptr(in), kernel_arg_ptr(out), kernel_arg_ptr(idx),
                                kernel_arg_i32(40 * BT - 3), kernel_arg_i32(-1), kernel_arg_i32(-1),
                                kernel_arg_i32(SPIN)};
            LaunchReport rep;
            launch_report_init(&rep);
            Diag *d = f.b->ops->launch(f.b, f.m, "fill", &cfg, args, 7, &rep);
            int got[MAXB];
            if (d || rep.findings || f.b->ops->copy_to_host(f.b, got, out, sizeof got) ||
                memcmp(got, want.out, sizeof got))
                bad = 1;
            launch_report_fini(&rep);
        }
        if (!bad && task_count() != 1 + 3) bad = 2;   /* a fresh pool's 3 helpers */
        fx_free(&f);
        if (!bad && task_count() != 1) bad = 3;
        _exit(bad);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    /* the parent's pool goes on */
    launch_fill(&f, in, out, idx, 40, -1, &r);
    assert_memory_equal(r.out, want.out, sizeof r.out);
    assert_string_equal(r.metrics, want.metrics);
    free(r.findings); free(r.metrics); free(want.findings); free(want.metrics);
    fx_free(&f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pool__runs_every_item_once__for_many_jobs_and_helper_counts),
        cmocka_unit_test(pool__runs_on_the_caller_alone__without_helpers_a_pool_or_a_wake),
        cmocka_unit_test(pool__gives_one_threads_results_findings_and_metrics__for_grids_1_to_40),
        cmocka_unit_test(pool__leaves_the_next_launch_whole__after_a_launch_that_faults),
        cmocka_unit_test(pool__makes_no_thread_for_one_block__and_keeps_its_threads_between_launches),
        cmocka_unit_test(pool__works_in_a_forked_child__after_the_parent_used_it),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
