/* tests/fuzz/fuzz_worker.c: a fuzz target for both ends of the worker
 * protocol (app/runner.h), on the driver in tests/fuzz/driver.c.
 *
 * One input is JSON lines. Each line is read as the parent reads a
 * worker's answer (run_result_from_json, then back to JSON and printed as
 * the CLI would), and the whole input is served to the worker's request
 * loop (runner_worker_main on the emulator, stdin redirected to the input,
 * its answers to /dev/null). Requests name the small chapter in
 * tests/fuzz/worker-chapter/, so well-formed ones really run. Nothing may
 * crash, hang or abort. Seeds: tests/fuzz/corpus-worker/. */
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/runner.h"
#include "base/result.h"
#include "tests/fuzz/driver.h"

static const char *const TOKENS[] = {
    "{", "}", "[", "]", ",", ":", "\"", "\\u0000", "\\ud800", "\\udfff", "\\u00ff", "\\\"", "null", "true", "false",
    "-1", "1e999", "-0", "0.0", "9223372036854775808", "\"verdict\": \"pass\"", "\"verdict\": 7",
    "\"verdict\": \"no-such\"", "\"checks\": [", "\"diags\": [", "\"mismatches\": [{\"index\": -1}]",
    "\"metrics\": {\"a\": {\"b\": []}}", "\"log\": \"\\u001b[2J\"", "\"summary\": null", "\"result\": ",
    "\"restart\": true", "\"exercise\": \"fuzz-add\"", "\"chapter_dir\": \"tests/fuzz/worker-chapter/01-add\"",
    "\"chapter_dir\": \"/\"", "\"chapter_dir\": \"..\"", "\"cu\": \"/dev/null\"", "\"cu\": \"/etc/passwd\"",
    "\"params\": {\"n\": \"1e9\"}", "\"params\": {\"n\": \"-1\"}", "\"params\": []", "\xff", "\xe4\xb8\xad", "\n",
};

static FILE *g_null;

/* The parent's side: one answer line. */
static int check_answer(const char *line, size_t len) {
    json_error_t err;
    json_t *j = json_loadb(line, len, JSON_ALLOW_NUL, &err);
    if (!j) return 1;
    json_t *res = json_object_get(j, "result");
    if (!json_is_object(res)) res = j;
    int rejected = 1;
    if (json_is_object(res)) {
        RunResult *r = run_result_from_json(res);
        json_t *back = run_result_to_json(r);
        char *text = back ? json_dumps(back, JSON_COMPACT) : NULL;
        if (!text) {
            fprintf(stderr, "fuzz_worker: a parsed result does not encode as JSON again\n");
            abort();
        }
        run_result_print(r, g_null, true);
        free(text);
        json_decref(back);
        run_result_free(&r);
        rejected = 0;
    }
    json_decref(j);
    return rejected;
}

/* The worker's side: the whole input as its stdin. */
static void serve_requests(const char *data, size_t len) {
    char path[] = "/tmp/cudojo-fuzz-worker-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) return;
    unlink(path);
    if (write(fd, data, len) != (ssize_t)len) {
        close(fd);
        return;
    }
    int in = dup(0), out = dup(1), errfd = dup(2);
    dup2(fd, 0);
    close(fd);
    fseek(stdin, 0, SEEK_SET);
    clearerr(stdin);
    fflush(stdout);
    dup2(fileno(g_null), 1);
    dup2(fileno(g_null), 2);
    runner_worker_main(BACKEND_EMU, 1);
    fflush(stdout);
    dup2(in, 0);
    dup2(out, 1);
    dup2(errfd, 2);
    close(in);
    close(out);
    close(errfd);
    clearerr(stdin);
}

static int check_worker(const char *data, size_t len) {
    int rejected = 0;
    const char *p = data, *end = data + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *e = nl ? nl : end;
        rejected |= check_answer(p, (size_t)(e - p));
        p = e + 1;
    }
    serve_requests(data, len);
    return rejected;
}

int main(int argc, char **argv) {
    static const FuzzTarget t = {"fuzz_worker", "tests/fuzz/corpus-worker", "fuzz-crash.jsonl", TOKENS,
                                 sizeof TOKENS / sizeof TOKENS[0], check_worker};
    g_null = fopen("/dev/null", "w");
    if (!g_null) return 2;
    /* Compiles go to a cache of their own, not the learner's. */
    setenv("XDG_CACHE_HOME", "/tmp/cudojo-fuzz-cache", 0);
    int rc = fuzz_main(&t, argc, argv);
    fclose(g_null);
    return rc;
}
