// template-axpy.cu (typical mistake): the bounds guard was lost while
// generalising the kernel. Templates change the types, not the rules: the
// last block still has threads past the end.

template <typename T>
__global__ void axpy(T a, const T *x, T *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    y[i] = a * x[i] + y[i];
}
