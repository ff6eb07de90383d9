// rgb-to-gray.cu: turn a colour image into a grey one, one thread per pixel.
// The image is width x height pixels (333 x 197: not square, not a multiple
// of the 16 x 16 block), stored row by row; pixel (x, y) has its red, green
// and blue bytes at rgb[3 * (y * width + x) + 0, 1, 2]. Its grey value is
//   gray[y * width + x] = (77 * r + 150 * g + 29 * b + 128) >> 8
// The launch is 2-D: blocks of 16 x 16 threads, enough blocks to cover the image.

extern "C" __global__ void rgb_to_gray(const unsigned char *rgb, unsigned char *gray,
                                       int width, int height)
{
    // TODO: this thread's column x and row y in the image, from the .x and .y
    //       parts of blockIdx, blockDim and threadIdx.
    int x = 0;
    int y = 0;

    // TODO: skip threads outside the image (x >= width or y >= height).

    int p = y * width + x;   // the pixel's index in row-major order
    int r = rgb[3 * p + 0];
    int g = rgb[3 * p + 1];
    int b = rgb[3 * p + 2];
    gray[p] = (unsigned char)((77 * r + 150 * g + 29 * b + 128) >> 8);
}
