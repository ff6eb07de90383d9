/* tests/kernels/test_gpu_lock.c: the per-GPU lock of timed sections: with
 * CUDOJO_GPU_LOCK_DIR set, a second process waits until the first lets go;
 * unset, nothing waits and no file is made. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "base/fs.h"
#include "base/xalloc.h"
#include "kernels/gpu_lock.h"

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void gpu_lock__second_holder_waits__until_the_first_releases(void **state) {
    (void)state;
    char dir[] = "/tmp/cudojo-gpulock-XXXXXX";
    assert_non_null(mkdtemp(dir));
    setenv("CUDOJO_GPU_LOCK_DIR", dir, 1);
    unsetenv("CUDA_VISIBLE_DEVICES");
    int ready[2];
    assert_int_equal(pipe(ready), 0);
    pid_t pid = fork();
    if (pid == 0) {
        GpuLock l = GPU_LOCK_INIT;
        gpu_lock_acquire(&l);
        if (write(ready[1], "x", 1) != 1) _exit(1);
        usleep(300 * 1000);
        gpu_lock_release(&l);
        _exit(l.fd == -1 ? 0 : 1);
    }
    char c;
    assert_int_equal(read(ready[0], &c, 1), 1);
    double t0 = now_ms();
    GpuLock l = GPU_LOCK_INIT;
    gpu_lock_acquire(&l);
    double waited = now_ms() - t0;
    assert_true(l.fd >= 0);
    gpu_lock_release(&l);
    int st = 0;
    waitpid(pid, &st, 0);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    assert_true(waited >= 200);
    char *p = path_join(dir, "gpu-0.lock");
    assert_true(fs_exists(p));
    unlink(p);
    free(p);
    rmdir(dir);
    close(ready[0]);
    close(ready[1]);
    unsetenv("CUDOJO_GPU_LOCK_DIR");
}

static void gpu_lock__is_a_no_op__when_no_lock_dir_is_set(void **state) {
    (void)state;
    unsetenv("CUDOJO_GPU_LOCK_DIR");
    GpuLock l = GPU_LOCK_INIT;
    gpu_lock_acquire(&l);
    assert_int_equal(l.fd, -1);
    gpu_lock_release(&l);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gpu_lock__second_holder_waits__until_the_first_releases),
        cmocka_unit_test(gpu_lock__is_a_no_op__when_no_lock_dir_is_set),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
