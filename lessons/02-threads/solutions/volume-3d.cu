// volume-3d.cu (solution): three coordinates, three guards, and two row-major
// formulas: in is [nz][ny][nx], out is [nx][ny][nz]. Consecutive threads (x)
// read consecutive floats of in; their writes to out are nz floats apart.

extern "C" __global__ void reverse_axes(const float *in, float *out, int nx, int ny, int nz)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x >= nx || y >= ny || z >= nz)
        return;

    out[(x * ny + y) * nz + z] = in[(z * ny + y) * nx + x];
}
