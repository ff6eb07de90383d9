-- occupancy-limiter: sum3 declares a 48 KiB shared tile and uses 258
-- floats of it; on sm_90 four blocks fill an SM's shared memory (50%
-- theoretical occupancy). The learner predicts the limiter
-- (PREDICT_LIMITER) and sizes the tile to what it uses. Checks: the values
-- (CPU reference), the prediction against the limiter of the original
-- configuration (block 256, 49152 bytes of shared memory, the kernel's
-- registers from r.kernels: sm_90's limits, the rules of cuda_occupancy.h),
-- the learner's kernel reaching 75% theoretical occupancy (from its launch
-- record: block, static and dynamic shared memory, registers), and the
-- program's own cudaOccupancyMaxActiveBlocksPerMultiprocessor agreeing.
-- On the emulator the registers are unknown without a cubin (-1): 32 per
-- thread is assumed, as the emulator runtime's calculator does. The
-- verdict is those checks alone (on a GPU the registers are the cubin's).
-- After it (t:program's after =; never when grading), on a GPU with Nsight
-- Compute the program runs again under ncu and the launch's own figures
-- (sm__maximum_warps_per_active_cycle_pct, and the launch__occupancy_limit_*
-- of each resource) are logged, saying plainly when ncu disagrees with
-- the verdict.

-- sm_90 (H100/H200): per SM 2048 threads (64 warps), 32 blocks, 65536
-- registers (allocated per warp in units of 256), 228 KiB of shared memory
-- (allocated in units of 128 bytes, 1 KiB reserved per block).
local SM = { warps = 64, blocks = 32, regs = 65536, smem = 233472, reserved = 1024 }

local function ceil_to(v, u) return math.ceil(v / u) * u end

-- blocks per SM, occupancy and limiter of a launch, as cuda_occupancy.h computes them
local function occupancy(block, regs, smem)
  local wpb = math.ceil(block / 32)
  local by = {
    threads = SM.warps // wpb,
    blocks = SM.blocks,
    registers = regs > 0 and (SM.regs // ceil_to(regs * 32, 256)) // wpb or math.huge,
    shared = SM.smem // ceil_to(smem + SM.reserved, 128),
  }
  local best, limiter = math.huge, nil
  for _, k in ipairs{ "threads", "blocks", "registers", "shared" } do
    if by[k] < best then best, limiter = by[k], k end
  end
  return { blocks = best, occupancy = best * wpb / SM.warps, limiter = limiter, by = by }
end

local function describe(o)
  return string.format("%d blocks per SM by threads, %d by the block limit, %s by registers, %d by shared "
    .. "memory", o.by.threads, o.by.blocks, o.by.registers == math.huge and "any" or tostring(o.by.registers),
    o.by.shared)
end

return {
  id = "occupancy-limiter",
  kind = "program",
  title = "What limits occupancy? Predict it, then lift it",
  title_zh = "是什么限制了占用率？先预测，再解除",
  source = "occupancy-limiter.cu",
  solution = "solutions/occupancy-limiter.cu",
  wrong = {
    "solutions/wrong/occupancy-limiter-predicts-registers.cu",
    "solutions/wrong/occupancy-limiter-smaller-block.cu",
  },
  timeout = 120,
  hints = {
    "Work out each limit for one block of 256 threads: 2048 / 256 by threads, 32 by blocks, "
      .. "65536 / (256 x registers) by registers, 228 KiB / (tile + 1 KiB) by shared memory. The "
      .. "smallest wins. How many bytes is the tile, and how many of them does sum3 touch?",
    "The limiter is shared memory: set #define PREDICT_LIMITER \"shared\" and size the tile to "
      .. "what a block uses, #define TILE (BLOCK + 2); then 8 blocks of 256 threads fit.",
  },
  hints_zh = {
    "对一个 256 线程的线程块，把每项上限算出来：按线程 2048 / 256，按线程块数 32，按寄存器 "
      .. "65536 / (256 × 寄存器数)，按共享内存 228 KiB / (tile + 1 KiB)。最小的那个说了算。"
      .. "tile 有多少字节？sum3 实际用到其中多少？",
    "限制因素是共享内存：设 #define PREDICT_LIMITER \"shared\"，并把 tile 改成一个线程块实际用到的大小 "
      .. "#define TILE (BLOCK + 2)；这样 8 个 256 线程的线程块就都放得下。",
  },
  -- verify --mutants: mutants of the solution that are still correct
  mutants_equivalent = {
    { mutation = "weaken guard < to <=", line = "tile[t] = i < n ? x[i] : 0.0f;",
      why = "the program fixes its own size, N = 65536, a whole number of 256-thread blocks: no thread is past the end, so this guard is never false (the kernel exercises are where tails are checked)" },
    { mutation = "weaken guard < to <=", line = "i - 1 < n ? x[i - 1] : 0.0f;",
      why = "the program fixes its own size, N = 65536, a whole number of 256-thread blocks: no thread is past the end, so this guard is never false (the kernel exercises are where tails are checked)" },
    { mutation = "weaken guard < to <=", line = "if (i < n) y[i] = tile[t - 1] + tile[t] + tile[t + 1];",
      why = "the program fixes its own size, N = 65536, a whole number of 256-thread blocks: no thread is past the end, so this guard is never false (the kernel exercises are where tails are checked)" },
    { mutation = "drop guard", line = "if (i < n) y[i] = tile[t - 1] + tile[t] + tile[t + 1];",
      why = "the program fixes its own size, N = 65536, a whole number of 256-thread blocks: no thread is past the end, so this guard is never false (the kernel exercises are where tails are checked)" },
  },
  run = function(t)
    local on_gpu = t:device().backend == "cuda"
    local n = t:param("n", on_gpu and (1 << 24) or (1 << 16))
    local target = t:param("target", 0.75)
    -- cudojo's figure the verdict checked, for what ncu says after it (nil: not reached)
    local computed
    -- After the verdict (Nsight Compute's own start is ~2 s on the H200, and a class's grading
    -- runs none: one profiled process per GPU at a time), a second run under ncu gives the launch's
    -- own occupancy figures. On the emulator, or without ncu, prof.available is false.
    local function after(prof)
      if not prof.available then
        if on_gpu then t:log("ncu did not run (%s): theoretical occupancy is cudojo's computation", prof.reason) end
        return
      end
      local measured
      for _, kp in ipairs(prof.kernels) do if kp.name == "sum3" then measured = kp end end
      local th = measured and measured.metrics["sm__maximum_warps_per_active_cycle_pct"]
      if type(th) ~= "number" then t:log("ncu ran but did not report sum3's theoretical occupancy") return end
      local lim, by = nil, math.huge
      for _, key in ipairs{ "warps", "blocks", "registers", "shared_mem" } do
        local v = measured.metrics["launch__occupancy_limit_" .. key]
        if type(v) == "number" and v < by then lim, by = key, v end
      end
      local ok = th >= 100 * target - 0.5
      t:log("ncu: sum3's theoretical occupancy is %.1f%% (at least %.0f%% wanted)%s%s", th, 100 * target,
        lim and string.format("; its tightest limit is %s, %d blocks per SM", lim, by) or "",
        computed and math.abs(th - 100 * computed) > 1 and string.format(": ncu disagrees with the verdict's "
          .. "computation (%.0f%%); the verdict was cudojo's", 100 * computed)
        or not ok and ": below the target; size the tile to what a block uses" or "")
    end
    local r = t:program{ defines = { N = n }, profile = "ncu", after = after }
    if on_gpu and t:grading() then
      t:log("graded without Nsight Compute (one profiled process per GPU at a time): theoretical occupancy "
        .. "is cudojo's computation from the launch record")
    end
    if not hostcheck.expect_values(t, r, { 3 * hostcheck.ramp_sum(n) / 2 - 1023 / 1024 }) then return end
    local k
    for _, kr in ipairs(r.kernels) do
      if kr.name == "sum3" or kr.name:find("^sum3%(") then k = kr end
    end
    if not k then t:fail("the program did not launch sum3") return end
    local regs = k.registers or -1
    local assumed = regs <= 0
    if assumed then regs = 32 end
    local predicted = r.stdout:match("PREDICT: limiter=([^\n]*)")
    local before = occupancy(256, regs, 49152)
    if not predicted or predicted == "?" then
      t:fail("PREDICT_LIMITER is not set: work out what limits sum3's blocks per SM and write it "
        .. "(\"threads\", \"blocks\", \"registers\" or \"shared\")")
      return
    end
    if predicted ~= before.limiter then
      t:fail(string.format("you predicted %s, but the original sum3 (256 threads, a 48 KiB tile, %d "
        .. "registers%s) is limited by %s: %s", predicted, regs, assumed and " assumed" or "",
        before.limiter, describe(before)))
      return
    end
    local block = k.block[1] * k.block[2] * k.block[3]
    local smem = math.max(k.shared_static or 0, 0) + (k.shared or 0)
    local now = occupancy(block, regs, smem)
    computed = now.occupancy
    t:expect(now.occupancy >= target, string.format(
      "sum3 with %d threads, %d bytes of shared memory and %d registers%s: %d blocks per SM, %.0f%% "
      .. "theoretical occupancy (at least %.0f%% wanted; limited by %s)", block, smem, regs,
      assumed and " (assumed)" or "", now.blocks, 100 * now.occupancy, 100 * target, now.limiter))
    local said = hostcheck.number(r, "blocks per SM: (%d+)")
    if said and said ~= now.blocks then
      t:fail(string.format("the runtime's occupancy calculator said %d blocks per SM, cudojo's "
        .. "computation %d: %s", said, now.blocks, describe(now)))
    end
  end,
}
