// rgb-to-gray.cu (typical mistake): the row and column are swapped in the
// pixel index (x * height + y, as if the image were stored column by column).
// Every index stays inside the image, but most pixels land in the wrong place.

extern "C" __global__ void rgb_to_gray(const unsigned char *rgb, unsigned char *gray,
                                       int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height)
        return;

    int p = x * height + y;
    int r = rgb[3 * p + 0];
    int g = rgb[3 * p + 1];
    int b = rgb[3 * p + 2];
    gray[p] = (unsigned char)((77 * r + 150 * g + 29 * b + 128) >> 8);
}
