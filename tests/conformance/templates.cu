// tests/conformance/templates.cu: template kernels, lowered through NVRTC name
// expressions (CompileOptions.name_exprs) and launched by those names.

template <typename T>
__global__ void scale_t(const T *a, T *out, T k, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a[i] * k + (T)1;
}
template __global__ void scale_t<float>(const float *, float *, float, int);
template __global__ void scale_t<int>(const int *, int *, int, int);
