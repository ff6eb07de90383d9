-- default-stream: the chunked pipeline with a cudaMemset (no stream: the
-- legacy default stream) and a cudaMemcpyAsync whose stream was left out
-- (0). Both serialise the streams. The learner moves them onto the chunk's
-- stream. Checks (hostcheck.pipeline with memsets): order per chunk, every
-- output cleared (busy_add adds to it: a GPU's fresh cudaMalloc memory is
-- often zero, so the values alone would not show a dropped clear), nothing
-- on the legacy default stream, overlap; then the values.

return {
  id = "default-stream",
  kind = "program",
  title = "The default stream serialises everything",
  title_zh = "默认流会把一切串行化",
  source = "default-stream.cu",
  solution = "solutions/default-stream.cu",
  wrong = {
    "solutions/wrong/default-stream-memset.cu",
    "solutions/wrong/default-stream-copy-out.cu",
    "solutions/wrong/default-stream-no-clear.cu",
  },
  timeout = 60,
  hints = {
    "Find the calls that end up on stream 0: one has no stream parameter at all, the other "
      .. "has one but was not given it. The timeline's default-stream row shows them.",
    "cudaCheck(cudaMemsetAsync(d_out[c], 0, chunk_bytes, s)); and "
      .. "cudaCheck(cudaMemcpyAsync(h_out[c], d_out[c], chunk_bytes, cudaMemcpyDeviceToHost, s));",
  },
  hints_zh = {
    "找出最后落到 0 号流上的那两个调用：一个根本没有流参数，另一个有，但调用时没给。"
      .. "时间线上默认流那一行会显示它们。",
    "cudaCheck(cudaMemsetAsync(d_out[c], 0, chunk_bytes, s)); 以及 "
      .. "cudaCheck(cudaMemcpyAsync(h_out[c], d_out[c], chunk_bytes, cudaMemcpyDeviceToHost, s));",
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
    -- it pinning, ~2 of it the pipeline on the GPU
    local chunk = t:param("chunk", on_gpu and (1 << 22) or (1 << 17))
    local iters = t:param("iters", on_gpu and 1000 or 50)
    local r = t:program{ defines = { CHUNK = chunk, ITERS = iters } }
    if not hostcheck.pipeline(t, r, { chunks = 4, kernel = "busy_add", memsets = true }) then return end
    hostcheck.expect_values(t, r, { hostcheck.ramp_sum(4 * chunk) })
  end,
}
