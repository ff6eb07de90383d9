-- graph-update: REPLAYS replays of a one-kernel graph, replay r with
-- a = r + 1 (acc += a * x). The starter captures and instantiates a graph
-- per replay; the learner instantiates once and updates the instantiated
-- graph's kernel node (cudaGraphExecKernelNodeSetParams, or
-- cudaGraphExecUpdate with a new capture). Checks: the sum of acc against
-- the CPU reference (sum of 1..REPLAYS times the ramp's sum; every replay
-- with a = 1 gets its own message: the update did not reach the instance),
-- exactly one cudaGraphInstantiate, an update of the instance before every
-- replay but the first, REPLAYS graph launches.

local function sum_x(n) return hostcheck.ramp_sum(n) / 2 end

return {
  id = "graph-update",
  kind = "program",
  timed = false,   -- no check reads a time: when grading on a GPU it runs beside other untimed work
  title = "Change a graph's parameter without instantiating again",
  title_zh = "不重新实例化，就改掉图里的参数",
  source = "graph-update.cu",
  solution = "solutions/graph-update.cu",
  wrong = {
    "solutions/wrong/graph-update-graph-node.cu",
    "solutions/wrong/graph-update-host-variable.cu",
  },
  timeout = 60,
  hints = {
    "cudaGraphInstantiate makes a separate, executable copy of the graph. Change the copy (the "
      .. "cudaGraphExec_t), not the graph you captured, and not the variable your parameters "
      .. "pointed at: CUDA copies parameter values at the moment you set them.",
    "Before the loop: capture axpy once, cudaGraphInstantiate(&exec, graph, 0), and "
      .. "cudaGraphGetNodes(graph, &node, &count) with count = 1. In the loop: fill a "
      .. "cudaKernelNodeParams (func = (void *)axpy, gridDim, blockDim, kernelParams = args with "
      .. "&a), cudaCheck(cudaGraphExecKernelNodeSetParams(exec, node, &p)); then cudaGraphLaunch(exec, s).",
  },
  hints_zh = {
    "cudaGraphInstantiate 会为图做一份独立的、可执行的副本。要改的是这份副本（cudaGraphExec_t），"
      .. "而不是你捕获的那个图，也不是参数所指向的那个变量：CUDA 在你设置参数的那一刻就把参数值拷走了。",
    "循环之前：捕获一次 axpy，cudaGraphInstantiate(&exec, graph, 0)，再用 count = 1 调用 "
      .. "cudaGraphGetNodes(graph, &node, &count)。循环里：填好一个 cudaKernelNodeParams（func = "
      .. "(void *)axpy、gridDim、blockDim、kernelParams = 含 &a 的 args），"
      .. "cudaCheck(cudaGraphExecKernelNodeSetParams(exec, node, &p));，然后 cudaGraphLaunch(exec, s)。",
  },
  -- verify --mutants: mutants of the solution that are still correct
  mutants_equivalent = {
    { mutation = "weaken guard < to <=", line = "if (i < n) acc[i] += a * x[i];",
      why = "the program fixes its own size, N = 4096, a whole number of 256-thread blocks: no thread is past the end, so this guard is never false (the kernel exercises are where tails are checked)" },
    { mutation = "drop guard", line = "if (i < n) acc[i] += a * x[i];",
      why = "the program fixes its own size, N = 4096, a whole number of 256-thread blocks: no thread is past the end, so this guard is never false (the kernel exercises are where tails are checked)" },
  },
  run = function(t)
    local replays = t:param("replays", 8)
    local n = 4096
    local r = t:program{ defines = { REPLAYS = replays } }
    local want = replays * (replays + 1) / 2 * sum_x(n)
    local got = hostcheck.number(r, "sum of acc: ([%-%d%.]+)")
    if got and r.exit_code ~= 0 and math.abs(got - replays * sum_x(n)) < 1e-3 then
      t:fail(string.format("acc sums to %.4f: every replay ran with a = 1, so the new values never "
        .. "reached the graph that runs. cudaGraphInstantiate made an executable copy: setting the "
        .. "captured graph's node, or changing the variable the parameters pointed at, does not change "
        .. "it. Give the copy its new parameters (cudaGraphExecKernelNodeSetParams(exec, node, &p)) "
        .. "before each replay", got))
      return
    end
    if not hostcheck.expect_waited(t, r, "its result (h_acc)") then return end
    if not hostcheck.expect_values(t, r, { want }) then return end
    local insts = hostcheck.count(r, "cudaGraphInstantiate") + hostcheck.count(r, "cudaGraphInstantiateWithFlags")
    if insts ~= 1 then
      t:fail(string.format("cudaGraphInstantiate was called %d times for %d replays: instantiating "
        .. "checks and prepares the whole graph again each time. Instantiate once, before the loop, and "
        .. "update the instance's kernel node before each replay", insts, replays))
      return
    end
    local updates = hostcheck.count(r, "cudaGraphExecKernelNodeSetParams") + hostcheck.count(r, "cudaGraphExecUpdate")
    local launches = hostcheck.count(r, "cudaGraphLaunch")
    if launches ~= replays then
      t:fail(string.format("the graph was launched %d times, expected %d replays", launches, replays))
      return
    end
    t:expect(updates >= replays - 1, string.format("the instance was updated %d times before its %d replays",
      updates, replays))
  end,
}
