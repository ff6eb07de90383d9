// tests/programs/half_bf16.cu: __half and __nv_bfloat16 on the device, bit
// for bit against the same functions run on the host (cuda_fp16.h and
// cuda_bf16.h implement them for both). Conversions from float in all four
// rounding modes (ties, overflow to infinity or to the largest finite value,
// subnormals, -0, NaN, infinity), back to float, to and from integers;
// arithmetic (add, sub, mul, div, fma, neg, abs, min, max, saturating add),
// comparisons, half2 and bfloat162 vector forms. One cell is left out of the
// comparison and printed instead: a NaN through __double2half, which the
// device converts with cvt.rn.f16.f64 (0x7e00 on the H200, session 8) and
// the host code through float (0x7fff, cvt.rn.f16.f32's NaN on the device).
// Likewise a NaN through __double2bfloat16: on sm_90 cuda_bf16.h uses
// cvt.rn.bf16.f64 (0x7fc0 on the H200, session 9), the host code and older
// targets go through float (0x7fff). The GPU runs the sm_90 code, so the
// emulator is given compute_90 PTX too (it runs the newest PTX it knows).
// cudojo: nvcc=-gencode arch=compute_90,code=compute_90
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#define cudaCheck(call) cuda_check((call), #call, __FILE__, __LINE__)
static void cuda_check(cudaError_t e, const char *what, const char *file, int line) {
    if (e != cudaSuccess) {
        fprintf(stderr, "[CUDA ERROR] at file %s:%d: %s\n%s\n", file, line, what, cudaGetErrorString(e));
        exit(EXIT_FAILURE);
    }
}

const int NIN = 16, NOUT = 40;
const int NAN_ROW = 14, DOUBLE2HALF = 36, DOUBLE2BF16 = 37;  // the cells printed, not compared
static bool printed_cell(int row, int col) { return row == NAN_ROW && (col == DOUBLE2HALF || col == DOUBLE2BF16); }

static __host__ __device__ unsigned short hb(__half h) { return __half_as_ushort(h); }
static __host__ __device__ unsigned short bb(__nv_bfloat16 h) { return __bfloat16_as_ushort(h); }
template <typename T> static __host__ __device__ unsigned vb(T v) {
    unsigned u;
    memcpy(&u, &v, 4);
    return u;
}
static __host__ __device__ unsigned fb(float f) {
    unsigned u;
    memcpy(&u, &f, 4);
    return u;
}

// Every result as 32 bits, one row per input; run on the device and the host.
__host__ __device__ void compute(const float *in, int i, unsigned *o) {
    float x = in[i], y = in[(i + 5) % NIN];
    o[0] = hb(__float2half_rn(x));
    o[1] = hb(__float2half_rz(x));
    o[2] = hb(__float2half_rd(x));
    o[3] = hb(__float2half_ru(x));
    o[4] = bb(__float2bfloat16_rn(x));
    o[5] = bb(__float2bfloat16_rz(x));
    o[6] = bb(__float2bfloat16_rd(x));
    o[7] = bb(__float2bfloat16_ru(x));
    __half hx = __float2half(x), hy = __float2half(y);
    __nv_bfloat16 bx = __float2bfloat16(x), by = __float2bfloat16(y);
    o[8] = fb(__half2float(hx));
    o[9] = fb(__bfloat162float(bx));
    o[10] = hb(__hadd(hx, hy));
    o[11] = hb(__hsub(hx, hy));
    o[12] = hb(__hmul(hx, hy));
    o[13] = hb(__hdiv(hx, hy));
    o[15] = hb(__hneg(hx)) | (unsigned)hb(__habs(hx)) << 16;
    o[16] = hb(__hmin(hx, hy)) | (unsigned)hb(__hmax(hx, hy)) << 16;
    o[17] = hb(__hadd_sat(hx, hy));
    o[18] = __hlt(hx, hy) | __hgt(hx, hy) << 1 | __heq(hx, hy) << 2 | __hisnan(hx) << 3 | __hisinf(hx) << 4 |
            __hltu(hx, hy) << 5 | __hne(hx, hy) << 6;
    o[19] = bb(__hadd(bx, by));
    o[20] = bb(__hmul(bx, by));
    o[22] = bb(__hsub(bx, by));
    o[24] = (unsigned)__half2int_rz(hx);
    int k = isfinite(x) ? (int)fmodf(x * 1000.0f, 70000.0f) : 70001;  // float -> int of inf is the host's UB
    o[28] = hb(__int2half_rn(k));
    o[29] = bb(__int2bfloat16_rn(k));
    o[30] = (unsigned)__bfloat162int_rz(bx);
    __half2 h2 = __floats2half2_rn(x, y);
    o[32] = vb(__hmul2(h2, h2));
    o[33] = vb(__h2div(h2, __halves2half2(hy, hy)));
    __nv_bfloat162 b2 = __floats2bfloat162_rn(x, y);
    o[34] = vb(__hadd2(b2, b2));
    o[35] = fb(__low2float(h2)) ^ fb(__high2float(h2));
    o[36] = hb(__double2half((double)x * 1.0000001));
    o[37] = bb(__double2bfloat16((double)x * 1.0000001));
    o[38] = (unsigned)(__hge(hx, hy) | __hle(hx, hy) << 1 | __hbeq2(h2, h2) << 2);
    o[39] = hb(__hmax_nan(hx, hy)) | (unsigned)hb(__hmin_nan(hx, hy)) << 16;
}

// The functions cuda_fp16.h/cuda_bf16.h offer on the device only (fma, half to
// int in a rounding mode), and the host's model of them.
__device__ void device_only(const float *in, int i, unsigned *o) {
    float x = in[i], y = in[(i + 5) % NIN];
    __half hx = __float2half(x), hy = __float2half(y);
    __nv_bfloat16 bx = __float2bfloat16(x), by = __float2bfloat16(y);
    o[14] = hb(__hfma(hx, hy, __float2half(0.5f)));
    o[21] = bb(__hfma(bx, by, __float2bfloat16(-1.0f)));
    o[23] = (unsigned)__half2int_rn(hx);
    o[25] = (unsigned)__half2int_rd(hx) ^ (unsigned)__half2int_ru(hx) << 8;
    o[26] = (unsigned)__half2short_rn(hx) & 0xffff;
    o[27] = __half2uint_rn(hx);
    o[31] = vb(__hfma2(__floats2half2_rn(x, y), __halves2half2(hy, hx), __float2half2_rn(1.0f)));
}

static void host_model(const float *in, int i, unsigned *o) {
    float x = in[i], y = in[(i + 5) % NIN];
    __half hx = __float2half(x), hy = __float2half(y);
    __nv_bfloat16 bx = __float2bfloat16(x), by = __float2bfloat16(y);
    // the host's model: one rounding of the exact result (a double holds it exactly)
    double fx = __half2float(hx), fy = __half2float(hy);
    o[14] = hb(__double2half(fx * fy + 0.5));
    o[21] = bb(__double2bfloat16((double)__bfloat162float(bx) * __bfloat162float(by) - 1.0));
    auto sat = [](double v, double lo, double hi) { return v != v ? 0.0 : v < lo ? lo : v > hi ? hi : v; };
    o[23] = (unsigned)(int)sat(nearbyint(fx), -2147483648.0, 2147483647.0);
    o[25] = (unsigned)(int)sat(floor(fx), -2147483648.0, 2147483647.0) ^
            (unsigned)(int)sat(ceil(fx), -2147483648.0, 2147483647.0) << 8;
    o[26] = (unsigned)(short)sat(nearbyint(fx), -32768.0, 32767.0) & 0xffff;
    o[27] = (unsigned)sat(nearbyint(fx), 0.0, 4294967295.0);
    __half lo = __double2half(fx * fy + 1.0), hi = __double2half(fy * fx + 1.0);
    o[31] = (unsigned)hb(lo) | (unsigned)hb(hi) << 16;
}

__global__ void on_device(const float *in, unsigned *out) {
    int i = threadIdx.x;
    if (i < NIN) {
        compute(in, i, out + i * NOUT);
        device_only(in, i, out + i * NOUT);
    }
}

int main(void) {
    unsigned nan_bits = 0x7fc00000u;
    float nanv;
    memcpy(&nanv, &nan_bits, 4);
    float in[NIN] = {1.0f + 1.0f / 2048.0f,  // a tie in half: rounds to even
                     1.0f + 3.0f / 2048.0f, 65504.0f, 65520.0f, 1.0e-8f, 5.9604645e-8f, 2.9802322e-8f, -0.0f,
                     3.14159265f, -0.1f, 100000.0f, 1.0f / 3.0f, INFINITY, -2.5f, nanv, -65519.0f};
    float *d_in;
    unsigned *d_out, dev[NIN * NOUT], host[NIN * NOUT];
    cudaCheck(cudaMalloc(&d_in, sizeof in));
    cudaCheck(cudaMalloc(&d_out, sizeof dev));
    cudaCheck(cudaMemcpy(d_in, in, sizeof in, cudaMemcpyHostToDevice));
    on_device<<<1, 32>>>(d_in, d_out);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaMemcpy(dev, d_out, sizeof dev, cudaMemcpyDeviceToHost));
    for (int i = 0; i < NIN; i++) {
        compute(in, i, host + i * NOUT);
        host_model(in, i, host + i * NOUT);
    }
    int bad = 0;
    for (int c = 0; c < NOUT; c++) {
        int cb = 0;
        for (int i = 0; i < NIN; i++)
            if (!printed_cell(i, c)) cb += dev[i * NOUT + c] != host[i * NOUT + c];
        if (cb) {
            printf("column %d differs from the host in %d rows:", c, cb);
            for (int i = 0; i < NIN; i++)
                if (dev[i * NOUT + c] != host[i * NOUT + c] && !printed_cell(i, c))
                    printf(" [%d] %#x vs %#x", i, dev[i * NOUT + c], host[i * NOUT + c]);
            printf("\n");
        }
        bad += cb;
    }
    printf("float -> half rn/rz/rd/ru of 1+2^-11: %04x %04x %04x %04x\n", dev[0], dev[1], dev[2], dev[3]);
    printf("65520 -> half rn/rz/rd/ru: %04x %04x %04x %04x\n", dev[3 * NOUT], dev[3 * NOUT + 1], dev[3 * NOUT + 2],
           dev[3 * NOUT + 3]);
    printf("1e-8 -> half rn/ru (subnormal): %04x %04x; 2^-25 -> half rn: %04x\n", dev[4 * NOUT], dev[4 * NOUT + 3],
           dev[6 * NOUT]);
    printf("pi -> bf16 rn/rz/rd/ru: %04x %04x %04x %04x\n", dev[8 * NOUT + 4], dev[8 * NOUT + 5], dev[8 * NOUT + 6],
           dev[8 * NOUT + 7]);
    printf("NaN -> half %04x, bf16 %04x; half2int(NaN) %d\n", dev[14 * NOUT], dev[14 * NOUT + 4],
           (int)dev[14 * NOUT + 23]);
    printf("NaN -> half through double: device %04x, cuda_fp16.h's host code %04x; -> bf16: device %04x, host %04x\n",
           dev[NAN_ROW * NOUT + DOUBLE2HALF], host[NAN_ROW * NOUT + DOUBLE2HALF], dev[NAN_ROW * NOUT + DOUBLE2BF16],
           host[NAN_ROW * NOUT + DOUBLE2BF16]);
    printf("1/3 / (1+2^-11) in half = %04x; 1/3 + (1+2^-11) in bf16 = %04x\n", dev[11 * NOUT + 13], dev[11 * NOUT + 19]);
    printf("rows x columns compared with the host: %d x %d, mismatches %d\n", NIN, NOUT, bad);
    cudaCheck(cudaFree(d_in));
    cudaCheck(cudaFree(d_out));
    printf("%s\n", bad == 0 ? "PASS" : "FAIL");
    return bad == 0 ? 0 : 1;
}
