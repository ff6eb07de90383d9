// median-5.cu: a median filter of width 5: out[i] is the median of
// in[i-2], in[i-1], in[i], in[i+1], in[i+2], where an index outside the array
// is clamped to the nearest end (in[-1] means in[0], in[n] means in[n-1]).
// This version is correct, but its array w[] lives in LOCAL memory (slow,
// off-chip) because it is indexed with values known only at run time.
// Target: 0 bytes of local memory (the result shows the figure).

extern "C" __global__ void median5(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;

    float w[5];
    for (int k = 0; k < 5; k++)
        w[k] = in[min(max(i + k - 2, 0), n - 1)];

    // TODO: insertion sort: j depends on the data, so the compiler cannot
    //       give each w[j] its own register. Replace it with a fixed sequence
    //       of compare-and-swap steps on constant indices (a sorting network),
    //       or any other way that never indexes w with a run-time value.
    for (int k = 1; k < 5; k++) {
        float v = w[k];
        int j = k;
        while (j > 0 && w[j - 1] > v) {
            w[j] = w[j - 1];
            j--;
        }
        w[j] = v;
    }
    out[i] = w[2];
}
