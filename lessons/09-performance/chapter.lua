-- Chapter 9: the CUDA performance guidelines, measured: coalescing (a strided
-- kernel to fix, array of structures vs structure of arrays), kernel fusion,
-- launch overhead (many tiny kernels vs one), and divergence inside a warp.
return {
  id = "performance",
  title = "Performance: memory access, launches, divergence",
  title_zh = "性能：访存、启动开销与分歧",
  order = 9,
  exercises = { "strided-access", "aos-soa", "fuse", "launch-overhead", "divergence" },
}
