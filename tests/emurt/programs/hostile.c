/* tests/emurt/programs/hostile.c: fat binaries a hostile or damaged
 * program could register, straight through nvcc's private entry points
 * (built with cc, no nvcc needed): a wrong wrapper magic, a fat binary that
 * claims more bytes than its image holds, a data pointer outside the image,
 * a zstd payload that is garbage, and PTX the emulator cannot parse. Each
 * launch must fail with a CUDA error and a finding, never a crash. */
#include <cuda_runtime_api.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

void **__cudaRegisterFatBinary(void *fatCubin);
void __cudaRegisterFatBinaryEnd(void **handle);
void __cudaRegisterFunction(void **handle, const char *hostFun, char *deviceFun, const char *deviceName,
                            int thread_limit, uint3 *tid, uint3 *bid, dim3 *bDim, dim3 *gDim, int *wSize);

typedef struct Wrapper {
    uint32_t magic, version;
    const void *data;
    void *filename;
} Wrapper;

/* a fat binary of one uncompressed PTX entry (arch 80) holding `ptx` */
static unsigned char fb_ptx[4096];
static size_t make_ptx_fatbin(unsigned char *b, const char *ptx, uint64_t flags) {
    size_t len = strlen(ptx) + 1;
    memset(b, 0, 16 + 64);
    uint32_t magic = 0xBA55ED50u;
    memcpy(b, &magic, 4);
    b[4] = 1;
    b[6] = 16;
    uint64_t size = 64 + len;
    memcpy(b + 8, &size, 8);
    unsigned char *e = b + 16;
    e[0] = 1;                       /* PTX */
    e[4] = 64;                      /* header size */
    uint64_t psize = len;
    memcpy(e + 8, &psize, 8);
    uint32_t csize = (uint32_t)len;
    memcpy(e + 16, &csize, 4);
    e[28] = 80;
    memcpy(e + 40, &flags, 8);
    uint64_t dsize = 4096;
    memcpy(e + 56, &dsize, 8);
    memcpy(e + 64, ptx, len);
    return 16 + 64 + len;
}

static void stub_a(void) {}
static void stub_b(void) {}
static void stub_c(void) {}
static void stub_d(void) {}
static void stub_e(void) {}

/* wrappers are static, as nvcc's are (a wrapper elsewhere is refused at once) */
static void try(const char *what, Wrapper *w, void (*stub)(void)) {
    void **h = __cudaRegisterFatBinary(w);
    __cudaRegisterFunction(h, (const char *)stub, (char *)"k", "k", -1, 0, 0, 0, 0, 0);
    __cudaRegisterFatBinaryEnd(h);
    dim3 g = {1, 1, 1}, b = {1, 1, 1};
    cudaError_t e = cudaLaunchKernel((const void *)stub, g, b, NULL, 0, 0);
    printf("%s: %s\n", what, cudaGetErrorName(e));
}

static unsigned char fb_huge[32] = {0x50, 0xed, 0x55, 0xba, 1, 0, 16, 0, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0};
static unsigned char fb_zstd[4096];
static unsigned char fb_bad_ptx[4096];

int main(void) {
    static Wrapper bad_magic = {0x12345678u, 1, fb_huge, NULL};
    try("wrong wrapper magic", &bad_magic, stub_a);
    static Wrapper huge = {0x466243b1u, 1, fb_huge, NULL};
    try("size beyond the image", &huge, stub_b);
    static Wrapper outside = {0x466243b1u, 1, (const void *)(uintptr_t)0x1000, NULL};
    try("data outside the image", &outside, stub_c);
    make_ptx_fatbin(fb_zstd, "\x28\xb5\x2f\xfd garbage that is not zstd", 0x8000);
    static Wrapper zstd = {0x466243b1u, 1, fb_zstd, NULL};
    try("garbage zstd", &zstd, stub_d);
    make_ptx_fatbin(fb_bad_ptx, ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k( { bogus; }\n", 0);
    static Wrapper badptx = {0x466243b1u, 1, fb_bad_ptx, NULL};
    try("PTX that does not parse", &badptx, stub_e);
    (void)fb_ptx;
    printf("still running\n");
    return 0;
}
