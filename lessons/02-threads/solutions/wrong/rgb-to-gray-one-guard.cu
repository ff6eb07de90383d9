// rgb-to-gray.cu (typical mistake): only x is guarded. The last row of blocks
// reaches rows y >= height (197 rows need 13 blocks of 16 = 208 rows), and
// those threads read and write below the bottom of the image.

extern "C" __global__ void rgb_to_gray(const unsigned char *rgb, unsigned char *gray,
                                       int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width)
        return;

    int p = y * width + x;
    int r = rgb[3 * p + 0];
    int g = rgb[3 * p + 1];
    int b = rgb[3 * p + 2];
    gray[p] = (unsigned char)((77 * r + 150 * g + 29 * b + 128) >> 8);
}
