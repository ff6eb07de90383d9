// tests/bugs/uninit_shared_halo.cu: a 3-point stencil that loads the tile but
// forgets the two halo cells, then reads them.
// LAUNCH: grid=4 block=256 n=1024
extern "C" __global__ void uninit_shared_halo(float *in, float *out, int n) {
    __shared__ float s[256 + 2];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    s[t + 1] = in[i];
    __syncthreads();
    float left = s[t]; // BUG: uninit-shared
    out[i] = left + s[t + 1] + s[t + 2];
}
