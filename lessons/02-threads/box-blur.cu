// box-blur.cu: blur a grey image (width x height floats, row by row) with a
// 3 x 3 box: each output pixel is the average of the pixel and its neighbours.
// At the edges and corners some neighbours fall outside the image: leave them
// out and average only the ones inside (a corner averages 4 pixels, an edge 6,
// the interior 9). The image is 301 x 203, blocks are 16 x 16.

extern "C" __global__ void box_blur(const float *in, float *out, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height)
        return;

    // TODO: loop over the 3 x 3 neighbourhood (dy and dx from -1 to 1), add up
    //       the pixels that are inside the image and count them; skip the rest.
    // TODO: write the average (sum / count) instead of this copy.
    out[y * width + x] = in[y * width + x];
}
