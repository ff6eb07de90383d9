/* kernels/compile_internal.h: pieces of the compile path shared between
 * kernels/compile.c, kernels/compile_log.c, kernels/program_log.c,
 * kernels/doctor.c and the tests.
 * Not part of the engine's public interface (that is kernels/compile.h). */
#ifndef CUDOJO_KERNELS_COMPILE_INTERNAL_H
#define CUDOJO_KERNELS_COMPILE_INTERNAL_H

#include "base/diag.h"
#include "kernels/compile.h"

/* The toolkit include directory handed to NVRTC, or NULL. Static storage. */
const char *compile_cuda_include_dir(void);
/* How many NVRTC programs this process has compiled (tests check cache hits). */
unsigned long compile_nvrtc_runs(void);
/* Path of the cache file for `key` in `dir`; caller frees. */
char *compile_cache_path(const char *dir, const char *key);

/* Parses NVRTC's log: errors become the returned chain (code "compile",
 * learner's file:line:col with excerpt), warnings go to *warnings. When
 * nvrtc_rc is not success and no error could be parsed, the returned Diag
 * still says what failed (with the log's text). */
Diag *compile_log_parse(const char *log, const char *path, const char *source, int nvrtc_rc,
                        Diag **warnings);
/* Files one parsed entry `d` (not NULL; a single Diag): an error is
 * appended to *errors, anything else to *warnings, or freed when warnings
 * is NULL (the caller wants no warnings). */
void compile_route_diag(Diag **errors, Diag **warnings, Diag *d);
/* The Diag for a cubin build that failed after the PTX build worked (ptxas). */
Diag *compile_ptxas_failure(const char *log, const char *path, int arch, int nvrtc_rc);
/* Fills registers / shared / stack / spills of `kernels` from a ptxas -v log. */
void compile_ptxas_info(const char *log, KernelInfo *kernels, int n);
/* Fills the resources of `kernels` from a cubin build: spills (and, as a
 * fallback, everything else) from ptxas's -v log, which may be NULL (NVRTC
 * gives none when the driver's compute cache served the cubin), then
 * registers, stack frame and static shared from the cubin itself. Returns
 * why the cubin could not be read (the log's numbers then stand). */
Diag *compile_kernel_resources(const void *cubin, size_t cubin_size, const char *ptxas_log,
                               KernelInfo *kernels, int n);
/* compile_cuda that also hands back the cubin program's ptxas log (NULL on a
 * cache hit, without a cubin, or when NVRTC gave none). Caller frees it. */
Diag *compile_cuda_logged(const char *path, const char *source, const CompileOptions *opts,
                          CompiledModule **out, char **ptxas_log);
/* Every .entry name in the PTX; *out is an array the caller frees (and each name). */
int compile_ptx_entries(const char *ptx, char ***out);
/* "_Z10vector_addPKfS0_Pfi" → "vector_add", "_ZN2ns3fooEv" → "ns::foo";
 * anything not mangled is returned as is. Caller frees. */
char *compile_demangle(const char *lowered);

#endif
