/* tests/kernels/test_sandbox_paths.c: what a confined (graded) program may
 * read and write under Landlock (program_sandbox_paths): besides the
 * system's folders, the folders the dynamic loader is configured with and
 * those of the libraries cudojo itself loaded (a container's GPU driver, a
 * bundle's lib/), and the MPS folders made for the program; never the
 * course. Also the memory limits read from the environment
 * (CUDOJO_COMPILE_AS_MB, CUDOJO_RUN_AS_MB: program_env_mib). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <glob.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "kernels/program_internal.h"

static bool listed(char **l, const char *path) {
    for (; l && *l; l++)
        if (!strcmp(*l, path)) return true;
    return false;
}

static void paths__add_the_folder_of_every_loaded_library(void **state) {
    (void)state;
    Dl_info info;
    assert_true(dladdr((void *)_cmocka_run_group_tests, &info) && info.dli_fname);
    char *dir = path_dirname(info.dli_fname);
    ProgramRunOptions o = {.runtime = PROGRAM_RT_EMU};
    char **r = NULL, **w = NULL;
    program_sandbox_paths(&o, "/tmp/x/prog", "/tmp/x", &r, &w);
    assert_true(listed(r, dir));
    assert_true(listed(r, "/tmp/x"));          /* its own executable's folder */
    assert_true(listed(w, "/tmp/x"));          /* its run folder */
    assert_false(listed(w, "/usr/lib"));
    program_sandbox_paths_free(&r, &w);
    free(dir);
}

/* Every folder named in /etc/ld.so.conf.d's files (reached through the
 * include of /etc/ld.so.conf) is readable. */
static void paths__add_the_loaders_configured_folders(void **state) {
    (void)state;
    ProgramRunOptions o = {.runtime = PROGRAM_RT_CUDA};
    char **r = NULL, **w = NULL;
    program_sandbox_paths(&o, "/tmp/x/prog", "/tmp/x", &r, &w);
    glob_t g;
    int seen = 0;
    if (glob("/etc/ld.so.conf.d/*.conf", 0, NULL, &g) == 0) {
        for (size_t i = 0; i < g.gl_pathc; i++) {
            FILE *f = fopen(g.gl_pathv[i], "r");
            char line[4096];
            while (f && fgets(line, sizeof line, f)) {
                line[strcspn(line, "#\r\n")] = 0;
                if (line[0] != '/') continue;
                assert_true(listed(r, line));
                seen++;
            }
            if (f) fclose(f);
        }
        globfree(&g);
    }
    if (!seen) skip();   /* a system without ld.so.conf.d folders */
    program_sandbox_paths_free(&r, &w);
}

static void paths__let_the_program_write_its_mps_folders(void **state) {
    (void)state;
    const char *env[] = {"CUDA_MPS_PIPE_DIRECTORY=/tmp/cudojo-mps-test/pipe",
                         "CUDA_MPS_LOG_DIRECTORY=/tmp/cudojo-mps-test/log", "OTHER=/home"};
    ProgramRunOptions o = {.runtime = PROGRAM_RT_CUDA, .extra_env = env, .n_extra_env = 3};
    char **r = NULL, **w = NULL;
    program_sandbox_paths(&o, "/tmp/x/prog", "/tmp/x", &r, &w);
    assert_true(listed(w, "/tmp/cudojo-mps-test/pipe"));
    assert_true(listed(w, "/tmp/cudojo-mps-test/log"));
    assert_false(listed(w, "/home"));
    assert_false(listed(r, "/home"));
    program_sandbox_paths_free(&r, &w);
}

/* On a GPU the program may write its own threads' files (NVIDIA's driver
 * names its threads there; without it the first CUDA call fails with "OS
 * call failed"), its devices and /dev/shm; on the emulator none of them,
 * and never the rest of /proc. */
static void paths__let_a_gpu_program_name_its_threads_and_open_its_devices(void **state) {
    (void)state;
    ProgramRunOptions o = {.runtime = PROGRAM_RT_CUDA};
    char **r = NULL, **w = NULL;
    program_sandbox_paths(&o, "/tmp/x/prog", "/tmp/x", &r, &w);
    assert_true(listed(w, "/proc/self/task"));
    assert_true(listed(w, "/dev/shm"));
    assert_false(listed(w, "/proc"));
    assert_false(listed(w, "/proc/self"));
    program_sandbox_paths_free(&r, &w);
    o.runtime = PROGRAM_RT_EMU;
    program_sandbox_paths(&o, "/tmp/x/prog", "/tmp/x", &r, &w);
    assert_false(listed(w, "/proc/self/task"));
    assert_false(listed(w, "/dev/shm"));
    program_sandbox_paths_free(&r, &w);
}

/* A value in MiB is a whole number from 1 to PROGRAM_ENV_MIB_MAX: a huge
 * one overflowed the `<< 20` into a negative or tiny limit. */
static void env_mib__rejects_values_whose_bytes_would_overflow_or_that_are_not_numbers(void **state) {
    (void)state;
    const char *bad[] = {"9223372036854775807", "8796093022208", "99999999999999999999", "-5", "0", "12abc", "abc",
                         " 5"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        setenv("CUDOJO_TEST_MB", bad[i], 1);
        long long b = -1;
        Diag *d = program_env_mib("CUDOJO_TEST_MB", 7, &b);
        assert_non_null(d);
        assert_non_null(strstr(d->message, "CUDOJO_TEST_MB"));
        assert_int_equal(b, 7ll << 20);    /* the default, never a wrapped value */
        diag_free(&d);
    }
    setenv("CUDOJO_TEST_MB", "16777216", 1);
    long long b = 0;
    assert_null(program_env_mib("CUDOJO_TEST_MB", 7, &b));
    assert_int_equal(b, 16777216ll << 20);
    unsetenv("CUDOJO_TEST_MB");
    assert_null(program_env_mib("CUDOJO_TEST_MB", 7, &b));
    assert_int_equal(b, 7ll << 20);
    setenv("CUDOJO_COMPILE_AS_MB", "9223372036854775807", 1);
    assert_int_equal(program_sandbox_compile_as_bytes(), 4096ll << 20);
    setenv("CUDOJO_COMPILE_AS_MB", "300", 1);
    assert_int_equal(program_sandbox_compile_as_bytes(), 300ll << 20);
    unsetenv("CUDOJO_COMPILE_AS_MB");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(paths__add_the_folder_of_every_loaded_library),
        cmocka_unit_test(paths__add_the_loaders_configured_folders),
        cmocka_unit_test(paths__let_the_program_write_its_mps_folders),
        cmocka_unit_test(paths__let_a_gpu_program_name_its_threads_and_open_its_devices),
        cmocka_unit_test(env_mib__rejects_values_whose_bytes_would_overflow_or_that_are_not_numbers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
