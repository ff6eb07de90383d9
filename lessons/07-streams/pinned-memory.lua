-- pinned-memory: the chunked two-stream pipeline is given; its host buffers
-- come from malloc, so every async copy blocks the host and nothing
-- overlaps. The learner allocates them with cudaMallocHost. Checks: values,
-- per-chunk order, chunk c's copy in overlapping chunk c-1's kernel, nothing
-- on the legacy default stream.

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
  id = "pinned-memory",
  title = "Pinned or pageable: which copies can overlap",
  title_zh = "锁页内存还是可分页内存：哪些拷贝能重叠",
  source = "pinned-memory.cu",
  solution = "solutions/pinned-memory.cu",
  wrong = { "solutions/wrong/pinned-memory-inputs-only.cu" },
  timeout = 30,
  hints = {
    "Look at the timeline: every copy starts only after the one before it has ended, though "
      .. "they are on different streams. A copy to or from pageable memory holds the host until "
      .. "it is done, so nothing queued after it can start early. Both directions count.",
    "cudaMallocHost(&h_in[c], CHUNK_BYTES); cudaMallocHost(&h_out[c], CHUNK_BYTES); "
      .. "instead of the two malloc calls.",
  },
  hints_zh = {
    "看时间线：虽然在不同的流上，每次拷贝却都要等前一次结束才开始。和可分页内存之间的拷贝会把主机"
      .. "一直拖到拷贝结束，排在它后面的工作都没法提前开始。拷入和拷出两个方向都算。",
    "用 cudaMallocHost(&h_in[c], CHUNK_BYTES); cudaMallocHost(&h_out[c], CHUNK_BYTES); "
      .. "代替那两个 malloc。",
  },
  run = function(t)
    local H, why = replay(t, chunk_setup(t))
    if not H then t:fail(why) return end
    check_pipeline(t, H, function(x) return ref.scale(x, 2) end)
  end,
}
