// asian.cu (solution): an arithmetic-average Asian call. Each thread walks
// its path through STEPS dates, drawing four normals per Philox call, and
// averages the prices; the block reduction is the European one.

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

// ---- uniforms and normals (from the normals exercise) ---------------------------
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

// ---- block reduction helper ---------------------------------------------------
#define FULL_MASK 0xffffffffu

__device__ float warp_sum(float v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(FULL_MASK, v, offset);
    return v;
}

#ifndef STEPS
#define STEPS 32            // monitoring dates, a multiple of 4 (the exercise sets it)
#endif

// One path per thread: STEPS steps of geometric Brownian motion of length
// dt = T / STEPS, the arithmetic average of the prices at the STEPS dates,
// and the payoff max(average - K, 0). Step j of path i takes its normal from
// philox((i, j / 4, 0, 0), key): four normals per call.
extern "C" __global__ void asian_call(float s0, float strike, float rate, float sigma,
                                      float maturity, unsigned int key0, unsigned int key1,
                                      int paths, float *block_sum, float *block_sumsq)
{
    __shared__ float sums[32], sumsqs[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;

    float payoff = 0.0f;
    if (i < paths) {
        float dt = maturity / STEPS;
        float drift = (rate - 0.5f * sigma * sigma) * dt;
        float vol = sigma * sqrtf(dt);
        float s = s0, total = 0.0f;
        for (int j = 0; j < STEPS / 4; j++) {
            uint4 r = philox4x32_10(make_uint4(i, j, 0, 0), make_uint2(key0, key1));
            float2 a = box_muller(uniform01(r.x), uniform01(r.y));
            float2 b = box_muller(uniform01(r.z), uniform01(r.w));
            s *= expf(drift + vol * a.x); total += s;
            s *= expf(drift + vol * a.y); total += s;
            s *= expf(drift + vol * b.x); total += s;
            s *= expf(drift + vol * b.y); total += s;
        }
        payoff = fmaxf(total / STEPS - strike, 0.0f);
    }

    float s = warp_sum(payoff), q = warp_sum(payoff * payoff);
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0) {
        sums[warp] = s;
        sumsqs[warp] = q;
    }
    __syncthreads();
    if (warp == 0) {
        int warps = blockDim.x / 32;
        s = warp_sum(lane < warps ? sums[lane] : 0.0f);
        q = warp_sum(lane < warps ? sumsqs[lane] : 0.0f);
        if (lane == 0) {
            block_sum[blockIdx.x] = s;
            block_sumsq[blockIdx.x] = q;
        }
    }
}
