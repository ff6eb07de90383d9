// normals.cu (solution): 32 random bits -> a uniform in (0, 1) -> pairs of
// standard normals by the Box-Muller transform.

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
// A uniform float in (0, 1) from 32 random bits: the top 23 bits, centred in
// their interval, so never exactly 0 (log(0) = -inf) nor 1.
__device__ float uniform01(unsigned int x)
{
    return ((x >> 9) + 0.5f) * (1.0f / 8388608.0f);
}

// Box-Muller: two independent uniforms -> two independent standard normals.
__device__ float2 box_muller(float u1, float u2)
{
    float radius = sqrtf(-2.0f * logf(u1));
    float s, c;
    sincosf(6.2831853f * u2, &s, &c);
    return make_float2(radius * c, radius * s);
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
