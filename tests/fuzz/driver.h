/* tests/fuzz/driver.h: the mutation fuzzer every tests/fuzz/fuzz_*.c target
 * is built on (tests/fuzz/driver.c).
 *
 *   fuzz_X FILE...                        check each file once (replay)
 *   fuzz_X --iterations N [--seed S] [--corpus DIR] [--max-seconds T]
 *                                         mutate the seed corpus N times
 *
 * A target supplies a check function, its seed folder and tokens that have
 * broken parsers of its input before. Malformed input must come back as a
 * rejection, never as a crash, a hang or an assert. The mutations are
 * deterministic for a given seed: byte flips, inserted and deleted ranges,
 * duplicated lines, lines spliced from another seed, truncation, stress
 * tokens and extreme numbers. On SIGSEGV/SIGABRT/SIGBUS/SIGFPE/SIGILL the
 * input being checked is written to the crash file ($FUZZ_CRASH_FILE, else
 * the target's default) before the signal is re-raised; UBSan reports reach
 * it too when UBSAN_OPTIONS has abort_on_error=1 (make fuzz sets it). */
#ifndef CUDOJO_TESTS_FUZZ_DRIVER_H
#define CUDOJO_TESTS_FUZZ_DRIVER_H

#include <stddef.h>

typedef struct FuzzTarget {
    const char *name;                 /* "fuzz_ptx", in messages */
    const char *corpus_dir;           /* default seed folder */
    const char *crash_file;           /* default crash file name */
    const char *const *tokens;        /* stress tokens spliced into inputs */
    size_t n_tokens;
    /* Checks one input (data[len] is a NUL, data may hold more NULs);
     * returns 1 when it was rejected with a diagnostic, 0 when accepted.
     * Anything else it finds wrong it reports and abort()s. */
    int (*check)(const char *data, size_t len);
} FuzzTarget;

/* The whole program: parses argv, replays files or fuzzes. Returns the exit status. */
int fuzz_main(const FuzzTarget *t, int argc, char **argv);

#endif
