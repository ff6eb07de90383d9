-- split-devices: the learner splits y = 2 * x over every device the machine
-- has (cudaGetDeviceCount, cudaSetDevice before each device's allocations,
-- copies and launch), each device taking its own share. Run with 2 and with
-- 4 emulated devices (t:program{ devices = N }), and with the GPU's own
-- count on a GPU (one device on the H200: the split is then one share).
-- Checks: the program asks how many devices there are, every device ran a
-- kernel over about 1/ndev of the elements (not all of them), the values
-- (an N that no device count divides, so a lost remainder shows).

-- what each device launched: { [dev] = { launches, threads } }
local function per_device(r)
  local out = {}
  for _, k in ipairs(r.kernels) do
    local d = k.device or 0
    local e = out[d] or { launches = 0, threads = 0 }
    e.launches = e.launches + 1
    e.threads = e.threads + k.grid[1] * k.grid[2] * k.grid[3] * k.block[1] * k.block[2] * k.block[3]
    out[d] = e
  end
  return out
end

local function check_split(t, r, n, ndev, unit)
  if hostcheck.count(r, "cudaGetDeviceCount") == 0 then
    t:fail("the program never asks how many devices there are (cudaGetDeviceCount): a count written "
      .. "into the program is wrong on every other machine")
    return false
  end
  local per = per_device(r)
  for d = 0, ndev - 1 do
    if not per[d] then
      local used = {}
      for dd = 0, ndev - 1 do if per[dd] then used[#used + 1] = tostring(dd) end end
      t:fail(string.format("with %d devices, device %d launched no kernel (kernels ran on device%s %s): "
        .. "each device must take its share. cudaSetDevice(d) makes device d current; the "
        .. "allocations, copies and launch that follow go to it", ndev, d, #used == 1 and "" or "s",
        #used > 0 and table.concat(used, ", ") or "none"))
      return false
    end
  end
  local share = n / ndev
  for d = 0, ndev - 1 do
    if per[d].threads > 1.5 * share + 1024 then
      t:fail(string.format("with %d devices, device %d ran %d threads for %d elements: about %d (its "
        .. "share) would do. Every device computed the whole vector; give device d only the elements "
        .. "[N*d/ndev, N*(d+1)/ndev)", ndev, d, per[d].threads, n, math.floor(share)))
      return false
    end
  end
  local shares = {}
  for d = 0, ndev - 1 do shares[#shares + 1] = string.format("%d", per[d].threads) end
  t:log("%d device%s: threads launched per device %s%s", ndev, ndev == 1 and "" or "s",
    table.concat(shares, ", "), unit)
  return true
end

return {
  id = "split-devices",
  kind = "program",
  timed = false,   -- no check reads a time: when grading on a GPU it runs beside other untimed work
  title = "Split one job over every GPU",
  title_zh = "把一项工作分给每一块 GPU",
  source = "split-devices.cu",
  solution = "solutions/split-devices.cu",
  wrong = {
    "solutions/wrong/split-devices-two.cu",
    "solutions/wrong/split-devices-remainder.cu",
    "solutions/wrong/split-devices-whole.cu",
  },
  timeout = 90,
  hints = {
    "The runtime works on one device at a time: cudaSetDevice(d) makes device d current, and every "
      .. "cudaMalloc, cudaMemcpy and launch after it goes to device d. Ask cudaGetDeviceCount how many "
      .. "there are, then loop over them, each with its own d_x and d_y.",
    "begin[d] = (long long)N * d / ndev for d = 0..ndev gives shares that cover all N even when ndev "
      .. "does not divide it; device d copies h_x + begin[d], launches over n = begin[d+1] - begin[d] "
      .. "elements, and copies its y back to h_y + begin[d].",
  },
  hints_zh = {
    "运行时一次只对一个设备工作：cudaSetDevice(d) 让设备 d 成为当前设备，之后的每个 cudaMalloc、"
      .. "cudaMemcpy 和核函数启动都发往设备 d。先用 cudaGetDeviceCount 问有几个设备，再逐个循环，"
      .. "每个设备有自己的 d_x 和 d_y。",
    "对 d = 0..ndev 取 begin[d] = (long long)N * d / ndev，即使 ndev 不能整除 N，各份也能覆盖全部 N "
      .. "个元素；设备 d 拷贝 h_x + begin[d]，在 n = begin[d+1] - begin[d] 个元素上启动核函数，"
      .. "再把它的 y 拷回 h_y + begin[d]。",
  },
  run = function(t)
    local on_gpu = t:device().backend == "cuda"
    -- not a multiple of 2, 3 or 4: a share rounded down loses elements
    -- (2^16 + 3 on the emulator, run twice: with 2 and with 4 devices)
    local n = t:param("n", on_gpu and (1 << 24) + 3 or (1 << 16) + 3)
    if on_gpu then
      local r = t:program{ defines = { N = n } }
      if r.exit_code ~= 0 then return hostcheck.expect_values(t, r, { hostcheck.ramp_sum(n) }) end
      local ndev = hostcheck.number(r, "devices: (%d+)") or 1
      if not check_split(t, r, n, ndev, "") then return end
      if ndev == 1 then
        t:log("this machine has one GPU: the split is one share here; the emulator runs it with 2 and 4 devices")
      end
      return hostcheck.expect_values(t, r, { hostcheck.ramp_sum(n) })
    end
    for _, ndev in ipairs{ 2, 4 } do
      local r = t:program{ defines = { N = n }, devices = ndev }
      if r.exit_code ~= 0 then
        t:log("with %d emulated devices:", ndev)
        return hostcheck.expect_values(t, r, { hostcheck.ramp_sum(n) })
      end
      if not check_split(t, r, n, ndev, " (emulated devices)") then return end
      if not hostcheck.expect_values(t, r, { hostcheck.ramp_sum(n) }) then return end
    end
  end,
}
