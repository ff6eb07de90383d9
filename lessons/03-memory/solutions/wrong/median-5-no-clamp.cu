// median-5.cu (typical mistake): registers, but no clamping at the ends. The
// first two and last two elements read in[-2], in[-1], in[n], in[n+1]:
// outside the array.

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

    float a = in[i - 2], b = in[i - 1], c = in[i], d = in[i + 1], e = in[i + 2];
    sort2(a, b); sort2(d, e); sort2(c, e); sort2(c, d); sort2(b, e);
    sort2(a, d); sort2(a, c); sort2(b, d); sort2(b, c);
    out[i] = c;
}
