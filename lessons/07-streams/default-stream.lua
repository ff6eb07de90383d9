-- default-stream: the chunked pipeline with a cudaMemset (no stream: the
-- legacy default stream) and a cudaMemcpyAsync whose stream was left out
-- (0). Both serialise the streams. The learner moves them onto the chunk's
-- stream. Checks: values (outputs start as NaN, so a missing clear shows),
-- order per chunk, overlap, t:expect_no_default_stream_work.

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
  id = "default-stream",
  title = "The default stream serialises everything",
  title_zh = "默认流会把一切串行化",
  source = "default-stream.cu",
  solution = "solutions/default-stream.cu",
  wrong = {
    "solutions/wrong/default-stream-memset.cu",
    "solutions/wrong/default-stream-copy-out.cu",
    "solutions/wrong/default-stream-no-clear.cu",
  },
  timeout = 30,
  hints = {
    "Find the calls that end up on stream 0: one has no stream parameter at all, the other "
      .. "has one but was not given it. The timeline's default-stream row shows them.",
    "cudaMemsetAsync(d_out[c], 0, CHUNK_BYTES, s); and "
      .. "cudaMemcpyAsync(h_out[c], d_out[c], CHUNK_BYTES, cudaMemcpyDeviceToHost, s);",
  },
  hints_zh = {
    "找出最后落到 0 号流上的那两个调用：一个根本没有流参数，另一个有，但调用时没给。"
      .. "时间线上默认流那一行会显示它们。",
    "cudaMemsetAsync(d_out[c], 0, CHUNK_BYTES, s); 以及 "
      .. "cudaMemcpyAsync(h_out[c], d_out[c], CHUNK_BYTES, cudaMemcpyDeviceToHost, s);",
  },
  run = function(t)
    local spec = chunk_setup(t)
    spec.kernels[21] = { name = "busy_add", block = 256, args = spec.kernels[20].args }
    local H, why = replay(t, spec)
    if not H then t:fail(why) return end
    if not check_pipeline(t, H, function(x) return ref.scale(x, 2) end) and not H.memsets then
      t:log("busy_add adds to d_out, and cudaMalloc does not clear memory (cudojo fills it with "
        .. "NaN so that it shows): clear it first, on the chunk's stream")
    end
  end,
}
