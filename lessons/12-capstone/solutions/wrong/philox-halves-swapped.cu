// philox.cu (typical mistake): the two halves of a product swapped in the
// output: (hi1 ^ ..., HI1 ...). Each round loses information, and nothing
// matches the reference.
// Philox-4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3",
// SC 2011): a 128-bit counter and a 64-bit key go in, 128 random bits come out.
#define PHILOX_M0 0xD2511F53u       // round multipliers
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u       // key schedule: the golden ratio ...
#define PHILOX_W1 0xBB67AE85u       // ... and sqrt(3) - 1, as 32-bit fractions

__device__ uint4 philox_round(uint4 c, uint2 k)
{
    unsigned int hi0 = __umulhi(PHILOX_M0, c.x), lo0 = PHILOX_M0 * c.x;
    unsigned int hi1 = __umulhi(PHILOX_M1, c.z), lo1 = PHILOX_M1 * c.z;
    return make_uint4(lo1 ^ c.y ^ k.x, hi1, lo0 ^ c.w ^ k.y, hi0);
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

// Test harness: m counter/key pairs as six arrays of m words (structure of
// arrays: counter x, y, z, w, key x, y), results as four arrays of m words.
extern "C" __global__ void philox_blocks(const unsigned int *in, unsigned int *out, int m)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= m)
        return;
    uint4 c = make_uint4(in[j], in[m + j], in[2 * m + j], in[3 * m + j]);
    uint2 k = make_uint2(in[4 * m + j], in[5 * m + j]);
    uint4 r = philox4x32_10(c, k);
    out[j] = r.x;
    out[m + j] = r.y;
    out[2 * m + j] = r.z;
    out[3 * m + j] = r.w;
}
