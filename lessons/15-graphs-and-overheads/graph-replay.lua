-- graph-replay: one iteration of 20 tiny launches, run ITERS times one
-- launch at a time (given) and ITERS times as a CUDA graph (the learner
-- captures one iteration on stream s, instantiates it once and launches it
-- ITERS times). Checks: no capture spoiled by a wait (a refused call in
-- the trace), the values (CPU reference), one cudaGraphInstantiate, ITERS
-- cudaGraphLaunch calls, each launch ran the iteration's 20 kernels (the
-- timeline's kernel count), then the timeline: the median span of one
-- iteration launched kernel by kernel against one replay of the graph,
-- at least SPEEDUP times longer (modeled on the emulator: a launch costs
-- the host 2.5 us, a graph launch 2.5 us for all its nodes, kernel nodes
-- follow each other 0.25 us apart instead of 1 us).

local KERNELS = 20

local function median(v)
  table.sort(v)
  return v[(#v + 1) // 2]
end

local function ends(e) return e.start_us + e.dur_us end

-- the median span of consecutive groups of `size` entries of es[from..to]
local function group_span(es, from, to, size)
  local spans = {}
  for g = from, to - size + 1, size do spans[#spans + 1] = ends(es[g + size - 1]) - es[g].start_us end
  return median(spans)
end

return {
  id = "graph-replay",
  kind = "program",
  title = "Capture a loop into a graph and replay it",
  title_zh = "把循环捕获成图，再反复重放",
  source = "graph-replay.cu",
  solution = "solutions/graph-replay.cu",
  wrong = {
    "solutions/wrong/graph-replay-instantiate-each.cu",
    "solutions/wrong/graph-replay-one-node.cu",
    "solutions/wrong/graph-replay-sync-in-capture.cu",
  },
  timeout = 60,
  hints = {
    "While a stream captures, the kernels you launch on it are recorded into a graph, not run. "
      .. "Capture one call of iteration(d_x, s); instantiating is the expensive step (it checks "
      .. "and prepares every node), so do it once, before the loop.",
    "cudaGraph_t graph; cudaGraphExec_t exec; cudaCheck(cudaStreamBeginCapture(s, "
      .. "cudaStreamCaptureModeGlobal)); iteration(d_x, s); cudaCheck(cudaStreamEndCapture(s, "
      .. "&graph)); cudaCheck(cudaGraphInstantiate(&exec, graph, 0)); then in the loop "
      .. "cudaCheck(cudaGraphLaunch(exec, s)); and at the end cudaGraphExecDestroy and cudaGraphDestroy.",
  },
  hints_zh = {
    "流在捕获期间，你在它上面启动的核函数只会被记录进图里，并不会运行。捕获一次 iteration(d_x, s) 的调用；"
      .. "实例化才是昂贵的那一步（它要检查并准备每个节点），所以在循环之前只做一次。",
    "cudaGraph_t graph; cudaGraphExec_t exec; cudaCheck(cudaStreamBeginCapture(s, "
      .. "cudaStreamCaptureModeGlobal)); iteration(d_x, s); cudaCheck(cudaStreamEndCapture(s, "
      .. "&graph)); cudaCheck(cudaGraphInstantiate(&exec, graph, 0)); 然后在循环里 "
      .. "cudaCheck(cudaGraphLaunch(exec, s));，最后调用 cudaGraphExecDestroy 和 cudaGraphDestroy。",
  },
  -- verify --mutants: mutants of the solution that are still correct
  mutants_equivalent = {
    { mutation = "weaken guard < to <=", line = "if (i < n) x[i] += v;",
      why = "the program fixes its own size, N = 4096, a whole number of 256-thread blocks: no thread is past the end, so this guard is never false (the kernel exercises are where tails are checked)" },
    { mutation = "drop guard", line = "if (i < n) x[i] += v;",
      why = "the program fixes its own size, N = 4096, a whole number of 256-thread blocks: no thread is past the end, so this guard is never false (the kernel exercises are where tails are checked)" },
    { mutation = "drop cudaStreamSynchronize()", line = "// stream order would wait too",
      why = "the warm-up and the first loop run on s, and everything after them too, in stream order; only the wait before the copy to the host matters (expect_waited checks it)" },
  },
  run = function(t)
    local on_gpu = t:device().backend == "cuda"
    local unit = on_gpu and "" or " (modeled)"
    -- 3 iterations per path on the emulator, whose modeled spans are the same
    -- every iteration (the median of 3 is as good as of 20: 140 launches
    -- instead of 820, each a launch of the emulator). 20 on a GPU, the .cu's
    -- own default: the check with the least margin is the speedup, and on
    -- the H200 at 200 iterations one iteration took 197-313 us launched
    -- kernel by kernel (the host's pace under cudojo's call recorder) and
    -- 21.4-22.0 us as a graph, 9.0-14.2x against 1.3x wanted, in every
    -- graded run (session 14): a median of 20 groups per path has room for
    -- 10 disturbed ones. 200 spent ~40-60 ms of the timed program launching
    -- (279 ms alone on the GPU per graded run); 20 is expected at ~5 ms of
    -- launches, ~230 ms in all
    local iters = t:param("iters", on_gpu and 20 or 3)
    local speedup = t:param("speedup", on_gpu and 1.3 or 1.5)
    local r = t:program{ defines = { ITERS = iters } }
    local calls = hostcheck.calls(r)
    for _, c in ipairs(calls) do
      if c.error == "cudaErrorStreamCaptureUnsupported" or c.error == "cudaErrorStreamCaptureInvalidated"
          or c.error == "cudaErrorStreamCaptureImplicit" then
        t:fail(string.format("%s returned %s: while a stream captures, nothing runs on it, so there "
          .. "is nothing to wait for; CUDA refuses the wait and spoils the capture. Wait only after "
          .. "cudaStreamEndCapture (and after the graph's launches)", c.fn, c.error))
        return
      end
    end
    if not hostcheck.expect_waited(t, r, "its result (h_x)") then return end
    if not hostcheck.expect_values(t, r, { 4096 * (1 + 2 * iters) * KERNELS * (KERNELS + 1) / 2 }) then return end
    local captures = hostcheck.count(r, "cudaStreamBeginCapture")
    local insts = hostcheck.count(r, "cudaGraphInstantiate") + hostcheck.count(r, "cudaGraphInstantiateWithFlags")
    local glaunches = hostcheck.count(r, "cudaGraphLaunch")
    if captures == 0 or glaunches == 0 then
      t:fail("the second loop does not use a graph: capture one iteration on s (cudaStreamBeginCapture "
        .. "... cudaStreamEndCapture), instantiate it and launch it with cudaGraphLaunch")
      return
    end
    if insts ~= 1 then
      t:fail(string.format("cudaGraphInstantiate was called %d times: instantiating checks and prepares "
        .. "every node and costs far more than a launch. Capture and instantiate once, before the loop, "
        .. "and only launch the graph in it", insts))
      return
    end
    if glaunches ~= iters then
      t:fail(string.format("the graph was launched %d times; the loop has %d iterations: one "
        .. "cudaGraphLaunch each", glaunches, iters))
      return
    end
    -- the timeline: every add, by start time
    local adds = {}
    for _, e in ipairs(t:timeline().events) do
      if e.kind == "kernel" and (e.name == "add" or (e.name or ""):find("^add%(")) then adds[#adds + 1] = e end
    end
    table.sort(adds, function(a, b) return a.start_us < b.start_us end)
    local plain = (1 + iters) * KERNELS
    local per = (#adds - plain) / glaunches
    if per ~= KERNELS then
      t:fail(string.format("each cudaGraphLaunch ran %g kernel(s), one iteration launches %d: capture "
        .. "the whole of iteration(d_x, s), so that the graph replays the same work the loop did",
        per, KERNELS))
      return
    end
    local plain_us = group_span(adds, KERNELS + 1, plain, KERNELS)
    local graph_us = group_span(adds, plain + 1, #adds, KERNELS)
    t:expect(plain_us >= speedup * graph_us, string.format(
      "one iteration took %.1f us%s launched kernel by kernel, %.1f us%s as a graph: %.2fx (at least %gx wanted)",
      plain_us, unit, graph_us, unit, plain_us / math.max(graph_us, 1e-9), speedup))
    if on_gpu then
      local ls, gs = {}, {}
      for i, c in ipairs(calls) do
        if c.fn == "cudaGraphLaunch" then gs[#gs + 1] = r.calls[i].t_us end
        if c.fn == "cudaLaunchKernel" then ls[#ls + 1] = r.calls[i].t_us end
      end
      if #ls > 2 and #gs > 2 then
        t:log("the host: a launch every %.2f us in the plain loop, a graph launch (%d kernels) every %.2f us",
          (ls[#ls] - ls[1]) / (#ls - 1), KERNELS, (gs[#gs] - gs[1]) / (#gs - 1))
      end
    end
  end,
}
