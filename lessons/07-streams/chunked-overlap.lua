-- chunked-overlap: the learner turns a synchronous default-stream loop into
-- a chunked pipeline, one stream per chunk (cudaStreamCreate,
-- cudaMemcpyAsync, the launch's stream, cudaDeviceSynchronize). Checks:
-- values, per-chunk order (a kernel after its copy in, the copy out after
-- the kernel: catches a chunk split over two streams), the copy of chunk c
-- overlapping the kernel of chunk c-1, nothing on the legacy default stream,
-- and that host_main waits before it returns.

-- The host replay of chapters 06 and 07 is built into cudojo
-- (lua/prelude/host_replay.lua; see lua/API.md, `host`).
local replay, entry, check_outputs = host.replay, host.entry, host.check_outputs

-- Chapter 7's checks: the values, every chunk's copy in -> kernel -> copy out
-- in order, chunk c's copy in overlapping chunk c-1's kernel, nothing on the
-- legacy default stream.
local function chunk_setup(t)
  local on_gpu = t:device().backend == "cuda"
  local chunk = t:param("chunk", on_gpu and (1 << 24) or 32768)
  -- copy-bound on purpose (a chunk's copy takes longer than its kernel), so
  -- that the copy of chunk c overlaps the kernel of chunk c-1
  local iters = t:param("iters", on_gpu and 1000 or 300)
  return { defines = { CHUNK = chunk }, kernels = {
    [20] = { name = "busy", block = 256, args = function(m) return { gpu.i32(m), gpu.i32(iters) } end } } }
end

local function check_pipeline(t, H, want_of, allow_default)
  local on_gpu = t:device().backend == "cuda"
  local unit = on_gpu and "" or " (modeled)"
  if not check_outputs(t, H, want_of) then return false end
  local tl = t:timeline()
  local chunks = {}
  for c, l in ipairs(H.launches) do
    local ch = { kernel = entry(tl, l.entry) }
    for _, cp in ipairs(H.copies) do
      if cp.h2d and cp.array == l.x then ch.h2d = entry(tl, cp.entry) end
      if not cp.h2d and cp.array == l.y then ch.d2h = entry(tl, cp.entry) end
    end
    chunks[c] = ch
    local function ends(e) return e.start_us + e.dur_us end
    if ch.h2d and ch.kernel.start_us < ends(ch.h2d) - 1e-6 then
      t:fail(string.format("the kernel of chunk %d started at %.1f us%s, before its input had "
        .. "arrived (%.1f us): nothing orders two streams. Queue a chunk's copy in, kernel and "
        .. "copy out on the same stream", c - 1, ch.kernel.start_us, unit, ends(ch.h2d)))
      return false
    end
    if ch.d2h.start_us < ends(ch.kernel) - 1e-6 then
      t:fail(string.format("the copy of chunk %d's result started at %.1f us%s, before its kernel "
        .. "had finished (%.1f us): queue it on the kernel's stream", c - 1, ch.d2h.start_us,
        unit, ends(ch.kernel)))
      return false
    end
  end
  local ok = true
  for c = 2, #chunks do
    ok = t:expect_overlap(chunks[c].h2d, chunks[c - 1].kernel, string.format(
      "the copy of chunk %d overlaps the kernel of chunk %d", c - 1, c - 2)) and ok
  end
  if not allow_default then
    ok = t:expect_no_default_stream_work("no work on the legacy default stream") and ok
  end
  if not ok and #H.pageable_copies > 0 then
    t:log("pageable host memory (malloc) in the copies of %s: each such copy keeps the host "
      .. "until it is done, so nothing issued after it can overlap it", table.concat(H.pageable_copies, ", "))
  end
  local first, last, busy_us = math.huge, 0, 0
  for _, ch in ipairs(chunks) do
    for _, e in ipairs{ ch.h2d, ch.kernel, ch.d2h } do
      first = math.min(first, e.start_us)
      last = math.max(last, e.start_us + e.dur_us)
      busy_us = busy_us + e.dur_us
    end
  end
  t:log("%d chunks in %.1f us%s; one after another they would take %.1f us", #chunks,
    last - first, unit, busy_us)
  return ok
end

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
    local H, why = replay(t, chunk_setup(t))
    if not H then t:fail(why) return end
    check_pipeline(t, H, function(x) return ref.scale(x, 2) end)
  end,
}
