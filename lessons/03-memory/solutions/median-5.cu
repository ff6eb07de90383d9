// median-5.cu (solution): the five values stay in registers. A compare-and-
// swap with constant indices compiles to min/max on registers; a sorting
// network always does the same steps whatever the data, so every index is a
// constant and the array w disappears into five registers.

__device__ __forceinline__ void sort2(float &a, float &b)
{
    float lo = fminf(a, b), hi = fmaxf(a, b);
    a = lo;
    b = hi;
}

extern "C" __global__ void median5(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;

    float a = in[max(i - 2, 0)];
    float b = in[max(i - 1, 0)];
    float c = in[i];
    float d = in[min(i + 1, n - 1)];
    float e = in[min(i + 2, n - 1)];

    // A sorting network for 5 values (9 compare-and-swaps).
    sort2(a, b); sort2(d, e); sort2(c, e); sort2(c, d); sort2(b, e);
    sort2(a, d); sort2(a, c); sort2(b, d); sort2(b, c);
    out[i] = c;
}
