/* kernels/cubin_info.h: per-kernel resources read from a CUDA cubin.
 *
 * ptxas prints registers, stack frame and shared memory with -v, but NVRTC
 * hands that log back only when ptxas actually ran: with a driver installed,
 * a PTX compiled before is served from the driver's compute cache and the
 * log is empty (NVIDIA/cuda-python#1124). The cubin always carries the same
 * numbers, so they are read from it:
 *
 *   registers      EIATTR_REGCOUNT (0x2f) in section .nv.info: u32 symbol
 *                  index into .symtab, u32 registers per thread
 *                  (= ptxas "Used N registers").
 *   local_bytes    EIATTR_FRAME_SIZE (0x11) in .nv.info: u32 symbol index,
 *                  u32 bytes (= ptxas "N bytes stack frame").
 *   shared_static  the size of section .nv.shared.<kernel>, 0 when there is
 *                  none. From sm_90 on the cubin also has a section
 *                  .nv.shared.reserved.0, and then every .nv.shared.<kernel>
 *                  starts with the 1 KiB the system reserves per block, so
 *                  ptxas's "N bytes smem" is the size less 1024 (a kernel
 *                  with no shared at all may have no section: 0). Without
 *                  that marker (sm_75 .. sm_89) the size is exact. Checked
 *                  against ptxas -v for sm_75, 80, 86, 87, 88, 89, 90, 100,
 *                  103, 110, 120, 121 with CUDA 12.9 and 13.0 cubins, with no
 *                  shared, one or several arrays, extern (dynamic) shared
 *                  only, dynamic plus static, 48 KiB, clusters and mbarriers;
 *                  tests/kernels/test_cubin_info.c keeps checking it against
 *                  every lesson solution.
 *
 * .nv.info holds records "u8 format, u8 attribute, value": EIFMT_SVAL (4)
 * is followed by a u16 size and that many bytes; EIFMT_NVAL (1), EIFMT_BVAL
 * (2) and EIFMT_HVAL (3) by a u16 (unused / u8 plus pad / u16), 4 bytes in
 * all. A kernel is a FUNC symbol with STO_CUDA_ENTRY (0x10) in st_other.
 *
 * Every offset and size is checked against the buffer: a truncated or
 * scribbled cubin gives a Diag, never a read out of bounds. */
#ifndef CUDOJO_KERNELS_CUBIN_INFO_H
#define CUDOJO_KERNELS_CUBIN_INFO_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"

/* Bytes at the start of each kernel's shared window that sm_90+ cubins count in .nv.shared.<k>. */
#define CUBIN_SHARED_RESERVED 1024

typedef struct CubinKernel {
    char *name;                     /* the symbol: lowered (mangled) as in the PTX .entry */
    int registers;                  /* per thread; -1 when the cubin has no EIATTR_REGCOUNT */
    int local_bytes;                /* stack frame per thread; -1 when no EIATTR_FRAME_SIZE */
    int shared_static;              /* bytes of static __shared__; -1 when not understood */
} CubinKernel;

typedef struct CubinInfo {
    int arch;                       /* 90 for sm_90, from e_flags; 0 when unknown */
    int abi_version;                /* e_ident[EI_ABIVERSION]: 7 up to CUDA 12, 8 from 12.8/13 */
    bool has_reserved_shared;       /* true when .nv.shared.reserved.* is there (sm_90+) */
    CubinKernel *kernels;
    int n_kernels;
} CubinInfo;

/* Reads the kernels of `cubin` (`size` bytes). On error *out is NULL and the
 * Diag (code "cubin") says what is wrong with the file. Caller frees *out. */
Diag *cubin_info_parse(const void *cubin, size_t size, CubinInfo **out);
void cubin_info_free(CubinInfo **info);
/* The kernel whose symbol is `name`, or NULL. */
const CubinKernel *cubin_info_find(const CubinInfo *info, const char *name);

#endif
