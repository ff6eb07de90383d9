-- um-perf: NVIDIA's UnifiedMemoryPerf table on the learner's own machine.
-- The program times, end to end (the host has filled x → the GPU computes →
-- the host has read the result), explicit copies, managed memory, managed +
-- prefetch and zero copy, for a read-once and a read-many kernel over three
-- sizes, prints the table and names each kernel's winner.
--
-- Checks: every row present with the CPU reference's checksum; each printed
-- time is what the program's own events measured for that row's runs
-- (cudaEventElapsedTime in the call trace); each row's runs really used its
-- strategy (copies in and out for explicit; page faults and no copies for
-- managed; prefetches and (almost) no faults for prefetch; no copies, no
-- prefetches, no faults, mapped host memory for zero copy; nothing moved
-- outside the timed part); the named winners are the fastest of the
-- learner's own numbers at the largest size. Times are modeled on the
-- emulator (kernels/emurt/README.md), measured on a GPU; no check depends
-- on which strategy wins.

local STRATEGIES = { "explicit", "managed", "prefetch", "zero-copy" }
local KERNELS = { { name = "read-once", fn = "read_once" }, { name = "read-many", fn = "read_many" } }

-- faults allowed where none are expected: 1% of the pages (a GPU counts
-- fault groups, and may fault on a page or two of a prefetched range)
local function tolerance(bytes) return math.max(2, bytes // (64 * 1024) // 100) end

local function mb(kib) return string.format("%.2f", kib / 1024) end

-- The rows of the table, in the order printed: { size, kernel, strategy, ms, checksum, line }.
local function parse_rows(out)
  local rows = {}
  for line in out:gmatch("[^\n]+") do
    local w = {}
    for word in line:gmatch("%S+") do w[#w + 1] = word end
    if #w == 5 and w[1]:find("^[%d%.]+$") and (w[2] == "read-once" or w[2] == "read-many") then
      rows[#rows + 1] = { size = w[1], kernel = w[2], strategy = w[3], ms = tonumber(w[4]),
        checksum = tonumber(w[5]) }
    end
  end
  return rows
end

local function row_name(row) return string.format("%s MB %s %s", row.size, row.kernel, row.strategy) end

-- Every timed run: { ms, from, to } with from/to the call indices of the
-- cudaEventRecord of its start and stop events (the run's calls lie between).
local function timed_runs(calls)
  local last_record, runs = {}, {}
  for i, c in ipairs(calls) do
    if (c.fn == "cudaEventRecord" or c.fn == "cudaEventRecordWithFlags") and c.rc == 0 then
      local e = c.args and c.args:match("event (%d+)")
      if e then last_record[tonumber(e)] = i end
    elseif c.fn == "cudaEventElapsedTime" and c.rc == 0 then
      local a = c.args or ""
      local ms = tonumber(a:match("&ms = ([%d%.eE+-]+)") or a:match("%-> ([%d%.eE+-]+) ms") or "")
      local e1, e2 = a:match("event (%d+), event (%d+)")
      local from, to = e1 and last_record[tonumber(e1)], e2 and last_record[tonumber(e2)]
      if ms and from and to and from < to then runs[#runs + 1] = { ms = ms, from = from, to = to } end
    end
  end
  return runs
end

local function is_copy(fn) return fn:find("^cudaMemcpy") ~= nil end

-- Calls after which the host knows the kernels queued before them are done.
local WAITS = { cudaDeviceSynchronize = true, cudaStreamSynchronize = true, cudaEventSynchronize = true,
  cudaMemcpy = true, cudaMemcpy2D = true }

-- What one timed run did: copies in and out, prefetches, launches of each kernel.
local function run_facts(calls, launch_of, run)
  local f = { copies = 0, ins = 0, outs = 0, prefetches = 0, launches = {}, waited = false }
  for i = run.from + 1, run.to - 1 do
    local c = calls[i]
    if c.rc == 0 and is_copy(c.fn) then
      f.copies = f.copies + 1
      local a = c.args or ""
      if a:find("HostToDevice", 1, true) or a:find("Default", 1, true) then f.ins = f.ins + 1 end
      if a:find("DeviceToHost", 1, true) or a:find("Default", 1, true) then f.outs = f.outs + 1 end
    elseif c.rc == 0 and c.fn == "cudaMemPrefetchAsync" then
      f.prefetches = f.prefetches + 1
    elseif launch_of[i] then
      f.launches[#f.launches + 1] = launch_of[i]
      f.waited = false
    end
    if c.rc == 0 and WAITS[c.fn] then f.waited = true end
  end
  return f
end

return {
  id = "um-perf",
  kind = "program",
  title = "Which memory wins? Copies, managed, prefetch and zero copy, measured",
  title_zh = "谁更快？显式拷贝、托管内存、预取与零拷贝的实测对比",
  source = "um-perf.cu",
  solution = "solutions/um-perf.cu",
  wrong = {
    "solutions/wrong/um-perf-prefetch-late.cu",
    "solutions/wrong/um-perf-labels.cu",
    "solutions/wrong/um-perf-untimed-copy.cu",
    "solutions/wrong/um-perf-guess.cu",
  },
  timeout = 120,
  -- Timed (the default), though its checks read its times only against its own events and table:
  -- untimed, a grader would stop it (SIGSTOP) while another's timed section runs, between any two
  -- of its own clock readings; and its whole run (~27 s on the H200) held shared made every timed
  -- section of the node wait for it (session 10). Alone from its first GPU work: ~7 s per run at the
  -- sizes of sessions 10-12, hence the smaller ones now (below).
  hints = {
    "Prefetch: cudaMemPrefetchAsync(x, bytes, gpu, 0, 0) and the same for out before the launch, "
      .. "cudaMemPrefetchAsync(out, out_bytes, cpu, 0, 0) after it, then cudaDeviceSynchronize() before "
      .. "read_result. Zero copy: cudaHostAlloc(&h_x, bytes, cudaHostAllocMapped) (and h_out), "
      .. "cudaHostGetDevicePointer for the kernel's view of each, launch on those, synchronize, read h_out.",
    "Everything a run moves must move between timer_start() and timer_stop(): that is the trip the "
      .. "table compares. The winner is the strategy with the smallest ms at the largest size; compute it "
      .. "from the times you printed (keep them in an array) rather than typing a name, so it stays true "
      .. "on any machine.",
  },
  hints_zh = {
    "预取：在启动核函数之前调用 cudaMemPrefetchAsync(x, bytes, gpu, 0, 0)，out 也一样；启动之后调用 "
      .. "cudaMemPrefetchAsync(out, out_bytes, cpu, 0, 0)，再在 read_result 之前 cudaDeviceSynchronize()。"
      .. "零拷贝：cudaHostAlloc(&h_x, bytes, cudaHostAllocMapped)（h_out 同样），用 cudaHostGetDevicePointer "
      .. "取得核函数看到的指针，用它们启动，同步后读 h_out。",
    "每次运行要搬的数据都必须在 timer_start() 和 timer_stop() 之间搬：表格比较的就是这一整趟。"
      .. "获胜者是最大尺寸下 ms 最小的策略；用程序打印出的时间（存进数组）算出来，而不是手写一个名字，"
      .. "这样在任何机器上都成立。",
  },
  -- verify --mutants: mutants of the solution that are still correct
  mutants_equivalent = {
    { mutation = "weaken guard < to <=", line = "part[threadIdx.x] = i < n ? x[i] : 0.0f;",
      why = "the program fixes its own size, n = kib * 256, a whole number of 256-thread blocks: no thread is past the end, so this guard is never false (the kernel exercises are where tails are checked)" },
    { mutation = "weaken guard < to <=", line = "if (i < n) {",
      why = "the program fixes its own size, n = kib * 256, a whole number of 256-thread blocks: no thread is past the end, so this guard is never false (the kernel exercises are where tails are checked)" },
    { mutation = "drop guard", line = "if (i < n) {",
      why = "the program fixes its own size, n = kib * 256, a whole number of 256-thread blocks: no thread is past the end, so this guard is never false (the kernel exercises are where tails are checked)" },
  },
  run = function(t)
    local on_gpu = t:device().backend == "cuda"
    local reads = t:param("reads", 8)
    -- on the emulator 16 KiB to 256 KiB (still 4 managed pages per array at
    -- the largest, where a late prefetch faults past the tolerance), each
    -- run once (its times are modeled): 4 MB twice cost some 9 s
    -- on a GPU 1, 4 and 16 MiB (256 managed pages of 64 KiB at the largest, where a late prefetch
    -- faults far past the tolerance of 2), three runs each (two when grading): every check above
    -- holds at any size (none depends on which strategy wins), and the differences the table
    -- teaches are plain at 16 MiB (H200: read-many explicit 0.60 ms, prefetch 0.99, zero copy 2.x,
    -- managed 3.45). H200, the solution alone: 6.4 s at 4, 32 and 256 MiB (before session 13),
    -- 1.25 s at 1, 8 and 64 MiB twice, 0.57 s at 1, 4 and 16 MiB twice. The whole run is alone on
    -- the GPU from its first copy, so grading's serial time per submission follows the same sizes.
    local grading = on_gpu and t:grading()
    local reps = t:param("reps", grading and 2 or on_gpu and 3 or 1)
    local sizes = on_gpu and { 1024, 4096, 16384 } or { 16, 64, 256 }   -- KiB
    local args = { reads, reps }
    for _, s in ipairs(sizes) do args[#args + 1] = s end
    local r = t:program{ args = args }
    if not t:expect_exit(r) then return end
    local unit = on_gpu and "" or " (modeled)"
    local largest = mb(sizes[#sizes])

    -- the table: every size x kernel x strategy once, with the CPU reference's checksum
    local rows = parse_rows(r.stdout)
    local seen, in_group = {}, {}
    for _, row in ipairs(rows) do
      local key = row_name(row)
      if seen[key] then
        t:fail(string.format("the table has two rows for %s: print each measurement once", key))
        return
      end
      seen[key] = row
      -- its input: the program's row counter, which counts the four strategies of a size and kernel in turn
      local group = row.size .. " " .. row.kernel
      in_group[group] = (in_group[group] or 0) + 1
      row.pos = in_group[group]
    end
    for s, kib in ipairs(sizes) do
      for k, kern in ipairs(KERNELS) do
        for st, strategy in ipairs(STRATEGIES) do
          local key = string.format("%s MB %s %s", mb(kib), kern.name, strategy)
          local row = seen[key]
          if not row then
            t:fail(string.format("the table has no row for %s: every size needs all four strategies "
              .. "(explicit, managed, prefetch, zero-copy) for both kernels, as `size_mb kernel strategy "
              .. "ms checksum` lines", key))
            return
          end
          -- the program's input for row counter `seed` is x[i] = i % 16 + seed % 8
          local seed = ((s - 1) * 2 + (k - 1)) * 4 + (row.pos - 1)
          local n = kib * 256
          local want = (n * 7.5 + n * (seed % 8)) * (k == 1 and 1 or reads)
          if not row.checksum or math.abs(row.checksum - want) > 0.5 then
            t:fail(string.format("%s: checksum %s, but the CPU computes %.0f for this row's input: the "
              .. "kernel did not see the data the host filled in (or the host read the result before "
              .. "the GPU finished)", key, tostring(row.checksum), want))
            return
          end
          row.kib, row.k, row.seed = kib, k, seed
        end
      end
    end
    if #rows ~= #sizes * 8 then
      t:fail(string.format("the table has %d rows; expected %d (%d sizes x 2 kernels x 4 strategies)",
        #rows, #sizes * 8, #sizes))
      return
    end

    -- the printed times are what the program's events measured, run by run
    local calls = hostcheck.calls(r)
    local runs = timed_runs(calls)
    if #runs ~= #rows * reps then
      t:fail(string.format("the program timed %d runs with events, but %d rows x %d repetitions make %d: "
        .. "time every run once, with timer_start() after the host filled x and timer_stop() after it "
        .. "read the result", #runs, #rows, reps, #rows * reps))
      return
    end
    local launch_of = {}
    for _, kern in ipairs(KERNELS) do
      for _, l in ipairs(hostcheck.launches(r, kern.fn)) do launch_of[l.call] = { n = l.n, kernel = kern.fn } end
    end
    local um = r.um
    if not um.available then
      t:log("no page-fault counts on this machine (%s): the strategies are checked by their calls only",
        um.why or "?")
    end
    local inside = {}
    for _, run in ipairs(runs) do
      for i = run.from, run.to do inside[i] = true end
    end
    for i, c in ipairs(calls) do
      if not inside[i] and c.rc == 0 and (is_copy(c.fn) or c.fn == "cudaMemPrefetchAsync") then
        local kind = (c.args or ""):match("cudaMemcpy%a+")
        t:fail(string.format("the program calls %s%s outside the timed part of a run: everything a "
          .. "strategy moves belongs between timer_start() and timer_stop(), or the table compares "
          .. "kernels, not trips", c.fn, kind and " (" .. kind .. ")" or ""))
        return
      end
    end
    local first_mapped = nil
    for i, c in ipairs(calls) do
      if c.rc == 0 and (c.fn == "cudaHostAlloc" or c.fn == "cudaHostGetDevicePointer") then
        first_mapped = first_mapped or i
      end
    end

    for j, row in ipairs(rows) do
      local key = row_name(row)
      local lo, hi = math.huge, 0
      for rep = 1, reps do
        local run = runs[(j - 1) * reps + rep]
        lo, hi = math.min(lo, run.ms), math.max(hi, run.ms)
        local f = run_facts(calls, launch_of, run)
        local want_fn = KERNELS[row.k].fn
        if #f.launches == 0 then
          t:fail(string.format("%s: the timed run launched no kernel", key))
          return
        end
        for _, l in ipairs(f.launches) do
          if l.kernel ~= want_fn then
            t:fail(string.format("%s: the timed run launched %s, not %s: the row is labelled with the "
              .. "wrong kernel", key, l.kernel, want_fn))
            return
          end
        end
        if not f.waited then
          t:fail(string.format("%s: the host read the result without waiting for the kernel (no "
            .. "cudaDeviceSynchronize, stream synchronize or blocking cudaMemcpy between the launch and "
            .. "timer_stop): the kernel may still be running, and the time covers only the launch. "
            .. "Synchronize before read_result", key))
          return
        end
        -- faults: GPU page faults during its kernels; pulled: those plus the bytes that moved to the
        -- GPU on demand around them (on a GPU, CUPTI's records are placed by time: a fault group
        -- stamped just before the kernel's start counts as host time)
        local faults, pulled, bytes = 0, 0, row.kib * 1024
        if um.available then
          for _, l in ipairs(f.launches) do
            local ku, hu = um.kernels[l.n], um.host[l.n]
            faults = faults + (ku and ku.gpu_page_faults or 0)
            pulled = pulled + (ku and ku.gpu_page_faults + ku.h2d_bytes or 0) + (hu and hu.h2d_bytes or 0)
          end
        end
        local s = row.strategy
        if s == "explicit" then
          if f.ins == 0 or f.outs == 0 then
            t:fail(string.format("%s: a run made %d copies to the device and %d back: explicit means "
              .. "cudaMemcpy x in before the kernel and the result out after it", key, f.ins, f.outs))
            return
          end
        elseif f.copies > 0 then
          t:fail(string.format("%s: a run made %d cudaMemcpy: only the explicit strategy copies; this "
            .. "row must let the %s", key, f.copies,
            s == "zero-copy" and "kernel read mapped host memory in place"
              or "driver move managed pages (on demand or by prefetch)"))
          return
        end
        if s ~= "prefetch" and f.prefetches > 0 then
          t:fail(string.format("%s: a run calls cudaMemPrefetchAsync %d times: only the prefetch "
            .. "strategy prefetches (is the row labelled with the right strategy?)", key, f.prefetches))
          return
        end
        if s == "managed" and um.available and pulled == 0 then
          t:fail(string.format("%s: the kernel took no GPU page faults%s, so its data was not managed "
            .. "memory left on the host: allocate x and out with cudaMallocManaged and let the kernel "
            .. "fault them in (is the row labelled with the right strategy?)", key, unit))
          return
        end
        if s == "prefetch" then
          if f.prefetches == 0 then
            t:fail(string.format("%s: a run never calls cudaMemPrefetchAsync: this row measures plain "
              .. "managed memory again (or the row carries another strategy's name). Prefetch x and out to "
              .. "the GPU before the launch and out back before the host reads it", key))
            return
          end
          if um.available and faults > tolerance(bytes) then
            t:fail(string.format("%s: the kernel still took %d GPU page faults%s: the prefetch did not "
              .. "bring x to the GPU before the kernel ran. Queue the prefetches to the device before "
              .. "the launch", key, faults, unit))
            return
          end
        end
        if s == "zero-copy" then
          if not first_mapped or first_mapped > run.from then
            t:fail(string.format("%s: no cudaHostAlloc or cudaHostGetDevicePointer before the run: "
              .. "zero copy means the kernel reads page-locked host memory mapped for the GPU", key))
            return
          end
          if um.available and faults > tolerance(bytes) then
            t:fail(string.format("%s: the kernel took %d GPU page faults%s: its data is managed "
              .. "memory, not mapped pinned memory", key, faults, unit))
            return
          end
        end
      end
      if not row.ms or row.ms < lo * 0.98 - 6e-4 or row.ms > hi * 1.02 + 6e-4 then
        t:fail(string.format("%s: the table says %s ms, but the events measured %.4f to %.4f ms for "
          .. "its runs (cudaEventElapsedTime): print the time the events measured", key,
          tostring(row.ms), lo, hi))
        return
      end
    end

    -- the winners: the fastest strategy of each kernel at the largest size, by the program's own numbers
    for k, kern in ipairs(KERNELS) do
      local named = r.stdout:match("WINNER " .. kern.name:gsub("%-", "%%-") .. ":%s*([%w%-]+)")
      local best, times = nil, {}
      for _, st in ipairs(STRATEGIES) do
        local row = seen[string.format("%s MB %s %s", largest, kern.name, st)]
        times[#times + 1] = string.format("%s %.4f", st, row.ms)
        if not best or row.ms < best.ms then best = row end
      end
      local summary = table.concat(times, ", ")
      if not named then
        t:fail(string.format("the program names no winner for %s: print `WINNER %s: <strategy>` with the "
          .. "fastest strategy at %s MB (your numbers: %s ms%s)", kern.name, kern.name, largest, summary, unit))
        return
      end
      local row = seen[string.format("%s MB %s %s", largest, kern.name, named)]
      if not row then
        t:fail(string.format("WINNER %s: %s is not one of explicit, managed, prefetch, zero-copy: name the "
          .. "fastest at %s MB from your table (%s ms%s)", kern.name, named, largest, summary, unit))
        return
      end
      if row.ms > best.ms then
        t:fail(string.format("you named %s the winner for %s, but your own numbers at %s MB say %s "
          .. "(%s ms%s): name the strategy with the smallest time at the largest size", named, kern.name,
          largest, best.strategy, summary, unit))
        return
      end
      t:log("%s at %s MB: %s ms%s; winner %s", kern.name, largest, summary, unit, named)
    end
  end,
}
