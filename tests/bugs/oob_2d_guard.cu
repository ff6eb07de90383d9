// tests/bugs/oob_2d_guard.cu: a w x h image (w = 64, h = 16, n = w * h) where
// the guard compares the row with the width instead of the height, so rows
// 16..63 of the 64 x 64 grid of threads read and write past the image.
// LAUNCH: grid=4x4 block=16x16 n=1024
extern "C" __global__ void oob_2d_guard(float *in, float *out, int n) {
    int w = 64;
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < w) {
        out[y * w + x] = in[y * w + x] * 0.5f; // BUG: oob-global
    }
}
