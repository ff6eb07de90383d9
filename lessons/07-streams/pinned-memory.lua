-- pinned-memory: the chunked two-stream pipeline is given; its host buffers
-- come from malloc, so every async copy blocks the host and nothing
-- overlaps. The learner allocates them with cudaMallocHost. Checks
-- (hostcheck.pipeline): the copies are pinned (the timeline's flag), each
-- chunk in order, each copy in (but the first) overlapping another chunk's
-- kernel, nothing on the legacy default stream, the host waited; then the
-- values.

return {
  id = "pinned-memory",
  kind = "program",
  title = "Pinned or pageable: which copies can overlap",
  title_zh = "锁页内存还是可分页内存：哪些拷贝能重叠",
  source = "pinned-memory.cu",
  solution = "solutions/pinned-memory.cu",
  wrong = { "solutions/wrong/pinned-memory-inputs-only.cu" },
  timeout = 60,
  hints = {
    "Look at the timeline: every copy starts only after the one before it has ended, though "
      .. "they are on different streams. A copy to or from pageable memory holds the host until "
      .. "it is done, so nothing queued after it can start early. Both directions count.",
    "cudaCheck(cudaMallocHost(&h_in[c], chunk_bytes)); cudaCheck(cudaMallocHost(&h_out[c], "
      .. "chunk_bytes)); instead of the two malloc calls, and cudaFreeHost instead of free.",
  },
  hints_zh = {
    "看时间线：虽然在不同的流上，每次拷贝却都要等前一次结束才开始。和可分页内存之间的拷贝会把主机"
      .. "一直拖到拷贝结束，排在它后面的工作都没法提前开始。拷入和拷出两个方向都算。",
    "用 cudaCheck(cudaMallocHost(&h_in[c], chunk_bytes)); cudaCheck(cudaMallocHost(&h_out[c], "
      .. "chunk_bytes)); 代替那两个 malloc，并用 cudaFreeHost 代替 free。",
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
    if not hostcheck.pipeline(t, r, { chunks = 4, kernel = "busy" }) then return end
    hostcheck.expect_values(t, r, { hostcheck.ramp_sum(4 * chunk) })
  end,
}
