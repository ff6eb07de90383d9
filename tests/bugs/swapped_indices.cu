// tests/bugs/swapped_indices.cu: scaling a 32 x 32 matrix with the row and
// column swapped in the output index: no access is out of bounds, the result
// is simply transposed. Only the output shows it.
// LAUNCH: grid=1 block=32x32 n=1024 expect=scale2
extern "C" __global__ void swapped_indices(float *in, float *out, int n) {
    int w = 32;
    int row = threadIdx.y, col = threadIdx.x;
    if (row * w + col < n) {
        out[col * w + row] = 2.0f * in[row * w + col]; // BUG: wrong-result
    }
}
