// tests/programs/host_only.cu: a .cu program that never calls the CUDA
// runtime (only host C++ and a kernel that is never launched). Linked
// against libcudart all the same, it must behave exactly like a plain host
// program: its output, nothing else on stdout, exit status 0.
#include <cstdio>
#include <string>
#include <vector>

__global__ void never_launched(int *x) { x[threadIdx.x] = 1; }

int main(int argc, char **argv) {
    (void)argv;
    std::vector<std::string> words = {"host", "code", "only"};
    std::string joined;
    for (const std::string &w : words) joined += (joined.empty() ? "" : " ") + w;
    printf("%s, argc = %d\n", joined.c_str(), argc);
    long fib[40] = {0, 1};
    for (int i = 2; i < 40; i++) fib[i] = fib[i - 1] + fib[i - 2];
    printf("fib(39) = %ld\n", fib[39]);
    printf("%s\n", fib[39] == 63245986 ? "PASS" : "FAIL");
    return 0;
}
