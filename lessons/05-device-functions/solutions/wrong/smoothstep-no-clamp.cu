// smoothstep.cu (typical mistake): t is not clamped. Inside [e0, e1] the
// curve is right, but outside it the cubic keeps going: far below e0 it
// climbs back up, far above e1 it dives below 0.

__device__ float smoothstep(float e0, float e1, float x)
{
    float t = (x - e0) / (e1 - e0);
    return t * t * (3.0f - 2.0f * t);
}

extern "C" __global__ void tone_map(const float *in, float *out, float e0, float e1, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = smoothstep(e0, e1, in[i]);
}
