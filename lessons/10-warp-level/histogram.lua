-- histogram: 256-bin byte histogram, first with global atomics, then
-- privatised per block in shared memory. Sizes: 100003 bytes on the emulator
-- (a partial last pass of the grid-stride loop), 2^28 + 7 on a GPU; blocks of
-- 192 threads (fewer than 256 bins, so zeroing needs a loop). Targets: the
-- shared kernel does its counting in shared memory (emulator: global atomic
-- traffic at most 256 bins per block) and, on a GPU, runs at least 1.5x as
-- fast as the global-atomic kernel.
return {
  id = "histogram",
  title = "Histogram: atomics, then privatised in shared memory",
  title_zh = "直方图：原子操作，再到共享内存私有化",
  source = "histogram.cu",
  solution = "solutions/histogram.cu",
  wrong = {
    "solutions/wrong/histogram-not-atomic.cu",
    "solutions/wrong/histogram-no-zero.cu",
    "solutions/wrong/histogram-no-sync.cu",
  },
  hints = {
    "hist[v] += 1 is three steps (load, add, store). atomicAdd(&hist[v], 1u) does them as "
      .. "one indivisible step, so no increment is lost when 32 threads hit the same bin.",
    "In histogram_shared: for (int b = threadIdx.x; b < BINS; b += blockDim.x) local[b] = 0; "
      .. "then __syncthreads(); count with atomicAdd(&local[data[i]], 1u); __syncthreads() "
      .. "again before the merge.",
    "The merge: for (int b = threadIdx.x; b < BINS; b += blockDim.x) if (local[b]) "
      .. "atomicAdd(&hist[b], local[b]); so each block sends at most 256 atomics to global memory.",
  },
  hints_zh = {
    "hist[v] += 1 其实是三步（读、加、写）。atomicAdd(&hist[v], 1u) 把它们变成一个不可分割的操作，"
      .. "32 个线程同时命中同一个桶也不会丢计数。",
    "在 histogram_shared 里：for (int b = threadIdx.x; b < BINS; b += blockDim.x) local[b] = 0; "
      .. "然后 __syncthreads()；用 atomicAdd(&local[data[i]], 1u) 计数；合并之前再来一次 __syncthreads()。",
    "合并：for (int b = threadIdx.x; b < BINS; b += blockDim.x) if (local[b]) "
      .. "atomicAdd(&hist[b], local[b]); 这样每个线程块最多向全局内存发 256 次原子操作。",
  },
  run = function(t)
    local dev = t:device()
    local on_gpu = dev.backend ~= "emu"
    local n = t:param("n", on_gpu and (1 << 28) + 7 or 100003)
    local block = 192
    local blocks = t:param("blocks", on_gpu and (dev.sm_count or 100) * 8 or 12)
    local data = gpu.array("u8", n, "data"):random{ lo = 0, hi = 255, seed = 71 }
    local want = ref.histogram(data, 256)
    t:log("%d bytes, %d blocks of %d threads (grid-stride)", n, blocks, block)

    local function run_one(name)
      local hist = gpu.array("u32", 256, "hist")
      local k = t:kernel(name)
      local launch = { grid = blocks, block = block, args = { data, gpu.i32(n), hist } }
      k:launch(launch)
      local ok = t:expect_equal(hist, want, { name = name .. ": hist" })
      return ok, k, launch, t:emu_metrics()
    end

    local ok_g, kg, lg = run_one("histogram_global")
    local ok_s, ks, ls, m = run_one("histogram_shared")
    if not (ok_g and ok_s) then return end

    if m then
      -- Every load of data[] is a global request; so is every global atomic.
      -- Counting in shared memory leaves about one request per warp and step
      -- of the loop, plus the merge (at most 256 atomics per block).
      local loads = (n + 31) // 32 + blocks * (block // 32)
      local extra = m.global_requests - loads
      local limit = blocks * 256 // 32 + blocks * (block // 32)
      t:log("(the data picks the bins, so atomics on hist[] and local[] scatter: the "
            .. "warnings about uncoalesced access and bank conflicts on those lines are the "
            .. "nature of a histogram)")
      t:log("histogram_shared: %d global requests for %d warp-loads of data; "
            .. "%d shared-memory requests", m.global_requests, loads, m.shared_requests)
      t:expect(m.shared_requests > 0 and extra <= limit, string.format(
        "histogram_shared sends about %d extra requests to global memory besides reading data "
          .. "(allowed: %d, the merge of 256 bins per block): count into the shared array "
          .. "local[] and touch hist[] only in the merge", extra, limit))
    else
      local ms_g = kg:time(lg)
      local ms_s = ks:time(ls)
      if ms_g and ms_s then
        local gbs = t:report_bandwidth{ bytes = n, ms = ms_s }
        t:log("global atomics: %.3f ms; shared (privatised): %.3f ms = %.0f GB/s; "
              .. "speed-up %.1fx (target: 1.5x)", ms_g, ms_s, gbs or 0, ms_g / ms_s)
        t:metric("speedup_vs_global", ms_g / ms_s, "x")
        t:expect(ms_g / ms_s >= 1.5, string.format("the privatised histogram is only %.2fx as "
          .. "fast as the global one; the target is 1.5x", ms_g / ms_s))
      end
    end
  end,
}
