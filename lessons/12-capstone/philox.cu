// philox.cu: a counter-based random number generator, Philox-4x32-10
// (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC 2011).
//
// A sequential generator (rand(), Mersenne Twister) has a state that each call
// advances: 100,000 threads would need 100,000 states and a careful way to
// split the sequence. A counter-based generator is a pure function instead:
//
//      random 128 bits = philox(counter, key)
//
// Thread i of path p asks for philox((p, step, 0, 0), seed): no state, any
// number of threads, any order, and the CPU can recompute any number exactly.
//
// One ROUND maps a 4-word counter c = (c.x, c.y, c.z, c.w) with key k = (k.x, k.y):
//
//      hi0:lo0 = M0 * c.x       (the 64-bit product, split in two 32-bit halves)
//      hi1:lo1 = M1 * c.z
//      c' = ( hi1 ^ c.y ^ k.x,   lo1,   hi0 ^ c.w ^ k.y,   lo0 )
//
// Philox-4x32-10 applies 10 rounds; after each round the key grows:
// k.x += W0, k.y += W1 (32-bit arithmetic wraps around, as wanted).
// __umulhi(a, b) gives the high 32 bits of a * b; a * b itself the low 32.

#define PHILOX_M0 0xD2511F53u       // round multipliers
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u       // key schedule: the golden ratio ...
#define PHILOX_W1 0xBB67AE85u       // ... and sqrt(3) - 1, as 32-bit fractions

__device__ uint4 philox_round(uint4 c, uint2 k)
{
    // TODO 1: the two products (high and low halves) and the new counter.
    return c;
}

__device__ uint4 philox4x32_10(uint4 c, uint2 k)
{
    // TODO 2: ten rounds, bumping the key after each one.
    c = philox_round(c, k);
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
