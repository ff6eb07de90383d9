// volume-3d.cu (typical mistake): the out index multiplies by the wrong
// extents, (x * ny + y) * nx instead of * nz, as if out had the shape of in.
// Elements collide and some land past the end.

extern "C" __global__ void reverse_axes(const float *in, float *out, int nx, int ny, int nz)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x >= nx || y >= ny || z >= nz)
        return;

    out[(x * ny + y) * nx + z] = in[(z * ny + y) * nx + x];
}
