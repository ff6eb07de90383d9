/* kernels/program_elf.c: what cudojo reads in a compiled program's ELF
 * image: a section by name (the fat binaries the emulator would run,
 * program_compile.c), whether the program can only ever use one
 * stream per device (program_one_stream), and the libraries it needs that
 * call NVIDIA's driver themselves (program_driver_libraries: cuBLAS,
 * cuFFT..., which the emulator runtime cannot stand in for).
 *
 * One stream: on the H200, a CUDA context is made with 8 hardware work
 * queues (CUDA_DEVICE_MAX_CONNECTIONS), and making them serialises in the
 * driver: 16 programs starting at once spent 2.03 s (median) making their
 * contexts, 0.57 s with one queue each (session 14, call 1). A program
 * that has one stream per device loses nothing with one queue: what the
 * queues are for is streams running side by side. The program's own
 * imports say whether it can have more: a stream or graph made, the
 * per-thread default stream (nvcc --default-stream per-thread: the _ptsz
 * and _ptds entry points), or threads of its own (each could use
 * cudaStreamPerThread); and no library beyond libc's, the C++ runtime and
 * libcudart (cuBLAS, NCCL, the driver API... may make streams of their
 * own). Anything it cannot read counts as no. A program that hides its
 * calls (dlsym) only slows itself. */
#include <elf.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/strbuf.h"
#include "kernels/program_internal.h"

const unsigned char *program_elf_section(const unsigned char *buf, size_t len, const char *name, size_t *size) {
    Elf64_Ehdr eh;
    if (len < sizeof eh) return NULL;
    memcpy(&eh, buf, sizeof eh);
    if (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
        eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shoff > len ||
        eh.e_shnum > (len - eh.e_shoff) / sizeof(Elf64_Shdr) || eh.e_shstrndx >= eh.e_shnum)
        return NULL;
    Elf64_Shdr strs;
    memcpy(&strs, buf + eh.e_shoff + (size_t)eh.e_shstrndx * sizeof strs, sizeof strs);
    if (strs.sh_offset > len || strs.sh_size > len - strs.sh_offset) return NULL;
    size_t want = strlen(name) + 1;
    for (size_t i = 0; i < eh.e_shnum; i++) {
        Elf64_Shdr sh;
        memcpy(&sh, buf + eh.e_shoff + i * sizeof sh, sizeof sh);
        if (sh.sh_name >= strs.sh_size || strs.sh_size - sh.sh_name < want ||
            memcmp(buf + strs.sh_offset + sh.sh_name, name, want))
            continue;
        if (sh.sh_type == SHT_NOBITS || sh.sh_offset > len || sh.sh_size > len - sh.sh_offset) return NULL;
        *size = sh.sh_size;
        return buf + sh.sh_offset;
    }
    return NULL;
}

static bool starts(const char *s, const char *prefix) { return !strncmp(s, prefix, strlen(prefix)); }

static bool ends(const char *s, size_t n, const char *suffix) {
    size_t k = strlen(suffix);
    return n >= k && !memcmp(s + n - k, suffix, k);
}

/* An imported function that can give the program a second stream. */
static bool more_streams(const char *name, size_t n) {
    static const char *const prefixes[] = {
        "cudaStreamCreate", "cudaGraph", "cudaStreamBeginCapture", /* graphs run their branches side by side */
        "pthread_create", "thrd_create", "_ZNSt6thread", "GOMP_", "__kmpc_", "omp_", "clone",
    };
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (starts(name, prefixes[i])) return true;
    return ends(name, n, "_ptsz") || ends(name, n, "_ptds");
}

/* A library the program needs that cannot make streams. */
static bool plain_library(const char *name) {
    static const char *const prefixes[] = {"libcudart.so", "libc.so", "libm.so", "libstdc++.so", "libgcc_s.so",
                                           "ld-linux", "libdl.so", "librt.so", "libpthread.so"};
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (starts(name, prefixes[i])) return true;
    return false;
}

/* The string at `off` of the table str[0..n), NUL-terminated inside it; NULL if not. */
static const char *string_at(const unsigned char *str, size_t n, size_t off, size_t *len) {
    if (off >= n) return NULL;
    const unsigned char *end = memchr(str + off, 0, n - off);
    if (!end) return NULL;
    *len = (size_t)(end - (str + off));
    return (const char *)str + off;
}

/* A library that calls NVIDIA's driver (libcuda) itself: the emulator
 * runtime stands in for libcudart only. */
static bool driver_library(const char *name) {
    static const char *const prefixes[] = {
        "libcuda.so",  "libcublas",  "libcufft",   "libcurand", "libcusparse", "libcusolver", "libnpp",
        "libnvjpeg",   "libcudnn",   "libnccl",    "libnvidia-ml.so", "libcupti", "libnvblas", "libcutensor",
    };
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (starts(name, prefixes[i])) return true;
    return false;
}

/* The image's DT_NEEDED libraries that driver_library says yes to, ", "
 * between them; NULL when none (or when the image cannot be read). */
static char *image_driver_libraries(const unsigned char *buf, size_t len) {
    size_t n_str = 0, n_dyn = 0;
    const unsigned char *str = program_elf_section(buf, len, ".dynstr", &n_str);
    const unsigned char *dyn = program_elf_section(buf, len, ".dynamic", &n_dyn);
    if (!str || !dyn || !n_str) return NULL;
    StrBuf sb;
    strbuf_init(&sb);
    for (size_t at = 0; at + sizeof(Elf64_Dyn) <= n_dyn; at += sizeof(Elf64_Dyn)) {
        Elf64_Dyn d;
        memcpy(&d, dyn + at, sizeof d);
        if (d.d_tag == DT_NULL) break;
        size_t k;
        const char *lib = d.d_tag == DT_NEEDED ? string_at(str, n_str, d.d_un.d_val, &k) : NULL;
        if (!lib || !driver_library(lib)) continue;
        if (sb.len) strbuf_append(&sb, ", ");
        strbuf_append_n(&sb, lib, k);
    }
    char *s = sb.len ? strbuf_steal(&sb) : NULL;
    strbuf_fini(&sb);
    return s;
}

static bool image_one_stream(const unsigned char *buf, size_t len) {
    size_t n_sym = 0, n_str = 0, n_dyn = 0;
    const unsigned char *sym = program_elf_section(buf, len, ".dynsym", &n_sym);
    const unsigned char *str = program_elf_section(buf, len, ".dynstr", &n_str);
    const unsigned char *dyn = program_elf_section(buf, len, ".dynamic", &n_dyn);
    if (!sym || !str || !dyn || !n_str) return false;
    bool cudart = false;
    for (size_t at = 0; at + sizeof(Elf64_Dyn) <= n_dyn; at += sizeof(Elf64_Dyn)) {
        Elf64_Dyn d;
        memcpy(&d, dyn + at, sizeof d);
        if (d.d_tag == DT_NULL) break;
        if (d.d_tag != DT_NEEDED) continue;
        size_t k;
        const char *lib = string_at(str, n_str, d.d_un.d_val, &k);
        if (!lib || !plain_library(lib)) return false;
        cudart = cudart || starts(lib, "libcudart.so");
    }
    if (!cudart) return false;      /* the runtime linked in, or none: its calls cannot be seen */
    for (size_t at = 0; at + sizeof(Elf64_Sym) <= n_sym; at += sizeof(Elf64_Sym)) {
        Elf64_Sym s;
        memcpy(&s, sym + at, sizeof s);
        if (s.st_shndx != SHN_UNDEF || !s.st_name) continue;
        size_t k;
        const char *name = string_at(str, n_str, s.st_name, &k);
        if (!name || more_streams(name, k)) return false;
    }
    return true;
}

/* `exe` mapped read-only (*len bytes), or NULL when it is not a regular
 * file that maps. */
static void *map_image(const char *exe, size_t *len) {
    int fd = open(exe, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0) return NULL;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0) {
        close(fd);
        return NULL;
    }
    *len = (size_t)st.st_size;
    void *map = mmap(NULL, *len, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    return map == MAP_FAILED ? NULL : map;
}

bool program_one_stream(const char *exe) {
    size_t len = 0;
    void *map = map_image(exe, &len);
    if (!map) return false;
    bool one = image_one_stream(map, len);
    munmap(map, len);
    return one;
}

char *program_driver_libraries(const char *exe) {
    size_t len = 0;
    void *map = map_image(exe, &len);
    if (!map) return NULL;
    char *libs = image_driver_libraries(map, len);
    munmap(map, len);
    return libs;
}
