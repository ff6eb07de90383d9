-- nonblocking-streams: the chunked pipeline with a call the learner may not
-- change (a cudaMemset on the legacy default stream after each chunk). The
-- learner creates the streams with cudaStreamNonBlocking. Checks: values,
-- per-chunk order, overlap, and the library's memset still between every
-- two chunks (moving it out of the way is not the lesson).

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
  id = "nonblocking-streams",
  title = "Non-blocking streams: when stream 0 is not yours",
  title_zh = "非阻塞流：当 0 号流不归你管",
  source = "nonblocking-streams.cu",
  solution = "solutions/nonblocking-streams.cu",
  wrong = {
    "solutions/wrong/nonblocking-streams-moved.cu",
    "solutions/wrong/nonblocking-streams-copy-on-0.cu",
  },
  timeout = 30,
  hints = {
    "The barrier is a property of the legacy default stream and of the streams that block on "
      .. "it. You cannot change the call on stream 0, but you choose how your streams are created.",
    "cudaStreamCreateWithFlags(&stream[c], cudaStreamNonBlocking); for every chunk's stream.",
  },
  hints_zh = {
    "这道栅栏来自传统默认流，以及会被它阻塞的那些流。0 号流上的调用你改不了，但你自己的流怎么创建，由你决定。",
    "每个块的流都用 cudaStreamCreateWithFlags(&stream[c], cudaStreamNonBlocking); 创建。",
  },
  run = function(t)
    local H, why = replay(t, chunk_setup(t))
    if not H then t:fail(why) return end
    for c = 1, #H.launches - 1 do
      local found = false
      for _, at in ipairs(H.default_memset_at) do
        if at > H.launches[c].pos and at < H.launches[c + 1].pos then found = true end
      end
      if not found then
        t:fail(string.format("legacy_library_call() is no longer between chunk %d and chunk %d: "
          .. "it stands for code you cannot change or move. Leave it in the loop and change "
          .. "how the streams are created", c - 1, c))
        return
      end
    end
    check_pipeline(t, H, function(x) return ref.scale(x, 2) end, true)
  end,
}
