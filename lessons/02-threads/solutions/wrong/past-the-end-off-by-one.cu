// past-the-end.cu (typical mistake): `i <= n` lets thread i == n through, and
// element n is one past the last one (indices run from 0 to n-1).

extern "C" __global__ void leaky_relu(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n) {
        float v = x[i];
        y[i] = v > 0.0f ? v : 0.1f * v;
    }
}
