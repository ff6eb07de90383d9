// box-blur.cu (typical mistake): no edge handling. Pixel (0, 0) reads its
// neighbour (-1, -1) at in[-width - 1], before the start of the image; pixels
// of the first and last column read the neighbouring row's far end instead.

extern "C" __global__ void box_blur(const float *in, float *out, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height)
        return;

    float sum = 0.0f;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++)
            sum += in[(y + dy) * width + (x + dx)];
    out[y * width + x] = sum / 9.0f;
}
