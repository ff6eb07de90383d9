-- launch-errors: a launch's own error comes from cudaGetLastError right
-- after it; cudaDeviceSynchronize returns cudaSuccess after a refused
-- launch (measured on the H200 with CUDA 13, and modeled so). The program
-- tries blocks of 2048, 1025, 1024 (and 256) threads. Checks, from its
-- printed lines against the rules: 2048 and 1025 are cudaErrorInvalidValue
-- at the launch (CUDA 13 on an H200 reports too many threads per block
-- as an invalid value), 1024 is cudaSuccess, the chosen block is 1024, and
-- the result equals the CPU's (3i + 1).

local WANT = { [2048] = "cudaErrorInvalidValue", [1025] = "cudaErrorInvalidValue", [1024] = "cudaSuccess" }

return {
  id = "launch-errors",
  kind = "program",
  timed = false,   -- no check reads a time: when grading on a GPU it runs beside other untimed work
  title = "Launch errors: ask right after the launch",
  title_zh = "启动错误：启动之后立刻询问",
  source = "launch-errors.cu",
  solution = "solutions/launch-errors.cu",
  wrong = { "solutions/wrong/launch-errors-peek.cu", "solutions/wrong/launch-errors-before.cu" },
  timeout = 60,
  hints = {
    "A refused launch never runs, so there is nothing for cudaDeviceSynchronize to report: the "
      .. "error sits in the runtime's last-error slot until someone asks.",
    "cudaError_t launch = cudaGetLastError(); right after fill<<<grid, block>>>(...). "
      .. "cudaPeekAtLastError would read the same slot without clearing it, and the 1025 error "
      .. "would still be there when the 1024 try asks.",
  },
  hints_zh = {
    "被拒绝的启动根本没有执行，所以 cudaDeviceSynchronize 没有什么可报告的：错误停在运行时的"
      .. "“最后错误”槽里，直到有人来问。",
    "在 fill<<<grid, block>>>(...) 之后立刻写 cudaError_t launch = cudaGetLastError();。"
      .. "cudaPeekAtLastError 读的是同一个槽，但不清除它：轮到 1024 那次询问时，1025 的错误还在。",
  },
  -- verify --mutants: mutants of the solution that are still correct
  mutants_equivalent = {
    { mutation = "drop cudaDeviceSynchronize()", line = "cudaError_t sync = cudaDeviceSynchronize();",
      why = "every error this program meets is a launch's own (cudaGetLastError reports it); fill never faults while it runs, so the synchronize always answers cudaSuccess" },
  },
  run = function(t)
    local n = t:param("n", 100000)
    local r = t:program{ defines = { N = n }, expect_errors = true }
    local seen = {}
    for block, launch, sync in r.stdout:gmatch("block%s+(%d+): launch (%S+), synchronize (%S+)") do
      seen[tonumber(block)] = { launch = launch, sync = sync }
    end
    for _, b in ipairs({ 2048, 1025, 1024 }) do
      local s = seen[b]
      if not s then
        t:fail(string.format("the program printed no line for block %d: keep the printf of every try "
          .. "(it stops at the first block that works)", b))
        return
      end
      if s.launch ~= WANT[b] then
        local why = WANT[b] == "cudaSuccess"
          and "a 1024-thread block is legal: an error here is left over from an earlier try (read it with the call that also clears it)"
          or "a block has at most 1024 threads, so this launch is refused at once; read its error right after the launch"
        t:fail(string.format("block %d: the program says the launch returned %s, but it returned %s: %s",
          b, s.launch, WANT[b], why))
        return
      end
      if s.sync ~= "cudaSuccess" then
        t:fail(string.format("block %d: cudaDeviceSynchronize said %s", b, s.sync))
        return
      end
    end
    local chosen = hostcheck.number(r, "chosen block: (%d+)")
    if chosen ~= 1024 then
      t:fail(string.format("the program chose block %s; the largest block that works is 1024", tostring(chosen)))
      return
    end
    hostcheck.expect_values(t, r, { 3 * n * (n - 1) // 2 + n })    -- the sum of 3i + 1
  end,
}
