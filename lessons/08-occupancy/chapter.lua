-- Chapter 8: occupancy, how many warps an SM keeps resident at once, and
-- what limits it: the block size, registers per thread (__launch_bounds__),
-- shared memory per block; and why higher occupancy is not always faster
-- (memory latency hidden by independent loads instead of more warps).
return {
  id = "occupancy",
  title = "Occupancy: what limits the warps on an SM",
  title_zh = "占用率：是什么限制了 SM 上的线程束",
  order = 8,
  exercises = { "predict-occupancy", "pick-block-size", "launch-bounds", "tile-size", "latency-hiding" },
}
