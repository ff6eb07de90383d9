// tests/bugs/deadlock_spin.cu: warp 0 waits at a barrier that the other warps
// never reach: they spin until warp 0 sets a flag, which it only does after
// the barrier.
// LAUNCH: grid=1 block=128 n=128
extern "C" __global__ void deadlock_spin(float *in, float *out, int n) {
    __shared__ volatile int flag;
    int t = threadIdx.x;
    if (t == 0) flag = 0;
    __syncthreads();
    if (t < 32) {
        __syncthreads(); // BUG: deadlock
        if (t == 0) flag = 1;
    } else {
        while (flag == 0) {
        }
    }
    out[t] = in[t];
}
