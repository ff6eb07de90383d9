// tests/conformance/tensor.cu: tensor cores — nvcuda::wmma (m16n16k16 f16 and
// bf16, m16n16k8 tf32; f32 and f16 accumulators; row/col layouts), inline-PTX
// mma.sync (m16n8k16 f16/bf16, m16n8k8 f16/tf32) and wmma::__float_to_tf32.
// One warp per 16x16 (or 16x8) tile. References in cases_tensor.h; the
// emulator's side is kernels/emu/emu_mma.c.
#include <mma.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
using namespace nvcuda;

// D = A*B + C for one 16x16x16 f16 tile in each of four layout combinations
// (block t: A row/col, B col/row, C and D row/col by t's bits). a, b: 16x16
// halves, c: 16x16 floats, all row-major in memory except where the layout
// says col (then the same buffer is read as column-major). d: 4 tiles.
extern "C" __global__ void wmma_f16_layouts(const __half *a, const __half *b, const float *c, float *d) {
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
    int t = blockIdx.x;
    wmma::layout_t cl = (t & 1) ? wmma::mem_col_major : wmma::mem_row_major;
    wmma::load_matrix_sync(fc, c, 16, cl);
    if (t & 2) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::col_major> fa;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> fb;
        wmma::load_matrix_sync(fa, a, 16);
        wmma::load_matrix_sync(fb, b, 16);
        wmma::mma_sync(fc, fa, fb, fc);
    } else {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> fb;
        wmma::load_matrix_sync(fa, a, 16);
        wmma::load_matrix_sync(fb, b, 16);
        wmma::mma_sync(fc, fa, fb, fc);
    }
    wmma::store_matrix_sync(d + t * 256, fc, 16, cl);
}

// f16 accumulator, fragments element-wise scaled (x[i] *= 2) before the store,
// through shared memory with a leading dimension of 24.
extern "C" __global__ void wmma_f16_acc16(const __half *a, const __half *b, __half *d) {
    __shared__ __half s[16 * 24];
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, __half> fc;
    wmma::fill_fragment(fc, __float2half(1.0f));
    wmma::load_matrix_sync(fa, a, 16);
    wmma::load_matrix_sync(fb, b, 16);
    wmma::mma_sync(fc, fa, fb, fc);
    for (int i = 0; i < fc.num_elements; i++) fc.x[i] = __hmul(fc.x[i], __float2half(2.0f));
    wmma::store_matrix_sync(s, fc, 24, wmma::mem_row_major);
    __syncwarp();
    for (int i = threadIdx.x; i < 256; i += 32) d[i] = s[(i / 16) * 24 + i % 16];
}

// bf16 inputs, f32 accumulator, a 32x32x32 product by a 2x2 grid of warps (block = 1 warp).
extern "C" __global__ void wmma_bf16_gemm(const __nv_bfloat16 *a, const __nv_bfloat16 *b, float *d) {
    int tm = blockIdx.y, tn = blockIdx.x;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
    wmma::fill_fragment(fc, 0.0f);
    for (int k = 0; k < 32; k += 16) {
        wmma::load_matrix_sync(fa, a + tm * 16 * 32 + k, 32);
        wmma::load_matrix_sync(fb, b + k * 32 + tn * 16, 32);
        wmma::mma_sync(fc, fa, fb, fc);
    }
    wmma::store_matrix_sync(d + tm * 16 * 32 + tn * 16, fc, 32, wmma::mem_row_major);
}

// tf32: block 0 converts A with __float_to_tf32 before the product, block 1
// multiplies the raw floats (the tensor core reads their top 19 bits).
extern "C" __global__ void wmma_tf32(const float *a, const float *b, float *d) {
    wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 8, float> fc;
    wmma::fill_fragment(fc, 0.0f);
    wmma::load_matrix_sync(fa, a, 8);
    wmma::load_matrix_sync(fb, b, 8);
    if (blockIdx.x == 0)
        for (int i = 0; i < fa.num_elements; i++) fa.x[i] = wmma::__float_to_tf32(fa.x[i]);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(d + blockIdx.x * 256, fc, 16, wmma::mem_row_major);
}

// wmma::__float_to_tf32 on each input (cvt.rna.tf32.f32).
extern "C" __global__ void tf32_convert(const float *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = wmma::__float_to_tf32(in[i]);
}

// Which matrix element each lane holds in frag.x[i] (the layout is the
// implementation's): A, B and C hold their own coordinates (r*16 + c).
// out: 32 lanes x (16 A + 16 B + 8 C) values.
extern "C" __global__ void wmma_frag_map(const __half *coord_h, const float *coord_f, float *out) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
    wmma::load_matrix_sync(fa, coord_h, 16);
    wmma::load_matrix_sync(fb, coord_h, 16);
    wmma::load_matrix_sync(fc, coord_f, 16, wmma::mem_row_major);
    float *o = out + threadIdx.x * 40;
    for (int i = 0; i < 16; i++) o[i] = __half2float(fa.x[i]);
    for (int i = 0; i < 16; i++) o[16 + i] = __half2float(fb.x[i]);
    for (int i = 0; i < 8; i++) o[32 + i] = fc.x[i];
}

// A 64x64x64 f16 GEMM (f32 accumulate), one warp per 16x16 tile of D, random
// inputs: rounding of the accumulation shows (compared with a tolerance).
extern "C" __global__ void wmma_f16_gemm_rand(const __half *a, const __half *b, float *d) {
    int tm = blockIdx.y, tn = blockIdx.x;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
    wmma::fill_fragment(fc, 0.0f);
    for (int k = 0; k < 64; k += 16) {
        wmma::load_matrix_sync(fa, a + tm * 16 * 64 + k, 64);
        wmma::load_matrix_sync(fb, b + k * 64 + tn * 16, 64);
        wmma::mma_sync(fc, fa, fb, fc);
    }
    wmma::store_matrix_sync(d + tm * 16 * 64 + tn * 16, fc, 64, wmma::mem_row_major);
}

// ---- mma.sync (inline PTX), fragments per the PTX ISA's figures ----------------
__device__ unsigned pack_h2(__half lo, __half hi) {
    return (unsigned)__half_as_ushort(lo) | ((unsigned)__half_as_ushort(hi) << 16);
}

__device__ unsigned pack_bf2(__nv_bfloat16 lo, __nv_bfloat16 hi) {
    return (unsigned)__bfloat16_as_ushort(lo) | ((unsigned)__bfloat16_as_ushort(hi) << 16);
}

// m16n8k16, f16 (block 0) and bf16 (block 1) inputs, f32 accumulators.
// a: 16x16 row-major, b: 16x8 row-major, c: 16x8; d: 2 tiles of 16x8.
extern "C" __global__ void mma_m16n8k16(const __half *ah, const __half *bh, const __nv_bfloat16 *ab,
                                        const __nv_bfloat16 *bb, const float *c, float *d) {
    int lane = threadIdx.x, g = lane >> 2, t = lane & 3;
    unsigned ra[4], rb[2];
    for (int i = 0; i < 4; i++) {
        int row = g + 8 * (i & 1), col = 2 * t + 8 * (i >> 1);
        ra[i] = blockIdx.x ? pack_bf2(ab[row * 16 + col], ab[row * 16 + col + 1])
                           : pack_h2(ah[row * 16 + col], ah[row * 16 + col + 1]);
    }
    for (int i = 0; i < 2; i++) {
        int k = 2 * t + 8 * i;
        rb[i] = blockIdx.x ? pack_bf2(bb[k * 8 + g], bb[(k + 1) * 8 + g]) : pack_h2(bh[k * 8 + g], bh[(k + 1) * 8 + g]);
    }
    float rc[4], rd[4];
    for (int i = 0; i < 4; i++) rc[i] = c[(g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)];
    if (blockIdx.x == 0)
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                     "{%10,%11,%12,%13};"
                     : "=f"(rd[0]), "=f"(rd[1]), "=f"(rd[2]), "=f"(rd[3])
                     : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]),
                       "f"(rc[0]), "f"(rc[1]), "f"(rc[2]), "f"(rc[3]));
    else
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                     "{%10,%11,%12,%13};"
                     : "=f"(rd[0]), "=f"(rd[1]), "=f"(rd[2]), "=f"(rd[3])
                     : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]),
                       "f"(rc[0]), "f"(rc[1]), "f"(rc[2]), "f"(rc[3]));
    for (int i = 0; i < 4; i++) d[blockIdx.x * 128 + (g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)] = rd[i];
}

// m16n8k8: f16 inputs with an f16 accumulator (block 0), tf32 inputs with f32 (block 1).
// ah: 16x8 halves, bh: 8x8 halves (row-major); af: 16x8 floats, bf: 8x8 floats; c: 16x8 floats.
// d: 16x8 halves as floats (block 0) then 16x8 floats (block 1).
extern "C" __global__ void mma_m16n8k8(const __half *ah, const __half *bh, const float *af, const float *bf,
                                       const float *c, float *d) {
    int lane = threadIdx.x, g = lane >> 2, t = lane & 3;
    if (blockIdx.x == 0) {
        unsigned ra[2], rb, rc[2], rd[2];
        for (int i = 0; i < 2; i++) ra[i] = pack_h2(ah[(g + 8 * i) * 8 + 2 * t], ah[(g + 8 * i) * 8 + 2 * t + 1]);
        rb = pack_h2(bh[(2 * t) * 8 + g], bh[(2 * t + 1) * 8 + g]);
        for (int i = 0; i < 2; i++)
            rc[i] = pack_h2(__float2half(c[(g + 8 * i) * 8 + 2 * t]), __float2half(c[(g + 8 * i) * 8 + 2 * t + 1]));
        asm volatile("mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3}, {%4}, {%5,%6};"
                     : "=r"(rd[0]), "=r"(rd[1]) : "r"(ra[0]), "r"(ra[1]), "r"(rb), "r"(rc[0]), "r"(rc[1]));
        for (int i = 0; i < 2; i++) {
            d[(g + 8 * i) * 8 + 2 * t] = __half2float(__ushort_as_half((unsigned short)(rd[i] & 0xffff)));
            d[(g + 8 * i) * 8 + 2 * t + 1] = __half2float(__ushort_as_half((unsigned short)(rd[i] >> 16)));
        }
    } else {
        unsigned ra[4], rb[2];
        for (int i = 0; i < 4; i++) ra[i] = __float_as_uint(af[(g + 8 * (i & 1)) * 8 + t + 4 * (i >> 1)]);
        for (int i = 0; i < 2; i++) rb[i] = __float_as_uint(bf[(t + 4 * i) * 8 + g]);
        float rc[4], rd[4];
        for (int i = 0; i < 4; i++) rc[i] = c[(g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)];
        asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                     "{%10,%11,%12,%13};"
                     : "=f"(rd[0]), "=f"(rd[1]), "=f"(rd[2]), "=f"(rd[3])
                     : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]),
                       "f"(rc[0]), "f"(rc[1]), "f"(rc[2]), "f"(rc[3]));
        for (int i = 0; i < 4; i++) d[128 + (g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)] = rd[i];
    }
}
