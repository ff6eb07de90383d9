/* kernels/fatbin.h: the fat binary nvcc embeds in a CUDA program — the PTX
 * and cubins of every architecture it was built for — read back so the
 * emulator runtime (kernels/emurt/) can run the program's own PTX.
 *
 * Layout (CUDA 13; read from real nvcc output, not from a specification):
 *
 *   wrapper (what __cudaRegisterFatBinary receives, section .nvFatBinSegment):
 *     u32 magic 0x466243b1, u32 version, u64 data (→ fatbin), u64 filename
 *   fatbin header (16 bytes): u32 magic 0xBA55ED50, u16 version,
 *     u16 header size, u64 size of the entries that follow
 *   entry header (header size ≥ 64 bytes), then its payload:
 *     +0  u16 kind (1 PTX, 2 ELF cubin)     +2  u16 version
 *     +4  u32 header size                   +8  u64 payload size (padded)
 *     +16 u32 compressed size               +24 u16 ptx minor, +26 u16 major
 *     +28 u32 arch (80 = sm_80)             +32 u32 name offset, +36 u32 name length
 *     +40 u64 flags (0x8000: zstd)          +56 u64 decompressed size
 *
 * CUDA 13's nvcc compresses PTX with zstd (the payload starts 28 b5 2f fd);
 * older toolkits used LZ4 (flag 0x2000), which is reported as unsupported.
 * Every offset and size is checked against the bytes given: a fat binary
 * is hostile input (`cudojo exec` runs any program), so a damaged one is a
 * Diag (code "fatbin"), never a read out of bounds. */
#ifndef CUDOJO_KERNELS_FATBIN_H
#define CUDOJO_KERNELS_FATBIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"

#define FATBIN_WRAPPER_MAGIC 0x466243b1u
#define FATBIN_MAGIC 0xBA55ED50u
#define FATBIN_KIND_PTX 1
#define FATBIN_KIND_ELF 2
#define FATBIN_FLAG_LZ4 0x2000ull
#define FATBIN_FLAG_ZSTD 0x8000ull
/* Decompressed payloads larger than this are refused (a lie in the header). */
#define FATBIN_MAX_DECOMPRESSED ((size_t)512 << 20)

typedef struct FatbinEntry {
    int kind;                       /* FATBIN_KIND_PTX, FATBIN_KIND_ELF, or another value */
    int arch;                       /* 80 = compute_80 / sm_80 */
    int ptx_major, ptx_minor;
    uint64_t flags;
    const unsigned char *payload;   /* into the buffer given to fatbin_parse */
    size_t payload_size;            /* bytes of payload (compressed size when compressed) */
    size_t decompressed_size;       /* 0 when not compressed */
    bool zstd, lz4;
    char name[128];                 /* the entry's object name ("vadd.cu"), may be "" */
} FatbinEntry;

typedef struct Fatbin {
    FatbinEntry *entries;
    int n_entries;
    size_t size;                    /* bytes of the whole fat binary, header included */
} Fatbin;

/* Parses the fat binary at `data` (at most `avail` bytes may be read).
 * On error *out is NULL. Caller frees *out with fatbin_free. */
Diag *fatbin_parse(const void *data, size_t avail, Fatbin **out);
void fatbin_free(Fatbin **fb);
/* The PTX entry to run: the highest arch ≤ max_arch, else the lowest; NULL
 * when there is no PTX. */
const FatbinEntry *fatbin_find_ptx(const Fatbin *fb, int max_arch);
/* The cubin for `arch` exactly, or NULL. */
const FatbinEntry *fatbin_find_elf(const Fatbin *fb, int arch);
/* The entry's bytes, decompressed; PTX comes NUL-terminated (the terminator
 * not counted in *len) with trailing padding removed. Caller frees *out. */
Diag *fatbin_entry_data(const FatbinEntry *e, unsigned char **out, size_t *len);

#endif
