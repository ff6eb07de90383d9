-- chunked-overlap: the learner turns a synchronous default-stream loop into
-- a chunked pipeline, one stream per chunk (cudaStreamCreate,
-- cudaMemcpyAsync, the launch's stream, cudaDeviceSynchronize). Checks
-- (hostcheck.pipeline): per-chunk order (a kernel after its copy in, the
-- copy out after the kernel: catches a chunk split over two streams),
-- nothing on the legacy default stream, each chunk's copy in (but the
-- first) overlapping another chunk's kernel, and the host waiting for every
-- stream before it reads the results (from the call trace: a program may
-- read h_out too early and still print the right sums on the emulator,
-- which runs every operation as it is queued); then the values.

return {
  id = "chunked-overlap",
  kind = "program",
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
  timeout = 60,
  hints = {
    "A stream is a queue that runs in order; different streams may run side by side. Chunk c's "
      .. "three steps depend on each other, so they share a stream; different chunks do not, "
      .. "so they get different streams. Nothing may wait on the way: cudaMemcpy waits.",
    "cudaStream_t stream[CHUNKS]; for (...) cudaCheck(cudaStreamCreate(&stream[c])); then in "
      .. "the loop cudaMemcpyAsync(..., cudaMemcpyHostToDevice, stream[c]); "
      .. "busy<<<grid, block, 0, stream[c]>>>(...); cudaMemcpyAsync(..., cudaMemcpyDeviceToHost, "
      .. "stream[c]); and cudaCheck(cudaDeviceSynchronize()); after the loop (cudaStreamDestroy "
      .. "at the end).",
  },
  hints_zh = {
    "流是一个按顺序执行的队列，不同的流可以并排运行。第 c 块的三个步骤彼此依赖，所以放在同一个流里；"
      .. "不同的块互不依赖，所以放进不同的流。一路上什么都不能等：cudaMemcpy 会等。",
    "cudaStream_t stream[CHUNKS]; for (...) cudaCheck(cudaStreamCreate(&stream[c])); 循环里用 "
      .. "cudaMemcpyAsync(..., cudaMemcpyHostToDevice, stream[c]); "
      .. "busy<<<grid, block, 0, stream[c]>>>(...); cudaMemcpyAsync(..., cudaMemcpyDeviceToHost, "
      .. "stream[c]); 循环结束后 cudaCheck(cudaDeviceSynchronize());（最后别忘了 cudaStreamDestroy）。",
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
    -- it pinning, ~2 of it the pipeline on the GPU. split-streams fails on
    -- timing: its kernel, on an idle stream, starts ~15 us after its copy was
    -- queued, long before the 0.34 ms copy ends
    local chunk = t:param("chunk", on_gpu and (1 << 22) or (1 << 17))
    local iters = t:param("iters", on_gpu and 1000 or 50)
    local r = t:program{ defines = { CHUNK = chunk, ITERS = iters } }
    if not hostcheck.pipeline(t, r, { chunks = 4, kernel = "busy" }) then return end
    hostcheck.expect_values(t, r, { hostcheck.ramp_sum(4 * chunk) })
  end,
}
