// vector-add.cu (typical mistake): no bounds guard. The grid has
// ceil(n / 256) * 256 threads, more than n, so the last threads read a and b
// and write c past their ends.

extern "C" __global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    c[i] = a[i] + b[i];
}
