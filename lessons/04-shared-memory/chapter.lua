-- Chapter 4: threads of a block cooperating through shared memory and
-- __syncthreads: block reversal, tree reduction, a stencil with a halo,
-- tiled transpose (padding against bank conflicts) and tiled matrix multiply.
return {
  id = "shared-memory",
  title = "Shared memory and __syncthreads",
  title_zh = "共享内存与 __syncthreads",
  order = 4,
  exercises = { "block-reverse", "matrix-sum", "stencil-1d", "transpose-tiled", "matmul-tiled" },
}
