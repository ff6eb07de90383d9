// tests/bugs/deadlock_syncwarp.cu: __syncwarp() with the full mask inside a
// branch taken by half the warp: the named lanes never arrive.
// LAUNCH: grid=1 block=32 n=32
extern "C" __global__ void deadlock_syncwarp(float *in, float *out, int n) {
    __shared__ float s[32];
    int t = threadIdx.x;
    s[t] = in[t];
    if (t < 16) {
        __syncwarp(); // BUG: deadlock
        out[t] = s[t + 16];
    }
}
