// tests/bugs/uninit_shared.cu: the load skips the block's last element, but
// the neighbour read uses it.
// LAUNCH: grid=4 block=256 n=1024
extern "C" __global__ void uninit_shared(float *in, float *out, int n) {
    __shared__ float s[256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    if (t < blockDim.x - 1) s[t] = in[i];
    __syncthreads();
    float right = s[(t + 1) % blockDim.x]; // BUG: uninit-shared
    out[i] = s[t] + right;
}
