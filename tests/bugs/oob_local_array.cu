// tests/bugs/oob_local_array.cu: a per-thread histogram of 8 bins fed values
// in [0, 1]: 1.0 maps to bin 8, one past the end of the local array.
// LAUNCH: grid=1 block=64 n=64 in=unit
extern "C" __global__ void oob_local_array(float *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float hist[8];
    for (int b = 0; b < 8; b++) hist[b] = 0.0f;
    for (int k = 0; k < 4; k++) {
        int j = (i + k * 16) % n;
        int bin = (int)(in[j] * 8.0f);
        hist[bin] += 1.0f; // BUG: oob-local
    }
    float m = 0.0f;
    for (int b = 0; b < 8; b++) m += hist[b] * (float)b;
    out[i] = m;
}
