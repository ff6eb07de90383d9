// normals.cu: standard normal random numbers from Philox bits, the way a
// Monte Carlo simulation needs them.
//
// 1. uniform01: 32 random bits -> a float uniform in (0, 1). Keep the top 23
//    bits (x >> 9: a float's mantissa holds 24 bits, so k + 0.5 is exact for
//    k < 2^23), add 0.5 so that 0 can never come out, and scale by 2^-23:
//        u = ((x >> 9) + 0.5f) * (1.0f / 8388608.0f)      in [2^-24, 1 - 2^-24]
// 2. box_muller: two independent uniforms u1, u2 -> two independent N(0, 1):
//        radius = sqrt(-2 ln u1),  angle = 2 pi u2
//        z1 = radius cos(angle),   z2 = radius sin(angle)
//    (sincosf(angle, &s, &c) computes both at once.)
//
// Each thread makes 4 normals from one call of Philox (given below).

// ---- Philox-4x32-10 (from the philox exercise) -------------------------------
#define PHILOX_M0 0xD2511F53u       // round multipliers
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u       // key schedule: the golden ratio ...
#define PHILOX_W1 0xBB67AE85u       // ... and sqrt(3) - 1, as 32-bit fractions

__device__ uint4 philox_round(uint4 c, uint2 k)
{
    unsigned int hi0 = __umulhi(PHILOX_M0, c.x), lo0 = PHILOX_M0 * c.x;
    unsigned int hi1 = __umulhi(PHILOX_M1, c.z), lo1 = PHILOX_M1 * c.z;
    return make_uint4(hi1 ^ c.y ^ k.x, lo1, hi0 ^ c.w ^ k.y, lo0);
}

__device__ uint4 philox4x32_10(uint4 c, uint2 k)
{
    for (int r = 0; r < 10; r++) {
        c = philox_round(c, k);
        k.x += PHILOX_W0;                  // bump the key after every round
        k.y += PHILOX_W1;                  // (the last bump is not used)
    }
    return c;
}

// ---- uniforms and normals ------------------------------------------------------
__device__ float uniform01(unsigned int x)
{
    // TODO 1: the top 23 bits, plus one half, times 2^-23.
    return 0.5f + 0.0f * x;
}

__device__ float2 box_muller(float u1, float u2)
{
    // TODO 2: Box-Muller: a radius of sqrt(-2 ln u1) and an angle of 2 pi u2; the
    //         two normal numbers are the point's x and y (radius times cos, sin).
    return make_float2(u1 - 0.5f, u2 - 0.5f);
}

// Thread i turns philox((i, 0, 0, 0), key) into z[4i .. 4i+3].
extern "C" __global__ void normals(float *z, int n, unsigned int key0, unsigned int key1)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (4 * i >= n)
        return;
    uint4 r = philox4x32_10(make_uint4(i, 0, 0, 0), make_uint2(key0, key1));
    float2 a = box_muller(uniform01(r.x), uniform01(r.y));
    float2 b = box_muller(uniform01(r.z), uniform01(r.w));
    if (4 * i + 3 < n) {
        reinterpret_cast<float4 *>(z)[i] = make_float4(a.x, a.y, b.x, b.y);   // one 16-byte store
    } else {
        z[4 * i] = a.x;                                     // the tail: n % 4 elements
        if (4 * i + 1 < n) z[4 * i + 1] = a.y;
        if (4 * i + 2 < n) z[4 * i + 2] = b.x;
    }
}
