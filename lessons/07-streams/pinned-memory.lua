-- pinned-memory: the chunked two-stream pipeline is given; its host buffers
-- come from malloc, so every async copy blocks the host and nothing
-- overlaps. The learner allocates them with cudaMallocHost. Checks: values,
-- per-chunk order, each copy in (but the first)
-- overlapping another chunk's kernel, nothing
-- on the legacy default stream.

-- The host replay of chapters 06 and 07 is built into cudojo
-- (lua/prelude/host_replay.lua; see lua/API.md, `host`).
local replay, chunk_spec, check_pipeline = host.replay, host.chunk_spec, host.check_pipeline

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
    local H, why = replay(t, chunk_spec(t))
    if not H then t:fail(why) return end
    check_pipeline(t, H, function(x) return ref.scale(x, 2) end)
  end,
}
