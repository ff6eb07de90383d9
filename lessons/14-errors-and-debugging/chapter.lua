-- Chapter 14: errors and debugging. What a CUDA call says when it fails
-- (cudaError_t, cudaGetErrorName/String), launch errors read with
-- cudaGetLastError, faults that surface at the next synchronising call,
-- sticky errors that end the context, a cudaCheck macro; then a bug hunt:
-- six programs with the classic mistakes, found with the emulator's
-- findings (and compute-sanitizer on a GPU). Every exercise is a whole
-- program (kind = "program").
return {
  id = "errors-and-debugging",
  title = "Errors and debugging",
  title_zh = "错误与调试",
  order = 14,
  exercises = {
    "check-every-call", "launch-errors", "which-kernel-faulted", "sticky-error",
    "bug-out-of-bounds", "bug-missing-sync", "bug-shared-race", "bug-copy-direction",
    "bug-launch-limits", "bug-use-after-free",
  },
}
