// aos-to-soa.cu (solution): one float4 load per particle (a warp reads 512
// consecutive bytes = 16 sectors, all of them useful), then four coalesced
// float stores (4 sectors each).

extern "C" __global__ void aos_to_soa(const float *p, float *x, float *y, float *z, float *m, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;

    float4 q = reinterpret_cast<const float4 *>(p)[i];
    x[i] = q.x;
    y[i] = q.y;
    z[i] = q.z;
    m[i] = q.w;
}
