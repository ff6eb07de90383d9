// tests/programs/templates_cpp.cu: C++ on both sides. Templated kernels
// instantiated for int, float and double (and a functor type parameter); a
// RAII class owning a device buffer (copy forbidden, move allowed);
// std::vector, std::string, std::sort with a lambda, std::accumulate,
// std::transform on the host; a class with a __host__ __device__ member
// function used in a kernel and in the CPU reference.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <string>
#include <utility>
#include <vector>
#include <cuda_runtime.h>

#define cudaCheck(call) cuda_check((call), #call, __FILE__, __LINE__)
static void cuda_check(cudaError_t e, const char *what, const char *file, int line) {
    if (e != cudaSuccess) {
        fprintf(stderr, "[CUDA ERROR] at file %s:%d: %s\n%s\n", file, line, what, cudaGetErrorString(e));
        exit(EXIT_FAILURE);
    }
}

template <typename T>
class DeviceBuffer {
  public:
    explicit DeviceBuffer(size_t n) : n_(n) { cudaCheck(cudaMalloc(&p_, n * sizeof(T))); }
    ~DeviceBuffer() {
        if (p_) cudaFree(p_);
    }
    DeviceBuffer(const DeviceBuffer &) = delete;
    DeviceBuffer &operator=(const DeviceBuffer &) = delete;
    DeviceBuffer(DeviceBuffer &&o) noexcept : p_(o.p_), n_(o.n_) { o.p_ = nullptr; }
    void upload(const std::vector<T> &v) { cudaCheck(cudaMemcpy(p_, v.data(), n_ * sizeof(T), cudaMemcpyHostToDevice)); }
    std::vector<T> download() const {
        std::vector<T> v(n_);
        cudaCheck(cudaMemcpy(v.data(), p_, n_ * sizeof(T), cudaMemcpyDeviceToHost));
        return v;
    }
    T *get() const { return p_; }
    size_t size() const { return n_; }

  private:
    T *p_ = nullptr;
    size_t n_;
};

struct Polynomial {  // c0 + c1 x + c2 x^2, evaluated the same way on both sides
    double c0, c1, c2;
    __host__ __device__ double operator()(double x) const { return c0 + x * (c1 + x * c2); }
};

struct Square {
    template <typename T>
    __device__ T operator()(T v) const { return v * v; }
};

template <typename T, typename Op>
__global__ void apply(T *x, int n, Op op) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = op(x[i]);
}

template <typename T>
__global__ void eval_poly(const T *x, double *y, int n, Polynomial p) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = p((double)x[i]);
}

template <typename T>
static std::string run_square(const char *type_name, int n) {
    std::vector<T> h(n);
    for (int i = 0; i < n; i++) h[i] = (T)(i - n / 2);
    DeviceBuffer<T> d(n);
    d.upload(h);
    apply<<<(n + 127) / 128, 128>>>(d.get(), n, Square());
    cudaCheck(cudaGetLastError());
    std::vector<T> back = d.download();
    T sum = std::accumulate(back.begin(), back.end(), (T)0);
    bool ok = true;
    for (int i = 0; i < n; i++) ok &= back[i] == h[i] * h[i];
    return std::string(type_name) + ": sum of squares " + std::to_string((long long)sum) + (ok ? " ok" : " WRONG");
}

int main(void) {
    std::vector<std::string> lines;
    lines.push_back(run_square<int>("int", 101));
    lines.push_back(run_square<float>("float", 101));
    lines.push_back(run_square<double>("double", 101));
    std::sort(lines.begin(), lines.end(), [](const std::string &a, const std::string &b) { return a > b; });
    for (const std::string &l : lines) printf("%s\n", l.c_str());

    // the same functor on both sides
    Polynomial p = {1.0, -2.0, 0.5};
    const int n = 64;
    std::vector<float> xs(n);
    std::iota(xs.begin(), xs.end(), -8.0f);
    DeviceBuffer<float> dx(n);
    DeviceBuffer<double> dy(n);
    dx.upload(xs);
    eval_poly<<<1, 64>>>(dx.get(), dy.get(), n, p);
    cudaCheck(cudaGetLastError());
    std::vector<double> ys = dy.download();
    std::vector<double> ref(n);
    std::transform(xs.begin(), xs.end(), ref.begin(), [&p](float x) { return p(x); });
    int bad = 0;
    for (int i = 0; i < n; i++) bad += ys[i] != ref[i];
    auto mm = std::minmax_element(ys.begin(), ys.end());
    printf("polynomial over [-8, 55]: min %.2f at x = %.0f, max %.2f, mismatches %d\n", *mm.first,
           xs[mm.first - ys.begin()], *mm.second, bad);

    // moving a buffer transfers ownership; the moved-from one frees nothing
    DeviceBuffer<float> moved(std::move(dx));
    printf("moved buffer keeps its size: %zu\n", moved.size());

    bool ok = bad == 0 && lines[0].find("WRONG") == std::string::npos &&
              lines[1].find("WRONG") == std::string::npos && lines[2].find("WRONG") == std::string::npos;
    printf("%s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
