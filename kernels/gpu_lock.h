/* kernels/gpu_lock.h: one GPU-timed section at a time per GPU, across
 * processes, so that graders running side by side (several workers of one
 * `cudojo grade`, or several shards on one node) never time kernels at the
 * same time and no run's timing is disturbed by another's.
 *
 * Enabled by the environment: when CUDOJO_GPU_LOCK_DIR names a folder, the
 * timed part of a run (a synchronous launch and its timed repetitions in the
 * cuda backend; a whole program on the real GPU) holds an exclusive flock on
 * DIR/gpu-<device>.lock, where <device> is the first entry of
 * CUDA_VISIBLE_DEVICES ("0" when unset: the GPU a process uses first).
 * Compiles and emulator runs never take it. Unset: every call is a no-op.
 * The lock belongs to an open file, so a process killed while holding it
 * releases it. */
#ifndef CUDOJO_KERNELS_GPU_LOCK_H
#define CUDOJO_KERNELS_GPU_LOCK_H

typedef struct GpuLock {
    int fd;                     /* -1 when not held */
} GpuLock;

#define GPU_LOCK_INIT {-1}

/* Waits for and takes the lock of this process's GPU (a no-op when
 * CUDOJO_GPU_LOCK_DIR is unset or the lock file cannot be made). */
void gpu_lock_acquire(GpuLock *l);
/* Releases it (a no-op when not held). */
void gpu_lock_release(GpuLock *l);
/* Seconds this process has spent waiting in gpu_lock_acquire, in all: time
 * limits of a run (the exercise script's wall clock) leave it out, so a
 * grader taking its turn is never a timeout. */
double gpu_lock_waited_s(void);

#endif
