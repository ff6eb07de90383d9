-- peer-copy: device 0's result y must reach device 1. The starter copies it
-- through the host; the learner asks cudaDeviceCanAccessPeer, enables peer
-- access on device 1 and copies with cudaMemcpyPeer, keeping the host path
-- for GPUs that cannot reach each other. On the emulator it runs twice on
-- 2 devices: with peer access possible, and with it impossible
-- (t:program{ peer = false }: cudaDeviceCanAccessPeer says 0, enabling
-- fails). Checks: the question is asked, the copy is direct when it can be
-- (the timeline's peer copy is device to device, not staged through the
-- host, and y is not copied out and in), the fallback works, the values.
-- On one GPU both stages run on it: the values only, said plainly.

local function check_direct(t, r, unit)
  if hostcheck.count(r, "cudaDeviceCanAccessPeer") == 0 then
    t:fail("the program never asks whether device 1 can reach device 0's memory "
      .. "(cudaDeviceCanAccessPeer): on GPUs without a peer path enabling it fails. Ask first, and keep "
      .. "the host path for when the answer is 0")
    return false
  end
  local tl = t:timeline()
  local outs, staged, direct = 0, nil, nil
  for _, e in ipairs(tl.events) do
    if e.kind == "d2h" and not e.name:find("peer copy", 1, true) then outs = outs + 1 end
    if e.name:find("staged", 1, true) then staged = staged or e end
    if e.kind == "d2d" and e.name:find("peer copy", 1, true) then direct = direct or e end
  end
  if staged then
    t:fail(string.format("the peer copy went through the host (%s, %.1f us%s): without peer access "
      .. "enabled the driver stages cudaMemcpyPeer through host memory. Call "
      .. "cudaDeviceEnablePeerAccess(0, 0) on device 1 before the copy", staged.name, staged.dur_us, unit))
    return false
  end
  if outs > 1 or not direct then
    t:fail(string.format("y went from device 0 to the host and back to device 1 (%d copies out to the "
      .. "host), though device 1 can reach device 0's memory: enable peer access and copy it device to "
      .. "device with cudaMemcpyPeer", outs))
    return false
  end
  t:log("y went device to device: %.1f MB in %.1f us%s", direct.bytes / 1e6, direct.dur_us, unit)
  return true
end

return {
  id = "peer-copy",
  kind = "program",
  timed = false,   -- no check reads a time: when grading on a GPU it runs beside other untimed work
  gpus = 2,
  title = "Peer to peer: from one GPU's memory to another's",
  title_zh = "点对点：从一块 GPU 的显存直接到另一块",
  source = "peer-copy.cu",
  solution = "solutions/peer-copy.cu",
  wrong = {
    "solutions/wrong/peer-copy-no-check.cu",
    "solutions/wrong/peer-copy-not-enabled.cu",
  },
  timeout = 90,
  hints = {
    "Three calls: cudaDeviceCanAccessPeer(&can, b, a) asks whether device b can reach device a's "
      .. "memory; cudaDeviceEnablePeerAccess(a, 0), made while device b is current, turns it on; "
      .. "cudaMemcpyPeer(dst, b, src, a, bytes) copies. Without the second the driver copies through "
      .. "the host anyway.",
    "In the else branch of a == b: int can = 0; cudaCheck(cudaDeviceCanAccessPeer(&can, b, a)); "
      .. "if (can) { cudaCheck(cudaDeviceEnablePeerAccess(a, 0)); cudaCheck(cudaMemcpyPeer(d_y1, b, "
      .. "d_y, a, bytes)); } else { the host path as it was }.",
  },
  hints_zh = {
    "三个调用：cudaDeviceCanAccessPeer(&can, b, a) 询问设备 b 能否访问设备 a 的显存；在设备 b 为当前设备时"
      .. "调用 cudaDeviceEnablePeerAccess(a, 0) 打开点对点访问；cudaMemcpyPeer(dst, b, src, a, bytes) "
      .. "完成拷贝。缺了第二步，驱动仍会经由主机中转拷贝。",
    "在 a == b 的 else 分支里：int can = 0; cudaCheck(cudaDeviceCanAccessPeer(&can, b, a)); "
      .. "if (can) { cudaCheck(cudaDeviceEnablePeerAccess(a, 0)); cudaCheck(cudaMemcpyPeer(d_y1, b, "
      .. "d_y, a, bytes)); } else { 保留原来经由主机的路径 }。",
  },
  run = function(t)
    local on_gpu = t:device().backend == "cuda"
    -- 2^16 + 5 on the emulator (run twice: with and without a peer path): the
    -- last block has threads past the end.
    local n = t:param("n", on_gpu and (1 << 24) or (1 << 16) + 5)
    local want = { 2 * hostcheck.ramp_sum(n) }
    if on_gpu then
      local r = t:program{ defines = { N = n } }
      if r.exit_code ~= 0 then return hostcheck.expect_values(t, r, want) end
      local ndev = hostcheck.number(r, "devices: (%d+)") or 1
      if ndev == 1 then
        t:log("this machine has one GPU: both stages ran on it and nothing went peer to peer; the "
          .. "emulator checks the peer copy on 2 devices, with and without a peer path")
      elseif not check_direct(t, r, "") then
        return
      end
      return hostcheck.expect_values(t, r, want)
    end
    local r = t:program{ defines = { N = n }, devices = 2 }
    if r.exit_code ~= 0 then return hostcheck.expect_values(t, r, want) end
    if not check_direct(t, r, " (modeled)") then return end
    if not hostcheck.expect_values(t, r, want) then return end
    local r2 = t:program{ defines = { N = n }, devices = 2, peer = false }
    if r2.exit_code ~= 0 then
      local enable = hostcheck.calls_of(r2, "cudaDeviceEnablePeerAccess")
      if #enable > 0 and enable[1].rc ~= 0 then
        t:fail(string.format("on two GPUs that cannot reach each other cudaDeviceEnablePeerAccess fails "
          .. "(%s) and the program stops: enable peer access only when cudaDeviceCanAccessPeer said 1, "
          .. "and copy through the host otherwise", enable[1].error or "an error"))
        return
      end
      t:log("on two GPUs without a peer path:")
      return hostcheck.expect_values(t, r2, want)
    end
    if not hostcheck.expect_values(t, r2, want) then return end
    t:log("without a peer path (emulated) the program took the host path and got the same sum")
  end,
}
