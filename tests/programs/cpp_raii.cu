// tests/programs/cpp_raii.cu: C++ host code around the runtime. A global
// object allocates device memory in its constructor, before main; a
// move-only DeviceBuffer<T> frees in its destructor; errors become
// exceptions (CudaError carries the code) that unwind through the buffers;
// a kernel template over a functor; std::vector in and out. The global's
// destructor frees after main returns, when the runtime may be unloading:
// it must not crash whatever the call returns.
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#define cudaCheck(call) cuda_check((call), #call, __FILE__, __LINE__)
static void cuda_check(cudaError_t e, const char *what, const char *file, int line) {
    if (e != cudaSuccess) {
        fprintf(stderr, "[CUDA ERROR] at file %s:%d: %s\n%s\n", file, line, what, cudaGetErrorString(e));
        exit(EXIT_FAILURE);
    }
}

static int failures = 0;
static void expect(bool ok, const char *what) {
    printf("%s - %s\n", ok ? "ok" : "FAIL", what);
    failures += !ok;
}

struct CudaError : std::runtime_error {
    cudaError_t code;
    CudaError(cudaError_t c, const char *what) : std::runtime_error(std::string(what) + ": " + cudaGetErrorName(c)), code(c) {}
};

static void check(cudaError_t e, const char *what) {
    if (e != cudaSuccess) throw CudaError(e, what);
}

static int g_live = 0;  // DeviceBuffers alive

template <typename T> class DeviceBuffer {
  public:
    explicit DeviceBuffer(size_t n) : n_(n) {
        check(cudaMalloc(&p_, n * sizeof(T)), "cudaMalloc");
        g_live++;
    }
    DeviceBuffer(DeviceBuffer &&o) noexcept : p_(std::exchange(o.p_, nullptr)), n_(o.n_) {}
    DeviceBuffer(const DeviceBuffer &) = delete;
    DeviceBuffer &operator=(const DeviceBuffer &) = delete;
    ~DeviceBuffer() {
        if (p_) {
            cudaFree(p_);
            g_live--;
        }
    }
    T *get() const { return p_; }
    size_t size() const { return n_; }
    void upload(const std::vector<T> &v) { check(cudaMemcpy(p_, v.data(), n_ * sizeof(T), cudaMemcpyHostToDevice), "upload"); }
    std::vector<T> download() const {
        std::vector<T> v(n_);
        check(cudaMemcpy(v.data(), p_, n_ * sizeof(T), cudaMemcpyDeviceToHost), "download");
        return v;
    }

  private:
    T *p_ = nullptr;
    size_t n_;
};

struct Saxpy {
    float a;
    __device__ float operator()(float x, float y) const { return a * x + y; }
};
struct MaxOf {
    __device__ int operator()(int x, int y) const { return x > y ? x : y; }
};

template <typename T, typename Op> __global__ void zip(const T *x, T *y, size_t n, Op op) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) y[i] = op(x[i], y[i]);
}

template <typename T, typename Op> static void zip_on(const DeviceBuffer<T> &x, DeviceBuffer<T> &y, Op op) {
    zip<<<(unsigned)((x.size() + 255) / 256), 256>>>(x.get(), y.get(), x.size(), op);
    check(cudaGetLastError(), "zip launch");
}

// constructed before main: the runtime must be usable from static initialisers
static DeviceBuffer<int> g_table(1024);

int main(void) {
    expect(g_table.get() != nullptr && g_live == 1, "a global constructed before main allocated device memory");
    {
        std::vector<int> iota(1024);
        for (int i = 0; i < 1024; i++) iota[i] = i;
        g_table.upload(iota);
        expect(g_table.download()[1023] == 1023, "and it works in main");
    }
    {
        const size_t n = 10000;
        DeviceBuffer<float> x(n), y(n);
        x.upload(std::vector<float>(n, 2.0f));
        y.upload(std::vector<float>(n, 1.0f));
        zip_on(x, y, Saxpy{3.0f});
        auto r = y.download();
        expect(r[0] == 7.0f && r[n - 1] == 7.0f, "zip<float, Saxpy>: 3 * 2 + 1");
        DeviceBuffer<int> a(5), b(5);
        a.upload({1, 9, 3, 7, 5});
        b.upload({4, 2, 8, 6, 0});
        zip_on(a, b, MaxOf{});
        auto m = b.download();
        expect(m == std::vector<int>({4, 9, 8, 7, 5}), "zip<int, MaxOf>");
        std::vector<DeviceBuffer<int>> many;
        for (int i = 0; i < 8; i++) many.emplace_back(100);
        expect(g_live == 1 + 2 + 2 + 8, "buffers moved into a std::vector stay counted once");
    }
    expect(g_live == 1, "leaving the scope freed every buffer");

    try {
        DeviceBuffer<float> fine(100);
        DeviceBuffer<char> huge((size_t)1 << 52);  // 4 PiB
        expect(false, "a 4 PiB cudaMalloc succeeded");
    } catch (const CudaError &e) {
        printf("caught: %s\n", e.what());
        expect(e.code == cudaErrorMemoryAllocation && g_live == 1, "out of memory unwinds, freeing what was made");
    }
    cudaGetLastError();
    try {
        DeviceBuffer<int> x(10), y(10);
        zip<<<1, 4096>>>(x.get(), y.get(), 10, MaxOf{});
        check(cudaGetLastError(), "zip<<<1, 4096>>>");
        expect(false, "a launch of 4096 threads per block succeeded");
    } catch (const CudaError &e) {
        printf("caught: %s\n", e.what());
        expect(e.code == cudaErrorInvalidValue, "a bad launch becomes an exception");
    }
    auto owned = std::make_unique<DeviceBuffer<double>>(64);
    owned.reset();
    expect(g_live == 1, "unique_ptr frees its buffer");
    cudaCheck(cudaDeviceSynchronize());
    printf("%s\n", failures == 0 ? "PASS" : "FAIL");
    return failures == 0 ? 0 : 1;
}
