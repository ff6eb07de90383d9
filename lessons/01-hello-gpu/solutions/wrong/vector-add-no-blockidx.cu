// vector-add.cu (typical mistake): the index forgets blockIdx, so every block
// works on the same first 256 elements and the rest of c stays zero.

extern "C" __global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}
