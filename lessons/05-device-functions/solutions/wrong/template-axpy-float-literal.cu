// template-axpy.cu (typical mistake): a float literal in a template. 1.0f * a
// promotes a to float for T = int (and rounds it), then the result converts
// back; for T = double it rounds a to float. Write T(1) or leave it out.

template <typename T>
__global__ void axpy(T a, const T *x, T *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = (T)(1.0f * a * x[i]) + y[i];
}
