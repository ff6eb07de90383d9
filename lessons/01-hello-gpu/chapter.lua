-- Chapter 1: what a GPU is, how a kernel is launched, and the three lines
-- every CUDA kernel starts with (global index, bounds guard, grid-stride loop).
return {
  id = "hello-gpu",
  title = "Hello, GPU",
  title_zh = "你好，GPU",
  order = 1,
  exercises = { "hello-threads", "vector-add", "grid-stride" },
}
