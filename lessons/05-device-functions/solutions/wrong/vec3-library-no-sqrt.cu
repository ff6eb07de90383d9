// vec3-library.cu (typical mistake): normalize3 divides by the SQUARED
// length, dot3(p, p), not by its square root. The directions are right but
// the lengths are not 1, so the normals and the lighting come out scaled.

__device__ __forceinline__ float3 sub3(float3 p, float3 q)
{
    return make_float3(p.x - q.x, p.y - q.y, p.z - q.z);
}

__device__ __forceinline__ float dot3(float3 p, float3 q)
{
    return p.x * q.x + p.y * q.y + p.z * q.z;
}

__device__ __forceinline__ float3 cross3(float3 p, float3 q)
{
    return make_float3(p.y * q.z - p.z * q.y, p.z * q.x - p.x * q.z, p.x * q.y - p.y * q.x);
}

__device__ __forceinline__ float3 normalize3(float3 p)
{
    float len = dot3(p, p);
    return make_float3(p.x / len, p.y / len, p.z / len);
}

__device__ __forceinline__ float3 load3(const float *v, int k)
{
    return make_float3(v[3 * k], v[3 * k + 1], v[3 * k + 2]);
}

extern "C" __global__ void face_normals(const float *v, float *normals, int triangles)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= triangles)
        return;
    float3 a = load3(v, 3 * t), b = load3(v, 3 * t + 1), c = load3(v, 3 * t + 2);
    float3 n = normalize3(cross3(sub3(b, a), sub3(c, a)));
    normals[3 * t] = n.x;
    normals[3 * t + 1] = n.y;
    normals[3 * t + 2] = n.z;
}

extern "C" __global__ void lambert(const float *normals, float *light, float lx, float ly, float lz,
                                   int triangles)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= triangles)
        return;
    float3 l = normalize3(make_float3(lx, ly, lz));
    light[t] = fmaxf(0.0f, dot3(load3(normals, t), l));
}
