// rgb-to-gray.cu (solution): a 2-D global index. x walks along a row (it is
// the fast-changing index, so consecutive threads read consecutive pixels),
// y walks down the columns; both are guarded because the grid is rounded up
// in both directions.

extern "C" __global__ void rgb_to_gray(const unsigned char *rgb, unsigned char *gray,
                                       int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height)
        return;

    int p = y * width + x;
    int r = rgb[3 * p + 0];
    int g = rgb[3 * p + 1];
    int b = rgb[3 * p + 2];
    gray[p] = (unsigned char)((77 * r + 150 * g + 29 * b + 128) >> 8);
}
