// box-blur.cu (typical mistake): the neighbours outside the image are skipped,
// but the sum is still divided by 9, so every edge pixel comes out too small
// in magnitude (a corner has only 4 neighbours, an edge pixel 6).

extern "C" __global__ void box_blur(const float *in, float *out, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height)
        return;

    float sum = 0.0f;
    for (int dy = -1; dy <= 1; dy++) {
        for (int dx = -1; dx <= 1; dx++) {
            int yy = y + dy, xx = x + dx;
            if (yy >= 0 && yy < height && xx >= 0 && xx < width)
                sum += in[yy * width + xx];
        }
    }
    out[y * width + x] = sum / 9.0f;
}
