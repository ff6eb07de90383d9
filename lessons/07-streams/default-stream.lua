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
    -- a chunk's copy (about 11 us on the emulator, 1.3 ms on the H200) takes
    -- much longer than the host needs to queue a chunk (4 calls: a few us of
    -- modeled host time on the emulator, the cost model's per call). 2^17 floats
    -- on the emulator keep its verdict fast (2^20 cost a second or more)
    local chunk = t:param("chunk", on_gpu and (1 << 24) or (1 << 17))
    local iters = t:param("iters", on_gpu and 1000 or 50)
    local r = t:program{ defines = { CHUNK = chunk, ITERS = iters } }
    if not hostcheck.pipeline(t, r, { chunks = 4, kernel = "busy_add", memsets = true }) then return end
    hostcheck.expect_values(t, r, { hostcheck.ramp_sum(4 * chunk) })
  end,
}
