-- nonblocking-streams: the chunked pipeline with a call the learner may not
-- change (a cudaMemset on the legacy default stream after each chunk). The
-- learner creates the streams with cudaStreamNonBlocking. Checks: the
-- library's memset still between every two chunks (moving it out of the
-- way is not the lesson; from the call trace), then hostcheck.pipeline
-- (work on stream 0 allowed: the memsets) and the values.

return {
  id = "nonblocking-streams",
  kind = "program",
  title = "Non-blocking streams: when stream 0 is not yours",
  title_zh = "非阻塞流：当 0 号流不归你管",
  source = "nonblocking-streams.cu",
  solution = "solutions/nonblocking-streams.cu",
  wrong = {
    "solutions/wrong/nonblocking-streams-moved.cu",
    "solutions/wrong/nonblocking-streams-copy-on-0.cu",
  },
  timeout = 60,
  hints = {
    "The barrier is a property of the legacy default stream and of the streams that block on "
      .. "it. You cannot change the call on stream 0, but you choose how your streams are created.",
    "cudaCheck(cudaStreamCreateWithFlags(&stream[c], cudaStreamNonBlocking)); for every chunk's stream.",
  },
  hints_zh = {
    "这道栅栏来自传统默认流，以及会被它阻塞的那些流。0 号流上的调用你改不了，但你自己的流怎么创建，由你决定。",
    "每个块的流都用 cudaCheck(cudaStreamCreateWithFlags(&stream[c], cudaStreamNonBlocking)); 创建。",
  },
  -- verify --mutants: mutants of the solution that are still correct
  mutants_equivalent = {
    { mutation = "loop bound < to <=", line = "acc = fmaf(acc, 0.5f, half)",
      why = "every step leaves acc equal to x[i] (x/2 + x/2 is exact): one more step changes only the time the kernel takes" },
    { mutation = "drop cudaDeviceSynchronize()", line = "// the warm-up is done",
      why = "the warm-up launch computes nothing (n = 0) and its errors are checked at the next synchronising call; waiting for it changes no result the exercise checks" },
  },
  run = function(t)
    local on_gpu = t:device().backend == "cuda"
    -- copy-bound on purpose (a chunk's copy takes longer than its kernel), so
    -- that every copy in but the first overlaps another chunk's kernel; and
    -- a chunk's copy takes much longer than the host needs to queue a chunk
    -- (4 calls). The emulator: 2^17 floats, a copy of about 11 us against a
    -- few us of modeled host time (the cost model's per call); 2^20 cost a
    -- second or more of verdict. A GPU: 2^22 floats (16 MiB), a copy of about
    -- 0.34 ms on the H200 (64 MiB took 1.3 ms: ~50 GB/s pinned); ITERS stays,
    -- so the kernel shrinks with the copy and the pipeline stays copy-bound.
    -- The least margin is the host's: ~40 us to queue a chunk under cudojo's
    -- call recorder (graph-replay's plain loop: 20 launches in 200-310 us),
    -- 8x inside the copy; but a host thread that loses its core for longer than
    -- a copy and a kernel (~0.5 ms here, ~2 ms at 2^24) queues a chunk late.
    -- hostcheck.pipeline logs one late chunk and fails two. 2^24 had late
    -- chunks too under grading (2 of 12 runs, sessions 11-12); 2^22 was tried
    -- before that rule and reverted after one. The sizes' cost is the host's,
    -- inside the timed program: 2^24 pinned, filled, validated and freed 512
    -- MiB (316-364 ms alone on the H200 per graded run, session 14; pinning
    -- runs at ~2 GB/s, session 13); 2^22 is 128 MiB: expected ~120 ms, ~55 of
    -- it pinning, ~2 of it the pipeline on the GPU. copy-on-0 fails on
    -- timing: its copy out, on stream 0 with an idle engine, starts ~30 us
    -- after the chunk's copy in was queued, long before the copy and the
    -- kernel after it end (~0.5 ms)
    local chunk = t:param("chunk", on_gpu and (1 << 22) or (1 << 17))
    local iters = t:param("iters", on_gpu and 1000 or 50)
    local r = t:program{ defines = { CHUNK = chunk, ITERS = iters } }
    local calls = hostcheck.calls(r)
    -- the chunks' launches are the last four (the warm-up comes first)
    local launches = hostcheck.launches(r, "busy")
    local first = #launches - 4
    for c = 1, first >= 0 and 3 or 0 do
      local found = false
      for i = launches[first + c].call + 1, launches[first + c + 1].call - 1 do
        if calls[i].fn == "cudaMemset" then found = true end
      end
      if not found then
        t:fail(string.format("legacy_library_call() is no longer between chunk %d and chunk %d: "
          .. "it stands for code you cannot change or move. Leave it in the loop and change how "
          .. "the streams are created", c - 1, c))
        return
      end
    end
    if not hostcheck.pipeline(t, r, { chunks = 4, kernel = "busy", allow_default = true }) then return end
    hostcheck.expect_values(t, r, { hostcheck.ramp_sum(4 * chunk) })
  end,
}
