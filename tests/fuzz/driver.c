/* tests/fuzz/driver.c: the mutation fuzzer behind every fuzz target (see
 * tests/fuzz/driver.h). No libFuzzer: it builds with the project's own
 * compiler and flags, so `make fuzz` and `make san` need nothing more. */
#include "tests/fuzz/driver.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/diag.h"
#include "base/fs.h"
#include "base/xalloc.h"

typedef struct Input {
    char *data;
    size_t len;
} Input;

static const char *volatile g_cur;   /* the input being checked, for the crash handler */
static volatile size_t g_cur_len;
static const char *g_crash_file;
static const FuzzTarget *g_target;

static void on_crash(int sig) {
    int fd = open(g_crash_file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0 && g_cur) {
        size_t off = 0;
        while (off < g_cur_len) {
            ssize_t w = write(fd, g_cur + off, g_cur_len - off);
            if (w <= 0) break;
            off += (size_t)w;
        }
        close(fd);
    }
    static const char msg[] = "fuzz: crashed; input saved\n";
    if (write(2, msg, sizeof msg - 1) < 0) { /* nothing more to do */ }
    signal(sig, SIG_DFL);
    raise(sig);
}

static uint64_t g_rng;

static uint64_t rnd(void) {
    uint64_t z = (g_rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static size_t rnd_below(size_t n) { return n ? (size_t)(rnd() % n) : 0; }


static void buf_insert(Input *in, size_t at, const char *s, size_t n) {
    in->data = xrealloc(in->data, in->len + n + 1);
    memmove(in->data + at + n, in->data + at, in->len - at);
    memcpy(in->data + at, s, n);
    in->len += n;
    in->data[in->len] = 0;
}

static void buf_erase(Input *in, size_t at, size_t n) {
    if (at > in->len) return;
    if (n > in->len - at) n = in->len - at;
    memmove(in->data + at, in->data + at + n, in->len - at - n);
    in->len -= n;
    in->data[in->len] = 0;
}

/* Start of the line containing byte `at`, and its length with the newline. */
static void line_at(const Input *in, size_t at, size_t *start, size_t *len) {
    size_t s = at;
    while (s > 0 && in->data[s - 1] != '\n') s--;
    size_t e = at;
    while (e < in->len && in->data[e] != '\n') e++;
    if (e < in->len) e++;
    *start = s;
    *len = e - s;
}

static void mutate_once(Input *in, const Input *corpus, int ncorpus) {
    size_t at = rnd_below(in->len + 1);
    switch (rnd() % 9) {
    case 0:   /* flip bits of a few bytes */
        for (int k = 0; k < 1 + (int)rnd_below(4) && in->len; k++) in->data[rnd_below(in->len)] ^= (char)(1u << rnd_below(8));
        break;
    case 1: { /* random printable bytes */
        char b[8];
        size_t n = 1 + rnd_below(sizeof b);
        for (size_t k = 0; k < n; k++) b[k] = (char)(32 + rnd_below(95));
        buf_insert(in, at, b, n);
        break;
    }
    case 2:   /* delete a range */
        buf_erase(in, at, 1 + rnd_below(64));
        break;
    case 3: { /* a stress token */
        if (!g_target->n_tokens) break;
        const char *t = g_target->tokens[rnd_below(g_target->n_tokens)];
        buf_insert(in, at, t, strlen(t) ? strlen(t) : 1);
        break;
    }
    case 4: { /* duplicate a line */
        size_t s, n;
        line_at(in, at < in->len ? at : (in->len ? in->len - 1 : 0), &s, &n);
        char *copy = xmalloc(n + 1);   /* not xstrndup: the input may hold NUL bytes */
        memcpy(copy, in->data + s, n);
        buf_insert(in, rnd_below(in->len + 1), copy, n);
        free(copy);
        break;
    }
    case 5: { /* delete a line */
        size_t s, n;
        line_at(in, at < in->len ? at : (in->len ? in->len - 1 : 0), &s, &n);
        buf_erase(in, s, n);
        break;
    }
    case 6: { /* splice a line from another corpus file */
        const Input *o = &corpus[rnd_below((size_t)ncorpus)];
        if (!o->len) break;
        size_t s, n;
        line_at(o, rnd_below(o->len), &s, &n);
        buf_insert(in, at, o->data + s, n);
        break;
    }
    case 7:   /* truncate */
        if (in->len) { in->len = rnd_below(in->len); in->data[in->len] = 0; }
        break;
    default: { /* replace a number by an extreme one */
        static const char *const nums[] = {"0", "-1", "4294967296", "2147483648", "65536", "65535", "255", "1024", "31", "32", "64"};
        for (size_t k = at; k < in->len; k++)
            if (in->data[k] >= '0' && in->data[k] <= '9') {
                size_t e = k;
                while (e < in->len && in->data[e] >= '0' && in->data[e] <= '9') e++;
                buf_erase(in, k, e - k);
                const char *nm = nums[rnd_below(sizeof nums / sizeof nums[0])];
                buf_insert(in, k, nm, strlen(nm));
                break;
            }
        break;
    }
    }
}

/* Checks one input with the target; the crash handler knows which. */
static int check_one(const char *data, size_t len) {
    g_cur = data;
    g_cur_len = len;
    int rejected = g_target->check(data, len);
    g_cur = NULL;
    return rejected;
}

static int load_corpus(const char *dir, Input **out) {
    DIR *dh = opendir(dir);
    if (!dh) return 0;
    int n = 0, cap = 16;
    Input *v = xcalloc((size_t)cap, sizeof *v);
    char **names = xcalloc((size_t)cap, sizeof *names);
    struct dirent *e;
    while ((e = readdir(dh))) {
        if (e->d_name[0] == '.') continue;
        if (n == cap) {
            cap *= 2;
            names = xrealloc(names, (size_t)cap * sizeof *names);
        }
        names[n++] = xstrdup(e->d_name);
    }
    closedir(dh);
    /* readdir order is not stable: sort so a seed always means the same run. */
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && strcmp(names[j], names[j - 1]) < 0; j--) {
            char *t = names[j]; names[j] = names[j - 1]; names[j - 1] = t;
        }
    v = xrealloc(v, (size_t)(n ? n : 1) * sizeof *v);
    int got = 0;
    for (int i = 0; i < n; i++) {
        char *p = path_join(dir, names[i]);
        Diag *d = fs_read_file(p, &v[got].data, &v[got].len);
        if (d) diag_free(&d);
        else got++;
        free(p);
        free(names[i]);
    }
    free(names);
    *out = v;
    return got;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int fuzz_main(const FuzzTarget *t, int argc, char **argv) {
    g_target = t;
    g_crash_file = t->crash_file;
    long iterations = -1;
    uint64_t seed = 1;
    double max_seconds = 0;
    const char *corpus_dir = t->corpus_dir;
    int first_file = argc;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--iterations") && i + 1 < argc) iterations = atol(argv[++i]);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--corpus") && i + 1 < argc) corpus_dir = argv[++i];
        else if (!strcmp(argv[i], "--max-seconds") && i + 1 < argc) max_seconds = atof(argv[++i]);
        else { first_file = i; break; }
    }
    if (getenv("FUZZ_CRASH_FILE")) g_crash_file = getenv("FUZZ_CRASH_FILE");
    int sigs[] = {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) signal(sigs[i], on_crash);

    if (iterations < 0) {
        if (first_file >= argc) {
            fprintf(stderr, "usage: %s FILE... | --iterations N [--seed S] [--corpus DIR] [--max-seconds T]\n", t->name);
            return 2;
        }
        int rejected = 0;
        for (int i = first_file; i < argc; i++) {
            Input in = {0};
            Diag *d = fs_read_file(argv[i], &in.data, &in.len);
            if (d) {
                fprintf(stderr, "%s: %s\n", t->name, d->message);
                diag_free(&d);
                return 2;
            }
            rejected += check_one(in.data, in.len);
            free(in.data);
        }
        printf("%s: %d file(s), %d rejected with a diagnostic, no crash\n", t->name, argc - first_file, rejected);
        return 0;
    }

    Input *corpus = NULL;
    int ncorpus = load_corpus(corpus_dir, &corpus);
    if (!ncorpus) {
        fprintf(stderr, "%s: no seed files in %s\n", t->name, corpus_dir);
        return 2;
    }
    g_rng = seed;
    long rejected = 0, done = 0;
    double t0 = now_s();
    for (int i = 0; i < ncorpus; i++) rejected += check_one(corpus[i].data, corpus[i].len);
    for (; done < iterations; done++) {
        if (max_seconds > 0 && (done & 15) == 0 && now_s() - t0 > max_seconds) break;
        const Input *src = &corpus[rnd_below((size_t)ncorpus)];
        Input in = {xmalloc(src->len + 1), src->len};
        memcpy(in.data, src->data, src->len);
        in.data[in.len] = 0;
        int rounds = 1 + (int)rnd_below(3);
        for (int k = 0; k < rounds; k++) mutate_once(&in, corpus, ncorpus);
        rejected += check_one(in.data, in.len);
        free(in.data);
    }
    printf("%s: %ld mutated inputs from %d seeds (seed %llu) in %.1f s, %ld rejected with a diagnostic, no crash\n",
           t->name, done, ncorpus, (unsigned long long)seed, now_s() - t0, rejected);
    for (int i = 0; i < ncorpus; i++) free(corpus[i].data);
    free(corpus);
    return 0;
}
