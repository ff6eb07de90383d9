// intensity.cu: y[i] = p(x[i]), a polynomial of degree DEGREE evaluated with
// Horner's rule, for every i < n (grid-stride loop):
//
//   p = 1
//   repeat DEGREE times:  p = p * x + 0.5f        (one fused multiply-add: 2 flops)
//
// The exercise compiles this file for DEGREE = 1, 2, 4, ... 512 and measures
// each one. Low degrees are limited by memory bandwidth, high degrees by
// arithmetic: where the switch happens is the device's ridge point.
//
// First say how much work and how much memory traffic ONE element costs;
// the exercise reads your numbers through the kernel roofline_numbers.

#ifndef DEGREE
#define DEGREE 4
#endif

// TODO 1: floating-point operations per element (a multiply-add counts as 2).
#define FLOPS_PER_ELEMENT 0
// TODO 2: bytes of global memory read + written per element (x and y are floats).
#define BYTES_PER_ELEMENT 0

extern "C" __global__ void roofline_numbers(float *out)
{
    out[0] = FLOPS_PER_ELEMENT;
    out[1] = BYTES_PER_ELEMENT;
}

extern "C" __global__ void poly(const float *x, float *y, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        float v = x[i];
        float p = 1.0f;
        // TODO 3: DEGREE Horner steps: multiply p by v and add 0.5f, each time.
        y[i] = p + 0.0f * v;
    }
}
