// template-axpy.cu: one kernel for every element type. y[i] = a * x[i] + y[i]
// is launched as axpy<float>, axpy<double> and axpy<int> (the exercise asks
// NVRTC for each instantiation by name; templates cannot be extern "C").
// This version computes in float whatever T is: doubles lose their last 29
// bits and ints above 2^24 are rounded. Do the arithmetic in T.

template <typename T>
__global__ void axpy(T a, const T *x, T *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        // TODO: no float in here: compute a * x[i] + y[i] in type T.
        float v = (float)a * (float)x[i] + (float)y[i];
        y[i] = (T)v;
    }
}
