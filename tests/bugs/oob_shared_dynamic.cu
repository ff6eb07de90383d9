// tests/bugs/oob_shared_dynamic.cu: the kernel stores two values per thread
// in dynamic shared memory, but the launch only gave it blockDim.x floats.
// LAUNCH: grid=4 block=256 n=1024 shared=1024
extern "C" __global__ void oob_shared_dynamic(float *in, float *out, int n) {
    extern __shared__ float buf[];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    buf[t] = in[i];
    buf[blockDim.x + t] = in[i] * in[i]; // BUG: oob-shared
    __syncthreads();
    out[i] = buf[t];
}
