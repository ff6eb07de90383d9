// volume-3d.cu: a 3-D grid. `in` is a volume of nz x ny x nx floats stored
// with x changing fastest: element (x, y, z) is in[(z * ny + y) * nx + x].
// Write it to `out` with the axes reversed, z changing fastest:
//   out[(x * ny + y) * nz + z] = in[(z * ny + y) * nx + x]
// The volume is 45 x 19 x 11 (nx x ny x nz); blocks are 8 x 8 x 4 threads.

extern "C" __global__ void reverse_axes(const float *in, float *out, int nx, int ny, int nz)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    // TODO: z, from the .z parts of blockIdx, blockDim and threadIdx.
    int z = 0;

    // TODO: guard all three coordinates (the grid is rounded up in x, y and z).

    // TODO: write the element to its place in out (z changes fastest there).
    out[(z * ny + y) * nx + x] = in[(z * ny + y) * nx + x];
}
