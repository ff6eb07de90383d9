// vec3-library.cu: a tiny vector library shared by two kernels.
// Triangle t has corners a, b, c at v[9t .. 9t+8] (ax ay az bx by bz cx cy cz).
//   face_normals:  n_t = normalize(cross(b - a, c - a))        (3 floats per triangle)
//   lambert:       light_t = max(0, dot(n_t, L)) for a light direction L
// Both kernels are written and use the helpers below. Write the helpers ONCE
// (sub3, dot3, cross3, normalize3): every kernel that includes them benefits.

__device__ __forceinline__ float3 sub3(float3 p, float3 q)
{
    // TODO: p - q, component by component (make_float3 builds a float3).
    return make_float3(0.0f, 0.0f, 0.0f);
}

__device__ __forceinline__ float dot3(float3 p, float3 q)
{
    // TODO: the dot product: the sum of the products of matching components.
    return 0.0f;
}

__device__ __forceinline__ float3 cross3(float3 p, float3 q)
{
    // TODO: (p.y q.z - p.z q.y, p.z q.x - p.x q.z, p.x q.y - p.y q.x)
    return make_float3(0.0f, 0.0f, 0.0f);
}

__device__ __forceinline__ float3 normalize3(float3 p)
{
    // TODO: p divided by its length, sqrtf(dot3(p, p)). (rsqrtf is faster,
    //       but less exact than the check's tolerance allows.)
    return p;
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
