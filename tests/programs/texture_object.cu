// tests/programs/texture_object.cu: a texture object over a CUDA array, read
// with tex2D and bilinear filtering at texel centres and between them
// (normalised coordinates off, clamp addressing), plus a texture over linear
// pitched memory. The emulator runtime has no arrays or textures: there the
// program must fail at the first array call, naming it.
// cudojo: emu-fails=does not implement cudaMallocArray
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define cudaCheck(call) cuda_check((call), #call, __FILE__, __LINE__)
static void cuda_check(cudaError_t e, const char *what, const char *file, int line) {
    if (e != cudaSuccess) {
        fprintf(stderr, "[CUDA ERROR] at file %s:%d: %s\n%s\n", file, line, what, cudaGetErrorString(e));
        exit(EXIT_FAILURE);
    }
}

__global__ void sample(cudaTextureObject_t tex, cudaTextureObject_t lin, float *out) {
    int t = threadIdx.x;
    float x = 0.5f + t * 0.25f, y = 1.5f;
    out[t] = tex2D<float>(tex, x, y);
    out[32 + t] = tex2D<float>(lin, 0.5f + t, 0.5f);
}

int main(void) {
    const int W = 8, H = 4;
    float h[H][W];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) h[y][x] = (float)(10 * y + x);
    cudaChannelFormatDesc fmt = cudaCreateChannelDesc<float>();
    cudaArray_t arr;
    cudaCheck(cudaMallocArray(&arr, &fmt, W, H));
    cudaCheck(cudaMemcpy2DToArray(arr, 0, 0, h, W * sizeof(float), W * sizeof(float), H, cudaMemcpyHostToDevice));
    cudaResourceDesc res = {};
    res.resType = cudaResourceTypeArray;
    res.res.array.array = arr;
    cudaTextureDesc td = {};
    td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
    td.filterMode = cudaFilterModeLinear;
    td.readMode = cudaReadModeElementType;
    cudaTextureObject_t tex;
    cudaCheck(cudaCreateTextureObject(&tex, &res, &td, nullptr));

    float *d_lin;
    size_t pitch;
    cudaCheck(cudaMallocPitch(&d_lin, &pitch, W * sizeof(float) * 4, 1));
    float row[32];
    for (int i = 0; i < 32; i++) row[i] = i * 1.5f;
    cudaCheck(cudaMemcpy(d_lin, row, sizeof row, cudaMemcpyHostToDevice));
    cudaResourceDesc lres = {};
    lres.resType = cudaResourceTypePitch2D;
    lres.res.pitch2D.devPtr = d_lin;
    lres.res.pitch2D.desc = fmt;
    lres.res.pitch2D.width = 32;
    lres.res.pitch2D.height = 1;
    lres.res.pitch2D.pitchInBytes = pitch;
    cudaTextureDesc ltd = {};
    ltd.addressMode[0] = ltd.addressMode[1] = cudaAddressModeClamp;
    ltd.filterMode = cudaFilterModePoint;
    cudaTextureObject_t lin;
    cudaCheck(cudaCreateTextureObject(&lin, &lres, &ltd, nullptr));

    float out[64], *d_out;
    cudaCheck(cudaMalloc(&d_out, sizeof out));
    sample<<<1, 32>>>(tex, lin, d_out);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost));
    // linear filtering has 8-bit fractions on NVIDIA hardware: allow 1/256 of a step
    int bad = 0;
    for (int t = 0; t < 32; t++) {
        float x = 0.25f * t;  // texel-space position minus 0.5
        int x0 = (int)x, x1 = x0 + 1 < W ? x0 + 1 : W - 1;
        if (x0 > W - 1) x0 = x1 = W - 1;
        float f = x - (float)(int)x, want = 10.0f + (x0 + f * (x1 - x0));
        bad += out[t] < want - 0.01f || out[t] > want + 0.01f;
        bad += out[32 + t] != t * 1.5f;
    }
    printf("tex2D at (0.5, 1.5) %.2f, at (1.25, 1.5) %.2f, past the edge %.2f; linear memory texel 7 %.2f\n", out[0],
           out[3], out[31], out[39]);
    printf("samples off by more than 1/100: %d\n", bad);
    cudaCheck(cudaDestroyTextureObject(tex));
    cudaCheck(cudaDestroyTextureObject(lin));
    cudaCheck(cudaFreeArray(arr));
    cudaCheck(cudaFree(d_lin));
    cudaCheck(cudaFree(d_out));
    printf("%s\n", bad == 0 ? "PASS" : "FAIL");
    return bad == 0 ? 0 : 1;
}
