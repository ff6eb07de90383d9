-- Chapter 15: graphs and overheads. What a launch costs the host and the
-- GPU, many small kernels against one fused kernel, stream capture into a
-- CUDA graph and its replay, and updating an instantiated graph. Each
-- exercise is a whole CUDA program (kind = "program"); the checks read its
-- call trace, its timeline (modeled on the emulator: kernels/costmodel.h)
-- and its printed results against CPU references.
return {
  id = "graphs-and-overheads",
  title = "Graphs and overheads: launching less",
  title_zh = "图与开销：少启动一些",
  order = 15,
  exercises = { "launch-cost", "fuse-kernels", "graph-replay", "graph-update" },
}
