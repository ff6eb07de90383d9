// volume-3d.cu (typical mistake): x and y are guarded but z is not. nz = 11
// needs 3 blocks of 4 in z = 12 layers, so the threads of layer z = 11 read
// past the end of in.

extern "C" __global__ void reverse_axes(const float *in, float *out, int nx, int ny, int nz)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x >= nx || y >= ny)
        return;

    out[(x * ny + y) * nz + z] = in[(z * ny + y) * nx + x];
}
