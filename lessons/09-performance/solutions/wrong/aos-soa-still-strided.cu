// aos-soa.cu (typical mistake): the SoA arrays indexed as if they were still
// interleaved (vx[4 * i]): the stride is back, and the kernel reads far past
// the end of each array.

struct Particle {              // 32 bytes: one sector per particle
    float x, y, z;             // position
    float vx, vy, vz;          // velocity
    float mass, charge;
};

// Given: the array-of-structures version. Thread i reads p[i].mass and
// p[i].vx, vy, vz: 16 useful bytes, but the memory system moves whole 32-byte
// sectors, so the whole particle (32 bytes) travels for every one of them.
extern "C" __global__ void energy_aos(const Particle *p, float *e, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v2 = p[i].vx * p[i].vx + p[i].vy * p[i].vy + p[i].vz * p[i].vz;
        e[i] = 0.5f * p[i].mass * v2;
    }
}

// Given: on a GPU the exercise uses this to make the SoA copy of the particles.
extern "C" __global__ void split_fields(const Particle *p, float *vx, float *vy, float *vz,
                                        float *mass, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        vx[i] = p[i].vx;
        vy[i] = p[i].vy;
        vz[i] = p[i].vz;
        mass[i] = p[i].mass;
    }
}

extern "C" __global__ void energy_soa(const float *vx, const float *vy, const float *vz,
                                      const float *mass, float *e, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v2 = vx[4 * i] * vx[4 * i] + vy[4 * i] * vy[4 * i] + vz[4 * i] * vz[4 * i];
        e[i] = 0.5f * mass[4 * i] * v2;
    }
}
