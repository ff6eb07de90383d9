// template-axpy.cu (solution): the body is written once in terms of T; each
// instantiation compiles it for its own type (fma.rn.f32, fma.rn.f64 or
// mad.lo.s32), so every type keeps its full precision.

template <typename T>
__global__ void axpy(T a, const T *x, T *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}
