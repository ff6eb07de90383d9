-- chunked-overlap: the learner turns a synchronous default-stream loop into
-- a chunked pipeline, one stream per chunk (cudaStreamCreate,
-- cudaMemcpyAsync, the launch's stream, cudaDeviceSynchronize). Checks:
-- values, per-chunk order (a kernel after its copy in, the copy out after
-- the kernel: catches a chunk split over two streams), each chunk's copy in
-- (but the first) overlapping another chunk's kernel, nothing on the legacy default stream,
-- and that host_main waits before it returns.

-- The host replay of chapters 06 and 07 is built into cudojo
-- (lua/prelude/host_replay.lua; see lua/API.md, `host`).
local replay, chunk_spec, check_pipeline = host.replay, host.chunk_spec, host.check_pipeline

return {
  id = "chunked-overlap",
  title = "Chunks on streams: copy one while computing another",
  title_zh = "分块上流：一块在拷贝，另一块在计算",
  source = "chunked-overlap.cu",
  solution = "solutions/chunked-overlap.cu",
  wrong = {
    "solutions/wrong/chunked-overlap-one-stream.cu",
    "solutions/wrong/chunked-overlap-split-streams.cu",
    "solutions/wrong/chunked-overlap-no-wait.cu",
    "solutions/wrong/chunked-overlap-waits-for-last.cu",
  },
  timeout = 30,
  hints = {
    "A stream is a queue that runs in order; different streams may run side by side. Chunk c's "
      .. "three steps depend on each other, so they share a stream; different chunks do not, "
      .. "so they get different streams. Nothing may wait on the way: cudaMemcpy waits.",
    "cudaStream_t stream[CHUNKS]; for (...) cudaStreamCreate(&stream[c]); then in the loop "
      .. "cudaMemcpyAsync(..., cudaMemcpyHostToDevice, stream[c]); launch_busy(d_in[c], "
      .. "d_out[c], stream[c]); cudaMemcpyAsync(..., cudaMemcpyDeviceToHost, stream[c]); and "
      .. "cudaDeviceSynchronize(); after the loop.",
  },
  hints_zh = {
    "流是一个按顺序执行的队列，不同的流可以并排运行。第 c 块的三个步骤彼此依赖，所以放在同一个流里；"
      .. "不同的块互不依赖，所以放进不同的流。一路上什么都不能等：cudaMemcpy 会等。",
    "cudaStream_t stream[CHUNKS]; for (...) cudaStreamCreate(&stream[c]); 循环里用 "
      .. "cudaMemcpyAsync(..., cudaMemcpyHostToDevice, stream[c]); launch_busy(d_in[c], "
      .. "d_out[c], stream[c]); cudaMemcpyAsync(..., cudaMemcpyDeviceToHost, stream[c]); "
      .. "循环结束后 cudaDeviceSynchronize();",
  },
  run = function(t)
    local H, why = replay(t, chunk_spec(t))
    if not H then t:fail(why) return end
    check_pipeline(t, H, function(x) return ref.scale(x, 2) end)
  end,
}
