// aos-to-soa.cu (typical mistake): the float4 pointer is indexed with 4 * i,
// as if it still pointed to floats. Indexing a float4 * already moves 16 bytes
// per step, so particle i is read from particle 4i, far past the end for most
// threads.

extern "C" __global__ void aos_to_soa(const float *p, float *x, float *y, float *z, float *m, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;

    float4 q = reinterpret_cast<const float4 *>(p)[4 * i];
    x[i] = q.x;
    y[i] = q.y;
    z[i] = q.z;
    m[i] = q.w;
}
