// aos-to-soa.cu: n particles arrive as an ARRAY OF STRUCTURES, 4 floats each:
// p[4*i + 0..3] = x, y, z, mass of particle i. Write them out as a STRUCTURE
// OF ARRAYS: x[i], y[i], z[i], m[i]. One thread per particle.
// Target on the emulator: global efficiency >= 95% (sectors the accesses need
// / sectors they touch). Four separate float loads of p use a quarter of every
// sector they touch; one 16-byte float4 load per particle uses all of it.

extern "C" __global__ void aos_to_soa(const float *p, float *x, float *y, float *z, float *m, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;

    // TODO: load the whole particle with ONE 16-byte access: treat p as an
    //       array of float4 (four floats loaded by one instruction) and read
    //       its element i into a float4 q. (p comes from cudaMalloc, so it is
    //       16-byte aligned.)

    // TODO: write q.x, q.y, q.z and q.w to x, y, z and m.
    x[i] = p[4 * i];
}
