// rgb-to-gray.cu (typical mistake): the pixel is read at its row-major place
// but written at x * height + y, the column-major index (as if gray were
// stored column by column). Every index stays inside the image, but the grey
// image comes out transposed and scrambled.

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
    gray[x * height + y] = (unsigned char)((77 * r + 150 * g + 29 * b + 128) >> 8);
}
