-- mps-share: NRANKS copies of the learner's program run at once on one GPU
-- (t:program{ processes = 4, args = { "{process}", "{processes}" } }), like
-- the ranks of an MPI job; each must compute only its own share, with a
-- grid sized for it. The exercise runs them twice: time-sliced (mps = false)
-- and under MPS (mps = true: a private nvidia-cuda-mps-control daemon on a
-- GPU; on the emulator the cost model's view of one GPU shared by the
-- processes, labelled modeled); when grading, only under MPS. Checks: every rank's printed sum against
-- the CPU's sum of its share; every rank's kernels sized for its share (not
-- all of N); under MPS the ranks' kernels run side by side (most of them
-- overlap another rank's), where time slicing runs them one at a time; the
-- two spans are logged. Where MPS cannot start (no daemon) it says why and
-- checks the rest.

local RANKS = 4

-- On a GPU each rank launches its kernel GPU_REPS times, each of GPU_ITERS steps per element
-- (~80 us on the H200): the overlap check needs each rank's run long against the ranks' start
-- skew. The ranks start their GPU work together (the group's start barrier:
-- kernels/program_group.c), so that skew is small; before the barrier it was up to a few hundred
-- ms (their contexts) and this took 4000 repetitions (~0.3 s per rank, 16000 kernel records to
-- trace and sweep per run). On the H200 (session 16) with the barrier, the solution's kernels
-- beside another rank's under MPS: 998 of 1000 at 250 repetitions, 1999 of 2000 at 500, 4000 of
-- 4000 at 1000 (3965 of 4000 at 1000 without the barrier); the check needs half. 250 keeps the
-- workbench's two runs under a second. `--param reps=N --param iters=N` try others; on the
-- emulator the source's own defaults (EMU_REPS, EMU_ITERS), whose timeline is modeled and has no skew.
local GPU_REPS, GPU_ITERS = 250, 16384
local EMU_REPS, EMU_ITERS = 3, 8

local function ends(e) return e.start_us + e.dur_us end

-- the share of rank r: [first, first + n)
local function share(total, r, ranks)
  local first = total * r // ranks
  return first, total * (r + 1) // ranks - first
end

-- kernels of each process on the combined timeline, their span, and how
-- many overlap a kernel of another process: a sweep in start order (a GPU
-- run has thousands of kernels per rank, too many to compare pairwise)
local function concurrency(tl)
  local ks = {}
  for _, e in ipairs(tl.events) do
    if e.kind == "kernel" then ks[#ks + 1] = e end
  end
  table.sort(ks, function(a, b) return a.start_us < b.start_us end)
  local from, to, busy = math.huge, 0, 0
  local hit = {}
  -- forward: a kernel overlaps one that started no later, of another process,
  -- when that process's latest end so far is after its start
  local last_end = {}
  for i, k in ipairs(ks) do
    from, to, busy = math.min(from, k.start_us), math.max(to, ends(k)), busy + k.dur_us
    for p, e in pairs(last_end) do
      if p ~= k.process and e > k.start_us then hit[i] = true break end
    end
    last_end[k.process] = math.max(last_end[k.process] or 0, ends(k))
  end
  -- backward: or one that starts later, before it ends
  local next_start = {}
  for i = #ks, 1, -1 do
    local k = ks[i]
    if not hit[i] then
      for p, st in pairs(next_start) do
        if p ~= k.process and st < ends(k) then hit[i] = true break end
      end
    end
    next_start[k.process] = k.start_us
  end
  local shared = 0
  for i = 1, #ks do if hit[i] then shared = shared + 1 end end
  return { n = #ks, span = #ks > 0 and to - from or 0, busy = busy, shared = shared }
end

local function check_ranks(t, r, total)
  for i, rp in ipairs(r.processes) do
    local first, n = share(total, i - 1, RANKS)
    if rp.exit_code ~= 0 then
      t:log("rank %d:", i - 1)
      return hostcheck.expect_values(t, rp, { 0 })
    end
    local want = hostcheck.ramp_sum(first + n) - hostcheck.ramp_sum(first)
    for _, k in ipairs(rp.kernels) do
      local threads = k.grid[1] * k.grid[2] * k.grid[3] * k.block[1] * k.block[2] * k.block[3]
      if threads > 1.5 * n + 1024 then
        t:fail(string.format("rank %d of %d launched %s over %d threads, but its share is %d elements: "
          .. "%s. Size the grid for the share, (n + 255) / 256 blocks", i - 1, RANKS, k.name, threads, n,
          threads >= total and "every rank does (or launches for) the whole job, so each kernel fills the "
            .. "GPU and the ranks' kernels cannot run side by side even under MPS"
            or "its kernels are bigger than its work"))
        return false
      end
    end
    local got = hostcheck.number(rp, "sum of y: ([%d%.%-]+)")
    if got and math.abs(got - want) > 1e-3 + 1e-9 * want then
      t:fail(string.format("rank %d of %d printed sum %.4f, but its share (elements %d..%d of the ramp) "
        .. "sums to %.4f: each rank's input starts at element N*rank/nranks of the whole ramp", i - 1,
        RANKS, got, first, first + n - 1, want))
      return false
    end
    if not hostcheck.expect_values(t, rp, { want }) then return false end
  end
  return true
end

return {
  id = "mps-share",
  kind = "program",
  title = "Processes sharing one GPU: time slicing and MPS",
  title_zh = "多个进程共享一块 GPU：时间片轮转与 MPS",
  source = "mps-share.cu",
  solution = "solutions/mps-share.cu",
  wrong = {
    "solutions/wrong/mps-share-whole-grid.cu",
    "solutions/wrong/mps-share-no-offset.cu",
  },
  timeout = 180,
  hints = {
    "Every copy of the program gets the same code and a different argv: rank = atoi(argv[1]) of "
      .. "nranks = atoi(argv[2]). Rank r owns elements [N*r/nranks, N*(r+1)/nranks); it needs only "
      .. "those, and a kernel over only those leaves the rest of the GPU for the other ranks.",
    "int first = (int)((long long)N * rank / nranks); int n = (int)((long long)N * (rank + 1) / "
      .. "nranks) - first; then make_input(h_x, first, n), buffers of n floats, and "
      .. "work<<<(n + 255) / 256, 256>>>(d_x, d_y, n).",
  },
  hints_zh = {
    "程序的每个副本代码相同、argv 不同：rank = atoi(argv[1])，nranks = atoi(argv[2])。rank r 负责元素 "
      .. "[N*r/nranks, N*(r+1)/nranks)；它只需要这些元素，而只覆盖这些元素的核函数会把 GPU 的其余部分"
      .. "留给其他 rank。",
    "int first = (int)((long long)N * rank / nranks); int n = (int)((long long)N * (rank + 1) / "
      .. "nranks) - first; 然后 make_input(h_x, first, n)，分配 n 个 float 的缓冲区，并启动 "
      .. "work<<<(n + 255) / 256, 256>>>(d_x, d_y, n)。",
  },
  -- verify --mutants: mutants of the solution that are still correct
  mutants_equivalent = {
    { mutation = "loop bound < to <=", line = "acc = acc * 0.5f + v * 0.5f;",
      why = "acc starts at v, and acc/2 + v/2 is v again exactly: one more step changes only the time the kernel takes" },
  },
  run = function(t)
    local on_gpu = t:device().backend == "cuda"
    -- shares that do not start on a multiple of 1024: a rank that forgets its offset sums wrong
    -- on the H200 four shares of 2^16 elements (256 blocks of 256 each) fit on its 132 SMs together
    -- (8 such blocks per SM); ~80 us kernels repeated GPU_REPS times (the top of this file)
    local total = t:param("n", (1 << 18) + 6)
    local defines = { N = total, REPS = t:param("reps", on_gpu and GPU_REPS or EMU_REPS),
      ITERS = t:param("iters", on_gpu and GPU_ITERS or EMU_ITERS) }
    local unit = on_gpu and "" or " (modeled)"
    local runs = {}
    -- when grading, only the MPS run: every check is made there (each rank's sum and grid, the
    -- overlap); the time-sliced run only gives the span the log compares it with, and on a GPU it
    -- is the longer of the two (the ranks' kernels one at a time), alone on the GPU
    for _, mps in ipairs(t:grading() and { true } or { false, true }) do
      local r = t:program{ defines = defines, processes = RANKS, mps = mps, args = { "{process}", "{processes}" } }
      if not check_ranks(t, r, total) then return end
      runs[mps] = { r = r, c = concurrency(t:timeline()) }
    end
    local off, on = runs[false] and runs[false].c, runs[true].c
    if off then
      t:log("time slicing: %d kernels of %d ranks over %.1f us, %d of them beside another rank's%s",
        off.n, RANKS, off.span, off.shared, unit)
    end
    local mps = runs[true].r.mps
    if not mps.active then
      t:log("%s: the MPS run could not be compared", mps.why or "MPS did not run")
      return
    end
    t:log("MPS: the same kernels over %.1f us, %d of them beside another rank's%s", on.span, on.shared, unit)
    if on.shared < on.n // 2 then
      t:fail(string.format("under MPS only %d of the ranks' %d kernels ran beside another rank's kernel%s: "
        .. "they did not fit on the GPU together. Each rank's grid must cover its share only",
        on.shared, on.n, unit))
      return
    end
    if off and off.span > 0 and on.span > 0 then
      t:log("MPS ran the four ranks' kernels in %.0f%% of the time-sliced span%s", 100 * on.span / off.span, unit)
    end
  end,
}
