/* tests/lua/test_ref_cache.c: a costly reference's answer comes from the
 * cache (lua/ref_cache.h) only when everything it was given is the same,
 * byte for byte and dimension for dimension; a damaged entry is
 * recomputed, never trusted; many processes, or threads, may write one
 * entry at once; the secret is read once per folder;
 * CUDOJO_REF_CACHE=0 turns it off. Each case gets its own XDG_CACHE_HOME. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/fs.h"
#include "base/xalloc.h"
#include "lua/api.h"
#include "lua/exercise.h"
#include "lua/ref_cache.h"
#include "lua/sandbox.h"
#include "tests/lua/lesson_fixture.h"
#include "tests/support/fake_backend.h"

static char g_home[64];

static int setup(void **state) {
    (void)state;
    strcpy(g_home, "/tmp/cudojo-refcache-XXXXXX");
    assert_non_null(mkdtemp(g_home));
    setenv("XDG_CACHE_HOME", g_home, 1);
    setenv("CUDOJO_REF_CACHE", "always", 1);
    unsetenv("CUDOJO_REF_CACHE_KEEP");
    return 0;
}

static int teardown(void **state) {
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_home);
    assert_int_equal(system(cmd), 0);
    unsetenv("CUDOJO_REF_CACHE");
    unsetenv("CUDOJO_REF_CACHE_KEEP");
    return 0;
}

/* Files in the refs directory whose names end in `suffix`. */
static int count_files(const char *suffix) {
    char *dir = ref_cache_dir();
    DIR *d = opendir(dir);
    free(dir);
    if (!d) return 0;
    int n = 0;
    struct dirent *e;
    size_t sl = strlen(suffix);
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        n += l >= sl && !strcmp(e->d_name + l - sl, suffix);
    }
    closedir(d);
    return n;
}

/* A call of "test" on input `in` with dimension `dim`, looked up. */
static void call_begin(RefCacheCall *c, const void *in, size_t in_len, uint64_t dim) {
    ref_cache_begin(c, "test", 1, 1e12);
    ref_cache_add_u64(c, "dim", dim);
    ref_cache_add(c, "in", in, in_len);
}

/* Stores ans as the answer for (in, dim); says whether it was written. */
static bool put(const void *in, size_t in_len, uint64_t dim, const void *ans, size_t len) {
    RefCacheCall c;
    call_begin(&c, in, in_len, dim);
    char *out = malloc(len);
    bool hit = ref_cache_lookup(&c, out, len);
    free(out);
    if (hit) {
        ref_cache_end(&c);
        return false;
    }
    ref_cache_store(&c, ans, len);
    return c.stored;
}

/* Looks up (in, dim): true and out filled on a hit. */
static bool get(const void *in, size_t in_len, uint64_t dim, void *out, size_t len, char **path) {
    RefCacheCall c;
    call_begin(&c, in, in_len, dim);
    bool hit = ref_cache_lookup(&c, out, len);
    if (path) *path = c.active ? ref_cache_entry_path(&c) : NULL;
    ref_cache_end(&c);
    return hit;
}

static void fill(unsigned char *p, size_t n, unsigned seed) {
    for (size_t i = 0; i < n; i++) p[i] = (unsigned char)((i * 2654435761u + seed) >> 7);
}

static void ref_cache__answers_byte_identical__when_the_same_inputs_come_again(void **state) {
    (void)state;
    unsigned char in[1000], ans[4096], out[4096];
    fill(in, sizeof in, 1);
    fill(ans, sizeof ans, 2);
    assert_true(put(in, sizeof in, 7, ans, sizeof ans));
    assert_int_equal(count_files(".ref"), 1);
    memset(out, 0, sizeof out);
    assert_true(get(in, sizeof in, 7, out, sizeof out, NULL));
    assert_memory_equal(out, ans, sizeof ans);
}

static void ref_cache__misses__when_one_input_byte_or_a_dimension_differs(void **state) {
    (void)state;
    unsigned char in[1000], ans[256], out[256];
    fill(in, sizeof in, 3);
    fill(ans, sizeof ans, 4);
    assert_true(put(in, sizeof in, 7, ans, sizeof ans));
    in[999] ^= 1;
    assert_false(get(in, sizeof in, 7, out, sizeof out, NULL));
    in[999] ^= 1;
    assert_false(get(in, sizeof in, 8, out, sizeof out, NULL));    /* same bytes, other dimension */
    assert_false(get(in, sizeof in - 1, 7, out, sizeof out, NULL)); /* one byte shorter */
    assert_false(get(in, sizeof in, 7, out, sizeof out - 4, NULL)); /* another answer's length */
    assert_true(get(in, sizeof in, 7, out, sizeof out, NULL));
}

/* Rewrites byte `at` of the file (xor 0x40), or truncates it by one when at < 0. */
static void damage(const char *path, long at) {
    if (at < 0) {
        struct stat st;
        assert_int_equal(stat(path, &st), 0);
        assert_int_equal(truncate(path, st.st_size - 1), 0);
        return;
    }
    int fd = open(path, O_RDWR);
    assert_true(fd >= 0);
    unsigned char b;
    assert_int_equal(pread(fd, &b, 1, at), 1);
    b ^= 0x40;
    assert_int_equal(pwrite(fd, &b, 1, at), 1);
    close(fd);
}

static void ref_cache__recomputes__when_the_entry_is_scribbled_or_truncated(void **state) {
    (void)state;
    unsigned char in[64], ans[1024], out[1024];
    fill(in, sizeof in, 5);
    fill(ans, sizeof ans, 6);
    long spots[] = {100, 20, 1024 + 48 + 3, -1};   /* the answer, the header's key, the checksum, the end */
    assert_true(put(in, sizeof in, 1, ans, sizeof ans));
    for (size_t i = 0; i < sizeof spots / sizeof spots[0]; i++) {
        char *path = NULL;
        assert_true(get(in, sizeof in, 1, out, sizeof out, &path));
        damage(path, spots[i]);
        assert_false(get(in, sizeof in, 1, out, sizeof out, NULL));
        /* the recomputed answer replaces it */
        assert_true(put(in, sizeof in, 1, ans, sizeof ans));
        assert_true(get(in, sizeof in, 1, out, sizeof out, NULL));
        assert_memory_equal(out, ans, sizeof ans);
        free(path);
    }
}

/* Eight processes look up and store one 1 MiB answer 30 times each, all at
 * once: every hit any of them sees is the whole right answer. */
static void ref_cache__stays_right__when_processes_write_one_entry_at_once(void **state) {
    (void)state;
    enum { PROCS = 8, ROUNDS = 30, LEN = 1 << 20 };
    static unsigned char in[4096], ans[LEN];
    fill(in, sizeof in, 7);
    fill(ans, sizeof ans, 8);
    int go[2];
    assert_int_equal(pipe(go), 0);
    pid_t kids[PROCS];
    for (int p = 0; p < PROCS; p++) {
        kids[p] = fork();
        assert_true(kids[p] >= 0);
        if (kids[p] == 0) {
            close(go[1]);
            char b;
            if (read(go[0], &b, 1) != 0) _exit(3);   /* starts when the parent closes the pipe */
            unsigned char *out = malloc(LEN);
            int bad = 0, hits = 0;
            for (int r = 0; r < ROUNDS; r++) {
                RefCacheCall c;
                call_begin(&c, in, sizeof in, 42);
                if (ref_cache_lookup(&c, out, LEN)) {
                    hits++;
                    bad += memcmp(out, ans, LEN) != 0;
                    ref_cache_end(&c);
                } else {
                    ref_cache_store(&c, ans, LEN);
                }
            }
            free(out);
            _exit(bad ? 1 : hits ? 0 : 2);
        }
    }
    close(go[0]);
    close(go[1]);
    for (int p = 0; p < PROCS; p++) {
        int st = 0;
        assert_int_equal(waitpid(kids[p], &st, 0), kids[p]);
        assert_true(WIFEXITED(st));
        assert_int_equal(WEXITSTATUS(st), 0);   /* 1: a wrong answer was read; 2: never a hit */
    }
    static unsigned char out[LEN];
    assert_true(get(in, sizeof in, 42, out, LEN, NULL));
    assert_memory_equal(out, ans, LEN);
    assert_int_equal(count_files(".ref"), 1);
    char *dir = ref_cache_dir();
    DIR *d = opendir(dir);
    struct dirent *e;
    while ((e = readdir(d))) assert_null(strstr(e->d_name, ".tmp."));   /* no temporary file left */
    closedir(d);
    free(dir);
}

/* One thread's share of the threads case: rounds of look up, and store
 * on a miss; counts the wrong hits and the hits. */
typedef struct ThreadRounds {
    const unsigned char *in, *ans;
    size_t in_len, len;
    int rounds, bad, hits;
    pthread_barrier_t *go;
} ThreadRounds;

static void *thread_rounds(void *arg) {
    ThreadRounds *t = arg;
    unsigned char *out = malloc(t->len);
    pthread_barrier_wait(t->go);
    for (int r = 0; r < t->rounds; r++) {
        RefCacheCall c;
        call_begin(&c, t->in, t->in_len, 43);
        if (ref_cache_lookup(&c, out, t->len)) {
            t->hits++;
            t->bad += memcmp(out, t->ans, t->len) != 0;
            ref_cache_end(&c);
        } else {
            ref_cache_store(&c, t->ans, t->len);
        }
    }
    free(out);
    return NULL;
}

/* Eight threads of one process start on an empty folder at once: the
 * folder and its secret are made once, every hit is the whole right
 * answer (run once under -fsanitize=thread: no race is reported). */
static void ref_cache__stays_right__when_threads_look_up_and_store_at_once(void **state) {
    (void)state;
    enum { THREADS = 8, ROUNDS = 20, LEN = 64 << 10 };
    static unsigned char in[512], ans[LEN];
    fill(in, sizeof in, 11);
    fill(ans, sizeof ans, 12);
    pthread_barrier_t go;
    pthread_barrier_init(&go, NULL, THREADS);
    pthread_t th[THREADS];
    ThreadRounds t[THREADS];
    for (int i = 0; i < THREADS; i++) {
        t[i] = (ThreadRounds){in, ans, sizeof in, LEN, ROUNDS, 0, 0, &go};
        assert_int_equal(pthread_create(&th[i], NULL, thread_rounds, &t[i]), 0);
    }
    int hits = 0;
    for (int i = 0; i < THREADS; i++) {
        assert_int_equal(pthread_join(th[i], NULL), 0);
        assert_int_equal(t[i].bad, 0);
        hits += t[i].hits;
    }
    pthread_barrier_destroy(&go);
    assert_true(hits >= THREADS * (ROUNDS - 1));   /* each thread misses at most its first round */
    assert_int_equal(count_files(".ref"), 1);
    assert_int_equal(count_files("secret"), 1);
}

/* Replaces dir/secret with other bytes of the right size. */
static void secret_replace(void) {
    char *dir = ref_cache_dir();
    char *path = path_join(dir, "secret");
    unsigned char other[192];
    fill(other, sizeof other, 99);
    Diag *d = fs_write_file_atomic(path, other, sizeof other);
    assert_null(d);
    free(path);
    free(dir);
}

/* The secret is read once per folder and process (a changed secret file
 * changes nothing for it), each folder has its own, and a folder removed
 * since is made again on the next store. */
static void ref_cache__reads_the_secret_once__per_cache_folder(void **state) {
    (void)state;
    unsigned char in[64], ans[256], out[256];
    fill(in, sizeof in, 13);
    fill(ans, sizeof ans, 14);
    assert_true(put(in, sizeof in, 1, ans, sizeof ans));
    secret_replace();
    assert_true(get(in, sizeof in, 1, out, sizeof out, NULL));   /* read again, it would miss */
    assert_memory_equal(out, ans, sizeof ans);
    /* another folder: its own secret, none of the first one's entries */
    char *other = path_join(g_home, "other");
    setenv("XDG_CACHE_HOME", other, 1);
    assert_false(get(in, sizeof in, 1, out, sizeof out, NULL));
    assert_int_equal(count_files("secret"), 1);
    unsigned char ans2[256];
    fill(ans2, sizeof ans2, 15);
    assert_true(put(in, sizeof in, 1, ans2, sizeof ans2));
    setenv("XDG_CACHE_HOME", g_home, 1);
    assert_true(get(in, sizeof in, 1, out, sizeof out, NULL));
    assert_memory_equal(out, ans, sizeof ans);
    /* the folder removed while the process runs */
    char *dir = ref_cache_dir();
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
    assert_false(get(in, sizeof in, 1, out, sizeof out, NULL));
    assert_true(put(in, sizeof in, 1, ans, sizeof ans));
    assert_true(get(in, sizeof in, 1, out, sizeof out, NULL));
    assert_memory_equal(out, ans, sizeof ans);
    free(dir);
    free(other);
}

static void ref_cache__is_off__when_CUDOJO_REF_CACHE_is_0(void **state) {
    (void)state;
    setenv("CUDOJO_REF_CACHE", "0", 1);
    unsigned char in[16] = {1}, ans[16] = {2}, out[16];
    RefCacheCall c;
    call_begin(&c, in, sizeof in, 1);
    assert_false(c.active);
    ref_cache_end(&c);
    assert_false(put(in, sizeof in, 1, ans, sizeof ans));
    assert_false(get(in, sizeof in, 1, out, sizeof out, NULL));
    assert_int_equal(count_files(".ref"), 0);
    setenv("CUDOJO_REF_CACHE", "always", 1);
    assert_false(get(in, sizeof in, 1, out, sizeof out, NULL));   /* nothing was written while off */
}

/* Auto mode: too little work is never looked up; an answer that took less
 * than REF_CACHE_GAIN lookups to compute is not stored. */
static void ref_cache__stores_nothing__when_computing_costs_less_than_a_lookup(void **state) {
    (void)state;
    setenv("CUDOJO_REF_CACHE", "auto", 1);
    RefCacheCall c;
    ref_cache_begin(&c, "test", 1, REF_CACHE_MIN_WORK / 2);
    assert_false(c.active);
    ref_cache_end(&c);
    enum { LEN = 4 << 20 };   /* a hit would read 4 MiB: computing "took" ~0 ms */
    unsigned char in[64] = {9};
    unsigned char *ans = calloc(1, LEN);
    assert_false(put(in, sizeof in, 1, ans, LEN));
    assert_int_equal(count_files(".ref"), 0);
    /* one that took long enough is */
    ref_cache_begin(&c, "test", 1, 1e12);
    ref_cache_add(&c, "in", in, sizeof in);
    assert_false(ref_cache_lookup(&c, ans, 16));
    struct timespec ts = {0, 20 * 1000 * 1000};   /* 20 ms > 3 x (hash + 0.05 ms + 16 bytes) */
    nanosleep(&ts, NULL);
    ref_cache_store(&c, ans, 16);
    assert_true(c.stored);
    free(ans);
}

static void set_age(int i, int age_s) {
    unsigned char in[4] = {(unsigned char)i};
    char *path = NULL;
    unsigned char out[8];
    assert_true(get(in, sizeof in, 0, out, sizeof out, &path));
    struct timespec t[2];
    clock_gettime(CLOCK_REALTIME, &t[0]);
    t[0].tv_sec -= age_s;
    t[1] = t[0];
    assert_int_equal(utimensat(AT_FDCWD, path, t, 0), 0);
    free(path);
}

static void ref_cache__drops_the_least_recently_used__past_its_entry_limit(void **state) {
    (void)state;
    setenv("CUDOJO_REF_CACHE_KEEP", "8", 1);
    unsigned char ans[8] = {1, 2, 3, 4, 5, 6, 7, 8}, out[8];
    for (int i = 0; i < 8; i++) {
        unsigned char in[4] = {(unsigned char)i};
        assert_true(put(in, sizeof in, 0, ans, sizeof ans));
    }
    for (int i = 0; i < 8; i++) set_age(i, 100 - i);   /* 0 the oldest */
    unsigned char in0[4] = {0};
    assert_true(get(in0, sizeof in0, 0, out, sizeof out, NULL));   /* a hit makes 0 the newest */
    unsigned char in8[4] = {8};
    assert_true(put(in8, sizeof in8, 0, ans, sizeof ans));   /* 9 > 8: down to 6 */
    assert_int_equal(count_files(".ref"), 6);
    for (int i = 0; i <= 8; i++) {
        unsigned char in[4] = {(unsigned char)i};
        bool kept = i == 0 || i >= 4;
        assert_int_equal(get(in, sizeof in, 0, out, sizeof out, NULL), kept);
    }
}

/* Runs code in a sandbox with the ref module and a run context (whose
 * cache counters it returns in *hits, *misses). */
static void run_lua(const char *code, int *hits, int *misses) {
    Sandbox *sb = sandbox_new(NULL);
    ApiCtx ctx;
    memset(&ctx, 0, sizeof ctx);
    sandbox_set_user(sb, &ctx);
    api_install(sb);
    Diag *d = sandbox_load_string(sb, code, strlen(code), "lessons/test/ref_cache.lua");
    if (!d) d = sandbox_call(sb, 0, 0);
    sandbox_free(&sb);
    if (d) {
        char *s = diag_format_all(d, false);
        diag_free(&d);
        fail_msg("%s", s);
    }
    *hits = ctx.ref_cache_hits;
    *misses = ctx.ref_cache_misses;
}

static void ref__matmul_window_sort__answer_from_the_cache_as_computed(void **state) {
    (void)state;
    int hits, misses;
    const char *code =
        "local A = gpu.array('f32', {40, 24}):random{ lo = -1, hi = 1, seed = 1 }\n"
        "local B = gpu.array('f32', {24, 136}):random{ lo = -1, hi = 1, seed = 2 }\n"
        "local img = gpu.array('f32', {30, 50}):random{ seed = 3 }\n"
        "local x = gpu.array('i32', 5000):random{ lo = -99, hi = 99, seed = 4 }\n"
        "local function same(p, q, what)\n"
        "  assert(#p == #q and p.dtype == q.dtype, what)\n"
        "  for i = 0, #p - 1 do assert(p[i] == q[i], what .. ' differs at ' .. i) end\n"
        "end\n"
        "same(ref.matmul(A, B), ref.matmul(A, B), 'matmul')\n"
        "same(ref.window(img, {1, 2}, 'median', { boundary = 'clamp' }),\n"
        "     ref.window(img, {1, 2}, 'median', { boundary = 'clamp' }), 'window')\n"
        "same(ref.sort(x), ref.sort(x), 'sort')\n"
        /* one element changed: computed again, and right */
        "A[0] = A[0] + 1\n"
        "local C = ref.matmul(A, B)\n"
        "local want = 0\n"
        "for k = 0, 23 do want = want + A[k] * B[k * 136] end\n"
        "assert(math.abs(C[0] - want) < 1e-4, 'C[0] after A[0] changed: ' .. C[0] .. ' want ' .. want)\n"
        /* other window options: another answer */
        "local m = ref.window(img, {1, 2}, 'mean', { boundary = 'clamp' })\n";
    run_lua(code, &hits, &misses);
    assert_int_equal(hits, 3);
    assert_int_equal(misses, 5);
    run_lua(code, &hits, &misses);   /* a second run (the next save, another student): all hits */
    assert_int_equal(hits, 8);
    assert_int_equal(misses, 0);
}

/* An exercise whose run computes one product twice; its metrics.phases. */
static json_t *run_exercise_phases(const char *root, Backend *b, RunResult **r) {
    Course *course = NULL;
    char *lessons = path_join(root, "lessons");
    Diag *d = course_load(lessons, &course);
    free(lessons);
    if (diag_count_errors(d)) fail_msg("course: %s", d->message);
    diag_free(&d);
    char *cu = path_join(root, "lessons/01-a/mm.cu"), *cache = path_join(root, "nvrtc");
    ExerciseRunOptions o = {.cu_path = cu, .cu_display = "mm.cu", .cache_dir = cache};
    *r = exercise_run(course_find_exercise(course, "mm", NULL), b, &o);
    free(cu);
    free(cache);
    course_free(&course);
    if ((*r)->verdict != VERDICT_PASS) fail_msg("the run did not pass: %s", (*r)->summary);
    return json_object_get((*r)->metrics, "phases");
}

static void exercise_run__phases_say_the_reference_was_cached__on_the_second_run(void **state) {
    (void)state;
    char *root = fixture_tmpdir();
    fixture_write(root, "lessons/01-a/chapter.lua", "return { id = 'a', order = 1, exercises = { 'mm' } }\n");
    fixture_write(root, "lessons/01-a/mm.cu", "__global__ void k() {}\n");
    fixture_write(root, "lessons/01-a/solutions/mm.cu", "__global__ void k() {}\n");
    fixture_write(root, "lessons/01-a/mm.lua",
                  "return { id = 'mm', source = 'mm.cu', hints = { 'h' }, run = function(t)\n"
                  "  local A = gpu.array('f32', {200, 44}):random{ seed = 1 }\n"
                  "  local B = gpu.array('f32', {44, 196}):random{ seed = 2 }\n"
                  "  t:expect_equal(ref.matmul(A, B), ref.matmul(A, B), { name = 'C' })\n"
                  "end }\n");
    Backend *b = fake_backend_new();
    RunResult *r = NULL;
    json_t *ph = run_exercise_phases(root, b, &r);
    /* the first computes and stores it, the second reads it back */
    assert_int_equal(json_integer_value(json_object_get(ph, "reference_cache_misses")), 1);
    assert_int_equal(json_integer_value(json_object_get(ph, "reference_cache_hits")), 1);
    assert_true(json_is_false(json_object_get(ph, "reference_cached")));
    run_result_free(&r);
    /* the next run (the learner's next save): every answer from the cache */
    ph = run_exercise_phases(root, b, &r);
    assert_int_equal(json_integer_value(json_object_get(ph, "reference_cache_hits")), 2);
    assert_int_equal(json_integer_value(json_object_get(ph, "reference_cache_misses")), 0);
    assert_true(json_is_true(json_object_get(ph, "reference_cached")));
    run_result_free(&r);
    /* off: not a word about the cache */
    setenv("CUDOJO_REF_CACHE", "0", 1);
    ph = run_exercise_phases(root, b, &r);
    assert_null(json_object_get(ph, "reference_cached"));
    assert_non_null(json_object_get(ph, "reference_ms"));
    run_result_free(&r);
    backend_close(&b);
    fixture_remove(&root);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(ref_cache__answers_byte_identical__when_the_same_inputs_come_again, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(ref_cache__misses__when_one_input_byte_or_a_dimension_differs, setup, teardown),
        cmocka_unit_test_setup_teardown(ref_cache__recomputes__when_the_entry_is_scribbled_or_truncated, setup, teardown),
        cmocka_unit_test_setup_teardown(ref_cache__stays_right__when_processes_write_one_entry_at_once, setup, teardown),
        cmocka_unit_test_setup_teardown(ref_cache__stays_right__when_threads_look_up_and_store_at_once, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(ref_cache__reads_the_secret_once__per_cache_folder, setup, teardown),
        cmocka_unit_test_setup_teardown(ref_cache__is_off__when_CUDOJO_REF_CACHE_is_0, setup, teardown),
        cmocka_unit_test_setup_teardown(ref_cache__stores_nothing__when_computing_costs_less_than_a_lookup, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(ref_cache__drops_the_least_recently_used__past_its_entry_limit, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(ref__matmul_window_sort__answer_from_the_cache_as_computed, setup, teardown),
        cmocka_unit_test_setup_teardown(exercise_run__phases_say_the_reference_was_cached__on_the_second_run, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
